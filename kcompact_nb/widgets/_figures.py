"""The widgets' figures: a ``go.Figure`` each widget redraws in place from a freshly built figure (``sync_figure``),
shown in the page by a :class:`FigureView`: one plotly figure redrawn in its element in place (``LivePlot``).

Why not plotly's ``FigureWidget`` (issue #39): it is an anywidget, and anywidget gives a widget's module 2 s to load
and initialize in the browser, after which it drops every message to the model. plotly's module is 5 MB: on a busy
machine (a Spark job or a build beside the notebook) it takes longer, and the figure stays blank for good, clicks
and all, while the ipywidgets around it keep working. ``LivePlot``'s module is a few KiB and draws with the plotly.js
JupyterLab's plotly extension already loaded. Why not a plain plotly output, as before (issue #41): JupyterLab's
plotly renderer never redraws an output in place, so each step drew every figure three times (a new plot, a redraw
of it, and an offscreen copy for a PNG), about 100 ms of the browser's time a figure; ``LivePlot`` draws it once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets
import numpy
import plotly.graph_objects as go
import plotly.io as pio
import traitlets
from plotly.basedatatypes import BasePlotlyType, Undefined

WIDGET_CLASS = "kcompact-widget"
WIDGET_STYLE = f"""<style>
.{WIDGET_CLASS} .jupyter-widgets-disconnected::before,
.{WIDGET_CLASS}.jupyter-widgets-disconnected::before {{ content: none; display: none; }}
.{WIDGET_CLASS}.jupyter-widgets-disconnected::after {{
  content: "Saved view: run the notebook (Run All) to use the controls.";
  color: var(--jp-ui-font-color2); font-size: var(--jp-ui-font-size1);
}}
</style>"""
"""A saved view (no kernel yet) shows a plain note in place of ipywidgets' red "disconnected" icon."""


def held_figure(figure: go.Figure | None = None) -> go.Figure:
    """The figure a widget holds and redraws in place, as wide as its container."""
    held = go.Figure(figure)
    _fit_container(held)
    return held


class LivePlot(anywidget.AnyWidget):  # type: ignore[misc]
    """One plotly figure (``figure``: plotly JSON) drawn in the page and redrawn there in place when it changes.

    In the page (``live_plot.js``) it draws with the plotly.js of JupyterLab's plotly extension, sent nothing of
    plotly's own; until that is ready, or in a front end without it, it shows the figure's title as text.
    """

    _esm = (Path(__file__).parent / "live_plot.js").read_text(encoding="utf-8")
    figure = traitlets.Dict().tag(sync=True)


class FigureView:
    """``figure`` shown in the page by a :class:`LivePlot` (``widget``); :meth:`refresh` draws it again after it
    changed (only then: the same figure is not sent twice)."""

    def __init__(self, figure: go.Figure) -> None:
        self.figure = figure
        self.widget = LivePlot(layout=ipywidgets.Layout(width="100%"))
        self._sent: Any = None

    def refresh(self, held: dict[str, Any] | None = None) -> None:
        """Draw the figure again if it changed; ``held`` is its :func:`plotly_json` when known (what
        :func:`sync_figure` returns), which saves copying the figure whole once more to write it."""
        shown = json.loads(pio.to_json(plotly_json(self.figure) if held is None else held, validate=False))
        if shown != self._sent:  # compared as JSON values: the held figure orders its properties as set
            self._sent = shown
            self.widget.figure = shown


def plotly_json(figure: go.Figure) -> dict[str, Any]:
    """The figure's traces and layout as plotly JSON, numpy arrays as they are (``Figure.to_plotly_json`` writes them
    in base64, one more copy of the figure)."""
    return {"data": [trace.to_plotly_json() for trace in figure.data], "layout": figure.layout.to_plotly_json()}


def styled(box: ipywidgets.Box) -> ipywidgets.Box:
    """``box`` marked as one of the project's widgets, with :data:`WIDGET_STYLE` in it."""
    box.add_class(WIDGET_CLASS)
    box.children = (*box.children, ipywidgets.HTML(WIDGET_STYLE, layout=ipywidgets.Layout(display="none")))
    return box


def sync_figure(widget: go.Figure, figure: go.Figure) -> dict[str, Any]:
    """Make ``widget`` (a held figure) show ``figure``: traces updated one by one when their kinds match, else replaced;
    returns the plotly JSON ``widget`` then holds (``figure``'s, fitted to its container: :meth:`FigureView.refresh`).

    Only what differs is set again, in one ``plotly_update`` (one message to the browser) and without validating
    it again: ``figure``'s values are plotly's own JSON (validating a layout figure's once more costs a stepper
    step 10 ms). A trace's or the layout's properties equal to those the widget holds are left as they are.
    Layout properties that ``figure`` leaves unset are unset in the widget too: plotly.js merges a relayout into
    the layout it has, so an axis or a legend of the previous figure would otherwise stay drawn.
    """
    held, fresh = widget.layout.to_plotly_json(), plotly_json(figure)
    layout, traces = fresh["layout"], fresh["data"]
    relayout = _changes(held, layout, kept=())
    unset = {name: None for name, value in relayout.items() if value is None or _plotly_equal(held.get(name), value)}
    if unset:  # first, on its own: plotly.js applies an update's relayout to the layout as it is at the update's end
        widget.plotly_relayout(unset)  # removes them (update_layout would leave empty objects in their place)
    relayout = {name: value for name, value in relayout.items() if value is not None}
    if [trace.type for trace in widget.data] != [trace.type for trace in figure.data]:
        # replaced whole and validated, as plotly adds traces: a first draw, or another figure (traces added
        # empty and filled by the update left a what-if explorer's first figure undrawn in JupyterLab)
        with widget.batch_update():
            widget.data = ()
            widget.add_traces(list(figure.data))
            widget.update_layout(relayout, overwrite=True)
    else:
        restyle, changed = _restyle(widget, traces)
        with widget.batch_update():  # the properties plotly_update cannot set, validated and sent after it
            for name in [n for n, value in relayout.items() if _not_updatable(widget, held.get(n), n, value)]:
                widget.layout[name] = relayout.pop(name)
            widget.plotly_update(restyle_data=restyle, relayout_data=relayout, trace_indexes=changed)
    _fit_container(widget)
    return {"data": traces, "layout": {**layout, "autosize": True} if layout.get("width") is None else layout}


def _not_updatable(widget: go.Figure, held: Any, name: str, value: Any) -> bool:
    """Whether ``plotly_update`` cannot make layout property ``name`` of ``widget`` ``value``: it sets only properties
    the layout has (not a subplot's new axis), and keeps the layout's objects for the items of a list (shapes,
    annotations) as they are, as many as there were (their values read the new items)."""
    resized = isinstance(value, list) and len(value) != len(held if isinstance(held, (list, tuple)) else ())
    return resized or name not in widget.layout


def _restyle(widget: go.Figure, traces: list[dict[str, Any]]) -> tuple[dict[str, list[Any]], list[int]]:
    """``plotly_update``'s restyle data and trace indexes that make the widget's traces ``traces`` (of their kinds):
    each property's values for the traces that change, ``Undefined`` where a trace keeps its own."""
    held = [trace.to_plotly_json() for trace in widget.data]
    changes = {index: _changes(held[index], trace, kept=("type", "uid")) for index, trace in enumerate(traces)}
    changed = [index for index, change in changes.items() if change]
    _unset(widget, {i: [n for n, v in changes[i].items() if _plotly_equal(held[i].get(n), v)] for i in changed})
    restyle: dict[str, list[Any]] = {}
    for position, index in enumerate(changed):
        for name, value in changes[index].items():
            restyle.setdefault(name, [Undefined] * len(changed))[position] = value
    return restyle, changed


def _unset(widget: go.Figure, names: dict[int, list[str]]) -> None:
    """Unset the traces' properties ``names`` (trace index -> names): those whose new values plotly takes for the
    ones held (a list for an array of the same items). ``plotly_update`` would keep the held ones, and the widget
    would hold another JSON than the figure it was given."""
    indexes = [index for index, unset in names.items() if unset]
    if indexes:
        restyle = {
            name: [None if name in names[i] else Undefined for i in indexes]
            for name in sorted({name for i in indexes for name in names[i]})
        }
        widget.plotly_restyle(restyle, trace_indexes=indexes)


def _plotly_equal(a: Any, b: Any) -> bool:
    """Equal as plotly compares values when it sets them (arrays and lists by items, whatever their types); a new
    value ``None`` unsets."""
    return b is not None and bool(BasePlotlyType._vals_equal(a, b))


def _changes(held: dict[str, Any], fresh: dict[str, Any], *, kept: tuple[str, ...]) -> dict[str, Any]:
    """The properties of ``fresh`` that differ from those ``held``, and ``None`` for those ``fresh`` leaves unset
    (stale hover data must not survive) apart from ``kept``: an equal value is not set again."""
    gone = {name: None for name in held if name not in fresh and name not in kept}
    return {**gone, **{name: value for name, value in fresh.items() if not same_value(held.get(name), value)}}


def same_value(a: Any, b: Any) -> bool:
    """Equal plotly JSON values: dicts and sequences item by item, numpy arrays by dtype and items."""
    if isinstance(a, numpy.ndarray) or isinstance(b, numpy.ndarray):
        return (
            isinstance(a, numpy.ndarray)
            and isinstance(b, numpy.ndarray)
            and a.dtype == b.dtype
            and numpy.array_equal(a, b)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def show_only(box: ipywidgets.Box, shown: ipywidgets.DOMWidget) -> None:
    """Show ``shown`` and hide the rest of ``box``'s children; every child keeps its view."""
    for child in box.children:
        child.layout.display = None if child is shown else "none"


def _fit_container(widget: go.Figure) -> None:
    """Without ``autosize`` plotly.js draws a figure 700 px wide whatever room its output area has."""
    if widget.layout.width is None:
        widget.layout.autosize = True
