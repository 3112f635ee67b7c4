"""Why the log head is uncleanable from the first uncleanable offset: Kafka's three bounds (spec 4.2)."""

from __future__ import annotations

from kcompact_nb.core.cleaner import LogToClean, non_active_segments_from
from kcompact_nb.core.model import PartitionLog, format_duration_ms, format_instant_ms


def uncleanable_reason(log: PartitionLog, ltc: LogToClean, now_ms: int) -> str:
    """Which bound put ``ltc``'s first uncleanable offset where it is: an open transaction (the last stable
    offset), ``min.compaction.lag.ms``, or the active segment."""
    fu, lso = ltc.first_uncleanable_offset, log.last_stable_offset
    if lso < log.active_segment.base_offset and log.floor_segment(lso).base_offset == fu:
        return f"an open transaction holds the last stable offset at {lso}; its segment and all later ones wait"
    lag = log.config.min_compaction_lag_ms
    young = [s for s in non_active_segments_from(log, ltc.first_dirty_offset) if s.largest_timestamp > now_ms - lag]
    if lag > 0 and young and young[0].base_offset == fu:
        age = format_duration_ms(now_ms - young[0].largest_timestamp, max_units=2)
        return (
            f"segment {fu} is younger than min.compaction.lag.ms ({format_duration_ms(lag, max_units=2)}): "
            f"its newest record, at {format_instant_ms(young[0].largest_timestamp)}, is {age} old"
        )
    return "the active segment, never cleaned (it rolls only when records are appended)"
