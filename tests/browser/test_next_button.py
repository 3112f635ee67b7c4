"""A notebook run in JupyterLab in headless chromium: clicking "Next ▶" redraws the plotly figure (issue #8)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .lab import LabServer, NotebookUnderTest, step_once

if TYPE_CHECKING:
    from playwright.sync_api import Page

#: The notebook driven. The stepper notebook will take this fixture's place: its path, button and figure.
CASE = NotebookUnderTest(Path(__file__).parent / "data" / "next_button_figure.ipynb", "Next ▶", ".js-plotly-plot")


def test_next_button_redraws_the_figure(jupyter_lab: LabServer, page: Page) -> None:
    before, after = step_once(page, jupyter_lab, CASE)
    assert after.data != before.data
    assert after.drawn != before.drawn
