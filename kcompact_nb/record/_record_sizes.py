"""Exact byte sizes of Kafka's v2 record format (spec 2.4-2.5).

Batch header (``DefaultRecordBatch``), 61 bytes, big-endian::

    offset  field                  bytes   notes
    0       baseOffset             8
    8       batchLength            4       total batch size - 12 (LOG_OVERHEAD)
    12      partitionLeaderEpoch   4       not covered by the CRC
    16      magic                  1       2
    17      crc                    4       CRC-32C over bytes 21..end
    21      attributes             2       bits 0-2 codec, 3 LogAppendTime, 4 transactional,
                                           5 control, 6 hasDeleteHorizonMs
    23      lastOffsetDelta        4
    27      baseTimestamp          8       or the delete horizon when bit 6 is set
    35      maxTimestamp           8
    43      producerId             8
    51      producerEpoch          2
    53      baseSequence           4
    57      recordsCount           4
    61      records                ...     compressed as one block when the codec is not none

Record (``DefaultRecord``)::

    length varint | attributes int8 | timestampDelta varlong | offsetDelta varint |
    keyLength varint, key | valueLength varint, value | headerCount varint |
    per header: keyLength varint, key (UTF-8) | valueLength varint, value
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat
from operator import sub
from typing import Any

import numpy

from kcompact_nb.record._native_kernels import Kernel, c_kernels

RECORD_BATCH_OVERHEAD = 61
"""Bytes of a v2 batch header; also the size of an empty batch (``DefaultRecordBatch``)."""
LOG_OVERHEAD = 12
"""Offset (8) + length (4) prefix of every batch (``Records.LOG_OVERHEAD``)."""
CONTROL_RECORD_KEY_SIZE = 4
END_TXN_MARKER_VALUE_SIZE = 6

Header = tuple[str, "bytes | None"]


def uvarint_len(u: int) -> int:
    """Bytes of an unsigned base-128 varint holding ``u >= 0``."""
    n = 1
    while u >= 0x80:
        u >>= 7
        n += 1
    return n


def varint_len(v: int) -> int:
    """Bytes of a zig-zag encoded signed 32-bit varint (``ByteUtils.sizeOfVarint``)."""
    return uvarint_len(((v << 1) ^ (v >> 31)) & 0xFFFFFFFF)


def _zigzag_len(v: int) -> int:
    """Varint length of a signed value inside the 32/64-bit range (zig-zag needs no mask there)."""
    u = (v << 1) ^ (v >> 63)
    if u < 0x80:
        return 1
    if u < 0x4000:
        return 2
    if u < 0x200000:
        return 3
    if u < 0x10000000:
        return 4
    return 5 if u < 0x800000000 else uvarint_len(u)


def varlong_len(v: int) -> int:
    """Bytes of a zig-zag encoded signed 64-bit varlong (``ByteUtils.sizeOfVarlong``)."""
    return uvarint_len(((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF)


def field_len(data: bytes | None) -> int:
    """Bytes of a length-prefixed byte field; a null field is a single varint(-1)."""
    if data is None:
        return 1
    return varint_len(len(data)) + len(data)


def headers_len(headers: Iterable[Header]) -> int:
    """Bytes of a record's header count and headers."""
    count = 0
    total = 0
    for name, value in headers:
        encoded = name.encode("utf-8")
        total += varint_len(len(encoded)) + len(encoded) + field_len(value)
        count += 1
    return varint_len(count) + total


def record_size_bytes(
    offset_delta: int,
    timestamp_delta: int,
    key: bytes | None,
    value: bytes | None,
    headers: Sequence[Header] = (),
) -> int:
    """Size of one v2 record, its length prefix included (``DefaultRecord.sizeInBytes``)."""
    return record_size_of_lengths(
        offset_delta,
        timestamp_delta,
        -1 if key is None else len(key),
        -1 if value is None else len(value),
        headers_len(headers) if headers else 1,
    )


def record_body_bytes(size_bytes: int) -> int:
    """The body of a record of ``size_bytes`` (:func:`record_size_bytes`): what its length varint says, the size
    ``DefaultRecord.readFrom`` reads and checks against ``max.decompressed.message.bytes``."""
    return next(size_bytes - n for n in range(1, 6) if varint_len(size_bytes - n) == n)


def record_size_of_lengths(
    offset_delta: int, timestamp_delta: int, key_length: int, value_length: int, headers_bytes: int = 1
) -> int:
    """:func:`record_size_bytes` from the key's and value's lengths (negative: null) and the headers' bytes."""
    # Values in [-64, 64) zig-zag to one byte, in [-8192, 8192) to two: inline (this runs per record written).
    body = 1 + (1 if -64 <= offset_delta < 64 else 2 if -8192 <= offset_delta < 8192 else _zigzag_len(offset_delta))
    body += 1 if -64 <= timestamp_delta < 64 else 2 if -8192 <= timestamp_delta < 8192 else _zigzag_len(timestamp_delta)
    n = key_length
    body += 1 if n < 0 else n + (1 if n < 64 else 2 if n < 8192 else _zigzag_len(n))
    n = value_length
    body += 1 if n < 0 else n + (1 if n < 64 else 2 if n < 8192 else _zigzag_len(n))
    body += headers_bytes
    return body + (1 if body < 64 else 2 if body < 8192 else _zigzag_len(body))


def lengths_of(column: Any) -> Any:
    """A key or value column's lengths (-1 for None); an int64 array of lengths is its own."""
    return column if isinstance(column, array) else [-1 if item is None else len(item) for item in column]


def record_sizes_of_lengths(offset_deltas: Any, timestamp_deltas: Any, key_lengths: Any, value_lengths: Any) -> Any:
    """:func:`record_size_of_lengths` of records without headers, for int64 numpy columns (an int64 array)."""
    body = 2 + _zigzag_lens(offset_deltas) + _zigzag_lens(timestamp_deltas)  # attributes, then headersCount 0
    for lengths in (key_lengths, value_lengths):
        body += numpy.where(lengths < 0, 1, lengths + _zigzag_lens(lengths))
    return body + _zigzag_lens(body)


def _zigzag_lens(values: Any) -> Any:
    """Bytes of each value's zig-zag varint (``ByteUtils.sizeOfVarlong``), for an int64 numpy array."""
    values = numpy.asarray(values, numpy.int64)
    unsigned = ((values << 1) ^ (values >> 63)).view(numpy.uint64)
    widths = numpy.ones(len(unsigned), numpy.int64)
    for shift in range(7, 64, 7):
        widths += unsigned >= numpy.uint64(1 << shift)
    return widths


def records_size_in_c(
    offsets: Any, timestamps: Any, keys: Any, values: Any, base_offset: int, base_timestamp: int
) -> int:
    """The bytes of records without headers (``records_section`` writes them), unwritten: offsets and timestamps
    int64 arrays, keys and values sequences of bytes or None, or int64 arrays of their lengths (-1: null)."""
    size: int = c_kernels().records_size(offsets, timestamps, keys, values, base_offset, base_timestamp)
    return size


def records_size_in_python(
    offsets: Any, timestamps: Any, keys: Any, values: Any, base_offset: int, base_timestamp: int
) -> int:
    """:func:`records_size_in_c`'s twin, a record at a time."""
    return sum(column_record_sizes(offsets, timestamps, keys, values, base_offset, base_timestamp))


def column_record_sizes(
    offsets: Any,
    timestamps: Any,
    keys: Any,
    values: Any,
    base_offset: int,
    base_timestamp: int,
    header_bytes: Any = None,
) -> Iterator[int]:
    """Each record's :func:`record_size_of_lengths` from columns (keys and values as :func:`lengths_of` takes them)
    and each record's headers' bytes (1 each, headersCount 0, when None)."""
    offset_deltas = map(sub, offsets, repeat(base_offset))
    timestamp_deltas = map(sub, timestamps, repeat(base_timestamp))
    headers = repeat(1) if header_bytes is None else header_bytes
    return map(record_size_of_lengths, offset_deltas, timestamp_deltas, lengths_of(keys), lengths_of(values), headers)


records_size: Kernel[[Any, Any, Any, Any, int, int], int] = Kernel(
    "records_size", ("records_size",), records_size_in_c, records_size_in_python
)
"""The bytes of a batch's records without headers, unwritten; listed in the kernels' table
(:mod:`kcompact_nb.record._kernels`), which imports the modules that use it."""
