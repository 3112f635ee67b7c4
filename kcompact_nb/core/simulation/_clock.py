"""A simulated wall clock; the model itself only ever receives ``now_ms`` values."""

from __future__ import annotations

from kcompact_nb.record import KafkaModelError


class SimulatedClock:
    """Broker wall-clock milliseconds that move only when told to, and never backwards."""

    def __init__(self, start_ms: int = 0) -> None:
        self._now_ms = start_ms

    @property
    def now_ms(self) -> int:
        return self._now_ms

    def advance(self, ms: int) -> int:
        """Move forward by ``ms >= 0`` and return the new time."""
        if ms < 0:
            raise KafkaModelError(f"the clock cannot move backwards (advance by {ms} ms)")
        self._now_ms += ms
        return self._now_ms

    def set(self, now_ms: int) -> int:
        """Jump to ``now_ms``, which must not be earlier than the current time."""
        if now_ms < self._now_ms:
            raise KafkaModelError(f"the clock cannot move backwards (from {self._now_ms} to {now_ms} ms)")
        self._now_ms = now_ms
        return self._now_ms

    def __repr__(self) -> str:
        return f"SimulatedClock(now_ms={self._now_ms})"
