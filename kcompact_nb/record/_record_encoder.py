"""The uncompressed records section of a v2 batch whose records have no headers, written without a builder.

Byte for byte what kafka-python's ``DefaultRecordBatchBuilder.append`` (and Kafka's ``DefaultRecord.writeTo``)
write, a record at a time: length varint, attributes 0, timestampDelta varlong, offsetDelta varint, key and
value each as a length varint (-1: null) and its bytes, headersCount 0. The C kernel
(:mod:`kcompact_nb.record._native`) writes them when it was built (:func:`records_section_in_c`); in its twin
(:func:`records_section_in_python`) zigzag varints of small values come from a
table, so a record costs a few list operations.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from typing import Any

import numpy

from kcompact_nb.record import _batch_header as L
from kcompact_nb.record._batch_header import java_long
from kcompact_nb.record._crc import crc32c
from kcompact_nb.record._native_kernels import c_kernels
from kcompact_nb.record._packed_records import PackedRecords
from kcompact_nb.record._record import Record

_TABLE_LIMIT = 1 << 14


def _zigzag_varint(value: int) -> bytes:
    """A zigzag varint (``ByteUtils.writeVarint``/``writeVarlong``)."""
    unsigned = (value << 1) ^ (value >> 63)
    out = bytearray()
    while unsigned >= 0x80:
        out.append((unsigned & 0x7F) | 0x80)
        unsigned >>= 7
    out.append(unsigned)
    return bytes(out)


@cache
def _small_varints() -> list[bytes]:
    """The varints of -16384..16383, made on the twin's first use (a tenth of a second nothing else pays for)."""
    return [_zigzag_varint(v) for v in range(-_TABLE_LIMIT, _TABLE_LIMIT)]


_NULL = _zigzag_varint(-1)
_large_varint = lru_cache(maxsize=1024)(_zigzag_varint)
"""Larger values repeat too: a rebuilt batch's records share one timestamp delta from its delete horizon."""


def records_section_in_c(records: Iterable[Any], base_offset: int, base_timestamp: int) -> bytes:
    """The records (``Record``-like: offset, timestamp, key, value; no headers) as stored after the batch header,
    written by the C kernel's ``records_section``.

    Packed records are read by column, without building a record object each.
    """
    columns: tuple[array[int], array[int], Sequence[bytes | None], Sequence[bytes | None]]
    if isinstance(records, PackedRecords):
        columns = (records.offsets, records.timestamps, records.keys, records.values)
    else:
        rows = list(records)
        offsets, timestamps = array("q", [r.offset for r in rows]), array("q", [r.timestamp for r in rows])
        columns = (offsets, timestamps, [r.key for r in rows], [r.value for r in rows])
    section: bytes = c_kernels().records_section(*columns, base_offset, base_timestamp)
    return section


def records_section_in_python(records: Iterable[Any], base_offset: int, base_timestamp: int) -> bytes:
    """:func:`records_section_in_c`'s twin, a record at a time."""
    rows: Iterable[tuple[int, int, bytes | None, bytes | None]] = (
        zip(records.offsets, records.timestamps, records.keys, records.values, strict=True)
        if isinstance(records, PackedRecords)
        else ((r.offset, r.timestamp, r.key, r.value) for r in records)
    )
    parts: list[bytes] = []
    append, small, limit = parts.append, _small_varints(), _TABLE_LIMIT
    for record_offset, timestamp, key, value in rows:
        delta = java_long(timestamp - base_timestamp)  # wraps as the C kernel's and Java's do
        offset = record_offset - base_offset
        body = b"".join(
            (
                b"\x00",
                small[delta + limit] if -limit <= delta < limit else _large_varint(delta),
                small[offset + limit] if offset < limit else _large_varint(offset),
                _NULL if key is None else small[len(key) + limit] if len(key) < limit else _large_varint(len(key)),
                b"" if key is None else key,
                _NULL
                if value is None
                else small[len(value) + limit]
                if len(value) < limit
                else _large_varint(len(value)),
                b"" if value is None else value,
                b"\x00",
            )
        )
        size = len(body)
        append(small[size + limit] if size < limit else _large_varint(size))
        append(body)
    return b"".join(parts)


Placed = tuple[bytes, "array[int]", "array[int]"]
"""A records section and where each record's key and value start in it (int64 arrays)."""


def placed_records_section_in_c(records: PackedRecords, base_offset: int, base_timestamp: int, at: int) -> Placed:
    """The records section of packed records whose keys and values are spans of one batch's bytes
    (:meth:`PackedRecords.spans`), and where each key and value lands: ``at`` plus its position in the section;
    written by the C kernel's ``placed_records_section`` (no key or value sliced out)."""
    data, key_starts, key_lengths, value_starts, value_lengths = _spans_of(records)
    key_positions, value_positions = array("q", bytes(8 * len(key_starts))), array("q", bytes(8 * len(key_starts)))
    section: bytes = c_kernels().placed_records_section(
        data, records.offsets, records.timestamps, key_starts, key_lengths, value_starts, value_lengths,
        base_offset, base_timestamp, key_positions, value_positions, at,
    )  # fmt: skip
    return section, key_positions, value_positions


def placed_records_section_in_python(records: PackedRecords, base_offset: int, base_timestamp: int, at: int) -> Placed:
    """:func:`placed_records_section_in_c`'s twin: each record written by :func:`records_section_in_python`, its value
    ending the record but for headersCount, its key before the value's length."""
    data, key_starts, key_lengths, value_starts, value_lengths = _spans_of(records)
    parts, key_positions, value_positions, end = [], array("q"), array("q"), at
    for offset, timestamp, key_start, key_length, value_start, value_length in zip(
        records.offsets, records.timestamps, key_starts, key_lengths, value_starts, value_lengths, strict=True
    ):
        key = None if key_length < 0 else data[key_start : key_start + key_length]
        value = None if value_length < 0 else data[value_start : value_start + value_length]
        record = records_section_in_python([Record(offset, timestamp, key, value, ())], base_offset, base_timestamp)
        end += len(record)
        value_positions.append(end - 1 - max(value_length, 0))
        key_positions.append(value_positions[-1] - len(_zigzag_varint(value_length)) - max(key_length, 0))
        parts.append(record)
    return b"".join(parts), key_positions, value_positions


SpanColumns = tuple[Any, Any, Any, Any, Any, Any]
"""Records whose keys and values are spans of other bytes, as int64 columns: offsets, timestamps, key starts, key
lengths, value starts, value lengths (a length of -1: null)."""

PLACED_HEADER_FIELDS = (
    "base_offset", "partition_leader_epoch", "attributes", "last_offset_delta", "base_timestamp", "max_timestamp",
    "producer_id", "producer_epoch", "base_sequence",
)  # fmt: skip
"""A placed batch's header fields given (a row of int64s per batch), in the header's order; its length, record count
and CRC-32C are computed."""

PlacedBatches = tuple[list[bytes], "array[int]", "array[int]"]
"""Batches' bytes and where each record's key and value start in its batch's bytes (int64 arrays, flat)."""


def placed_batches_in_c(data: bytes, records: SpanColumns, counts: Any, headers: Any) -> PlacedBatches:
    """Uncompressed batches of ``records`` (spans of ``data``; ``counts[b]`` of them in batch ``b``, at least one),
    each with its row of ``headers`` (:data:`PLACED_HEADER_FIELDS`), and where each key and value lands in its
    batch; written by the C kernel's ``placed_batches`` (no key or value sliced out)."""
    columns = [numpy.ascontiguousarray(column, numpy.int64) for column in records]
    key_positions, value_positions = array("q", bytes(8 * len(columns[0]))), array("q", bytes(8 * len(columns[0])))
    batches: list[bytes] = c_kernels().placed_batches(
        data, *columns, numpy.ascontiguousarray(counts, numpy.int64), numpy.ascontiguousarray(headers, numpy.int64),
        key_positions, value_positions,
    )  # fmt: skip
    return batches, key_positions, value_positions


def framed_batch(fields: Sequence[int], count: int, section: bytes) -> bytes:
    """A v2 batch: its 61-byte header from ``fields`` (:data:`PLACED_HEADER_FIELDS`) and ``count`` records, its length
    and CRC-32C computed, then ``section``, its records section (compressed or not)."""
    base_offset, leader_epoch, *rest = fields
    length = L.RECORD_BATCH_OVERHEAD - L.LOG_OVERHEAD + len(section)
    batch = bytearray(L.HEADER.pack(base_offset, length, leader_epoch, 2, 0, *rest, count)) + section
    L.CRC.pack_into(batch, L.CRC_POSITION, crc32c(memoryview(batch)[L.ATTRIBUTES_POSITION :]))
    return bytes(batch)


def placed_batches_in_python(data: bytes, records: SpanColumns, counts: Any, headers: Any) -> PlacedBatches:
    """:func:`placed_batches_in_c`'s twin: each batch's records section by :func:`placed_records_section_in_python`,
    its header packed and checksummed."""
    columns = [array("q", numpy.asarray(column, numpy.int64).tobytes()) for column in records]
    batches, key_positions, value_positions, first = [], array("q"), array("q"), 0
    for count, fields in zip(
        numpy.asarray(counts).tolist(), numpy.asarray(headers).reshape(-1, 9).tolist(), strict=True
    ):
        if count < 1:
            raise ValueError(f"a batch of {count} records")
        offsets, timestamps, key_starts, key_lengths, value_starts, value_lengths = (
            column[first : first + count] for column in columns
        )
        spans = PackedRecords.from_span_keys(
            offsets, timestamps, data, (key_starts, key_lengths), (value_starts, value_lengths), min(key_lengths) >= 0
        )  # fmt: skip
        section, keys, values = placed_records_section_in_python(spans, fields[0], fields[4], L.RECORD_BATCH_OVERHEAD)
        batches.append(framed_batch(fields, count, section))
        key_positions += keys
        value_positions += values
        first += count
    if first != len(columns[0]):
        raise ValueError(f"the batches hold {first} records, not {len(columns[0])}")
    return batches, key_positions, value_positions


def _spans_of(records: PackedRecords) -> tuple[bytes, array[int], array[int], array[int], array[int]]:
    spans = records.spans()
    if spans is None:
        raise ValueError("the records' keys and values are not spans of one batch's bytes")
    return spans
