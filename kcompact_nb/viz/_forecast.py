"""A forecast's figures: size on disk against the live data, the dirty ratio's sawtooth, the passes and the threads'
busy time, record lifetimes, Kafka's cleaner gauges, and two forecasts side by side (docs/forecast.md).

Times run from the forecast's start (ISO dates when it starts at a wall-clock time); sizes are in KiB/MiB/GiB;
each partition keeps one color in every figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kcompact_nb.core import Forecast, ForecastPass, format_bytes, format_duration_ms
from kcompact_nb.viz._axes import TimeAxis, size_unit, time_axis
from kcompact_nb.viz._figure import finish, legend_once
from kcompact_nb.viz._palette import COLORS, DIRTY_RATIO, LABELS, MIN_RATIO, PASS, key_color

LIVE_DATA = "live data: each live key's latest record"
SIZE_ON_DISK = "size on disk"
HOUR_MS, DAY_MS = 3_600_000, 86_400_000
BUSY_PERIODS = {10_000: "10 s", 60_000: "minute", 600_000: "10 min", HOUR_MS: "hour", DAY_MS: "day"}
"""The periods a thread's busy share is read over, the longest that cuts the horizon into a dozen or more."""
METRICS = (
    "max-dirty-percent",
    "max-clean-time-secs",
    "max-compaction-delay-secs",
    "uncleanable-partitions-count",
    "max-buffer-utilization-percent",
    "cleaner-recopy-percent",
)


def _axis(fc: Forecast) -> TimeAxis:
    return time_axis([fc.start_ms, fc.start_ms + fc.horizon_ms])


def _x(fc: Forecast, axis: TimeAxis, times_ms: numpy.ndarray) -> list[float]:
    return [axis.x(fc.start_ms + int(t)) for t in times_ms]


def _colors(fc: Forecast) -> dict[str, str]:
    return {timeline.name: key_color(i) for i, timeline in enumerate(fc.timelines)}


def forecast_size_figure(fc: Forecast, *, title: str | None = None) -> go.Figure:
    """Each partition's size on disk over time (solid) against its live data (dashed), and its dirty ratio's
    sawtooth (rising as segments roll, falling at each pass) against ``min.cleanable.dirty.ratio``."""
    axis, colors = _axis(fc), _colors(fc)
    unit = size_unit(int(max((t.size_bytes.max(initial=0) for t in fc.timelines), default=0)))
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08, row_heights=[0.6, 0.4])
    for timeline in fc.timelines:
        x, color = _x(fc, axis, timeline.times_ms), colors[timeline.name]
        fig.add_trace(_line(f"{timeline.name}: {SIZE_ON_DISK}", x, timeline.size_bytes / unit.bytes, color), 1, 1)
        live = _line(f"{timeline.name}: live data", x, timeline.live_bytes / unit.bytes, color, dash="dash")
        fig.add_trace(live, 1, 1)
        ratio = _line(f"{timeline.name}: {LABELS[DIRTY_RATIO]}", x, timeline.dirty_ratio, color, shape="hv")
        fig.add_trace(ratio, 2, 1)
    for topic in fc.topics:
        minimum = fc.topic_config(topic).min_cleanable_dirty_ratio
        ends = _x(fc, axis, numpy.array([0, fc.horizon_ms]))
        name = f"{LABELS[MIN_RATIO]} ({topic})"
        fig.add_trace(_line(name, ends, numpy.array([minimum] * 2), COLORS[MIN_RATIO], dash="dot"), 2, 1)
    fig.update_yaxes(title_text=f"bytes ({unit.name})", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text=LABELS[DIRTY_RATIO], tickformat=".0%", rangemode="tozero", row=2, col=1)
    fig.update_xaxes(**axis.layout(), row=2, col=1)
    fig.update_layout(legend={"orientation": "h", "y": -0.18, "x": 0})
    subtitle = f"solid: {SIZE_ON_DISK} (every segment, the active one too); dashed: {LIVE_DATA}"
    return finish(fig, title=title or "Size on disk and the dirty ratio", subtitle=subtitle, height=620, bottom=130)


def forecast_cleaner_figure(fc: Forecast, *, title: str | None = None) -> go.Figure:
    """When each pass runs and how long (a bar per pass on its thread), each thread's busy share of every hour
    (or day), and the dirty ratio at which each partition's passes start: rising pass over pass, the cleaner
    falls behind."""
    axis, colors = _axis(fc), _colors(fc)
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.07, row_heights=[0.3, 0.3, 0.4])
    for name, color in colors.items():
        mine = [p for p in fc.passes if p.name == name]
        starts = numpy.array([p.start_ms for p in mine], dtype=numpy.int64)
        x0 = _x(fc, axis, starts)
        widths = [axis.x(fc.start_ms + p.end_ms) - axis.x(fc.start_ms + p.start_ms) for p in mine]
        fig.add_trace(
            go.Bar(
                name=f"{name}: {LABELS[PASS]}",
                legendgroup=name,
                base=x0,
                x=widths,
                y=[f"thread {p.thread}" for p in mine],
                orientation="h",
                marker={"color": color, "line": {"width": 1, "color": color}},
                hovertext=[_pass_hover(fc, p) for p in mine],
                hovertemplate="%{hovertext}<extra></extra>",
            ),
            1,
            1,
        )
        fig.add_trace(
            go.Scatter(
                name=f"{name}: dirty ratio at pass start",
                legendgroup=name,
                x=x0,
                y=[p.cleanable_ratio for p in mine],
                mode="lines+markers",
                line={"color": color},
                hovertemplate="%{y:.1%}<extra>" + name + "</extra>",
            ),
            3,
            1,
        )
    period = busy_period_ms(fc.horizon_ms)
    busy = fc.busy_fraction(period)
    for thread in range(fc.threads):
        # each period's share drawn across it, the last one up to the horizon
        edges = numpy.append(numpy.arange(busy.shape[1]) * period, fc.horizon_ms)
        fig.add_trace(
            go.Scatter(
                name=f"thread {thread}: busy",
                x=_x(fc, axis, edges),
                y=numpy.append(busy[thread], busy[thread, -1]),
                mode="lines",
                line={"shape": "hv", "color": COLORS[PASS], "dash": ["solid", "dash", "dot", "dashdot"][thread % 4]},
                hovertemplate="%{y:.1%} busy<extra>thread " + str(thread) + "</extra>",
            ),
            2,
            1,
        )
    fig.update_yaxes(title_text="passes", row=1, col=1)
    fig.update_yaxes(title_text=f"busy (per {BUSY_PERIODS[period]})", tickformat="~%", rangemode="tozero", row=2, col=1)
    fig.update_yaxes(title_text="dirty ratio at pass start", tickformat=".0%", row=3, col=1)
    fig.update_xaxes(**axis.layout(), row=3, col=1)
    fig.update_layout(legend={"orientation": "h", "y": -0.16, "x": 0}, barmode="overlay")
    subtitle = "a bar per pass on its thread; a thread that falls behind reaches each log later and dirtier"
    return finish(fig, title=title or "Cleaner passes and threads", subtitle=subtitle, height=680, bottom=130)


def busy_period_ms(horizon_ms: int) -> int:
    """The longest of :data:`BUSY_PERIODS` that cuts ``horizon_ms`` into 12 periods or more (the shortest else)."""
    return max((p for p in BUSY_PERIODS if horizon_ms >= 12 * p), default=min(BUSY_PERIODS))


def forecast_lifetimes_figure(fc: Forecast, *, title: str | None = None) -> go.Figure:
    """How long removed tombstones and superseded records stayed on disk: for each topic, the share of them
    removed within a given time (weighted cumulative distributions), against ``delete.retention.ms``."""
    fig = go.Figure()
    largest = max((int(lives.removed_ms.max(initial=0)) for lives in fc.lifetimes.values()), default=0)
    axis = time_axis([largest])
    for index, (topic, lives) in enumerate(fc.lifetimes.items()):
        for tombstones, dash, kind in ((True, "solid", "tombstones"), (False, "dash", "superseded records")):
            spans, weights = lives.removed(tombstones=tombstones)
            if not len(spans):
                continue
            order = numpy.argsort(spans)
            share = numpy.cumsum(weights[order]) / weights.sum()
            fig.add_trace(
                go.Scatter(
                    name=f"{topic}: {kind}",
                    x=[axis.x(int(s)) for s in spans[order]],
                    y=share,
                    mode="lines",
                    line={"shape": "hv", "dash": dash, "color": key_color(index)},
                    hovertext=[format_duration_ms(int(s), max_units=2) for s in spans[order]],
                    hovertemplate="%{y:.0%} within %{hovertext}<extra>" + f"{topic}: {kind}" + "</extra>",
                )
            )
        retention = fc.topic_config(topic).delete_retention_ms
        fig.add_vline(x=axis.x(retention), line={"color": COLORS[MIN_RATIO], "dash": "dot"})
        fig.add_annotation(
            x=axis.x(retention), y=1.02, yref="paper", text=f"delete.retention.ms ({topic})", showarrow=False
        )
    fig.update_xaxes(title_text=f"time on disk ({axis.unit})", rangemode="tozero")
    fig.update_yaxes(title_text="share removed within", tickformat=".0%", range=[0, 1.05])
    fig.update_layout(legend={"orientation": "h", "y": -0.22, "x": 0})
    subtitle = "from write to the pass that removed them; solid: tombstones, dashed: superseded records"
    return finish(
        fig, title=title or "How long removed records stay on disk", subtitle=subtitle, height=440, bottom=120
    )


def forecast_metrics_figure(fc: Forecast, *, title: str | None = None) -> go.Figure:
    """Kafka's cleaner gauges as they would read after each pass (``kafka.log:type=LogCleaner`` and
    ``LogCleanerManager``), and the dedupe buffer each pass needed against a thread's share."""
    axis = _axis(fc)
    names = [*METRICS, "dedupe buffer a pass needs"]
    fig = make_subplots(rows=4, cols=2, subplot_titles=names, shared_xaxes=True, vertical_spacing=0.1)
    x = _x(fc, axis, numpy.array([m.at_ms for m in fc.metrics], dtype=numpy.int64))
    readings = [m.as_dict() for m in fc.metrics]
    for index, name in enumerate(METRICS):
        row, col = divmod(index, 2)
        fig.add_trace(
            go.Scatter(
                name=name, x=x, y=[r[name] for r in readings], mode="lines", line={"shape": "hv", "color": COLORS[PASS]}
            ),
            row + 1,
            col + 1,
        )
    needed = [fc.buffer_needed_bytes(p) for p in fc.passes]
    share = fc.broker.log_cleaner_dedupe_buffer_size / max(fc.threads, 1)
    unit = size_unit(int(max([*needed, share])))
    px = _x(fc, axis, numpy.array([p.start_ms for p in fc.passes], dtype=numpy.int64))
    fig.add_trace(
        go.Scatter(
            name="needed",
            x=px,
            y=numpy.array(needed) / unit.bytes,
            mode="markers",
            marker={"color": COLORS[DIRTY_RATIO], "size": 5},
        ),
        4,
        1,
    )
    ends = _x(fc, axis, numpy.array([0, fc.horizon_ms]))
    fig.add_trace(
        _line(
            "a thread's dedupe buffer", ends, numpy.array([share, share]) / unit.bytes, COLORS[MIN_RATIO], dash="dot"
        ),
        4,
        1,
    )
    fig.update_yaxes(rangemode="tozero")
    fig.update_yaxes(title_text=unit.name, row=4, col=1)
    for col in (1, 2):
        # the right column ends a row higher: its last panel shows the time ticks the shared axis would hide
        fig.update_xaxes(**axis.layout(), showticklabels=True, row=4 if col == 1 else 3, col=col)
    fig.update_layout(showlegend=False)
    return finish(fig, title=title or "Kafka's cleaner metrics, as they would read", height=760)


def forecast_what_if_figure(forecasts: Mapping[str, Forecast], *, title: str | None = None) -> go.Figure:
    """Two (or more) forecasts side by side, one column each: every partition's size on disk and live data, and
    the dirty ratio at which passes start; each column's title says how busy its threads are."""
    labels = list(forecasts)
    titles = [
        f"{label}: threads {', '.join(f'{b:.0%}' for b in fc.busy_fraction())} busy" for label, fc in forecasts.items()
    ]
    fig = make_subplots(
        rows=2,
        cols=len(labels),
        subplot_titles=titles,
        shared_yaxes="rows",
        shared_xaxes="columns",
        vertical_spacing=0.1,
    )
    largest = max((int(t.size_bytes.max(initial=0)) for fc in forecasts.values() for t in fc.timelines), default=0)
    unit = size_unit(largest)
    for column, fc in enumerate(forecasts.values(), start=1):
        axis, colors = _axis(fc), _colors(fc)
        for timeline in fc.timelines:
            color = colors[timeline.name]
            x = _x(fc, axis, timeline.times_ms)
            fig.add_trace(
                _line(f"{timeline.name}: {SIZE_ON_DISK}", x, timeline.size_bytes / unit.bytes, color), 1, column
            )
            fig.add_trace(
                _line(f"{timeline.name}: live data", x, timeline.live_bytes / unit.bytes, color, dash="dash"), 1, column
            )
            mine = [p for p in fc.passes if p.name == timeline.name]
            starts = _x(fc, axis, numpy.array([p.start_ms for p in mine], dtype=numpy.int64))
            fig.add_trace(
                _line(
                    f"{timeline.name}: dirty ratio at pass start",
                    starts,
                    numpy.array([p.cleanable_ratio for p in mine]),
                    color,
                    markers=True,
                ),
                2,
                column,
            )
        fig.update_xaxes(**axis.layout(), **_narrow_dates(axis), row=2, col=column)
    fig.update_yaxes(title_text=f"bytes ({unit.name})", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="dirty ratio at pass start", tickformat=".0%", row=2, col=1)
    legend_once(fig.data)
    fig.update_layout(legend={"orientation": "h", "y": -0.22, "x": 0})
    return finish(fig, title=title or "What if: " + " vs ".join(labels), height=640, bottom=150)


def _narrow_dates(axis: TimeAxis) -> dict[str, Any]:
    """A column's date ticks, level and short (day over time of day, a few of them): plotly's own turn on their side
    in a narrow column and are cut off below it."""
    return {"tickformat": "%b %-d\n%H:%M", "nticks": 4, "tickangle": 0} if axis.wall_clock else {}


def _line(
    name: str,
    x: list[float],
    y: numpy.ndarray,
    color: str,
    *,
    dash: str = "solid",
    markers: bool = False,
    shape: str = "linear",
) -> go.Scatter:
    return go.Scatter(
        name=name,
        x=x,
        y=y,
        mode="lines+markers" if markers else "lines",
        line={"color": color, "dash": dash, "shape": shape},
        hovertemplate="%{y:,.3~f}<extra>" + name + "</extra>",
    )


def _pass_hover(fc: Forecast, p: ForecastPass) -> str:
    return (
        f"{p.name}, thread {p.thread}: {format_duration_ms(p.duration_ms, max_units=2)}<br>"
        f"dirty ratio {p.cleanable_ratio:.1%}, dirty section [{p.first_dirty_offset:,}, {p.end_offset:,})<br>"
        f"{format_bytes(p.size_before_bytes, exact=False)} -> {format_bytes(p.size_after_bytes, exact=False)}"
    )
