"""The stepper (02, 04) and the what-if explorer (03) used in JupyterLab as a reader would (issue #26).

Each notebook runs (Run All) in its own tab; then its widget goes through a sequence: forward past the
first pass, back before it and forward again, config edits Kafka accepts and refuses, a strategy switch.
After every action the page must show what the widget's Python object holds (the stepper's header, the
offset map's title, the stats heading, the config message; the explorer's panel headings, column titles
and figure title), every figure must be drawn as wide as its element with its title clear of its
subtitle, and the browser console must stay free of errors. Screenshots of each widget after each
action go to ``test-artifacts/browser/widgets/<notebook>/``.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest

from .conftest import ARTIFACTS
from .lab import RUN_ALL_TIMEOUT_MS, LabServer, copy_notebooks, open_copied, run_all_outcome, start_run_all
from .outputs import screenshot, wait_until_rendered
from .widgets import fit_problems, synced

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Locator, Page

SHOTS = ARTIFACTS / "widgets"
VIEWPORT = {"width": 1400, "height": 1000}
NEXT, PREVIOUS = "Next ▶", "◀ Previous"


@dataclass
class Use:
    """What happened in one notebook: every mismatch, fit problem and console error, in order."""

    notebook: str
    problems: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)


Action = tuple[str, Callable[["Page", "Locator"], None]]


def click(name: str, times: int = 1) -> Callable[[Page, Locator], None]:
    def act(page: Page, output: Locator) -> None:
        for _ in range(times):
            output.get_by_role("button", name=name, exact=True).click()
            page.wait_for_timeout(150)

    return act


def type_into(name: str, value: str, *, panel: int = 0, role: str = "textbox") -> Callable[[Page, Locator], None]:
    def act(page: Page, output: Locator) -> None:
        field_ = output.get_by_role(role, name=name, exact=True).nth(panel)  # type: ignore[arg-type]
        field_.fill(value)
        field_.press("Enter")

    return act


def choose(name: str, value: str, *, panel: int = 0) -> Callable[[Page, Locator], None]:
    def act(page: Page, output: Locator) -> None:
        output.get_by_role("combobox", name=name, exact=True).nth(panel).select_option(value)

    return act


STEPPER_02: list[Action] = [
    ("past the first pass", click(NEXT, 8)),
    ("back before it", click(PREVIOUS, 8)),
    ("forward to the end", click(NEXT, 14)),
    ("delete.retention.ms = 0", type_into("delete.retention.ms", "0")),
    ("segment.bytes = 10, refused", type_into("segment.bytes", "10")),
    ("segment.bytes = 1 GiB again", type_into("segment.bytes", "1 GiB")),
    ("strategy timestamp", choose("compaction.strategy", "timestamp")),
    ("back to the first pass", click(PREVIOUS, 6)),
]
EXPLORER_03: list[Action] = [
    ("left segment.ms = 6h", type_into("segment.ms", "6h")),
    ("right max.compaction.lag.ms = soon, refused", type_into("max.compaction.lag.ms", "soon", panel=1)),
    ("right max.compaction.lag.ms = 2d", type_into("max.compaction.lag.ms", "2d", panel=1)),
    ("left strategy timestamp", choose("compaction.strategy", "timestamp")),
]
STEPPER_04: list[Action] = [
    ("to pass 2", click(NEXT, 2)),
    ("back to the start", click(PREVIOUS, 2)),
    ("forward to the end", click(NEXT, 6)),
    ("min.cleanable.dirty.ratio = 0.5", type_into("min.cleanable.dirty.ratio", "0.5", role="spinbutton")),
    ("min.cleanable.dirty.ratio = 1.5, refused", type_into("min.cleanable.dirty.ratio", "1.5", role="spinbutton")),
]
SEQUENCES = {
    "02-how-compaction-works": STEPPER_02,
    "03-why-is-my-partition-not-clean": EXPLORER_03,
    "04-offset-map-and-cleaner-memory": STEPPER_04,
}


def widget_output(page: Page) -> Locator:
    """The output of the notebook's stepper or explorer (the last output holding config fields)."""
    return page.locator(".jp-OutputArea-output", has=page.get_by_role("combobox", name="compaction.strategy")).last


def check(page: Page, output: Locator, use: Use, label: str) -> None:
    expected, shown = synced(page, output)
    if shown != expected:
        use.problems.append(f"{label}: the page shows {shown}, the widget holds {expected}")
    use.problems += [f"{label}: {problem}" for problem in fit_problems(output)]
    screenshot(page, output, SHOTS / use.notebook / f"{len(use.actions):02d}-{label.replace(' ', '-')}.png")


def use_widget(chromium: Browser, server: LabServer, notebook: str) -> Use:
    use = Use(notebook)
    page = chromium.new_context(viewport=VIEWPORT).new_page()

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            use.problems.append(f"console error: {message.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: use.problems.append(f"page error: {error}"))
    try:
        open_copied(page, server, f"notebooks/{notebook}.ipynb")
        start_run_all(page)
        deadline = time.monotonic() + RUN_ALL_TIMEOUT_MS / 1000
        while run_all_outcome(page) is None and time.monotonic() < deadline:
            page.wait_for_timeout(500)
        assert (run_all_outcome(page) or {}).get("ok"), f"Run All of {notebook} did not finish"
        wait_until_rendered(page)
        output = widget_output(page)
        check(page, output, use, "after Run All")
        for label, act in SEQUENCES[notebook]:
            use.actions.append(label)
            act(page, output)
            check(page, output, use, label)
    finally:
        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
        page.context.close()
    return use


@pytest.fixture(scope="module")
def widget_uses(chromium: Browser, jupyter_lab: LabServer) -> Iterator[dict[str, Use]]:
    shutil.rmtree(SHOTS, ignore_errors=True)
    copy_notebooks(jupyter_lab, SEQUENCES)
    yield {notebook: use_widget(chromium, jupyter_lab, notebook) for notebook in SEQUENCES}


@pytest.mark.parametrize("notebook", list(SEQUENCES))
def test_every_panel_shows_what_the_widget_holds_after_every_action(widget_uses: dict[str, Use], notebook: str) -> None:
    use = widget_uses[notebook]
    assert use.actions == [label for label, _ in SEQUENCES[notebook]]
    assert use.problems == []
