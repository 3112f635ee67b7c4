"""Why a partition is (not) cleaned: a plain-language account of its ranges, eligibility and tombstones."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kcompact_nb.core._config_keys import LONG_MAX
from kcompact_nb.core._log import PartitionLog
from kcompact_nb.core._log_to_clean import LogToClean, log_to_clean, non_active_segments_from


@dataclass(frozen=True)
class TombstoneFate:
    """When one tombstone may go: ``horizon_ms`` once a pass has stamped its batch (spec 7.4)."""

    offset: int
    key: bytes
    horizon_ms: int | None

    def describe(self, now_ms: int, format_time: Callable[[int], str] | None = None) -> str:
        """One line; ``format_time`` shows a time in ms (default ``"N ms"``)."""
        at = format_time or _ms
        key = self.key.decode("utf-8", "replace")
        if self.horizon_ms is None:
            return (
                f"tombstone {key!r} at offset {self.offset}: not stamped yet; the next pass that rewrites it "
                "stamps its delete horizon (pass time + delete.retention.ms)"
            )
        when = "now" if self.horizon_ms <= now_ms else f"at {at(self.horizon_ms)}"
        return f"tombstone {key!r} at offset {self.offset}: removable by the first pass {when} or later (horizon {at(self.horizon_ms)})"


@dataclass(frozen=True)
class Explanation:
    """The cleaner's view of one partition at ``now_ms`` and when it would next be eligible."""

    now_ms: int
    log_to_clean: LogToClean
    uncleanable_reason: str
    """Which bound stopped the cleanable range; ``{0}``, ``{1}`` ... stand for ``uncleanable_times_ms`` shown as times."""
    eligible_at_ms: int | None
    tombstones: tuple[TombstoneFate, ...]
    uncleanable_times_ms: tuple[int, ...] = ()

    def lines(self, format_time: Callable[[int], str] | None = None) -> list[str]:
        """The explanation line by line; ``format_time`` shows a time in ms (default ``"N ms"``)."""
        at = format_time or _ms
        ltc = self.log_to_clean
        lines = [
            f"{ltc.name} at {at(self.now_ms)}:",
            f"  clean: offsets below {ltc.first_dirty_offset} ({ltc.clean_bytes} bytes)",
            f"  cleanable: [{ltc.first_dirty_offset}, {ltc.first_uncleanable_offset}) ({ltc.cleanable_bytes} bytes)",
            f"  uncleanable from {ltc.first_uncleanable_offset}: {self.uncleanable(at)}",
            f"  dirty ratio {ltc.cleanable_ratio:.4f} vs min.cleanable.dirty.ratio {ltc.min_cleanable_dirty_ratio}",
            "  " + _eligibility(ltc, self.eligible_at_ms, at),
        ]
        if ltc.checkpoint_reset:
            lines.append(f"  checkpoint reset: {ltc.checkpoint_reset}")
        if ltc.checkpoint_warning:
            lines.append(f"  Kafka's cleaner logs: WARN {ltc.checkpoint_warning}")
        lines += ["  " + t.describe(self.now_ms, at) for t in self.tombstones]
        return lines

    def uncleanable(self, format_time: Callable[[int], str] | None = None) -> str:
        """Why the cleanable range ends where it does, its times shown by ``format_time`` (default ``"N ms"``)."""
        if not self.uncleanable_times_ms:
            return self.uncleanable_reason
        return self.uncleanable_reason.format(*map(format_time or _ms, self.uncleanable_times_ms))

    def __str__(self) -> str:
        return "\n".join(self.lines())


def explain(log: PartitionLog, *, now_ms: int) -> Explanation:
    """Explain ``log`` at ``now_ms``: ranges and why, eligibility, next eligible time, tombstones."""
    ltc = log_to_clean(log, now_ms=now_ms)
    tombstones = tuple(
        TombstoneFate(r.offset, r.key, b.delete_horizon_ms)
        for b, r in log.records()
        if not b.is_control and r.is_tombstone and r.key is not None
    )
    reason, times = _uncleanable_reason(log, ltc, now_ms)
    return Explanation(now_ms, ltc, reason, next_eligible_ms(log, now_ms=now_ms), tombstones, times)


def next_eligible_ms(log: PartitionLog, *, now_ms: int) -> int | None:
    """The first time at or after ``now_ms`` the log is eligible if nothing more is appended; None: never.

    Without appends only the clock moves, so only ``min.compaction.lag.ms`` (segments ageing into the
    cleanable range) and ``max.compaction.lag.ms`` (overdue segments) can change the answer.
    """
    candidates = {now_ms}
    first_dirty = log_to_clean(log, now_ms=now_ms).first_dirty_offset
    for segment in non_active_segments_from(log, first_dirty):
        candidates.add(segment.largest_timestamp + log.config.min_compaction_lag_ms + 1)
        if log.config.max_compaction_lag_ms < LONG_MAX and segment.first_batch_timestamp < 2**62:
            candidates.add(segment.first_batch_timestamp + log.config.max_compaction_lag_ms + 1)
    for t in sorted(c for c in candidates if c >= now_ms):
        if log_to_clean(log, now_ms=t).eligible:
            return t
    return None


def _ms(ms: int) -> str:
    return f"{ms} ms"


def _eligibility(ltc: LogToClean, eligible_at_ms: int | None, at: Callable[[int], str]) -> str:
    if ltc.eligible:
        why = "overdue per max.compaction.lag.ms" if ltc.needs_compaction_now and ltc.cleanable_ratio <= ltc.min_cleanable_dirty_ratio else "its dirty ratio is above the minimum"
        return f"eligible now: {why}"
    if eligible_at_ms is not None:
        return f"not eligible now; eligible at {at(eligible_at_ms)} if nothing else is produced"
    if ltc.cleanable_bytes == 0:
        return "not eligible: nothing is cleanable, and without new appends the active segment never rolls, so never"
    return "not eligible: the dirty ratio is not above the minimum, and without new appends it never will be"


def _uncleanable_reason(log: PartitionLog, ltc: LogToClean, now_ms: int) -> tuple[str, tuple[int, ...]]:
    """Which of Kafka's three bounds (spec 4.2) put the first uncleanable offset where it is, and the times it cites."""
    fu, lso = ltc.first_uncleanable_offset, log.last_stable_offset
    if lso < log.active_segment.base_offset and log.floor_segment(lso).base_offset == fu:
        return f"an open transaction holds the last stable offset at {lso}; its segment and all later ones wait", ()
    lag = log.config.min_compaction_lag_ms
    young = [s for s in non_active_segments_from(log, ltc.first_dirty_offset) if s.largest_timestamp > now_ms - lag]
    if lag > 0 and young and young[0].base_offset == fu:
        reason = f"segment {fu} is younger than min.compaction.lag.ms (largest timestamp {{0}} > {{1}} - {lag} ms)"
        return reason, (young[0].largest_timestamp, now_ms)
    return "the active segment, never cleaned (it rolls only when records are appended)", ()
