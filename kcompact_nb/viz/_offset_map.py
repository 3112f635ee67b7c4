"""The offset map of one pass: its fill against capacity, each key at the offset the map holds for it, the
keys it had no room for, and where the pass stopped (spec 6)."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from kcompact_nb.core import LogPart, OffsetMapView
from kcompact_nb.viz._arrays import lane, numbers, strings
from kcompact_nb.viz._axes import nice_step
from kcompact_nb.viz._cells import CELL_WIDTH
from kcompact_nb.viz._figure import FONT_SIZE, assemble, bar, legend_below
from kcompact_nb.viz._frame import Marks, Rows, axes_layout, header_items, layout_items, plan_header
from kcompact_nb.viz._labels import CHAR_PX, PLOT_WIDTH_PX
from kcompact_nb.viz._palette import COLORS, FREE, KEPT, LABELS, MISSED, RESERVE, text_color

CAPACITY_PX, LANE_PX, GAP_PX = 40, 64, 10


def offset_map_figure(view: OffsetMapView, *, title: str | None = None) -> go.Figure:
    """Top: the map's slots (``log.cleaner.dedupe.buffer.size`` / entry bytes): entries, free slots up to
    ``log.cleaner.io.buffer.load.factor`` and the reserve above it. Below, over the offsets of the
    cleanable range: each key at the offset the map holds for it, and the keys a full map missed (left
    for the next pass), with the pass's end offset marked."""
    first, end = view.first_dirty_offset, max(view.first_uncleanable_offset, view.end_offset + 1)
    px_per_unit = PLOT_WIDTH_PX / max(end - first, 1)
    parts = [
        LogPart(
            f"cleanable range [{view.first_dirty_offset:,}, {view.first_uncleanable_offset:,})",
            first,
            view.first_uncleanable_offset,
            1,
        )
    ]
    stop = (
        f"the pass stopped at {view.end_offset:,}: offset map full"
        if view.map_full
        else f"end offset {view.end_offset:,}"
    )
    marks = Marks(None, None, view.end_offset, pass_end_text=stop)
    rows = Rows()
    rows.add("capacity", CAPACITY_PX)
    rows.add("capacity axis", 56)
    labels = plan_header(rows, parts, marks, px_per_unit=px_per_unit, first=first, end=end)
    rows.add("gap", GAP_PX)
    rows.add("entries", LANE_PX)
    lanes = [
        (
            "entries",
            "y2",
            {"range": [0, 1], "showticklabels": False, "showgrid": False, "fixedrange": True, "lane": "in the map"},
        )
    ]
    if view.missed_keys:
        rows.add("gap2", GAP_PX / 2)
        rows.add("missed", LANE_PX)
        lanes.append(
            (
                "missed",
                "y3",
                {"range": [0, 1], "showticklabels": False, "showgrid": False, "fixedrange": True, "lane": "no room"},
            )
        )
    layout, notes = axes_layout(rows, first=first, end=end, cartesian=lanes)
    shapes, header_notes = header_items(rows, parts, labels, bottom_row=lanes[-1][0])
    layout.update(
        layout_items(shapes=shapes, annotations=[*notes, *header_notes]),
        xaxis4={
            "domain": [0, 1],
            "anchor": "y4",
            "title": {"text": "slots of the offset map", "standoff": 2},
            "dtick": _slot_step(view),
        },
        yaxis4={"domain": list(rows.span("capacity")), "anchor": "x4", "showticklabels": False, "fixedrange": True},
        barmode="stack",
        legend=legend_below(plot_px=rows.plot_px),
        bargap=0,
    )
    height = int(rows.plot_px + 90 + 140)
    percent = f"{100 * view.utilization:.1f}%"
    subtitle = f"{capacity_text(view)} · Buffer utilization {percent} (Kafka's log line: entries / slots)"
    heading = title or (
        f"Offset map of the pass: {len(view.entries):,} keys, "
        f"cleaned [{view.first_dirty_offset:,}, {view.end_offset:,})"
    )
    traces = [*_entry_cells(view, px_per_unit), *fill_traces(view)]
    return assemble(traces, layout, title=heading, subtitle=subtitle, height=height, top=90, bottom=140)


def capacity_text(view: OffsetMapView) -> str:
    """``"16 slots, 14 usable at load factor 0.9"`` (or the unbounded map's note)."""
    if view.slots is None or view.capacity is None:
        return "an exact map without a capacity limit (not Kafka's SkimpyOffsetMap)"
    factor = "" if view.load_factor is None else f" at load factor {view.load_factor:g}"
    size = "" if view.entry_bytes is None else f" of {view.entry_bytes} B"
    return f"{view.slots:,} slots{size}, {view.capacity:,} usable{factor}"


def _slot_step(view: OffsetMapView) -> int:
    return nice_step(view.slots or max(len(view.entries), 1), target_ticks=12)


def fill_traces(view: OffsetMapView) -> list[dict[str, Any]]:
    """Stacked horizontal bars over the slots: entries, free slots up to the load factor, the reserve above it."""
    used = len(view.entries)
    parts = [("entries", used, COLORS[KEPT])]
    if view.capacity is not None and view.slots is not None:
        parts += [
            (LABELS[FREE], view.capacity - used, COLORS[FREE]),
            (LABELS[RESERVE], view.slots - view.capacity, COLORS[RESERVE]),
        ]
    return [
        bar(
            name=name,
            x=[count],
            y=["slots"],
            orientation="h",
            marker={"color": color, "line": {"color": "white", "width": 1}},
            text=[f"{count:,} {name.split(' ')[0]}"],
            textposition="inside",
            insidetextanchor="middle",
            textfont={"color": text_color(color), "size": FONT_SIZE},
            xaxis="x4",
            yaxis="y4",
            legendgroup="slots",
            legendgrouptitle={"text": "slots"},
            hovertemplate=f"{name}: {count:,} slots<extra></extra>",
        )
        for name, count, color in parts
        if count > 0
    ]


def _entry_cells(view: OffsetMapView, px_per_unit: float) -> list[dict[str, Any]]:
    entries = [(e.offset, _text(e.key) + ("" if e.version is None else f" v{e.version}")) for e in view.entries]
    missed = [(offset, _text(key)) for key, offset in view.missed_keys]
    lanes = (
        ("in the map: its latest offset", entries, COLORS[KEPT], "y2"),
        (LABELS[MISSED], missed, COLORS[MISSED], "y3"),
    )
    return [
        bar(
            name=name,
            x=numbers(o for o, _ in cells),
            **lane(len(cells)),
            width=CELL_WIDTH,
            marker={"color": color, "line": {"color": "white", "width": 1}},
            text=strings([k for _, k in cells]),
            textposition="inside",
            insidetextanchor="middle",
            textangle=key_angle([k for _, k in cells], px_per_unit, LANE_PX),
            constraintext="none",
            textfont={"size": FONT_SIZE - 2, "color": text_color(color)},
            hovertext=strings([k for _, k in cells]),
            hovertemplate="offset %{x}: key %{hovertext}<extra>" + name + "</extra>",
            yaxis=axis,
            xaxis="x",
            legendgroup="keys",
            legendgrouptitle={"text": "keys"},
        )
        for name, cells, color, axis in lanes
        if cells
    ]


def key_angle(keys: list[str], px_per_unit: float, lane_px: float) -> int:
    """0 (across) when every key fits across its cell, else -90 (up the cell)."""
    longest = max((len(k) for k in keys), default=0) * CHAR_PX * (FONT_SIZE - 2)
    return 0 if longest <= px_per_unit * CELL_WIDTH - 4 or longest > lane_px - 4 else -90


def _text(key: bytes) -> str:
    return key.decode("utf-8", "replace")
