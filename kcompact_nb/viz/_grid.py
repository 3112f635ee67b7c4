"""Rows of plots sharing one offset axis, laid out directly (``make_subplots`` costs more than a whole redraw)."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go


def stacked_figure(heights: Sequence[float], *, gap: float = 0.08) -> go.Figure:
    """A figure with one row per height (top first), each row with its own y axis; x axes are matched to the top one."""
    usable = 1 - gap * (len(heights) - 1)
    layout: dict[str, object] = {}
    top = 1.0
    for row, height in enumerate(heights, start=1):
        bottom = max(top - height / sum(heights) * usable, 0.0)
        suffix = "" if row == 1 else str(row)
        layout[f"yaxis{suffix}"] = {"domain": [bottom, top], "anchor": f"x{suffix}"}
        layout[f"xaxis{suffix}"] = {"anchor": f"y{suffix}", **({} if row == 1 else {"matches": "x"})}
        top = bottom - gap
    return go.Figure(layout=layout)


def in_row(traces: Sequence[go.BaseTraceType], row: int) -> list[go.BaseTraceType]:
    """``traces`` placed in ``row`` (1-based) of a :func:`stacked_figure`."""
    suffix = "" if row == 1 else str(row)
    for trace in traces:
        trace.update(xaxis=f"x{suffix}", yaxis=f"y{suffix}")
    return list(traces)
