"""Streaming reader of one Kafka segment file (``NNNNNNNNNNNNNNNNNNNN.log``) into core batches.

Batches are framed and checked here (length, magic, CRC-32C, offsets); a block of them at a time, records
are decompressed and decoded into columns (:class:`kcompact_nb.io.codec.BlockBatches`), batch by batch those
it leaves are parsed (:mod:`kcompact_nb.io.codec._record_parser`), and anything that parser does not read
cleanly is decoded by kafka-python's ``DefaultRecordBatch``. Checks follow what ``LogSegment.recover`` does on an
unclean shutdown: the first batch that fails ends the valid prefix of the file.
"""

from __future__ import annotations

import os
import struct
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, NoReturn, TypeVar

import kafka.codec as kafka_codec
from crc32c import crc32c as calc_crc32c  # the C implementation kafka-python calls, without its wrapper
from kafka.record.default_records import DefaultRecordBatch

from kcompact_nb.core import (
    LEFTOVER_SEGMENT_FILE_NAME,
    SEGMENT_FILE_NAME,
    KeyRegistry,
    PackedRecords,
    Record,
    RecordBatch,
    record_from_tuple,
    record_offsets,
)
from kcompact_nb.io._errors import (
    CorruptBatchError,
    CrcMismatchError,
    InvalidMagicError,
    MissingCodecError,
    NotASegmentError,
    OffsetOrderError,
    TruncatedBatchError,
)
from kcompact_nb.io.codec import (
    PACKED_MIN_RECORDS,
    BlockBatches,
    FramedBlock,
    NotPlain,
    RecordColumns,
    decompress_records,
    key_numbering,
    parse_records,
    record_batch,
    release_key_table,
)
from kcompact_nb.io.codec import batch_header as L

BLOCK_BYTES = 8 << 20
"""Bytes read, framed and decoded together: bounds the reader's memory (about three times this) whatever the file's
size.

Measured, not guessed: blocks of 32 MiB made a fresh process fault in new pages for every block (its joined bytes
and numpy temporaries are above the allocator's mmap threshold), 0.57 s CPU to load 1M records; 4-16 MiB blocks
reuse freed memory, 0.44 s. A block of compressed batches is decoded from its records decompressed, several times its
size: the reader then reads less at a time (:meth:`SegmentFileReader.block_bytes`), so that about this many bytes
are decoded together whatever the codec (a streamed pass over a 1M-record gzip partition of JSON-like records: peak
RSS 212 -> 112 MiB, 285 -> 94 MiB of pages faulted in, the uncompressed partition's 104 and 53)."""

FIRST_INFLATION = 4.0
"""What a file's first block is read for, before its codecs are known: a quarter of :data:`BLOCK_BYTES`, so that a
first block of compressed batches (JSON-like records compress about that much) decodes about as many bytes as the
others."""

_LENGTH = struct.Struct(">i")
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


class SegmentFileReader:
    """Iterate the batches of one segment file with bounded memory.

    Parameters
    ----------
    path:
        The ``.log`` file. It is opened read-only and never modified.
    base_offset:
        The segment's base offset (from the file name by default); batches below it are invalid.
    min_offset:
        The first offset this segment may hold (the previous segment's next offset), if known.
    end_offset:
        The next segment's base offset, if any: every offset here must lie below it.
    verify_crc:
        Check every batch's CRC-32C, as ``DefaultRecordBatch.ensureValid`` does.
    keep_raw:
        Keep each batch's bytes in ``RecordBatch.raw`` so it can be written back identically.
    recover:
        On the first invalid batch, stop and record the rest of the file in :attr:`dropped`
        instead of raising (``LogSegment.recover`` truncates there). A missing codec package
        is never treated as corruption and always raises :class:`MissingCodecError` (for a batch that needs it:
        the C kernels, where built, decompress batches without the Python packages).
    on_bytes:
        Called with each batch's size in bytes (progress reporting).
    key_registry:
        Numbers and interns the records' keys (see :class:`KeyRegistry`); share one across a
        partition's segments. A new one by default.
    start_position:
        The byte position of the first batch to read (a batch's start, as an offset index gives it): a pass
        reads a segment from there on (``LogSegment.read``); what comes before is not read at all.
    registry_keys:
        When iterating, start a new key registry (and forget the old one's keys) once the current one holds
        this many keys, between blocks: memory for keys stays bounded whatever the file holds. Each batch keeps
        the registry that numbered it.
    number_keys:
        Number the keys of the batches decoded a block at a time in ``key_registry`` (False: leave them in the
        batches' bytes, :meth:`PackedRecords.from_span_keys`; other batches still number theirs).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        base_offset: int | None = None,
        min_offset: int | None = None,
        end_offset: int | None = None,
        verify_crc: bool = True,
        keep_raw: bool = True,
        recover: bool = False,
        on_bytes: Callable[[int], None] | None = None,
        key_registry: KeyRegistry | None = None,
        start_position: int = 0,
        registry_keys: int | None = None,
        number_keys: bool = True,
    ) -> None:
        self.path = Path(path)
        self.base_offset = segment_base_offset(self.path) if base_offset is None else base_offset
        self.min_offset = min_offset
        self.end_offset = end_offset
        self.verify_crc = verify_crc
        self.keep_raw = keep_raw
        self.recover = recover
        self.on_bytes = on_bytes
        self.dropped: DroppedBytes | None = None
        self.valid_bytes = 0
        self.file_size = 0
        self.key_registry = KeyRegistry() if key_registry is None else key_registry
        self.start_position = start_position
        self.registry_keys = registry_keys
        self.number_keys = number_keys
        self._inflation = 1.0

    def __iter__(self) -> Iterator[RecordBatch]:
        """The batches in file order: blocks of about :data:`BLOCK_BYTES` framed at once, their plain batches
        decoded together (:mod:`kcompact_nb.io.codec._block_batches`), the others one by one (:meth:`decode_batch`)."""
        self.valid_bytes, self.dropped = 0, None
        next_offset = self._first_allowed_offset()
        keys = key_numbering(self.key_registry)
        try:
            for block in self.blocks():
                if self.registry_keys is not None and len(self.key_registry) >= self.registry_keys:
                    release_key_table(self.key_registry)
                    self.key_registry = KeyRegistry()
                    keys = key_numbering(self.key_registry)
                decoded = BlockBatches(block, self, keys)
                self.decodes_as(block, block.end if decoded.view is None else len(decoded.view))
                for index, (data, position) in enumerate(block.frames):
                    batch = decoded.batch(index, data, position, next_offset)
                    self._advance(data)
                    next_offset = batch.last_offset + 1
                    yield batch
                del decoded, block  # not held while the next block is read
        except CorruptBatchError as error:
            self._recovered(error)

    def decoded(self, decode: Callable[[bytes, int, int], T]) -> Iterator[T]:
        """Each batch's bytes, framed and CRC-checked here, turned into a value by ``decode``.

        ``decode(data, position, next_offset)`` gets one whole batch (``position`` is its byte position in the
        file, ``next_offset`` the lowest offset it may start at) and raises :class:`CorruptBatchError` for bad
        content; :meth:`decode_batch` (a core :class:`RecordBatch`) decodes as iterating the reader does.
        """
        self.valid_bytes, self.dropped = 0, None
        next_offset = self._first_allowed_offset()
        try:
            for data, position in self._frames():
                value = decode(data, position, next_offset)
                self._advance(data)
                base_offset, last_delta = _BASE_AND_LAST_DELTA.unpack_from(data)
                next_offset = base_offset + last_delta + 1
                yield value
        except CorruptBatchError as error:
            self._recovered(error)

    def _frames(self) -> Iterator[tuple[bytes, int]]:
        """Each batch's bytes and byte position, framed and CRC-checked; raises at the first batch that is not."""
        for block in self.blocks():
            yield from block.frames

    def blocks(self) -> Iterator[FramedBlock]:
        """The file a block of about :data:`BLOCK_BYTES` at a time, its whole valid batches framed in it.

        A block's batches are framed in memory; the first batch that is not whole in the block, or not valid,
        starts the next block, and when it starts a block it is read alone by :meth:`_read_frame`, which
        raises what is wrong with it (or returns a batch bigger than a block).
        """
        self._inflation = FIRST_INFLATION
        with open(self.path, "rb", buffering=0) as handle:
            self.file_size = os.fstat(handle.fileno()).st_size
            position = self.start_position
            while position < self.file_size:
                handle.seek(position)
                block = self._framed(handle.read(self.block_bytes()), position)
                if not block.frames:
                    handle.seek(position)
                    data = self._read_frame(handle, position)
                    block = FramedBlock(data, [(data, position)], [0])
                position += block.end
                yield block
                del block  # not held while the next block is read

    def decodes_as(self, block: FramedBlock, decoded_bytes: int) -> None:
        """Note that the last block read decodes as ``decoded_bytes`` (its compressed batches decompressed): the next
        one is read for about :data:`BLOCK_BYTES` decoded (:meth:`block_bytes`)."""
        self._inflation = decoded_bytes / max(block.end, 1)

    def block_bytes(self) -> int:
        """Bytes to read for the next block: :data:`BLOCK_BYTES` over the last block's inflation (its bytes once its
        compressed batches were decompressed, per byte read), at least a sixteenth of it."""
        return max(int(BLOCK_BYTES / self._inflation), BLOCK_BYTES // 16)

    def _framed(self, chunk: bytes, position: int) -> FramedBlock:
        """The whole batches at the start of ``chunk`` (read at byte ``position``) that :meth:`_read_frame` would
        accept, up to the first that it would not or that does not end in ``chunk``."""
        frames, starts, at, size = [], [], 0, len(chunk)
        view, unpack, crc_of = memoryview(chunk), _LENGTH.unpack_from, L.CRC.unpack_from
        while at + L.RECORD_BATCH_OVERHEAD <= size:
            end = at + L.LOG_OVERHEAD + unpack(chunk, at + 8)[0]
            if (
                end - at < L.RECORD_BATCH_OVERHEAD
                or end > size
                or chunk[at + L.MAGIC_POSITION] != 2
                or (
                    self.verify_crc
                    and crc_of(chunk, at + L.CRC_POSITION)[0] != calc_crc32c(view[at + L.ATTRIBUTES_POSITION : end])
                )
            ):
                break
            frames.append((chunk[at:end], position + at))
            starts.append(at)
            at = end
        return FramedBlock(chunk, frames, starts)

    def _advance(self, data: bytes) -> None:
        self.valid_bytes += len(data)
        if self.on_bytes is not None:
            self.on_bytes(len(data))

    def _recovered(self, error: CorruptBatchError) -> None:
        """Raise ``error``, or with ``recover`` note that the rest of the file is dropped from the valid prefix on."""
        if not self.recover:
            raise error
        end = self.start_position + self.valid_bytes  # the valid batches end there
        self.dropped = DroppedBytes(str(self.path), end, self.file_size - end, error.reason)

    def _first_allowed_offset(self) -> int:
        floors = [o for o in (self.base_offset, self.min_offset) if o is not None]
        return max(floors) if floors else 0

    def _read_frame(self, handle: BinaryIO, position: int) -> bytes:
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
        if self.verify_crc and L.CRC.unpack_from(data, L.CRC_POSITION)[0] != calc_crc32c(
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

    def decode_batch(self, data: bytes, position: int, next_offset: int) -> RecordBatch:
        """One batch's bytes (from :meth:`decoded`) as a core :class:`RecordBatch`, records checked."""
        # The hot path: one header unpack, cheap checks inline, the detailed ones only on failure.
        header = self.check_header(data, position, next_offset)
        base_offset, attributes, last_delta, count = header[0], header[5], header[6], header[12]
        last_offset = base_offset + last_delta
        codec = "none" if attributes & L.CODEC_MASK == 0 else self._codec(attributes, position)
        records = self._records(data, header, codec, position)
        if (
            len(records) != count
            or (count and not base_offset <= records[0].offset <= records[-1].offset <= last_offset)
            or count > 1
        ):
            self._check_records(records, count, (base_offset, last_offset), position)
        return record_batch(header, records, data, codec, self.keep_raw)

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

    def _codec(self, attributes: int, position: int) -> str:
        codec_id = attributes & L.CODEC_MASK
        if codec_id >= len(L.COMPRESSION_CODECS):
            self._fail(CorruptBatchError, position, f"unknown compression codec id {codec_id}")
        codec = L.COMPRESSION_CODECS[codec_id]
        if codec != "none" and not getattr(kafka_codec, f"has_{codec}")():
            raise MissingCodecError(self.path, position, codec, L.CODEC_PACKAGES[codec])
        return codec

    def _records(self, data: bytes, header: tuple[Any, ...], codec: str, position: int) -> Sequence[Record]:
        base_offset, attributes, last_delta, base_ts, count = header[0], header[5], header[6], header[7], header[12]
        if count == 0:  # DefaultRecordBatch.iterator: no records, whatever follows the header is never read
            return ()
        if codec != "none":
            data = self._uncompressed(data, codec, position)
        columns = RecordColumns()
        try:
            parse_records(data, base_offset, base_ts, last_delta, count, columns)
        except NotPlain:
            return self._records_by_kafka_python(data, attributes, codec, position)
        if count == 1:  # the common small case, without the iterators below
            key = self.key_registry.intern(columns.keys[0])
            return (
                record_from_tuple(
                    (columns.offsets[0], columns.timestamps[0], key, columns.values[0], columns.headers[0])
                ),
            )
        if count < PACKED_MIN_RECORDS:
            keys = map(self.key_registry.intern, columns.keys)
            fields = zip(columns.offsets, columns.timestamps, keys, columns.values, columns.headers, strict=False)
            return tuple(map(record_from_tuple, fields))
        headers = tuple(columns.headers) if any(columns.headers) else None
        offsets, stamps = array("q", columns.offsets), array("q", columns.timestamps)
        return PackedRecords(offsets, stamps, tuple(columns.keys), tuple(columns.values), headers, self.key_registry)

    def _uncompressed(self, data: bytes, codec: str, position: int) -> bytes:
        """The batch as if written uncompressed: its header (codec bits cleared), then the decompressed records."""
        try:
            records = decompress_records(codec, data[L.RECORD_BATCH_OVERHEAD :])
        except Exception as error:  # noqa: BLE001 - any failure of a codec on these bytes is corruption
            self._fail(
                CorruptBatchError, position, f"cannot decode the {codec} records: {type(error).__name__}: {error}"
            )
        patched = bytearray(data[: L.RECORD_BATCH_OVERHEAD])
        patched[L.ATTRIBUTES_POSITION + 1] &= ~L.CODEC_MASK
        return bytes(patched) + records

    def _records_by_kafka_python(self, data: bytes, attributes: int, codec: str, position: int) -> Sequence[Record]:
        """Records the column parser does not read cleanly.

        kafka-python decides what they are, or that they are corrupt.
        """
        if attributes & L.LOG_APPEND_TIME_BIT:
            # kafka-python reports maxTimestamp for every record of a LogAppendTime batch; clearing
            # the bit in a copy (after the CRC check) yields the timestamps as stored.
            patched = bytearray(data)
            patched[L.ATTRIBUTES_POSITION + 1] &= ~L.LOG_APPEND_TIME_BIT
            data = bytes(patched)
        try:
            rows = [
                (r.offset, r.timestamp, r.key, r.value, tuple(r.headers) if r.headers else ())
                for r in DefaultRecordBatch(data)
            ]
        except Exception as error:  # noqa: BLE001 - any failure of the third-party decoder on these bytes is corruption
            self._fail(
                CorruptBatchError, position, f"cannot decode the {codec} records: {type(error).__name__}: {error}"
            )
        if len(rows) >= PACKED_MIN_RECORDS:
            return PackedRecords.from_rows(rows, self.key_registry)
        intern = self.key_registry.intern
        return tuple(
            record_from_tuple((offset, stamp, intern(key), value, headers))
            for offset, stamp, key, value, headers in rows
        )

    def _check_records(self, records: Sequence[Record], count: int, span: tuple[int, int], position: int) -> None:
        base, last = span
        if len(records) != count:
            self._fail(CorruptBatchError, position, f"records count {count} but {len(records)} records decoded")
        previous = base - 1
        for offset in record_offsets(records):
            if not previous < offset <= last:
                reason = f"record offset {offset} is outside the batch range [{base}, {last}] or out of order"
                self._fail(OffsetOrderError, position, reason)
            previous = offset

    def _fail(self, kind: type[CorruptBatchError], position: int, reason: str) -> NoReturn:
        if position == 0 and kind in (InvalidMagicError, TruncatedBatchError) and self.valid_bytes == 0:
            reason += " (is this a Kafka segment file?)"
        raise kind(self.path, position, reason)


def iter_segment_batches(path: str | os.PathLike[str], **options: Any) -> Iterator[RecordBatch]:
    """The batches of one segment file, streamed (see :class:`SegmentFileReader` for ``options``)."""
    return iter(SegmentFileReader(path, **options))
