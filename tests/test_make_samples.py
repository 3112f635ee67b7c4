"""``tools/make_samples.py`` never rewrites the bundled samples unless told to (issue #31)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_make_samples_needs_an_output_folder_and_touches_nothing_without_one():
    samples = ROOT / "data" / "samples" / "kafka"
    before = {p: p.stat().st_mtime_ns for p in samples.rglob("*")}
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "make_samples.py")], capture_output=True, text=True)
    assert done.returncode == 2
    assert "the following arguments are required: --out" in done.stderr
    assert {p: p.stat().st_mtime_ns for p in samples.rglob("*")} == before
