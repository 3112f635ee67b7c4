"""Make ``FigureWidget`` views as wide as their output area once JupyterLab has put them on the page.

plotly's ``FigureWidget`` (on anywidget) draws as soon as its view is created, before the view is attached
to the page, so plotly.js measures nothing: it draws 700 px wide whatever room there is and places the
title as if text had no size. A view created hidden (the stepper's offset map before the first pass)
starts the same way. And every redraw that sets ``height`` (a relayout) makes plotly.js pin ``width`` at
the width it has drawn so far, so a figure drawn at 700 px once stays 700 px. :class:`FigureFitter`
watches the output area it sits in and, whenever one of its figures is drawn there at another width than
its element's, asks that figure to relayout with ``autosize`` (what a window resize does for a static
plotly output), which also unpins the width. A figure whose Python layout sets a width is left alone.
Figures are told from their plots by their traces' ``uid``.
"""

from __future__ import annotations

from collections.abc import Sequence

import anywidget
import plotly.graph_objects as go
import traitlets
from ipywidgets import widget_serialization

FIT_JS = """
const FITTING_PX = 2;

function misfit(plot) {
  return plot._fullLayout && plot.isConnected && plot.clientWidth > 0 &&
    Math.abs(plot._fullLayout.width - plot.clientWidth) > FITTING_PX;
}

function drawnBy(figure, plot) {
  const uids = new Set((figure.get('_widget_data') ?? []).map((trace) => trace.uid));
  return (plot.data ?? []).some((trace) => uids.has(trace.uid));
}

function relayout(figure) {
  const message = {
    relayout_data: {autosize: true}, source_view_id: null, layout_edit_id: figure.get('_last_layout_edit_id')
  };
  figure.set('_py2js_relayout', message);
  figure.set('_py2js_relayout', null);
}

export default {
  async render({ model, el }) {
    const figures = await Promise.all(
      model.get('figures').map((ref) => model.widget_manager.get_model(ref.slice('IPY_MODEL_'.length)))
    );
    let pending = false;
    const check = () => {
      pending = false;
      const area = el.closest('.jp-OutputArea-output') ?? el.parentElement;
      if (!area) return;
      const misfits = Array.from(area.querySelectorAll('.js-plotly-plot')).filter(misfit);
      figures
        .filter((figure) => !figure.get('_widget_layout')?.width)
        .filter((figure) => misfits.some((plot) => drawnBy(figure, plot)))
        .forEach(relayout);
    };
    const soon = () => { if (!pending) { pending = true; requestAnimationFrame(check); } };
    const start = () => {
      if (!el.isConnected) return requestAnimationFrame(start);
      const area = el.closest('.jp-OutputArea-output') ?? el.parentElement;
      new ResizeObserver(soon).observe(area);
      new MutationObserver(soon).observe(area, {childList: true, subtree: true});
      soon();
    };
    start();
  },
};
"""


class FigureFitter(anywidget.AnyWidget):
    """An invisible widget that keeps ``figures`` (``FigureWidget``) as wide as the output area it is shown in."""

    _esm = FIT_JS
    figures = traitlets.List(traitlets.Instance(go.FigureWidget)).tag(sync=True, **widget_serialization)

    def __init__(self, figures: Sequence[go.FigureWidget]) -> None:
        super().__init__(figures=list(figures))
        self.layout.display = "none"
