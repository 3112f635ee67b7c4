"""A partition's segment files read for their batch headers only: what a broker keeps in memory of a segment.

Used to load partitions of any size in the memory of their metadata (:func:`kcompact_nb.io.scan_partition_dir`):
each batch's header is framed and CRC-checked, records are decoded only in control batches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from kcompact_nb.core import RecordBatch, TimestampType
from kcompact_nb.io.logdir._segment_framing import DroppedBytes
from kcompact_nb.io.logdir._segment_reader import SegmentFileReader
from kcompact_nb.record import batch_header as L


def mtime_ms(path: Path) -> int:
    """A file's modification time in epoch milliseconds (a segment's ``lastModified``)."""
    return path.stat().st_mtime_ns // 1_000_000


def header_segments(
    files: list[Path],
    *,
    verify_crc: bool,
    on_bytes: Callable[[int], None] | None,
    on_cut: Callable[[DroppedBytes], None] | None = None,
) -> Iterator[tuple[int, int, Iterator[RecordBatch]]]:
    """Each segment file's base offset, mtime and batches, headers only (control batches decoded: their markers
    close transactions); offsets are checked across files as :func:`~kcompact_nb.io.read_partition_dir` does.

    With ``on_cut``, a batch that cannot be framed ends its file's batches (the rest of that file is given to
    ``on_cut``) instead of raising; later files are still read.
    """
    next_offset: int | None = None
    for index, file in enumerate(files):
        end = int(files[index + 1].name[:20]) if index + 1 < len(files) else None
        reader = SegmentFileReader(
            file, min_offset=next_offset, end_offset=end, keep_raw=False, verify_crc=verify_crc, on_bytes=on_bytes,
            recover=on_cut is not None,
        )  # fmt: skip

        def header_only(data: bytes, position: int, allowed: int, reader: SegmentFileReader = reader) -> RecordBatch:
            nonlocal next_offset
            attributes = data[L.ATTRIBUTES_POSITION + 1]
            if attributes & L.CONTROL_BIT or attributes & L.CODEC_MASK >= len(L.COMPRESSION_CODECS):
                batch = reader.decode_batch(data, position, allowed)  # a marker, or the reader's error for the codec
            else:
                batch = _header_batch(reader.check_header(data, position, allowed), len(data))
            next_offset = batch.last_offset + 1
            return batch

        yield int(file.name[:20]), mtime_ms(file), _until_cut(reader, header_only, on_cut)


def _until_cut(
    reader: SegmentFileReader,
    decode: Callable[[bytes, int, int], RecordBatch],
    on_cut: Callable[[DroppedBytes], None] | None,
) -> Iterator[RecordBatch]:
    yield from reader.decoded(decode)
    if reader.dropped is not None and on_cut is not None:
        on_cut(reader.dropped)


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
