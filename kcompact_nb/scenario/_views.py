"""What a partition holds, as assertions see it: offsets, keys and a consumer's live state."""

from __future__ import annotations

import struct
from collections.abc import Iterator

from kcompact_nb.core import ControlRecordType, PartitionLog, Record, RecordBatch, control_record_type

_NO_VERSION = (0, 0)


def retained_offsets(log: PartitionLog) -> list[int]:
    """Offsets of every record present, control records included, in log order."""
    return [record.offset for _, record in log.records()]


def retained_keys(log: PartitionLog) -> list[bytes | None]:
    """Keys of the data records with a non-null value, in log order (control records excluded)."""
    return [r.key for b, r in log.records() if not b.is_control and r.value is not None]


def live_state(log: PartitionLog) -> dict[bytes, bytes]:
    """``{key: value}`` a ``read_committed`` consumer reading from the log start ends with.

    It reads ``[log start offset, last stable offset)``, skips aborted transactional data and
    applies tombstones. Under ``compaction.strategy`` ``offset`` the last record of a key wins;
    under KIP-280's ``timestamp`` / ``header`` the highest (version, offset) wins (spec 14).
    """
    winners: dict[bytes, tuple[tuple[int, int, int], Record]] = {}
    for batch, record in _committed_records(log):
        if record.key is None:
            continue
        rank = (*_version(log, batch, record), record.offset)
        current = winners.get(record.key)
        if current is None or rank > current[0]:
            winners[record.key] = (rank, record)
    return {key: rec.value for key, (_, rec) in winners.items() if rec.value is not None}


def _committed_records(log: PartitionLog) -> Iterator[tuple[RecordBatch, Record]]:
    aborted = aborted_batch_offsets(log)
    for batch in log.batches():
        if batch.is_control or batch.base_offset in aborted:
            continue
        for record in batch.records:
            if log.log_start_offset <= record.offset < log.last_stable_offset:
                yield batch, record


def aborted_batch_offsets(log: PartitionLog) -> set[int]:
    """Base offsets of transactional data batches whose transaction ended with an ABORT marker."""
    pending: dict[int, list[int]] = {}
    aborted: set[int] = set()
    for batch in log.batches():
        if not batch.is_transactional:
            continue
        if not batch.is_control:
            pending.setdefault(batch.producer_id, []).append(batch.base_offset)
            continue
        batches = pending.pop(batch.producer_id, [])
        if batch.records and control_record_type(batch.records[0]) is ControlRecordType.ABORT:
            aborted.update(batches)
    return aborted


def _version(log: PartitionLog, batch: RecordBatch, record: Record) -> tuple[int, int]:
    """(present, version) of a record under the topic's KIP-280 strategy; (0, 0) for ``offset``."""
    strategy = log.config.compaction_strategy
    if strategy == "timestamp":
        return 1, batch.read_timestamp(record)
    if strategy == "header":
        return header_version(record, log.config.compaction_strategy_header)
    return _NO_VERSION


def header_version(record: Record, header: str) -> tuple[int, int]:
    """(1, value) of the LAST header named ``header`` holding exactly 8 bytes; (0, 0) when absent (spec 14)."""
    values = [value for name, value in record.headers if name == header]
    if not values or values[-1] is None or len(values[-1]) != 8:
        return _NO_VERSION
    return 1, struct.unpack(">q", values[-1])[0]
