"""Kafka's other per-segment files, read and written byte for byte as a broker does.

Beside each ``NNN.log`` a broker keeps, named by the same 20-digit offset:

``NNN.index`` (``OffsetIndex``), 8-byte entries::

    relative offset   int32   entry offset - base offset
    position          int32   byte position of that batch in the .log file

``NNN.timeindex`` (``TimeIndex``), 12-byte entries::

    timestamp         int64   largest timestamp so far in the segment
    relative offset   int32   the batch holding it: its last offset - base offset

``NNN.txnindex`` (``TransactionIndex``), 34-byte ``AbortedTxn`` entries::

    version           int16   0
    producer id       int64
    first offset      int64   first offset of the aborted transaction
    last offset       int64   offset of its ABORT marker
    last stable offset int64  the partition's LSO once the marker was written

``NNN.snapshot`` (``ProducerStateManager.writeSnapshot``, ``ProducerSnapshot.json`` version 1), the
producer state at offset NNN::

    version           int16   1
    crc               uint32  CRC-32C of every byte after this field
    entry count       int32
    per entry         producer id int64, epoch int16, last sequence int32, last offset int64,
                      offset delta int32, timestamp int64, coordinator epoch int32,
                      current txn first offset int64 (-1 when none is open)

All big-endian. The two index files of the active segment are preallocated to
``segment.index.bytes`` (rounded down to a whole entry) and zero-filled past their entries; Kafka
trims them when the segment stops being active or the broker shuts down. Readers stop at that
zero fill as ``kafka-dump-log.sh`` does (an entry after the first whose offset is the base offset)
and keep the file size, so writing what was read gives the same bytes.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy

from kcompact_nb.core import (
    INDEX_FILE_SUFFIX,
    LONG_MAX,
    NO_TIMESTAMP,
    PRODUCER_SNAPSHOT_FILE_SUFFIX,
    TIME_INDEX_FILE_SUFFIX,
    TXN_INDEX_FILE_SUFFIX,
    AbortedTxn,
    RecordBatch,
    Segment,
    StoredSegment,
    segment_file_name,
)
from kcompact_nb.io._errors import IndexFileError, LogWriteError
from kcompact_nb.record import crc32c

INDEX_FILE_SUFFIXES = (INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX, TXN_INDEX_FILE_SUFFIX, PRODUCER_SNAPSHOT_FILE_SUFFIX)

_OFFSET_ENTRY = struct.Struct(">ii")
_TIME_ENTRY = struct.Struct(">qi")
_ABORTED_TXN = struct.Struct(">hqqqq")
_SNAPSHOT_HEADER = struct.Struct(">hIi")
_SNAPSHOT_ENTRY = struct.Struct(">qhiqiqiq")
_SNAPSHOT_CRC_END = 6
"""The CRC covers the bytes from here (after version and crc) to the end (``PRODUCER_ENTRIES_OFFSET``)."""
TXN_INDEX_VERSION = 0
PRODUCER_SNAPSHOT_VERSION = 1


@dataclass(frozen=True)
class OffsetPosition:
    """One offset index entry (Kafka's ``OffsetPosition``): a batch's last offset and its byte position."""

    offset: int
    position: int


@dataclass(frozen=True)
class TimestampOffset:
    """One time index entry (Kafka's ``TimestampOffset``): a timestamp (ms) and the offset of its batch."""

    timestamp: int
    offset: int


@dataclass(frozen=True)
class OffsetIndexFile:
    """A ``.index`` file.

    ``preallocated_bytes`` is the file size of an active segment's index, ``None`` once trimmed.
    """

    base_offset: int
    entries: tuple[OffsetPosition, ...]
    preallocated_bytes: int | None = None


@dataclass(frozen=True)
class TimeIndexFile:
    """A ``.timeindex`` file.

    ``preallocated_bytes`` is the file size of an active segment's index, ``None`` once trimmed.
    """

    base_offset: int
    entries: tuple[TimestampOffset, ...]
    preallocated_bytes: int | None = None


@dataclass(frozen=True)
class TransactionIndexFile:
    """A ``.txnindex`` file: the aborted transactions whose ABORT marker is in the segment."""

    base_offset: int
    entries: tuple[AbortedTxn, ...]


@dataclass(frozen=True)
class ProducerSnapshotEntry:
    """One producer of a ``.snapshot`` file (``ProducerSnapshot.ProducerEntry``).

    ``last_offset`` is -1 and ``last_sequence`` -1 for a producer that has written only markers;
    ``offset_delta`` is its last data batch's last offset minus base offset; ``timestamp`` the last
    timestamp it wrote (ms); ``current_txn_first_offset`` -1 when no transaction is open.
    """

    producer_id: int
    producer_epoch: int
    last_sequence: int
    last_offset: int
    offset_delta: int
    timestamp: int
    coordinator_epoch: int
    current_txn_first_offset: int


@dataclass(frozen=True)
class ProducerSnapshotFile:
    """A ``.snapshot`` file: the producers a broker knew at offset ``offset`` (the file name), in file order."""

    offset: int
    entries: tuple[ProducerSnapshotEntry, ...]


IndexFile = OffsetIndexFile | TimeIndexFile | TransactionIndexFile | ProducerSnapshotFile


def file_offset(path: Path) -> int:
    """The offset a segment file's name encodes (``UnifiedLog.offsetFromFile``)."""
    stem = path.name.split(".", 1)[0]
    if len(stem) != 20 or not stem.isdigit():
        raise IndexFileError(path, None, "not a segment file name: expected 20 digits, e.g. 00000000000000000000.index")
    if int(stem) > LONG_MAX:
        raise IndexFileError(path, None, f"the offset in the file name, {stem}, is beyond {LONG_MAX} (Long.MAX_VALUE)")
    return int(stem)


# Offset and time indexes ---------------------------------------------------------------------------------


def decode_offset_index(data: bytes, base_offset: int, source: str | Path = "<offset index>") -> OffsetIndexFile:
    """The entries of a ``.index`` file's bytes; raises :class:`IndexFileError` naming the byte position."""
    pairs = offset_index_pairs(data, base_offset, source)
    entries = tuple(OffsetPosition(offset, position) for offset, position in pairs)
    return OffsetIndexFile(base_offset, entries, _preallocated(data, entries, _OFFSET_ENTRY))


def offset_index_pairs(data: bytes, base_offset: int, source: str | Path = "<offset index>") -> list[tuple[int, int]]:
    """:func:`decode_offset_index`'s entries as ``(offset, position)`` pairs, checked alike."""
    relative, positions = _index_entries(data, _OFFSET_ENTRY, source, "offset index")

    def reason(number: int, entry: tuple[int, int], previous: tuple[int, int]) -> str:
        return (
            f"entry {number} ({entry[0]} at {entry[1]}) does not follow entry {number - 1} "
            f"({previous[0]} at {previous[1]}): offsets and positions must increase"
        )

    return _rising_pairs(_absolute(relative, base_offset), positions, _OFFSET_ENTRY, source, reason, strict=True)


def encode_offset_index(index: OffsetIndexFile) -> bytes:
    """A ``.index`` file's bytes: the entries, zero-filled to ``preallocated_bytes`` if set."""
    data = b"".join(_OFFSET_ENTRY.pack(_relative(index.base_offset, e.offset), e.position) for e in index.entries)
    return _zero_fill(data, index.preallocated_bytes)


def decode_time_index(data: bytes, base_offset: int, source: str | Path = "<time index>") -> TimeIndexFile:
    """The entries of a ``.timeindex`` file's bytes; raises :class:`IndexFileError` naming the byte position."""
    pairs = time_index_pairs(data, base_offset, source)
    entries = tuple(TimestampOffset(timestamp, offset) for timestamp, offset in pairs)
    return TimeIndexFile(base_offset, entries, _preallocated(data, entries, _TIME_ENTRY))


def time_index_pairs(data: bytes, base_offset: int, source: str | Path = "<time index>") -> list[tuple[int, int]]:
    """:func:`decode_time_index`'s entries as ``(timestamp, offset)`` pairs, checked alike."""
    timestamps, relative = _index_entries(data, _TIME_ENTRY, source, "time index")

    def reason(number: int, entry: tuple[int, int], previous: tuple[int, int]) -> str:
        return (
            f"entry {number} (timestamp {entry[0]} at offset {entry[1]}) goes back from entry "
            f"{number - 1} (timestamp {previous[0]} at offset {previous[1]})"
        )

    return _rising_pairs(timestamps, _absolute(relative, base_offset), _TIME_ENTRY, source, reason, strict=False)


def _absolute(relative: numpy.ndarray, base_offset: int) -> numpy.ndarray:
    """Offsets from relative ones: int64, or Python ints where they would pass it (a hostile file name's base)."""
    if base_offset + int(relative.max(initial=0)) > LONG_MAX:
        return relative.astype(object) + base_offset
    return relative + base_offset


def _rising_pairs(
    first: numpy.ndarray,
    second: numpy.ndarray,
    entry: struct.Struct,
    source: str | Path,
    reason: Callable[[int, tuple[int, int], tuple[int, int]], str],
    *,
    strict: bool,
) -> list[tuple[int, int]]:
    """The entries' two columns as pairs; the first entry whose columns do not rise from the entry before
    (``strict``: each must rise; else neither may fall) raises :class:`IndexFileError`, ``reason`` its text."""
    pairs = list(zip(first.tolist(), second.tolist(), strict=True))
    if strict:
        back = (first[1:] <= first[:-1]) | (second[1:] <= second[:-1])
    else:
        back = (first[1:] < first[:-1]) | (second[1:] < second[:-1])
    if back.any():
        number = int(numpy.argmax(back)) + 1
        raise IndexFileError(source, number * entry.size, reason(number, pairs[number], pairs[number - 1]))
    return pairs


def encode_time_index(index: TimeIndexFile) -> bytes:
    """A ``.timeindex`` file's bytes: the entries, zero-filled to ``preallocated_bytes`` if set."""
    data = b"".join(_TIME_ENTRY.pack(e.timestamp, _relative(index.base_offset, e.offset)) for e in index.entries)
    return _zero_fill(data, index.preallocated_bytes)


_COLUMNS = {
    _OFFSET_ENTRY.format: numpy.dtype([("relative", ">i4"), ("position", ">i4")]),
    _TIME_ENTRY.format: numpy.dtype([("timestamp", ">i8"), ("relative", ">i4")]),
}
"""Each index entry's fields as numpy columns, by its ``struct`` format."""


def _index_entries(
    data: bytes, entry: struct.Struct, source: str | Path, kind: str
) -> tuple[numpy.ndarray, numpy.ndarray]:
    """An index's entries (up to its zero fill, checked to be zeros) as two int64 columns in the entry's field order."""
    if len(data) % entry.size:
        reason = f"{len(data)} bytes is not a whole number of {entry.size}-byte {kind} entries (a corrupt index)"
        raise IndexFileError(source, len(data) - len(data) % entry.size, reason)
    rows = numpy.frombuffer(data, _COLUMNS[entry.format])
    relative = rows["relative"]
    zero = _zero_fill_row(relative)
    if zero is not None:  # the zero fill of a preallocated index (DumpLogSegments stops here too)
        _check_zero_fill(data, zero * entry.size, source)
        rows, relative = rows[:zero], relative[:zero]
    if (relative < 0).any():
        number = int(numpy.argmax(relative < 0))
        raise IndexFileError(source, number * entry.size, f"negative relative offset {relative[number]}")
    if len(rows) == 1 and len(data) > entry.size and not any(data):
        rows = rows[:0]  # all zeros and preallocated: no entry yet (a lone zero entry would write the same bytes)
    names = rows.dtype.names or ()
    return rows[names[0]].astype(numpy.int64), rows[names[1]].astype(numpy.int64)


def _zero_fill_row(relative: numpy.ndarray, first: int = 0) -> int | None:
    """The row where a zero fill starts in ``relative`` (rows numbered from ``first``): the first after row 0 of the
    index whose relative offset is 0; None if none."""
    zeros = numpy.flatnonzero(relative == 0)
    zeros = zeros[zeros + first > 0]
    return int(zeros[0]) if len(zeros) else None


def _check_zero_fill(data: bytes, start: int, source: str | Path) -> None:
    tail = data[start:]
    if any(tail):
        position = start + next(i for i, byte in enumerate(tail) if byte)
        raise IndexFileError(source, position, "non-zero bytes after the zero-filled (preallocated) end of the index")


def _relative(base_offset: int, offset: int) -> int:
    relative = offset - base_offset
    if not 0 <= relative <= 0x7FFF_FFFF:
        raise LogWriteError(f"offset {offset} is outside the 32-bit relative range of base offset {base_offset}")
    return relative


def _preallocated(data: bytes, entries: Sequence[object], entry: struct.Struct) -> int | None:
    return len(data) if len(data) > len(entries) * entry.size else None


def _zero_fill(data: bytes, preallocated_bytes: int | None) -> bytes:
    if preallocated_bytes is None:
        return data
    if preallocated_bytes < len(data):
        raise LogWriteError(f"preallocated_bytes {preallocated_bytes} is below the {len(data)} bytes of the entries")
    return data + bytes(preallocated_bytes - len(data))


def preallocated_bytes(segment_index_bytes: int, entry_bytes: int) -> int:
    """An active segment's index file size: ``segment.index.bytes`` rounded down to whole entries."""
    return segment_index_bytes - segment_index_bytes % entry_bytes


OFFSET_INDEX_ENTRY_BYTES = _OFFSET_ENTRY.size
TIME_INDEX_ENTRY_BYTES = _TIME_ENTRY.size


@dataclass(frozen=True)
class SegmentIndexes:
    """The offset and time index entries Kafka writes for a segment's batches."""

    offset_index: tuple[OffsetPosition, ...]
    time_index: tuple[TimestampOffset, ...]


def model_indexes(segment: Segment, *, inactive: bool = True) -> SegmentIndexes:
    """The index entries ``segment``'s appends added (``LogSegment.append``, by the rule of its ``kafka.version``:
    :attr:`Segment.indexes_each_batch`).

    ``inactive`` adds the final time index entry of a segment that stopped being active or was closed on
    shutdown (``onBecomeInactiveSegment``, ``LogSegment.close``), if its largest timestamp grew since the last.
    """
    times = [TimestampOffset(timestamp, offset) for timestamp, offset in segment.time_index]
    last = times[-1].timestamp if times else NO_TIMESTAMP
    if inactive and segment.max_timestamp_so_far > last:
        times.append(TimestampOffset(segment.max_timestamp_so_far, segment.offset_of_max_timestamp_so_far))
    offsets = tuple(OffsetPosition(offset, position) for offset, position in segment.offset_index)
    return SegmentIndexes(offsets, tuple(times))


def appended_indexes(
    appends: Iterable[Sequence[RecordBatch]],
    *,
    index_interval_bytes: int = 4096,
    indexes_each_batch: bool = True,
    inactive: bool = True,
) -> SegmentIndexes:
    """Index entries for record sets appended in order to a new segment, one ``LogSegment.append`` each.

    Per batch (``indexes_each_batch``: Kafka 3.9.1, 4.0.1 and later, KAFKA-806), once more than
    ``index.interval.bytes`` were appended since the last entry, the batch gets an offset index entry (its
    last offset, its position) and the time index the largest timestamp so far with its batch's last
    offset, if larger than the last entry's. Before, the check ran once per append: the entry is the
    append's last offset at the append's position. ``LogSegment.recover`` rebuilds the per-batch entries.
    A segment appended to across a broker restart counts its bytes afresh from the restart, which this does
    not model.
    """
    segment = StoredSegment(0, 0, index_interval_bytes=index_interval_bytes, indexes_each_batch=indexes_each_batch)
    for batches in appends:
        segment.append(batches, 0)
    return model_indexes(segment, inactive=inactive)


def segment_indexes(
    batches: Iterable[RecordBatch], *, index_interval_bytes: int = 4096, inactive: bool = True
) -> SegmentIndexes:
    """Index entries for batches appended one by one to a new segment (:func:`appended_indexes`), as a broker
    appends produced batches and as ``LogSegment.recover`` rebuilds a segment's indexes."""
    appends = ([batch] for batch in batches)
    return appended_indexes(appends, index_interval_bytes=index_interval_bytes, inactive=inactive)


# Transaction index ------------------------------------------------------------------------------------


def decode_txn_index(data: bytes, base_offset: int, source: str | Path = "<txn index>") -> TransactionIndexFile:
    """The aborted transactions of a ``.txnindex`` file's bytes."""
    if len(data) % _ABORTED_TXN.size:
        reason = f"{len(data)} bytes is not a whole number of {_ABORTED_TXN.size}-byte aborted-transaction entries"
        raise IndexFileError(source, len(data) - len(data) % _ABORTED_TXN.size, reason)
    entries = []
    for number, (version, producer_id, first, last, lso) in enumerate(_ABORTED_TXN.iter_unpack(data)):
        if version != TXN_INDEX_VERSION:
            reason = f"aborted transaction version {version}; Kafka writes version {TXN_INDEX_VERSION}"
            raise IndexFileError(source, number * _ABORTED_TXN.size, reason)
        entries.append(AbortedTxn(producer_id, first, last, lso))
    return TransactionIndexFile(base_offset, tuple(entries))


def encode_txn_index(index: TransactionIndexFile) -> bytes:
    """A ``.txnindex`` file's bytes (never preallocated)."""
    return b"".join(
        _ABORTED_TXN.pack(TXN_INDEX_VERSION, t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset)
        for t in index.entries
    )


# Producer state snapshot --------------------------------------------------------------------------------


def decode_producer_snapshot(data: bytes, offset: int, source: str | Path = "<snapshot>") -> ProducerSnapshotFile:
    """The producers of a ``.snapshot`` file's bytes, its version, length and CRC-32C checked."""
    if len(data) < _SNAPSHOT_HEADER.size:
        raise IndexFileError(source, 0, f"{len(data)} bytes are too few for a producer snapshot header")
    version, stored_crc, count = _SNAPSHOT_HEADER.unpack_from(data)
    if version != PRODUCER_SNAPSHOT_VERSION:
        reason = f"snapshot version {version}; Kafka reads version {PRODUCER_SNAPSHOT_VERSION}"
        raise IndexFileError(source, 0, reason)
    expected = _SNAPSHOT_HEADER.size + max(count, 0) * _SNAPSHOT_ENTRY.size
    if count < 0 or len(data) != expected:
        reason = f"an entry count of {count} needs {expected} bytes but the file has {len(data)}"
        raise IndexFileError(source, 6, reason)
    computed = crc32c(memoryview(data)[_SNAPSHOT_CRC_END:])
    if computed != stored_crc:
        reason = f"snapshot is corrupt: stored CRC {stored_crc}, computed {computed}"
        raise IndexFileError(source, 2, reason)
    entries = tuple(
        ProducerSnapshotEntry(*fields) for fields in _SNAPSHOT_ENTRY.iter_unpack(data[_SNAPSHOT_HEADER.size :])
    )
    return ProducerSnapshotFile(offset, entries)


def encode_producer_snapshot(snapshot: ProducerSnapshotFile) -> bytes:
    """A ``.snapshot`` file's bytes: the entries as given, then the CRC-32C filled in.

    Kafka writes its producers in the iteration order of a ``java.util.HashMap``; put entries in that
    order with :func:`java_hash_map_order` to get the broker's bytes.
    """
    body = struct.pack(">i", len(snapshot.entries)) + b"".join(
        _SNAPSHOT_ENTRY.pack(
            e.producer_id,
            e.producer_epoch,
            e.last_sequence,
            e.last_offset,
            e.offset_delta,
            e.timestamp,
            e.coordinator_epoch,
            e.current_txn_first_offset,
        )  # fmt: skip
        for e in snapshot.entries
    )
    return struct.pack(">hI", PRODUCER_SNAPSHOT_VERSION, crc32c(body)) + body


def java_hash_map_order(
    entries: Sequence[ProducerSnapshotEntry], *, capacity: int | None = None
) -> list[ProducerSnapshotEntry]:
    """``entries`` (in the order the producers were added) in the order a ``HashMap<Long, ...>`` iterates them.

    Buckets in ascending order, each in insertion order; a key's bucket is ``(h ^ h >>> 16) &
    (capacity - 1)`` with ``h = Long.hashCode(id)``. ``capacity`` defaults to the table a map that
    never held more producers than these has: 16, doubled while the count exceeds 3/4 of it. Buckets
    of more than 8 keys (Java's tree bins) are not modelled.
    """
    if capacity is None:
        capacity = 16
        while len(entries) > capacity * 3 // 4:
            capacity *= 2
    return sorted(entries, key=lambda e: _java_bucket(e.producer_id, capacity))


def _java_bucket(key: int, capacity: int) -> int:
    unsigned = key & 0xFFFF_FFFF_FFFF_FFFF
    h = (unsigned ^ (unsigned >> 32)) & 0xFFFF_FFFF
    return (h ^ (h >> 16)) & (capacity - 1)


# Files ----------------------------------------------------------------------------------------------------

_DECODERS: dict[str, Callable[[bytes, int, Path], IndexFile]] = {
    INDEX_FILE_SUFFIX: decode_offset_index,
    TIME_INDEX_FILE_SUFFIX: decode_time_index,
    TXN_INDEX_FILE_SUFFIX: decode_txn_index,
    PRODUCER_SNAPSHOT_FILE_SUFFIX: decode_producer_snapshot,
}


_ENTRY_OF = {INDEX_FILE_SUFFIX: _OFFSET_ENTRY, TIME_INDEX_FILE_SUFFIX: _TIME_ENTRY}
"""The entry layout of offset and time index files, by suffix."""


def read_index_file(path: str | os.PathLike[str]) -> IndexFile:
    """Read a ``.index``, ``.timeindex``, ``.txnindex`` or ``.snapshot`` file (never modified), by its suffix."""
    path = Path(path)
    decode = _DECODERS.get(path.suffix)
    if decode is None:
        raise IndexFileError(
            path, None, f"not an index or snapshot file: expected a name ending in {', '.join(INDEX_FILE_SUFFIXES)}"
        )
    entry = _ENTRY_OF.get(path.suffix)
    if entry is None:
        return decode(path.read_bytes(), file_offset(path), path)
    data, size = _index_prefix(path, entry)
    index = decode(data, file_offset(path), path)
    if len(data) != size and isinstance(index, (OffsetIndexFile, TimeIndexFile)):  # zero-filled: its true size
        index = dataclasses.replace(index, preallocated_bytes=size)
    return index


def read_index_pairs(path: str | os.PathLike[str]) -> list[tuple[int, int]]:
    """A ``.index`` or ``.timeindex`` file's entries as :func:`read_index_file` reads them, as pairs:
    ``(offset, position)`` or ``(timestamp, offset)`` (no entry objects: an index holds them by the ten thousand)."""
    path = Path(path)
    entry = _ENTRY_OF.get(path.suffix)
    if entry is None:
        raise IndexFileError(path, None, "not an offset or time index: expected a name ending in .index or .timeindex")
    pairs = offset_index_pairs if entry is _OFFSET_ENTRY else time_index_pairs
    return pairs(_index_prefix(path, entry)[0], file_offset(path), path)


_READ_BLOCK = 1024 * 1024
"""How much of an index file is read at a time."""
_ZEROS = bytes(_READ_BLOCK)


def _index_prefix(path: Path, entry: struct.Struct) -> tuple[bytes, int]:
    """An offset or time index file's entries up to its zero fill, then two zero entries (so that the decoder sees
    the zero fill start), and the file's size; the zero fill itself is read a block at a time and checked, never
    held: a preallocated index (``segment.index.bytes``, up to 2 GiB, sparse) costs one block of memory."""
    size = path.stat().st_size
    if size % entry.size:
        kind = "offset index" if entry is _OFFSET_ENTRY else "time index"
        reason = f"{size} bytes is not a whole number of {entry.size}-byte {kind} entries (a corrupt index)"
        raise IndexFileError(path, size - size % entry.size, reason)
    kept = bytearray()
    with open(path, "rb") as handle:
        while block := handle.read(_READ_BLOCK - _READ_BLOCK % entry.size):
            zero_fill = _zero_fill_start(kept, block, entry)
            if zero_fill is None:
                kept += block
                continue
            kept += block[:zero_fill]
            _check_zeros(handle, block[zero_fill:], len(kept), path)
            return bytes(kept) + bytes(2 * entry.size), size
    return bytes(kept), size


def _zero_fill_start(kept: bytearray, block: bytes, entry: struct.Struct) -> int | None:
    """Where in ``block`` the zero fill starts (an entry after the first whose relative offset is 0), if it does."""
    whole = len(block) - len(block) % entry.size
    row = _zero_fill_row(numpy.frombuffer(block, _COLUMNS[entry.format], whole // entry.size)["relative"],
                         len(kept) // entry.size)  # fmt: skip
    return None if row is None else row * entry.size


def _check_zeros(handle: BinaryIO, rest: bytes, position: int, path: Path) -> None:
    """The rest of the file after the zero fill's start is zeros, as a preallocated index's tail is (its holes are
    skipped: the file system knows they hold zeros)."""
    while rest:
        if rest != _ZEROS[: len(rest)]:
            at = position + next(i for i, byte in enumerate(rest) if byte)
            raise IndexFileError(path, at, "non-zero bytes after the zero-filled (preallocated) end of the index")
        position = _next_data(handle, position + len(rest))
        rest = handle.read(_READ_BLOCK)


def _next_data(handle: BinaryIO, position: int) -> int:
    """Where the next data after ``position`` starts (past a hole), the handle moved there; the end if none."""
    try:
        position = os.lseek(handle.fileno(), position, os.SEEK_DATA)
    except OSError as error:
        if error.errno == errno.ENXIO:  # only a hole from here to the end
            position = os.fstat(handle.fileno()).st_size
    handle.seek(position)
    return position


def encode_index_file(index: IndexFile) -> bytes:
    """The bytes a broker writes for ``index``."""
    if isinstance(index, OffsetIndexFile):
        return encode_offset_index(index)
    if isinstance(index, TimeIndexFile):
        return encode_time_index(index)
    if isinstance(index, TransactionIndexFile):
        return encode_txn_index(index)
    return encode_producer_snapshot(index)


def index_file_suffix(index: IndexFile) -> str:
    """The file name suffix of ``index``'s kind."""
    kinds = {
        OffsetIndexFile: INDEX_FILE_SUFFIX,
        TimeIndexFile: TIME_INDEX_FILE_SUFFIX,
        TransactionIndexFile: TXN_INDEX_FILE_SUFFIX,
        ProducerSnapshotFile: PRODUCER_SNAPSHOT_FILE_SUFFIX,
    }
    return kinds[type(index)]


def write_index_file(index: IndexFile, folder: str | os.PathLike[str]) -> Path:
    """Write ``index`` into ``folder`` under Kafka's name for it (e.g. ``00000000000000000031.timeindex``)."""
    offset = index.offset if isinstance(index, ProducerSnapshotFile) else index.base_offset
    path = Path(folder) / segment_file_name(offset, index_file_suffix(index))
    path.write_bytes(encode_index_file(index))
    return path
