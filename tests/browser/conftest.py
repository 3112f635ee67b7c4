"""Fixtures for the browser tests: one headless chromium and one JupyterLab server per session."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pytest

from .lab import CHROMIUM_ARGS, ROOT, LabServer, running_lab

if TYPE_CHECKING:
    from playwright.sync_api import Browser


ARTIFACTS = ROOT / "test-artifacts" / "browser"
BUSY_PROCESSES = 3 * (os.cpu_count() or 1)
"""Busy processes beside the browser and the kernels for a test "under CPU load" (issue #39 saw figures blank
at a load of 13-34 on 2 cores, with a Spark job or a build beside the notebook)."""


@contextmanager
def cpu_load(processes: int = BUSY_PROCESSES) -> Iterator[None]:
    """Keep ``processes`` busy loops running (each a Python process spinning) while the block runs."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]
    try:
        yield
    finally:
        for process in busy:
            process.kill()
            process.wait()


def chromium_or_skip() -> str:
    """Debian's chromium for Playwright, or skip: Playwright's own browser builds are never downloaded."""
    if importlib.util.find_spec("playwright") is None:
        pytest.skip("browser tests need Playwright for Python (pip install playwright; no `playwright install`)")
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("browser tests need Debian's chromium on PATH (apt-get install chromium)")
    return chromium


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    """Headless chromium, shared by the session."""
    executable = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True, args=list(CHROMIUM_ARGS))
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def jupyter_lab(chromium: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """A JupyterLab server on 127.0.0.1 (started only when the browser is there), stopped with its kernels."""
    with running_lab(tmp_path_factory.mktemp("jupyterlab")) as server:
        yield server
