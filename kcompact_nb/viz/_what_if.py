"""The same workload under several configs or strategies, side by side over simulated time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kcompact_nb.core import DirtinessPoint
from kcompact_nb.viz._dirty import duplicates_trace, ratio_traces


def what_if_figure(series: Mapping[str, Sequence[DirtinessPoint]], *, by: str = "time", title: str | None = None) -> go.Figure:
    """One column per label: the dirty ratio with passes and rolls (top) and the duplicates still
    stored (bottom), so one sees when duplicates disappear under each config."""
    labels = list(series)
    fig = make_subplots(rows=2, cols=max(len(labels), 1), subplot_titles=labels, shared_yaxes="rows", vertical_spacing=0.1)
    for column, label in enumerate(labels, start=1):
        legend = column == 1
        fig.add_traces(ratio_traces(series[label], by=by, legend=legend), rows=1, cols=column)
        fig.add_trace(duplicates_trace(series[label], by=by, legend=legend), row=2, col=column)
        fig.update_xaxes(title_text="simulated time (ms)" if by == "time" else "step", row=2, col=column)
    fig.update_yaxes(title_text="cleanable ratio", range=[0, 1.05], row=1, col=1)
    fig.update_yaxes(title_text="duplicates stored", row=2, col=1)
    fig.update_layout(title=title or "What if: " + " vs ".join(labels))
    return fig
