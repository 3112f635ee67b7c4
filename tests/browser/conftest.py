"""Fixtures for the browser tests: one JupyterLab server per session, a fresh Chromium page per test."""

from __future__ import annotations

import importlib.util
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .lab import CHROMIUM_ARGS, ROOT, UI_TIMEOUT_MS, LabServer, running_lab

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


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


@pytest.fixture
def page(chromium: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh page; its final state is saved as test-artifacts/browser/<test>.png, pass or fail."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(UI_TIMEOUT_MS)
    try:
        yield page
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=ARTIFACTS / f"{_artifact_name(request.node.name)}.png")
        context.close()


def _artifact_name(test_name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", test_name).strip("-")
