"""Filtering batches into a cleaned segment (``MemoryRecords.filterTo``, spec 7.3-7.5).

A :class:`RecordFilter` decides per batch (:class:`BatchRetention`, ``checkBatchRetention``) and per
record (``shouldRetainRecord``); :func:`filter_to` applies it: a batch whose records all stay and needs
no delete horizon is kept as it is, a batch that loses records (or gains a horizon) is rebuilt
(``buildRetainedRecordsInto``), and a batch that loses them all stays as its 61-byte header only when
the filter says ``RETAIN_EMPTY`` (``writeEmptyHeader``).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, Protocol

from kcompact_nb.core.cleaner._decisions import BatchDecision, BatchFate, PassDecisions, RecordDecision, RecordRule
from kcompact_nb.core.cleaner._failure import check_record_bodies
from kcompact_nb.core.model import KafkaVersion
from kcompact_nb.record import (
    NO_TIMESTAMP,
    RECORD_BATCH_OVERHEAD,
    BatchEncoder,
    PackedRecords,
    RecordBatch,
    TimestampType,
    compressed,
    java_long,
    record_offsets,
)


class BatchRetention(enum.Enum):
    """What happens to a batch whatever its records (``MemoryRecords.RecordFilter.BatchRetention``)."""

    DELETE = enum.auto()
    """Drop the batch and all its records."""
    RETAIN_EMPTY = enum.auto()
    """Keep the batch, as an empty header when no record stays (producer state, the round's last offset)."""
    DELETE_EMPTY = enum.auto()
    """Keep the batch only if some record stays."""


class BatchRetentionResult(NamedTuple):
    """``checkBatchRetention``'s answer: the retention and whether the batch is a marker of an empty transaction;
    with why a batch is kept even when emptied: the producer whose last batch it is (rule A), or the end of the
    cleaning round (rule B)."""

    retention: BatchRetention
    contains_marker_for_empty_txn: bool
    last_batch_of_producer: int | None = None
    ends_round: bool = False


class RecordFilter(Protocol):
    """The cleaner's filter (``MemoryRecords.RecordFilter``): a batch rule, then a record rule."""

    now_ms: int
    delete_retention_ms: int

    def check_batch_retention(self, batch: RecordBatch) -> BatchRetentionResult:
        """Rules A-D of spec 7.3; called once per batch, before :meth:`retained_records`."""
        ...

    def retained_records(self, batch: RecordBatch) -> Sequence[Any]:
        """The batch's records for which ``shouldRetainRecord`` holds, in order (a list, or packed records)."""
        ...

    def record_rule(self, batch: RecordBatch, record: Any) -> RecordRule:
        """The rule that decides one record (``shouldRetainRecord``'s branch)."""
        ...


class FilteredBatch(NamedTuple):
    """What ``filterTo`` made of one batch it read whole: the batch written (``None``: deleted), the records it keeps
    and its last kept record's offset (-1: none)."""

    output: RecordBatch | None
    retained: int
    max_offset: int


@dataclass
class FilterResult:
    """What :func:`filter_to` read and kept (``MemoryRecords.FilterResult``)."""

    batches: list[RecordBatch]
    max_offset: int = -1
    messages_read: int = 0
    bytes_read: int = 0
    messages_retained: int = 0
    bytes_retained: int = 0
    messages_deleted: int = 0
    """Records of the batches deleted whole, which ``filterTo`` does not read (not Kafka's count)."""

    def kept(self, batch: RecordBatch, messages: int, max_offset: int) -> None:
        """``batch`` is written, with ``messages`` of the records read; ``max_offset`` its last record's offset."""
        self.batches.append(batch)
        self.bytes_retained += batch.size_bytes
        self.messages_retained += messages
        self.max_offset = max(self.max_offset, max_offset)


def filter_to(
    batches: Sequence[RecordBatch],
    record_filter: RecordFilter,
    *,
    encoder: BatchEncoder,
    kafka_version: KafkaVersion,
    decisions: PassDecisions | None = None,
    record_body_bound: int | None = None,
    into: FilterResult | None = None,
) -> FilterResult:
    """The batches as they are written to the cleaned segment, and the counts of what was read and kept (added to
    ``into`` when given).

    ``decisions``, when given, receives what became of each batch (and, for a batch deleted whole, of its records).
    With ``record_body_bound`` (``max.decompressed.message.bytes``), a compressed batch that is read (not deleted
    whole) throws Kafka's ``InvalidRecordException`` on a record whose body exceeds it, and nothing is written.
    """
    result = FilterResult([]) if into is None else into
    for batch in batches:
        result.bytes_read += batch.size_bytes
        decision = record_filter.check_batch_retention(batch)
        output: RecordBatch | None = None
        if decision.retention is BatchRetention.DELETE:
            result.messages_deleted += len(batch.records)
            if decisions is not None:
                _record_deleted(decisions, record_filter, batch, decision)
            continue
        if record_body_bound is not None:
            check_record_bodies(batch, record_body_bound)
        result.messages_read += len(batch.records)
        retained = record_filter.retained_records(batch)
        stamp = False
        if retained:
            stamp = _needs_delete_horizon(batch, retained, decision.contains_marker_for_empty_txn, kafka_version)
            output = (
                batch
                if len(retained) == len(batch.records) and not stamp
                else rebuilt(batch, retained, record_filter, stamp=stamp, encoder=encoder, kafka_version=kafka_version)
            )
            last = batch.last_offset if output is batch else record_offsets(retained)[-1]
            result.kept(output, len(retained), last)
        elif decision.retention is BatchRetention.RETAIN_EMPTY:
            output = empty_batch(batch)
            result.kept(output, 0, batch.last_offset)
        if decisions is not None:
            decisions.batch(_batch_decision(batch, output, decision, stamp))
    return result


def _record_deleted(
    decisions: PassDecisions, record_filter: RecordFilter, batch: RecordBatch, decision: BatchRetentionResult
) -> None:
    for record in batch.records:
        decisions.record(RecordDecision(record.offset, record_filter.record_rule(batch, record)))
    decisions.batch(_batch_decision(batch, None, decision, stamp=False))


def _batch_decision(
    batch: RecordBatch, output: RecordBatch | None, decision: BatchRetentionResult, stamp: bool
) -> BatchDecision:
    if output is None:
        fate = BatchFate.DELETED
    elif output is batch:
        fate = BatchFate.KEPT_WHOLE
    else:
        fate = BatchFate.REWRITTEN if output.records else BatchFate.KEPT_EMPTY
    return BatchDecision(
        batch.base_offset,
        batch.last_offset,
        fate,
        batch.size_bytes,
        0 if output is None else output.size_bytes,
        last_batch_of_producer=decision.last_batch_of_producer,
        ends_round=decision.ends_round,
        stamped_horizon_ms=output.delete_horizon_ms if stamp and output is not None else None,
        recompressed=fate is BatchFate.REWRITTEN and batch.compression != "none",
        is_control=batch.is_control,
    )


def _needs_delete_horizon(
    batch: RecordBatch, retained: Sequence[Any], marker_for_empty_txn: bool, version: KafkaVersion
) -> bool:
    """A kept tombstone or marker in a batch without a horizon yet: the pass stamps one (``needToSetDeleteHorizon``)."""
    return (
        version.has_batch_delete_horizon
        and (marker_for_empty_txn or _has_tombstone(retained))
        and batch.delete_horizon_ms is None
    )


def _has_tombstone(records: Sequence[Any]) -> bool:
    if isinstance(records, PackedRecords):
        return records.has_null_value()
    return any(r.value is None for r in records)


def rebuilt(
    batch: RecordBatch,
    retained: Sequence[Any],
    record_filter: RecordFilter,
    *,
    stamp: bool,
    encoder: BatchEncoder,
    kafka_version: KafkaVersion,
) -> RecordBatch:
    """The batch with only ``retained`` (``buildRetainedRecordsInto``), stamped :func:`delete_horizon`."""
    horizon = delete_horizon(record_filter) if stamp else batch.delete_horizon_ms
    return compressed(
        rebuild_batch(batch, retained, delete_horizon_ms=horizon), encoder, level=None, kafka_version=kafka_version
    )


def delete_horizon(record_filter: RecordFilter) -> int:
    """The delete horizon a pass stamps: ``now + delete.retention.ms``, Java's long sum (``delete.retention.ms`` near
    ``Long.MAX_VALUE`` wraps it negative, so a later pass removes the tombstone)."""
    return java_long(record_filter.now_ms + record_filter.delete_retention_ms)


def rebuild_batch(batch: RecordBatch, records: Sequence[Any], *, delete_horizon_ms: int | None) -> RecordBatch:
    """A batch with only ``records`` (same base and last offset, producer fields, flags and codec).

    Sized uncompressed: :func:`compressed` gives a compressed batch its size, at the codec's default
    level as ``buildRetainedRecordsInto`` always uses (``Compression.of(type).build()``).
    """
    log_append = batch.timestamp_type is TimestampType.LOG_APPEND_TIME
    if log_append:
        records = [r._replace(timestamp=batch.max_timestamp) for r in records]
    return RecordBatch.build(
        records,
        base_offset=batch.base_offset,
        last_offset=batch.last_offset,
        delete_horizon_ms=delete_horizon_ms,
        log_append_time_ms=batch.max_timestamp if log_append else None,
        checked=True,
        producer_id=batch.producer_id,
        producer_epoch=batch.producer_epoch,
        base_sequence=batch.base_sequence,
        is_transactional=batch.is_transactional,
        is_control=batch.is_control,
        partition_leader_epoch=batch.partition_leader_epoch,
        compression=batch.compression,
    )


def empty_batch(batch: RecordBatch) -> RecordBatch:
    """The header Kafka keeps when all records go but the batch must stay (``writeEmptyHeader``):
    offsets, producer fields, flags, timestamp type and max timestamp kept; no codec, no horizon."""
    return replace(
        batch,
        records=(),
        size_bytes=RECORD_BATCH_OVERHEAD,
        base_timestamp=NO_TIMESTAMP,
        compression="none",
        delete_horizon_ms=None,
        raw=None,
    )
