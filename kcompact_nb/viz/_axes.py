"""Axes people read: integer offset ticks, sizes in B/KiB/MiB, time in hours or days (or ISO dates)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from kcompact_nb.core import WALL_CLOCK_FROM_MS, format_instant_ms

_NICE = (1, 2, 5)
_TIME_UNITS: tuple[tuple[str, int], ...] = (("d", 86_400_000), ("h", 3_600_000), ("min", 60_000), ("s", 1_000))
_SIZE_UNITS: tuple[tuple[str, int], ...] = (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))


def nice_step(span: float, *, target_ticks: int) -> int:
    """The smallest 1-2-5 integer step giving at most ``target_ticks`` ticks over ``span``."""
    step, scale = 1, 1
    while True:
        for factor in _NICE:
            step = factor * scale
            if span / step <= target_ticks:
                return step
        scale *= 10


def offset_axis(first: int, end: int, *, plot_px: float, title: str = "offset") -> dict[str, Any]:
    """An x axis over offsets ``[first, end)``: each offset's cell centred on its integer tick."""
    span = max(end - first, 1)
    return {
        "title": {"text": title},
        "range": [first - 0.5, end - 0.5],
        "tickmode": "linear",
        "tick0": 0,
        "dtick": nice_step(span, target_ticks=max(int(plot_px // 45), 2)),
        "tickformat": ",d",
        "showgrid": False,
        "zeroline": False,
    }


class SizeUnit(NamedTuple):
    """Bytes shown in ``name`` units: a value divided by ``bytes``."""

    name: str
    bytes: int


def size_unit(largest_bytes: int) -> SizeUnit:
    """B, KiB, MiB or GiB: the largest unit with ``largest_bytes`` at least 4 of it (ticks stay whole numbers)."""
    for name, size in _SIZE_UNITS:
        if largest_bytes >= 4 * size:
            return SizeUnit(name, size)
    return SizeUnit("B", 1)


class TimeAxis(NamedTuple):
    """Simulated or epoch milliseconds as an axis people read; :meth:`x` maps ms to axis values."""

    unit: str
    ms_per_unit: int
    wall_clock: bool

    def x(self, ms: float) -> float:
        return float(ms) if self.wall_clock else ms / self.ms_per_unit

    def layout(self, *, title: str = "time") -> dict[str, Any]:
        if self.wall_clock:
            return {"title": {"text": f"{title} (UTC)"}, "type": "date", "hoverformat": "%Y-%m-%dT%H:%M:%S.%LZ"}
        return {"title": {"text": f"{title} ({self.unit} since t = 0)"}, "type": "linear", "tickformat": ",~r"}

    def whole_ticks(self, times_ms: Sequence[int | float], *, target_ticks: int = 6) -> dict[str, Any]:
        """Ticks at whole units (``1 s, 2 s``, never ``1.2``) over ``times_ms`` on a simulated clock; plotly's own on
        a wall clock (dates)."""
        if self.wall_clock or not times_ms:
            return {}
        span = (max(times_ms) - min(times_ms)) / self.ms_per_unit
        return {"tickmode": "linear", "tick0": 0, "dtick": nice_step(max(span, 1), target_ticks=target_ticks)}

    def text(self, ms: int) -> str:
        """Hover text for a time: ISO 8601 for wall-clock times, ``"t = 7 d 1 h"`` otherwise."""
        return format_instant_ms(ms)


def time_axis(times_ms: Sequence[int | float]) -> TimeAxis:
    """Days, hours or minutes (from 5 of them on), seconds, or ms on a simulated clock; dates on a wall clock."""
    finite = [t for t in times_ms if t is not None]
    if finite and min(finite) >= WALL_CLOCK_FROM_MS:
        return TimeAxis("date", 1, True)
    largest = max((abs(t) for t in finite), default=0)
    for unit, size in _TIME_UNITS:
        if largest >= (size if unit == "s" else 5 * size):
            return TimeAxis(unit, size, False)
    return TimeAxis("ms", 1, False)
