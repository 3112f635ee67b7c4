"""The ``partition state`` of a result document: offsets, dirtiness, segments, batches, records."""

from __future__ import annotations

from typing import Any

from kcompact_nb.core._log import PartitionLog
from kcompact_nb.core._records import Record, RecordBatch, TimestampType
from kcompact_nb.io import batch_attributes_and_crc
from kcompact_nb.core._segment import AbortedTxn, Segment
from kcompact_nb.scenario._bytes import encode_bytes
from kcompact_nb.core._log_to_clean import log_to_clean


def partition_state(log: PartitionLog, *, now_ms: int) -> dict[str, Any]:
    """The full state of one partition at ``now_ms``, bytes encoded as in scenario files."""
    return {
        "log_start_offset": log.log_start_offset,
        "log_end_offset": log.log_end_offset,
        "high_watermark": log.high_watermark,
        "last_stable_offset": log.last_stable_offset,
        "checkpoint": log.cleaner_checkpoint,
        "dirtiness": dirtiness(log, now_ms=now_ms),
        "segments": [segment_state(s) for s in log.segments],
    }


def dirtiness(log: PartitionLog, *, now_ms: int) -> dict[str, Any]:
    """The cleanable range and ratio the broker computes (``LogToClean``, spec 4-5)."""
    state: dict[str, Any] = log_to_clean(log, now_ms=now_ms).to_dict()
    return state


def segment_state(segment: Segment) -> dict[str, Any]:
    """A segment; ``size_estimated`` when a batch's size came from an estimate (no exact codec here)."""
    return {
        "base_offset": segment.base_offset,
        "size_bytes": segment.size_bytes,
        "size_estimated": segment.size_estimated,
        "largest_timestamp": segment.largest_timestamp,
        "aborted_transactions": [_aborted(t) for t in segment.aborted_transactions],
        "batches": [batch_state(b) for b in segment.batches],
    }


def batch_state(batch: RecordBatch) -> dict[str, Any]:
    """Every header field of a batch (``base_timestamp`` as stored: the delete horizon once one is set)."""
    attributes, crc = batch_attributes_and_crc(batch)
    log_append_time = batch.timestamp_type is TimestampType.LOG_APPEND_TIME
    return {
        "base_offset": batch.base_offset,
        "last_offset": batch.last_offset,
        "size_bytes": batch.size_bytes,
        "size_estimated": batch.size_estimated,
        "compression": batch.compression,
        "timestamp_type": batch.timestamp_type.value,
        "attributes": attributes,
        "crc": crc,
        "partition_leader_epoch": batch.partition_leader_epoch,
        "producer_id": batch.producer_id,
        "producer_epoch": batch.producer_epoch,
        "base_sequence": batch.base_sequence,
        "transactional": batch.is_transactional,
        "control": batch.is_control,
        "delete_horizon_ms": batch.delete_horizon_ms,
        "base_timestamp": batch.base_timestamp,
        "max_timestamp": batch.max_timestamp,
        "records": [record_state(r, batch.max_timestamp if log_append_time else None) for r in batch.records],
    }


def record_state(record: Record, read_timestamp: int | None = None) -> dict[str, Any]:
    """One record as scenario files write it: offset, timestamp (ms, the stored value), key, value and headers
    as JSON bytes; ``read_timestamp`` (LogAppendTime batches only) is the one a consumer reads, the batch's
    max timestamp (``DefaultRecordBatch``'s record iterator)."""
    state = {
        "offset": record.offset,
        "timestamp": record.timestamp,
        "key": encode_bytes(record.key),
        "value": encode_bytes(record.value),
        "headers": [[name, encode_bytes(value)] for name, value in record.headers],
    }
    if read_timestamp is not None:
        state["read_timestamp"] = read_timestamp
    return state


def _aborted(txn: AbortedTxn) -> dict[str, int]:
    return {
        "producer_id": txn.producer_id,
        "first_offset": txn.first_offset,
        "last_offset": txn.last_offset,
        "last_stable_offset": txn.last_stable_offset,
    }
