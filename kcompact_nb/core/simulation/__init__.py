"""A simulated broker over time: the clock, a ``Simulation`` of one broker, and frames.

Frames are copies of one partition after each step (append, roll, time, pass) for steppers and what-if
plots. Imports :mod:`kcompact_nb.core.model` and :mod:`kcompact_nb.core.cleaner`.
"""

from __future__ import annotations

from kcompact_nb.core.simulation._clock import SimulatedClock
from kcompact_nb.core.simulation._frames import Frame, Timeline, pass_frames
from kcompact_nb.core.simulation._future import (
    Future,
    RecordFate,
    first_overdue_ms,
    next_eligible_ms,
    overdue_at_ms,
    run_forward,
)
from kcompact_nb.core.simulation._simulation import Simulation, Snapshot

__all__ = [
    "Frame",
    "first_overdue_ms",
    "Future",
    "next_eligible_ms",
    "overdue_at_ms",
    "pass_frames",
    "RecordFate",
    "run_forward",
    "SimulatedClock",
    "Simulation",
    "Snapshot",
    "Timeline",
]
