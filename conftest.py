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


# `make test` runs pytest on two workers (pytest-xdist). A worker takes a whole group at a time: the tests that
# start a JupyterLab, a browser or Spark are one group, the real brokers' another, so that each session-wide server
# starts once (as in a run without workers); every other test file is a group of its own (its module fixtures set
# up once; a notebook's cells in order in one kernel). The biggest groups go first.
WORKER_GROUPS = {
    "lab-and-spark": ("tests/browser/", "tests/spark/"),
    "brokers": ("tests/broker/", "tests/test_wheel_install.py", "tests/test_bench_side_by_side.py"),
}


def worker_group(nodeid: str) -> str:
    """The group of the test ``nodeid``: one of :data:`WORKER_GROUPS`, else its file."""
    where = nodeid.split("::", 1)[0]
    return next((name for name, places in WORKER_GROUPS.items() if where.startswith(places)), where)


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: without pytest-xdist, never called
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        """pytest-xdist's scheduling by scope (a scope runs on one worker, the largest first), scopes being
        :func:`worker_group`'s groups."""

        def _split_scope(self, nodeid: str) -> str:
            return worker_group(nodeid)

    return GroupScheduling(config, log)
