"""Dirty ratios: per partition against ``min.cleanable.dirty.ratio``, and over simulated time (spec 4-5)."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from kcompact_nb.core import DirtinessPoint, LogToClean, filthiest
from kcompact_nb.viz._palette import CLEANABLE, COLORS, DEADLINE, LABELS, PASS, ROLL, SUPERSEDED, UNCLEANABLE


def dirty_ratio_figure(considered: Sequence[LogToClean], *, title: str | None = None) -> go.Figure:
    """Bars of each partition's ``cleanable_ratio`` (eligible ones in the cleanable color), its
    ``min.cleanable.dirty.ratio`` as a tick, and the filthiest eligible partition outlined and labelled."""
    chosen = filthiest(considered)
    names = [ltc.name for ltc in considered]
    bars = go.Bar(
        name="dirty ratio",
        x=names,
        y=[ltc.cleanable_ratio for ltc in considered],
        marker={
            "color": [COLORS[CLEANABLE] if ltc.eligible else COLORS[UNCLEANABLE] for ltc in considered],
            "line": {"width": [3 if ltc is chosen else 0 for ltc in considered], "color": COLORS[SUPERSEDED]},
        },
        hovertemplate="%{x}<br>ratio %{y:.4f}<extra></extra>",
    )
    minimum = go.Scatter(
        name="min.cleanable.dirty.ratio",
        x=names,
        y=[ltc.min_cleanable_dirty_ratio for ltc in considered],
        mode="markers",
        marker={"symbol": "line-ew-open", "size": 40, "line": {"width": 3, "color": COLORS[SUPERSEDED]}},
    )
    fig = go.Figure([bars, minimum])
    if chosen is not None:
        fig.add_annotation(x=chosen.name, y=chosen.cleanable_ratio, text="filthiest", showarrow=True, arrowhead=2)
    fig.update_layout(title=title or "Dirty ratio per partition", yaxis={"title": "cleanable ratio", "range": [0, 1.05]})
    return fig


def dirty_ratio_timeline_figure(points: Sequence[DirtinessPoint], *, by: str = "time", title: str | None = None) -> go.Figure:
    """The dirty ratio after each frame with ``min.cleanable.dirty.ratio``, passes, rolls and the
    ``max.compaction.lag.ms`` deadlines; ``by`` is ``"time"`` (simulated ms) or ``"frame"``."""
    fig = go.Figure(ratio_traces(points, by=by))
    for deadline in sorted({p.deadline_ms for p in points if p.deadline_ms is not None}):
        if by == "time" and deadline <= max(p.now_ms for p in points):
            fig.add_vline(x=deadline, line={"color": COLORS[DEADLINE], "dash": "dot"}, name=LABELS[DEADLINE])
    fig.update_layout(
        title=title or "Dirty ratio over time",
        xaxis={"title": "simulated time (ms)" if by == "time" else "step"},
        yaxis={"title": "cleanable ratio", "range": [0, 1.05]},
    )
    return fig


def ratio_traces(points: Sequence[DirtinessPoint], *, by: str = "time", legend: bool = True) -> list[go.Scatter]:
    """The ratio line, the minimum, and markers for passes and rolls (also used side by side in what-ifs)."""
    x = [p.now_ms if by == "time" else p.frame for p in points]
    passes = _pass_marks(points, by)
    rolls = [(xi, p.cleanable_ratio) for xi, p in zip(x, points) if p.rolled]
    return [
        go.Scatter(name="dirty ratio", x=x, y=[p.cleanable_ratio for p in points], mode="lines", line_shape="hv", showlegend=legend),
        go.Scatter(
            name="min.cleanable.dirty.ratio", x=x, y=[p.min_cleanable_dirty_ratio for p in points],
            mode="lines", line={"dash": "dash", "color": COLORS[SUPERSEDED]}, showlegend=legend,
        ),  # fmt: skip
        _events(LABELS[PASS], passes, COLORS[PASS], "triangle-down", legend),
        _events(LABELS[ROLL], rolls, COLORS[ROLL], "line-ns-open", legend),
    ]


def duplicates_trace(points: Sequence[DirtinessPoint], *, by: str = "time", legend: bool = True) -> go.Scatter:
    """Superseded records still stored, after each frame."""
    x = [p.now_ms if by == "time" else p.frame for p in points]
    return go.Scatter(
        name="duplicates stored", x=x, y=[p.duplicates for p in points], mode="lines", line_shape="hv",
        line={"color": COLORS[SUPERSEDED]}, showlegend=legend,
    )  # fmt: skip


def _pass_marks(points: Sequence[DirtinessPoint], by: str) -> list[tuple[int, float]]:
    """Each pass at its start time (or frame), at the ratio the cleaner saw before it."""
    marks = []
    for before, point in zip(points, points[1:]):
        for start_ms in point.pass_ms:
            marks.append((start_ms if by == "time" else point.frame, before.cleanable_ratio))
    return marks


def _events(name: str, at: list[tuple[int, float]], color: str, symbol: str, legend: bool) -> go.Scatter:
    return go.Scatter(
        name=name, x=[a for a, _ in at], y=[b for _, b in at], mode="markers",
        marker={"color": color, "symbol": symbol, "size": 12, "line": {"width": 2, "color": color}}, showlegend=legend,
    )  # fmt: skip
