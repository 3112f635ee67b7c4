"""What a broker's partition folder holds that its batches cannot tell: index entries and aborted transactions.

Replaying a segment's batches gives the index entries the current release's appends would add, but a segment's
files were written by whichever release appended or cleaned it: before KAFKA-806 a cleaned segment got one entry
per read buffer, not per batch, and ``groupSegmentsBySize`` sums the index sizes on disk. A ``.txnindex`` keeps each
aborted transaction as it was indexed (its first offset among the batches then in the log), while a re-clean
appends the entry as stored, not as the batches left would rebuild it. So, as ``LogLoader`` does with the files it
finds, a segment of a folder a broker wrote (its ``.index`` is there) takes its ``.txnindex`` entries (none without
the file) and, unless it is the active segment, its offset and time index entries as stored. Index files that do
not fit their segment (entries outside it, going back) are not taken: the replay's entries stay, and a note says so.
"""

from __future__ import annotations

from pathlib import Path

from kcompact_nb.core import (
    INDEX_FILE_SUFFIX,
    TIME_INDEX_FILE_SUFFIX,
    TXN_INDEX_FILE_SUFFIX,
    PartitionLog,
    Segment,
    segment_file_name,
)
from kcompact_nb.io._errors import IndexFileError
from kcompact_nb.io.files import read_index_file, read_index_pairs


def take_stored_indexes(log: PartitionLog, folder: Path, notes: list[str]) -> None:
    """Give ``log``'s segments the index entries and aborted transactions of their files in ``folder`` (see the
    module docstring); ``notes`` gets a line for each index file not taken."""
    for segment in log.segments:
        if not (folder / segment_file_name(segment.base_offset, INDEX_FILE_SUFFIX)).is_file():
            continue
        try:
            _take_txn_index(segment, folder)
            if segment is not log.active_segment:
                _take_offset_and_time_index(segment, folder)
        except IndexFileError as error:
            notes.append(f"{error}; its entries are rebuilt from the segment's batches")


def _take_txn_index(segment: Segment, folder: Path) -> None:
    path = folder / segment_file_name(segment.base_offset, TXN_INDEX_FILE_SUFFIX)
    entries = read_index_file(path).entries if path.is_file() else ()
    segment.aborted_transactions[:] = entries  # type: ignore[assignment]


def _take_offset_and_time_index(segment: Segment, folder: Path) -> None:
    index_path = folder / segment_file_name(segment.base_offset, INDEX_FILE_SUFFIX)
    time_path = folder / segment_file_name(segment.base_offset, TIME_INDEX_FILE_SUFFIX)
    if not time_path.is_file():
        return
    offsets, times = read_index_pairs(index_path), read_index_pairs(time_path)
    last = segment.base_offset if segment.last_offset is None else segment.last_offset
    for offset, position in offsets:
        if not (segment.base_offset <= offset <= last and 0 <= position < max(segment.size_bytes, 1)):
            raise IndexFileError(index_path, None, f"entry ({offset}, {position}) lies outside its segment")
    for _, offset in times:
        if not segment.base_offset <= offset <= last:
            raise IndexFileError(time_path, None, f"entry at offset {offset} lies outside its segment")
    segment.offset_index = offsets
    segment.time_index = times
