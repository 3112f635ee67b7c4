"""The dirty ratio (one color, one name): per partition against ``min.cleanable.dirty.ratio``, and over
time with passes, rolls and ``max.compaction.lag.ms`` deadlines (spec 4-5)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any

import plotly.graph_objects as go

from kcompact_nb.core import DirtinessPoint, LogToClean, filthiest, format_bytes
from kcompact_nb.viz._axes import TimeAxis, time_axis
from kcompact_nb.viz._figure import FONT_SIZE, finish, scatter
from kcompact_nb.viz._palette import COLORS, DEADLINE, DIRTY_RATIO, DUPLICATES, INK, LABELS, MIN_RATIO, PASS, ROLL
from kcompact_nb.viz._rows import as_dicts

RATIO_AXIS: dict[str, Any] = {
    "title": {"text": LABELS[DIRTY_RATIO]},
    "autorangeoptions": {"include": [0, 1]},
    "tickformat": ".0%",
}
"""The dirty ratio's y axis: always shows 0 to 1 and grows to fit anything beyond (never a fixed range)."""


def dirty_ratio_figure(
    considered: Sequence[LogToClean] | Any, *, min_cleanable_dirty_ratio: float = 0.5, title: str | None = None
) -> go.Figure:
    """Each partition's dirty ratio (``cleanable_bytes / total_bytes``) as a bar, its
    ``min.cleanable.dirty.ratio`` as a tick, eligible partitions solid, and the filthiest eligible one
    outlined and named: the one the cleaner picks next (``grabFilthiestCompactedLog``).

    ``considered`` is a sequence of :class:`LogToClean`, or rows of a dirtiness table (Spark's
    ``dirtiness``: dicts or a DataFrame with ``topic``, ``partition``, ``first_dirty_offset``,
    ``first_uncleanable_offset``, ``clean_bytes``, ``cleanable_bytes``), whose partitions are compared
    against ``min_cleanable_dirty_ratio``.
    """
    considered = log_to_clean_rows(considered, min_cleanable_dirty_ratio=min_cleanable_dirty_ratio)
    chosen = filthiest(considered)
    names = [ltc.name for ltc in considered]
    bars = go.Bar(
        name=LABELS[DIRTY_RATIO],
        x=names,
        y=[ltc.cleanable_ratio for ltc in considered],
        marker={
            "color": COLORS[DIRTY_RATIO],
            "opacity": [1.0 if ltc.eligible else 0.4 for ltc in considered],
            "line": {"width": [3 if ltc is chosen else 0 for ltc in considered], "color": COLORS[INK]},
        },
        hovertext=[_partition_hover(ltc, ltc is chosen) for ltc in considered],
        hovertemplate="%{hovertext}<extra></extra>",
    )
    minimum = go.Scatter(
        name=LABELS[MIN_RATIO],
        x=names,
        y=[ltc.min_cleanable_dirty_ratio for ltc in considered],
        mode="markers",
        marker={"symbol": "line-ew-open", "size": 44, "line": {"width": 3, "color": COLORS[MIN_RATIO]}},
        hovertemplate="%{x}: min.cleanable.dirty.ratio %{y}<extra></extra>",
    )
    fig = go.Figure([bars, minimum])
    if chosen is not None:
        fig.add_annotation(
            x=chosen.name,
            y=max(chosen.cleanable_ratio, chosen.min_cleanable_dirty_ratio),
            text="<b>filthiest</b>: cleaned next",
            showarrow=True,
            arrowhead=2,
            ax=0,
            ay=-34,
            yanchor="bottom",
            font={"size": FONT_SIZE},
        )
    fig.update_layout(
        yaxis={**RATIO_AXIS, "rangemode": "tozero"},
        xaxis={
            "title": {"text": "partition"},
            "tickmode": "array",
            "tickvals": names,
            "ticktext": [
                f"{ltc.name}<br>{ltc.cleanable_ratio:.0%}" for ltc in considered
            ],  # the value, clear of every mark
        },
        legend={"orientation": "h", "y": -0.25},
    )
    subtitle = "solid: eligible (ratio above the minimum, or overdue per max.compaction.lag.ms); faded: not eligible"
    return finish(fig, title=title or "Dirty ratio per partition", subtitle=subtitle, height=440, top=110, bottom=110)


DIRTINESS_COLUMNS = (
    "topic",
    "partition",
    "first_dirty_offset",
    "first_uncleanable_offset",
    "clean_bytes",
    "cleanable_bytes",
)


def log_to_clean_rows(rows: Sequence[LogToClean] | Any, *, min_cleanable_dirty_ratio: float) -> list[LogToClean]:
    """``rows`` as :class:`LogToClean` values (dirtiness table rows get ``min_cleanable_dirty_ratio``, and their
    ``compaction_delay_ms`` when they have one), by partition."""
    if isinstance(rows, (list, tuple)) and all(isinstance(r, LogToClean) for r in rows):
        return list(rows)
    records = as_dicts(rows)
    missing = [c for c in DIRTINESS_COLUMNS if records and c not in records[0]]
    if missing:
        raise ValueError(f"dirtiness rows lack columns {missing}; present: {sorted(records[0])}")
    values = [
        LogToClean(
            topic=str(r["topic"]),
            partition=int(r["partition"]),
            first_dirty_offset=int(r["first_dirty_offset"]),
            first_uncleanable_offset=int(r["first_uncleanable_offset"]),
            clean_bytes=int(r["clean_bytes"]),
            cleanable_bytes=int(r["cleanable_bytes"]),
            compaction_delay_ms=int(r.get("compaction_delay_ms") or 0),
            min_cleanable_dirty_ratio=min_cleanable_dirty_ratio,
        )
        for r in records
    ]
    return sorted(values, key=lambda ltc: (ltc.topic, ltc.partition))


def _partition_hover(ltc: LogToClean, chosen: bool) -> str:
    verdict = "eligible" if ltc.eligible else "not eligible"
    return (
        f"{ltc.name}: dirty ratio {ltc.cleanable_ratio:.4f} = "
        f"{format_bytes(ltc.cleanable_bytes, exact=False)} cleanable"
        f" / {format_bytes(ltc.total_bytes, exact=False)} (log tail + cleanable)<br>{verdict}"
        + ("; the filthiest: cleaned next" if chosen else "")
    )


def dirty_ratio_timeline_figure(
    points: Sequence[DirtinessPoint], *, by: str = "time", title: str | None = None
) -> go.Figure:
    """The dirty ratio after each step with ``min.cleanable.dirty.ratio``, passes, rolls and the
    ``max.compaction.lag.ms`` deadlines; ``by`` is ``"time"`` (hours or days, by the span) or ``"frame"``."""
    axis = time_axis([p.now_ms for p in points]) if by == "time" else None
    fig = go.Figure(ratio_traces(points, axis=axis))
    deadlines = deadline_trace(points, axis=axis)
    if deadlines is not None:
        fig.add_trace(deadlines)
    fig.update_layout(
        xaxis=axis.layout() if axis is not None else {"title": {"text": "step"}, "dtick": 1},
        yaxis=RATIO_AXIS,
        legend={"orientation": "h", "y": -0.22},
    )
    return finish(fig, title=title or "Dirty ratio over time", height=440, top=70, bottom=110)


def x_of(points: Sequence[DirtinessPoint], axis: TimeAxis | None) -> list[float]:
    """Each point's time on ``axis``, or its frame number when ``axis`` is ``None``."""
    return [axis.x(p.now_ms) if axis is not None else float(p.frame) for p in points]


def ratio_traces(
    points: Sequence[DirtinessPoint], *, axis: TimeAxis | None, legend: bool = True
) -> list[dict[str, Any]]:
    """The ratio line, the minimum, and markers for passes and rolls (also used side by side in what-ifs), as plotly
    JSON (as the traces below)."""
    x = x_of(points, axis)
    traces = [
        scatter(
            name=LABELS[DIRTY_RATIO],
            **step_line(x, [p.cleanable_ratio for p in points], lambda i: _when(points[i], axis)),
            mode="lines",
            line={"color": COLORS[DIRTY_RATIO], "width": 2.5, "shape": "hv"},
            showlegend=legend,
            legendgroup=DIRTY_RATIO,
            hovertemplate="%{hovertext}: dirty ratio %{y:.1%}<extra></extra>",
        ),
        scatter(
            name=LABELS[MIN_RATIO],
            **step_line(x, [p.min_cleanable_dirty_ratio for p in points]),
            mode="lines",
            line={"dash": "dash", "color": COLORS[MIN_RATIO], "width": 1.5, "shape": "hv"},
            showlegend=legend,
            legendgroup=MIN_RATIO,
            hoverinfo="skip",
        ),
    ]
    passes = _pass_marks(points, axis)
    rolls = [
        (xi, 0.0, _when(p, axis)) for xi, p in zip(x, points, strict=True) if p.rolled
    ]  # on the baseline: a roll has no ratio
    traces += [
        m
        for m in (_events(PASS, passes, "triangle-down", legend), _events(ROLL, rolls, "line-ns-open", legend))
        if m is not None
    ]
    return traces


def duplicates_trace(points: Sequence[DirtinessPoint], *, axis: TimeAxis | None, legend: bool = True) -> dict[str, Any]:
    """Superseded records still stored, after each step."""
    return scatter(
        name=LABELS[DUPLICATES],
        **step_line(x_of(points, axis), [p.duplicates for p in points], lambda i: _when(points[i], axis)),
        mode="lines",
        line={"color": COLORS[DUPLICATES], "width": 2, "shape": "hv"},
        showlegend=legend,
        legendgroup=DUPLICATES,
        hovertemplate="%{hovertext}: %{y} superseded records stored<extra></extra>",
    )


def step_line(
    x: Sequence[float], y: Sequence[Any], hovertext: Callable[[int], str] | None = None
) -> dict[str, list[Any]]:
    """``x``, ``y`` (and ``hovertext``: point ``i``'s text, asked for the points kept only) of a step line
    (``line.shape`` ``"hv"``) cut to the points where ``y`` changes, with the first and the last: the same line, fewer
    points for the page to draw (a what-if explorer redraws its figure at each edit, and most steps change neither the
    ratio nor the duplicates)."""
    kept = [i for i in range(len(y)) if i in (0, len(y) - 1) or y[i] != y[i - 1]]
    line = {"x": [x[i] for i in kept], "y": [y[i] for i in kept]}
    if hovertext is not None:
        line["hovertext"] = [hovertext(i) for i in kept]
    return line


def deadline_trace(
    points: Sequence[DirtinessPoint], *, axis: TimeAxis | None, legend: bool = True
) -> dict[str, Any] | None:
    """Vertical dotted lines at each ``max.compaction.lag.ms`` deadline reached within the series (time axes only)."""
    if axis is None or not points:
        return None
    last = max(p.now_ms for p in points)
    deadlines = sorted({p.deadline_ms for p in points if p.deadline_ms is not None and p.deadline_ms <= last})
    if not deadlines:
        return None
    x: list[float | None] = []
    y: list[float | None] = []
    for deadline in deadlines:
        x += [axis.x(deadline), axis.x(deadline), None]
        y += [0, 1, None]
    return scatter(
        name=LABELS[DEADLINE],
        x=x,
        y=y,
        mode="lines",
        line={"color": COLORS[DEADLINE], "dash": "dot", "width": 1.5},
        showlegend=legend,
        legendgroup=DEADLINE,
        hoverinfo="skip",
    )


def _when(point: DirtinessPoint, axis: TimeAxis | None) -> str:
    return f"step {point.frame}" if axis is None else axis.text(point.now_ms)


def _pass_marks(points: Sequence[DirtinessPoint], axis: TimeAxis | None) -> list[tuple[float, float, str]]:
    """Each pass at its start time (or step), at the ratio the cleaner saw before it."""
    marks = []
    for before, point in pairwise(points):
        for start_ms in point.pass_ms:
            x = axis.x(start_ms) if axis is not None else float(point.frame)
            marks.append(
                (x, before.cleanable_ratio, f"pass at {axis.text(start_ms) if axis else f'step {point.frame}'}")
            )
    return marks


def _events(kind: str, at: list[tuple[float, float, str]], symbol: str, legend: bool) -> dict[str, Any] | None:
    if not at:
        return None
    color = COLORS[kind]
    return scatter(
        name=LABELS[kind],
        x=[a for a, _, _ in at],
        y=[b for _, b, _ in at],
        mode="markers",
        legendgroup=kind,
        marker={"color": color, "symbol": symbol, "size": 12, "line": {"width": 2, "color": color}},
        showlegend=legend,
        hovertext=[t for _, _, t in at],
        hovertemplate="%{hovertext}<extra>" + LABELS[kind] + "</extra>",
    )
