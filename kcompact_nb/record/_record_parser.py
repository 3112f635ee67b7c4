"""The records of an uncompressed v2 batch parsed into columns, with no per-record objects.

Used by the segment reader and by Spark's column decoding. Anything this parser does not read cleanly
raises :class:`NotPlain`; the caller then decodes the batch with kafka-python's ``DefaultRecordBatch``,
which decides whether the bytes are corrupt, so results and errors are the same as kafka-python's. One
exception follows Kafka instead: the attributes byte is read as one byte whatever its value
(``DefaultRecord.readFrom``), where kafka-python reads a varint.

A record (``DefaultRecord``) after the 61-byte batch header::

    field              encoding          notes
    length             varint            bytes of the record after this field
    attributes         int8              unused (0 as written)
    timestampDelta     varlong           from the batch's baseTimestamp
    offsetDelta        varint            from the batch's baseOffset
    keyLength, key     varint, bytes     -1: null key
    valueLength, value varint, bytes     -1: null value (a tombstone)
    headersCount       varint
    headers            keyLength varint, key (UTF-8, invalid bytes read as U+FFFD as Java does),
                       valueLength varint, value (-1: null)
"""

from __future__ import annotations

from kcompact_nb.record._batch_header import LONG_MAX
from kcompact_nb.record._record_sizes import RECORD_BATCH_OVERHEAD, Header

LONG_MIN = -LONG_MAX - 1
_U64 = (1 << 64) - 1


class NotPlain(Exception):
    """This parser does not read the batch cleanly: kafka-python's decoding decides."""


class RecordColumns:
    """Column lists that :func:`parse_records` appends to, one entry per record.

    ``sizes`` holds the bytes of each record, its length varint included (``DefaultRecord.sizeInBytes``).
    """

    __slots__ = ("offsets", "timestamps", "keys", "values", "headers", "sizes")

    def __init__(self) -> None:  # plain lists: built once per batch read
        self.offsets: list[int] = []
        self.timestamps: list[int] = []
        self.keys: list[bytes | None] = []
        self.values: list[bytes | None] = []
        self.headers: list[tuple[Header, ...]] = []
        self.sizes: list[int] = []

    def __len__(self) -> int:
        return len(self.offsets)

    def truncate(self, rows: int) -> None:
        """Drop what was appended after the first ``rows`` records (a batch that raised :class:`NotPlain`)."""
        for column in (self.offsets, self.timestamps, self.keys, self.values, self.headers, self.sizes):
            del column[rows:]


def parse_records(data: bytes, base_offset: int, base_ts: int, last_delta: int, count: int, out: RecordColumns) -> None:
    """Append the ``count`` records of batch ``data`` to ``out``; raises :class:`NotPlain` (``out`` partly filled).

    Offsets are ``base_offset + offsetDelta`` and timestamps ``base_ts + timestampDelta`` as stored, in Java's
    64-bit arithmetic (``DefaultRecord.readFrom``: a sum past a long wraps around).
    """
    # Varints of one byte (small lengths and deltas, header counts), and of two for the record and value
    # lengths, are decoded inline: a call to _varint is the largest cost per record otherwise.
    keys, values, offsets, stamps, headers, sizes = (
        out.keys,
        out.values,
        out.offsets,
        out.timestamps,
        out.headers,
        out.sizes,
    )
    pos, previous, first = RECORD_BATCH_OVERHEAD, -1, len(stamps)
    try:
        for _ in range(count):
            start, byte = pos, data[pos]
            if byte < 0x80:
                length, pos = (byte >> 1) ^ -(byte & 1), pos + 1
            elif data[pos + 1] < 0x80:  # two bytes: records of 64 to 8191 bytes
                u = (byte & 0x7F) | (data[pos + 1] << 7)
                length, pos = (u >> 1) ^ -(u & 1), pos + 2
            else:
                length, pos = _varint(data, pos)
            end = pos + length
            # attributes: one byte, unused (DefaultRecord.readFrom reads it with buffer.get(), never as a varint)
            byte = data[pos + 1]
            ts_delta, pos = ((byte >> 1) ^ -(byte & 1), pos + 2) if byte < 0x80 else _varint(data, pos + 1)
            byte = data[pos]
            offset_delta, pos = ((byte >> 1) ^ -(byte & 1), pos + 1) if byte < 0x80 else _varint(data, pos)
            if not previous < offset_delta <= last_delta:
                raise NotPlain
            previous = offset_delta
            byte = data[pos]
            key_length, pos = ((byte >> 1) ^ -(byte & 1), pos + 1) if byte < 0x80 else _varint(data, pos)
            keys.append(None if key_length < 0 else data[pos : pos + key_length])
            if key_length > 0:
                pos += key_length
            byte = data[pos]
            if byte < 0x80:
                value_length, pos = (byte >> 1) ^ -(byte & 1), pos + 1
            elif data[pos + 1] < 0x80:
                u = (byte & 0x7F) | (data[pos + 1] << 7)
                value_length, pos = (u >> 1) ^ -(u & 1), pos + 2
            else:
                value_length, pos = _varint(data, pos)
            values.append(None if value_length < 0 else data[pos : pos + value_length])
            if value_length > 0:
                pos += value_length
            if data[pos] == 0:
                headers.append(())
                pos += 1
            else:
                record_headers, pos = _headers(data, pos)
                headers.append(record_headers)
            if pos != end:
                raise NotPlain
            offsets.append(base_offset + offset_delta)
            stamps.append(base_ts + ts_delta)
            sizes.append(end - start)
    except (IndexError, ValueError) as error:  # past the end of data, or a header key that is not UTF-8
        raise NotPlain from error
    if pos != len(data):
        raise NotPlain
    if count and not LONG_MIN <= min(stamps[first:]) <= max(stamps[first:]) <= LONG_MAX:
        stamps[first:] = [_as_long(t) for t in stamps[first:]]


def _as_long(value: int) -> int:
    """``value`` as a Java long holds it: ``baseTimestamp + timestampDelta`` wraps around 64 bits."""
    return (value - LONG_MIN) % (1 << 64) + LONG_MIN


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
            value &= _U64  # a Java long keeps the low 64 bits of a tenth byte (ByteUtils.readUnsignedVarlong)
            return (value >> 1) ^ -(value & 1), pos + 1
        shift += 7
        if shift > 63:
            raise NotPlain


def _headers(data: bytes, pos: int) -> tuple[tuple[Header, ...], int]:
    count, pos = _varint(data, pos)
    if count < 0:
        raise NotPlain
    headers = []
    for _ in range(count):
        key_length, pos = _varint(data, pos)
        if key_length < 0:
            raise NotPlain
        key = data[pos : pos + key_length].decode("utf-8", "replace")  # Utils.utf8: new String(bytes, UTF_8)
        value_length, pos = _varint(data, pos + key_length)
        value = None if value_length < 0 else data[pos : pos + value_length]
        headers.append((key, value))
        pos += max(value_length, 0)
    return tuple(headers), pos
