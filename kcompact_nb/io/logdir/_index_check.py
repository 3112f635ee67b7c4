"""A segment's offset and time index checked against the ``.log`` file beside it, as ``kafka-dump-log.sh`` does.

``DumpLogSegments.dumpIndex``: the batch at each offset index entry's position must end at the entry's offset.
``DumpLogSegments.dumpTimeIndex``: the first batch reaching each time index entry's offset must end there, with
the entry's timestamp as its largest.
"""

from __future__ import annotations

from pathlib import Path

from kcompact_nb.core import RecordBatch, UnitError, format_time_ms, segment_file_name
from kcompact_nb.io.files import IndexFile, OffsetIndexFile, TimeIndexFile
from kcompact_nb.io.logdir._segment_reader import SegmentFileReader


def index_mismatches(index: IndexFile, path: Path) -> tuple[list[str], bool]:
    """Entries of the index at ``path`` that do not match the ``.log`` file beside it, and whether there was one.

    Other kinds of index files (transaction indexes, producer snapshots) are not checked: ``([], False)``.
    """
    if not isinstance(index, OffsetIndexFile | TimeIndexFile):
        return [], False
    segment = path.with_name(segment_file_name(index.base_offset, ".log"))
    if not segment.is_file():
        return [], False
    batches = list(SegmentFileReader(segment, keep_raw=False, recover=True))
    if isinstance(index, OffsetIndexFile):
        return _offset_index_mismatches(index, batches), True
    return _time_index_mismatches(index, batches), True


def _offset_index_mismatches(index: OffsetIndexFile, batches: list[RecordBatch]) -> list[str]:
    last_offset_at: dict[int, int] = {}
    position = 0
    for batch in batches:
        last_offset_at[position] = batch.last_offset
        position += batch.size_bytes
    problems = []
    for entry in index.entries:
        found = last_offset_at.get(entry.position)
        if found != entry.offset:
            there = "no batch starts there" if found is None else f"the batch there ends at offset {found}"
            problems.append(f"index offset {entry.offset} at byte position {entry.position:,}: {there}")
    return problems


def _time_index_mismatches(index: TimeIndexFile, batches: list[RecordBatch]) -> list[str]:
    problems = []
    for entry in index.entries:
        batch = next((b for b in batches if b.last_offset >= entry.offset), None)
        if batch is None or batch.last_offset != entry.offset:
            where = "no batch reaches it" if batch is None else f"the batch holding it ends at {batch.last_offset}"
            problems.append(f"time index offset {entry.offset}: {where}")
        elif batch.max_timestamp != entry.timestamp:
            problems.append(
                f"time index offset {entry.offset}: timestamp {entry.timestamp} but the batch's largest is "
                f"{batch.max_timestamp} ({_time(entry.timestamp)} vs {_time(batch.max_timestamp)})"
            )
    return problems


def _time(epoch_ms: int) -> str:
    try:
        return format_time_ms(epoch_ms)
    except UnitError:
        return f"{epoch_ms} ms"
