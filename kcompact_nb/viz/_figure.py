"""What every figure shares: the template, fonts, margins, titles, and axes that fit their data.

Axes without an explicit range get ``autorange=True`` written out, so a figure redrawn in place from a
new one (a widget's ``LivePlot``) cannot keep a range left over from the previous one. No figure sets a range on
an axis that others ``match``: plotly.js then stops autoranging every other group of matched axes
(they stay at its empty-axis default [-1, 4], whatever their data).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

from kcompact_nb.viz._arrays import wrapped_hovers
from kcompact_nb.viz._palette import COLORS, FONT, INK, MUTED

TITLE_FONT_SIZE = 17
FONT_SIZE = 12


def finish(
    fig: go.Figure, *, title: str, subtitle: str | None = None, height: int, top: int = 90, bottom: int = 60
) -> go.Figure:
    """Apply the house style: title (and a subtitle line), white template, fitted axes, fixed height, hover texts
    wrapped (:func:`~kcompact_nb.viz._arrays.wrapped_hovers`)."""
    for trace in fig.data:
        if getattr(trace, "hovertext", None) is not None:
            wrapped = wrapped_hovers(trace.hovertext)
            if wrapped is not trace.hovertext:
                trace.hovertext = wrapped
    _white_template(fig)
    fig.update_layout(house_layout(title=title, subtitle=subtitle, height=height, top=top, bottom=bottom))
    fit_axes(fig)
    return fig


def assemble(
    traces: list[dict[str, Any]],
    layout: dict[str, Any],
    *,
    title: str,
    subtitle: str | None = None,
    height: int,
    top: int = 90,
    bottom: int = 60,
) -> go.Figure:
    """The figure of cartesian ``traces`` and ``layout`` (plotly JSON, as :func:`finish` would leave them) in the
    house style, built without plotly's validation: validating a layout figure property by property costs a
    stepper step 50 ms (tests build every figure again validated and compare). The figure validates what is
    set on it afterwards, as any other does."""
    traces = [{**t, "hovertext": wrapped_hovers(t["hovertext"])} if "hovertext" in t else t for t in traces]
    layout = {**layout, **house_layout(title=title, subtitle=subtitle, height=height, top=top, bottom=bottom)}
    names = {_axis_name(t.get("xaxis"), "x") for t in traces} | {_axis_name(t.get("yaxis"), "y") for t in traces}
    for name, fit in _fitted(names, layout).items():
        layout[name] = {**layout.get(name, {}), **fit}
    fig = go.Figure({"data": traces, "layout": {**layout, "template": pio.templates["plotly_white"]}}, _validate=False)
    for part in (fig, fig.layout, *fig.data):
        part._validate = True
    return fig


def bar(**properties: Any) -> dict[str, Any]:
    """A bar trace as plotly JSON, for :func:`assemble` (or ``add_traces``, which validates it)."""
    return {"type": "bar", **properties}


def scatter(**properties: Any) -> dict[str, Any]:
    """A scatter trace as plotly JSON, for :func:`assemble` (or ``add_traces``, which validates it)."""
    return {"type": "scatter", **properties}


def house_layout(*, title: str, subtitle: str | None, height: int, top: int, bottom: int) -> dict[str, Any]:
    """Title (and a subtitle line), fonts, margins and a fixed height."""
    heading: dict[str, Any] = {
        "text": title,
        "x": 0.01,
        "xanchor": "left",
        "yref": "container",
        "y": 1,
        "yanchor": "top",
        "pad": {"t": 14},
        "font": {"size": TITLE_FONT_SIZE},
    }
    if subtitle is not None:
        heading["subtitle"] = {"text": subtitle, "font": {"size": FONT_SIZE, "color": COLORS[MUTED]}}
    return {
        "title": heading,
        "font": {"family": FONT, "size": FONT_SIZE, "color": COLORS[INK]},
        "height": height,
        "autosize": True,
        "margin": {"l": 70, "r": 30, "t": top, "b": bottom},
        "hoverlabel": {"font": {"family": FONT, "size": FONT_SIZE}},
        # plotly's toolbar down the right edge, in the margin: across the top it covered the end of a long title
        "modebar": {"orientation": "v"},
    }


def _white_template(fig: go.Figure) -> None:
    """Give ``fig`` plotly's ``plotly_white`` template unvalidated, as plotly gives a new figure its default one:
    a registered template is valid, and validating its copy again costs 6 ms a figure (a stepper step draws two)."""
    layout, validate = fig.layout, fig.layout._validate
    layout._validate = False
    try:
        layout.template = pio.templates["plotly_white"]
    finally:
        layout._validate = validate


def fit_axes(fig: go.Figure) -> None:
    """``autorange=True`` on every cartesian axis that has no explicit range."""
    names = {_axis_name(t.xaxis, "x") for t in fig.data if hasattr(t, "xaxis")} | {
        _axis_name(t.yaxis, "y") for t in fig.data if hasattr(t, "yaxis")
    }
    fig.update_layout(_fitted(names, fig.layout.to_plotly_json()))


def _fitted(trace_axes: set[str], layout: dict[str, Any]) -> dict[str, dict[str, bool]]:
    """``autorange`` of the axes ``trace_axes`` draw on and those ``layout`` has: on unless a range is set."""
    names = trace_axes | {k for k in layout if k.startswith(("xaxis", "yaxis"))}
    return {name: {"autorange": layout.get(name, {}).get("range") is None} for name in sorted(names)}


def _axis_name(ref: str | None, letter: str) -> str:
    suffix = (ref or letter)[1:]
    return f"{letter}axis{suffix}"


def legend_below(*, plot_px: float, offset_px: float = 48) -> dict[str, Any]:
    """A horizontal legend under the x axis title, entries in their trace order."""
    return {
        "orientation": "h",
        "x": 0,
        "xanchor": "left",
        "y": -offset_px / plot_px,
        "yanchor": "top",
        "traceorder": "grouped",
        "font": {"size": FONT_SIZE - 1},
        "itemsizing": "constant",
        "groupclick": "toggleitem",
    }


def muted(text: str) -> str:
    return f"<span style='color:{COLORS[MUTED]}'>{text}</span>"


def legend_once(traces: Sequence[Any]) -> None:
    """Each legend entry once, on the first trace of its name that draws data; hidden traces stay hidden.
    ``traces``: a figure's (``fig.data``) or plotly JSON ones (dicts)."""
    seen: set[str] = set()
    for trace in traces:
        if _property(trace, "showlegend") is False:
            continue
        x = _property(trace, "x")
        show = x is not None and any(v is not None for v in x) and _property(trace, "name") not in seen
        trace["showlegend"] = show
        if show:
            seen.add(_property(trace, "name"))


def _property(trace: Any, name: str) -> Any:
    """A trace's property, ``None`` when unset, for a trace object or its plotly JSON."""
    return trace.get(name) if isinstance(trace, dict) else trace[name]
