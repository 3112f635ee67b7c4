"""The framing of one Kafka segment file (``NNNNNNNNNNNNNNNNNNNN.log``): its batches' bounds, checked, a block at once.

The file is read a block of about :data:`BLOCK_BYTES` at a time and cut into whole batches (length, magic, CRC-32C),
each batch's header checked for what log loading needs of it (offsets in order and within the segment, a records
count). Checks follow what ``LogSegment.recover`` does on an unclean shutdown: the first batch that fails ends the
valid prefix of the file, and with ``recover`` the rest of the file is dropped there instead of raising. What the
batches hold is decoded elsewhere (:class:`kcompact_nb.record.FramedBatchDecoder`).
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, NoReturn, TypeVar

from kcompact_nb.core import LEFTOVER_SEGMENT_FILE_NAME, SEGMENT_FILE_NAME
from kcompact_nb.io._errors import (
    CorruptBatchError,
    CrcMismatchError,
    InvalidMagicError,
    LogReadError,
    NotASegmentError,
    OffsetOrderError,
    TruncatedBatchError,
)
from kcompact_nb.io.logdir._held_bytes import ByteReader, HeldBytes
from kcompact_nb.record import FramedBlock, frame_batches
from kcompact_nb.record import batch_header as L
from kcompact_nb.record import crc32c as calc_crc32c

BLOCK_BYTES = 8 << 20
"""Bytes read, framed and decoded together: bounds the reader's memory (about three times this) whatever the file's
size.

Measured, not guessed: blocks of 32 MiB made a fresh process fault in new pages for every block (its joined bytes
and numpy temporaries are above the allocator's mmap threshold), 0.57 s CPU to load 1M records; 4-16 MiB blocks
reuse freed memory, 0.44 s. A block of compressed batches is decoded from its records decompressed, several times its
size: the framing then reads less at a time (:meth:`SegmentFraming.block_bytes`), so that about this many bytes
are decoded together whatever the codec (a streamed pass over a 1M-record gzip partition of JSON-like records: peak
RSS 212 -> 112 MiB, 285 -> 94 MiB of pages faulted in, the uncompressed partition's 104 and 53)."""

FIRST_INFLATION = 4.0
"""What a file's first block is read for, before its codecs are known: a quarter of :data:`BLOCK_BYTES`, so that a
first block of compressed batches (JSON-like records compress about that much) decodes about as many bytes as the
others."""

_BASE_AND_LAST_DELTA = struct.Struct(">q15xi")
"""baseOffset (position 0) and lastOffsetDelta (position 23) of a batch header."""
T = TypeVar("T")


@dataclass(frozen=True)
class DroppedBytes:
    """Bytes that recovery left out, as Kafka's log recovery truncates them.

    ``position`` is the byte position in ``file`` where the dropped range starts and
    ``bytes`` its length (to the end of the file).
    """

    file: str
    position: int
    bytes: int
    reason: str


def segment_base_offset(path: Path) -> int | None:
    """Base offset encoded in a segment file name, ``None`` for a ``.log`` file with another name.

    Raises :class:`NotASegmentError` for a name that is not a ``.log`` file at all.
    """
    match = SEGMENT_FILE_NAME.match(path.name) or LEFTOVER_SEGMENT_FILE_NAME.match(path.name)
    if match:
        offset = int(match.group(1))
        if offset > L.LONG_MAX:
            reason = (
                f"the offset in the file name, {offset}, is beyond {L.LONG_MAX}, the largest offset (Long.MAX_VALUE)"
            )
            raise NotASegmentError(path, None, reason)
        return offset
    if path.suffix == ".log":
        return None
    raise NotASegmentError(path, None, "not a segment file: expected a name like 00000000000000000000.log")


@dataclass(frozen=True)
class FramingOptions:
    """Where a segment's batches may lie and how they are checked (:class:`SegmentFraming`'s switches).

    ``base_offset`` is the segment's (batches below it are invalid; None: unknown), ``min_offset`` the first offset
    it may hold (the previous segment's next offset), ``end_offset`` the next segment's base offset (every offset
    here lies below it); ``verify_crc`` checks each batch's CRC-32C (``DefaultRecordBatch.ensureValid``);
    ``recover`` drops the rest of the file at the first invalid batch instead of raising; ``start_position`` is the
    byte position of the first batch read (an offset index gives it: ``LogSegment.read``); ``scanned`` is the file as
    its partition was scanned, when it was (:class:`ScannedFile`).
    """

    base_offset: int | None = None
    min_offset: int | None = None
    end_offset: int | None = None
    verify_crc: bool = True
    recover: bool = False
    start_position: int = 0
    scanned: ScannedFile | None = None


@dataclass(frozen=True)
class ScannedFile:
    """A segment file as the scan of a partition read on disk found it: its inode and the bytes it read, and when the
    scan checked every batch's CRC-32C, the file's size and modification time (ns) before it did. Read again later,
    the file is read to those bytes only (a running broker's appends since are not the scanned log's), without a
    second CRC check while its inode, size and modification time are still those; a file with another inode or fewer
    bytes (a broker's cleaner swapped a segment in, or a truncation) raises :class:`~kcompact_nb.io.LogReadError`: the
    log dir changed since it was read. (A rewrite in place at the same size within the file system's timestamp
    granularity would not be seen: Kafka never rewrites a segment's bytes in place.) A partition that holds its files'
    bytes (``held``: the whole file as read once) is read from them, never from the file again."""

    inode: int
    size: int
    crc_checked: tuple[int, int] | None = None
    held: HeldBytes | None = field(default=None, repr=False, compare=False)

    @contextmanager
    def read_from(self, path: Path) -> Iterator[tuple[ByteReader, int, bool]]:
        """The bytes to read (open: the held ones, else ``path`` while it is still the scanned file), how many, and
        whether the scan checked their CRCs."""
        if self.held is not None:
            yield self.held.reader(), self.size, self.crc_checked is not None
            return
        with open(path, "rb", buffering=0) as handle:
            yield (handle, *self.opened(path, handle))

    def opened(self, path: Path, handle: BinaryIO) -> tuple[int, bool]:
        """The bytes of ``path`` (open as ``handle``) to read, when it is still the scanned file, and whether its CRCs
        were checked by the scan (the file unchanged since)."""
        info = os.fstat(handle.fileno())
        if info.st_ino != self.inode or info.st_size < self.size:
            what = "replaced" if info.st_ino != self.inode else f"cut to {info.st_size} bytes"
            raise LogReadError(path, None, f"{what} since its partition was read: a running broker changed it")
        return self.size, (info.st_size, info.st_mtime_ns) == self.crc_checked


class SegmentFraming:
    """The batches of one segment file framed and header-checked, with their positions and the valid prefix's end.

    ``on_bytes`` is called with each valid batch's size in bytes (progress reporting). After reading,
    :attr:`valid_bytes` is the size of the batches read and :attr:`dropped` what recovery left out (if anything).
    """

    def __init__(self, path: Path, options: FramingOptions, on_bytes: Callable[[int], None] | None = None) -> None:
        self.path = path
        self.base_offset = segment_base_offset(path) if options.base_offset is None else options.base_offset
        self.min_offset = options.min_offset
        self.end_offset = options.end_offset
        self.verify_crc = options.verify_crc
        self.recover = options.recover
        self.start_position = options.start_position
        self.scanned = options.scanned
        self.checks_crc = options.verify_crc
        """Whether this read checks CRCs: :attr:`verify_crc`, unless the scan checked those of the file as it is."""
        self.on_bytes = on_bytes
        self.dropped: DroppedBytes | None = None
        self.next_offset = 0
        """The lowest offset the next batch read may start at."""
        self.valid_bytes = 0
        self.file_size = 0
        self._inflation = 1.0

    def restart(self) -> int:
        """Start a read of the file: no bytes valid or dropped yet; returns the lowest offset the first batch may
        start at."""
        self.valid_bytes, self.dropped = 0, None
        floors = [o for o in (self.base_offset, self.min_offset) if o is not None]
        return max(floors) if floors else 0

    def decoded(self, decode: Callable[[bytes, int, int], T]) -> Iterator[T]:
        """Each batch's bytes, framed and CRC-checked here, turned into a value by ``decode``.

        ``decode(data, position, next_offset)`` gets one whole batch (``position`` is its byte position in the
        file, ``next_offset`` the lowest offset it may start at) and raises :class:`CorruptBatchError` for bad
        content.
        """
        return self.read_blocks(lambda block: self.decoded_frames(block.frames, decode))

    def read_blocks(self, read: Callable[[FramedBlock], Iterable[T]]) -> Iterator[T]:
        """The values ``read`` makes of each block (:meth:`blocks`) from the start of the file, in order; ``read`` keeps
        :attr:`next_offset` and the valid prefix (:meth:`advance`) following the batches it took. The first
        :class:`CorruptBatchError` ends the read: raised, or with ``recover`` the rest of the file dropped there."""
        self.next_offset = self.restart()
        try:
            for block in self.blocks():
                yield from read(block)
                del block  # not held while the next block is read
        except CorruptBatchError as error:
            self.recovered(error)

    def decoded_frames(
        self, frames: Iterable[tuple[bytes, int]], decode: Callable[[bytes, int, int], T]
    ) -> Iterator[T]:
        """:meth:`decoded` of some of a block's batches, the next ones in file order (each batch's bytes and byte
        position in the file)."""
        for data, position in frames:
            value = decode(data, position, self.next_offset)
            self.advance(len(data))
            base_offset, last_delta = _BASE_AND_LAST_DELTA.unpack_from(data)
            self.next_offset = base_offset + last_delta + 1
            yield value

    def blocks(self) -> Iterator[FramedBlock]:
        """The file a block of about :data:`BLOCK_BYTES` at a time, its whole valid batches framed in it.

        A block's batches are framed in memory; the first batch that is not whole in the block, or not valid,
        starts the next block, and when it starts a block it is read alone by :meth:`_read_frame`, which
        raises what is wrong with it (or returns a batch bigger than a block).
        """
        self._inflation = FIRST_INFLATION
        with self._opened() as (handle, size, checked):
            self.file_size, self.checks_crc = size, self.verify_crc and not checked
            position = self.start_position
            while position < size:
                handle.seek(position)
                block = self._framed(handle.read(min(self.block_bytes(), size - position)), position)
                if not block.starts:
                    handle.seek(position)
                    data = self._read_frame(handle, position)
                    block = FramedBlock(data, [0], len(data), position)
                position += block.end
                yield block
                del block  # not held while the next block is read

    @contextmanager
    def _opened(self) -> Iterator[tuple[ByteReader, int, bool]]:
        """The file (or the bytes held of it) open, the bytes to read, and whether their CRCs were checked already."""
        if self.scanned is not None:
            with self.scanned.read_from(self.path) as opened:
                yield opened
            return
        with open(self.path, "rb", buffering=0) as handle:
            yield handle, os.fstat(handle.fileno()).st_size, False

    def decodes_as(self, block: FramedBlock, decoded_bytes: int) -> None:
        """Note that the last block read decodes as ``decoded_bytes`` (its compressed batches decompressed): the next
        one is read for about :data:`BLOCK_BYTES` decoded (:meth:`block_bytes`)."""
        self._inflation = decoded_bytes / max(block.end, 1)

    def block_bytes(self) -> int:
        """Bytes to read for the next block: :data:`BLOCK_BYTES` over the last block's inflation (its bytes once its
        compressed batches were decompressed, per byte read), at least a sixteenth of it."""
        return max(int(BLOCK_BYTES / self._inflation), BLOCK_BYTES // 16)

    def advance(self, size: int) -> None:
        """Count ``size`` bytes of valid batches into the valid prefix."""
        self.valid_bytes += size
        if self.on_bytes is not None:
            self.on_bytes(size)

    def recovered(self, error: CorruptBatchError) -> None:
        """Raise ``error``, or with ``recover`` note that the rest of the file is dropped from the valid prefix on."""
        if not self.recover:
            raise error
        end = self.start_position + self.valid_bytes  # the valid batches end there
        self.dropped = DroppedBytes(str(self.path), end, self.file_size - end, error.reason)

    def check_header(self, data: bytes, position: int, next_offset: int) -> tuple[Any, ...]:
        """The 13 header fields of one batch (:data:`HEADER` order) once its offsets and count are valid."""
        header = L.HEADER.unpack_from(data)
        base_offset, last_delta, count = header[0], header[6], header[12]
        last_offset = base_offset + last_delta
        if (
            last_delta < 0
            or base_offset < next_offset
            or last_offset >= L.LONG_MAX
            or (self.end_offset is not None and last_offset >= self.end_offset)
        ):
            self._check_offsets(base_offset, last_delta, position, next_offset)
        if self.base_offset is not None and last_offset - self.base_offset > L.INT_MAX:
            self._check_offsets(base_offset, last_delta, position, next_offset)
        if count < 0:
            self._fail(CorruptBatchError, position, f"negative records count {count}")
        return header

    def _framed(self, chunk: bytes, position: int) -> FramedBlock:
        """The whole batches at the start of ``chunk`` (read at byte ``position``) that :meth:`_read_frame` would
        accept, up to the first that it would not or that does not end in ``chunk`` (the kernel ``frame_batches``)."""
        starts, end = frame_batches(chunk, self.checks_crc)
        return FramedBlock(chunk, starts, end, position)

    def _read_frame(self, handle: ByteReader, position: int) -> bytes:
        remaining = self.file_size - position
        head = handle.read(L.LOG_OVERHEAD)
        if len(head) < L.LOG_OVERHEAD:
            self._fail(TruncatedBatchError, position, f"{remaining} trailing bytes are too few for a batch header")
        length = L.LENGTH_AND_OFFSET.unpack(head)[1]
        if length < L.MIN_BATCH_LENGTH:
            if length >= L.MAGIC_POSITION - L.LOG_OVERHEAD + 1 and remaining > L.MAGIC_POSITION:
                self._check_magic(handle.read(L.MAGIC_POSITION - L.LOG_OVERHEAD + 1)[-1], position)
            reason = f"batch length {length} is below the minimum {L.MIN_BATCH_LENGTH} of a v2 batch"
            self._fail(CorruptBatchError, position, reason)
        if length > remaining - L.LOG_OVERHEAD:
            if remaining > L.MAGIC_POSITION:
                self._check_magic(handle.read(L.MAGIC_POSITION - L.LOG_OVERHEAD + 1)[-1], position)
            reason = f"batch of {length + L.LOG_OVERHEAD} bytes is truncated: only {remaining} bytes remain in the file"
            self._fail(TruncatedBatchError, position, reason)
        data = head + handle.read(length)
        if data[L.MAGIC_POSITION] != 2:
            self._check_magic(data[L.MAGIC_POSITION], position)
        if self.checks_crc and L.CRC.unpack_from(data, L.CRC_POSITION)[0] != calc_crc32c(
            memoryview(data)[L.ATTRIBUTES_POSITION :]
        ):
            self._check_crc(data, position)
        return data

    def _check_magic(self, magic: int, position: int) -> None:
        if magic == 2:
            return
        kind = "a legacy (magic 0/1) message set, which is not supported" if magic in (0, 1) else "invalid"
        self._fail(InvalidMagicError, position, f"magic byte {magic} is {kind}; expected 2")

    def _check_crc(self, data: bytes, position: int) -> None:
        stored = L.CRC.unpack_from(data, L.CRC_POSITION)[0]
        computed = calc_crc32c(memoryview(data)[L.ATTRIBUTES_POSITION :])
        if stored != computed:
            self._fail(CrcMismatchError, position, f"batch CRC mismatch: stored {stored}, computed {computed}")

    def _check_offsets(self, base_offset: int, last_delta: int, position: int, next_offset: int) -> None:
        if last_delta < 0:
            self._fail(CorruptBatchError, position, f"negative lastOffsetDelta {last_delta}")
        if base_offset < next_offset:
            reason = (
                f"batch base offset {base_offset} is below {next_offset}, the next offset after the previous "
                "batch or the segment's base offset: offsets must increase"
            )
            self._fail(OffsetOrderError, position, reason)
        if base_offset + last_delta >= L.LONG_MAX:
            reason = (
                f"batch last offset {base_offset + last_delta} leaves no next offset: the log end offset would pass "
                f"{L.LONG_MAX} (Long.MAX_VALUE)"
            )
            self._fail(OffsetOrderError, position, reason)
        if self.base_offset is not None and base_offset + last_delta - self.base_offset > L.INT_MAX:
            reason = f"batch last offset {base_offset + last_delta} does not fit the segment's 32-bit relative offsets"
            self._fail(OffsetOrderError, position, reason)
        if self.end_offset is not None and base_offset + last_delta >= self.end_offset:
            reason = (
                f"batch last offset {base_offset + last_delta} reaches the next segment's base offset {self.end_offset}"
            )
            self._fail(OffsetOrderError, position, reason)

    def _fail(self, kind: type[CorruptBatchError], position: int, reason: str) -> NoReturn:
        if position == 0 and kind in (InvalidMagicError, TruncatedBatchError) and self.valid_bytes == 0:
            reason += " (is this a Kafka segment file?)"
        raise kind(self.path, position, reason)
