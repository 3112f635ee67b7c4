"""The widget notebooks opened in JupyterLab before they run: their widgets show from the saved state, no error, no
red "disconnected" icon, and the same texts as once Run All has run their code again.

A notebook stores its widget views with their models' state (``tools/strip_notebook_figures.py --execute``);
JupyterLab restores that state on opening a trusted notebook (``make lab`` trusts the project's), so a reader
sees the stepper or explorer as the last run left it, figures drawn, instead of "Error displaying widget:
model not found". Screenshots of each widget
output go to ``test-artifacts/browser/on-open/<notebook>/``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .conftest import ARTIFACTS
from .lab import (
    ROOT,
    RUN_ALL_TIMEOUT_MS,
    UI_TIMEOUT_MS,
    LabServer,
    copy_notebooks,
    open_copied,
    run_all_outcome,
    start_run_all,
)
from .outputs import screenshot, wait_until_rendered

if TYPE_CHECKING:
    from playwright.sync_api import Browser

WIDGET_NOTEBOOKS = ("01-how-compaction-works", "02-why-is-my-partition-not-clean", "04-offset-map-and-cleaner-memory")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
SHOTS = ARTIFACTS / "on-open"
VIEWPORT = {"width": 1280, "height": 900}

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


def open_without_running(chromium: Browser, server: LabServer, name: str) -> Opened:
    path = ROOT / "notebooks" / f"{name}.ipynb"
    opened = Opened(stored_views(path))
    context = chromium.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.on("console", lambda message: opened.console_errors.append(message.text) if message.type == "error" else None)
    try:
        open_copied(page, server, f"notebooks/{path.name}")
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
            screenshot(page, outputs.nth(number), SHOTS / name / f"widget-{number + 1}.png")
        start_run_all(page)
        deadline = time.monotonic() + RUN_ALL_TIMEOUT_MS / 1000
        while run_all_outcome(page) is None and time.monotonic() < deadline:
            page.wait_for_timeout(500)
        wait_until_rendered(page)
        opened.texts_run = page.evaluate(WIDGET_TEXTS_JS)
    finally:
        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
        context.close()
    return opened


@pytest.fixture(scope="module")
def opened(chromium: Browser, jupyter_lab: LabServer) -> Iterator[dict[str, Opened]]:
    shutil.rmtree(SHOTS, ignore_errors=True)
    copies = copy_notebooks(jupyter_lab, WIDGET_NOTEBOOKS)
    # as `make lab` does: Lab renders widget views (and HTML) only in notebooks the user trusts
    subprocess.run([sys.executable, "-m", "jupyter", "trust", *map(str, copies)], check=True, capture_output=True)
    yield {name: open_without_running(chromium, jupyter_lab, name) for name in WIDGET_NOTEBOOKS}


@pytest.mark.parametrize("notebook", WIDGET_NOTEBOOKS)
def test_widgets_show_from_their_saved_state_before_the_notebook_runs(opened: dict[str, Opened], notebook: str):
    result = opened[notebook]
    assert result.stored_views, "the notebook stores no widget view: run tools/strip_notebook_figures.py --execute"
    assert "Error displaying widget" not in result.page_text
    shown = {i: cell["views"] for i, cell in enumerate(result.shown) if cell["views"]}
    assert shown == result.stored_views
    assert all(result.shown[i]["plots"] for i in result.stored_views), "every widget output draws its figures"
    assert [cell["disconnected_icons"] for cell in result.shown if cell["views"]] == [0] * len(result.stored_views)
    assert [line for line in result.console_errors if "widget" in line.lower() or "model" in line.lower()] == []


@pytest.mark.parametrize("notebook", WIDGET_NOTEBOOKS)
def test_the_saved_widgets_show_what_the_notebooks_code_produces(opened: dict[str, Opened], notebook: str):
    """Issue #39: a saved stepper showed a status its code no longer produced. Run All leaves every widget where
    the saved run left it, so the texts shown before and after must be the same."""
    result = opened[notebook]
    assert result.texts_saved and result.texts_run == result.texts_saved
