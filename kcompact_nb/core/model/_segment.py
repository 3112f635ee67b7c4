"""A log segment: its batches, byte size, timestamps and index entry counts (spec 2.2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kcompact_nb.core.model._errors import IndexFullError
from kcompact_nb.core.model._versions import KafkaVersion
from kcompact_nb.record import NO_TIMESTAMP, RecordBatch, TimestampType

OFFSET_INDEX_ENTRY_BYTES = 8
TIME_INDEX_ENTRY_BYTES = 12


def appended_offset_of_max_timestamp(batch: RecordBatch, version: KafkaVersion) -> int:
    """The offset ``LogValidator`` reports with a produced batch's largest timestamp (``shallowOffsetOfMaxTimestamp``),
    which ``LogSegment.append`` indexes it at (spec 2.2).

    Before 3.7 (apache/kafka#14697), for an uncompressed CreateTime batch, the offset of its first record holding
    that timestamp (``assignOffsetsNonCompressed``); otherwise, and from 3.7, the batch's last offset. A batch read
    without its records gives its last offset.
    """
    if version.time_indexes_batch_last_offset or batch.compression != "none" or not batch.records:
        return batch.last_offset
    if batch.timestamp_type is TimestampType.LOG_APPEND_TIME:
        return batch.last_offset
    largest = max(record.timestamp for record in batch.records)
    return next(record.offset for record in batch.records if record.timestamp == largest)


@dataclass(frozen=True)
class AbortedTxn:
    """An entry of a segment's transaction index (``AbortedTxn``)."""

    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int


@dataclass
class Segment:
    """One segment of a partition log (``LogSegment``).

    ``rolling_based_timestamp`` is the max timestamp of the first append into the segment
    (``None`` while empty): time-based rolls and ``max.compaction.lag.ms`` measure from it.
    Index entries follow ``LogSegment.append``: an entry is added when more than
    ``index.interval.bytes`` were appended since the last one, checked before each batch when
    ``indexes_each_batch`` (Kafka 3.9.1, 4.0.1 and later: KAFKA-806), else once per append call.
    ``offset_index`` holds the offset index as (last offset of the batch, or of the append, and the
    file position where it starts); ``time_index`` the time index as (largest timestamp so far, last
    offset of the first batch that holds it). ``rewritten_by_cleaner`` marks a segment a cleaner pass wrote
    (Kafka's ``.cleaned`` file swapped in): all its files are new, even when its batches' bytes are the
    source's. ``max_index_bytes`` (``segment.index.bytes``), when set, is the size of the segment's preallocated
    indexes: an entry that does not fit raises :class:`IndexFullError`, as Kafka's cleaner's ``.cleaned`` segment
    does (:meth:`is_index_full`); the segments of a log's appends roll before that (``LogSegment.shouldRoll``).
    """

    base_offset: int
    created_ms: int
    index_interval_bytes: int = 4096
    roll_jitter_ms: int = 0
    indexes_each_batch: bool = True
    batches: list[RecordBatch] = field(default_factory=list)
    size_bytes: int = 0
    max_timestamp_so_far: int = NO_TIMESTAMP
    offset_of_max_timestamp_so_far: int = -1
    rolling_based_timestamp: int | None = None
    last_modified_ms: int = 0
    offset_index: list[tuple[int, int]] = field(default_factory=list)
    time_index: list[tuple[int, int]] = field(default_factory=list)
    aborted_transactions: list[AbortedTxn] = field(default_factory=list)
    rewritten_by_cleaner: bool = False
    max_index_bytes: int | None = field(default=None, compare=False)
    _bytes_since_last_index_entry: int = 0

    def __post_init__(self) -> None:
        if self.last_modified_ms == 0:
            self.last_modified_ms = self.created_ms

    @property
    def largest_timestamp(self) -> int:
        """Max batch timestamp, or the file's last-modified time when there is none (``largestTimestamp``)."""
        if self.max_timestamp_so_far >= 0:
            return self.max_timestamp_so_far
        return self.last_modified_ms

    @property
    def first_batch_timestamp(self) -> int:
        """``getFirstBatchTimestamp``: ``Long.MaxValue`` when unknown, as the cleaner uses it."""
        if self.rolling_based_timestamp is None or self.rolling_based_timestamp < 0:
            return 9_223_372_036_854_775_807
        return self.rolling_based_timestamp

    @property
    def last_offset(self) -> int | None:
        """Last offset of the last batch, ``None`` for an empty segment."""
        return self.batches[-1].last_offset if self.batches else None

    @property
    def offset_index_entries(self) -> int:
        return len(self.offset_index)

    @property
    def time_index_entries(self) -> int:
        return len(self.time_index)

    @property
    def offset_index_bytes(self) -> int:
        return self.offset_index_entries * OFFSET_INDEX_ENTRY_BYTES

    @property
    def time_index_bytes(self) -> int:
        return self.time_index_entries * TIME_INDEX_ENTRY_BYTES

    @property
    def codecs(self) -> set[str]:
        """The codecs of the segment's batches (``none`` for uncompressed ones)."""
        return {batch.compression for batch in self.batches}

    @property
    def size_estimated(self) -> bool:
        """Some batch's size is an estimate (:attr:`RecordBatch.size_estimated`), so ``size_bytes`` is too."""
        return any(batch.size_estimated for batch in self.batches)

    def append(
        self,
        batches: Sequence[RecordBatch],
        now_ms: int,
        largest_offset: int | None = None,
        *,
        offset_of_max_timestamp: int | None = None,
    ) -> None:
        """Append one record set (a produce request or a cleaner chunk), as ``LogSegment.append`` (spec 2.2).

        Without ``indexes_each_batch``, ``largest_offset`` (default: the last batch's last offset) is what
        the append's one index entry records, and the first append's largest timestamp starts the segment's
        roll clock; with it, each batch is checked on its own and the first batch starts the clock.
        ``offset_of_max_timestamp`` is where the time index puts the append's largest timestamp (default: the last
        offset of the first batch holding it; :func:`appended_offset_of_max_timestamp` for a produced batch).
        """
        if not batches:
            return
        if self.size_bytes == 0 and self.rolling_based_timestamp is None:
            first = batches[:1] if self.indexes_each_batch else batches
            self.rolling_based_timestamp = max(b.max_timestamp for b in first)
        start_bytes = self.size_bytes
        try:
            if self.indexes_each_batch:
                held = offset_of_max_timestamp if len(batches) == 1 else None
                for batch in batches:
                    self._append_records(batch.size_bytes, batch, batch.last_offset, held)
            else:
                largest = batches[-1].last_offset if largest_offset is None else largest_offset
                # the append's shallowOffsetOfMaxTimestamp: the first batch holding its largest timestamp
                holder = max(batches, key=lambda b: b.max_timestamp)
                size = sum(b.size_bytes for b in batches)
                self._append_records(size, holder, largest, offset_of_max_timestamp)
        except IndexFullError:
            # Kafka writes the records to the file before it indexes them: the whole append is in the file
            self.size_bytes = start_bytes + sum(b.size_bytes for b in batches)
            raise
        finally:
            self.batches.extend(batches)
            self.last_modified_ms = now_ms

    def _append_records(self, size: int, holder: RecordBatch, largest_offset: int, held_at: int | None) -> None:
        """The index and timestamp bookkeeping of ``size`` bytes appended at the end of the segment, whose largest
        timestamp ``holder`` holds (at offset ``held_at``, by default its last offset)."""
        if holder.max_timestamp > self.max_timestamp_so_far:
            self.max_timestamp_so_far = holder.max_timestamp
            self.offset_of_max_timestamp_so_far = holder.last_offset if held_at is None else held_at
        if self._bytes_since_last_index_entry > self.index_interval_bytes:
            if self.max_index_bytes is not None and self._offset_index_full(self.max_index_bytes):
                raise IndexFullError("offset", self.offset_index_entries)
            self.offset_index.append((largest_offset, self.size_bytes))
            if self.max_index_bytes is not None and self._time_index_full(self.max_index_bytes):
                raise IndexFullError("time", self.time_index_entries)
            self._maybe_append_time_index()
            self._bytes_since_last_index_entry = 0
        self._bytes_since_last_index_entry += size
        self.size_bytes += size

    def lookup_position(self, offset: int) -> int:
        """File position to start reading for ``offset`` (``OffsetIndex.lookup``): 0 without a smaller entry."""
        position = 0
        for entry_offset, entry_position in self.offset_index:
            if entry_offset > offset:
                break
            position = entry_position
        return position

    def is_index_full(self, segment_index_bytes: int) -> bool:
        """The offset or time index has no room left (``OffsetIndex.isFull``, ``TimeIndex.isFull``)."""
        return self._offset_index_full(segment_index_bytes) or self._time_index_full(segment_index_bytes)

    def _offset_index_full(self, segment_index_bytes: int) -> bool:
        """Every entry of the preallocated offset index is taken (``AbstractIndex.isFull``)."""
        return self.offset_index_entries >= segment_index_bytes // OFFSET_INDEX_ENTRY_BYTES

    def _time_index_full(self, segment_index_bytes: int) -> bool:
        """All but one entry of the time index are taken: ``TimeIndex.isFull`` keeps the last slot for the entry
        a segment gets when it stops being active (``onBecomeInactiveSegment`` skips the check)."""
        return self.time_index_entries >= segment_index_bytes // TIME_INDEX_ENTRY_BYTES - 1

    def on_become_inactive(self) -> None:
        """Final time-index entry when the segment stops being active (``onBecomeInactiveSegment``)."""
        self._maybe_append_time_index()

    def _maybe_append_time_index(self) -> None:
        """``TimeIndex.maybeAppend``: only a timestamp larger than the last entry's (or than -1) is added."""
        last = self.time_index[-1][0] if self.time_index else NO_TIMESTAMP
        if self.max_timestamp_so_far > last:
            self.time_index.append((self.max_timestamp_so_far, self.offset_of_max_timestamp_so_far))


@dataclass
class StoredSegment(Segment):
    """A segment whose batches stay in its file: what ``LogSegment`` itself keeps in memory.

    Appends update the size, timestamps and index entries as :meth:`Segment.append` does, then let the
    batches go; the last offset, the batch count, the codecs seen and whether a size is an estimate are
    kept. Streaming passes (:mod:`kcompact_nb.core.cleaner._segment_storage`) read and write the batches.
    """

    stored_last_offset: int | None = None
    batch_count: int = 0
    stored_codecs: set[str] = field(default_factory=set)
    estimated: bool = False

    @property
    def last_offset(self) -> int | None:
        return self.stored_last_offset

    @property
    def codecs(self) -> set[str]:
        return self.stored_codecs

    @property
    def size_estimated(self) -> bool:
        return self.estimated

    def append(
        self,
        batches: Sequence[RecordBatch],
        now_ms: int,
        largest_offset: int | None = None,
        *,
        offset_of_max_timestamp: int | None = None,
    ) -> None:
        try:
            super().append(batches, now_ms, largest_offset, offset_of_max_timestamp=offset_of_max_timestamp)
        finally:  # an index that throws still leaves the batches in the file
            if batches:
                self.stored_last_offset = batches[-1].last_offset
                self.batch_count += len(batches)
                for batch in batches:
                    self.stored_codecs.add(batch.compression)
                    self.estimated = self.estimated or batch.size_estimated
                self.batches.clear()
