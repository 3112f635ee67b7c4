"""The frame every layout figure shares: rows stacked in pixels, brackets naming the parts of the log, the
lines at the cleaner point and the first uncleanable offset, segment boundaries, and the segments row.

Offsets are cells centred on integer ticks: offset ``o`` spans ``[o - 0.5, o + 0.5)``, so a boundary
before offset ``o`` is drawn at ``o - 0.5``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import plotly.graph_objects as go

from kcompact_nb.core import LogPart, SegmentRegion, format_bytes
from kcompact_nb.viz._axes import offset_axis, size_unit
from kcompact_nb.viz._figure import FONT_SIZE, bar
from kcompact_nb.viz._labels import GAP_PX as LABEL_GAP_PX
from kcompact_nb.viz._labels import PLOT_WIDTH_PX, Label, merged, row_count, stacked, text_px
from kcompact_nb.viz._palette import (
    CLEANER_POINT,
    COLORS,
    EDGES,
    FIRST_UNCLEANABLE,
    INK,
    LABELS,
    PART_NAMES,
    PASS_END,
    SEGMENT_BOUNDARY,
)

LABEL_ROW_PX = 18
LINE_PX = 14
BRACKET_PX = 8
GAP_PX = 14


@dataclass
class Rows:
    """Rows of a figure from the top, each a height in pixels; cartesian rows get a y axis each."""

    heights: list[tuple[str, float]] = field(default_factory=list)

    def add(self, name: str, px: float) -> None:
        self.heights.append((name, px))

    @property
    def plot_px(self) -> float:
        return sum(px for _, px in self.heights)

    def span(self, name: str) -> tuple[float, float]:
        """Paper coordinates ``(bottom, top)`` of row ``name``."""
        top = self.plot_px
        for row, px in self.heights:
            if row == name:
                return (top - px) / self.plot_px, top / self.plot_px
            top -= px
        raise KeyError(name)

    def has(self, name: str) -> bool:
        return any(row == name for row, _ in self.heights)


@dataclass(frozen=True)
class Marks:
    """Offsets the frame marks: the cleaner point, the first uncleanable offset, where the pass stops."""

    cleaner_point: int | None
    first_uncleanable_offset: int | None
    pass_end_offset: int | None = None
    pass_end_text: str | None = None


def part_labels(
    parts: Sequence[LogPart],
    *,
    px_per_unit: float,
    bounds: tuple[float, float],
    lines_x: Sequence[float] = (),
) -> dict[int, list[Label]]:
    """Bracket labels per level, stacked by the collision rule.

    A label wider than its bracket would stand over the neighbouring part (``log head`` over the log tail
    when the head is one short segment): it takes a row of its own above the others and points down at
    its bracket, its text beside any of the vertical lines at ``lines_x`` rather than struck through by it.
    """
    levels: dict[int, list[Label]] = {}
    for level in sorted({p.level for p in parts}):
        chosen = [p for p in parts if p.level == level]
        items = [((p.start + p.end - 1) / 2, _part_text(p)) for p in chosen]
        placed = stacked(items, px_per_unit=px_per_unit, font_size=FONT_SIZE, bounds=bounds)
        wide = [
            not ((p.start - 0.5) * px_per_unit <= low and high <= (p.end - 0.5) * px_per_unit)
            for p, (low, high) in zip(chosen, (text_span_px(label, px_per_unit) for label in placed), strict=True)
        ]
        rows = row_count([label for label, over in zip(placed, wide, strict=True) if not over])
        pointing = (index for index, over in enumerate(wide) if over)
        for row, index in enumerate(pointing, start=rows):
            label = placed[index]
            shift = _clear_of_lines(label, lines_x, px_per_unit=px_per_unit, bounds=bounds)
            placed[index] = label._replace(row=row, points=True, anchor=shift[0], shift_px=shift[1])
        levels[level] = placed
    return levels


def text_span_px(label: Label, px_per_unit: float) -> tuple[float, float]:
    """Where ``label``'s text lies across the plot, in px from offset 0: its position, anchor and shift."""
    width = text_px(label.text, FONT_SIZE)
    left = label.x * px_per_unit + label.shift_px - {"left": 0.0, "center": width / 2, "right": width}[label.anchor]
    return left, left + width


def _clear_of_lines(
    label: Label, lines_x: Sequence[float], *, px_per_unit: float, bounds: tuple[float, float]
) -> tuple[str, float]:
    """(anchor, shift in px) keeping a pointing label's text off the lines: as placed when no line crosses it,
    else beside the nearest such line, on its bracket's side when the text fits there within ``bounds``."""
    low, high = text_span_px(label, px_per_unit)
    crossing = sorted((x for x in lines_x if low < x * px_per_unit < high), key=lambda x: abs(x - label.x))
    if not crossing:
        return label.anchor, 0.0
    width, line_px = high - low, crossing[0] * px_per_unit
    before = ("right", line_px - LABEL_GAP_PX / 2 - label.x * px_per_unit)
    after = ("left", line_px + LABEL_GAP_PX / 2 - label.x * px_per_unit)
    fits_after = line_px + LABEL_GAP_PX / 2 + width <= bounds[1] * px_per_unit
    fits_before = line_px - LABEL_GAP_PX / 2 - width >= bounds[0] * px_per_unit
    if crossing[0] < label.x:  # its bracket is after the line: the text goes there if it fits
        return after if fits_after or not fits_before else before
    return before if fits_before or not fits_after else after


def _part_text(part: LogPart) -> str:
    if part.name == "head":
        return "<b>log head</b> (not yet cleaned)"
    if part.level == 0:
        return "<b>log tail</b> (cleaned)"
    return PART_NAMES.get(part.name, part.name)


def _part_color(part: LogPart) -> str:
    return EDGES.get(part.name.split(" ")[0], COLORS[INK])


def marks_end(text: str) -> bool:
    """A pass-end label (colored apart from the cleaner point and the first uncleanable offset)."""
    return not text.startswith((LABELS[CLEANER_POINT], LABELS[FIRST_UNCLEANABLE]))


def line_labels(marks: Marks) -> list[tuple[float, str]]:
    """The marked offsets as (x, text), merged where they coincide."""
    items: list[tuple[float, str]] = []
    if marks.cleaner_point is not None:
        items.append((marks.cleaner_point - 0.5, f"{LABELS[CLEANER_POINT]} {marks.cleaner_point:,}"))
    if marks.first_uncleanable_offset is not None:
        items.append(
            (marks.first_uncleanable_offset - 0.5, f"{LABELS[FIRST_UNCLEANABLE]} {marks.first_uncleanable_offset:,}")
        )
    if marks.pass_end_offset is not None:
        text = marks.pass_end_text or f"next pass stops at {marks.pass_end_offset:,}: offset map full"
        items.append((marks.pass_end_offset - 0.5, text))
    return merged(items)


def plan_header(
    rows: Rows, parts: Sequence[LogPart], marks: Marks, *, px_per_unit: float, first: int, end: int
) -> tuple[list[Label], dict[int, list[Label]]]:
    """Add the label rows for the lines and the brackets to ``rows``; return the placed labels."""
    bounds = (first - 0.5, end - 0.5)
    lines = stacked(line_labels(marks), px_per_unit=px_per_unit, font_size=FONT_SIZE - 1, bounds=bounds)
    if lines:
        rows.add("lines", row_count(lines) * LABEL_ROW_PX + 4)
    brackets = part_labels(parts, px_per_unit=px_per_unit, bounds=bounds, lines_x=[label.x for label in lines])
    for level, labels in brackets.items():
        rows.add(f"parts{level}", row_count(labels) * LABEL_ROW_PX + BRACKET_PX + 4)
    return lines, brackets


def draw_header(
    fig: go.Figure,
    rows: Rows,
    parts: Sequence[LogPart],
    labels: tuple[list[Label], dict[int, list[Label]]],
    *,
    bottom_row: str,
) -> None:
    """Brackets over the parts, their names, and the labelled lines down to the bottom of ``bottom_row``."""
    shapes, notes = header_items(rows, parts, labels, bottom_row=bottom_row)
    add_layout_items(fig, shapes=shapes, annotations=notes)


def header_items(
    rows: Rows, parts: Sequence[LogPart], labels: tuple[list[Label], dict[int, list[Label]]], *, bottom_row: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The shapes and annotations of :func:`draw_header`."""
    lines, brackets = labels
    shapes: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    for level, placed in brackets.items():
        low = rows.span(f"parts{level}")[0]
        line_y = low + 4 / rows.plot_px
        for part, label in zip([p for p in parts if p.level == level], placed, strict=False):
            color = _part_color(part)
            path = (
                f"M {part.start - 0.45},{low + 1 / rows.plot_px} V {line_y} "
                f"H {part.end - 0.55} V {low + 1 / rows.plot_px}"
            )
            shapes.append(
                {"type": "path", "path": path, "xref": "x", "yref": "paper", "line": {"color": color, "width": 2},
                 "name": part.name}
            )  # fmt: skip
            y = line_y + (BRACKET_PX / 2 + label.row * LABEL_ROW_PX) / rows.plot_px
            note = _annotation(label, y, color, FONT_SIZE, name=part.name)
            if label.points:  # the arrow's head on the bracket's middle, its tail at the label
                rise_px = BRACKET_PX / 2 + label.row * LABEL_ROW_PX
                note.update(x=(part.start + part.end - 1) / 2, y=line_y, yanchor="bottom", showarrow=True)
                note.update(ax=label.shift_px, ay=-rise_px, arrowcolor=color, arrowwidth=1.5, arrowhead=2, standoff=2)
            notes.append(note)
    if lines:
        low = rows.span("lines")[0]
        bottom = rows.span(bottom_row)[0]
        for label in lines:
            color = COLORS[CLEANER_POINT] if label.text.startswith(LABELS[CLEANER_POINT]) else COLORS[FIRST_UNCLEANABLE]
            if marks_end(label.text):
                color = COLORS[PASS_END]
            y = low + (2 + label.row * LABEL_ROW_PX) / rows.plot_px
            dash = "solid" if color == COLORS[CLEANER_POINT] else "dash"
            shapes.append(
                {"type": "line", "x0": label.x, "x1": label.x, "y0": bottom, "y1": y, "xref": "x", "yref": "paper",
                 "line": {"color": color, "width": 2, "dash": dash}, "name": label.text}
            )  # fmt: skip
            notes.append(_annotation(label, y, color, FONT_SIZE - 1, name=label.text))
    return shapes, notes


def add_layout_items(
    fig: go.Figure, *, shapes: Sequence[dict[str, Any]] = (), annotations: Sequence[dict[str, Any]] = ()
) -> None:
    """Append ``shapes`` and ``annotations`` to the layout, each list set once: ``add_shape`` and ``add_annotation``
    validate the layout's whole list again on every call (20 of each: 65 ms, against 4 ms at once), and
    ``update_layout`` merges a list into the one held item by item, property by property."""
    if shapes:
        fig.layout.shapes = (*fig.layout.shapes, *shapes)
    if annotations:
        fig.layout.annotations = (*fig.layout.annotations, *annotations)


def layout_items(
    *, shapes: Sequence[dict[str, Any]] = (), annotations: Sequence[dict[str, Any]] = ()
) -> dict[str, Any]:
    """``shapes`` and ``annotations`` as layout properties, each only when there are some (as
    :func:`add_layout_items` leaves a layout)."""
    items = {"shapes": list(shapes), "annotations": list(annotations)}
    return {name: values for name, values in items.items() if values}


def _annotation(label: Label, y: float, color: str, size: int, *, name: str) -> dict[str, Any]:
    """``label`` at its offset and paper height ``y``, on an opaque white ground: annotations are drawn above
    shapes, so a marker line behind the label stops at its box instead of striking through the text."""
    return {
        "x": label.x, "y": y, "xref": "x", "yref": "paper", "text": label.text, "showarrow": False,
        "yanchor": "bottom", "xanchor": label.anchor, "font": {"color": color, "size": size},
        "bgcolor": "white", "name": name,
    }  # fmt: skip


def segment_bars(
    segments: Sequence[SegmentRegion], *, px_per_unit: float, yaxis: str, bar_px: float, max_bytes: int | None = None
) -> list[dict[str, Any]]:
    """One bar per segment over the offsets it covers, as tall as its bytes (the largest ``bar_px`` high),
    filled by its part of the log."""
    unit = size_unit(max(max_bytes or 0, *(s.size_bytes for s in segments), 1))
    largest = max(max_bytes or 0, *(s.size_bytes for s in segments), 1)
    heights = [s.size_bytes / largest * bar_px for s in segments]
    texts = dict(zip((s.base_offset for s in segments), segment_texts(segments, px_per_unit, heights), strict=False))
    traces = []
    for region in ("clean", "cleanable", "uncleanable", "active"):
        chosen = [s for s in segments if s.region == region]
        if not chosen:
            continue
        traces.append(
            bar(
                name=LABELS[region],
                x=[(s.base_offset + s.end_offset - 1) / 2 for s in chosen],
                width=[s.end_offset - s.base_offset for s in chosen],
                y=[s.size_bytes / unit.bytes for s in chosen],
                text=[texts[s.base_offset] for s in chosen],
                textposition="inside",
                insidetextanchor="middle",
                textangle=0,
                textfont={"size": FONT_SIZE - 1, "color": COLORS[INK]},
                constraintext="none",
                customdata=[[s.base_offset, s.end_offset - 1, s.size_label, LABELS[region]] for s in chosen],
                hovertemplate="segment %{customdata[0]}: offsets %{customdata[0]}-%{customdata[1]}, %{customdata[2]}"
                "<br>%{customdata[3]}<extra></extra>",
                marker={"color": COLORS[region], "line": {"color": EDGES[region], "width": 1.5}},
                showlegend=False,
                yaxis=yaxis,
                xaxis="x",
            )
        )
    return traces


def segment_axis_title(segments: Sequence[SegmentRegion], max_bytes: int | None = None) -> str:
    return f"segment size ({size_unit(max(max_bytes or 0, *(s.size_bytes for s in segments), 1)).name})"


def segment_texts(
    segments: Sequence[SegmentRegion], px_per_unit: float, heights_px: Sequence[float] | None = None
) -> list[str]:
    """Each segment's text: "segment N" and its size, or the size alone, the same for every segment large
    enough for a size at all (smaller ones stay blank), so that all segments read alike.

    ``heights_px`` are the bars' heights when they vary (bytes); a text needs a line of height per line.
    """
    heights = list(heights_px) if heights_px is not None else [float("inf")] * len(segments)
    room = {s.base_offset: h for s, h in zip(segments, heights, strict=False)}

    def fits(s: SegmentRegion, style: str) -> bool:
        return _fits(s, style, px_per_unit) and room[s.base_offset] >= LINE_PX * (1 + (style == "name")) + 4

    wide = [s for s in segments if fits(s, "size")]
    style = next((style for style in ("name", "size") if wide and all(fits(s, style) for s in wide)), "")
    return [segment_text(s, style) if s in wide else "" for s in segments]


def _fits(segment: SegmentRegion, style: str, px_per_unit: float) -> bool:
    return (
        text_px(segment_text(segment, style), FONT_SIZE - 1)
        <= (segment.end_offset - segment.base_offset) * px_per_unit - 8
    )


def segment_text(segment: SegmentRegion, style: str) -> str:
    size = ("~" if segment.size_estimated else "") + format_bytes(segment.size_bytes, exact=False)
    return {"name": f"segment {segment.base_offset:,}<br>{size}", "size": size}.get(style, "")


def segment_boundaries(
    segments: Sequence[SegmentRegion], *, rows: Rows, top_row: str, bottom_row: str
) -> list[dict[str, Any]]:
    """Thin lines (shapes) at every segment boundary, from the top of ``top_row`` to the bottom of ``bottom_row``."""
    y0, y1 = rows.span(bottom_row)[0], rows.span(top_row)[1]
    line, name = {"color": COLORS[SEGMENT_BOUNDARY], "width": 1}, LABELS.get(SEGMENT_BOUNDARY, "segment boundary")
    return [
        {"type": "line", "x0": segment.base_offset - 0.5, "x1": segment.base_offset - 0.5, "y0": y0, "y1": y1,
         "xref": "x", "yref": "paper", "line": line, "layer": "below", "name": name}
        for segment in segments[1:]
    ]  # fmt: skip


def axes(
    fig: go.Figure, rows: Rows, *, first: int, end: int, cartesian: Sequence[tuple[str, str, dict[str, object]]]
) -> None:
    """One x axis over the offsets (anchored to the lowest row) and one y axis per cartesian row, set in one
    layout update (each ``update_layout`` costs a millisecond or more of validation)."""
    layout, notes = axes_layout(rows, first=first, end=end, cartesian=cartesian)
    fig.update_layout(layout)
    add_layout_items(fig, annotations=notes)


def axes_layout(
    rows: Rows, *, first: int, end: int, cartesian: Sequence[tuple[str, str, dict[str, object]]]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The axes of :func:`axes` (layout properties) and the annotations naming the lanes."""
    lowest = cartesian[-1][1]
    layout: dict[str, Any] = {
        "xaxis": {**offset_axis(first, end, plot_px=PLOT_WIDTH_PX), "anchor": lowest, "domain": [0, 1]}
    }
    notes = []
    for row, axis, options in cartesian:
        low, high = rows.span(row)
        name = "yaxis" if axis == "y" else f"yaxis{axis[1:]}"
        lane = options.pop("lane", None)
        layout[name] = {"domain": [low, high], "anchor": "x", **options}
        if lane:
            notes.append(
                {"x": 0, "y": (low + high) / 2, "xref": "paper", "yref": "paper", "xanchor": "right", "xshift": -6,
                 "text": str(lane), "showarrow": False, "font": {"size": FONT_SIZE - 1, "color": COLORS[INK]},
                 "name": f"{lane} row"}
            )  # fmt: skip
    return layout, notes
