"""Core values as rows: plain dicts of exact values (bytes, ms, offsets) under Kafka's names, ready for JSON.

The one home of a partition's, a segment's, a batch's and a record's state, of ``LogToClean``'s cleanable range and of
a pass (``PassResult``) as documents show them: scenario result documents (docs/scenario-format.md), ``kcompact dump
--json``, ``kcompact kcat --json`` and ``kcompact inspect --json``, and Spark's partition passes all take them from
here. Keys, values and header values are JSON as scenario files write them (:func:`json_bytes`).
"""

from __future__ import annotations

import base64
from typing import Any

from kcompact_nb.core.cleaner import CleanerStats, LogToClean, PassResult, log_to_clean
from kcompact_nb.core.model import AbortedTxn, PartitionLog, Segment
from kcompact_nb.record import Record, RecordBatch, TimestampType, batch_attributes_and_crc

LOG_TO_CLEAN_FIELDS = (
    "first_dirty_offset",
    "first_uncleanable_offset",
    "clean_bytes",
    "cleanable_bytes",
    "total_bytes",
    "cleanable_ratio",
    "compaction_delay_ms",
    "eligible",
)
"""The cleanable range and ratio as ``LogToClean`` computes them (spec 4-5), in the order rows give them."""
STATS_FIELDS = (
    "bytes_read",
    "bytes_written",
    "messages_read",
    "messages_written",
    "map_bytes_read",
    "map_messages_read",
    "invalid_messages_read",
    "buffer_utilization",
)
"""The counters of a pass's ``CleanerStats`` that Kafka's log line reports, in the order rows give them."""


def json_bytes(data: bytes | None) -> str | dict[str, str] | None:
    """``data`` as JSON: its text when it is valid UTF-8, ``{"base64": ...}`` otherwise, None for null."""
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def log_to_clean_row(ltc: LogToClean) -> dict[str, Any]:
    """The cleanable range, bytes, ratio, compaction delay and eligibility of ``ltc`` (:data:`LOG_TO_CLEAN_FIELDS`)."""
    return {name: getattr(ltc, name) for name in LOG_TO_CLEAN_FIELDS}


def pass_result_row(result: PassResult | None) -> dict[str, Any]:
    """A cleaner pass: the partition it selected (null when nothing ran), its range, end offset (the new
    checkpoint), ratio, the stats Kafka's log line reports and that line itself."""
    if result is None:
        return {"selected": None}
    return {
        "selected": {"topic": result.topic, "partition": result.partition},
        "first_dirty_offset": result.first_dirty_offset,
        "first_uncleanable_offset": result.first_uncleanable_offset,
        "end_offset": result.end_offset,
        "cleanable_ratio": result.cleanable_ratio,
        "stats": stats_row(result.stats),
        "log_line": result.log_line.strip(),  # Kafka's message without its leading line break
    }


def stats_row(stats: CleanerStats) -> dict[str, float | int]:
    """The counters of :data:`STATS_FIELDS`."""
    return {name: getattr(stats, name) for name in STATS_FIELDS}


def partition_row(log: PartitionLog, *, now_ms: int) -> dict[str, Any]:
    """The full state of one partition at ``now_ms``: its offsets, checkpoint, cleanable range and segments."""
    return {
        "log_start_offset": log.log_start_offset,
        "log_end_offset": log.log_end_offset,
        "high_watermark": log.high_watermark,
        "last_stable_offset": log.last_stable_offset,
        "checkpoint": log.cleaner_checkpoint,
        "dirtiness": log_to_clean_row(log_to_clean(log, now_ms=now_ms)),
        "segments": [segment_row(s) for s in log.segments],
    }


def segment_row(segment: Segment) -> dict[str, Any]:
    """A segment; ``size_estimated`` when a batch's size came from an estimate (no exact codec here)."""
    return {
        "base_offset": segment.base_offset,
        "size_bytes": segment.size_bytes,
        "size_estimated": segment.size_estimated,
        "largest_timestamp": segment.largest_timestamp,
        "aborted_transactions": [_aborted_txn_row(t) for t in segment.aborted_transactions],
        "batches": [batch_row(b) for b in segment.batches],
    }


def batch_row(batch: RecordBatch) -> dict[str, Any]:
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
        "records": [record_row(r, batch.max_timestamp if log_append_time else None) for r in batch.records],
    }


def record_row(record: Record, read_timestamp: int | None = None) -> dict[str, Any]:
    """One record: offset, timestamp (ms, the stored value), key, value and headers as JSON bytes; ``read_timestamp``
    (LogAppendTime batches only) is the one a consumer reads, the batch's max timestamp (``DefaultRecordBatch``'s
    record iterator)."""
    row = {
        "offset": record.offset,
        "timestamp": record.timestamp,
        "key": json_bytes(record.key),
        "value": json_bytes(record.value),
        "headers": [[name, json_bytes(value)] for name, value in record.headers],
    }
    if read_timestamp is not None:
        row["read_timestamp"] = read_timestamp
    return row


def _aborted_txn_row(txn: AbortedTxn) -> dict[str, int]:
    return {
        "producer_id": txn.producer_id,
        "first_offset": txn.first_offset,
        "last_offset": txn.last_offset,
        "last_stable_offset": txn.last_stable_offset,
    }
