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
Why figures are sent ahead (issue #39): in JupyterLab on a 2-core machine each plotly draw takes 40-150 ms, and a
stepper step that runs a pass draws two figures; drawn ahead, out of sight, while the reader looks at a step, the
next click shows them by moving their elements in.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
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
    Figures sent ahead (a custom message ``{"ahead": [figure, ...]}``, sent again when a new view asks with
    ``{"ask": "ahead"}``) are drawn out of sight once the page is idle, and kept there a while (the six drawn or shown
    last beyond those sent ahead); a ``figure`` with the ``id`` of one of them is shown by moving it in. Figures carry
    the ``id`` of their content.

    In the page (``live_plot.js``) it draws with the plotly.js of JupyterLab's plotly extension, sent nothing of
    plotly's own; until that is ready, or in a front end without it, it shows the figure's title as text.
    """

    _esm = (Path(__file__).parent / "live_plot.js").read_text(encoding="utf-8")
    figure = traitlets.Dict().tag(sync=True)


class FigureView:
    """A :class:`LivePlot` (``widget``) showing ``figure``, the figure given last (:meth:`show` or :meth:`hold`); it is
    sent to the page only when it differs from the one sent before. A figure changed in place is given again to be
    redrawn. :meth:`ahead` names the figures a next step may show, for the page to draw them before it does."""

    def __init__(self) -> None:
        self.figure = go.Figure()
        self.widget = LivePlot(layout=ipywidgets.Layout(width="100%"))
        self._sent: str | None = None
        self._ahead: list[dict[str, Any]] = []
        self._serialized: dict[int, tuple[go.Figure, dict[str, Any]]] = {}
        """The figures given last (shown and ahead) with what :func:`sendable` made of them, by object id."""
        self._given = False
        self.widget.on_msg(self._on_message)

    def hold(self, figure: go.Figure) -> None:
        """Make ``figure`` the one shown from the next :meth:`refresh` on."""
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
        shown = sendable(self.figure)
        self._serialized[id(self.figure)] = (self.figure, shown)
        if shown["id"] != self._sent:
            self._sent = shown["id"]
            self.widget.figure = shown

    def ahead(self, figures: Sequence[go.Figure]) -> None:
        """Send the page ``figures``, those a next step may show, to draw out of sight: each once, not the one shown,
        and nothing when they are the ones sent last.

        A figure given lately (shown or ahead) is not serialized again: one changed in place since would only be
        drawn ahead as it was, and its showing, serialized anew, would draw it.
        """
        given = [(figure, self._sendable(figure)) for figure in figures]
        self._serialized = {id(figure): (figure, sent) for figure, sent in given}
        figures_ahead = list({sent["id"]: sent for _, sent in given if sent["id"] != self._sent}.values())
        if [f["id"] for f in figures_ahead] != [f["id"] for f in self._ahead]:
            self._ahead = figures_ahead
            self.widget.send({"ahead": figures_ahead})

    def _sendable(self, figure: go.Figure) -> dict[str, Any]:
        known = self._serialized.get(id(figure))
        return known[1] if known is not None and known[0] is figure else sendable(figure)

    def _on_message(self, _widget: LivePlot, content: dict[str, Any], _buffers: Any) -> None:
        """A view of the widget drawn after the figures were sent ahead (a cell's output shown after it ran) asks for
        them again."""
        if content.get("ask") == "ahead" and self._ahead:
            self.widget.send({"ahead": self._ahead})


def sendable(figure: go.Figure) -> dict[str, Any]:
    """``figure`` as plotly JSON with the ``id`` of its content, as wide as its container unless it sets a width
    (without ``autosize`` plotly.js draws a figure 700 px wide whatever room it has)."""
    if figure.layout.width is None:
        figure.layout.autosize = True
    shown = json.loads(pio.to_json(plotly_json(figure), validate=False))
    content = json.dumps(shown, sort_keys=True, separators=(",", ":"))  # the same for properties set in any order
    return {**shown, "id": hashlib.sha1(content.encode()).hexdigest()[:20]}


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
