"""Segment deletion by log start offset, ``retention.bytes`` and ``retention.ms``.

Kafka's ``UnifiedLog.deleteOldSegments`` (spec 9).
"""

from __future__ import annotations

from collections.abc import Callable

from kcompact_nb.core.model import PartitionLog, Segment
from kcompact_nb.record import KafkaModelError

ShouldDelete = Callable[[Segment, "Segment | None"], bool]


def delete_old_segments(log: PartitionLog, *, now_ms: int) -> list[int]:
    """Delete what retention allows at ``now_ms``; returns the deleted segments' base offsets.

    ``compact``: only segments below the log start offset; ``compact,delete`` also applies
    ``retention.bytes`` then ``retention.ms`` (by each segment's largest timestamp after cleaning).
    """
    deleted = _delete_while(log, lambda s, nxt: nxt is not None and nxt.base_offset <= log.log_start_offset, now_ms)
    if log.config.delete:
        deleted += _delete_while(log, _retention_size_breached(log), now_ms)
        deleted += _delete_while(log, _retention_ms_breached(log, now_ms), now_ms)
    return deleted


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


def _retention_size_breached(log: PartitionLog) -> ShouldDelete:
    excess = log.size_bytes - log.config.retention_bytes

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


def _delete_while(log: PartitionLog, should_delete: ShouldDelete, now_ms: int) -> list[int]:
    """Delete leading segments while ``should_delete`` holds and they lie below the high watermark."""
    deletable: list[Segment] = []
    for i, segment in enumerate(log.segments):
        nxt = log.segments[i + 1] if i + 1 < len(log.segments) else None
        upper = nxt.base_offset if nxt is not None else log.log_end_offset
        last_and_empty = nxt is None and segment.size_bytes == 0
        if log.high_watermark < upper or last_and_empty or not should_delete(segment, nxt):
            break
        deletable.append(segment)
    if not deletable:
        return []
    if len(deletable) == len(log.segments):
        log.roll(now_ms=now_ms)
    del log.segments[: len(deletable)]
    log.log_start_offset = max(log.log_start_offset, log.segments[0].base_offset)
    return [s.base_offset for s in deletable]
