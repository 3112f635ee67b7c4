"""Helpers for scenario tests.

Partition states include ``dirtiness`` from the cleaner's ``log_to_clean``. Until the cleaner
modules are merged, the ``without_cleaner`` fixture stubs that one function so the rest of the
state document can be produced; tests of non-clean steps compare states without that key.
"""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples" / "scenarios"
HAVE_CLEANER = importlib.util.find_spec("kcompact_nb.core._log_to_clean") is not None


@pytest.fixture
def without_cleaner(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stub ``dirtiness`` when the cleaner is not there yet (real one once it is)."""
    if not HAVE_CLEANER:
        monkeypatch.setattr("kcompact_nb.scenario._state.dirtiness", lambda log, *, now_ms: {"stubbed": True})


def without_dirtiness(states: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``{partition: state}`` without the ``dirtiness`` keys."""
    stripped = copy.deepcopy(states)
    for state in stripped.values():
        state.pop("dirtiness")
    return stripped


def scenario(*steps: dict[str, Any], topics: dict[str, Any] | None = None, **top: Any) -> dict[str, Any]:
    """A scenario document with one compacted topic ``t`` unless ``topics`` is given."""
    return {"format": "kcompact-scenario/1", "topics": {"t": {}} if topics is None else topics, "steps": list(steps), **top}
