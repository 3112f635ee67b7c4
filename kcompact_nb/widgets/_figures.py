"""The widgets' figures: each shown in the page by a :class:`FigureView`, one plotly figure (``LivePlot``) drawn in its
element and redrawn there in place from the figure a widget built last.

Why not plotly's ``FigureWidget`` (issue #39): it is an anywidget, and anywidget gives a widget's module 2 s to load
and initialize in the browser, after which it drops every message to the model. plotly's module is 5 MB: on a busy
machine (a Spark job or a build beside the notebook) it takes longer, and the figure stays blank for good, clicks
and all, while the ipywidgets around it keep working. ``LivePlot``'s module is a few KiB and draws with the plotly.js
JupyterLab's plotly extension already loaded. Why not a plain plotly output, as before (issue #41): JupyterLab's
plotly renderer never redraws an output in place, so each step drew every figure three times (a new plot, a redraw
of it, and an offscreen copy for a PNG), about 100 ms of the browser's time a figure; ``LivePlot`` draws it once.
Why the built figure is sent whole, not diffed into a figure held in the kernel (issue #41): ``Plotly.react`` in the
page diffs it anyway, and keeping a held ``go.Figure`` in step (validated updates, plotly's deep copies) cost a
stepper step about 25 ms of the kernel's time a figure.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets
import plotly.graph_objects as go
import plotly.io as pio
import traitlets

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


class LivePlot(anywidget.AnyWidget):  # type: ignore[misc]
    """One plotly figure (``figure``: plotly JSON) drawn in the page and redrawn there in place when it changes.

    In the page (``live_plot.js``) it draws with the plotly.js of JupyterLab's plotly extension, sent nothing of
    plotly's own; until that is ready, or in a front end without it, it shows the figure's title as text.
    """

    _esm = (Path(__file__).parent / "live_plot.js").read_text(encoding="utf-8")
    figure = traitlets.Dict().tag(sync=True)


class FigureView:
    """A :class:`LivePlot` (``widget``) showing ``figure``, the figure given last (:meth:`show` or :meth:`hold`); it is
    sent to the page only when it differs from the one sent before. A figure changed in place is given again to be
    redrawn."""

    def __init__(self) -> None:
        self.figure = go.Figure()
        self.widget = LivePlot(layout=ipywidgets.Layout(width="100%"))
        self._sent: Any = None
        self._given = False

    def hold(self, figure: go.Figure) -> None:
        """Make ``figure`` the one shown from the next :meth:`refresh` on (as wide as its container unless it sets
        a width: without ``autosize`` plotly.js draws a figure 700 px wide whatever room it has)."""
        if figure.layout.width is None:
            figure.layout.autosize = True
        self.figure = figure
        self._given = True

    def show(self, figure: go.Figure) -> None:
        """Hold ``figure`` and draw it."""
        self.hold(figure)
        self.refresh()

    def refresh(self) -> None:
        """Draw the figure held if it is not the one drawn already (nothing to do when none was given since the last
        refresh: a stepper refreshes its offset map at every step, and most steps run no pass)."""
        if not self._given:
            return
        self._given = False
        shown = json.loads(pio.to_json(plotly_json(self.figure), validate=False))
        if shown != self._sent:  # compared as JSON values
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


def show_only(box: ipywidgets.Box, shown: ipywidgets.DOMWidget) -> None:
    """Show ``shown`` and hide the rest of ``box``'s children; every child keeps its view."""
    for child in box.children:
        child.layout.display = None if child is shown else "none"
