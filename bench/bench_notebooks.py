"""``python -m bench notebooks [SUBSTRING ...]``: each notebook's Run All, timed as a reader's kernel runs it.

Issue #39's goal: within a minute on a quiet 2-core machine.

Every notebook (or those whose names contain a SUBSTRING) runs top to bottom in a fresh kernel of the project's
``python3`` spec, one at a time, as JupyterLab's Restart Kernel and Run All does; the time is from the first cell
sent to the last cell done (the kernel's start is shown apart). The machine and its load average (before and
after each notebook) are printed with the table: Run All times are comparable only on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass
from pathlib import Path

from bench._machine import describe

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
KERNEL_SPECS = ROOT / "tools" / "jupyter"
GOAL_S = 60.0
"""Issue #39: every notebook's Run All within a minute on a quiet 2-core machine."""


@dataclass(frozen=True)
class RunAll:
    """One notebook's Run All: kernel start and cells, in seconds, and the 1-minute load average around it."""

    notebook: str
    start_s: float
    cells_s: float
    load_before: float
    load_after: float
    error: str = ""
    slowest: tuple[tuple[int, float], ...] = ()
    """The three slowest cells: (cell index, seconds)."""


def run_all(path: Path, *, timeout_s: float = 1800.0) -> RunAll:
    """Run ``path`` in a fresh kernel from the notebook's own folder; its outputs are not written back."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(KERNEL_SPECS), os.environ.get("JUPYTER_PATH")]))
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook, timeout=int(timeout_s), kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    error = ""
    with client.setup_kernel():
        ready = time.perf_counter()
        cells: list[tuple[int, float]] = []
        try:
            for index, cell in enumerate(notebook.cells):
                before = time.perf_counter()
                client.execute_cell(cell, index)
                cells.append((index, time.perf_counter() - before))
        except CellExecutionError as failed:
            error = f"cell {index}: {failed.ename}: {failed.evalue}"
    done = time.perf_counter()
    slowest = tuple(sorted(cells, key=lambda cell: -cell[1])[:3])
    return RunAll(path.stem, ready - started, done - ready, load_before, os.getloadavg()[0], error, slowest)


def format_runs(runs: list[RunAll]) -> str:
    """A table of the runs: seconds of cells against the goal, kernel start apart, load average around each."""
    heads = ("notebook", "Run All s", "kernel start s", "load before-after", "slowest cells (s)")
    rows = [(*heads, f"within {GOAL_S:.0f} s")]
    for run in runs:
        within = f"failed ({run.error})" if run.error else "yes" if run.cells_s <= GOAL_S else "no"
        load = f"{run.load_before:.1f}-{run.load_after:.1f}"
        slowest = ", ".join(f"{index}: {seconds:.1f}" for index, seconds in run.slowest)
        rows.append((run.notebook, f"{run.cells_s:.1f}", f"{run.start_s:.1f}", load, slowest, within))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [" | ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "-|-".join("-" * width for width in widths))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench notebooks", description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="run only the notebooks whose names contain one of these")
    args = parser.parse_args(argv)
    paths = [p for p in sorted(NOTEBOOKS.glob("*.ipynb")) if not args.names or any(n in p.stem for n in args.names)]
    print(f"machine: {describe()}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
    runs = []
    for path in paths:
        runs.append(run_all(path))
        print(f"{runs[-1].notebook}: {runs[-1].cells_s:.1f} s", flush=True)
    print(format_runs(runs))
    return 0
