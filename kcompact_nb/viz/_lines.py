"""Vertical markers on an offset or time axis, as shapes with a label (shared by the figures)."""

from __future__ import annotations

import plotly.graph_objects as go


def marker_line(fig: go.Figure, x: float, *, label: str, color: str, dash: str = "dash") -> None:
    """A full-height vertical line at ``x`` across every subplot, labelled at the top."""
    fig.add_shape(
        type="line",
        x0=x,
        x1=x,
        y0=0,
        y1=1,
        xref="x",
        yref="paper",
        line={"color": color, "dash": dash, "width": 1.5},
        name=label,
    )
    fig.add_annotation(
        x=x,
        y=1,
        xref="x",
        yref="paper",
        text=label,
        showarrow=False,
        yanchor="bottom",
        font={"color": color, "size": 10},
    )
