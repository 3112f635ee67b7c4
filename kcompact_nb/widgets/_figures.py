"""Redrawing a ``FigureWidget`` in place from a freshly built figure (the widget and its view stay).

A ``FigureWidget``'s view must never be removed while its widget lives: plotly 7's view subscribes to its
model's update messages and never unsubscribes, so a removed view (its plot purged) throws on the next
update, and the views created after it, subscribed later, never receive that update (the browser logs
``Error setting state``, the page keeps the old figure). Show and hide figures with :func:`show_only`,
never by taking them out of a box's ``children``.
"""

from __future__ import annotations

import ipywidgets
import plotly.graph_objects as go


def figure_widget(figure: go.Figure | None = None) -> go.FigureWidget:
    """A ``FigureWidget`` (plotly 7 builds it on anywidget) showing ``figure``, as wide as its container."""
    widget = go.FigureWidget(figure)
    _fit_container(widget)
    return widget


def sync_figure(widget: go.FigureWidget, figure: go.Figure) -> None:
    """Make ``widget`` show ``figure``: traces updated one by one when their kinds match, else replaced.

    When the traces match, the layout is merged without its template (the widget keeps the one it
    has; validating plotly's default template again costs more than the rest of a redraw). Layout
    properties that ``figure`` leaves unset are unset in the widget too: plotly.js merges a relayout
    into the layout it has, so an axis or a legend of the previous figure would otherwise stay drawn.
    """
    layout = figure.layout.to_plotly_json()
    stale = {name: None for name in widget.layout.to_plotly_json() if name not in layout}
    if stale:  # before the batch: a batched relayout is applied to the layout as it is at the batch's end
        widget.update_layout(stale)
    with widget.batch_update():
        same = len(widget.data) == len(figure.data) and all(
            w.type == f.type for w, f in zip(widget.data, figure.data, strict=False)
        )
        if not same:
            widget.data = ()
            widget.add_traces(list(figure.data))
            widget.layout = figure.layout
        else:
            for old, new in zip(widget.data, figure.data, strict=False):
                fresh = new.to_plotly_json()
                # what the new trace leaves unset must not survive from the old one (stale hover data)
                gone = {
                    name: None for name in old.to_plotly_json() if name not in fresh and name not in ("type", "uid")
                }
                old.update({**gone, **fresh}, overwrite=True)
            layout.pop("template", None)
            # lists set whole: update_layout would merge them into the widget's item by item
            widget.layout.shapes, widget.layout.annotations = layout.pop("shapes", ()), layout.pop("annotations", ())
            widget.update_layout(layout, overwrite=True)
        _fit_container(widget)


def show_only(box: ipywidgets.Box, shown: ipywidgets.DOMWidget) -> None:
    """Show ``shown`` and hide the rest of ``box``'s children, all of them boxes or plain widgets (a
    ``FigureWidget``'s ``layout`` is plotly's: put figures in a box); every child keeps its view (see above)."""
    for child in box.children:
        child.layout.display = None if child is shown else "none"


def _fit_container(widget: go.FigureWidget) -> None:
    """Without ``autosize`` plotly.js draws a widget 700 px wide whatever room its output area has."""
    if widget.layout.width is None:
        widget.layout.autosize = True
