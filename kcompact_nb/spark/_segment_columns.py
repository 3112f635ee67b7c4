"""Segment files straight into Arrow columns, inside Spark tasks.

The io reader frames each batch and checks its length, magic, CRC and offsets; uncompressed records are
then parsed into column lists by the io layer's record parser (no record objects, no row tuples), and
batch fields are stored once per batch and repeated in C when a chunk becomes an Arrow batch.
Compressed batches, and any batch that parser does not read cleanly, go through the io reader's own
decoding (:meth:`SegmentFileReader.decode_batch`), which also raises its error for corrupt records, so
rows and errors are the same as decoding every batch with kafka-python.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy
import pyarrow as pa

from kcompact_nb.core import RecordBatch, TimestampType, record_size_bytes
from kcompact_nb.io import NotPlain, RecordColumns, SegmentFileReader, parse_records
from kcompact_nb.spark._file_tasks import ARROW_CHUNK_ROWS, ARROW_SCHEMA

_CODEC_MASK = 0x07
_LOG_APPEND_TIME_BIT, _TRANSACTIONAL_BIT, _CONTROL_BIT, _DELETE_HORIZON_BIT = 0x08, 0x10, 0x20, 0x40
_BATCH_TYPES = [pa.int32(), pa.int64(), pa.int64(), pa.int64(), pa.int32(), pa.bool_(), pa.bool_(), pa.int64()]
"""timestampType and the batch columns of :data:`ARROW_SCHEMA`, in its order (record size excluded)."""


def decode_segment_columns(reader: SegmentFileReader, topic: str, partition: int) -> Iterator[pa.RecordBatch]:
    """The records of one segment file as Arrow batches of about :data:`ARROW_CHUNK_ROWS` rows."""
    columns = SegmentColumns(reader, topic, partition)
    for _ in reader.decoded(columns.add):
        if len(columns.records) >= ARROW_CHUNK_ROWS:
            yield columns.take()
    if columns.records:
        yield columns.take()


class SegmentColumns:
    """Column lists of one segment's records; :meth:`add` takes a batch's bytes, :meth:`take` a chunk."""

    def __init__(self, reader: SegmentFileReader, topic: str, partition: int) -> None:
        self.reader, self.topic, self.partition = reader, topic, partition
        self._restart()

    def _restart(self) -> None:
        self.records = RecordColumns()
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
        records = self.records
        rows = len(records)
        try:
            parse_records(data, base_offset, base_ts, last_delta, count, records)
        except NotPlain:
            records.truncate(rows)
            return False
        if attributes & _LOG_APPEND_TIME_BIT:
            records.timestamps[rows:] = [max_ts] * (len(records) - rows)
        flags = bool(attributes & _TRANSACTIONAL_BIT), bool(attributes & _CONTROL_BIT)
        horizon = base_ts if attributes & _DELETE_HORIZON_BIT else None
        timestamp_type = (attributes & _LOG_APPEND_TIME_BIT) >> 3
        fields = (timestamp_type, base_offset, base_offset + last_delta, producer_id, epoch, *flags, horizon)
        self._add_batch_fields(fields, len(records) - rows)
        return True

    def _add_batch(self, batch: RecordBatch) -> None:
        log_append = batch.timestamp_type is TimestampType.LOG_APPEND_TIME
        records = self.records
        for r in batch.records:
            records.keys.append(r.key)
            records.values.append(r.value)
            records.offsets.append(r.offset)
            records.timestamps.append(batch.max_timestamp if log_append else r.timestamp)
            records.headers.append(r.headers)
            deltas = (r.offset - batch.base_offset, r.timestamp - batch.base_timestamp)
            records.sizes.append(record_size_bytes(*deltas, r.key, r.value, r.headers))
        offsets = (batch.base_offset, batch.last_offset)
        producer = (batch.producer_id, batch.producer_epoch, batch.is_transactional, batch.is_control)
        self._add_batch_fields((int(log_append), *offsets, *producer, batch.delete_horizon_ms), len(batch.records))

    def _add_batch_fields(self, fields: tuple[Any, ...], rows: int) -> None:
        self.batches.append(fields)
        self.counts.append(rows)

    def take(self) -> pa.RecordBatch:
        """The records added since the last call as one Arrow batch in :data:`ARROW_SCHEMA`; the lists restart."""
        records = self.records
        rows = len(records)
        per_batch = [
            pa.array(column, type=t) for column, t in zip(zip(*self.batches, strict=False), _BATCH_TYPES, strict=False)
        ]
        spread = pa.RecordBatch.from_arrays(per_batch, names=[str(i) for i in range(len(per_batch))])
        spread = spread.take(numpy.repeat(numpy.arange(len(self.counts)), self.counts))
        stamps_us = numpy.array(records.timestamps, dtype=numpy.int64) * 1000
        headers = [[{"key": k, "value": v} for k, v in h] if h else None for h in records.headers]
        arrays = [
            pa.array(records.keys, pa.binary()),
            pa.array(records.values, pa.binary()),
            pa.repeat(pa.scalar(self.topic, pa.string()), rows),
            pa.repeat(pa.scalar(self.partition, pa.int32()), rows),
            pa.array(records.offsets, pa.int64()),
            pa.array(stamps_us, type=ARROW_SCHEMA.field("timestamp").type),
            spread.column(0),
            pa.array(headers, ARROW_SCHEMA.field("headers").type),
            pa.repeat(pa.scalar(self.reader.base_offset, pa.int64()), rows),
            *spread.columns[1:],
            pa.array(records.sizes, pa.int32()),
        ]
        self._restart()
        return pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)
