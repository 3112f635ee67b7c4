"""Redrawing a ``FigureWidget`` in place from a freshly built figure (the widget and its view stay)."""

from __future__ import annotations

import plotly.graph_objects as go


def figure_widget(figure: go.Figure | None = None) -> go.FigureWidget:
    """A ``FigureWidget`` (plotly 7 builds it on anywidget) showing ``figure``, as wide as its container."""
    widget = go.FigureWidget(figure)
    _fit_container(widget)
    return widget


def sync_figure(widget: go.FigureWidget, figure: go.Figure) -> None:
    """Make ``widget`` show ``figure``: traces updated one by one when their kinds match, else replaced.

    When the traces match, the layout is merged without its template (the widget keeps the one it
    has; validating plotly's default template again costs more than the rest of a redraw).
    """
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
                stale = {
                    name: None for name in old.to_plotly_json() if name not in fresh and name not in ("type", "uid")
                }
                old.update({**stale, **fresh}, overwrite=True)
            layout = figure.layout.to_plotly_json()
            layout.pop("template", None)
            # lists set whole: update_layout would merge them into the widget's item by item
            widget.layout.shapes, widget.layout.annotations = layout.pop("shapes", ()), layout.pop("annotations", ())
            widget.update_layout(layout, overwrite=True)
        _fit_container(widget)


def _fit_container(widget: go.FigureWidget) -> None:
    """Without ``autosize`` plotly.js draws a widget 700 px wide whatever room its output area has."""
    if widget.layout.width is None:
        widget.layout.autosize = True
