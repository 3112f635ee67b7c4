"""Every kernel this pytest run starts (nbval's, JupyterLab's) uses the project's ``python3`` kernel spec; the
tests that share a server run on one pytest-xdist worker."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# tools/jupyter/kernels/python3 shadows the stock spec: same kernel, but output written straight to file
# descriptors 1 and 2 (the JVM's, under Spark) stays in the terminal instead of landing in cell outputs.
JUPYTER_DATA = Path(__file__).resolve().parent / "tools" / "jupyter"
os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(JUPYTER_DATA), os.environ.get("JUPYTER_PATH")]))


# `make test` runs pytest on two workers (pytest-xdist, --dist loadgroup). A worker takes a whole group at a time:
# the tests that start a JupyterLab, a browser or Spark are one group, the real brokers' another, so that each
# session-wide server starts once (as in a run without workers); every other test file is a group of its own (its
# module fixtures set up once; a notebook's cells in order in one kernel).
WORKER_GROUPS = {
    "lab-and-spark": ("tests/browser/", "tests/spark/"),
    "brokers": ("tests/broker/", "tests/test_wheel_install.py", "tests/test_bench_side_by_side.py"),
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(__file__).resolve().parent
    for item in items:
        where = item.path.relative_to(root).as_posix()
        group = next((name for name, places in WORKER_GROUPS.items() if where.startswith(places)), where)
        item.add_marker(pytest.mark.xdist_group(group))
