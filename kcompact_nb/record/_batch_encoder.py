"""Encode a core :class:`RecordBatch` into v2 bytes, byte-for-byte as a broker stores it.

Records are encoded by kafka-python's ``DefaultRecordBatchBuilder`` and compressed as Kafka's
``MemoryRecordsBuilder`` does (:mod:`kcompact_nb.record._compression`); the header is then written from
the batch's own fields (base offset, leader epoch, attributes including the control and
delete-horizon bits, lastOffsetDelta, timestamps) and the CRC-32C recomputed. Record timestamp
deltas are relative to ``baseTimestamp``, which is the delete horizon when one is set (spec 2.5),
so stamped batches come out exactly as the cleaner writes them.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy

from kcompact_nb.record import _batch_header as L
from kcompact_nb.record._codec_releases import NEWEST_RELEASE, KafkaRelease
from kcompact_nb.record._compression import (
    CompressedRecords,
    check_codec_available,
    compress_records,
    records_compressor,
)
from kcompact_nb.record._crc import crc32c as calc_crc32c
from kcompact_nb.record._encoders import EncodedBatch
from kcompact_nb.record._kernels import placed_batches as placed_batches_kernel
from kcompact_nb.record._kernels import placed_records_section, records_section
from kcompact_nb.record._packed_records import PackedRecords
from kcompact_nb.record._record_batch import RecordBatch, TimestampType
from kcompact_nb.record._record_encoder import SpanColumns, framed_batch

_NO_LIMIT = 1 << 62
_LENGTH, _ATTRIBUTES = struct.Struct(">i"), struct.Struct(">h")


def attributes_of(batch: RecordBatch, *, compressed: bool) -> int:
    """The attributes field for ``batch`` (codec bits only when the body is compressed)."""
    attributes = L.COMPRESSION_CODECS.index(batch.compression) if compressed else 0
    if batch.timestamp_type is TimestampType.LOG_APPEND_TIME:
        attributes |= L.LOG_APPEND_TIME_BIT
    if batch.is_transactional:
        attributes |= L.TRANSACTIONAL_BIT
    if batch.is_control:
        attributes |= L.CONTROL_BIT
    if batch.delete_horizon_ms is not None:
        attributes |= L.DELETE_HORIZON_BIT
    return attributes


def base_timestamp_of(batch: RecordBatch) -> int:
    """``baseTimestamp`` as stored: the delete horizon when set, else the batch's base timestamp."""
    return batch.base_timestamp if batch.delete_horizon_ms is None else batch.delete_horizon_ms


def encode_records(batch: RecordBatch) -> bytes:
    """The uncompressed records section of ``batch`` (deltas against its stored base timestamp)."""
    records = batch.records
    if isinstance(records, PackedRecords) and records.spans() is not None:  # written from the spans, none sliced out
        return placed_records_section(records, batch.base_offset, base_timestamp_of(batch), 0)[0]
    if records.headers is None if isinstance(records, PackedRecords) else not any(r.headers for r in records):
        return records_section(batch.records, batch.base_offset, base_timestamp_of(batch))
    return _records_with_headers(batch)


def _records_with_headers(batch: RecordBatch) -> bytes:
    """The records section of a batch whose records carry headers, by kafka-python's builder.

    kafka-python is imported here: loading it takes tenths of a second, which nothing else of a run pays for.
    """
    from kafka.record.default_records import DefaultRecordBatchBuilder

    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=0,
        is_transactional=batch.is_transactional,
        producer_id=batch.producer_id,
        producer_epoch=batch.producer_epoch,
        base_sequence=batch.base_sequence,
        batch_size=_NO_LIMIT,
    )
    # the stock builder takes the first record's timestamp as the base; a batch with a delete horizon needs every
    # delta relative to the horizon instead, so the base is fixed before the first record
    builder._first_timestamp = builder._max_timestamp = base_timestamp_of(batch)
    for record in batch.records:
        builder.append(
            record.offset - batch.base_offset, record.timestamp, record.key, record.value, list(record.headers)
        )
    return bytes(builder.build()[L.RECORD_BATCH_OVERHEAD :])


def encode_batch(batch: RecordBatch, *, level: int | None = None, kafka_version: KafkaRelease | None = None) -> bytes:
    """The bytes of ``batch`` as a broker writes them (its codec at ``level``, default the codec's default).

    An empty batch (no records) is written uncompressed whatever its codec, as
    ``DefaultRecordBatch.writeEmptyHeader`` does (61 bytes).
    """
    return _encoded(batch, level, kafka_version or NEWEST_RELEASE)[0]


def _encoded(batch: RecordBatch, level: int | None, version: KafkaRelease) -> tuple[bytes, bool]:
    """The batch's bytes and whether they are exactly Kafka's."""
    body, exact = encode_records(batch), True
    compressed = batch.compression != "none" and bool(batch.records)
    if compressed:
        packed = compress_records(batch.compression, body, level=level, version=version)
        body, exact = packed.data, packed.exact
    return framed_batch(placed_header_fields(batch, compressed=compressed), len(batch.records), body), exact


class RebuiltBatches(NamedTuple):
    """Batches to write from records that are spans of one block's bytes (a keyed run's kept records), as numpy int64
    columns: the records' (:data:`~kcompact_nb.record._record_encoder.SpanColumns`, flat, batch after batch) and per
    batch its record count (at least one), its header's fields as its uncompressed layout has them (rows of
    :data:`~kcompact_nb.record._record_encoder.PLACED_HEADER_FIELDS`: no codec bits in the attributes) and its codec's
    index."""

    data: bytes
    records: SpanColumns
    counts: Any
    headers: Any
    codecs: Any


def placed_batches(rebuilt: RebuiltBatches) -> list[RecordBatch]:
    """The batches, each written once (the ``placed_batches`` kernel: no key or value sliced out) and its
    records made spans of its own bytes: an uncompressed batch with its ``raw`` bytes, a compressed one with its
    records laid out as a block's uncompressed view lays a batch out (its header, then its records), sized uncompressed
    for :func:`~kcompact_nb.record.compressed` (which compresses that section). None holds other bytes."""
    layouts, key_positions, value_positions = placed_batches_kernel(
        rebuilt.data, rebuilt.records, rebuilt.counts, rebuilt.headers
    )  # fmt: skip
    offsets, timestamps, _, key_lengths, _, value_lengths = (
        array("q", numpy.ascontiguousarray(column, numpy.int64).tobytes()) for column in rebuilt.records
    )
    counts = numpy.asarray(rebuilt.counts, numpy.int64)
    firsts = numpy.cumsum(counts) - counts
    keyed = (numpy.minimum.reduceat(numpy.asarray(rebuilt.records[3]), firsts) >= 0).tolist() if len(counts) else []
    batches = []
    for layout, first, count, fields, codec, all_keyed in zip(
        layouts, firsts.tolist(), counts.tolist(), numpy.asarray(rebuilt.headers).tolist(),
        numpy.asarray(rebuilt.codecs).tolist(), keyed, strict=True,
    ):  # fmt: skip
        end = first + count
        records = PackedRecords.from_span_keys(
            offsets[first:end], timestamps[first:end], layout, (key_positions[first:end], key_lengths[first:end]),
            (value_positions[first:end], value_lengths[first:end]), all_keyed,
        )  # fmt: skip
        (base_offset, leader_epoch, attributes, last_delta, base_timestamp, max_timestamp, producer, epoch,
         sequence) = fields  # fmt: skip
        compression = L.COMPRESSION_CODECS[codec]
        batches.append(RecordBatch(  # positional, in RecordBatch's field order: dataclasses.replace costs 25 us
            base_offset, base_offset + last_delta, records, len(layout), base_timestamp, max_timestamp,
            producer, epoch, sequence,
            bool(attributes & L.TRANSACTIONAL_BIT), bool(attributes & L.CONTROL_BIT),
            TimestampType.LOG_APPEND_TIME if attributes & L.LOG_APPEND_TIME_BIT else TimestampType.CREATE_TIME,
            compression, base_timestamp if attributes & L.DELETE_HORIZON_BIT else None, leader_epoch,
            layout if compression == "none" else None,
        ))  # fmt: skip
    return batches


class KafkaBatchEncoder:
    """A :class:`~kcompact_nb.record.BatchEncoder` with Kafka's codecs (``MemoryRecordsBuilder``).

    Exact for every codec at every level, except where the bytes hang on a native library release
    that no installed package has (see :mod:`kcompact_nb.record._compression`): those batches are marked
    estimated.
    """

    def encode(self, batch: RecordBatch, *, level: int | None, kafka_version: KafkaRelease) -> EncodedBatch:
        data, exact = _encoded(batch, level, kafka_version)
        return EncodedBatch(len(data), data, not exact)

    def encode_placed(
        self, batches: Sequence[RecordBatch], *, level: int | None, kafka_version: KafkaRelease
    ) -> list[EncodedBatch]:
        """Batches laid out by :func:`placed_batches` (their records spans of their uncompressed bytes: the header,
        then the records section), each with that section compressed by its codec and the header's length, codec
        bits and CRC-32C set: the bytes :meth:`encode` writes, without writing the records again."""
        compressors = {
            codec: records_compressor(codec, level=level, version=kafka_version)
            for codec in {batch.compression for batch in batches}
        }
        return [_encoded_layout(batch, compressors[batch.compression]) for batch in batches]

    def check_available(self, codec: str) -> None:
        """Raise :class:`~kcompact_nb.record.CodecUnavailableError` when ``codec`` cannot be written here."""
        check_codec_available(codec)


def _encoded_layout(batch: RecordBatch, compress: Callable[[bytes], CompressedRecords]) -> EncodedBatch:
    spans = batch.records.spans() if isinstance(batch.records, PackedRecords) else None
    if spans is None or len(spans[0]) != batch.size_bytes:
        raise ValueError("not a batch laid out by placed_batches: its records are not spans of its uncompressed bytes")
    layout = spans[0]
    packed = compress(layout[L.RECORD_BATCH_OVERHEAD :])
    data = bytearray(layout[: L.RECORD_BATCH_OVERHEAD])
    data += packed.data
    _LENGTH.pack_into(data, L.LENGTH_POSITION, len(data) - L.LOG_OVERHEAD)
    attributes = L.COMPRESSION_CODECS.index(batch.compression) | _ATTRIBUTES.unpack_from(data, L.ATTRIBUTES_POSITION)[0]
    _ATTRIBUTES.pack_into(data, L.ATTRIBUTES_POSITION, attributes)
    L.CRC.pack_into(data, L.CRC_POSITION, calc_crc32c(memoryview(data)[L.ATTRIBUTES_POSITION :]))
    return EncodedBatch(len(data), bytes(data), not packed.exact)


def placed_header_fields(batch: RecordBatch, *, compressed: bool) -> tuple[int, ...]:
    """``batch``'s header fields in :data:`~kcompact_nb.record._record_encoder.PLACED_HEADER_FIELDS` order (its
    length, record count and CRC-32C are the bytes')."""
    return (
        batch.base_offset,
        batch.partition_leader_epoch,
        attributes_of(batch, compressed=compressed),
        batch.last_offset - batch.base_offset,
        base_timestamp_of(batch),
        batch.max_timestamp,
        batch.producer_id,
        batch.producer_epoch,
        batch.base_sequence,
    )


def raw_matches(batch: RecordBatch) -> bool:
    """Whether ``batch.raw`` still describes ``batch`` (a model edit that kept stale bytes does not)."""
    raw = batch.raw
    if raw is None or len(raw) != batch.size_bytes or len(raw) < L.RECORD_BATCH_OVERHEAD:
        return False
    fields = L.HEADER.unpack_from(raw)
    compressed = fields[5] & L.CODEC_MASK != 0
    base_offset, leader_epoch, *rest = placed_header_fields(batch, compressed=compressed)
    length = batch.size_bytes - L.LOG_OVERHEAD
    expected = (base_offset, length, leader_epoch, 2, fields[4], *rest, len(batch.records))
    return fields == expected and (
        not compressed or L.COMPRESSION_CODECS[fields[5] & L.CODEC_MASK] == batch.compression
    )


def stored_bytes(batch: RecordBatch) -> bytes:
    """The bytes ``batch`` is stored as: its ``raw`` bytes while they still describe it, else Kafka's encoding."""
    raw = batch.raw
    return raw if raw is not None and raw_matches(batch) else encode_batch(batch)


def batch_attributes_and_crc(batch: RecordBatch) -> tuple[int, int]:
    """The ``attributes`` and ``crc`` header fields of ``batch`` as stored (:func:`stored_bytes`)."""
    header = L.HEADER.unpack_from(stored_bytes(batch))
    return header[5], header[4]
