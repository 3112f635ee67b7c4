"""The same workload under several configs or strategies, side by side over time."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, NamedTuple

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kcompact_nb.core import DirtinessPoint
from kcompact_nb.viz._axes import TimeAxis, time_axis
from kcompact_nb.viz._dirty import RATIO_AXIS, deadline_trace, duplicates_trace, ratio_traces, x_of
from kcompact_nb.viz._figure import FONT_SIZE, TITLE_FONT_SIZE, assemble, legend_once
from kcompact_nb.viz._labels import PLOT_WIDTH_PX, text_px
from kcompact_nb.viz._palette import DUPLICATES, LABELS


def what_if_figure(
    series: Mapping[str, Sequence[DirtinessPoint]], *, by: str = "time", title: str | None = None
) -> go.Figure:
    """One column per label: the dirty ratio with passes and rolls (top) and the superseded records
    still stored (bottom), on one time scale, so one sees when duplicates disappear under each config.

    Both rows autorange to their data (the ratio row always shows 0-100%); a legend entry appears once,
    for the first column that draws it. Built as plotly JSON on plotly's own grid for the column count
    (:func:`_grid`), without validating it again.
    """
    labels = list(series)
    axis = _axis(series, by)
    layout = _columns(series, axis, titled=True)
    for annotation, label in zip(layout.get("annotations", ()), labels, strict=True):
        annotation.update(text=_fitted(label, PLOT_WIDTH_PX / max(len(labels), 1)), font={"size": FONT_SIZE + 1})
    traces = layout.pop("traces")
    # column titles name the configs; a title naming more than two runs past the width of a notebook's figure
    heading = "What if: " + " vs ".join(labels) if len(labels) <= 2 else f"What if: {len(labels)} configs side by side"
    return assemble(traces, layout, title=title or heading, height=620, top=90, bottom=120)


class WhatIfScale(NamedTuple):
    """The ranges figures of :func:`what_if_column` drawn side by side share, so that they read on one scale: the time
    (or step) axis (``axis``: ``None`` by step) and its ``x`` range, the dirty ratio's and the superseded records'."""

    axis: TimeAxis | None
    x: tuple[float, float]
    ratio: tuple[float, float]
    duplicates: tuple[float, float]


def what_if_scale(series: Mapping[str, Sequence[DirtinessPoint]], *, by: str = "time") -> WhatIfScale:
    """The scale of every column of ``series``: each range spans all of them (the ratio's at least 0-100%), padded so
    that markers at its ends are drawn whole."""
    points = [p for column in series.values() for p in column]
    axis = _axis(series, by)
    x = x_of(points, axis) or [0.0]
    ratios = [0.0, 1.0] + [r for p in points for r in (p.cleanable_ratio, p.min_cleanable_dirty_ratio)]
    duplicates = max((p.duplicates for p in points), default=0)
    return WhatIfScale(
        axis, _padded(min(x), max(x)), _padded(min(ratios), max(ratios), share=0.08), (0.0, duplicates * 1.05 or 1.0)
    )


def what_if_column(label: str, points: Sequence[DirtinessPoint], *, scale: WhatIfScale) -> go.Figure:
    """One column of :func:`what_if_figure` (``label``'s) as a figure of its own, titled ``label``, on ``scale``
    (:func:`what_if_scale` of all the columns shown beside it): a what-if explorer draws each side in its own figure
    and redraws only the side an edit changed."""
    layout = _columns({label: points}, scale.axis, titled=False)
    traces = layout.pop("traces")
    for subplot in (1, 2):
        layout[_axis_key("x", subplot)]["range"] = list(scale.x)
    layout["yaxis"]["range"] = list(scale.ratio)
    layout["yaxis2"]["range"] = list(scale.duplicates)
    heading = _fitted(label, PLOT_WIDTH_PX / 2, size=TITLE_FONT_SIZE)  # room for two lines: the sides' plots align
    return assemble(traces, layout, title=heading, height=660, top=90, bottom=190)


def _axis(series: Mapping[str, Sequence[DirtinessPoint]], by: str) -> TimeAxis | None:
    return time_axis([p.now_ms for points in series.values() for p in points]) if by == "time" else None


def _columns(series: Mapping[str, Sequence[DirtinessPoint]], axis: TimeAxis | None, *, titled: bool) -> dict[str, Any]:
    """The layout of one column per label on plotly's grid (column titles to fill in when ``titled``), its traces under
    ``"traces"``."""
    labels = list(series)
    columns = max(len(labels), 1)
    layout = _grid(columns, len(labels) if titled else 0)
    x_layout = axis.layout() if axis is not None else {"title": {"text": "step"}}
    traces: list[dict[str, Any]] = []
    for column, label in enumerate(labels, start=1):
        points = series[label]
        top, bottom = column, columns + column  # plotly numbers subplots row by row from the top left
        deadlines = deadline_trace(points, axis=axis)
        traces += [_on(top, trace) for trace in [*ratio_traces(points, axis=axis), deadlines] if trace is not None]
        traces.append(_on(bottom, duplicates_trace(points, axis=axis)))
        layout[_axis_key("x", bottom)]["title"] = {"text": x_layout["title"]["text"]}
        if "type" in x_layout:
            for subplot in (top, bottom):
                layout[_axis_key("x", subplot)]["type"] = x_layout["type"]
    layout["yaxis"].update(RATIO_AXIS)
    layout[_axis_key("y", columns + 1)].update(title={"text": LABELS[DUPLICATES]}, rangemode="tozero")
    legend_once(traces)
    layout["legend"] = {"orientation": "h", "y": -0.16, "x": 0}
    return {**layout, "traces": traces}


def _padded(low: float, high: float, *, share: float = 0.04) -> tuple[float, float]:
    """``[low, high]`` widened by ``share`` of its span at each end (by 1 when it spans nothing)."""
    pad = (high - low) * share or 1.0
    return low - pad, high + pad


@cache
def _grid_json(columns: int, titles: int) -> dict[str, Any]:
    layout: dict[str, Any] = make_subplots(
        rows=2,
        cols=columns,
        subplot_titles=["title"] * titles,  # texts filled in by the caller
        shared_yaxes="rows",
        shared_xaxes="all",
        vertical_spacing=0.14,
        horizontal_spacing=0.04,
    ).layout.to_plotly_json()
    layout.pop("template", None)
    return layout


def _grid(columns: int, titles: int) -> dict[str, Any]:
    """plotly's layout of two rows of ``columns`` subplots (y axes shared by row, x axes by all), with ``titles``
    column titles (texts to fill in): a copy of the one made once for these counts."""
    return copy.deepcopy(_grid_json(columns, titles))


def _axis_key(letter: str, subplot: int) -> str:
    return f"{letter}axis{subplot if subplot > 1 else ''}"


def _on(subplot: int, trace: dict[str, Any]) -> dict[str, Any]:
    """``trace`` drawn on subplot number ``subplot``."""
    suffix = subplot if subplot > 1 else ""
    return {**trace, "xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}


def _fitted(label: str, column_px: float, *, size: int = FONT_SIZE + 1) -> str:
    """A title broken onto two lines at a comma or space when one line would run into the next column."""
    if text_px(label, size) <= column_px - 16:
        return label
    for separator in (", ", " "):
        middle = len(label) // 2
        cuts = [i for i in range(len(label)) if label.startswith(separator, i)]
        if cuts:
            cut = min(cuts, key=lambda i: abs(i - middle))
            return label[:cut].rstrip(",") + ("," if separator == ", " else "") + "<br>" + label[cut + len(separator) :]
    return label
