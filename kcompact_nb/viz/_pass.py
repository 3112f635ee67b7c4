"""One pass, before and after: segments, groups, removed and rewritten batches; and its CleanerStats."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from kcompact_nb.core import LogPart, PassDiff, PassResult, SegmentRegion, format_bytes, log_line_note
from kcompact_nb.viz._arrays import wrapped
from kcompact_nb.viz._figure import FONT_SIZE, finish, legend_below, legend_once
from kcompact_nb.viz._frame import Marks, Rows, axes, draw_header, plan_header, segment_texts
from kcompact_nb.viz._labels import PLOT_WIDTH_PX
from kcompact_nb.viz._palette import COLORS, EDGES, EMPTY_BATCH, INK, KEPT, LABELS, MUTED, REMOVED, UNCLEANABLE

BEFORE, AFTER = "before", "after"
LANE_PX, GAP_PX = 70, 16


def pass_diff_figure(diff: PassDiff, *, title: str | None = None) -> go.Figure:
    """Two lanes over the offsets: the segments before the pass (bracketed by the groups it rewrote, removed
    records crossed) and after it (rewritten batches and emptied batches marked); segments show their bytes."""
    before = _regions(diff.segments_before, diff)
    after = _regions(diff.segments_after, diff)
    first = min(s.base_offset for s in [*before, *after]) if before or after else 0
    end = max([diff.log_end_offset, *(s.end_offset for s in [*before, *after])])
    px_per_unit = PLOT_WIDTH_PX / max(end - first, 1)
    ends = {s.base_offset: s.end_offset for s in before}
    groups = [LogPart(f"group {n}", g[0], ends.get(g[-1], g[-1] + 1), 1) for n, g in enumerate(diff.groups, start=1)]
    rows = Rows()
    labels = plan_header(rows, groups, Marks(None, None), px_per_unit=px_per_unit, first=first, end=end)
    rows.add(BEFORE, LANE_PX)
    rows.add("gap", GAP_PX)
    rows.add(AFTER, LANE_PX)
    lane = {"range": [0, 1], "showticklabels": False, "showgrid": False, "zeroline": False, "fixedrange": True}
    fig = go.Figure(
        [
            _segments(BEFORE, before, px_per_unit, "y"),
            _segments(AFTER, after, px_per_unit, "y2"),
            _marks("removed record", diff.removed_offsets, "y", COLORS[REMOVED], "x"),
            _marks("removed batch", diff.removed_batches, "y", COLORS[REMOVED], "line-ns-open"),
            _marks(
                "rewritten batch (records dropped or horizon stamped)",
                diff.rewritten_batches,
                "y2",
                COLORS[KEPT],
                "diamond",
            ),
            _marks(LABELS[EMPTY_BATCH], diff.emptied_batches, "y2", COLORS[EMPTY_BATCH], "square-open"),
        ]
    )
    axes(
        fig,
        rows,
        first=first,
        end=end,
        cartesian=[(BEFORE, "y", {**lane, "lane": "before"}), (AFTER, "y2", {**lane, "lane": "after"})],
    )
    draw_header(fig, rows, groups, labels, bottom_row=BEFORE)
    legend_once(fig.data)
    fig.update_layout(barmode="overlay", bargap=0, legend=legend_below(plot_px=rows.plot_px))
    total_before = sum(size for _, size in diff.segments_before)
    total_after = sum(size for _, size in diff.segments_after)
    subtitle = (
        f"{len(diff.removed_offsets):,} records removed · {format_bytes(total_before, exact=False)} → "
        f"{format_bytes(total_after, exact=False)} · groups: segments rewritten into one each"
    )
    heading = title or "Before and after the pass"
    return finish(fig, title=heading, subtitle=subtitle, height=int(rows.plot_px) + 100 + 130, top=100, bottom=130)


def _regions(segments: Sequence[tuple[int, int]], diff: PassDiff) -> list[SegmentRegion]:
    bases = [b for b, _ in segments]
    ends = [*bases[1:], max(diff.log_end_offset, bases[-1] + 1)] if bases else []
    return [
        SegmentRegion(b, e, size, UNCLEANABLE, size_estimated=b in diff.estimated_segments)
        for (b, size), e in zip(segments, ends, strict=False)
    ]


def _segments(lane: str, segments: Sequence[SegmentRegion], px_per_unit: float, yaxis: str) -> go.Bar:
    return go.Bar(
        name=f"segments {lane}",
        x=[(s.base_offset + s.end_offset - 1) / 2 for s in segments],
        width=[s.end_offset - s.base_offset for s in segments],
        y=[1] * len(segments),
        base=[0] * len(segments),
        text=segment_texts(segments, px_per_unit),
        textposition="inside",
        insidetextanchor="end",
        textangle=0,
        constraintext="none",
        textfont={"size": FONT_SIZE - 1, "color": COLORS[INK]},
        marker={"color": "#f1f3f5", "line": {"color": EDGES[UNCLEANABLE], "width": 1.5}},
        showlegend=False,
        customdata=[[s.base_offset, s.size_label] for s in segments],
        hovertemplate="segment %{customdata[0]}: %{customdata[1]}<extra>" + lane + "</extra>",
        yaxis=yaxis,
        xaxis="x",
    )


def _marks(name: str, offsets: Sequence[int], yaxis: str, color: str, symbol: str) -> go.Scatter:
    return go.Scatter(
        name=name,
        x=list(offsets),
        y=[0.3] * len(offsets),
        mode="markers",
        yaxis=yaxis,
        xaxis="x",
        marker={"color": color, "symbol": symbol, "size": 12, "line": {"width": 2, "color": color}},
        hovertemplate="offset %{x}<extra>" + name + "</extra>",
    )


COUNTERS: dict[str, str] = {
    "bytes_read": "bytes of every segment the pass rewrote (log tail included)",
    "bytes_written": "bytes of the rewritten segments",
    "messages_read": "records read while rewriting",
    "messages_written": "records kept",
    "map_bytes_read": "bytes of the dirty section read to build the offset map",
    "map_messages_read": "records of the dirty section put through the offset map",
    "invalid_messages_read": "records without a key (dropped)",
    "buffer_utilization": "offset map entries / slots",
}
"""What each ``CleanerStats`` counter counts, for the table's third column."""

ROW_PX, HEADER_PX = 24, 28
NOTE_CHARS = 100
"""The note under the table wraps at this many characters (two lines within the figure's width)."""


def cleaner_stats_figure(result: PassResult, *, title: str | None = None) -> go.Figure:
    """Kafka's INFO log line for the pass, one line per row, above the ``CleanerStats`` counters in people's
    units (sizes in B/KiB/MiB with the exact bytes, the utilization in percent). Every row is shown."""
    lines = [line.strip() for line in result.log_line.splitlines() if line.strip()]
    counters = result.stats.counters()
    log_px = HEADER_PX + ROW_PX * len(lines)
    stats_px = HEADER_PX + ROW_PX * len(counters)
    gap = 30
    plot_px = log_px + gap + stats_px
    fig = go.Figure(
        [
            go.Table(
                domain={"x": [0, 1], "y": [(stats_px + gap) / plot_px, 1]},
                columnwidth=[1],
                header={
                    "values": ["<b>LogCleaner INFO message</b>"],
                    "align": "left",
                    "height": HEADER_PX,
                    "fill": {"color": "#e9ecef"},
                },
                cells={
                    "values": [lines],
                    "align": "left",
                    "height": ROW_PX,
                    "font": {"family": "monospace", "size": FONT_SIZE - 1},
                },
            ),
            go.Table(
                domain={"x": [0, 1], "y": [0, stats_px / plot_px]},
                columnwidth=[2, 2, 5],
                header={
                    "values": ["<b>CleanerStats</b>", "<b>value</b>", "<b>what it counts</b>"],
                    "align": "left",
                    "height": HEADER_PX,
                    "fill": {"color": "#e9ecef"},
                },
                cells={
                    "values": [
                        list(counters),
                        [_value(k, v) for k, v in counters.items()],
                        [COUNTERS.get(k, "") for k in counters],
                    ],
                    "align": "left",
                    "height": ROW_PX,
                },
            ),
        ]
    )
    note = log_line_note(result.log_line)
    if note:
        fig.add_annotation(
            x=0,
            y=-12 / plot_px,
            xref="paper",
            yref="paper",
            xanchor="left",
            yanchor="top",
            align="left",
            showarrow=False,
            text=wrapped(note, NOTE_CHARS),
            font={"size": FONT_SIZE - 1, "color": COLORS[MUTED]},
        )
    heading = title or f"Cleaner stats of {result.name}"
    subtitle = (
        f"dirty section [{result.first_dirty_offset:,}, {result.end_offset:,}) "
        f"of the cleanable range [{result.first_dirty_offset:,}, {result.first_uncleanable_offset:,})"
    )
    bottom = 40 if note is None else 60
    return finish(fig, title=heading, subtitle=subtitle, height=plot_px + 100 + bottom, top=100, bottom=bottom)


def _value(name: str, value: float) -> str:
    if name == "buffer_utilization":
        return f"{value:.1%}"
    if "bytes" in name and isinstance(value, int):
        exact = f"{value:,} bytes"
        shown = format_bytes(value, exact=False)
        return exact if shown.endswith(" B") else f"{shown} ({exact})"
    return f"{value:,}" if isinstance(value, int) else f"{value:.6g}"
