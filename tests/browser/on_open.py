"""A widget notebook opened in JupyterLab before it runs: what its saved widgets show (issue #39).

A notebook stores its widget views with their models' state (``tools/strip_notebook_figures.py --execute``);
JupyterLab restores that state on opening a trusted notebook (``make lab`` trusts the project's), so a reader
sees the stepper or explorer as the last run left it, figures drawn, instead of "Error displaying widget:
model not found". :func:`look_before_running` records what the page shows then; tests/browser/test_widgets_in_lab.py
opens each widget notebook this way before its Run All.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .lab import UI_TIMEOUT_MS
from .outputs import screenshot, wait_until_rendered

if TYPE_CHECKING:
    from playwright.sync_api import Page

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

# Per cell index: how many widget views Lab drew, how many plotly figures inside them, and their texts.
SHOWN_WIDGETS_JS = """
() => Array.from(document.querySelectorAll('.jp-Notebook .jp-Cell')).map((cell) => {
  const views = Array.from(cell.querySelectorAll('.jp-OutputArea-output'))
    .filter((output) => output.querySelector('.jupyter-widgets, .widget-box'));
  return {
    views: views.length,
    plots: views.reduce((n, v) => n + v.querySelectorAll('.js-plotly-plot .main-svg').length, 0),
    text: views.map((v) => v.innerText).join('\\n'),
    // ipywidgets marks a view without a kernel with a red icon (its ::before); the project's widgets hide it
    disconnected_icons: views.flatMap((v) => Array.from(v.querySelectorAll('.jupyter-widgets-disconnected')))
      .filter((node) => !['none', 'normal', ''].includes(getComputedStyle(node, '::before').content)).length,
  };
})
"""


@dataclass
class Opened:
    """What one notebook showed when opened without running."""

    stored_views: dict[int, int]
    shown: list[dict[str, object]] = field(default_factory=list)
    page_text: str = ""
    console_errors: list[str] = field(default_factory=list)
    texts_saved: list[str] = field(default_factory=list)
    texts_run: list[str] = field(default_factory=list)
    """The widgets' texts (headers, panels, stats) as saved, and once Run All has run the notebook's code again."""


# The texts of the notebook's widget HTML (the stepper's header and stats, the panels' headings and messages), as
# the DOM holds them: Lab's windowing skips rendering cells out of view, whose innerText then reads empty.
WIDGET_TEXTS_JS = """
() => Array.from(document.querySelectorAll('.jp-Notebook .jp-OutputArea-output .widget-html-content'),
                 (node) => node.textContent.trim())
"""


def stored_views(path: Path) -> dict[int, int]:
    """Cell index -> number of widget views stored among its outputs."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    counts = {i: sum(WIDGET_VIEW in o.get("data", {}) for o in c.get("outputs", [])) for i, c in enumerate(cells)}
    return {i: n for i, n in counts.items() if n}


def trust(copies: list[Path]) -> None:
    """Trust the notebooks' copies, as ``make lab`` does: Lab renders widget views (and HTML) only in those."""
    subprocess.run([sys.executable, "-m", "jupyter", "trust", *map(str, copies)], check=True, capture_output=True)


def look_before_running(page: Page, path: Path, shots: Path) -> Opened:
    """What the notebook ``path`` (the repository's; open in ``page``, its kernel idle) shows from its saved
    widgets, a screenshot of each widget output under ``shots``."""
    opened = Opened(stored_views(path))
    page.wait_for_function(
        "(n) => document.querySelectorAll('.jp-Notebook .jp-OutputArea-output .jupyter-widgets').length >= n",
        arg=len(opened.stored_views),
        timeout=UI_TIMEOUT_MS,
    )
    wait_until_rendered(page)
    opened.shown = page.evaluate(SHOWN_WIDGETS_JS)
    opened.page_text = page.locator(".jp-Notebook").inner_text()
    opened.texts_saved = page.evaluate(WIDGET_TEXTS_JS)
    outputs = page.locator(".jp-Notebook .jp-OutputArea-output:has(.jupyter-widgets)")
    for number in range(outputs.count()):
        screenshot(page, outputs.nth(number), shots / f"widget-{number + 1}.png")
    return opened
