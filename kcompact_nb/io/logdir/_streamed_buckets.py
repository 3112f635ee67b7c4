"""Offset buckets of a scanned partition tallied from its segment files a block at a time (issue #29).

Each segment file is read as the streamed pass reads it (:meth:`SegmentFraming.blocks`: blocks of framed,
CRC-checked batches, each header's offsets checked; the next block read on a thread while this one is counted,
:func:`~kcompact_nb.io.logdir._read_ahead.read_ahead`), and the records of a block's plain batches, compressed ones
decompressed first (``uncompressed_view``), are decoded together
(``decode_plain_batches``) and counted as columns: per bucket by
:class:`~kcompact_nb.core.OffsetBucketTally`, each key's latest record by its bytes in the block
(``latest_entries``: the C kernel's hash table of key bytes when it was built, filled on a thread of its own while
the next blocks are decoded; keys numbered with numpy otherwise). Every other
batch (control, with record headers, records that do not decompress, ...) is decoded by the reader and counted batch
by batch. The rows equal :func:`kcompact_nb.core.offset_buckets` of the partition read whole.
"""

from __future__ import annotations

from typing import Any

import numpy

from kcompact_nb.core import (
    RECORD_BATCH_OVERHEAD,
    OffsetBucketTally,
    record_sizes_of_lengths,
)
from kcompact_nb.io.logdir._block_headers import BlockHeaders
from kcompact_nb.io.logdir._read_ahead import read_ahead
from kcompact_nb.io.logdir._segment_reader import SegmentFileReader
from kcompact_nb.record import (
    COPY,
    FramedBlock,
    SpanEntries,
    batch_codes,
    decode_plain_batches,
    uncompressed_view,
)
from kcompact_nb.record import batch_header as L


def tally_segment(tally: OffsetBucketTally, latest: SpanEntries, reader: SegmentFileReader) -> None:
    """Count the batches of one segment file into ``tally``, each key's entry into ``latest`` (the tally's); the
    reader's ``registry_keys`` bounds the keys it interns (those of batches decoded one by one)."""
    next_offset = reader.base_offset or 0
    for block in read_ahead(reader.blocks()):
        reader.decoder.bound_registry()
        next_offset = _tally_block(tally, latest, reader, block, next_offset)


def _tally_block(
    tally: OffsetBucketTally, latest: SpanEntries, reader: SegmentFileReader, block: FramedBlock, next_offset: int
) -> int:
    """Count one block's batches (their offsets checked from ``next_offset`` on); returns the next offset after.

    Headers are read and checked with numpy; a block where a check fails (or offsets come near
    ``Long.MAX_VALUE``) is read batch by batch, as the reader reads it, so it raises the reader's errors.
    """
    headers = BlockHeaders(block)
    floors = headers.floors(next_offset)
    if not headers.valid(floors, base_offset=reader.base_offset, end_offset=reader.end_offset):
        for data, position in block.frames:
            batch = reader.decode_batch(data, position, next_offset)
            next_offset = batch.last_offset + 1
            tally.add(batch)
        return next_offset
    counted = tally.counts((headers.attributes & L.CONTROL_BIT) != 0, headers.last_offsets) & (headers.counts > 0)
    codes = batch_codes(headers.attributes, headers.counts)
    view = uncompressed_view(block.data, headers.starts, headers.ends, codes)
    if view is None:
        source, starts, ends, readable = block.data, headers.starts, headers.ends, codes == COPY
    else:
        source, starts, ends, readable = view.data, view.starts, view.ends, view.has_records()
    reader.framing.decodes_as(block, block.end if view is None else len(view.data))
    columns = decode_plain_batches(
        source,
        starts,
        ends,
        headers.base_offsets,
        headers.base_timestamps,
        headers.last_offsets - headers.base_offsets,
        numpy.where(counted & readable, headers.counts, 0),
    )
    for index in numpy.flatnonzero(counted & ~columns.plain).tolist():
        data, position = block.frames[index]
        tally.add(reader.decode_batch(data, position, int(floors[index])))
    plain = columns.plain
    if plain.any():
        bases = numpy.column_stack([headers.base_offsets[plain], headers.base_timestamps[plain]])
        stored = numpy.where(codes[plain] == COPY, (headers.ends - headers.starts)[plain], -1)
        _tally_plain(tally, latest, source, columns, bases, stored)
    return int(headers.last_offsets[-1]) + 1


def _tally_plain(
    tally: OffsetBucketTally, latest: SpanEntries, block: bytes, columns: Any, bases: Any, batch_bytes: Any
) -> None:
    """Count the plain batches' records: whole uncompressed batches by their size (``batch_bytes``, -1 for a
    compressed one), the others record by record (as :meth:`OffsetBucketTally.add` does); every record's key and
    entry into ``latest``."""
    # slice(None) where every row is taken: indexing with it is a view, not a copy of the column
    decoded: Any = slice(None) if columns.plain.all() else numpy.repeat(columns.plain, columns.counts)
    offsets, key_lengths = columns.offsets[decoded], columns.key_lengths[decoded]
    counts = columns.counts[columns.plain]
    firsts = numpy.cumsum(counts) - counts
    whole = numpy.zeros(len(counts), bool)
    sized = batch_bytes >= 0
    whole[sized] = tally.count_batches(
        offsets[firsts][sized],
        offsets[firsts + counts - 1][sized],
        counts[sized],
        batch_bytes[sized] - RECORD_BATCH_OVERHEAD,
    )
    if not whole.all():
        rows = numpy.repeat(~whole, counts)
        row_bases = numpy.repeat(bases, counts, axis=0)[rows]
        deltas = (offsets[rows] - row_bases[:, 0], columns.timestamps[decoded][rows] - row_bases[:, 1])
        sizes = record_sizes_of_lengths(*deltas, key_lengths[rows], columns.value_lengths[decoded][rows])
        tally.count_records(offsets[rows], sizes)
    keyed: Any = key_lengths >= 0
    if keyed.all():
        keyed = slice(None)
    else:
        tally.count_keyless(offsets[~keyed])
    entries = tally.entries_of(offsets[keyed], columns.value_lengths[decoded][keyed] < 0)
    latest.put_spans(block, columns.key_starts[decoded][keyed], key_lengths[keyed], entries)
