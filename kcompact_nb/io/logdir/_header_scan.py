"""A partition's segment files read for their batch headers only: what a broker keeps in memory of a segment.

Used to load partitions of any size in the memory of their metadata (a partition read on disk,
``ReadOptions.on_disk_from_bytes``): each batch's header is framed and CRC-checked, records are decoded only in
control batches, and in the batches a scan looks at for the first one Kafka's cleaner cannot read
(:class:`FirstUnreadable`: a partition read as the cleaner reads it). A block's headers are read as numpy columns
(:class:`BlockHeaders`), and its runs of data batches go to log loading as such (:class:`HeaderRun`), the other
batches one by one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy

from kcompact_nb.core import HeaderRun, RecordBatch, TimestampType
from kcompact_nb.io._errors import CorruptBatchError
from kcompact_nb.io.logdir._block_headers import BlockHeaders
from kcompact_nb.io.logdir._segment_framing import DroppedBytes, ScannedFile, SegmentFraming
from kcompact_nb.io.logdir._segment_reader import SegmentFileReader
from kcompact_nb.record import FramedBlock
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
    held: Mapping[Path, ScannedFile] | None = None,
) -> Iterator[tuple[int, int, Iterator[RecordBatch | HeaderRun]]]:
    """Each segment file's base offset, mtime and batches, headers only (control batches decoded: their markers
    close transactions; data batches as :class:`HeaderRun` columns, a block's runs of them at once); offsets are
    checked across files (from ``next_offset`` on) as :func:`~kcompact_nb.io.read_partition_dir` does.

    With ``on_cut``, a batch that cannot be framed ends its file's batches (the rest of that file is given to
    ``on_cut``) instead of raising; later files are still read. With ``unreadable``, the first batch Kafka's cleaner
    cannot read is looked for in the same read (:class:`FirstUnreadable`). ``held``: the files' bytes, read from there.
    """
    for index, file in enumerate(files):
        end = int(files[index + 1].name[:20]) if index + 1 < len(files) else None
        reader = SegmentFileReader(
            file, min_offset=next_offset, end_offset=end, keep_raw=False, verify_crc=verify_crc, on_bytes=on_bytes,
            recover=on_cut is not None, number_keys=False, scanned=None if held is None else held[file],
        )  # fmt: skip
        decodes = unreadable is not None and unreadable.decodes(file)

        def header_only(
            data: bytes, position: int, allowed: int, reader: SegmentFileReader = reader, decodes: bool = decodes
        ) -> RecordBatch:
            attributes = data[L.ATTRIBUTES_POSITION + 1]
            if decodes and unreadable is not None and unreadable.error is None:
                return _decoded_or_header(reader, data, (position, allowed), unreadable)
            if attributes & L.CONTROL_BIT or attributes & L.CODEC_MASK >= len(L.COMPRESSION_CODECS):
                return reader.decode_batch(data, position, allowed)  # a marker, or the reader's error for the codec
            return _header_batch(reader.check_header(data, position, allowed), len(data))

        def block_read(
            block: FramedBlock, framing: SegmentFraming = reader.framing, decodes: bool = decodes
        ) -> Iterator[RecordBatch | HeaderRun]:
            if decodes and unreadable is not None and unreadable.error is None:
                return framing.decoded_frames(block.frames, header_only)  # batch by batch until one is unreadable
            return _block_headers(framing, block, header_only)

        batches = _until_cut(reader, reader.framing.read_blocks(block_read), on_cut, unreadable if decodes else None)
        yield int(file.name[:20]), mtime_ms(file), batches
        if reader.valid_bytes:  # the file's batches were read (before the next file is asked for)
            next_offset = reader.framing.next_offset


def _block_headers(
    framing: SegmentFraming, block: FramedBlock, header_only: Callable[[bytes, int, int], RecordBatch]
) -> Iterator[RecordBatch | HeaderRun]:
    """A block's batches: its runs of data batches in known codecs as :class:`HeaderRun` columns, the others (control
    batches, unknown codecs) one by one (``header_only``); all one by one when a header is invalid (the first such
    batch raises what is wrong with it)."""
    headers = BlockHeaders(block)
    if not headers.valid(headers.floors(framing.next_offset), base_offset=framing.base_offset,
                         end_offset=framing.end_offset):  # fmt: skip
        yield from framing.decoded_frames(block.frames, header_only)
        return
    codecs = headers.attributes & L.CODEC_MASK
    columnar = (headers.attributes & L.CONTROL_BIT == 0) & (codecs < len(L.COMPRESSION_CODECS))
    bounds = [0, *(numpy.flatnonzero(columnar[1:] != columnar[:-1]) + 1).tolist(), len(columnar)]
    whole = _header_run(headers, codecs)
    for start, stop in pairwise(bounds):
        if not columnar[start]:
            yield from framing.decoded_frames(map(block.frame, range(start, stop)), header_only)
            continue
        run = whole.taken(slice(start, stop))
        framing.advance(int(run.sizes.sum()))
        framing.next_offset = run.last_offset + 1
        yield run


def _header_run(headers: BlockHeaders, codecs: Any) -> HeaderRun:
    """The block's batches as one :class:`HeaderRun`."""
    transactional = headers.attributes & L.TRANSACTIONAL_BIT != 0
    return HeaderRun(
        headers.ends - headers.starts, headers.base_offsets, headers.last_offsets, headers.max_timestamps, codecs,
        headers.producer_ids, headers.producer_epochs, headers.base_sequences, transactional,
    )  # fmt: skip


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
    batches: Iterator[RecordBatch | HeaderRun],
    on_cut: Callable[[DroppedBytes], None] | None,
    unreadable: FirstUnreadable | None,
) -> Iterator[RecordBatch | HeaderRun]:
    yield from batches
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
