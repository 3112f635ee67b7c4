"""``python -m bench clicks``: a click or an edit to every figure it changed redrawn, in JupyterLab in a browser.

Issue #41's goal: within 200 ms on the notebooks' logs. The times are the browser test's own
(``tests/browser/test_widgets_in_lab.py``: the stepper of 01 and 04 and the what-if explorer of 02 used as a reader
would, in JupyterLab with ``make lab``'s settings in headless Chromium, on a quiet machine and then under CPU load),
read from what it writes to ``test-artifacts/browser/widgets/<load>/click-to-figure.txt``, and printed with the
machine and its load average before and after.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bench._machine import describe

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ROOT / "test-artifacts" / "browser" / "widgets"
TEST = "tests/browser/test_widgets_in_lab.py::test_every_panel_shows_what_the_widget_holds_after_every_action"


def main(argv: list[str]) -> int:
    if argv:
        print("python -m bench clicks takes no arguments", file=sys.stderr)
        return 2
    print(f"machine: {describe()}; load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    reports = [REPORTS / load / "click-to-figure.txt" for load in ("quiet", "busy")]
    for report in reports:
        report.unlink(missing_ok=True)  # an earlier run's report is not this one's
    command = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:randomly", TEST]
    test = subprocess.run(command, cwd=ROOT, check=False)
    measured = [report for report in reports if report.exists()]
    outcome = "FAILED" if test.returncode else "passed" if measured else "was skipped (its reason above): no times"
    print(f"load average {os.getloadavg()[0]:.1f} at the end; the browser test {outcome}")
    for report in measured:
        print(f"\n{report.parent.name}:\n{report.read_text(encoding='utf-8')}", end="")
    return test.returncode or (0 if measured else 1)
