"""Where a log's batches live: in memory, or in their segment files, read when asked.

A :class:`PartitionLog` knows its segments' metadata (sizes, offsets, timestamps, index entries) and asks its
:class:`LogStorage` for their batches: :class:`InMemoryStorage` (the default) holds them in the segments themselves;
io's segment-file storage reads them from the ``.log`` files a block at a time, as Kafka's cleaner reads them with
its read buffer, so a log of any size fits in memory. A cleaner pass asks the same storage for a new segment for
each group it cleans (Kafka's ``.cleaned`` file) and to swap it in (``LocalLog.replaceSegments``): a pass over a
log on disk streams, and needs memory for one read buffer and the offset map only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple, Protocol

from kcompact_nb.core.model._segment import Segment
from kcompact_nb.record import PlainColumns, RecordBatch
from kcompact_nb.record import batch_header as L


class KeyedRun(NamedTuple):
    """A block's batches as a pass needs them when each is a data batch outside transactions whose records all have
    keys and no headers: its records' columns (``records``: offsets, timestamps, and keys and values as spans of
    ``data``, -1 lengths for null ones), and per batch its header's fields. Numpy int64 arrays."""

    data: bytes
    records: PlainColumns
    counts: Any
    """Each batch's record count (at least 1)."""
    sizes: Any
    """Each batch's size in bytes."""
    base_offsets: Any
    last_offsets: Any
    base_timestamps: Any
    attributes: Any
    leader_epochs: Any
    producer_ids: Any
    producer_epochs: Any
    base_sequences: Any

    @property
    def base_offset(self) -> int:
        """The first batch's base offset."""
        return int(self.base_offsets[0])

    @property
    def last_offset(self) -> int:
        """The last batch's last offset."""
        return int(self.last_offsets[-1])

    @property
    def null_values(self) -> Any:
        """Whether each record's value is null (a numpy bool array)."""
        return self.records.value_lengths < 0

    @property
    def stamped(self) -> Any:
        """Whether each batch carries a delete horizon (then its base timestamp; a numpy bool array)."""
        return (self.attributes & L.DELETE_HORIZON_BIT) != 0


class BatchBlock(Protocol):
    """Consecutive batches of a segment read together (a block of its file): read batch by batch, or, when they all
    qualify, taken at once as their :class:`KeyedRun` (then only the batches a pass keeps are read, by index)."""

    def keyed_run(self) -> KeyedRun | None:
        """The batches as one keyed run, when every one is a data batch outside transactions with keyed records only,
        decoded a block at a time (None otherwise: read them as :meth:`batches`)."""
        ...

    def batches(self) -> Iterator[RecordBatch]:
        """The batches in file order (each read and checked as it comes)."""
        ...

    def batches_at(self, indexes: Sequence[int]) -> list[RecordBatch]:
        """The keyed run's batches at ``indexes`` (ascending), the others not read."""
        ...


class LogStorage(Protocol):
    """Where a log's batches are read, and where the segments a cleaner pass writes are kept."""

    streams: bool
    """The batches come from files and are released once read: a pass's offset map keeps none of them."""

    def batches(self, segment: Segment, position: int) -> Iterable[RecordBatch]:
        """``segment``'s batches in file order, from the first one that starts at or after byte ``position``."""
        ...

    def blocks(self, segment: Segment, position: int) -> Iterable[BatchBlock]:
        """:meth:`batches` a block at a time."""
        ...

    def cleaned_segment(
        self, base_offset: int, *, created_ms: int, index_interval_bytes: int, indexes_each_batch: bool
    ) -> Segment:
        """A new, empty segment for one group's cleaned batches (Kafka's ``.cleaned`` file)."""
        ...

    def replace(self, segments: list[Segment], group: Sequence[Segment], cleaned: Segment) -> None:
        """Put ``cleaned`` in the place of ``group``'s segments in the log's ``segments`` (``replaceSegments``); it is
        complete."""
        ...

    def detached(self) -> LogStorage:
        """This storage for a copy of the log (``copy_log``): the same batches read, nothing of the original's
        changed by what the copy's passes write."""
        ...


class InMemoryStorage:
    """The batches the log's segments hold; cleaned segments are spliced into the log's list."""

    streams = False

    def batches(self, segment: Segment, position: int) -> Iterable[RecordBatch]:
        if position <= 0:
            return segment.batches
        return _from_position(segment.batches, position)

    def blocks(self, segment: Segment, position: int) -> Iterable[BatchBlock]:
        return (InMemoryBlock(self.batches(segment, position)),)

    def cleaned_segment(
        self, base_offset: int, *, created_ms: int, index_interval_bytes: int, indexes_each_batch: bool
    ) -> Segment:
        return Segment(
            base_offset,
            created_ms=created_ms,
            index_interval_bytes=index_interval_bytes,
            indexes_each_batch=indexes_each_batch,
        )

    def replace(self, segments: list[Segment], group: Sequence[Segment], cleaned: Segment) -> None:
        first = segments.index(group[0])
        segments[first : first + len(group)] = [cleaned]

    def detached(self) -> InMemoryStorage:
        return self


class InMemoryBlock:
    """Batches held in memory, as one block (never a keyed run: their records are already decoded)."""

    def __init__(self, batches: Iterable[RecordBatch]) -> None:
        self._batches = batches

    def keyed_run(self) -> KeyedRun | None:
        return None

    def batches(self) -> Iterator[RecordBatch]:
        return iter(self._batches)

    def batches_at(self, indexes: Sequence[int]) -> list[RecordBatch]:
        raise TypeError("batches held in memory are never a keyed run")


def _from_position(batches: Sequence[RecordBatch], position: int) -> Iterable[RecordBatch]:
    start = 0
    for batch in batches:
        if start >= position:
            yield batch
        start += batch.size_bytes
