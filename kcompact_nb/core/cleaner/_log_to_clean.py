"""Cleanable range, dirty ratio and eligibility of a partition (``LogCleanerManager.cleanableOffsets``,
``calculateCleanableBytes``, ``maxCompactionDelay``, ``LogToClean``; spec 4-5)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kcompact_nb.core.model import PartitionLog, Segment


class UncleanableBound(enum.Enum):
    """Which of ``cleanableOffsets``' bounds puts the first uncleanable offset where it is (spec 4.2)."""

    ACTIVE_SEGMENT = "the active segment"
    LAST_STABLE_OFFSET = "an open transaction (the last stable offset)"
    MIN_COMPACTION_LAG = "min.compaction.lag.ms"


@dataclass(frozen=True)
class LogToClean:
    """A partition as the cleaner sees it at ``now_ms``: its clean, cleanable and uncleanable parts.

    ``first_uncleanable_offset`` is segment-aligned (spec 4.2). ``checkpoint_reset`` says why the
    stored checkpoint would be replaced by the log start offset (spec 4.1), ``None`` when valid;
    ``checkpoint_warning`` is the WARN line ``LogCleanerManager.cleanableOffsets`` logs then (none for a
    checkpoint below the log start offset of a ``compact,delete`` log).
    """

    topic: str
    partition: int
    first_dirty_offset: int
    first_uncleanable_offset: int
    clean_bytes: int
    cleanable_bytes: int
    compaction_delay_ms: int
    min_cleanable_dirty_ratio: float
    checkpoint_reset: str | None = None
    checkpoint_warning: str | None = None
    uncleanable_bound: UncleanableBound = UncleanableBound.ACTIVE_SEGMENT
    """The bound that decided ``first_uncleanable_offset``."""
    last_stable_offset: int = 0
    young_segment: tuple[int, int] | None = None
    """(base offset, largest timestamp) of the first segment too young to clean, when ``min.compaction.lag.ms``
    decided the bound."""
    min_compaction_lag_ms: int = 0
    now_ms: int = 0
    """When the cleaner looked."""

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    @property
    def total_bytes(self) -> int:
        return self.clean_bytes + self.cleanable_bytes

    @property
    def cleanable_ratio(self) -> float:
        """``cleanable_bytes / total_bytes`` (0.0 for an empty log, which is never selected)."""
        return self.cleanable_bytes / self.total_bytes if self.total_bytes else 0.0

    @property
    def needs_compaction_now(self) -> bool:
        """Overdue per ``max.compaction.lag.ms`` (KIP-354)."""
        return self.compaction_delay_ms > 0

    @property
    def eligible(self) -> bool:
        """``(needCompactionNow && cleanableBytes > 0) || ratio > min.cleanable.dirty.ratio`` (strict)."""
        if self.total_bytes == 0:
            return False
        overdue = self.needs_compaction_now and self.cleanable_bytes > 0
        return overdue or self.cleanable_ratio > self.min_cleanable_dirty_ratio


def log_to_clean(log: PartitionLog, *, now_ms: int) -> LogToClean:
    """The partition's cleanable range and ratio at ``now_ms``; does not modify the log."""
    return log_to_clean_over_time(log)(now_ms)


def log_to_clean_over_time(log: PartitionLog) -> Callable[[int], LogToClean]:
    """``log_to_clean(log, now_ms=t)`` for any ``t``, what the clock does not change read once: for searches over time
    (:func:`first_true` asks at about sixty instants) on a log not modified meanwhile.

    Of ``cleanableOffsets`` and ``maxCompactionDelay`` only the segment too young per ``min.compaction.lag.ms`` and the
    delay past ``max.compaction.lag.ms`` read the clock; the rest is kept by young segment.
    """
    first_dirty, reset, warning = first_dirty_offset(log)
    lso, dirty = log.last_stable_offset, non_active_segments_from(log, first_dirty)  # each read once, used twice
    clean_bytes = sum(s.size_bytes for s in segments_overlapping(log, -1, first_dirty))
    earliest = earliest_dirty_timestamp(log, dirty)
    by_young: dict[int | None, tuple[int, UncleanableBound, Segment | None, int]] = {}

    def at(now_ms: int) -> LogToClean:
        too_young = young_segment(log, dirty, now_ms=now_ms)
        key = None if too_young is None else too_young.base_offset
        if key not in by_young:
            first_uncleanable, bound, young = uncleanable_bound(log, first_dirty, lso=lso, young=too_young)
            by_young[key] = first_uncleanable, bound, young, cleanable_bytes(log, first_dirty, first_uncleanable)
        first_uncleanable, bound, young, cleanable = by_young[key]
        return LogToClean(
            topic=log.topic,
            partition=log.partition,
            first_dirty_offset=first_dirty,
            first_uncleanable_offset=first_uncleanable,
            clean_bytes=clean_bytes,
            cleanable_bytes=cleanable,
            compaction_delay_ms=max_compaction_delay_ms(log, earliest, now_ms=now_ms),
            min_cleanable_dirty_ratio=log.config.min_cleanable_dirty_ratio,
            checkpoint_reset=reset,
            checkpoint_warning=warning,
            uncleanable_bound=bound,
            last_stable_offset=lso,
            young_segment=None if young is None else (young.base_offset, young.largest_timestamp),
            min_compaction_lag_ms=log.config.min_compaction_lag_ms,
            now_ms=now_ms,
        )

    return at


def first_dirty_offset(log: PartitionLog) -> tuple[int, str | None, str | None]:
    """The validated checkpoint and, when it is replaced by the log start offset, why and Kafka's WARN line (spec 4.1).

    The warnings are ``LogCleanerManager.cleanableOffsets``' own text.
    """
    checkpoint, start, end = log.cleaner_checkpoint, log.log_start_offset, log.log_end_offset
    if checkpoint is None:
        return start, None, None
    if checkpoint < start:
        warning = None if log.config.compact and log.config.delete else (
            f"Resetting first dirty offset of {log.name} to log start offset {start} "
            f"since the checkpointed offset {checkpoint} is invalid."
        )  # fmt: skip
        return start, f"checkpoint {checkpoint} is below the log start offset {start}", warning
    if checkpoint > end:
        warning = (
            f"The last checkpoint dirty offset for partition {log.name} is {checkpoint}, which is larger than "
            f"the log end offset {end}. Resetting to the log start offset {start}."
        )
        return start, f"checkpoint {checkpoint} is beyond the log end offset {end}", warning
    return checkpoint, None, None


def young_segment(log: PartitionLog, dirty: Sequence[Segment], *, now_ms: int) -> Segment | None:
    """The first of the non-active segments from the first dirty offset (``dirty``) too young to clean at ``now_ms`` per
    ``min.compaction.lag.ms`` (its largest timestamp within the lag), if any (spec 4.2)."""
    lag = log.config.min_compaction_lag_ms
    if lag <= 0:
        return None
    return next((s for s in dirty if s.largest_timestamp > now_ms - lag), None)


def uncleanable_bound(
    log: PartitionLog, first_dirty: int, *, lso: int, young: Segment | None
) -> tuple[int, UncleanableBound, Segment | None]:
    """The first uncleanable offset (``min(LSO, active base, first too-young segment)``, at least ``first_dirty``,
    segment-aligned: spec 4.2), the bound that decided it and, for ``min.compaction.lag.ms``, the young segment; given
    the log's last stable offset and its first segment too young to clean (:func:`young_segment`).

    Of equal bounds the transaction is named first, then the young segment, then the active segment.
    """
    active = log.active_segment.base_offset
    bound = min(lso, active, active if young is None else young.base_offset)
    offset = segment_aligned_uncleanable_offset(log, max(first_dirty, bound))
    if lso < active and lso == bound:
        return offset, UncleanableBound.LAST_STABLE_OFFSET, None
    if young is not None and young.base_offset == bound:
        return offset, UncleanableBound.MIN_COMPACTION_LAG, young
    return offset, UncleanableBound.ACTIVE_SEGMENT, None


def segment_aligned_uncleanable_offset(log: PartitionLog, offset: int) -> int:
    """The base offset of the non-active segment containing ``offset``, else the active segment's (spec 4.2).

    ``LogCleanerManager.calculateCleanableBytes``, which ``LogToClean`` applies to any uncleanable
    offset it is given: a pass never ends inside a segment.
    """
    containing = non_active_segments_from(log, offset)
    return containing[0].base_offset if containing else log.active_segment.base_offset


def cleanable_bytes(log: PartitionLog, first_dirty: int, first_uncleanable: int) -> int:
    """Bytes of the segments overlapping ``[min(fd, fu), fu)``; a mid-segment ``fd`` counts its segment twice."""
    start = min(first_dirty, first_uncleanable)
    return sum(s.size_bytes for s in segments_overlapping(log, start, first_uncleanable))


def earliest_dirty_timestamp(log: PartitionLog, dirty: Sequence[Segment]) -> int | None:
    """The earliest first-batch timestamp (above 0) of the dirty segments (``dirty``: the non-active ones from the
    first dirty offset), which ``max.compaction.lag.ms`` ages (KIP-354, spec 5.3); None when none has one, and before
    Kafka 2.3."""
    if not log.broker.version.has_max_compaction_lag:
        return None
    return min((t for t in (s.first_batch_timestamp for s in dirty) if t > 0), default=None)


def max_compaction_delay_ms(log: PartitionLog, earliest: int | None, *, now_ms: int) -> int:
    """How overdue the dirty segments are at ``now_ms`` per ``max.compaction.lag.ms`` (KIP-354, spec 5.3), given
    their earliest timestamp (:func:`earliest_dirty_timestamp`); 0 when not overdue."""
    clean_until = now_ms - max(log.config.max_compaction_lag_ms, 0)
    if earliest is None or earliest >= clean_until:
        return 0
    return clean_until - earliest


def segments_overlapping(log: PartitionLog, start: int, end: int) -> list[Segment]:
    """Kafka's ``logSegments(from, to)``: the segment containing ``start`` and every later one below ``end``."""
    if start >= end:
        return []
    floor = log.floor_segment(start).base_offset if start >= log.segments[0].base_offset else -1
    return [s for s in log.segments if floor <= s.base_offset < end]


def non_active_segments_from(log: PartitionLog, offset: int) -> list[Segment]:
    """``nonActiveLogSegmentsFrom``: the segment containing ``offset`` and later ones, active excluded."""
    return segments_overlapping(log, offset, log.active_segment.base_offset)
