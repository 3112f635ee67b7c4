"""The tables ``kcompact dump`` prints for one segment file: its batches, records indented below each."""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, TextIO

from kcompact_nb.cli._text import column_widths, iso_time, join_cells, plural, show_bytes

if TYPE_CHECKING:
    from kcompact_nb.core import Record, RecordBatch

BATCH_COLUMNS = ("position", "offsets", "count", "size", "max timestamp", "producer", "flags", "codec")
RECORD_COLUMNS = ("offset", "timestamp", "key", "value", "headers")


class SegmentStats:
    """Counts and the largest timestamp of the batches shown so far, for a segment's summary line."""

    def __init__(self) -> None:
        self.batches = 0
        self.records = 0
        self.next_offset: int | None = None
        self.max_timestamp = -1

    def add(self, batch: RecordBatch) -> None:
        self.batches += 1
        self.records += len(batch.records)
        self.next_offset = batch.last_offset + 1
        self.max_timestamp = max(self.max_timestamp, batch.max_timestamp)

    def summary(self) -> str:
        largest = _time(self.max_timestamp)
        return f"{plural(self.batches, 'batch')}, {plural(self.records, 'record')}, largest timestamp {largest}"


class Table:
    """Aligned batch rows with their records indented below; buffered in blocks so a huge
    segment never sits in memory while the column widths still fit."""

    BLOCK = 500

    def __init__(self, out: TextIO, records: bool) -> None:
        self.out = out
        self.record_columns = RECORD_COLUMNS if records else None
        self.lines: list[tuple[bool, tuple[str, ...]]] = []

    def add(self, batch: RecordBatch, position: int, max_chars: int) -> None:
        """One batch row at byte ``position`` and, when records are shown, a row per record."""
        if len(self.lines) >= self.BLOCK:
            self.flush()
        self.lines.append((True, batch_cells(batch, position)))
        if self.record_columns is not None:
            self.lines.extend((False, record_cells(batch, r, max_chars)) for r in batch.records)

    def flush(self) -> None:
        if not self.lines:
            return
        batch_widths = column_widths([BATCH_COLUMNS] + [cells for is_batch, cells in self.lines if is_batch])
        self.out.write("  " + join_cells(tuple(c.upper() for c in BATCH_COLUMNS), batch_widths) + "\n")
        record_rows = [cells for is_batch, cells in self.lines if not is_batch]
        record_widths: list[int] = []
        if self.record_columns is not None:
            record_widths = column_widths([self.record_columns] + record_rows)
            self.out.write("    | " + join_cells(tuple(c.upper() for c in self.record_columns), record_widths) + "\n")
        for is_batch, cells in self.lines:
            line = "  " + join_cells(cells, batch_widths) if is_batch else "    | " + join_cells(cells, record_widths)
            self.out.write(line + "\n")
        self.lines = []


def batch_cells(batch: RecordBatch, position: int) -> tuple[str, ...]:
    """The batch row: byte position, offsets, record count, size, max timestamp, producer, flags, codec."""
    offsets = (
        f"{batch.base_offset}" if batch.base_offset == batch.last_offset else f"{batch.base_offset}-{batch.last_offset}"
    )
    producer = "-" if not batch.has_producer_id else f"{batch.producer_id}/e{batch.producer_epoch}"
    if batch.has_producer_id and batch.base_sequence >= 0:
        producer += f"/s{batch.base_sequence}"
    return (
        str(position),
        offsets,
        str(len(batch.records)),
        str(batch.size_bytes),
        _time(batch.max_timestamp),
        producer,
        batch_flags(batch),
        batch.compression,
    )


def batch_flags(batch: RecordBatch) -> str:
    """Short words for a batch's attribute bits (``-`` when none is set)."""
    flags = []
    if batch.is_transactional:
        flags.append("txn")
    if batch.is_control:
        flags.append("control")
    if batch.timestamp_type.value == "LogAppendTime":
        flags.append("log-append-time")
    if batch.delete_horizon_ms is not None:
        flags.append(f"delete-horizon={_time(batch.delete_horizon_ms)}")
    if not batch.records:
        flags.append("empty")
    return ",".join(flags) or "-"


def record_cells(batch: RecordBatch, record: Record, max_chars: int) -> tuple[str, ...]:
    """The record row: offset, timestamp, key, value (tombstones and markers named), header names."""
    headers = ",".join(name for name, _ in record.headers)
    if batch.is_control:
        return (str(record.offset), _time(record.timestamp), "(control)", _marker(record), headers)
    value = "null (tombstone)" if record.value is None else show_bytes(record.value, max_chars)
    return (str(record.offset), _time(record.timestamp), show_bytes(record.key, max_chars), value, headers)


def _time(ms: int) -> str:
    """A timestamp for people: ISO-8601 UTC, ``none`` for Kafka's -1 (no timestamp)."""
    return iso_time(ms) if ms >= 0 else "none"


def _marker(record: Record) -> str:
    key = record.key or b""
    if len(key) < 4:
        return "control record"
    kind = struct.unpack_from(">h", key, 2)[0]
    name = {0: "ABORT marker", 1: "COMMIT marker"}.get(kind, f"control type {kind}")
    value = record.value or b""
    if kind in (0, 1) and len(value) >= 6:
        name += f" (coordinator epoch {struct.unpack_from('>i', value, 2)[0]})"
    return name
