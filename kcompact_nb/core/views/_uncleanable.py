"""Why the log head is uncleanable from the first uncleanable offset: Kafka's three bounds (spec 4.2); and what a
batch the cleaner cannot read does to the partition holding it (spec 3)."""

from __future__ import annotations

from dataclasses import dataclass

from kcompact_nb.core.cleaner import LogToClean, UncleanableBound
from kcompact_nb.core.model import format_duration_ms, format_instant_ms


def uncleanable_reason(ltc: LogToClean) -> str:
    """Which bound put ``ltc``'s first uncleanable offset where it is, as the cleaner recorded it
    (:attr:`LogToClean.uncleanable_bound`): an open transaction, ``min.compaction.lag.ms``, or the active segment."""
    if ltc.uncleanable_bound is UncleanableBound.LAST_STABLE_OFFSET:
        lso = ltc.last_stable_offset
        return f"an open transaction holds the last stable offset at {lso}; its segment and all later ones wait"
    if ltc.uncleanable_bound is UncleanableBound.MIN_COMPACTION_LAG and ltc.young_segment is not None:
        base, largest = ltc.young_segment
        lag = format_duration_ms(ltc.min_compaction_lag_ms, max_units=2)
        age = format_duration_ms(ltc.now_ms - largest, max_units=2)
        return (
            f"segment {base} is younger than min.compaction.lag.ms ({lag}): "
            f"its newest record, at {format_instant_ms(largest)}, is {age} old"
        )
    return "the active segment, never cleaned (it rolls only when records are appended)"


@dataclass(frozen=True)
class UnreadableBatch:
    """A batch Kafka's cleaner cannot read: its frame, magic or records are corrupt (CRCs are never checked).

    ``segment_base_offset`` names its segment, ``position`` is its byte position in that segment's file and
    ``reason`` what is wrong, as the reader found it.
    """

    segment_base_offset: int
    position: int
    reason: str


def unreadable_batch_outcome(ltc: LogToClean, batch: UnreadableBatch) -> str:
    """What the cleaner does with ``ltc``'s partition, which holds ``batch``: a pass reads every segment below its
    end offset, and one that throws marks the partition uncleanable (``LogCleaner.tryCleanFilthiestLog``)."""
    where = f"the batch at byte position {batch.position:,} of segment {batch.segment_base_offset} ({batch.reason})"
    if batch.segment_base_offset >= ltc.first_uncleanable_offset:
        return (
            f"the cleaner cannot read {where}; no pass reads it while its segment lies at or past the first "
            f"uncleanable offset {ltc.first_uncleanable_offset:,}"
        )
    when = "its next pass" if ltc.eligible else "its first pass once it is eligible"
    return (
        f"UNCLEANABLE: {when} throws on {where}: Kafka logs the exception, marks the partition uncleanable "
        "(uncleanable-partitions-count) until the broker restarts, and cleans the other partitions"
    )
