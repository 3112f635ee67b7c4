"""A throwaway JupyterLab server and the Playwright steps that drive a notebook in it."""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

ROOT = Path(__file__).resolve().parents[2]

#: Debian's chromium under Playwright: no sandbox as root, and nothing that reaches for the network.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)

RESTORE_RACE = "Error: widget model not found"
"""What jupyterlab_widgets' renderer logs (``renderModel``) when a saved widget view asks for its model after the
manager says it is restored but before the notebook's saved state is registered. Opening a notebook can start two
restores (jupyterlab_widgets 3.0, ``WidgetManager.restoreWidgets``): the notebook's own and, when the kernel
connection turns "connected" before that one has begun, a kernel-only one, which can finish while the notebook's
waits for its ``comm_info`` reply. A view that first asked before either restore finished is drawn again when the
notebook's restore does. Rare, timing-bound (a busy machine) and not the project's to fix: the tests check what it
could cost a reader, an output left showing "Error displaying widget", on the page."""

START_TIMEOUT_S = 120.0
RUN_ALL_TIMEOUT_MS = 600_000
UI_TIMEOUT_MS = 90_000


def make_lab_flags(makefile: Path = ROOT / "Makefile") -> list[str]:
    """The Lab flags ``make lab`` passes (its ``LAB_FLAGS``, the project's Lab settings), ``$(CURDIR)`` resolved."""
    lines = makefile.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("LAB_FLAGS :="))
    text = lines[start].split(":=", 1)[1]
    for line in lines[start + 1 :]:
        if not text.endswith("\\"):
            break
        text = text[:-1] + " " + line
    return text.replace("$(CURDIR)", str(ROOT)).split()


@dataclass(frozen=True)
class LabServer:
    """A running JupyterLab: its base URL, token and root directory."""

    url: str
    token: str
    root_dir: Path

    def notebook_url(self, name: str) -> str:
        """The notebook at ``name`` in a workspace of its own: Lab restores no other notebook into its page."""
        workspace = quote(Path(name).stem, safe="")
        return f"{self.url}/lab/workspaces/{workspace}/tree/{quote(name)}?token={self.token}"

    def api(self, path: str, method: str = "GET") -> bytes:
        request = urllib.request.Request(
            f"{self.url}/api/{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body: bytes = response.read()
            return body


def copy_notebooks(server: LabServer, names: Iterable[str]) -> list[Path]:
    """The notebooks ``names`` and the samples they read into the server's root, at the same relative paths as
    in the repository; returns the copies."""
    shutil.copytree(ROOT / "data" / "samples", server.root_dir / "data" / "samples", dirs_exist_ok=True)
    (server.root_dir / "notebooks").mkdir(exist_ok=True)
    return [Path(shutil.copy(ROOT / "notebooks" / f"{name}.ipynb", server.root_dir / "notebooks")) for name in names]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _lab_command(root_dir: Path, port: int, token: str) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--ServerApp.open_browser=False",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root_dir}",
        # window.jupyterapp lets the test run Lab's own commands and read the kernel's status.
        "--LabApp.expose_app_in_browser=True",
        *make_lab_flags(),
    ]
    if os.getuid() == 0:
        command.append("--allow-root")
    return command


def _lab_env(work_dir: Path) -> dict[str, str]:
    """The environment of a user's JupyterLab, isolated from this machine's Jupyter config and state (a user
    without settings of their own: Lab's defaults and the project's overrides, as ``make lab`` gives them).

    JUPYTER_PATH (set by the root conftest) keeps the project's kernel spec first. PYTHONPATH makes kernels
    import this checkout's package. PYTEST_CURRENT_TEST is dropped: under it ipykernel stops capturing file
    descriptors, which would hide what the kernel spec is there to control.
    """
    env = {name: value for name, value in os.environ.items() if name != "PYTEST_CURRENT_TEST"}
    env["PATH"] = os.pathsep.join([sysconfig.get_path("scripts"), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    for variable, name in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("JUPYTERLAB_SETTINGS_DIR", "settings"),
        ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
    ]:
        env[variable] = str(work_dir / name)
    return env


def _wait_until_up(server: LabServer, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with {process.returncode}:\n{_tail(log)}")
        try:
            server.api("status")
            return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.25)
    raise TimeoutError(f"jupyter lab did not answer within {START_TIMEOUT_S:.0f} s:\n{_tail(log)}")


def _stop(server: LabServer, process: subprocess.Popen[bytes]) -> None:
    """Shut the server down through its API (which shuts its kernels down), then make sure it is gone."""
    try:
        server.api("shutdown", method="POST")
        process.wait(timeout=60)
    except (urllib.error.URLError, ConnectionError, subprocess.TimeoutExpired):
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _tail(log: Path, lines: int = 40) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


@contextmanager
def running_lab(work_dir: Path) -> Iterator[LabServer]:
    """Start ``jupyter lab`` on 127.0.0.1 with a fresh port, token and root directory under ``work_dir``."""
    root_dir = work_dir / "root"
    root_dir.mkdir(parents=True)
    port, token = _free_port(), secrets.token_hex(16)
    server = LabServer(f"http://127.0.0.1:{port}", token, root_dir)
    log = work_dir / "jupyterlab.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            _lab_command(root_dir, port, token), env=_lab_env(work_dir), stdout=sink, stderr=subprocess.STDOUT
        )
        try:
            _wait_until_up(server, process, log)
            yield server
        finally:
            _stop(server, process)


# The figure's data as plotly holds it (typed arrays made plain) and what it drew: trace marks and texts
# (when an autoscaled axis rescales, bars can keep their paths while the tick labels change).
FIGURE_STATE_JS = """
(plot) => ({
  data: JSON.stringify(plot.data ?? null, (key, value) => ArrayBuffer.isView(value) ? Array.from(value) : value),
  drawn: [
    ...Array.from(plot.querySelectorAll('.trace path, .trace image'),
                  (mark) => ['d', 'href', 'transform', 'style'].map((name) => mark.getAttribute(name)).join('|')),
    ...Array.from(plot.querySelectorAll('text'), (text) => text.textContent),
  ].join('\\n'),
})
"""


@dataclass(frozen=True)
class FigureState:
    """What a rendered plotly figure shows: its trace data and the SVG marks and texts drawn from it."""

    data: str
    drawn: str


def is_restore_race(text: str) -> bool:
    """Whether the console error ``text`` is jupyterlab_widgets' :data:`RESTORE_RACE` of a saved view on opening."""
    return text.startswith(RESTORE_RACE) and "renderModel" in text


def open_copied(page: Page, server: LabServer, name: str) -> None:
    """Open the notebook at ``name`` (a path in the server's root) and wait until its kernel is idle.

    Lab's page can take longer than Playwright's default 30 s to load on a slow or busy machine: the load and the
    notebook's kernel share one budget, :data:`UI_TIMEOUT_MS` each.
    """
    page.goto(server.notebook_url(name), wait_until="commit", timeout=UI_TIMEOUT_MS)
    page.wait_for_function(
        """(path) => {
             const panel = window.jupyterapp?.shell.currentWidget;
             return panel?.context?.path === path && panel.sessionContext.session?.kernel?.status === 'idle';
           }""",
        arg=name,
        timeout=UI_TIMEOUT_MS,
    )


def close_notebook(page: Page) -> None:
    """Shut the notebook's kernel down (if the page got as far as starting one) and close the page's context.

    Never raises: it runs in ``finally`` blocks, where an error would hide the one that got there.
    """
    from playwright.sync_api import Error as PlaywrightError  # imported here: without Playwright the test skips

    with suppress(PlaywrightError):
        page.evaluate("() => window.jupyterapp?.shell.currentWidget?.sessionContext?.shutdown()")
    with suppress(PlaywrightError):
        page.context.close()


def start_run_all(page: Page) -> None:
    """Start Lab's own "Run All Cells" command; :func:`run_all_outcome` tells when it is done."""
    # Not awaited here: page.evaluate has no timeout, wait_for_function has.
    page.evaluate(
        """() => {
             window.__runAll = undefined;
             window.jupyterapp.commands.execute('notebook:run-all-cells').then(
               (ok) => { window.__runAll = {ok}; },
               (error) => { window.__runAll = {ok: false, error: String(error)}; },
             );
           }"""
    )


def run_all_outcome(page: Page) -> dict[str, Any] | None:
    """``{"ok": ...}`` once the Run All started by :func:`start_run_all` has finished, else None."""
    outcome: dict[str, Any] | None = page.evaluate("() => window.__runAll ?? null")
    return outcome


def rendered_figure(page: Page, selector: str) -> Locator:
    """The one plotly figure matching ``selector``, once plotly has drawn its traces."""
    figure = page.locator(selector)
    figure.scroll_into_view_if_needed(timeout=UI_TIMEOUT_MS)
    page.wait_for_function(
        "(plot) => plot._fullData?.length > 0 && plot.querySelector('.trace') !== null",
        arg=figure.element_handle(),
        timeout=UI_TIMEOUT_MS,
    )
    return figure


def figure_state(figure: Locator) -> FigureState:
    state: dict[str, str] = figure.evaluate(FIGURE_STATE_JS)
    return FigureState(**state)


def click_and_wait_for_redraw(page: Page, button_text: str, figure: Locator) -> tuple[FigureState, FigureState]:
    """Click the button labelled ``button_text``; return the figure's state before and after it redrew (a widget's
    figure is drawn anew at each step: ``figure`` is looked up again until it shows something else)."""
    from playwright.sync_api import Error as PlaywrightError  # imported here: without Playwright the test skips

    before = figure_state(figure)
    page.get_by_role("button", name=button_text, exact=True).click()
    deadline = time.monotonic() + UI_TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        page.wait_for_timeout(100)
        try:
            after = figure_state(figure)
        except PlaywrightError:  # between the old plot's removal and the new one's drawing
            continue
        if after.data != before.data and after.drawn != before.drawn and after.drawn:
            return before, after
    raise TimeoutError(f"the figure did not redraw within {UI_TIMEOUT_MS // 1000} s of clicking {button_text!r}")
