"""A block of framed batches turned into core :class:`RecordBatch` values, its plain batches decoded together.

The segment reader frames and CRC-checks a block of batches, then asks :class:`BlockBatches` for each batch in file
order. A block with compressed batches is first laid out as if uncompressed (their records decompressed,
:mod:`kcompact_nb.record._block_inflation`). Batches that the block decoder reads plainly
(:mod:`kcompact_nb.record._vector_decoder`) take their records from its columns: a tuple of :class:`Record` for fewer
than :data:`PACKED_MIN_RECORDS` records, otherwise :meth:`PackedRecords.from_spans` records: offsets, timestamps and key
ids decoded (or, for readers that do not number keys, the keys left in the batch's bytes as
:meth:`PackedRecords.from_span_keys` records), values left in the batch's bytes until read (a compressed batch's
decompressed again when read: a loaded batch never holds its block's uncompressed view; a streamed one's keys and
values point into that view, read at once). Every other batch is decoded by the reader's :meth:`decode_batch`, record
by record, with its errors.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from typing import Any, Protocol, cast

import numpy

from kcompact_nb.record import _batch_header as L
from kcompact_nb.record._block_inflation import COPY, UncompressedView, batch_codes
from kcompact_nb.record._kernels import decode_plain_batches, uncompressed_view
from kcompact_nb.record._key_numbering import KeyNumbering, NativeKeyNumbering
from kcompact_nb.record._key_registry import KeyRegistry
from kcompact_nb.record._packed_records import PackedRecords
from kcompact_nb.record._record import Record, record_from_tuple
from kcompact_nb.record._record_batch import RecordBatch, TimestampType
from kcompact_nb.record._vector_decoder import PlainColumns

PACKED_MIN_RECORDS = 3
"""Batches of fewer records hold a tuple of records: smaller and faster to build than columns there."""
_TIMESTAMP_TYPES = (TimestampType.CREATE_TIME, TimestampType.LOG_APPEND_TIME)
_FIRST = numpy.zeros(1, numpy.int64)
"""Where a batch decompressed on its own starts in its bytes."""
_CODES = [numpy.frombuffer(bytes((code,)), numpy.uint8) for code in range(256)]
"""The codes (read-only arrays) of a batch decompressed on its own, by its code: made once, as a pass rewrites
batches by the thousand."""


class BatchDecoder(Protocol):
    """What :class:`BlockBatches` uses of its batches' decoder (:class:`~kcompact_nb.record.FramedBatchDecoder`)."""

    keep_raw: bool
    key_registry: KeyRegistry
    number_keys: bool

    def check_header(self, data: bytes, position: int, next_offset: int) -> tuple[Any, ...]: ...

    def decode_batch(self, data: bytes, position: int, next_offset: int) -> RecordBatch: ...


def record_batch(header: tuple[Any, ...], records: Sequence[Record], data: bytes, codec: str, raw: bool) -> RecordBatch:
    """The :class:`RecordBatch` of a checked header (:data:`L.HEADER` fields) and its records."""
    base_offset, _, ple, _, _, attributes, last_delta, base_ts, max_ts, producer_id, epoch, sequence, _ = header
    return RecordBatch(  # positional, in RecordBatch's field order: measurably faster per batch
        base_offset,
        base_offset + last_delta,
        records,
        len(data),
        base_ts,
        max_ts,
        producer_id,
        epoch,
        sequence,
        bool(attributes & L.TRANSACTIONAL_BIT),
        bool(attributes & L.CONTROL_BIT),
        _TIMESTAMP_TYPES[bool(attributes & L.LOG_APPEND_TIME_BIT)],
        codec,
        base_ts if attributes & L.DELETE_HORIZON_BIT else None,
        ple,
        data if raw else None,
    )


@dataclass(frozen=True)
class FramedBlock:
    """Bytes read at byte ``position`` of a segment file and the whole batches framed in them: ``starts`` where each
    begins in ``data``, ``end`` where the last one ends (0 without batches)."""

    data: bytes
    starts: list[int]
    end: int
    position: int

    @cached_property
    def frames(self) -> list[tuple[bytes, int]]:
        """Each batch's :meth:`frame` (all copied out when first asked)."""
        return [self.frame(index) for index in range(len(self.starts))]

    def frame(self, index: int) -> tuple[bytes, int]:
        """Batch ``index``'s own bytes (copied out of ``data``) and its byte position in the file."""
        starts = self.starts
        start = starts[index]
        end = starts[index + 1] if index + 1 < len(starts) else self.end
        return self.data[start:end], self.position + start


class BlockBatches:
    """The batches of one block (its frames in file order), built on request in that order.

    ``keys`` numbers the keys in the decoder's registry (one per reader, shared by its blocks).
    """

    def __init__(self, framed: FramedBlock, decoder: BatchDecoder, keys: KeyNumbering | NativeKeyNumbering) -> None:
        self.decoder = decoder
        unpack = L.HEADER.unpack_from
        headers = [unpack(framed.data, start) for start in framed.starts]
        starts = numpy.array(framed.starts, numpy.int64)
        ends = numpy.append(starts[1:], framed.end) if framed.starts else starts
        counts = numpy.fromiter((h[12] for h in headers), numpy.int64, len(headers))
        attributes = numpy.fromiter((h[5] for h in headers), numpy.int64, len(headers))
        codes = batch_codes(attributes, counts)
        view = uncompressed_view(framed.data, starts, ends, codes)
        self.codes: list[int] = codes.tolist()
        self.view_starts: list[int] = []  # where each batch starts in the view, when there is one
        if view is None:  # records decoded from the block itself, their spans kept relative to each batch's bytes
            self.view, source = None, framed.data
            counts[codes != COPY] = 0
        else:  # from the view: spans relative to each batch's uncompressed bytes, or positions in the view
            self.view, source, starts, ends = view.data, view.data, view.starts, view.ends
            self.view_starts = starts.tolist()
            counts[~view.has_records()] = 0
        columns = decode_plain_batches(
            source, starts, ends, [h[0] for h in headers], [h[7] for h in headers], [h[6] for h in headers], counts
        )
        self.plain: list[bool] = columns.plain.tolist()
        self.keyed_spans: PlainColumns | None = None
        """The block's records' columns (their keys and values spans of :attr:`source`), when keys are not numbered
        and every batch is a plain data batch outside transactions with keyed records only."""
        if (
            not decoder.number_keys
            and columns.plain.all()
            and not (columns.key_lengths < 0).any()
            and not (attributes & (L.CONTROL_BIT | L.TRANSACTIONAL_BIT)).any()
        ):
            self.keyed_spans = columns
        self.source = source
        """The bytes the records' spans point into: the block's, or its uncompressed view."""
        self._split: tuple[Any, ...] | None = (columns, source, starts, keys)
        if decoder.number_keys:
            self._rows()  # keys numbered block by block, in file order

    def _rows(self) -> None:
        """Each plain batch's rows and the records' columns, as :meth:`batch` reads them (made when first asked: a
        block taken as its keyed run may never be)."""
        columns, source, starts, keys = cast("tuple[Any, ...]", self._split)
        self._split = None
        decoder = self.decoder
        taken = numpy.where(columns.plain, columns.counts, 0)
        decoded = numpy.repeat(columns.plain, columns.counts)
        relative = self.view is None or decoder.number_keys
        batch_starts = numpy.repeat(starts if relative else numpy.zeros_like(starts), columns.counts)[decoded]
        ends_of_records = numpy.cumsum(taken)
        self.bounds: list[tuple[int, int]] = list(
            zip((ends_of_records - taken).tolist(), ends_of_records.tolist(), strict=True)
        )
        keyless = numpy.concatenate(([0], numpy.cumsum(columns.key_lengths[decoded] < 0)))
        self.keyless: list[int] = keyless.tolist()
        if decoder.number_keys:
            self.key_ids = _int64_array(keys.ids(source, columns.key_starts[decoded], columns.key_lengths[decoded]))
        else:
            self.key_starts = _int64_array(columns.key_starts[decoded] - batch_starts)
            self.key_lengths = _int64_array(columns.key_lengths[decoded])
        self.offsets = _int64_array(columns.offsets[decoded])
        self.timestamps = _int64_array(columns.timestamps[decoded])
        self.value_starts = _int64_array(columns.value_starts[decoded] - batch_starts)
        self.value_lengths = _int64_array(columns.value_lengths[decoded])

    def batch(self, index: int, data: bytes, position: int, next_offset: int) -> RecordBatch:
        """Batch ``index`` of the block (``data`` at byte ``position`` of the file), checked as the reader checks it."""
        decoder = self.decoder
        if not self.plain[index]:
            return decoder.decode_batch(data, position, next_offset)
        if self._split is not None:
            self._rows()
        header = decoder.check_header(data, position, next_offset)
        codec = L.COMPRESSION_CODECS[header[5] & L.CODEC_MASK]
        first, end = self.bounds[index]
        if end - first < PACKED_MIN_RECORDS:
            source, at = self._source(index, data)
            records: Sequence[Record] = tuple(self._record(row, source, at) for row in range(first, end))
            return record_batch(header, records, data, codec, decoder.keep_raw)
        all_keyed = self.keyless[end] == self.keyless[first]
        values = (self.value_starts[first:end], self.value_lengths[first:end])
        if decoder.number_keys:
            # a compressed batch holds its own bytes, never its block's uncompressed view: its records are
            # decompressed again when its values are read (a pass rewriting it)
            code = self.codes[index]
            lazy = data if code == COPY else partial(_uncompressed_batch, data, code)
            ids, registry = self.key_ids[first:end], decoder.key_registry
            records = PackedRecords.from_spans(
                self.offsets[first:end], self.timestamps[first:end], ids, registry, lazy, *values, all_keyed
            )
        else:
            keys = (self.key_starts[first:end], self.key_lengths[first:end])
            source = data if self.view is None else self.view
            records = PackedRecords.from_span_keys(
                self.offsets[first:end], self.timestamps[first:end], source, keys, values, all_keyed
            )
        return record_batch(header, records, data, codec, decoder.keep_raw)

    def _source(self, index: int, data: bytes) -> tuple[bytes, int]:
        """The bytes batch ``index``'s record spans point into (``data``, its own bytes, or the block's view) and
        where its spans start counting there."""
        if self.view is None:
            return data, 0
        return self.view, self.view_starts[index] if self.decoder.number_keys else 0

    def _record(self, row: int, source: bytes, at: int) -> Record:
        """The record of ``row`` (its spans in ``source`` from byte ``at``), its key the registry's when keys are
        numbered."""
        if self.decoder.number_keys:
            key = self.decoder.key_registry.keys[self.key_ids[row]]
        else:
            start, length = at + self.key_starts[row], self.key_lengths[row]
            key = None if length < 0 else source[start : start + length]
        start, length = at + self.value_starts[row], self.value_lengths[row]
        value = None if length < 0 else source[start : start + length]
        return record_from_tuple((self.offsets[row], self.timestamps[row], key, value, ()))


def _uncompressed_batch(data: bytes, code: int) -> bytes:
    """The compressed batch ``data`` (its codec's ``code``) as the block's uncompressed view lays it out: its header,
    then its records decompressed (by the same kernel)."""
    view = uncompressed_view(data, _FIRST, numpy.array([len(data)], numpy.int64), _CODES[code])
    return cast("UncompressedView", view).data


def _int64_array(column: Any) -> array[int]:
    values = array("q")
    values.frombytes(numpy.ascontiguousarray(column, numpy.int64).tobytes())
    return values
