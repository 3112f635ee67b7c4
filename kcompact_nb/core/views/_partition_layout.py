"""A partition as a layout figure draws it, in Kafka's terms: the log tail and the log head, split at the
cleaner point; segments, batches, records and the gaps compaction left (spec 4, 7).

Kafka's design documentation draws a compacted log as a cleaned *log tail* followed by the *log head*
(not yet cleaned); the *cleaner point* between them is the cleaner checkpoint (the first dirty offset).
The head holds the cleanable range, then uncleanable segments, then the active segment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from kcompact_nb.core.cleaner import BatchDecision, BatchFate, CleanerManager, LogToClean, OffsetMapSpec, Strategy
from kcompact_nb.core.model import PartitionLog, copy_log, format_instant_ms
from kcompact_nb.core.simulation import Simulation
from kcompact_nb.core.views._next_pass import NextPass, RecordOutcome, next_pass, transaction_states
from kcompact_nb.core.views._segment_regions import ACTIVE, CLEAN, CLEANABLE, UNCLEANABLE, SegmentRegion, log_regions
from kcompact_nb.record import KafkaModelError, RecordBatch


class LogPart(NamedTuple):
    """A named span of offsets ``[start, end)``; ``level`` 0 for tail and head, 1 for the head's parts."""

    name: str
    start: int
    end: int
    level: int


class BatchSpan(NamedTuple):
    """A stored batch: offsets ``[base_offset, last_offset]``, bytes, records left, producer and kind."""

    base_offset: int
    last_offset: int
    size_bytes: int
    record_count: int
    producer_id: int
    is_transactional: bool
    is_control: bool
    transaction: str | None = None
    """``"committed"``, ``"aborted"``, ``"open"`` (data) or ``"COMMIT"``/``"ABORT"`` (markers).

    ``None`` outside transactions.
    """
    kept_because: str = ""
    """For an empty batch: why it is kept, and until when, as the next pass decides it (spec 7.3 rules A and B)."""


@dataclass(frozen=True)
class LayoutView:
    """Everything a layout figure of one partition at ``now_ms`` draws; offsets are Kafka's.

    ``parts`` name the log tail ``[log start, cleaner point)``, the log head ``[cleaner point, log end)``
    and, inside the head, the cleanable range, the uncleanable segments and the active segment (empty
    parts are left out). ``gaps`` are ``[start, end)`` runs of offsets without a stored record between
    the log start and end offsets: a consumer fetching from one receives the next stored record.
    """

    name: str
    now_ms: int
    log_start_offset: int
    log_end_offset: int
    active_base_offset: int
    log_to_clean: LogToClean
    pass_end_offset: int
    segments: tuple[SegmentRegion, ...]
    batches: tuple[BatchSpan, ...]
    records: tuple[RecordOutcome, ...]
    gaps: tuple[tuple[int, int], ...]
    parts: tuple[LogPart, ...]

    @property
    def cleaner_point(self) -> int:
        """The first dirty offset: the cleaner checkpoint, validated (spec 4.1)."""
        return self.log_to_clean.first_dirty_offset

    @property
    def first_uncleanable_offset(self) -> int:
        return self.log_to_clean.first_uncleanable_offset

    @property
    def stops_early(self) -> bool:
        """The next pass ends before the first uncleanable offset: its offset map fills (spec 6.3)."""
        return self.cleaner_point < self.pass_end_offset < self.first_uncleanable_offset


def layout_view(
    log: PartitionLog,
    *,
    now_ms: int,
    offset_map: OffsetMapSpec | None = None,
    strategy: Strategy | None = None,
    simulation: Simulation | None = None,
) -> LayoutView:
    """The layout of ``log`` at ``now_ms``, each record with what the next pass does to it (:func:`next_pass`).

    ``offset_map`` and ``strategy`` are those of that pass, ``simulation`` the broker the log belongs to.
    """
    upcoming: NextPass = next_pass(log, now_ms=now_ms, offset_map=offset_map, strategy=strategy, simulation=simulation)
    ltc = upcoming.log_to_clean
    segments = log_regions(log, ltc)
    offsets = [r.offset for r in upcoming.records]
    states = transaction_states(log)
    return LayoutView(
        name=log.name,
        now_ms=now_ms,
        log_start_offset=log.log_start_offset,
        log_end_offset=log.log_end_offset,
        active_base_offset=log.active_segment.base_offset,
        log_to_clean=ltc,
        pass_end_offset=upcoming.end_offset,
        segments=tuple(segments),
        batches=tuple(
            _span(b, states.get(b.base_offset), upcoming, log)
            for b in log.batches()
            if b.last_offset >= log.log_start_offset
        ),
        records=upcoming.records,
        gaps=tuple(offset_gaps(offsets, log.log_start_offset, log.log_end_offset)),
        parts=tuple(log_parts(log.log_start_offset, segments, ltc.first_dirty_offset, ltc.first_uncleanable_offset)),
    )


def log_parts(
    log_start_offset: int, segments: Sequence[SegmentRegion], first_dirty_offset: int, first_uncleanable_offset: int
) -> list[LogPart]:
    """Log tail and log head (level 0), and the head's cleanable, uncleanable and active parts (level 1).

    Ends follow the segments' ends, so an empty active segment still spans its one next offset.
    """
    if not segments:
        return []
    end = segments[-1].end_offset
    active = segments[-1].base_offset
    fd, fu = first_dirty_offset, first_uncleanable_offset
    spans = [
        LogPart(CLEAN, log_start_offset, fd, 0),
        LogPart("head", fd, end, 0),
        LogPart(CLEANABLE, fd, fu, 1),
        LogPart(UNCLEANABLE, fu, active, 1),
        LogPart(ACTIVE, active, end, 1),
    ]
    return [p for p in spans if p.end > p.start]


def offset_gaps(offsets: Sequence[int], start: int, end: int) -> list[tuple[int, int]]:
    """``[a, b)`` runs of offsets in ``[start, end)`` that hold no record (``offsets`` ascending)."""
    gaps = []
    expected = start
    for offset in offsets:
        if offset > expected:
            gaps.append((expected, offset))
        expected = max(expected, offset + 1)
    if end > expected:
        gaps.append((expected, end))
    return gaps


def _span(batch: RecordBatch, transaction: str | None, upcoming: NextPass, log: PartitionLog) -> BatchSpan:
    return BatchSpan(
        batch.base_offset,
        batch.last_offset,
        batch.size_bytes,
        len(batch.records),
        batch.producer_id,
        batch.is_transactional,
        batch.is_control,
        transaction,
        "" if batch.records else empty_batch_kept_because(batch.base_offset, upcoming, log),
    )


def empty_batch_kept_because(base_offset: int, upcoming: NextPass, log: PartitionLog) -> str:
    """Why an empty batch stays, and until when, as the next pass and the passes after it decide (spec 7.3). When the
    next pass does not read it, what a pass reading it now would decide (from the log start, on a copy)."""
    result = upcoming.result
    decision = None if result is None or result.decisions is None else result.decisions.batches.get(base_offset)
    future = upcoming.future
    deleted_at = None if future is None or result is None else future.batch_deleted_at(result.name, base_offset)
    if decision is not None and decision.fate is BatchFate.DELETED:
        return "the next pass drops it: it is no longer a live producer's last batch nor the end of its cleaning round"
    unread = ""
    if decision is None:
        decision = _decision_of_a_pass_now(log, base_offset, upcoming.log_to_clean.now_ms)
        unread = ": no pass reads it" if result is None else ": the next pass does not read it"
    if decision is not None and decision.last_batch_of_producer is not None:
        why = (
            f"the last batch of producer {decision.last_batch_of_producer} (rule A): Kafka keeps it, empty, so the "
            "producer's sequence and epoch survive, until producer.id.expiration.ms expires the producer"
        )
    elif decision is not None and decision.ends_round:
        why = "it ends the pass's cleaning round (rule B): its last offset stays"
    else:
        why = "an earlier pass kept it (spec 7.3 rules A and B)"
    if deleted_at is None:
        return f"{why}; it stays while nothing is appended{unread}"
    return f"{why}; the pass at {format_instant_ms(deleted_at)} drops it"


def _decision_of_a_pass_now(log: PartitionLog, base_offset: int, now_ms: int) -> BatchDecision | None:
    """What a pass from the log start offset at ``now_ms`` decides for the batch at ``base_offset`` (on a copy)."""
    copy = copy_log(log)
    manager = CleanerManager(log.broker, decisions=[])
    result = manager.clean_log(copy, now_ms=now_ms, first_dirty_offset=log.log_start_offset, force=True)
    return None if result is None or result.decisions is None else result.decisions.batches.get(base_offset)


class LayoutScale(NamedTuple):
    """Offsets ``[first_offset, end_offset)`` and the largest segment's bytes: one scale for several figures."""

    first_offset: int
    end_offset: int
    max_segment_bytes: int

    def union(self, other: LayoutScale) -> LayoutScale:
        return LayoutScale(
            min(self.first_offset, other.first_offset),
            max(self.end_offset, other.end_offset),
            max(self.max_segment_bytes, other.max_segment_bytes),
        )


def layout_scale(*logs: PartitionLog) -> LayoutScale:
    """The scale that fits every log in ``logs``: draw before and after a pass (or every step) alike."""
    if not logs:
        raise KafkaModelError("layout_scale needs at least one log")
    scales = [
        LayoutScale(
            log.log_start_offset,
            max(log.log_end_offset, log.active_segment.base_offset + 1),
            max(s.size_bytes for s in log.segments),
        )
        for log in logs
    ]
    combined = scales[0]
    for scale in scales[1:]:
        combined = combined.union(scale)
    return combined
