"""What a reader sees in a notebook's outputs after Run All: errors, broken widgets, hidden data, clipped content.

Each check runs in the page (JupyterLab's notebook model and the DOM) and returns readable findings;
an empty list means the notebook is clean.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

#: Outputs worth a screenshot: plotly figures and ipywidgets views (FigureWidgets are widget views).
PICTURE_OUTPUTS = (
    ".jp-OutputArea-output.js-plotly-plot, .jp-OutputArea-output:has(.js-plotly-plot), "
    ".jp-OutputArea-output:has(.jupyter-widgets)"
)
BROKEN_WIDGET = "Error displaying widget"  # what JupyterLab shows in place of a widget it cannot draw
SETTLE_S = 1.5
TALL_MARGIN_PX = 200
"""Room for Lab's menu, tab bar and toolbar above an output, which would otherwise cover a tall one's top."""
MAX_SHOT_HEIGHT_PX = 8000
SETTLE_TIMEOUT_S = 90.0

# Error and stderr outputs as the notebook model holds them (rendered or not), by cell index.
MODEL_PROBLEMS_JS = """
() => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
  const found = [];
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'code') continue;
    for (const output of cell.outputs.toJSON()) {
      if (output.output_type === 'error') found.push(`cell ${i}: ${output.ename}: ${output.evalue}`);
      if (output.output_type === 'stream' && output.name === 'stderr') {
        const text = Array.isArray(output.text) ? output.text.join('') : output.text;
        found.push(`cell ${i} wrote to stderr: ${text.slice(0, 300)}`);
      }
    }
  }
  return found;
}
"""

# What is on the page now: settles once widgets and plotly figures stop changing.
RENDER_STATE_JS = """
() => {
  const plots = Array.from(document.querySelectorAll('.js-plotly-plot'));
  return JSON.stringify({
    plots: plots.length,
    drawn: plots.filter((p) => p._fullLayout && p.querySelector('.main-svg')).length,
    widgets: document.querySelectorAll('.jupyter-widgets').length,
    height: document.querySelector('.jp-Notebook')?.scrollHeight ?? 0,
  });
}
"""

# A fixed axis range (autorange off in the page) that leaves points of a scatter trace outside it.
HIDDEN_DATA_JS = """
(output) => {
  const hiddenData = (plot) => {
    const layout = plot._fullLayout, found = [];
    for (const trace of layout ? plot._fullData : []) {
      if (trace.visible !== true || !String(trace.type).startsWith('scatter')) continue;
      for (const dim of ['x', 'y']) {
        const id = trace[dim + 'axis'];
        const axis = id && layout[id.replace(/^([xy])/, '$1axis')];
        if (!axis || axis.autorange !== false || axis.type !== 'linear') continue;
        const values = Array.from(trace[dim] ?? []).filter((v) => typeof v === 'number' && isFinite(v));
        const [low, high] = [Math.min(...axis.range), Math.max(...axis.range)];
        const outside = values.filter((v) => v < low || v > high);
        if (outside.length) {
          found.push(`"${trace.name}": ${outside.length} ${dim} values outside the fixed ${id} range ` +
                     `[${low}, ${high}] (e.g. ${outside[0]})`);
        }
      }
    }
    return found;
  };
  const plots = output.matches('.js-plotly-plot') ? [output] : Array.from(output.querySelectorAll('.js-plotly-plot'));
  return plots.flatMap((plot, number) => hiddenData(plot).map((line) => `figure ${number}: ${line}`));
}
"""

# An autosized figure drawn at another width than its element has (plotly measured it while detached).
MISFIT_JS = """
(output) => {
  const plots = output.matches('.js-plotly-plot') ? [output] : Array.from(output.querySelectorAll('.js-plotly-plot'));
  return plots.filter((plot) => plot._fullLayout && !plot.layout?.width && plot.clientWidth > 0 &&
                               Math.abs(plot._fullLayout.width - plot.clientWidth) > 2)
              .map((plot, number) => `figure ${number} drawn ${Math.round(plot._fullLayout.width)} px wide in ` +
                                     `${plot.clientWidth} px`);
}
"""

# A figure title that plotly's toolbar (shown on hover) would cover: their boxes overlap.
TITLE_UNDER_TOOLBAR_JS = """
(output) => {
  const plots = output.matches('.js-plotly-plot') ? [output] : Array.from(output.querySelectorAll('.js-plotly-plot'));
  const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  return plots.flatMap((plot, number) => {
    const title = plot.querySelector('.gtitle')?.getBoundingClientRect();
    const bar = plot.querySelector('.modebar')?.getBoundingClientRect();
    return title && bar && bar.width > 0 && overlap(title, bar)
      ? [`figure ${number}: its title runs under plotly's toolbar`] : [];
  });
}
"""

# Elements that reach past the output's right edge (cut off, or hidden behind a scroll bar).
CLIPPED_JS = """
(output) => {
  const right = output.getBoundingClientRect().right, found = [];
  for (const element of output.querySelectorAll('*')) {
    const box = element.getBoundingClientRect();
    if (box.width > 0 && box.height > 0 && box.right > right + 2) {
      const name = element.tagName.toLowerCase() + (element.className?.baseVal ?? element.className ?? '')
        .toString().split(' ').filter(Boolean).slice(0, 2).map((c) => '.' + c).join('');
      found.push(`${name} ends at x=${Math.round(box.right)}, past the output's edge at ${Math.round(right)}`);
    }
  }
  return found.slice(0, 3);
}
"""


@dataclass
class OutputReport:
    """What was found in one notebook's outputs, and the screenshots saved of its figures and widgets."""

    notebook: str
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)


def wait_until_rendered(page: Page) -> None:
    """Wait until every plotly figure is drawn and the page has stopped changing for :data:`SETTLE_S`."""
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    last, since = "", time.monotonic()
    while time.monotonic() < deadline:
        state: str = page.evaluate(RENDER_STATE_JS)
        counts = dict(re.findall(r'"(\w+)":(\d+)', state))
        if state != last:
            last, since = state, time.monotonic()
        elif counts["plots"] == counts["drawn"] and time.monotonic() - since >= SETTLE_S:
            return
        page.wait_for_timeout(250)
    raise TimeoutError(f"outputs still changing after {SETTLE_TIMEOUT_S:.0f} s: {last}")


def model_problems(page: Page) -> list[str]:
    """Error and stderr outputs of the notebook shown, by cell."""
    found: list[str] = page.evaluate(MODEL_PROBLEMS_JS)
    return found


def picture_outputs(page: Page) -> list[tuple[int, Locator]]:
    """``(cell index, output)`` for every figure and widget output of the notebook shown."""
    cells = page.locator(".jp-Notebook .jp-Cell")
    found = []
    for index in range(cells.count()):
        outputs = cells.nth(index).locator(PICTURE_OUTPUTS)
        found += [(index, outputs.nth(k)) for k in range(outputs.count())]
    return found


def output_problems(page: Page, cell: int, output: Locator) -> list[str]:
    """Broken widgets, hidden data, figures not fitted to their output, titles under the toolbar and clipped content
    in one output."""
    where = f"cell {cell}"
    found = [f"{where}: {line}" for line in output.evaluate(CLIPPED_JS)]
    if BROKEN_WIDGET in output.inner_text():
        found.append(f"{where}: {BROKEN_WIDGET}")
    found += [f"{where}, {line}" for line in output.evaluate(HIDDEN_DATA_JS)]
    found += [f"{where}, {line}" for line in output.evaluate(MISFIT_JS)]
    found += [f"{where}, {line}" for line in output.evaluate(TITLE_UNDER_TOOLBAR_JS)]
    return found


def shows_broken_widget(page: Page) -> bool:
    """Whether an output anywhere on the page shows a widget JupyterLab could not draw."""
    return page.get_by_text(BROKEN_WIDGET).count() > 0


def inspect_outputs(page: Page, report: OutputReport, folder: Path) -> None:
    """Check every figure and widget output of the notebook shown and save a screenshot of each in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    report.problems += model_problems(page)
    if shows_broken_widget(page):
        report.problems.append(f"the page shows '{BROKEN_WIDGET}'")
    counts: dict[int, int] = {}
    for cell, output in picture_outputs(page):
        number = counts[cell] = counts.get(cell, 0) + 1
        report.problems += output_problems(page, cell, output)
        path = folder / f"cell-{cell:02d}-{number}.png"
        screenshot(page, output, path)
        report.screenshots.append(path)


def screenshot(page: Page, output: Locator, path: Path) -> None:
    """A PNG of ``output`` whole: for an output taller than the window the page is made taller (never wider)."""
    viewport = page.viewport_size
    assert viewport is not None
    box = output.bounding_box()
    height = int(box["height"]) if box else 0
    if height + TALL_MARGIN_PX > viewport["height"]:
        page.set_viewport_size({"width": viewport["width"], "height": min(height + TALL_MARGIN_PX, MAX_SHOT_HEIGHT_PX)})
    try:
        output.scroll_into_view_if_needed()
        page.wait_for_timeout(300)  # plotly redraws on resize
        output.screenshot(path=path)
    finally:
        page.set_viewport_size(viewport)
