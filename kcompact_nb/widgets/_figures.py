"""Redrawing a ``FigureWidget`` in place from a freshly built figure (the widget and its view stay).

A ``FigureWidget``'s view must never be removed while its widget lives: plotly 7's view subscribes to its
model's update messages and never unsubscribes, so a removed view (its plot purged) throws on the next
update, and the views created after it, subscribed later, never receive that update (the browser logs
``Error setting state``, the page keeps the old figure). Show and hide figures with :func:`show_only`,
never by taking them out of a box's ``children``.
"""

from __future__ import annotations

from typing import Any

import ipywidgets
import numpy
import plotly.graph_objects as go


def figure_widget(figure: go.Figure | None = None) -> go.FigureWidget:
    """A ``FigureWidget`` (plotly 7 builds it on anywidget) showing ``figure``, as wide as its container."""
    widget = go.FigureWidget(figure)
    _fit_container(widget)
    return widget


def sync_figure(widget: go.FigureWidget, figure: go.Figure) -> None:
    """Make ``widget`` show ``figure``: traces updated one by one when their kinds match, else replaced.

    Only what differs is validated and set again: a trace's or the layout's properties equal to those the
    widget holds are left as they are (the template, whose validation costs more than the rest of a
    redraw, is set only when it differs). Layout properties that ``figure`` leaves unset are unset in the
    widget too: plotly.js merges a relayout into the layout it has, so an axis or a legend of the previous
    figure would otherwise stay drawn.
    """
    layout = figure.layout.to_plotly_json()
    held = widget.layout.to_plotly_json()
    stale = {name: None for name in held if name not in layout}
    if stale:  # before the batch: a batched relayout is applied to the layout as it is at the batch's end
        widget.plotly_relayout(stale)  # removes them (update_layout would leave empty objects in their place)
    with widget.batch_update():
        same = len(widget.data) == len(figure.data) and all(
            w.type == f.type for w, f in zip(widget.data, figure.data, strict=False)
        )
        if same:
            for old, new in zip(widget.data, figure.data, strict=False):
                old.update(_changes(old.to_plotly_json(), new.to_plotly_json(), kept=("type", "uid")), overwrite=True)
        else:
            widget.data = ()
            widget.add_traces(list(figure.data))
        # lists set whole: update_layout would merge them into the widget's item by item
        for name in ("shapes", "annotations"):
            items = layout.pop(name, ())
            if not same_value(held.get(name, ()), items):
                widget.layout[name] = items
        kept = {name: value for name, value in held.items() if name not in stale}
        widget.update_layout(_changes(kept, layout, kept=("shapes", "annotations")), overwrite=True)
        _fit_container(widget)


def _changes(held: dict[str, Any], fresh: dict[str, Any], *, kept: tuple[str, ...]) -> dict[str, Any]:
    """The properties of ``fresh`` that differ from those ``held``, and ``None`` for those ``fresh`` leaves unset
    (stale hover data must not survive) apart from ``kept``: an equal value is not validated and set again."""
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
    """Show ``shown`` and hide the rest of ``box``'s children, all of them boxes or plain widgets (a
    ``FigureWidget``'s ``layout`` is plotly's: put figures in a box); every child keeps its view (see above)."""
    for child in box.children:
        child.layout.display = None if child is shown else "none"


def _fit_container(widget: go.FigureWidget) -> None:
    """Without ``autosize`` plotly.js draws a widget 700 px wide whatever room its output area has."""
    if widget.layout.width is None:
        widget.layout.autosize = True
