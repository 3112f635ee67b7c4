"""Helpers for scenario tests."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples" / "scenarios"


def without_dirtiness(states: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``{partition: state}`` without the ``dirtiness`` keys."""
    stripped = copy.deepcopy(states)
    for state in stripped.values():
        state.pop("dirtiness")
    return stripped


def scenario(*steps: dict[str, Any], topics: dict[str, Any] | None = None, **top: Any) -> dict[str, Any]:
    """A scenario document with one compacted topic ``t`` unless ``topics`` is given."""
    return {
        "format": "kcompact-scenario/1",
        "topics": {"t": {}} if topics is None else topics,
        "steps": list(steps),
        **top,
    }
