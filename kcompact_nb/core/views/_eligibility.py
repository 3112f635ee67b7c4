"""When the cleaner may pick a partition: eligible now, at a later time if nothing is produced, or never (spec 5)."""

from __future__ import annotations

from kcompact_nb.core.cleaner import LogToClean, log_to_clean, non_active_segments_from
from kcompact_nb.core.model import LONG_MAX, PartitionLog, format_duration_ms, format_instant_ms


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


def eligibility(ltc: LogToClean, eligible_at_ms: int | None, now_ms: int) -> str:
    """Whether the cleaner may pick the log now (``grabFilthiestCompactedLog``'s test); if not, when, or why never."""
    if ltc.eligible:
        why = (
            "overdue per max.compaction.lag.ms"
            if ltc.needs_compaction_now and ltc.cleanable_ratio <= ltc.min_cleanable_dirty_ratio
            else "its dirty ratio is above the minimum"
        )
        return f"eligible now: {why}"
    if eligible_at_ms is not None:
        wait = format_duration_ms(eligible_at_ms - now_ms, max_units=2)
        return (
            f"not eligible now; eligible at {format_instant_ms(eligible_at_ms)} (in {wait}) if nothing else is produced"
        )
    if ltc.cleanable_bytes == 0:
        return "not eligible: nothing is cleanable, and without new appends the active segment never rolls, so never"
    return "not eligible: the dirty ratio is not above the minimum, and without new appends it never will be"
