"""The same workload under several configs or strategies, side by side over time."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kcompact_nb.core import DirtinessPoint
from kcompact_nb.viz._axes import time_axis
from kcompact_nb.viz._dirty import RATIO_AXIS, deadline_trace, duplicates_trace, ratio_traces
from kcompact_nb.viz._figure import FONT_SIZE, assemble, legend_once
from kcompact_nb.viz._labels import PLOT_WIDTH_PX, text_px
from kcompact_nb.viz._palette import DUPLICATES, LABELS


def what_if_figure(
    series: Mapping[str, Sequence[DirtinessPoint]], *, by: str = "time", title: str | None = None
) -> go.Figure:
    """One column per label: the dirty ratio with passes and rolls (top) and the superseded records
    still stored (bottom), on one time scale, so one sees when duplicates disappear under each config.

    Both rows autorange to their data (the ratio row always shows 0-100%); a legend entry appears once,
    for the first column that draws it. Built as plotly JSON on plotly's own grid for the column count
    (:func:`_grid`), without validating it again: a what-if explorer draws one at each edit.
    """
    labels = list(series)
    columns = max(len(labels), 1)
    axis = time_axis([p.now_ms for points in series.values() for p in points]) if by == "time" else None
    layout = _grid(columns, len(labels))
    for annotation, label in zip(layout.get("annotations", ()), labels, strict=True):
        annotation.update(text=_fitted(label, PLOT_WIDTH_PX / columns), font={"size": FONT_SIZE + 1})
    x_layout = axis.layout() if axis is not None else {"title": {"text": "step"}}
    traces: list[dict[str, Any]] = []
    for column, label in enumerate(labels, start=1):
        points = series[label]
        top, bottom = column, columns + column  # plotly numbers subplots row by row from the top left
        deadlines = deadline_trace(points, axis=axis)
        traces += [_on(top, trace) for trace in [*ratio_traces(points, axis=axis), deadlines] if trace is not None]
        traces.append(_on(bottom, duplicates_trace(points, axis=axis)))
        layout[_axis("x", bottom)]["title"] = {"text": x_layout["title"]["text"]}
        if "type" in x_layout:
            for subplot in (top, bottom):
                layout[_axis("x", subplot)]["type"] = x_layout["type"]
    layout["yaxis"].update(RATIO_AXIS)
    layout[_axis("y", columns + 1)].update(title={"text": LABELS[DUPLICATES]}, rangemode="tozero")
    legend_once(traces)
    layout["legend"] = {"orientation": "h", "y": -0.16, "x": 0}
    # column titles name the configs; a title naming more than two runs past the width of a notebook's figure
    heading = "What if: " + " vs ".join(labels) if len(labels) <= 2 else f"What if: {len(labels)} configs side by side"
    return assemble(traces, layout, title=title or heading, height=620, top=90, bottom=120)


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


def _axis(letter: str, subplot: int) -> str:
    return f"{letter}axis{subplot if subplot > 1 else ''}"


def _on(subplot: int, trace: dict[str, Any]) -> dict[str, Any]:
    """``trace`` drawn on subplot number ``subplot``."""
    suffix = subplot if subplot > 1 else ""
    return {**trace, "xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}


def _fitted(label: str, column_px: float) -> str:
    """A column title broken onto two lines at a comma or space when one line would run into the next column."""
    if text_px(label, FONT_SIZE + 1) <= column_px - 16:
        return label
    for separator in (", ", " "):
        middle = len(label) // 2
        cuts = [i for i in range(len(label)) if label.startswith(separator, i)]
        if cuts:
            cut = min(cuts, key=lambda i: abs(i - middle))
            return label[:cut].rstrip(",") + ("," if separator == ", " else "") + "<br>" + label[cut + len(separator) :]
    return label
