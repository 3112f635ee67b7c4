"""The stepper notebook run in JupyterLab in headless chromium: "Next ▶" redraws the layout figure (issue #8)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .lab import ROOT, LabServer, NotebookUnderTest, step_once

if TYPE_CHECKING:
    from playwright.sync_api import Page

#: The stepper notebook: its first plotly figure is the stepper's partition layout, redrawn by "Next ▶".
CASE = NotebookUnderTest(
    ROOT / "notebooks" / "02-how-compaction-works.ipynb", "Next ▶", ".js-plotly-plot >> nth=0",
    base=ROOT, support=(ROOT / "data" / "samples" / "scenarios",),
)  # fmt: skip


def test_next_button_redraws_the_figure(jupyter_lab: LabServer, page: Page) -> None:
    before, after = step_once(page, jupyter_lab, CASE)
    assert after.data != before.data
    assert after.drawn != before.drawn
