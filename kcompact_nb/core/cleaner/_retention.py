"""Segment deletion by log start offset, ``retention.bytes`` and ``retention.ms``.

Kafka's ``UnifiedLog.deleteOldSegments`` (spec 9).
"""

from __future__ import annotations

from collections.abc import Callable

from kcompact_nb.core.cleaner._decisions import RetentionDeletion, RetentionReason
from kcompact_nb.core.model import PartitionLog, Segment
from kcompact_nb.record import KafkaModelError

ShouldDelete = Callable[[Segment, "Segment | None"], bool]


def delete_old_segments(log: PartitionLog, *, now_ms: int) -> list[RetentionDeletion]:
    """Delete what retention allows at ``now_ms`` (:func:`retention_deletions`); returns what it deleted."""
    deletions = retention_deletions(log, now_ms=now_ms)
    if not deletions:
        return deletions
    if len(deletions) == len(log.segments):
        log.roll(now_ms=now_ms)
    del log.segments[: len(deletions)]
    log.log_start_offset = max(log.log_start_offset, log.segments[0].base_offset)
    return deletions


def retention_deletions(log: PartitionLog, *, now_ms: int) -> list[RetentionDeletion]:
    """The leading segments retention deletes at ``now_ms``, each with its rule; the log is not modified.

    ``compact``: only segments below the log start offset; ``compact,delete`` also applies ``retention.bytes`` then
    ``retention.ms`` (by each segment's largest timestamp after cleaning), each over what the rules before it left.
    """
    segments = log.segments
    start = _deletable_prefix(log, 0, lambda s, nxt: nxt is not None and nxt.base_offset <= log.log_start_offset)
    reasons = [RetentionReason.LOG_START_OFFSET] * start
    if log.config.delete and start < len(segments):
        by_bytes = _deletable_prefix(log, start, _retention_size_breached(log, segments[start:]))
        reasons += [RetentionReason.RETENTION_BYTES] * (by_bytes - start)
        if by_bytes < len(segments):
            by_ms = _deletable_prefix(log, by_bytes, _retention_ms_breached(log, now_ms))
            reasons += [RetentionReason.RETENTION_MS] * (by_ms - by_bytes)
    return [
        RetentionDeletion(log.name, s.base_offset, _next_offset(log, i), reason, now_ms, s.largest_timestamp)
        for i, (s, reason) in enumerate(zip(segments, reasons, strict=False))
    ]


def delete_records(log: PartitionLog, offset: int) -> None:
    """Advance the log start offset as Kafka's DeleteRecords (only with ``delete`` in the policy)."""
    if not log.config.delete:
        message = (
            f"Records of partition {log.name} can not be deleted due to the configured policy "
            f"(cleanup.policy={','.join(log.config.cleanup_policy)}; Kafka's PolicyViolationException)"
        )
        raise KafkaModelError(message)
    increment_log_start_offset(log, offset)


def increment_log_start_offset(log: PartitionLog, offset: int) -> None:
    """Raise the log start offset, never lower it (``UnifiedLog.maybeIncrementLogStartOffset``).

    Segments below it are deleted later, by retention in the cleaner thread (spec 9).
    """
    if offset > log.high_watermark:
        message = (
            f"Cannot increment the log start offset to {offset} of partition {log.name} "
            f"since it is larger than the high watermark {log.high_watermark} (Kafka's OffsetOutOfRangeException)"
        )
        raise KafkaModelError(message)
    log.log_start_offset = max(log.log_start_offset, offset)


def _retention_size_breached(log: PartitionLog, remaining: list[Segment]) -> ShouldDelete:
    excess = sum(s.size_bytes for s in remaining) - log.config.retention_bytes

    def should_delete(segment: Segment, _next: Segment | None) -> bool:
        nonlocal excess
        if log.config.retention_bytes < 0 or excess < 0 or excess - segment.size_bytes < 0:
            return False
        excess -= segment.size_bytes
        return True

    return should_delete


def _retention_ms_breached(log: PartitionLog, now_ms: int) -> ShouldDelete:
    retention = log.config.retention_ms
    return lambda segment, _next: retention >= 0 and now_ms - segment.largest_timestamp > retention


def _next_offset(log: PartitionLog, index: int) -> int:
    segments = log.segments
    return segments[index + 1].base_offset if index + 1 < len(segments) else log.log_end_offset


def _deletable_prefix(log: PartitionLog, first: int, should_delete: ShouldDelete) -> int:
    """The index after the segments from ``first`` on that retention deletes: while ``should_delete`` holds and they
    lie below the high watermark (``deleteOldSegments``' walk), never an empty last segment."""
    segments = log.segments
    end = first
    for i in range(first, len(segments)):
        segment, nxt = segments[i], segments[i + 1] if i + 1 < len(segments) else None
        last_and_empty = nxt is None and segment.size_bytes == 0
        if log.high_watermark < _next_offset(log, i) or last_and_empty or not should_delete(segment, nxt):
            break
        end = i + 1
    return end
