"""Where a pass reads its source segments' batches and keeps the segments it writes.

Kafka's cleaner reads segment files a read buffer at a time and writes each group's cleaned segment to a
``.cleaned`` file before swapping it in (``Cleaner.cleanSegments``, ``LocalLog.replaceSegments``). A pass here
asks a :class:`SegmentStorage` for both: :class:`InMemoryStorage` (the default) reads batches a log holds and
splices cleaned segments into it; the io layer's file storage streams segment files and writes cleaned
groups to disk as they are done, so a pass needs memory for one read buffer and the offset map only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from kcompact_nb.core.cleaner._offset_table import OffsetTable
from kcompact_nb.core.cleaner._strategies import Strategy
from kcompact_nb.core.model import PartitionLog, Segment
from kcompact_nb.record import RecordBatch


class SegmentStorage(Protocol):
    """The batches a pass reads and the segments it writes."""

    streams: bool
    """The batches come from files and are released once read: the pass's offset map keeps none of them."""

    def batches(self, segment: Segment, position: int) -> Iterable[RecordBatch]:
        """``segment``'s batches in file order, from the first one that starts at or after byte ``position``."""
        ...

    def codecs(self, segments: Sequence[Segment]) -> set[str]:
        """The codecs of the batches of ``segments`` (checked before a pass replaces anything)."""
        ...

    def cleaned_segment(
        self, base_offset: int, *, created_ms: int, index_interval_bytes: int, indexes_each_batch: bool
    ) -> Segment:
        """A new, empty segment for one group's cleaned batches (Kafka's ``.cleaned`` file)."""
        ...

    def replace(self, log: PartitionLog, group: Sequence[Segment], cleaned: Segment) -> None:
        """Put ``cleaned`` in the place of ``group``'s segments (``replaceSegments``); it is complete."""
        ...

    def offset_table(self) -> OffsetTable | None:
        """Where a streamed pass's map keeps its entries under the offset strategy (None: in a dict)."""
        ...


def offset_table_for(storage: SegmentStorage, strategy: Strategy) -> OffsetTable | None:
    """The table a pass's map keeps its entries in: the storage's, for a streamed pass under the offset strategy."""
    return storage.offset_table() if storage.streams and strategy.ranks_by_offset else None


class InMemoryStorage:
    """The batches the log's segments hold; cleaned segments are spliced into the log's list."""

    streams = False

    def batches(self, segment: Segment, position: int) -> Iterator[RecordBatch]:
        start = 0
        for batch in segment.batches:
            if start >= position:
                yield batch
            start += batch.size_bytes

    def codecs(self, segments: Sequence[Segment]) -> set[str]:
        return {codec for segment in segments for codec in segment.codecs}

    def cleaned_segment(
        self, base_offset: int, *, created_ms: int, index_interval_bytes: int, indexes_each_batch: bool
    ) -> Segment:
        return Segment(
            base_offset,
            created_ms=created_ms,
            index_interval_bytes=index_interval_bytes,
            indexes_each_batch=indexes_each_batch,
        )

    def replace(self, log: PartitionLog, group: Sequence[Segment], cleaned: Segment) -> None:
        first = log.segments.index(group[0])
        log.segments[first : first + len(group)] = [cleaned]

    def offset_table(self) -> OffsetTable | None:
        return None
