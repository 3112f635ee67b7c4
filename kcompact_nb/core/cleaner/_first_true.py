"""The first time at which something the engine decides becomes true (not Kafka's: how the project looks ahead).

The cleaner's decisions that depend on the clock alone (a log becoming eligible, a segment ageing past
``min.compaction.lag.ms`` or ``retention.ms``, a dirty segment becoming overdue) only turn from false to true as time
passes while nothing is appended. So the first instant at which the engine makes one is found by asking the engine
itself at chosen instants (a binary search), never by working its rule out again.
"""

from __future__ import annotations

from collections.abc import Callable

FAR_FUTURE_MS = 2**62
"""Later than any instant a log can hold (Kafka's timestamps are below 2^63; the project's end before 2^62)."""


def first_true(holds: Callable[[int], bool], *, start: int, end: int = FAR_FUTURE_MS) -> int | None:
    """The first ``t`` in ``[start, end]`` with ``holds(t)``, for a ``holds`` that once true stays true as ``t`` grows
    (an instant in ms, or a count of back-off steps); ``None`` when it does not hold at ``end``."""
    if start > end or not holds(end):
        return None
    low, high = start, end  # holds(high); the answer is in [low, high]
    while low < high:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle + 1
    return low
