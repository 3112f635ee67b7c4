"""Records as cells at their offsets: filled by what the next pass does, outlined or hatched by what they
are (tombstone, aborted transaction data, transaction marker), with key and value written in them when
there is room; gaps and empty batches drawn where records are missing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from kcompact_nb.core import BatchSpan, LayoutView, RecordKind, RecordOutcome, format_bytes
from kcompact_nb.viz._arrays import lane, numbers, strings
from kcompact_nb.viz._figure import FONT_SIZE, bar
from kcompact_nb.viz._labels import CHAR_PX
from kcompact_nb.viz._palette import (
    ABORTED,
    COLORS,
    EMPTY_BATCH,
    GAP,
    INK,
    LABELS,
    MARKER,
    OUTCOMES,
    TOMBSTONE,
    key_color,
    text_color,
)

CELL_WIDTH = 0.9
KEY_LEGEND_LIMIT = 10
KIND_GROUP = "what the record is"
OUTCOME_GROUP = "what the next pass does"


def record_cells(
    view: LayoutView, *, px_per_unit: float, yaxis: str, lane_px: float, color_by: str = "fate"
) -> list[dict[str, Any]]:
    """Gaps and empty batches, then the records (one trace per outcome, or by key), then kind overlays."""
    traces: list[dict[str, Any]] = [*_holes(view, yaxis), *_kind_keys(view.records, yaxis)]
    text = CellText(px_per_unit, lane_px, upright(view.records, px_per_unit, lane_px))
    if color_by == "key":
        traces += _by_key(view.records, text, yaxis)
    else:
        traces += _by_outcome(view.records, text, yaxis)
    return [t for t in traces if len(t["x"])]


def _by_outcome(records: Sequence[RecordOutcome], text: CellText, yaxis: str) -> list[dict[str, Any]]:
    grouped: dict[str, list[RecordOutcome]] = {outcome: [] for outcome in OUTCOMES}
    for record in records:
        grouped[record.outcome.value].append(record)
    traces = []
    for index, (outcome, chosen) in enumerate(grouped.items()):
        bar = _cells(LABELS[outcome], chosen, [COLORS[outcome]] * len(chosen), text, yaxis)
        bar.update(legendgroup=OUTCOME_GROUP, legendgrouptitle={"text": OUTCOME_GROUP}, legendrank=100 + index)
        traces.append(bar)
    return traces


def _by_key(records: Sequence[RecordOutcome], text: CellText, yaxis: str) -> list[dict[str, Any]]:
    """One trace per key (a legend of keys) up to :data:`KEY_LEGEND_LIMIT` keys, else one trace without legend."""
    order: dict[bytes | None, int] = {}
    for r in records:
        order.setdefault(r.key, len(order))
    if len(order) > KEY_LEGEND_LIMIT:
        bar = _cells("records by key", records, [key_color(order[r.key]) for r in records], text, yaxis)
        bar.update(showlegend=False)
        return [bar]
    traces = []
    for key, index in order.items():
        chosen = [r for r in records if r.key == key]
        name = "(no key)" if key is None else _text(key)
        bar = _cells(name, chosen, [key_color(index)] * len(chosen), text, yaxis)
        bar.update(legendgroup="keys", legendgrouptitle={"text": "keys"}, legendrank=100 + index)
        traces.append(bar)
    return traces


def _cells(
    name: str, records: Sequence[RecordOutcome], colors: Sequence[str], text: CellText, yaxis: str
) -> dict[str, Any]:
    """Cells of ``records``, plain data first (the legend shows the first cell's look), each styled by its kind."""
    order = sorted(range(len(records)), key=lambda i: records[i].kind is not RecordKind.DATA)
    records, colors = [records[i] for i in order], [colors[i] for i in order]
    styles = [KIND_STYLES.get(r.kind, PLAIN_STYLE) for r in records]
    marker = {
        "color": one_or_each(colors),
        "line": {
            "color": one_or_each([s.get("line_color", "white") for s in styles]),
            "width": one_or_each([s.get("line_width", 1) for s in styles]),
        },
        "pattern": {
            "shape": one_or_each([s.get("pattern", "") for s in styles]),
            "fgcolor": one_or_each([s.get("fgcolor", "#111111") for s in styles]),
            "size": 8,
            "solidity": 0.22,
        },
    }
    return bar(  # numpy arrays (viz/_arrays.py): plotly copies them whole where it validates lists item by item
        name=name,
        x=numbers(r.offset for r in records),
        **lane(len(records)),
        width=CELL_WIDTH,
        marker=marker,
        text=strings(text.each(records)),
        textposition="inside",
        insidetextanchor="middle",
        textangle=-90 if text.upright else 0,
        constraintext="none",
        textfont={"size": FONT_SIZE - 2, "color": one_or_each([text_color(c) for c in colors])},
        hovertext=strings([_hover(r) for r in records]),
        hovertemplate="%{hovertext}<extra></extra>",
        yaxis=yaxis,
        xaxis="x",
    )


def one_or_each(values: Sequence[Any]) -> Any:
    """One value when all are equal (``values`` hashable), else the list: plotly validates a list of colors
    item by item, which costs seconds for thousands of cells."""
    return values[0] if values and len(set(values)) == 1 else list(values)


class CellText(NamedTuple):
    """The rule for text in record cells of ``px_per_unit`` wide and ``lane_px`` tall: across the cell, key
    and value when both fit, else the key; up the cell (``upright``) when only that fits; else none."""

    px_per_unit: float
    lane_px: float
    upright: bool

    @property
    def chars(self) -> int:
        """Characters that fit a cell."""
        room = self.lane_px - 6 if self.upright else self.px_per_unit * CELL_WIDTH - 4
        return int(room / (CHAR_PX * (FONT_SIZE - 2)))

    def each(self, records: Sequence[RecordOutcome]) -> list[str]:
        """The text of each of ``records``."""
        return [self(r) for r in records] if self.chars >= 2 else [""] * len(records)

    def __call__(self, record: RecordOutcome) -> str:
        chars = self.chars
        if chars < 2:
            return ""
        first = _cut(_name(record), chars)
        if self.upright:
            return first
        second = {RecordKind.TOMBSTONE: "null", RecordKind.MARKER: ""}.get(record.kind, _value(record))
        readable = chars >= min(len(second), 4)  # "0…" says nothing: a value shows only when 3 characters of it fit
        return first if not second or not readable or self.lane_px < 40 else f"{first}<br>{_cut(second, chars)}"


def upright(records: Sequence[RecordOutcome], px_per_unit: float, lane_px: float) -> bool:
    """Write keys up the cells when some key does not fit across its cell but fits up it."""
    if px_per_unit * CELL_WIDTH < FONT_SIZE - 2:  # too narrow for a line of text (no key need be measured)
        return False
    across = px_per_unit * CELL_WIDTH - 4
    longest = max((len(_name(r)) for r in records), default=0) * CHAR_PX * (FONT_SIZE - 2)
    return across < longest <= lane_px - 6


def _name(record: RecordOutcome) -> str:
    return record.marker if record.marker is not None else _key(record)


def _cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: max(chars - 1, 1)] + "…"


def _hover(record: RecordOutcome) -> str:
    """``offset 3: key lime, value $1.59<br>kept: latest of its key``: the record and what the next pass does; a
    transaction marker by its type (``offset 9: COMMIT marker``), not its key's and value's bytes."""
    if record.marker is not None:
        where = f"offset {record.offset:,}: {record.marker} marker (transaction control record)"
    else:
        where = f"offset {record.offset:,}: key {_key(record)}, value {_value(record)}"
    return f"{where}<br>{record.outcome}: {record.reason}"  # a StrEnum formats as its value


def _key(record: RecordOutcome) -> str:
    return "null" if record.key is None else _text(record.key)


def _value(record: RecordOutcome) -> str:
    """The value as text; a null value is ``null (tombstone)`` (with a key), as ``kcompact dump`` prints it."""
    if record.value is None:
        return "null" if record.key is None else "null (tombstone)"
    return _text(record.value)


def _text(data: bytes) -> str:
    return _short_text(data) if len(data) <= SHORT_BYTES else _decoded(data)


SHORT_BYTES = 256
"""Keys and values up to this long are decoded once per process (a partition repeats its keys, often its values):
at most 16,384 of them, about 4 MiB, are kept."""


@lru_cache(maxsize=16_384)
def _short_text(data: bytes) -> str:
    return _decoded(data)


def _decoded(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    return text if text.isprintable() else "0x" + data.hex()


KIND_STYLES: dict[RecordKind, dict[str, object]] = {
    RecordKind.TOMBSTONE: {"line_color": COLORS[TOMBSTONE], "line_width": 3},
    RecordKind.ABORTED: {"pattern": "/", "fgcolor": COLORS[ABORTED]},
    RecordKind.MARKER: {"pattern": ".", "fgcolor": COLORS[MARKER]},
}
"""How a record's kind is drawn on its cell: an outline or a pattern under the cell's text."""
PLAIN_STYLE: dict[str, object] = {}
"""A plain data record's style (shared, never modified: a new dict per cell costs the collector dearly)."""
KIND_NAMES = {RecordKind.TOMBSTONE: TOMBSTONE, RecordKind.ABORTED: ABORTED, RecordKind.MARKER: MARKER}


def _kind_keys(records: Sequence[RecordOutcome], yaxis: str) -> list[dict[str, Any]]:
    """The legend of record kinds: for each kind present, its look on the cells of that kind (drawn beneath them)."""
    keys = []
    for index, (kind, style) in enumerate(KIND_STYLES.items()):
        chosen = [r.offset for r in records if r.kind is kind]
        marker = {
            "color": "rgba(255,255,255,0)",
            "line": {"color": style.get("line_color", COLORS[GAP]), "width": style.get("line_width", 1)},
            "pattern": {"shape": style.get("pattern", ""), "fgcolor": COLORS[INK], "size": 8, "solidity": 0.22},
        }
        keys.append(
            bar(
                name=LABELS[KIND_NAMES[kind]],
                x=numbers(chosen),
                **lane(len(chosen)),
                width=CELL_WIDTH,
                marker=marker,
                hoverinfo="skip",
                legendgroup=KIND_GROUP,
                legendgrouptitle={"text": KIND_GROUP},
                legendrank=200 + index,
                yaxis=yaxis,
                xaxis="x",
            )
        )
    return keys


def _holes(view: LayoutView, yaxis: str) -> list[dict[str, Any]]:
    """Gaps left by compaction (hover: a fetch returns the next record) and empty batches."""
    gaps = [(a, b - 1, _gap_text(a, b, view.log_end_offset)) for a, b in view.gaps]
    empty = [(b.base_offset, b.last_offset, _empty_text(b)) for b in view.batches if b.record_count == 0]
    gap_look = {
        "color": "#f4f5f7",
        "line": {"color": COLORS[GAP], "width": 1},
        "pattern": {"shape": "-", "fgcolor": COLORS[GAP], "solidity": 0.15},
    }
    shell_look = {
        "color": "rgba(0,0,0,0)",
        "line": {"color": COLORS[EMPTY_BATCH], "width": 2},
        "pattern": {"shape": "x", "fgcolor": COLORS[EMPTY_BATCH], "solidity": 0.15},
    }
    return [
        _spans(LABELS[GAP], gaps, gap_look, 210, yaxis, inset=0.0),
        _spans(LABELS[EMPTY_BATCH], empty, shell_look, 220, yaxis, inset=1 - CELL_WIDTH),
    ]


def _spans(
    name: str,
    spans: Sequence[tuple[int, int, str]],
    marker: Mapping[str, object],
    rank: int,
    yaxis: str,
    *,
    inset: float,
) -> dict[str, Any]:
    """Bars over offset runs ``[first, last]`` on the records lane, each with its hover text."""
    return bar(
        name=name, x=numbers((a + b) / 2 for a, b, _ in spans), width=numbers(b - a + 1 - inset for a, b, _ in spans),
        **lane(len(spans)), marker=dict(marker), hovertext=strings([t for _, _, t in spans]),
        hovertemplate="%{hovertext}<extra></extra>", legendgroup=KIND_GROUP, legendgrouptitle={"text": KIND_GROUP},
        legendrank=rank, yaxis=yaxis, xaxis="x",
    )  # fmt: skip


def _gap_text(start: int, end: int, log_end_offset: int) -> str:
    where = f"offset {start:,}" if end - start == 1 else f"offsets {start:,}-{end - 1:,}"
    if end >= log_end_offset:
        return f"{where}: no record (removed by compaction); a fetch from {start:,} waits for new records"
    return f"{where}: no record (removed by compaction); a fetch from {start:,} returns offset {end:,}, the next record"


def _empty_text(batch: BatchSpan) -> str:
    where = (
        f"offset {batch.base_offset:,}"
        if batch.base_offset == batch.last_offset
        else f"offsets {batch.base_offset:,}-{batch.last_offset:,}"
    )
    return (
        f"empty batch at {where}: its records are gone, its {format_bytes(batch.size_bytes)} header stays: "
        f"{batch.kept_because}"
    )


def batch_bars(batches: Sequence[BatchSpan], *, px_per_unit: float, yaxis: str, lane_px: float = 26) -> dict[str, Any]:
    """One cell per batch over its offsets: its transaction state and bytes written in when there is room."""
    return bar(  # numpy arrays, and one value where all are equal: plotly validates lists item by item
        name="batches",
        x=numbers((b.base_offset + b.last_offset) / 2 for b in batches),
        width=numbers(b.last_offset - b.base_offset + CELL_WIDTH for b in batches),
        **lane(len(batches)),
        marker={
            "color": one_or_each(["#e9ecef" if not b.is_control else "#d5d9de" for b in batches]),
            "line": {"color": "#8a8f96", "width": 1},
            "pattern": {
                "shape": one_or_each(["/" if b.transaction == "aborted" else "" for b in batches]),
                "fgcolor": "#b8bec6",
                "size": 8,
                "solidity": 0.15,
            },
        },
        text=strings([batch_text(b, px_per_unit, lane_px) for b in batches]),
        textposition="inside",
        insidetextanchor="middle",
        textangle=0,
        constraintext="none",
        textfont={"size": FONT_SIZE - 2, "color": "#1f2933"},
        hovertext=strings([_batch_hover(b) for b in batches]),
        hovertemplate="%{hovertext}<extra></extra>",
        showlegend=False,
        yaxis=yaxis,
        xaxis="x",
    )


def batch_text(batch: BatchSpan, px_per_unit: float, lane_px: float) -> str:
    """``"aborted txn<br>93 B"``, one of the two, or nothing: the most that fits the batch's cell."""
    size = format_bytes(batch.size_bytes, exact=False)
    state = _state(batch)
    width = (batch.last_offset - batch.base_offset + CELL_WIDTH) * px_per_unit - 4
    options = [f"{state}<br>{size}"] if state and lane_px >= 34 else []
    options += [state, size] if state else [size]
    return next((t for t in options if max(len(p) for p in t.split("<br>")) * CHAR_PX * (FONT_SIZE - 2) <= width), "")


def _state(batch: BatchSpan) -> str:
    if batch.transaction in ("COMMIT", "ABORT"):
        return batch.transaction
    if batch.transaction is not None:
        return f"{batch.transaction} txn"
    return "empty batch" if batch.record_count == 0 else ""


def _batch_hover(batch: BatchSpan) -> str:
    kind = "control batch" if batch.is_control else ("transactional batch" if batch.is_transactional else "batch")
    state = "" if batch.transaction is None else f" ({batch.transaction})"
    producer = "" if batch.producer_id < 0 else f", producer {batch.producer_id}"
    return (
        f"{kind}{state} {batch.base_offset:,}-{batch.last_offset:,}: {batch.record_count} record(s), "
        f"{format_bytes(batch.size_bytes)}{producer}"
    )
