"""Per-cell data handed to plotly as numpy arrays: plotly copies an array whole, where it validates (and, when a
figure is copied or synced, deep-copies) a list item by item, which costs a stepper step tenths of a second at
10,000 cells."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy


def numbers(values: Iterable[float]) -> Any:
    """``values`` (offsets, widths) as a numpy array."""
    return numpy.array(list(values))


def strings(values: Sequence[str]) -> Any:
    """``values`` (texts, hover texts) as a numpy array of strings."""
    return numpy.array(values, dtype=str)


def lane(count: int) -> dict[str, Any]:
    """``y`` and ``base`` of ``count`` cells filling a lane from 0 to 1 (``base`` as plotly's validation leaves it:
    objects, written to JSON as a list)."""
    return {"y": numpy.ones(count, numpy.int64), "base": numpy.zeros(count, object)}
