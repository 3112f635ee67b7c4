"""Column contract of offset-bucketed partition summaries (drawing large partitions without collecting them).

One row per (topic, partition, bucket): records in ``[start_offset, end_offset)`` counted by fate.
The core computes it from a :class:`PartitionLog`, Spark from a DataFrame; figures read either.

========== =====================================================================
column      meaning
========== =====================================================================
topic       topic name
partition   partition number
bucket      bucket index, 0-based from the partition's first offset
start_offset first offset of the bucket (inclusive)
end_offset  end of the bucket (exclusive)
records     data records in the bucket (control records excluded)
size_bytes  sum of the records' v2 sizes (``record_size_bytes``), batch overheads excluded
live        records that are the latest of their key and not tombstones, and keyless records
superseded  records with a later record of the same key in the partition
tombstones  records that are the latest of their key and tombstones
========== =====================================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol, cast, runtime_checkable

import numpy

from kcompact_nb.core.model import PartitionLog, Segment
from kcompact_nb.record import (
    RECORD_BATCH_OVERHEAD,
    KafkaModelError,
    PackedRecords,
    Record,
    RecordBatch,
    SpanEntries,
    latest_entries,
    record_keys,
    record_offsets,
    record_size_bytes,
    record_values,
)

OFFSET_BUCKET_COLUMNS: tuple[str, ...] = (
    "topic",
    "partition",
    "bucket",
    "start_offset",
    "end_offset",
    "records",
    "size_bytes",
    "live",
    "superseded",
    "tombstones",
)
PENDING_RECORDS = 1 << 16
"""Records (and whole batches) :meth:`OffsetBucketTally.add` buffers before counting them together."""
MAX_SPAN = 1 << 62
"""Offsets a tally spans at most (its entries, twice an offset's distance from the start, fit 64 bits)."""
WINNERS_CHUNK = 1 << 18
"""Entries counted into the buckets at a time at the end: each step's arrays stay small (2 MiB), where whole-table
ones (40 MB for 5M keys) were new memory to fault in, step after step."""


class OffsetBucket(NamedTuple):
    """One row of an offset-bucketed summary; the fields are :data:`OFFSET_BUCKET_COLUMNS`."""

    topic: str
    partition: int
    bucket: int
    start_offset: int
    end_offset: int
    records: int
    size_bytes: int
    live: int
    superseded: int
    tombstones: int


def offset_buckets(
    log: PartitionLog, *, bucket_count: int, topic: str | None = None, partition: int | None = None
) -> list[OffsetBucket]:
    """Summarise ``[log start offset, log end offset)`` in at most ``bucket_count`` equal-width offset buckets.

    Every bucket is returned, empty ones too, so offset gaps left by compaction stay visible.
    "Later record of the same key" is by offset (Kafka's ``compaction.strategy=offset``); control
    records and records below the log start offset are not counted; keyless records count as live.
    :func:`kcompact_nb.spark.offset_buckets` follows the same rule and, given the same ``bucket_count``,
    returns the same rows. ``topic``/``partition`` default to the log's.

    Parameters
    ----------
    log
        The partition; it is only read.
    bucket_count
        Upper bound on the number of rows (at least 1); each bucket spans ``ceil(span / bucket_count)`` offsets.
    """
    storage = log.storage
    if isinstance(storage, TalliesOffsets):  # batches in files: counted a block of a file at a time
        latest = latest_entries()
        tally = OffsetBucketTally(log.log_start_offset, log.log_end_offset, bucket_count, latest)
        for segment in log.segments:
            storage.tally_offsets(segment, tally, latest)
    else:
        tally = OffsetBucketTally(log.log_start_offset, log.log_end_offset, bucket_count)
        for batch in log.batches():
            tally.add(batch)
    return tally.rows(log.topic if topic is None else topic, log.partition if partition is None else partition)


@runtime_checkable
class TalliesOffsets(Protocol):
    """A log's storage that counts its own batches into a tally faster than batch by batch (io's segment files:
    a block of a file's records decoded and counted together, each key's entry kept by its bytes in ``latest``)."""

    def tally_offsets(self, segment: Segment, tally: OffsetBucketTally, latest: SpanEntries) -> None: ...


class LatestEntries(Protocol):
    """Key -> the entry of its latest record: what a tally keeps per distinct key (:class:`DictLatestEntries`, or a
    hash table of key bytes in C from the io layer). Entries grow with the record's offset, so the higher wins."""

    def __len__(self) -> int: ...

    def put_keys(self, keys: Sequence[bytes], entries: Any) -> None:
        """Keep for each key the higher of its entry and ``entries[i]`` (ints: a list or a numpy int64 array)."""
        ...

    def entries(self) -> Any:
        """Every key's entry, a numpy int64 array in any order."""
        ...


class DictLatestEntries(dict[bytes, int]):
    """:class:`LatestEntries` in a dict (entries put in offset order: a later one is the higher)."""

    def put_keys(self, keys: Sequence[bytes], entries: Any) -> None:
        self.update(zip(keys, entries, strict=True))

    def entries(self) -> Any:
        return numpy.fromiter(self.values(), numpy.int64, len(self))


class OffsetBucketTally:
    """:func:`offset_buckets` of batches given one at a time (:meth:`add`) or as columns of many (io's blocks).

    Per bucket, records and bytes are counted as batches come; each key's latest record is kept in ``latest`` as
    an entry, ``2 * (offset - start) + 1`` for a tombstone, ``2 * (offset - start)`` otherwise (so the latest
    record's entry is the highest), and live and tombstone counts follow from the winners at the end. Memory is
    one entry per distinct key and a buffer of :data:`PENDING_RECORDS` records' offsets and sizes, never the records.

    Parameters
    ----------
    start, end
        The partition's log start and log end offsets: ``[start, end)`` is summarised.
    bucket_count
        Upper bound on the number of rows (at least 1).
    latest
        Where each key's entry is kept (a :class:`DictLatestEntries` by default).
    """

    def __init__(self, start: int, end: int, bucket_count: int, latest: LatestEntries | None = None) -> None:
        if bucket_count < 1:
            raise KafkaModelError(f"bucket_count must be at least 1, got {bucket_count}")
        if end - start >= MAX_SPAN:
            raise KafkaModelError(
                f"offsets [{start}, {end}) span more than 2^62 offsets: entries would not fit 64 bits"
            )
        self.start, self.end = start, end
        self.width = max(-(-(end - start) // bucket_count), 1)
        self.buckets = max(-(-(end - start) // self.width), 0)
        self.records = numpy.zeros(self.buckets, numpy.int64)
        self.size_bytes = numpy.zeros(self.buckets, numpy.int64)
        self.keyless = numpy.zeros(self.buckets, numpy.int64)
        """Keyless records (live) per bucket."""
        self.latest: LatestEntries = DictLatestEntries() if latest is None else latest
        self._pending = _PendingRecords()

    def counts(self, is_control: Any, last_offset: Any) -> Any:
        """Whether a batch counts (control batches and batches below the log start offset do not); numpy columns
        of many batches give a bool column."""
        return numpy.logical_not(is_control) & (last_offset >= self.start) & (self.buckets > 0)

    def add(self, batch: RecordBatch) -> None:
        """Count one batch: its keys' entries go to :attr:`latest` now, its records and bytes wait in a buffer (of at
        most :data:`PENDING_RECORDS` records and whole batches) to be counted together."""
        records = batch.records
        if not records or batch.is_control or batch.last_offset < self.start or not self.buckets:
            return  # the rule of counts(), for one batch
        pending = self._pending
        offsets = self._put_latest(records)
        first, last = offsets[0], offsets[-1]
        if batch.compression == "none" and self._whole(first, last):
            # one bucket holds the batch: its record bytes are the size minus the header
            pending.whole.append((first, len(records), batch.size_bytes - RECORD_BATCH_OVERHEAD))
        else:
            pending.offsets.extend(offsets)
            pending.sizes.extend(_record_size(batch, record) for record in records)
        if len(pending.offsets) + len(pending.whole) >= PENDING_RECORDS:
            self._flush()

    def _put_latest(self, records: Sequence[Record]) -> Sequence[int]:
        """Put each keyed record's entry into :attr:`latest`, count the keyless ones; returns the offsets."""
        if type(records) is PackedRecords:  # not isinstance: an ABC's check costs more than the rest here
            offsets: Sequence[int] = records.offsets
            keys: Sequence[bytes | None] = records.keys
            nulls: Sequence[bool] = records.null_values().tolist()
            keyed = records.all_keyed
        else:
            offsets, keys = record_offsets(records), record_keys(records)
            nulls = [value is None for value in record_values(records)]
            keyed = None not in keys
        start = self.start
        entries = [2 * (offset - start) + null for offset, null in zip(offsets, nulls, strict=True)]
        if not keyed:
            self.count_keyless(numpy.array([o for o, k in zip(offsets, keys, strict=True) if k is None], numpy.int64))
            entries = [e for e, k in zip(entries, keys, strict=True) if k is not None]
            keys = [k for k in keys if k is not None]
        self.latest.put_keys(cast("Sequence[bytes]", keys), entries)
        return offsets

    def _whole(self, first: int, last: int) -> bool:
        return first >= self.start and (first - self.start) // self.width == (last - self.start) // self.width

    def count_batches(self, first_offsets: Any, last_offsets: Any, counts: Any, record_bytes: Any) -> Any:
        """Count the batches (numpy int64 columns: first and last record offsets, records, bytes of the records)
        that one bucket holds wholly; returns which did (the others' records go to :meth:`count_records`)."""
        start, width = self.start, self.width
        whole = (first_offsets >= start) & ((first_offsets - start) // width == (last_offsets - start) // width)
        buckets = (first_offsets[whole] - start) // width
        self.records += numpy.bincount(buckets, counts[whole], self.buckets).astype(numpy.int64)
        self.size_bytes += numpy.bincount(buckets, record_bytes[whole], self.buckets).astype(numpy.int64)
        return whole

    def count_records(self, offsets: Any, sizes: Any) -> None:
        """Count records one by one (numpy int64 offsets and sizes; those below the log start offset are not)."""
        kept = offsets >= self.start
        buckets = (offsets[kept] - self.start) // self.width
        self.records += numpy.bincount(buckets, minlength=self.buckets)
        self.size_bytes += numpy.bincount(buckets, sizes[kept], self.buckets).astype(numpy.int64)

    def count_keyless(self, offsets: Any) -> None:
        """Count keyless records (numpy int64 offsets): they are live."""
        self.keyless += self._histogram(offsets)

    def entries_of(self, offsets: Any, tombstones: Any) -> Any:
        """The entries of records (numpy int64 offsets, bool tombstones) for :attr:`latest`."""
        return 2 * (offsets - self.start) + tombstones

    def rows(self, topic: str, partition: int) -> list[OffsetBucket]:
        """One :class:`OffsetBucket` per bucket, empty ones too."""
        if not self.buckets:
            return []
        self._flush()
        start, width = self.start, self.width
        return [
            OffsetBucket(topic, partition, i, start + i * width, min(start + (i + 1) * width, self.end), *map(int, row))
            for i, row in enumerate(self._columns())
        ]

    def _flush(self) -> None:
        """Count the buffered records of :meth:`add`."""
        pending, self._pending = self._pending, _PendingRecords()
        if pending.whole:
            first, counts, sizes = (numpy.array(c, numpy.int64) for c in zip(*pending.whole, strict=True))
            self.count_batches(first, first, counts, sizes)
        self.count_records(numpy.array(pending.offsets, numpy.int64), numpy.array(pending.sizes, numpy.int64))

    def _columns(self) -> numpy.ndarray:
        """Columns records, size_bytes, live, superseded, tombstones; one row per bucket."""
        winners = numpy.zeros((self.buckets, 2), numpy.int64)
        entries = self.latest.entries()
        for at in range(0, len(entries), WINNERS_CHUNK):
            winners += self._winners(entries[at : at + WINNERS_CHUNK])
        live, tombstones = winners[:, 0] + self.keyless, winners[:, 1]
        return numpy.column_stack([self.records, self.size_bytes, live, self.records - live - tombstones, tombstones])

    def _winners(self, entries: numpy.ndarray) -> numpy.ndarray:
        """Per bucket, the keys whose latest record it holds: (live, tombstones), from their entries (a negative
        one: a record below the log start offset, not counted)."""
        kept = entries[entries >= 0]
        cells = (kept >> 1) // self.width * 2 + (kept & 1)
        return numpy.bincount(cells, minlength=2 * self.buckets).reshape(self.buckets, 2)

    def _histogram(self, offsets: numpy.ndarray) -> numpy.ndarray:
        kept = offsets[offsets >= self.start]
        return numpy.bincount((kept - self.start) // self.width, minlength=self.buckets).astype(numpy.int64)


class _PendingRecords:
    """Columns of the records :meth:`OffsetBucketTally.add` was given, not counted yet."""

    def __init__(self) -> None:
        self.whole: list[tuple[int, int, int]] = []
        """(first offset, records, record bytes) of each batch one bucket holds."""
        self.offsets: list[int] = []
        self.sizes: list[int] = []
        """Offset and size of each record of the other batches."""


def _record_size(batch: RecordBatch, record: Record) -> int:
    deltas = (record.offset - batch.base_offset, record.timestamp - batch.base_timestamp)
    return record_size_bytes(*deltas, record.key, record.value, record.headers)
