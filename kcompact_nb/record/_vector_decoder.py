"""The records of many uncompressed v2 batches decoded at once with numpy, as spans into their bytes.

What the cleaner reads of a record to build its map and apply retention (``DefaultRecord.readFrom``): its
offset, timestamp, key and whether its value is null. :func:`decode_plain_with_numpy` decodes them for every
record of a block of framed batches at once: first the record lengths, record index by record index across
all batches (each record's start follows from the previous one), then every other field of every record in
one pass of array operations. Keys and values stay spans into the block's bytes.

The C kernel (``decode_plain`` in ``_native.c``, called by :func:`decode_plain_in_c`) decodes the same batches the
same way, record by record; :data:`kcompact_nb.record._kernels.decode_plain_batches` runs it when it was built, the
numpy twin otherwise.

It is a fast path, deciding nothing on its own: a batch is "plain" only when it reads exactly as
:func:`kcompact_nb.record._record_parser.parse_records` reads it without raising ``NotPlain`` (every varint within
5 bytes, 9 for the timestamp delta, offset deltas increasing within ``[0, lastOffsetDelta]``, every record
ending where its length says, the last at the batch's end, no record headers). Every other batch is left to
the record parser and kafka-python, which decide what it holds or why it is corrupt, so results and error
messages stay theirs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy

from kcompact_nb.record._native_kernels import c_kernels
from kcompact_nb.record._record_sizes import RECORD_BATCH_OVERHEAD

MIN_RECORD_BYTES = 7
"""length, attributes, timestampDelta, offsetDelta, keyLength, valueLength, headersCount: one byte each at least."""
VARINT_BYTES = 5
VARLONG_BYTES = 9
"""Longer varlongs may exceed 64 bits; such records go to the record parser, which reads Python ints."""

_INT64_MAX = numpy.iinfo(numpy.int64).max


@dataclass(frozen=True)
class PlainColumns:
    """The decoded records of a block's batches, flat in batch order.

    ``plain[b]`` says batch ``b`` was decoded; its records are ``first[b]`` to ``first[b] + counts[b]`` in
    every column. The columns also hold rows for batches whose decoding failed (``counts`` of them, meaningless
    values); batches not tried have ``counts`` 0. Offsets and
    timestamps are absolute; ``key_lengths`` and ``value_lengths`` are -1 for null, their starts byte
    positions in the block.
    """

    plain: Any
    first: Any
    counts: Any
    offsets: Any
    timestamps: Any
    key_starts: Any
    key_lengths: Any
    value_starts: Any
    value_lengths: Any


def decode_plain_in_c(
    block: bytes, starts: Any, ends: Any, base_offsets: Any, base_timestamps: Any, last_deltas: Any, counts: Any
) -> PlainColumns:
    """Decode the records of the framed batches ``block[starts[b]:ends[b]]`` (int64 arrays, one entry per batch) with
    the C kernel's ``decode_plain``.

    ``base_offsets``, ``base_timestamps``, ``last_deltas`` and ``counts`` are the batches' header fields.
    """
    starts, ends, header_fields, plain, first, taken = _tried_batches(
        starts, ends, base_offsets, base_timestamps, last_deltas, counts
    )
    columns = [numpy.empty(int(taken.sum()), numpy.int64) for _ in range(6)]
    c_kernels().decode_plain(block, starts, ends, *header_fields, first, taken, plain, *columns)
    return PlainColumns(plain, first, taken, *columns)


def decode_plain_with_numpy(
    block: bytes, starts: Any, ends: Any, base_offsets: Any, base_timestamps: Any, last_deltas: Any, counts: Any
) -> PlainColumns:
    """:func:`decode_plain_in_c`'s twin: the records of the tried batches by array operations."""
    starts, ends, header_fields, plain, first, taken = _tried_batches(
        starts, ends, base_offsets, base_timestamps, last_deltas, counts
    )
    return _decode_with_numpy(block, starts, ends, header_fields, plain=plain, first=first, taken=taken)


def _tried_batches(
    starts: Any, ends: Any, base_offsets: Any, base_timestamps: Any, last_deltas: Any, counts: Any
) -> tuple[Any, Any, list[Any], Any, Any, Any]:
    """The int64 arrays both decoders take: bounds, header fields, which batches are tried (``plain``, cleared for
    those that fail), their first rows and record counts (0 for those not tried)."""
    starts, ends = numpy.asarray(starts, numpy.int64), numpy.asarray(ends, numpy.int64)
    counts = numpy.asarray(counts, numpy.int64)
    plain = (counts > 0) & (counts <= (ends - starts - RECORD_BATCH_OVERHEAD) // MIN_RECORD_BYTES)
    taken = numpy.where(plain, counts, 0)
    first = numpy.concatenate(([0], numpy.cumsum(taken)[:-1])) if len(taken) else numpy.zeros(0, numpy.int64)
    header_fields = [numpy.ascontiguousarray(f, numpy.int64) for f in (base_offsets, base_timestamps, last_deltas)]
    return starts, ends, header_fields, plain, first, taken


def _decode_with_numpy(
    block: bytes, starts: Any, ends: Any, header_fields: list[Any], *, plain: Any, first: Any, taken: Any
) -> PlainColumns:
    """The records of the ``plain`` batches (rows ``first[b]`` to ``first[b] + taken[b]``), by array operations."""
    base_offsets, base_timestamps, last_deltas = header_fields
    data = numpy.frombuffer(block, numpy.uint8)
    total = int(taken.sum())
    bodies, record_ends = _record_bounds(data, starts, ends, first, taken, plain)
    owner = numpy.repeat(numpy.arange(len(taken)), taken)
    position = bodies + 1  # the attributes byte, read as one byte whatever its value (DefaultRecord.readFrom)
    ts_delta, width, good = _varints(data, position, VARLONG_BYTES)
    position += width
    offset_delta, width, ok = _varints(data, position, VARINT_BYTES)
    good &= ok
    position += width
    key_lengths, width, ok = _varints(data, position, VARINT_BYTES)
    good &= ok
    key_starts = position + width
    position = key_starts + numpy.maximum(key_lengths, 0)
    value_lengths, width, ok = _varints(data, position, VARINT_BYTES)
    good &= ok
    value_starts = position + width
    position = value_starts + numpy.maximum(value_lengths, 0)
    good &= data[numpy.minimum(position, len(data) - 1)] == 0  # headersCount 0: records with headers are parsed
    good &= position + 1 == record_ends
    previous = numpy.empty(total, numpy.int64)
    previous[1:] = offset_delta[:-1]
    previous[first[plain]] = -1
    good &= (previous < offset_delta) & (offset_delta <= last_deltas[owner])
    base_ts = base_timestamps[owner]
    timestamps = base_ts + ts_delta
    good &= (ts_delta >= 0) == (timestamps >= base_ts)  # a sum past int64 is left to the parser, which wraps it
    plain &= numpy.bincount(owner, ~good, minlength=len(taken)) == 0
    offsets = base_offsets[owner] + offset_delta
    return PlainColumns(plain, first, taken, offsets, timestamps, key_starts, key_lengths, value_starts, value_lengths)


def _record_bounds(data: Any, starts: Any, ends: Any, first: Any, counts: Any, plain: Any) -> tuple[Any, Any]:
    """Each record's body start (after its length varint) and end, record index by record index across batches.

    Batches whose records do not chain exactly to their end are cleared from ``plain``.
    """
    total = int(counts.sum())
    bodies, record_ends = numpy.zeros(total, numpy.int64), numpy.zeros(total, numpy.int64)
    position = starts + RECORD_BATCH_OVERHEAD
    active = numpy.flatnonzero(plain)
    index = 0
    while len(active):
        at = position[active]
        length, width, good = _varints(data, at, VARINT_BYTES)
        body = at + width
        end = body + length
        good &= (length >= 0) & (end <= ends[active])
        slots = first[active] + index
        bodies[slots], record_ends[slots] = body, end
        position[active] = end
        plain[active[~good]] = False
        index += 1
        active = active[good & (counts[active] > index)]
    plain &= position == ends
    return bodies, record_ends


def _varints(data: Any, position: Any, max_bytes: int) -> tuple[Any, Any, Any]:
    """Zigzag varints at ``position`` (``ByteUtils.readVarint``/``readVarlong``): values, their widths in bytes,
    and whether each ends within ``max_bytes`` bytes (values and widths are meaningless where it does not).

    One- and two-byte varints (lengths and deltas below 8192) are decoded with plain array arithmetic; only
    longer ones are gathered byte by byte.
    """
    last = len(data) - 1
    first = data[numpy.minimum(position, last)]
    longer = first >= 0x80
    if not longer.any():
        unsigned = first.astype(numpy.int64)
        widths = numpy.ones(len(position), numpy.int64)
        good = numpy.ones(len(position), bool)
    else:  # whole-array arithmetic: cheaper than scattering when many varints take two bytes
        second = data[numpy.minimum(position + 1, last)]
        unsigned = numpy.where(longer, (first & 0x7F) | ((second.astype(numpy.int64) & 0x7F) << 7), first)
        widths = longer + numpy.int64(1)
        good = numpy.ones(len(position), bool)
        longest = numpy.flatnonzero(longer & (second >= 0x80))
        if len(longest):
            values, width, ends = _long_varints(data, position[longest], max_bytes)
            unsigned[longest], widths[longest], good[longest] = values, width, ends
    values = unsigned >> 1
    values ^= -(unsigned & 1)
    return values, widths, good


def _long_varints(data: Any, position: Any, max_bytes: int) -> tuple[Any, Any, Any]:
    """Varints of 3 or more bytes, byte by byte: unsigned values (as int64 bits), widths, whether they end in time."""
    at = position[:, None] + numpy.arange(max_bytes)
    raw = data[numpy.minimum(at, len(data) - 1)].astype(numpy.uint64)
    ends = raw < 0x80
    width = ends.argmax(axis=1) + 1
    shifts = numpy.arange(max_bytes, dtype=numpy.uint64) * numpy.uint64(7)
    digits = numpy.where(numpy.arange(max_bytes) < width[:, None], raw & numpy.uint64(0x7F), numpy.uint64(0))
    unsigned = numpy.bitwise_or.reduce(digits << shifts, axis=1)
    return unsigned.view(numpy.int64), width, ends.any(axis=1)
