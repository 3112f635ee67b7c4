"""Records as cells at their offsets: filled by what the next pass does, outlined or hatched by what they
are (tombstone, aborted transaction data, transaction marker), with key and value written in them when
there is room; gaps and empty batches drawn where records are missing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import plotly.graph_objects as go

from kcompact_nb.core import BatchSpan, LayoutView, RecordKind, RecordOutcome, format_bytes
from kcompact_nb.viz._figure import FONT_SIZE
from kcompact_nb.viz._labels import CHAR_PX
from kcompact_nb.viz._palette import (
    ABORTED,
    COLORS,
    EMPTY_BATCH,
    GAP,
    LABELS,
    MARKER,
    OUTCOMES,
    TOMBSTONE,
    key_color,
    text_color,
)

CELL_WIDTH = 0.9
KIND_GROUP = "what the record is"
OUTCOME_GROUP = "what the next pass does"


def record_cells(view: LayoutView, *, px_per_unit: float, yaxis: str, lane_px: float, color_by: str = "fate") -> list[go.Bar]:
    """Gaps and empty batches, then the records (one trace per outcome, or by key), then kind overlays."""
    traces: list[go.Bar] = [*_holes(view, yaxis)]
    text = CellText(px_per_unit, lane_px, upright(view.records, px_per_unit, lane_px))
    if color_by == "key":
        traces.append(_by_key(view.records, text, yaxis))
    else:
        traces += _by_outcome(view.records, text, yaxis)
    traces += _kind_overlays(view.records, yaxis)
    return [t for t in traces if len(t.x)]


def _by_outcome(records: Sequence[RecordOutcome], text: CellText, yaxis: str) -> list[go.Bar]:
    traces = []
    for index, outcome in enumerate(OUTCOMES):
        chosen = [r for r in records if r.outcome.value == outcome]
        bar = _cells(LABELS[outcome], chosen, [COLORS[outcome]] * len(chosen), text, yaxis)
        bar.update(legendgroup=OUTCOME_GROUP, legendgrouptitle={"text": OUTCOME_GROUP}, legendrank=100 + index)
        traces.append(bar)
    return traces


def _by_key(records: Sequence[RecordOutcome], text: CellText, yaxis: str) -> go.Bar:
    order: dict[bytes | None, int] = {}
    colors = [key_color(order.setdefault(r.key, len(order))) for r in records]
    bar = _cells("records by key", records, colors, text, yaxis)
    bar.update(showlegend=False)
    return bar


def _cells(name: str, records: Sequence[RecordOutcome], colors: Sequence[str], text: CellText, yaxis: str) -> go.Bar:
    return go.Bar(
        name=name, x=[r.offset for r in records], y=[1] * len(records), base=[0] * len(records), width=CELL_WIDTH,
        marker={"color": list(colors), "line": {"color": "white", "width": 1}},
        text=[text(r) for r in records], textposition="inside", insidetextanchor="middle",
        textangle=-90 if text.upright else 0, constraintext="none", textfont={"size": FONT_SIZE - 2, "color": [text_color(c) for c in colors]},
        hovertext=[_key(r) for r in records],
        customdata=[[_value(r), r.outcome.value, r.reason] for r in records],
        hovertemplate="offset %{x}: key %{hovertext}, value %{customdata[0]}<br>%{customdata[1]}: %{customdata[2]}<extra></extra>",
        yaxis=yaxis, xaxis="x",
    )  # fmt: skip


class CellText(NamedTuple):
    """The rule for text in record cells of ``px_per_unit`` wide and ``lane_px`` tall: across the cell, key
    and value when both fit, else the key; up the cell (``upright``) when only that fits; else none."""

    px_per_unit: float
    lane_px: float
    upright: bool

    def __call__(self, record: RecordOutcome) -> str:
        room = self.lane_px - 6 if self.upright else self.px_per_unit * CELL_WIDTH - 4
        chars = int(room / (CHAR_PX * (FONT_SIZE - 2)))
        if chars < 2:
            return ""
        first = _cut(_name(record), chars)
        if self.upright:
            return first
        second = {RecordKind.TOMBSTONE: "null", RecordKind.MARKER: ""}.get(record.kind, _value(record))
        return first if not second or self.lane_px < 40 else f"{first}<br>{_cut(second, chars)}"


def upright(records: Sequence[RecordOutcome], px_per_unit: float, lane_px: float) -> bool:
    """Write keys up the cells when some key does not fit across its cell but fits up it."""
    across = px_per_unit * CELL_WIDTH - 4
    longest = max((len(_name(r)) for r in records), default=0) * CHAR_PX * (FONT_SIZE - 2)
    return longest > across and px_per_unit * CELL_WIDTH >= FONT_SIZE - 2 and longest <= lane_px - 6


def _name(record: RecordOutcome) -> str:
    return record.marker if record.marker is not None else _key(record)


def _cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: max(chars - 1, 1)] + "…"


def _key(record: RecordOutcome) -> str:
    return "(none)" if record.key is None else _text(record.key)


def _value(record: RecordOutcome) -> str:
    return "null" if record.value is None else _text(record.value)


def _text(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    return text if text.isprintable() else "0x" + data.hex()


def _kind_overlays(records: Sequence[RecordOutcome], yaxis: str) -> list[go.Bar]:
    """Transparent cells drawn over the records of one kind: an outline or a pattern, with a legend entry."""
    styles = {
        RecordKind.TOMBSTONE: (TOMBSTONE, {"line": {"color": COLORS[TOMBSTONE], "width": 3}}),
        RecordKind.ABORTED: (ABORTED, {"pattern": {"shape": "/", "fgcolor": COLORS[ABORTED], "size": 8, "solidity": 0.3}}),
        RecordKind.MARKER: (MARKER, {"pattern": {"shape": ".", "fgcolor": COLORS[MARKER], "size": 9, "solidity": 0.12}}),
    }
    overlays = []
    for index, (kind, (name, style)) in enumerate(styles.items()):
        chosen = [r.offset for r in records if r.kind is kind]
        marker = {"color": "rgba(0,0,0,0)", "line": {"width": 0}, **style}
        overlays.append(
            go.Bar(
                name=LABELS[name], x=chosen, y=[1] * len(chosen), base=[0] * len(chosen), width=CELL_WIDTH, marker=marker,
                hoverinfo="skip", legendgroup=KIND_GROUP, legendgrouptitle={"text": KIND_GROUP}, legendrank=200 + index,
                yaxis=yaxis, xaxis="x",
            )  # fmt: skip
        )
    return overlays


def _holes(view: LayoutView, yaxis: str) -> list[go.Bar]:
    """Gaps left by compaction (hover: a fetch returns the next record) and empty batches."""
    gaps = view.gaps
    stored = [r.offset for r in view.records]
    gap = go.Bar(
        name=LABELS[GAP], x=[(a + b - 1) / 2 for a, b in gaps], width=[b - a for a, b in gaps], y=[1] * len(gaps),
        base=[0] * len(gaps), marker={"color": "#f4f5f7", "line": {"color": COLORS[GAP], "width": 1},
                                       "pattern": {"shape": "-", "fgcolor": COLORS[GAP], "size": 6, "solidity": 0.15}},
        hovertext=[_gap_text(a, b, stored, view.log_end_offset) for a, b in gaps], hovertemplate="%{hovertext}<extra></extra>",
        legendgroup=KIND_GROUP, legendgrouptitle={"text": KIND_GROUP}, legendrank=210, yaxis=yaxis, xaxis="x",
    )  # fmt: skip
    empty = [b for b in view.batches if b.record_count == 0]
    shell = go.Bar(
        name=LABELS[EMPTY_BATCH], x=[(b.base_offset + b.last_offset) / 2 for b in empty],
        width=[b.last_offset - b.base_offset + CELL_WIDTH for b in empty], y=[1] * len(empty), base=[0] * len(empty),
        marker={"color": "rgba(0,0,0,0)", "line": {"color": COLORS[EMPTY_BATCH], "width": 2},
                "pattern": {"shape": "x", "fgcolor": COLORS[EMPTY_BATCH], "size": 8, "solidity": 0.15}},
        hovertext=[_empty_text(b) for b in empty], hovertemplate="%{hovertext}<extra></extra>",
        legendgroup=KIND_GROUP, legendgrouptitle={"text": KIND_GROUP}, legendrank=220, yaxis=yaxis, xaxis="x",
    )  # fmt: skip
    return [gap, shell]


def _gap_text(start: int, end: int, stored: Sequence[int], log_end_offset: int) -> str:
    where = f"offset {start:,}" if end - start == 1 else f"offsets {start:,}-{end - 1:,}"
    if end >= log_end_offset:
        return f"{where}: no record (removed by compaction); a fetch from {start:,} waits for new records"
    return f"{where}: no record (removed by compaction); a fetch from {start:,} returns offset {end:,}, the next record"


def _empty_text(batch: BatchSpan) -> str:
    where = f"offset {batch.base_offset:,}" if batch.base_offset == batch.last_offset else f"offsets {batch.base_offset:,}-{batch.last_offset:,}"
    return (
        f"empty batch at {where}: its records are gone, its {format_bytes(batch.size_bytes)} header stays "
        f"(the last batch of producer {batch.producer_id} keeps its state)"
    )


def batch_bars(batches: Sequence[BatchSpan], *, px_per_unit: float, yaxis: str) -> go.Bar:
    """One cell per batch over its offsets, with its bytes written in when there is room."""
    return go.Bar(
        name="batches", x=[(b.base_offset + b.last_offset) / 2 for b in batches],
        width=[b.last_offset - b.base_offset + CELL_WIDTH for b in batches], y=[1] * len(batches), base=[0] * len(batches),
        marker={"color": ["#e9ecef" if not b.is_control else "#d5d9de" for b in batches], "line": {"color": "#8a8f96", "width": 1}},
        text=[_batch_text(b, px_per_unit) for b in batches], textposition="inside", insidetextanchor="middle", textangle=0,
        constraintext="none", textfont={"size": FONT_SIZE - 2, "color": "#1f2933"},
        hovertext=[_batch_hover(b) for b in batches], hovertemplate="%{hovertext}<extra></extra>", showlegend=False,
        yaxis=yaxis, xaxis="x",
    )  # fmt: skip


def _batch_text(batch: BatchSpan, px_per_unit: float) -> str:
    text = format_bytes(batch.size_bytes, exact=False)
    width = (batch.last_offset - batch.base_offset + CELL_WIDTH) * px_per_unit - 4
    return text if len(text) * CHAR_PX * (FONT_SIZE - 2) <= width else ""


def _batch_hover(batch: BatchSpan) -> str:
    kind = "control batch" if batch.is_control else ("transactional batch" if batch.is_transactional else "batch")
    producer = "" if batch.producer_id < 0 else f", producer {batch.producer_id}"
    return (
        f"{kind} {batch.base_offset:,}-{batch.last_offset:,}: {batch.record_count} record(s), "
        f"{format_bytes(batch.size_bytes)}{producer}"
    )
