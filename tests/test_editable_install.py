"""``pip install -e .`` (what ``make setup`` and the conda route run) installs quietly: no BuildBackendWarning."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_editable_install_prints_no_warning(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    install = subprocess.run(  # this environment's pip installs into the new one
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet", "--no-deps",
         "-e", str(ROOT)],
        capture_output=True, text=True,
    )  # fmt: skip
    if install.returncode != 0 and "No matching distribution found for setuptools" in install.stderr:
        pytest.skip("pip cannot fetch setuptools for the isolated build (no access to PyPI)")
    assert install.returncode == 0, install.stderr
    assert "Warning" not in install.stdout + install.stderr and "!!" not in install.stderr, install.stderr
    where = "import importlib.util; print(importlib.util.find_spec('kcompact_nb').origin)"  # dependencies not installed
    found = subprocess.run([str(venv / "bin" / "python"), "-c", where], capture_output=True, text=True, cwd=tmp_path)
    assert found.stdout.strip() == str(ROOT / "kcompact_nb" / "__init__.py")
