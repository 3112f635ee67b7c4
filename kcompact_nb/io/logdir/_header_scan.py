"""A partition's segment files read for their batch headers only: what a broker keeps in memory of a segment.

Used to load partitions of any size in the memory of their metadata (a partition read on disk,
``ReadOptions.on_disk_from_bytes``): each batch's header is framed and CRC-checked, records are decoded only in
control batches, and in the batches a scan looks at for the first one Kafka's cleaner cannot read
(:class:`FirstUnreadable`: a partition read as the cleaner reads it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from kcompact_nb.core import RecordBatch, TimestampType
from kcompact_nb.io._errors import CorruptBatchError
from kcompact_nb.io.logdir._segment_framing import DroppedBytes
from kcompact_nb.io.logdir._segment_reader import SegmentFileReader
from kcompact_nb.record import batch_header as L


def mtime_ms(path: Path) -> int:
    """A file's modification time in epoch milliseconds (a segment's ``lastModified``)."""
    return path.stat().st_mtime_ns // 1_000_000


class FirstUnreadable:
    """The first batch Kafka's cleaner cannot read (its frame, header or records), looked for while segment files are
    scanned: from the file named ``from_file`` on, batches are decoded whole until one fails (:attr:`error`), and only
    their headers after it. The scan finds it in the same read (a CRC mismatch alone is no failure: the cleaner never
    checks CRCs)."""

    def __init__(self, from_file: str) -> None:
        self.from_file = from_file
        self.error: CorruptBatchError | None = None
        self._reached = False

    def decodes(self, file: Path) -> bool:
        """Whether ``file``'s batches are decoded whole (the scan has reached ``from_file`` and found nothing yet)."""
        self._reached = self._reached or file.name == self.from_file
        return self._reached and self.error is None

    def found(self, error: CorruptBatchError) -> None:
        if self.error is None:
            self.error = error


def header_segments(
    files: list[Path],
    *,
    verify_crc: bool,
    on_bytes: Callable[[int], None] | None,
    on_cut: Callable[[DroppedBytes], None] | None = None,
    unreadable: FirstUnreadable | None = None,
    next_offset: int | None = None,
) -> Iterator[tuple[int, int, Iterator[RecordBatch]]]:
    """Each segment file's base offset, mtime and batches, headers only (control batches decoded: their markers
    close transactions); offsets are checked across files (from ``next_offset`` on) as
    :func:`~kcompact_nb.io.read_partition_dir` does.

    With ``on_cut``, a batch that cannot be framed ends its file's batches (the rest of that file is given to
    ``on_cut``) instead of raising; later files are still read. With ``unreadable``, the first batch Kafka's cleaner
    cannot read is looked for in the same read (:class:`FirstUnreadable`).
    """
    for index, file in enumerate(files):
        end = int(files[index + 1].name[:20]) if index + 1 < len(files) else None
        reader = SegmentFileReader(
            file, min_offset=next_offset, end_offset=end, keep_raw=False, verify_crc=verify_crc, on_bytes=on_bytes,
            recover=on_cut is not None, number_keys=False,
        )  # fmt: skip
        decodes = unreadable is not None and unreadable.decodes(file)

        def header_only(
            data: bytes, position: int, allowed: int, reader: SegmentFileReader = reader, decodes: bool = decodes
        ) -> RecordBatch:
            nonlocal next_offset
            attributes = data[L.ATTRIBUTES_POSITION + 1]
            if decodes and unreadable is not None and unreadable.error is None:
                batch = _decoded_or_header(reader, data, (position, allowed), unreadable)
            elif attributes & L.CONTROL_BIT or attributes & L.CODEC_MASK >= len(L.COMPRESSION_CODECS):
                batch = reader.decode_batch(data, position, allowed)  # a marker, or the reader's error for the codec
            else:
                batch = _header_batch(reader.check_header(data, position, allowed), len(data))
            next_offset = batch.last_offset + 1
            return batch

        batches = _until_cut(reader, header_only, on_cut, unreadable if decodes else None)
        yield int(file.name[:20]), mtime_ms(file), batches


def _decoded_or_header(
    reader: SegmentFileReader, data: bytes, at: tuple[int, int], unreadable: FirstUnreadable
) -> RecordBatch:
    """The batch decoded whole; one that cannot be (``unreadable`` hears of it) by its header, which raises when it
    cannot be read either (the batch then cuts its file)."""
    position, allowed = at
    try:
        return reader.decode_batch(data, position, allowed)
    except CorruptBatchError as error:
        unreadable.found(error)
    return _header_batch(reader.check_header(data, position, allowed), len(data))


def _until_cut(
    reader: SegmentFileReader,
    decode: Callable[[bytes, int, int], RecordBatch],
    on_cut: Callable[[DroppedBytes], None] | None,
    unreadable: FirstUnreadable | None,
) -> Iterator[RecordBatch]:
    yield from reader.decoded(decode)
    dropped = reader.dropped
    if dropped is not None and on_cut is not None:
        on_cut(dropped)
        if unreadable is not None:  # a batch that cannot be framed is the first one the cleaner cannot read
            unreadable.found(CorruptBatchError(dropped.file, dropped.position, dropped.reason))


def _header_batch(header: tuple[int, ...], size: int) -> RecordBatch:
    """A batch's header fields without its records (their count stays in the file)."""
    base_offset, _, ple, _, _, attributes, last_delta, base_ts, max_ts, producer_id, epoch, sequence, _ = header
    return RecordBatch(
        base_offset,
        base_offset + last_delta,
        (),
        size,
        base_ts,
        max_ts,
        producer_id,
        epoch,
        sequence,
        bool(attributes & L.TRANSACTIONAL_BIT),
        False,
        TimestampType.LOG_APPEND_TIME if attributes & L.LOG_APPEND_TIME_BIT else TimestampType.CREATE_TIME,
        L.COMPRESSION_CODECS[attributes & L.CODEC_MASK],
        base_ts if attributes & L.DELETE_HORIZON_BIT else None,
        ple,
    )
