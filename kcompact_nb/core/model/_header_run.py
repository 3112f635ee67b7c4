"""Batches read for their headers only appended to a stored segment a run at a time, folded in numpy.

Log loading appends each batch on its own (``LogSegment.append`` of one batch): an offset-index entry before a batch
when more than ``index.interval.bytes`` were appended since the last one, a time-index entry with it when the largest
timestamp so far grew since the last time-index entry, the largest timestamp held at the batch's last offset. The same
bookkeeping over thousands of batches is a few numpy operations and one walk over the index entries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy

from kcompact_nb.record import COMPRESSION_CODECS, NO_TIMESTAMP

if TYPE_CHECKING:
    from kcompact_nb.core.model._segment import StoredSegment


class HeaderRun(NamedTuple):
    """Consecutive data batches of a segment known by their headers only (no control batch among them), as numpy
    columns of their header fields: each one's size in bytes, offsets, largest timestamp (``maxTimestamp``), codec id
    (``COMPRESSION_CODECS``), producer id, epoch and base sequence (int64), and whether it is transactional (bool)."""

    sizes: Any
    base_offsets: Any
    last_offsets: Any
    max_timestamps: Any
    codecs: Any
    producer_ids: Any
    producer_epochs: Any
    base_sequences: Any
    transactional: Any

    @property
    def last_offset(self) -> int:
        """The last batch's last offset."""
        return int(self.last_offsets[-1])

    def taken(self, which: Any) -> HeaderRun:
        """The batches ``which`` picks (a numpy bool mask or indexes), in order."""
        return HeaderRun(*(column[which] for column in self))


def append_run(segment: StoredSegment, run: HeaderRun) -> None:
    """Append ``run``'s batches to ``segment`` one at a time, as :meth:`Segment.append` of each batch would (its
    largest timestamp held at its last offset, :func:`appended_offset_of_max_timestamp` of a batch without records);
    the segment has no index size limit (``max_index_bytes``)."""
    sizes, last_offsets = run.sizes, run.last_offsets
    if segment.size_bytes == 0 and segment.rolling_based_timestamp is None:
        segment.rolling_based_timestamp = int(run.max_timestamps[0])
    largest, holder = _largest_so_far(segment, run)
    appended = numpy.concatenate(([0], numpy.cumsum(sizes)))  # bytes appended before each batch, and in all
    at = _index_entry_batches(appended, segment.index_interval_bytes, segment._bytes_since_last_index_entry)
    if len(at):
        positions = segment.size_bytes + appended[at]
        segment.offset_index.extend(zip(last_offsets[at].tolist(), positions.tolist(), strict=True))
        last_indexed = segment.time_index[-1][0] if segment.time_index else NO_TIMESTAMP
        timestamps = largest[at]
        grew = timestamps > numpy.concatenate(([last_indexed], timestamps[:-1]))
        segment.time_index.extend(zip(timestamps[grew].tolist(), holder[at][grew].tolist(), strict=True))
        segment._bytes_since_last_index_entry = int(appended[-1] - appended[at[-1]])
    else:
        segment._bytes_since_last_index_entry += int(appended[-1])
    segment.size_bytes += int(appended[-1])
    segment.max_timestamp_so_far, segment.offset_of_max_timestamp_so_far = int(largest[-1]), int(holder[-1])
    segment.stored_last_offset = run.last_offset
    segment.batch_count += len(sizes)
    segment.stored_codecs.update(COMPRESSION_CODECS[codec] for codec in numpy.unique(run.codecs).tolist())


def _largest_so_far(segment: StoredSegment, run: HeaderRun) -> tuple[Any, Any]:
    """The segment's largest timestamp after each batch of ``run`` and the offset that holds it: the last offset of the
    first batch that reached it (an equal timestamp later does not move it)."""
    timestamps = run.max_timestamps
    largest = numpy.maximum(numpy.maximum.accumulate(timestamps), segment.max_timestamp_so_far)
    before = numpy.concatenate(([segment.max_timestamp_so_far], largest[:-1]))
    reached = numpy.maximum.accumulate(numpy.where(timestamps > before, numpy.arange(len(timestamps)), -1))
    holder = numpy.where(reached >= 0, run.last_offsets[reached], segment.offset_of_max_timestamp_so_far)
    return largest, holder


def _index_entry_batches(appended: Any, interval_bytes: int, bytes_since_entry: int) -> Any:
    """The batches an offset-index entry is added before (a numpy array of their indexes): those before which more
    than ``interval_bytes`` were appended since the last entry (``bytes_since_entry`` before the first batch;
    ``appended``: the bytes appended before each batch, and in all)."""
    count = len(appended) - 1
    after = numpy.searchsorted(appended, appended[:-1] + interval_bytes, side="right")
    batch = int(numpy.searchsorted(appended, interval_bytes - bytes_since_entry, side="right"))
    if batch >= count or (after[batch:] == numpy.arange(batch + 1, count + 1)).all():
        return numpy.arange(batch, count)  # each batch from there on is bigger than the interval: an entry before each
    entries, following = [], after.tolist()
    while batch < count:
        entries.append(batch)
        batch = following[batch]
    return numpy.array(entries, numpy.int64)
