"""A topic's record rate over time and its integral: the expected records before a time, and the time of a count.

The rate is ``records_per_second`` times a daily cosine (``DailyCycle``, at the epoch time the forecast starts
from) times every burst active at that moment. Its integral is exact: the cosine's in closed form, the bursts
piecewise. Inverting it (the time by which an expected count is reached) bisects to within a millisecond.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy

from kcompact_nb.core.forecasting._produce_model import DAY_MS, TopicLoad

_GRID_POINTS = 200_000
_NEWTON_STEPS = 3


@dataclass(frozen=True)
class RateCurve:
    """Expected records of one topic from ``start_ms`` (epoch ms: where the daily cycle stands) over ``horizon_ms``."""

    load: TopicLoad
    start_ms: int
    horizon_ms: int
    breaks: numpy.ndarray
    """Times (ms from the start) where the burst factor changes, 0 and the horizon included."""
    factors: numpy.ndarray
    """The burst factor on ``[breaks[i], breaks[i + 1])``."""
    counts_at_breaks: numpy.ndarray
    """Expected records before each of ``breaks``."""

    @classmethod
    def of(cls, load: TopicLoad, *, start_ms: int, horizon_ms: int) -> RateCurve:
        """The curve of ``load`` from epoch ``start_ms`` over ``horizon_ms``."""
        breaks, factors = _burst_pieces(load, horizon_ms)
        curve = cls(load, start_ms, horizon_ms, breaks, factors, numpy.zeros(len(breaks)))
        base = curve._base_cumulative(breaks)
        pieces = numpy.diff(base) * factors
        counts = numpy.concatenate(([0.0], numpy.cumsum(pieces)))
        return cls(load, start_ms, horizon_ms, breaks, factors, counts)

    def expected(self, t_ms: numpy.ndarray | float) -> numpy.ndarray:
        """Expected records from the start until ``t_ms`` (ms from the start, within the horizon)."""
        t = numpy.clip(numpy.asarray(t_ms, dtype=float), 0, self.horizon_ms)
        piece = numpy.clip(numpy.searchsorted(self.breaks, t, side="right") - 1, 0, len(self.factors) - 1)
        base = self._base_cumulative(t) - self._base_cumulative(self.breaks[piece])
        return numpy.asarray(self.counts_at_breaks[piece] + self.factors[piece] * base)

    def time_of(self, counts: numpy.ndarray) -> numpy.ndarray:
        """The times (ms from the start, floats) by which ``counts`` records are expected (the inverse of
        :meth:`expected`); counts beyond the horizon's give the horizon. Interpolated on a grid (every burst edge
        on it), then refined by Newton steps kept inside the grid cell, to well within a millisecond."""
        counts = numpy.asarray(counts, dtype=float)
        grid, at_grid = self._grid
        cell = numpy.clip(numpy.searchsorted(at_grid, counts, side="left") - 1, 0, len(grid) - 2)
        low, high = grid[cell], grid[cell + 1]
        span = numpy.maximum(at_grid[cell + 1] - at_grid[cell], 1e-300)
        times = low + (counts - at_grid[cell]) / span * (high - low)
        for _ in range(_NEWTON_STEPS):
            rate = self.rate_per_second(times) / 1000
            step = numpy.where(rate > 0, (self.expected(times) - counts) / numpy.maximum(rate, 1e-300), 0.0)
            times = numpy.clip(times - step, low, high)
        return numpy.asarray(numpy.clip(times, 0.0, float(self.horizon_ms)))

    @cached_property
    def _grid(self) -> tuple[numpy.ndarray, numpy.ndarray]:
        """Times (every grid step and every burst edge) and the expected records before each."""
        step = max(1.0, self.horizon_ms / _GRID_POINTS)
        grid = numpy.unique(numpy.concatenate((numpy.arange(0.0, self.horizon_ms, step), self.breaks)))
        return grid, self.expected(grid)

    def rate_per_second(self, t_ms: numpy.ndarray) -> numpy.ndarray:
        """The rate at ``t_ms`` (records per second)."""
        t = numpy.asarray(t_ms, dtype=float)
        piece = numpy.clip(numpy.searchsorted(self.breaks, t, side="right") - 1, 0, len(self.factors) - 1)
        return numpy.asarray(self.load.records_per_second * self._cycle(t) * self.factors[piece])

    def _cycle(self, t: numpy.ndarray) -> numpy.ndarray:
        cycle = self.load.daily_cycle
        if cycle is None:
            return numpy.ones_like(t)
        return numpy.asarray(1 + cycle.amplitude * numpy.cos(self._phase(t)))

    def _phase(self, t: numpy.ndarray) -> numpy.ndarray:
        cycle = self.load.daily_cycle
        peak_ms = 0.0 if cycle is None else cycle.peak_hour_utc * 3_600_000
        return 2 * math.pi * ((self.start_ms + t - peak_ms) % DAY_MS) / DAY_MS

    def _base_cumulative(self, t: numpy.ndarray) -> numpy.ndarray:
        """The integral of the rate without bursts from the start until ``t`` (records)."""
        per_ms = self.load.records_per_second / 1000
        t = numpy.asarray(t, dtype=float)
        cycle = self.load.daily_cycle
        if cycle is None:
            return per_ms * t
        swing = cycle.amplitude * DAY_MS / (2 * math.pi)
        start = math.sin(float(self._phase(numpy.zeros(1))[0]))
        return numpy.asarray(per_ms * (t + swing * (numpy.sin(self._phase(t)) - start)))


def _burst_pieces(load: TopicLoad, horizon_ms: int) -> tuple[numpy.ndarray, numpy.ndarray]:
    """Breakpoints (0 and the horizon included) and the product of the bursts' factors between them."""
    intervals = []
    for burst in load.bursts:
        start = burst.start_ms
        while start < horizon_ms:
            intervals.append((start, min(start + burst.duration_ms, horizon_ms), burst.factor))
            if burst.every_ms is None:
                break
            start += burst.every_ms
    breaks = numpy.unique(numpy.array([0, horizon_ms, *(p for a, b, _ in intervals for p in (a, b))], dtype=float))
    factors = numpy.ones(len(breaks) - 1)
    for start, end, factor in intervals:
        inside = (breaks[:-1] >= start) & (breaks[:-1] < end)
        factors[inside] *= factor
    return breaks, factors
