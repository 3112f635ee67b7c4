"""Segment files straight into Arrow columns, inside Spark tasks.

The io reader frames each batch and checks its length, magic, CRC and offsets; uncompressed records are
then parsed here with one list append per column and record (no record objects, no row tuples), and
batch fields are stored once per batch and repeated in C when a chunk becomes an Arrow batch.
Compressed batches, and any batch this parser does not read cleanly, go through the io reader's own
decoding (:meth:`SegmentFileReader.decode_batch`), which also raises its error for corrupt records, so
rows and errors are the same as decoding every batch with kafka-python.

A record (``DefaultRecord``) after the 61-byte batch header::

    field              encoding          notes
    length             varint            bytes of the record after this field
    attributes         int8              unused, 0
    timestampDelta     varlong           from the batch's baseTimestamp
    offsetDelta        varint            from the batch's baseOffset
    keyLength, key     varint, bytes     -1: null key
    valueLength, value varint, bytes     -1: null value (a tombstone)
    headersCount       varint
    headers            keyLength varint, key (UTF-8), valueLength varint, value (-1: null)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy
import pyarrow as pa  # type: ignore[import-untyped]

from kcompact_nb.core import RecordBatch, TimestampType, record_size_bytes
from kcompact_nb.io import SegmentFileReader
from kcompact_nb.spark._file_tasks import ARROW_CHUNK_ROWS, ARROW_SCHEMA

_RECORDS_POSITION = 61
_CODEC_MASK = 0x07
_LOG_APPEND_TIME_BIT, _TRANSACTIONAL_BIT, _CONTROL_BIT, _DELETE_HORIZON_BIT = 0x08, 0x10, 0x20, 0x40
_BATCH_TYPES = [pa.int32(), pa.int64(), pa.int64(), pa.int64(), pa.int32(), pa.bool_(), pa.bool_(), pa.int64()]
"""timestampType and the batch columns of :data:`ARROW_SCHEMA`, in its order (record size excluded)."""


class _NotPlain(Exception):
    """This parser does not read the batch cleanly: the io reader's decoding decides."""


def decode_segment_columns(reader: SegmentFileReader, topic: str, partition: int) -> Iterator[pa.RecordBatch]:
    """The records of one segment file as Arrow batches of about :data:`ARROW_CHUNK_ROWS` rows."""
    columns = SegmentColumns(reader, topic, partition)
    for _ in reader.decoded(columns.add):
        if len(columns.offsets) >= ARROW_CHUNK_ROWS:
            yield columns.take()
    if columns.offsets:
        yield columns.take()


class SegmentColumns:
    """Column lists of one segment's records; :meth:`add` takes a batch's bytes, :meth:`take` a chunk."""

    def __init__(self, reader: SegmentFileReader, topic: str, partition: int) -> None:
        self.reader, self.topic, self.partition = reader, topic, partition
        self._restart()

    def _restart(self) -> None:
        self.keys: list[bytes | None] = []
        self.values: list[bytes | None] = []
        self.offsets: list[int] = []
        self.stamps_ms: list[int] = []
        self.headers: list[list[dict[str, Any]] | None] = []
        self.sizes: list[int] = []
        self.batches: list[tuple[Any, ...]] = []
        self.counts: list[int] = []

    def add(self, data: bytes, position: int, next_offset: int) -> None:
        """One framed batch (:meth:`SegmentFileReader.decoded` calls this)."""
        header = self.reader.check_header(data, position, next_offset)
        attributes = header[5]
        if attributes & _CODEC_MASK == 0 and self._add_plain(data, header):
            return
        self._add_batch(self.reader.decode_batch(data, position, next_offset))

    def _add_plain(self, data: bytes, header: tuple[Any, ...]) -> bool:
        base_offset, _, _, _, _, attributes, last_delta, base_ts, max_ts, producer_id, epoch, _, count = header
        rows = len(self.offsets)
        try:
            self._parse_records(data, base_offset, base_ts, last_delta, count)
        except (_NotPlain, IndexError, ValueError):
            for column in (self.keys, self.values, self.offsets, self.stamps_ms, self.headers, self.sizes):
                del column[rows:]
            return False
        if attributes & _LOG_APPEND_TIME_BIT:
            self.stamps_ms[rows:] = [max_ts] * (len(self.offsets) - rows)
        flags = bool(attributes & _TRANSACTIONAL_BIT), bool(attributes & _CONTROL_BIT)
        horizon = base_ts if attributes & _DELETE_HORIZON_BIT else None
        timestamp_type = (attributes & _LOG_APPEND_TIME_BIT) >> 3
        fields = (timestamp_type, base_offset, base_offset + last_delta, producer_id, epoch, *flags, horizon)
        self._add_batch_fields(fields, len(self.offsets) - rows)
        return True

    def _parse_records(self, data: bytes, base_offset: int, base_ts: int, last_delta: int, count: int) -> None:
        # Varints of one byte (lengths under 64, offset deltas, header counts) are decoded inline: the
        # call to _varint is the largest cost per record otherwise.
        keys, values, offsets, stamps = self.keys, self.values, self.offsets, self.stamps_ms
        headers, sizes = self.headers, self.sizes
        pos, previous = _RECORDS_POSITION, -1
        for _ in range(count):
            start, byte = pos, data[pos]
            length, pos = ((byte >> 1) ^ -(byte & 1), pos + 1) if byte < 0x80 else _varint(data, pos)
            end = pos + length
            if data[pos] >= 0x80:  # attributes: one byte in every valid record
                raise _NotPlain
            ts_delta, pos = _varint(data, pos + 1)
            byte = data[pos]
            offset_delta, pos = ((byte >> 1) ^ -(byte & 1), pos + 1) if byte < 0x80 else _varint(data, pos)
            if not previous < offset_delta <= last_delta:
                raise _NotPlain
            previous = offset_delta
            byte = data[pos]
            key_length, pos = ((byte >> 1) ^ -(byte & 1), pos + 1) if byte < 0x80 else _varint(data, pos)
            keys.append(None if key_length < 0 else data[pos : pos + key_length])
            if key_length > 0:
                pos += key_length
            byte = data[pos]
            value_length, pos = ((byte >> 1) ^ -(byte & 1), pos + 1) if byte < 0x80 else _varint(data, pos)
            values.append(None if value_length < 0 else data[pos : pos + value_length])
            if value_length > 0:
                pos += value_length
            if data[pos] == 0:
                headers.append(None)
                pos += 1
            else:
                record_headers, pos = _headers(data, pos)
                headers.append(record_headers)
            if pos != end:
                raise _NotPlain
            offsets.append(base_offset + offset_delta)
            stamps.append(base_ts + ts_delta)
            sizes.append(end - start)
        if pos != len(data):
            raise _NotPlain

    def _add_batch(self, batch: RecordBatch) -> None:
        log_append = batch.timestamp_type is TimestampType.LOG_APPEND_TIME
        for r in batch.records:
            self.keys.append(r.key)
            self.values.append(r.value)
            self.offsets.append(r.offset)
            self.stamps_ms.append(batch.max_timestamp if log_append else r.timestamp)
            self.headers.append([{"key": k, "value": v} for k, v in r.headers] if r.headers else None)
            deltas = (r.offset - batch.base_offset, r.timestamp - batch.base_timestamp)
            self.sizes.append(record_size_bytes(*deltas, r.key, r.value, r.headers))
        offsets = (batch.base_offset, batch.last_offset)
        producer = (batch.producer_id, batch.producer_epoch, batch.is_transactional, batch.is_control)
        self._add_batch_fields((int(log_append), *offsets, *producer, batch.delete_horizon_ms), len(batch.records))

    def _add_batch_fields(self, fields: tuple[Any, ...], rows: int) -> None:
        self.batches.append(fields)
        self.counts.append(rows)

    def take(self) -> pa.RecordBatch:
        """The records added since the last call as one Arrow batch in :data:`ARROW_SCHEMA`; the lists restart."""
        rows = len(self.offsets)
        per_batch = [pa.array(column, type=t) for column, t in zip(zip(*self.batches), _BATCH_TYPES)]
        spread = pa.RecordBatch.from_arrays(per_batch, names=[str(i) for i in range(len(per_batch))])
        spread = spread.take(numpy.repeat(numpy.arange(len(self.counts)), self.counts))
        stamps_us = numpy.array(self.stamps_ms, dtype=numpy.int64) * 1000
        arrays = [
            pa.array(self.keys, pa.binary()),
            pa.array(self.values, pa.binary()),
            pa.repeat(pa.scalar(self.topic, pa.string()), rows),
            pa.repeat(pa.scalar(self.partition, pa.int32()), rows),
            pa.array(self.offsets, pa.int64()),
            pa.array(stamps_us, type=ARROW_SCHEMA.field("timestamp").type),
            spread.column(0),
            pa.array(self.headers, ARROW_SCHEMA.field("headers").type),
            pa.repeat(pa.scalar(self.reader.base_offset, pa.int64()), rows),
            *spread.columns[1:],
            pa.array(self.sizes, pa.int32()),
        ]
        self._restart()
        return pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """A zigzag varint (``ByteUtils.readVarint``/``readVarlong``) at ``pos``, and the position after it."""
    byte = data[pos]
    if byte < 0x80:
        return (byte >> 1) ^ -(byte & 1), pos + 1
    value, shift = byte & 0x7F, 7
    while True:
        pos += 1
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return (value >> 1) ^ -(value & 1), pos + 1
        shift += 7
        if shift > 63:
            raise _NotPlain


def _headers(data: bytes, pos: int) -> tuple[list[dict[str, Any]], int]:
    count, pos = _varint(data, pos)
    if count < 0:
        raise _NotPlain
    headers = []
    for _ in range(count):
        key_length, pos = _varint(data, pos)
        if key_length < 0:
            raise _NotPlain
        key = data[pos : pos + key_length].decode("utf-8")
        value_length, pos = _varint(data, pos + key_length)
        value = None if value_length < 0 else data[pos : pos + value_length]
        headers.append({"key": key, "value": value})
        pos += max(value_length, 0)
    return headers, pos
