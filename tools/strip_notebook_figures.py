"""Keep committed notebooks small: drop the outputs nbval does not compare, keep the ones it does.

Usage: ``python tools/strip_notebook_figures.py [--execute] NOTEBOOK...``

- Code cells marked ``# NBVAL_IGNORE_OUTPUT`` / ``# NBVAL_SKIP`` (or tagged ``nbval-ignore-output`` /
  ``nbval-skip``) lose their outputs: figures and widgets, whose payloads are large and never compared.
- The notebook-level ``widgets`` state (every widget model, FigureWidget data included) is removed.
- Per-cell ``execution`` timestamps are removed, so re-running a notebook changes only what changed.

``--execute`` first runs each notebook in place with ``jupyter nbconvert --execute`` (kernel ``python3``,
the repository root on ``PYTHONPATH``) and prints how long it took. Outputs of other cells (tables,
counts, explanations) are kept: they are what nbval checks.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
IGNORE_MARKERS = ("NBVAL_IGNORE_OUTPUT", "NBVAL_SKIP")
IGNORE_TAGS = ("nbval-ignore-output", "nbval-skip")


def output_ignored(cell: dict[str, Any]) -> bool:
    """True when nbval does not compare this code cell's outputs (comment marker or tag)."""
    source = "".join(cell.get("source", ""))
    tags = cell.get("metadata", {}).get("tags", [])
    return any(m in source for m in IGNORE_MARKERS) or any(t in tags for t in IGNORE_TAGS)


def strip(notebook: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``notebook`` without figure/widget outputs, widget state and execution timestamps."""
    stripped = json.loads(json.dumps(notebook))
    stripped.get("metadata", {}).pop("widgets", None)
    for cell in stripped["cells"]:
        cell.get("metadata", {}).pop("execution", None)
        if cell["cell_type"] == "code" and output_ignored(cell):
            cell["outputs"] = []
    return stripped


def strip_file(path: Path) -> bool:
    """Strip ``path`` in place (nbformat's JSON layout); True when it changed."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    stripped = strip(notebook)
    if stripped == notebook:
        return False
    path.write_text(json.dumps(stripped, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return True


def execute(path: Path) -> float:
    """Run ``path`` top to bottom in place; returns the seconds it took."""
    # the project's kernel spec (tools/jupyter: capture_fd_output=False) keeps JVM lines out of outputs, as under nbval
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "JUPYTER_PATH": os.pathsep.join(
            filter(None, [str(ROOT / "tools" / "jupyter"), os.environ.get("JUPYTER_PATH")])
        ),
    }
    command = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--inplace"]
    command += ["--ExecutePreprocessor.kernel_name=python3", str(path)]
    started = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{path}: execution failed\n{done.stderr[-3000:]}")
    return time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--execute", action="store_true", help="run each notebook in place first")
    args = parser.parse_args(argv)
    for path in args.notebooks:
        took = f", executed in {execute(path):.1f} s" if args.execute else ""
        changed = strip_file(path)
        print(f"{path}: {'stripped' if changed else 'already stripped'}{took}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
