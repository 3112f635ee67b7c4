"""The stepper (01, 04) and the what-if explorer (02) used in JupyterLab as a reader would (issues #26, #39).

JupyterLab runs with ``make lab``'s own settings (Lab's defaults, windowing included, and the project's
overrides), on a quiet machine, and under CPU load (busy processes beside the browser and the kernel) for each
kind of widget: the stepper of 01 and the explorer of 02 (04's stepper is 01's widget). Each notebook runs
(Run All) in its own tab; then its widget goes through a sequence: forward past the first pass, back before it and
forward again, config edits Kafka accepts and refuses, a strategy switch.
After every action the page must show what the widget's Python object holds (the stepper's header, the
offset map's title, the stats heading, the config message; the explorer's panel headings and
its two figures' titles), every figure must be drawn (no blank figure) as wide as its element with its title clear of
its subtitle, and the browser console must stay free of errors (but jupyterlab_widgets' restore race on opening,
:data:`~tests.browser.lab.RESTORE_RACE`, counted in the report; the page must then show no "Error displaying widget").
Screenshots of each widget after each action go to ``test-artifacts/browser/widgets/<load>/<notebook>/``;
the time from each click or edit to every figure it changed redrawn goes to ``click-to-figure.txt`` there
(reported, not asserted).

On the quiet machine each notebook is first looked at as opened, before it runs (tests/browser/on_open.py): its
widgets must show from the saved state (no error, no red "disconnected" icon, figures drawn) with the texts Run All
then produces again; screenshots in ``test-artifacts/browser/on-open/<notebook>/``.
"""

from __future__ import annotations

import contextlib
import shutil
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest

from .conftest import ARTIFACTS, cpu_load
from .lab import (
    ROOT,
    RUN_ALL_TIMEOUT_MS,
    UI_TIMEOUT_MS,
    LabServer,
    close_notebook,
    copy_notebooks,
    is_restore_race,
    open_copied,
    run_all_outcome,
    start_run_all,
)
from .on_open import WIDGET_TEXTS_JS, Opened, look_before_running, trust
from .outputs import BROKEN_WIDGET, screenshot, shows_broken_widget, wait_until_rendered
from .widgets import fit_problems, python_state, synced

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Locator, Page

SHOTS = ARTIFACTS / "widgets"
ON_OPEN_SHOTS = ARTIFACTS / "on-open"
VIEWPORT = {"width": 1400, "height": 1000}
NEXT, PREVIOUS = "Next ▶", "◀ Previous"
LOADS = ("quiet", "busy")
UNDER_LOAD = ("01-how-compaction-works", "02-why-is-my-partition-not-clean")
"""One notebook of each kind of widget, used again under CPU load."""


@dataclass
class Use:
    """What happened in one notebook: every mismatch, fit problem and console error, in order."""

    notebook: str
    load: str = "quiet"
    problems: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    click_ms: list[float] = field(default_factory=list)
    """Milliseconds from a click or an edit to every figure it changed redrawn, for those that changed one."""
    opened: Opened | None = None
    """What the notebook showed as opened, before it ran (on the quiet machine)."""
    running: bool = False
    """Whether Run All has begun."""
    restore_races: int = 0
    """Console errors on opening that were jupyterlab_widgets' restore race (:data:`RESTORE_RACE`), not problems."""
    run_all_s: float = 0.0
    actions_s: float = 0.0
    """Seconds from opening the notebook to its Run All rendered, and for the actions with their checks."""


Action = tuple[str, Callable[["Page", "Locator", Use], None]]

# Before an action: note which drawing each shown figure holds (plotly makes a figure's full layout anew at each draw,
# in place) and when the action starts: when its key or click reaches the page (the event's time), what the reader
# does. Playwright's own steps before it (finding the field, focusing it, sending the key: 20-70 ms here) are the
# test's, not the reader's wait; an action with no such event counts from the time noted here.
BEFORE_ACTION_JS = """
(output) => {
  const plots = Array.from(output.querySelectorAll('.js-plotly-plot'));
  const action = {started: performance.now(), drawn: new Map(plots.map((plot) => [plot, plot._fullLayout]))};
  const began = (event) => {
    action.started = event.timeStamp;
    for (const type of ['keydown', 'click']) document.removeEventListener(type, began, true);
  };
  for (const type of ['keydown', 'click']) document.addEventListener(type, began, true);
  window.__action = action;
}
"""

# After it: wait (at most 5 s) until every figure the action redraws is drawn, that is until no figure has changed
# for 400 ms. The milliseconds from the action's start to the frame after the last figure's redraw, or null when
# no figure changed (a step past the end, a refused edit).
REDRAWN_JS = """
async (output) => {
  const {started, drawn} = window.__action;
  const plots = () => Array.from(output.querySelectorAll('.js-plotly-plot')).filter((p) => p.offsetParent !== null);
  let last = null;
  while (performance.now() - started < 5000) {
    await new Promise((resolve) => requestAnimationFrame(resolve));
    const now = performance.now() - started;
    for (const plot of plots()) {
      if (plot.querySelector('.main-svg .trace') && drawn.get(plot) !== plot._fullLayout) {
        drawn.set(plot, plot._fullLayout);
        last = now;
      }
    }
    if (last !== null && now - last > 400) break;
  }
  return last;
}
"""

CLICK_JS = """
([output, name]) => Array.from(output.querySelectorAll('button')).find((b) => b.textContent.trim() === name).click()
"""


def timed(page: Page, output: Locator, use: Use, action: Callable[[], None]) -> None:
    """Do ``action`` and note the milliseconds to every figure it changed redrawn (when it changed any)."""
    handle = output.element_handle()
    page.evaluate(BEFORE_ACTION_JS, handle)
    action()
    elapsed = page.evaluate(REDRAWN_JS, handle)
    if elapsed is not None:
        use.click_ms.append(elapsed)


def click(name: str, times: int = 1) -> Callable[[Page, Locator, Use], None]:
    def act(page: Page, output: Locator, use: Use) -> None:
        for _ in range(times):
            timed(page, output, use, lambda: page.evaluate(CLICK_JS, [output.element_handle(), name]))
            page.wait_for_timeout(150)

    return act


def type_into(name: str, value: str, *, panel: int = 0, role: str = "textbox") -> Callable[[Page, Locator, Use], None]:
    def act(page: Page, output: Locator, use: Use) -> None:
        field_ = output.get_by_role(role, name=name, exact=True).nth(panel)  # type: ignore[arg-type]
        field_.fill(value)
        timed(page, output, use, lambda: field_.press("Enter"))

    return act


def choose(name: str, value: str, *, panel: int = 0) -> Callable[[Page, Locator, Use], None]:
    def act(page: Page, output: Locator, use: Use) -> None:
        output.get_by_role("combobox", name=name, exact=True).nth(panel).select_option(value)

    return act


STEPPER_01: list[Action] = [
    ("past the first pass", click(NEXT, 8)),
    ("back before it", click(PREVIOUS, 8)),
    ("forward to the end", click(NEXT, 14)),
    ("delete.retention.ms = 0", type_into("delete.retention.ms", "0")),
    ("segment.bytes = 10, refused", type_into("segment.bytes", "10")),
    ("segment.bytes = 1 GiB again", type_into("segment.bytes", "1 GiB")),
    ("strategy timestamp", choose("compaction.strategy", "timestamp")),
    ("back to the first pass", click(PREVIOUS, 6)),
]
EXPLORER_02: list[Action] = [
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
    "01-how-compaction-works": STEPPER_01,
    "02-why-is-my-partition-not-clean": EXPLORER_02,
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
    shot = SHOTS / use.load / use.notebook / f"{len(use.actions):02d}-{label.replace(' ', '-')}.png"
    screenshot(page, output, shot)


def use_widget(chromium: Browser, server: LabServer, notebook: str, load: str) -> Use:
    from playwright.sync_api import Error as PlaywrightError  # imported here: without Playwright the test skips

    use = Use(notebook, load)
    page = chromium.new_context(viewport=VIEWPORT).new_page()

    def on_console(message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        if not use.running and is_restore_race(message.text):  # what it could cost is checked once opened
            use.restore_races += 1
        else:
            use.problems.append(f"{stage(use)}: console error: {message.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: use.problems.append(f"{stage(use)}: page error: {error}"))
    started = time.monotonic()
    try:
        open_copied(page, server, f"notebooks/{notebook}.ipynb")
        if load == "quiet":
            use.opened = look_before_running(page, ROOT / "notebooks" / f"{notebook}.ipynb", ON_OPEN_SHOTS / notebook)
            use.opened.console_errors = [problem for problem in use.problems if "console error" in problem]
        else:  # as a reader does, and as the quiet run does: Run All once the saved widgets are drawn
            wait_until_rendered(page)
        if shows_broken_widget(page):
            use.problems.append(f"opening: the page shows '{BROKEN_WIDGET}'")
        use.running = True
        start_run_all(page)
        deadline = time.monotonic() + RUN_ALL_TIMEOUT_MS / 1000
        while run_all_outcome(page) is None and time.monotonic() < deadline:
            page.wait_for_timeout(500)
        if not (run_all_outcome(page) or {}).get("ok"):
            use.problems.append(f"Run All did not finish: {run_all_outcome(page)}")
            return use
        wait_until_rendered(page)
        use.run_all_s = time.monotonic() - started
        if use.opened is not None:
            use.opened.texts_run = page.evaluate(WIDGET_TEXTS_JS)
        output = widget_output(page)
        check(page, output, use, "after Run All")
        for label, act in SEQUENCES[notebook]:
            use.actions.append(label)
            act(page, output, use)
            check(page, output, use, label)
        use.actions_s = time.monotonic() - started - use.run_all_s
    except PlaywrightError as error:  # one notebook's failure is its own test's, said in full, not the module's
        use.problems.append(f"{stage(use)}: {error}")
    finally:
        close_notebook(page)
    return use


def stage(use: Use) -> str:
    """Where ``use`` is: the action under way (the last one begun), else the Run All or the opening before it."""
    return use.actions[-1] if use.actions else "Run All" if use.running else "opening"


def click_report(uses: list[Use]) -> str:
    """The click-to-figure times of each notebook (clicks and edits): count, median and slowest (goal: 200 ms), each
    in the order of the actions; the seconds its Run All and its actions took."""
    lines = []
    for use in uses:
        lines.append(f"{use.notebook}: Run All {use.run_all_s:.1f} s, {len(use.actions)} actions {use.actions_s:.1f} s")
        if use.restore_races:
            lines.append(f"{use.notebook}: jupyterlab_widgets' restore race on opening, {use.restore_races} time(s)")
        if use.click_ms:
            median, slowest = statistics.median(use.click_ms), max(use.click_ms)
            lines.append(
                f"{use.notebook}: {len(use.click_ms)} clicks and edits, median {median:.0f} ms, max {slowest:.0f} ms"
            )
            lines.append(f"{use.notebook}: in order (ms): {', '.join(f'{ms:.0f}' for ms in use.click_ms)}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def widget_uses(chromium: Browser, jupyter_lab: LabServer) -> Iterator[dict[tuple[str, str], Use]]:
    shutil.rmtree(SHOTS, ignore_errors=True)
    shutil.rmtree(ON_OPEN_SHOTS, ignore_errors=True)
    uses: dict[tuple[str, str], Use] = {}
    for load in LOADS:
        notebooks = list(SEQUENCES) if load == "quiet" else UNDER_LOAD
        trust(copy_notebooks(jupyter_lab, notebooks))  # each load starts from the repository's notebooks
        with cpu_load() if load == "busy" else contextlib.nullcontext():
            for notebook in notebooks:
                uses[load, notebook] = use_widget(chromium, jupyter_lab, notebook, load)
        (SHOTS / load).mkdir(parents=True, exist_ok=True)
        report = click_report([use for (where, _), use in uses.items() if where == load])
        (SHOTS / load / "click-to-figure.txt").write_text(report, encoding="utf-8")
    yield uses


@pytest.mark.parametrize(
    ("notebook", "load"),
    [(notebook, "quiet") for notebook in SEQUENCES] + [(notebook, "busy") for notebook in UNDER_LOAD],
)
def test_every_panel_shows_what_the_widget_holds_after_every_action(
    widget_uses: dict[tuple[str, str], Use], notebook: str, load: str
) -> None:
    use = widget_uses[load, notebook]
    assert use.actions == [label for label, _ in SEQUENCES[notebook]]
    assert use.problems == []


@pytest.mark.parametrize("notebook", list(SEQUENCES))
def test_widgets_show_from_their_saved_state_before_the_notebook_runs(
    widget_uses: dict[tuple[str, str], Use], notebook: str
) -> None:
    result = widget_uses["quiet", notebook].opened
    assert result is not None, widget_uses["quiet", notebook].problems
    assert result.stored_views, "the notebook stores no widget view: run tools/strip_notebook_figures.py --execute"
    assert BROKEN_WIDGET not in result.page_text
    shown = {i: cell["views"] for i, cell in enumerate(result.shown) if cell["views"]}
    assert shown == result.stored_views
    assert all(result.shown[i]["plots"] for i in result.stored_views), "every widget output draws its figures"
    assert [cell["disconnected_icons"] for cell in result.shown if cell["views"]] == [0] * len(result.stored_views)
    assert [line for line in result.console_errors if "widget" in line.lower() or "model" in line.lower()] == []


@pytest.mark.parametrize("notebook", list(SEQUENCES))
def test_the_saved_widgets_show_what_the_notebooks_code_produces(
    widget_uses: dict[tuple[str, str], Use], notebook: str
) -> None:
    """Issue #39: a saved stepper showed a status its code no longer produced. Run All leaves every widget where
    the saved run left it, so the texts shown before and after must be the same."""
    result = widget_uses["quiet", notebook].opened
    assert result is not None, widget_uses["quiet", notebook].problems
    assert result.texts_saved and result.texts_run == result.texts_saved


@contextlib.contextmanager
def ran(chromium: Browser, server: LabServer, notebook: str, *, refused: str | None = None) -> Iterator[Page]:
    """A page of ``notebook`` (a trusted copy) after its Run All, the requests to ``refused`` refused; closed after."""
    trust(copy_notebooks(server, [notebook]))
    page = chromium.new_context(viewport=VIEWPORT).new_page()
    if refused is not None:
        page.route(refused, lambda route: route.abort())
    try:
        open_copied(page, server, f"notebooks/{notebook}.ipynb")
        start_run_all(page)
        page.wait_for_function("() => window.__runAll != null", timeout=RUN_ALL_TIMEOUT_MS)
        assert run_all_outcome(page) == {"ok": True}
        yield page
    finally:
        close_notebook(page)


def test_without_jupyterlabs_plotly_extension_a_figure_says_what_it_would_draw(
    chromium: Browser, jupyter_lab: LabServer
) -> None:
    """A front end without JupyterLab's plotly extension (its files refused here) cannot draw a LivePlot: the
    element then shows the figure's title and subtitle and says it is not drawn, never an empty box."""
    with ran(chromium, jupyter_lab, "01-how-compaction-works", refused="**/extensions/jupyterlab-plotly/**") as page:
        output = widget_output(page)
        output.get_by_role("button", name=NEXT, exact=True).click()
        expected = python_state(page)["layout_title"]
        note = output.locator(".kcompact-live-plot-note").first
        page.wait_for_function(
            "([note, title]) => note.textContent.startsWith(title + ' · ')",
            arg=[note.element_handle(), expected],
            timeout=UI_TIMEOUT_MS,
        )
        assert note.inner_text().endswith("(not drawn: this front end has no plotly renderer)")
        assert output.locator(".js-plotly-plot").count() == 0


# The elements of the figures drawn ahead, out of sight (live_plot.js), marked (and only they), so that a later check
# can find them; how many there are.
MARK_DRAWN_AHEAD_JS = """
() => {
  document.querySelectorAll('[data-drawn-ahead]').forEach((plot) => { delete plot.dataset.drawnAhead; });
  const drawn = Array.from(document.querySelectorAll('#kcompact-live-plot-offstage > .js-plotly-plot'))
    .filter((plot) => plot.querySelector('.main-svg .trace'));
  drawn.forEach((plot) => { plot.dataset.drawnAhead = 'yes'; });
  return drawn.length;
}
"""


def test_a_click_shows_the_figures_drawn_ahead_by_moving_them_in(chromium: Browser, jupyter_lab: LabServer) -> None:
    """Issue #39: a stepper sends the figures of the steps around the one shown ahead; the page draws them out of sight
    and a Next click shows its partition and offset map by moving those elements in (no plotly draw), showing what
    the widget holds."""
    with ran(chromium, jupyter_lab, "04-offset-map-and-cleaner-memory") as page:
        output = widget_output(page)
        next_button = output.get_by_role("button", name=NEXT, exact=True)
        for step in range(2):  # the first pass (the offset map shown for the first time), then the second
            page.wait_for_function(f"() => ({MARK_DRAWN_AHEAD_JS})() >= 2", timeout=UI_TIMEOUT_MS)
            next_button.click()
            page.wait_for_function(
                "(output) => Array.from(output.querySelectorAll('.js-plotly-plot'))"
                ".filter((p) => p.offsetParent !== null && p.dataset.drawnAhead === 'yes').length === 2",
                arg=output.element_handle(),
                timeout=UI_TIMEOUT_MS,
            )
            expected, shown = synced(page, output)
            assert shown == expected, f"step {step + 1}"


def test_an_edit_shows_a_figure_drawn_lately_by_moving_it_in(chromium: Browser, jupyter_lab: LabServer) -> None:
    """Issue #41: the page keeps the figures it drew out of sight a while after the steps they were sent for
    (``KEPT_DRAWN`` in live_plot.js): at the end of 04's stepper, ``min.cleanable.dirty.ratio`` 0.5 stops the log
    after its third pass, and the offset map it shows, that pass's, drawn for the steps around the third, is moved
    in (no plotly draw) where the page had let it go and drew it again, showing what the widget holds."""
    with ran(chromium, jupyter_lab, "04-offset-map-and-cleaner-memory") as page:
        output = widget_output(page)
        for _ in range(6):  # to the end, as the reader of STEPPER_04 goes (the figures around each step drawn ahead)
            page.wait_for_function(f"() => ({MARK_DRAWN_AHEAD_JS})() >= 2", timeout=UI_TIMEOUT_MS)
            output.get_by_role("button", name=NEXT, exact=True).click()
            expected, shown = synced(page, output)
            assert shown == expected
        page.wait_for_timeout(1000)
        page.evaluate(MARK_DRAWN_AHEAD_JS)
        field_ = output.get_by_role("spinbutton", name="min.cleanable.dirty.ratio", exact=True)
        field_.fill("0.5")
        field_.press("Enter")
        expected, shown = synced(page, output)
        assert shown == expected
        moved_in = output.evaluate(
            "(output) => Array.from(output.querySelectorAll('.js-plotly-plot'))"
            ".filter((p) => p.offsetParent !== null && p.dataset.drawnAhead === 'yes')"
            ".map((p) => p._fullLayout.title.text)"
        )
        assert moved_in == [expected["map_title"]]


def test_a_what_if_side_an_edit_did_not_change_keeps_the_data_it_drew_when_the_scale_changes(
    chromium: Browser, jupyter_lab: LabServer
) -> None:
    """Issue #41: an edit on one side of 02's explorer that changes the scale both sides share (the right side's
    max.compaction.lag.ms 2 d raises the superseded records' range) redraws the left side on the new scale with its
    data as drawn: the page relayouts the paths of its layout that changed (``Plotly.relayout``), where
    ``Plotly.react`` with the figure as sent would re-plot it whole from new arrays."""
    with ran(chromium, jupyter_lab, "02-why-is-my-partition-not-clean") as page:
        wait_until_rendered(page)
        output = widget_output(page)
        left = output.locator(".js-plotly-plot").first
        before = left.evaluate(
            "(plot) => { window.__drawn = plot.data.map((trace) => [trace.x, trace.y]);"
            " return plot._fullLayout.yaxis2.range.slice(); }"
        )
        field = output.get_by_role("textbox", name="max.compaction.lag.ms", exact=True).nth(1)
        field.fill("2d")
        field.press("Enter")
        page.wait_for_function(
            "([plot, range]) => plot._fullLayout.yaxis2.range[1] > range[1]",
            arg=[left.element_handle(), before],
            timeout=UI_TIMEOUT_MS,
        )
        kept = left.evaluate(
            "(plot) => plot.data.length === window.__drawn.length"
            " && plot.data.every((trace, i) => trace.x === window.__drawn[i][0] && trace.y === window.__drawn[i][1])"
        )
        assert kept
