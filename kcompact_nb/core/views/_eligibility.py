"""When the cleaner may pick a partition: eligible now, at a later time if nothing is produced, or never (spec 5)."""

from __future__ import annotations

from kcompact_nb.core.cleaner import LogToClean
from kcompact_nb.core.model import format_duration_ms, format_instant_ms


def eligibility(ltc: LogToClean, eligible_at_ms: int | None, now_ms: int, *, never: LogToClean | None = None) -> str:
    """Whether the cleaner may pick the log now (``grabFilthiestCompactedLog``'s test); if not, when, or why never.

    ``never`` is the log as the cleaner would see it at a far future instant with nothing appended: what stays true
    at every later instant when no instant makes the log eligible.
    """
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
    later = never or ltc
    if later.cleanable_bytes == 0:
        return "not eligible: nothing is cleanable, and while nothing is appended nothing becomes cleanable"
    return "not eligible: the dirty ratio is not above the minimum, and while nothing is appended it never will be"
