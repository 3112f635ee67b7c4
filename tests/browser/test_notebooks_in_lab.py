"""Every notebook in JupyterLab at 1280x900 in headless chromium: Run All, then look at what a reader sees (issue #15).

The notebooks run a few at a time in separate tabs (each with its own kernel), in JupyterLab served with
``make lab``'s settings. For each: no console error (but jupyterlab_widgets' restore race on opening,
:data:`~tests.browser.lab.RESTORE_RACE`), no error or stderr output, no "Error displaying widget",
no plotly axis whose fixed range hides data, nothing reaching past an output's right edge; every figure and
widget output is saved as a PNG under ``test-artifacts/browser/notebooks/<notebook>/`` for people to look at,
with the run times in ``timings.txt``. In notebook 01 the stepper is then used as a reader would: "Next ▶" must
redraw its figure, and an invalid config value must show Kafka's message without widening the stepper.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .conftest import ARTIFACTS
from .lab import (
    ROOT,
    RUN_ALL_TIMEOUT_MS,
    FigureState,
    LabServer,
    click_and_wait_for_redraw,
    close_notebook,
    copy_notebooks,
    is_restore_race,
    open_copied,
    rendered_figure,
    run_all_outcome,
    start_run_all,
)
from .outputs import CLIPPED_JS, OutputReport, inspect_outputs, screenshot, wait_until_rendered

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Page

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SHOTS = ARTIFACTS / "notebooks"
VIEWPORT = {"width": 1280, "height": 900}
PARALLEL_TABS = 3
"""Notebooks run at once: each tab has its own kernel (three Spark or broker JVMs at most)."""
SLOW_FIRST = ("05-real-data", "07-at-scale", "06-spark-and-dataframes")
"""Started first so the long runs overlap the short ones."""
STEPPER_NOTEBOOK = "01-how-compaction-works"
FIRST_PASS_STATUS = "step 7 of steps 0–16"
"""The stepper's header at fruit-prices.json's first cleaner pass."""
FIRST_PASS_CLICKS = 8


@dataclass
class StepperUse:
    """What happened when the stepper of notebook 01 was used in the page."""

    before: FigureState | None = None
    after: FigureState | None = None
    first_pass_status: str = ""
    message: str = ""
    clipped: list[str] = field(default_factory=list)


@dataclass
class LabRuns:
    """Every notebook's report, and what the stepper did."""

    reports: dict[str, OutputReport]
    stepper: StepperUse


def _order() -> list[Path]:
    slow = [p for name in SLOW_FIRST for p in NOTEBOOKS if p.stem == name]
    return slow + [p for p in NOTEBOOKS if p not in slow]


def use_the_stepper(page: Page, use: StepperUse) -> None:
    """Click "Next ▶" (its figure must redraw), go on to the first pass (screenshot), then type a value
    Kafka 4 refuses into ``segment.bytes``."""
    figure = rendered_figure(page, ".js-plotly-plot >> nth=0")
    use.before, use.after = click_and_wait_for_redraw(page, "Next ▶", figure)
    stepper = page.locator(".jp-OutputArea-output", has=page.get_by_role("button", name="Next ▶", exact=True))
    status = stepper.locator(".widget-html-content", has_text="of steps 0–16").first
    for _ in range(FIRST_PASS_CLICKS):
        if status.inner_text().startswith(FIRST_PASS_STATUS):
            break
        before = status.inner_text()
        page.get_by_role("button", name="Next ▶", exact=True).click()
        page.wait_for_function("([node, text]) => node.innerText !== text", arg=[status.element_handle(), before])
    use.first_pass_status = status.inner_text()
    wait_until_rendered(page)
    screenshot(page, stepper, SHOTS / STEPPER_NOTEBOOK / "stepper-first-pass.png")
    field_ = page.get_by_role("textbox", name="segment.bytes", exact=True)
    field_.fill("10")  # below 14 bytes, the topic minimum of the scenario's Kafka 4.0
    field_.press("Enter")
    message = page.get_by_text("Invalid value 10 for configuration segment.bytes")
    message.wait_for()
    use.message = message.inner_text()
    use.clipped = stepper.evaluate(CLIPPED_JS)
    screenshot(page, stepper, SHOTS / STEPPER_NOTEBOOK / "stepper-invalid-segment-bytes.png")


def _finish(
    page: Page, report: OutputReport, outcome: dict[str, object] | None, after: Callable[[Page], None] | None
) -> None:
    if outcome is None:
        report.problems.append(f"Run All did not finish within {RUN_ALL_TIMEOUT_MS // 1000} s")
        return
    if not outcome["ok"]:
        report.problems.append(f"Run All failed: {outcome.get('error', '')}")
    wait_until_rendered(page)
    inspect_outputs(page, report, SHOTS / report.notebook)
    if after is not None:
        after(page)


def _note_console_error(message: ConsoleMessage, errors: list[str]) -> None:
    """Add ``message`` to ``errors`` if it is an error, other than jupyterlab_widgets' restore race (its effect on the
    saved views is test_widgets_in_lab.py's to check; Run All here draws them anew). Let pass whenever it comes: Run
    All starts as soon as the kernel is idle, so here the opening and the Run All overlap."""
    if message.type == "error" and not is_restore_race(message.text):
        errors.append(message.text)


def run_every_notebook(chromium: Browser, server: LabServer) -> LabRuns:
    """Run all notebooks, :data:`PARALLEL_TABS` at a time, and inspect each as soon as it is done."""
    from playwright.sync_api import Error as PlaywrightError  # imported here: without Playwright the test skips

    copy_notebooks(server, [path.stem for path in NOTEBOOKS])
    shutil.rmtree(SHOTS, ignore_errors=True)
    use = StepperUse()
    hooks: dict[str, Callable[[Page], None]] = {STEPPER_NOTEBOOK: lambda page: use_the_stepper(page, use)}
    reports: dict[str, OutputReport] = {}
    console_errors: dict[str, list[str]] = {}
    pending, running = _order(), {}
    while pending or running:
        while pending and len(running) < PARALLEL_TABS:
            path = pending.pop(0)
            context = chromium.new_context(viewport=VIEWPORT)
            page = context.new_page()
            errors = console_errors[path.stem] = []
            page.on("console", lambda message, errors=errors: _note_console_error(message, errors))
            page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
            try:
                open_copied(page, server, f"notebooks/{path.name}")
                start_run_all(page)
            except PlaywrightError as error:  # this notebook's test fails, saying why; the others still run
                reports[path.stem] = OutputReport(path.stem, problems=[f"did not open: {error}"])
                close_notebook(page)
                continue
            running[path.stem] = (page, time.monotonic())
        for name, (page, started) in list(running.items()):
            outcome = run_all_outcome(page)
            late = time.monotonic() - started > RUN_ALL_TIMEOUT_MS / 1000
            if outcome is None and not late:
                continue
            report = reports[name] = OutputReport(name, seconds=time.monotonic() - started)
            try:
                _finish(page, report, outcome, hooks.get(name))
                report.problems += [f"console error: {text}" for text in console_errors[name]]
            finally:
                close_notebook(page)
                del running[name]
        time.sleep(0.5)
    return LabRuns(reports, use)


@pytest.fixture(scope="session")
def lab_runs(chromium: Browser, jupyter_lab: LabServer) -> Iterator[LabRuns]:
    started = time.monotonic()
    runs = run_every_notebook(chromium, jupyter_lab)
    lines = [
        f"{name}: {r.seconds:.1f} s to Run All, {len(r.screenshots)} screenshots"
        for name, r in sorted(runs.reports.items())
    ]
    lines.append(f"all notebooks, {PARALLEL_TABS} tabs at a time: {time.monotonic() - started:.1f} s")
    (SHOTS / "timings.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    yield runs


@pytest.mark.parametrize("notebook", [p.stem for p in NOTEBOOKS])
def test_notebook_runs_clean_in_jupyterlab(lab_runs: LabRuns, notebook: str) -> None:
    report = lab_runs.reports[notebook]
    assert report.problems == []


def test_every_figure_and_widget_output_has_a_screenshot(lab_runs: LabRuns) -> None:
    shots = {name: len(report.screenshots) for name, report in lab_runs.reports.items()}
    assert all((SHOTS / name).is_dir() for name in shots)
    # the notebooks that draw: 01 (stepper), 02 (figure, explorer), 03, 04, 06 (two layouts), 07, 09 (before, after),
    # 10 (a forecast's figures), A1
    assert [name for name, count in sorted(shots.items()) if count] == [
        "00-partition-model", "01-how-compaction-works", "02-why-is-my-partition-not-clean",
        "03-tombstones-transactions-producers", "04-offset-map-and-cleaner-memory", "06-spark-and-dataframes",
        "07-at-scale", "09-diagnose-a-partition", "10-will-the-cleaner-keep-up", "A1-kip-280-strategies",
    ]  # fmt: skip


def test_next_redraws_the_stepper_figure(lab_runs: LabRuns) -> None:
    use = lab_runs.stepper
    assert use.before is not None and use.after is not None
    assert use.after.data != use.before.data and use.after.drawn != use.before.drawn


def test_next_reaches_the_first_pass_with_its_checks(lab_runs: LabRuns) -> None:
    assert lab_runs.stepper.first_pass_status.startswith(FIRST_PASS_STATUS + " · t = 7 d 1 ms · clean: [0, 4) cleaned")


def test_an_invalid_config_value_shows_kafkas_message_without_widening_the_stepper(lab_runs: LabRuns) -> None:
    use = lab_runs.stepper
    assert use.message.startswith(
        "Not applied (segment.bytes stays 1 GiB): "
        "Invalid value 10 for configuration segment.bytes: Value must be in [14, 2147483647]"
    )
    assert use.clipped == []
