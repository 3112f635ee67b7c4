"""Fixtures for the browser tests: one headless chromium and one JupyterLab server per session."""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from .lab import CHROMIUM_ARGS, ROOT, LabServer, running_lab

if TYPE_CHECKING:
    from playwright.sync_api import Browser


ARTIFACTS = ROOT / "test-artifacts" / "browser"


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
