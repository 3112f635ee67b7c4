"""A simulated broker over time: the clock, a ``Simulation`` of one broker, and frames.

Frames are copies of one partition after each step (append, roll, time, pass) for steppers and what-if
plots. Imports :mod:`kcompact_nb.core.model` and :mod:`kcompact_nb.core.cleaner`.
"""

from __future__ import annotations

from kcompact_nb.core.simulation._clock import SimulatedClock
from kcompact_nb.core.simulation._frames import Frame, Timeline, pass_frames
from kcompact_nb.core.simulation._simulation import Simulation, Snapshot

__all__ = ["Frame", "pass_frames", "SimulatedClock", "Simulation", "Snapshot", "Timeline"]
