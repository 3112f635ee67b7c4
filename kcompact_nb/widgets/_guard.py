"""Figures that never stay blank: ``FigureWidget`` views kept as wide as their output area, and a static copy of
each figure shown in its place whenever its live view does not show the current figure (issue #39).

Two things can leave a live ``FigureWidget`` empty or stale in JupyterLab. plotly's browser side keeps the
figure it draws from (``_widget_data``, ``_widget_layout``) up to date only by replaying the kernel's update
messages, and it starts listening for them only once its 5 MB module has loaded: on a busy machine the first
messages of a figure built after its widget was made (as the stepper's are) come before that, are lost, and
the view draws an empty figure that later updates cannot fill. :func:`~kcompact_nb.widgets._figures.sync_figure`
therefore also sends the whole figure as the widget's state, which a view created at any time draws. And a
view can fail to draw at all (a browser too busy, a cell rendered while detached); then :class:`FigureGuard`,
an invisible widget shown with the figures, notices that the page does not show a figure's current title and
traces within :data:`GRACE_MS` and tells the kernel, which fills that figure's ``fallback`` (an ipywidgets
``Output``) with the same figure as a plain plotly output until the live view catches up.

plotly's ``FigureWidget`` also draws as soon as its view is created, before JupyterLab attaches it to the page,
so plotly.js measures nothing: it draws 700 px wide whatever room there is and places the title as if text had
no size (a view created hidden starts the same way), and every redraw that sets ``height`` pins ``width`` at
the width drawn so far. The guard asks a figure drawn at another width than its element's to relayout with
``autosize`` (what a window resize does for a static plotly output). A figure whose layout sets a width is left
alone. Figures are told from their plots by their traces' ``uid``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import anywidget
import ipywidgets
import plotly.graph_objects as go
import plotly.io as pio
import traitlets
from ipywidgets import widget_serialization

GRACE_MS = 1500
"""How long a live figure may lag behind its widget before its static copy is shown."""
FIGURE_CLASS = "kcompact-figure"
FALLBACK_CLASS = "kcompact-fallback"
FALLBACK_NOTE = "The live figure has not drawn this step in this browser yet; the same figure, drawn statically:"

GUARD_JS = """
const FITTING_PX = 2;
const GRACE_MS = GRACE_MS_VALUE;
const FIT_EVERY_MS = 1000;

const titleText = (title) => (typeof title === 'string' ? title : title?.text) ?? '';

function wanted(figure) {
  const data = figure.get('_widget_data');
  if (!Array.isArray(data)) return null;  // a saved view: the figure is a plain plotly output
  return {uids: data.map((trace) => trace.uid), title: titleText(figure.get('_widget_layout')?.title)};
}

function shows(plot, want) {
  const data = plot.data ?? [];
  return Boolean(plot._fullLayout) && plot.querySelector('.main-svg') !== null &&
    data.length === want.uids.length && data.every((trace, i) => trace.uid === want.uids[i]) &&
    titleText(plot.layout?.title) === want.title;
}

function misfit(plot) {
  return plot._fullLayout && plot.isConnected && plot.clientWidth > 0 &&
    Math.abs(plot._fullLayout.width - plot.clientWidth) > FITTING_PX;
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
    const lagging = new Map();  // figure index -> since when its live view has not shown it
    const fittedAt = new Map();  // figure index -> when it was last asked to fit its output area
    const area = () => el.closest('.jp-OutputArea-output') ?? el.parentElement;
    const livePlots = (box) => Array.from(box.querySelectorAll('.js-plotly-plot'))
      .filter((plot) => !plot.closest('.kcompact-fallback'));
    const check = () => {
      const root = area();
      if (!root) return;
      const now = performance.now(), blank = [];
      figures.forEach((figure, index) => {
        const want = wanted(figure), box = root.querySelector('.kcompact-figure-' + index);
        const plots = box ? livePlots(box) : [];
        const fitted = fittedAt.get(index) ?? -Infinity;
        if (want && !figure.get('_widget_layout')?.width && plots.some(misfit) && now - fitted > FIT_EVERY_MS) {
          fittedAt.set(index, now);  // at most once a second: plotly may take a while to draw the new width
          relayout(figure);
        }
        if (!want || !box || box.getClientRects().length === 0 || plots.some((plot) => shows(plot, want))) {
          lagging.delete(index);
          box?.classList.remove('kcompact-figure-stale');
          return;
        }
        if (!lagging.has(index)) lagging.set(index, now);
        if (now - lagging.get(index) >= GRACE_MS) {
          blank.push(index);
          box.classList.add('kcompact-figure-stale');
        }
      });
      if (JSON.stringify(blank) !== JSON.stringify(model.get('blank'))) {
        model.set('blank', blank);
        model.save_changes();
      }
    };
    let pending = false;
    const soon = () => {
      if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; check(); }); }
    };
    const start = () => {
      if (!el.isConnected) return requestAnimationFrame(start);
      new ResizeObserver(soon).observe(area());
      new MutationObserver(soon).observe(area(), {childList: true, subtree: true});
      soon();
    };
    start();
    const timer = setInterval(() => { if (el.isConnected) check(); }, 500);
    return () => clearInterval(timer);
  },
};
""".replace("GRACE_MS_VALUE", str(GRACE_MS))

# A live figure that lags is hidden while its static copy shows; saved views (no kernel) show a plain note in place
# of ipywidgets' red "disconnected" icon.
GUARD_CSS = f"""
.{FIGURE_CLASS}-stale > :first-child:not(.{FALLBACK_CLASS}) {{ display: none; }}
.kcompact-widget .jupyter-widgets-disconnected::before,
.kcompact-widget.jupyter-widgets-disconnected::before {{ content: none; display: none; }}
.kcompact-widget.jupyter-widgets-disconnected::after {{
  content: "Saved view: run the notebook (Run All) to use the controls.";
  color: var(--jp-ui-font-color2); font-size: var(--jp-ui-font-size1);
}}
"""


class FigureGuard(anywidget.AnyWidget):
    """An invisible widget that keeps ``figures`` (``FigureWidget``) drawn and as wide as their output area.

    Show ``box(figure)`` (the figure above its ``fallback``) in place of each figure, and the guard itself beside
    them. ``blank`` (set by the browser) holds the indexes of the figures whose live views lag; their
    ``fallbacks`` show the current figure statically until the live views catch up.
    """

    _esm = GUARD_JS
    _css = GUARD_CSS
    figures = traitlets.List(traitlets.Instance(go.FigureWidget)).tag(sync=True, **widget_serialization)
    blank = traitlets.List(traitlets.Int()).tag(sync=True)

    def __init__(self, figures: Sequence[go.FigureWidget]) -> None:
        super().__init__(figures=list(figures))
        self.layout.display = "none"
        self.fallbacks = [ipywidgets.Output(layout=ipywidgets.Layout(display="none", width="100%")) for _ in figures]
        self.boxes = []
        for index, (figure, fallback) in enumerate(zip(self.figures, self.fallbacks, strict=True)):
            fallback.add_class(FALLBACK_CLASS)
            box = ipywidgets.VBox([figure, fallback], layout=ipywidgets.Layout(width="100%"))
            box.add_class(f"{FIGURE_CLASS}-{index}")
            self.boxes.append(box)
        self.observe(lambda _change: self.redrawn(), names="blank")

    def box(self, figure: go.FigureWidget) -> ipywidgets.VBox:
        """The box that shows ``figure`` (or its static copy)."""
        (index,) = [index for index, held in enumerate(self.figures) if held is figure]  # figures compare by value
        return self.boxes[index]

    def redrawn(self) -> None:
        """Bring the static copies of the lagging figures to their figures' current state (call after a redraw)."""
        for index, (figure, fallback) in enumerate(zip(self.figures, self.fallbacks, strict=True)):
            shown = index in self.blank
            fallback.outputs = static_outputs(figure) if shown else ()
            fallback.layout.display = None if shown else "none"


def static_outputs(figure: go.FigureWidget) -> tuple[dict[str, Any], ...]:
    """``figure`` as a note and a plain plotly output (what JupyterLab draws without the widget's module)."""
    plotly_json = json.loads(pio.to_json(figure, validate=False))
    note = {"output_type": "stream", "name": "stdout", "text": FALLBACK_NOTE + "\n"}
    shown = {
        "output_type": "display_data",
        "metadata": {},
        "data": {"application/vnd.plotly.v1+json": plotly_json, "text/plain": ["Figure"]},
    }
    return note, shown
