"""One pass, before and after: segments, groups, removed and rewritten batches; and its CleanerStats."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kcompact_nb.core import PassDiff, PassResult
from kcompact_nb.viz._palette import ACTIVE, CLEANABLE, COLORS, EMPTY_BATCH, LABELS, SUPERSEDED, UNCLEANABLE

BEFORE, AFTER = "before", "after"


def pass_diff_figure(diff: PassDiff, *, title: str | None = None) -> go.Figure:
    """Two lanes over the offset axis: segments before (grouped as the pass rewrote them, removed
    records crossed) and after (rewritten and emptied batches marked); bar text gives bytes (``~`` when
    estimated)."""
    fig = go.Figure(
        [
            _segments(BEFORE, diff.segments_before, diff, COLORS[CLEANABLE]),
            _segments(AFTER, diff.segments_after, diff, COLORS[ACTIVE]),
            _marks("removed record", diff.removed_offsets, BEFORE, COLORS[SUPERSEDED], "x"),
            _marks("removed batch", diff.removed_batches, BEFORE, COLORS[SUPERSEDED], "line-ns-open"),
            _marks("rewritten batch", diff.rewritten_batches, AFTER, COLORS[CLEANABLE], "diamond"),
            _marks(LABELS[EMPTY_BATCH], diff.emptied_batches, AFTER, COLORS[EMPTY_BATCH], "square-open"),
        ]
    )
    ends = dict(_spans(diff.segments_before, diff.log_end_offset))
    for number, group in enumerate(diff.groups, start=1):
        x1 = ends[group[-1]][1]
        fig.add_shape(type="rect", x0=group[0], x1=x1, y0=0.55, y1=1.45, line={"dash": "dash", "color": COLORS[UNCLEANABLE]}, name=f"group {number}")
        fig.add_annotation(x=(group[0] + x1) / 2, y=1.45, text=f"group {number}", showarrow=False, yanchor="bottom")
    fig.update_layout(
        title=title or f"Before and after the pass: {len(diff.removed_offsets)} records removed",
        barmode="overlay",
        xaxis={"title": "offset"},
        yaxis={"categoryorder": "array", "categoryarray": [AFTER, BEFORE]},
    )
    return fig


def _spans(segments: Sequence[tuple[int, int]], log_end_offset: int) -> list[tuple[int, tuple[int, int]]]:
    bases = [b for b, _ in segments]
    ends = bases[1:] + [max(log_end_offset, bases[-1] + 1)] if bases else []
    return [(b, (b, e)) for b, e in zip(bases, ends)]


def _segments(lane: str, segments: Sequence[tuple[int, int]], diff: PassDiff, color: str) -> go.Bar:
    spans = [span for _, span in _spans(segments, diff.log_end_offset)]
    text = [f"~{size} B" if base in diff.estimated_segments else f"{size} B" for base, size in segments]
    return go.Bar(
        name=f"segments {lane}", y=[lane] * len(spans), base=[s for s, _ in spans], x=[e - s for s, e in spans],
        orientation="h", text=text, marker={"color": color, "line": {"color": "white", "width": 2}},
        customdata=[b for b, _ in segments], hovertemplate="segment %{customdata}: %{text}<extra></extra>", opacity=0.6,
    )  # fmt: skip


def _marks(name: str, offsets: Sequence[int], lane: str, color: str, symbol: str) -> go.Scatter:
    return go.Scatter(
        name=name, x=list(offsets), y=[lane] * len(offsets), mode="markers",
        marker={"color": color, "symbol": symbol, "size": 11, "line": {"width": 2, "color": color}},
    )  # fmt: skip


def cleaner_stats_figure(result: PassResult, *, title: str | None = None) -> go.Figure:
    """Kafka's INFO log line for the pass, one line per row, above the ``CleanerStats`` counters."""
    lines = [line.strip() for line in result.log_line.splitlines() if line.strip()]
    counters = result.stats.to_dict()
    fig = make_subplots(rows=2, cols=1, specs=[[{"type": "table"}], [{"type": "table"}]], row_heights=[0.5, 0.5], vertical_spacing=0.03)
    fig.add_trace(go.Table(header={"values": ["LogCleaner INFO message"], "align": "left"}, cells={"values": [lines], "align": "left"}), row=1, col=1)
    fig.add_trace(
        go.Table(
            header={"values": ["CleanerStats", "value"], "align": "left"},
            cells={"values": [list(counters), [_number(v) for v in counters.values()]], "align": "left"},
        ),
        row=2,
        col=1,
    )
    fig.update_layout(title=title or f"Cleaner stats of {result.name}, dirty section [{result.first_dirty_offset}, {result.end_offset})")
    return fig


def _number(value: float | int) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:.6g}"
