"""The same workload under several configs or strategies, side by side over time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kcompact_nb.core import DirtinessPoint
from kcompact_nb.viz._axes import time_axis
from kcompact_nb.viz._dirty import RATIO_AXIS, deadline_trace, duplicates_trace, ratio_traces
from kcompact_nb.viz._figure import FONT_SIZE, finish, legend_once
from kcompact_nb.viz._labels import PLOT_WIDTH_PX, text_px
from kcompact_nb.viz._palette import DUPLICATES, LABELS


def what_if_figure(
    series: Mapping[str, Sequence[DirtinessPoint]], *, by: str = "time", title: str | None = None
) -> go.Figure:
    """One column per label: the dirty ratio with passes and rolls (top) and the superseded records
    still stored (bottom), on one time scale, so one sees when duplicates disappear under each config.

    Both rows autorange to their data (the ratio row always shows 0-100%); a legend entry appears once,
    for the first column that draws it.
    """
    labels = list(series)
    columns = max(len(labels), 1)
    axis = time_axis([p.now_ms for points in series.values() for p in points]) if by == "time" else None
    titles = [_fitted(label, PLOT_WIDTH_PX / columns) for label in labels]
    fig = make_subplots(
        rows=2,
        cols=columns,
        subplot_titles=titles,
        shared_yaxes="rows",
        shared_xaxes="all",
        vertical_spacing=0.14,
        horizontal_spacing=0.04,
    )
    for column, label in enumerate(labels, start=1):
        points = series[label]
        fig.add_traces(ratio_traces(points, axis=axis), rows=1, cols=column)
        deadlines = deadline_trace(points, axis=axis)
        if deadlines is not None:
            fig.add_trace(deadlines, row=1, col=column)
        fig.add_trace(duplicates_trace(points, axis=axis), row=2, col=column)
        x_title = axis.layout()["title"]["text"] if axis is not None else "step"
        fig.update_xaxes(title_text=x_title, row=2, col=column)
        if axis is not None:
            fig.update_xaxes(type=axis.layout()["type"], row=2, col=column)
            fig.update_xaxes(type=axis.layout()["type"], row=1, col=column)
    fig.update_yaxes(**RATIO_AXIS, row=1, col=1)
    fig.update_yaxes(title_text=LABELS[DUPLICATES], rangemode="tozero", row=2, col=1)
    legend_once(fig)
    fig.update_layout(legend={"orientation": "h", "y": -0.16, "x": 0})
    for annotation in fig.layout.annotations:
        annotation.font = {"size": FONT_SIZE + 1}
    # column titles name the configs; a title naming more than two runs past the width of a notebook's figure
    heading = "What if: " + " vs ".join(labels) if len(labels) <= 2 else f"What if: {len(labels)} configs side by side"
    return finish(fig, title=title or heading, height=620, top=90, bottom=120)


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
