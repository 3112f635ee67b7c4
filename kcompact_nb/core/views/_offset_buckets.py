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

from typing import NamedTuple

import numpy

from kcompact_nb.core.model import (
    RECORD_BATCH_OVERHEAD,
    KafkaModelError,
    PartitionLog,
    Record,
    RecordBatch,
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
    tally = OffsetBucketTally(log.log_start_offset, log.log_end_offset, bucket_count)
    for batch in log.batches():
        tally.add(batch)
    return tally.rows(log.topic if topic is None else topic, log.partition if partition is None else partition)


class OffsetBucketTally:
    """:func:`offset_buckets` of batches given one at a time: a partition streamed from its segment files.

    Per bucket, records and bytes are counted as batches come; each key's latest offset (negated when a
    tombstone) is kept, so live and tombstone counts follow from the winners at the end. Memory is one
    entry per distinct key, never the records.

    Parameters
    ----------
    start, end
        The partition's log start and log end offsets: ``[start, end)`` is summarised.
    bucket_count
        Upper bound on the number of rows (at least 1).
    """

    def __init__(self, start: int, end: int, bucket_count: int) -> None:
        if bucket_count < 1:
            raise KafkaModelError(f"bucket_count must be at least 1, got {bucket_count}")
        self.start, self.end = start, end
        self.width = max(-(-(end - start) // bucket_count), 1)
        self.buckets = max(-(-(end - start) // self.width), 0)
        self.records = [0] * self.buckets
        self.size_bytes = [0] * self.buckets
        self.latest: dict[bytes, int] = {}
        """Key -> offset of its latest record, ``~offset`` (negative) when that record is a tombstone."""
        self.keyless: list[int] = []

    def add(self, batch: RecordBatch) -> None:
        """Count one batch (control batches and batches below the log start offset are skipped)."""
        if batch.is_control or batch.last_offset < self.start or not self.buckets:
            return
        records, start, width = batch.records, self.start, self.width
        latest = self.latest
        for offset, key, value in zip(
            record_offsets(records), record_keys(records), record_values(records), strict=True
        ):
            if key is None:
                self.keyless.append(offset)
            else:
                latest[key] = offset if value is not None else ~offset
        if not records:
            return
        first = (records[0].offset - start) // width
        if (
            batch.compression == "none"
            and records[0].offset >= start
            and first == (records[-1].offset - start) // width
        ):
            self.records[first] += len(
                records
            )  # one bucket holds the batch: its record bytes are the size minus the header
            self.size_bytes[first] += batch.size_bytes - RECORD_BATCH_OVERHEAD
            return
        for record in records:
            if record.offset >= start:
                self.records[(record.offset - start) // width] += 1
                self.size_bytes[(record.offset - start) // width] += _record_size(batch, record)

    def rows(self, topic: str, partition: int) -> list[OffsetBucket]:
        """One :class:`OffsetBucket` per bucket, empty ones too."""
        if not self.buckets:
            return []
        start, width = self.start, self.width
        return [
            OffsetBucket(topic, partition, i, start + i * width, min(start + (i + 1) * width, self.end), *map(int, row))
            for i, row in enumerate(self._columns())
        ]

    def _columns(self) -> numpy.ndarray:
        """Columns records, size_bytes, live, superseded, tombstones; one row per bucket."""
        signed = numpy.fromiter(self.latest.values(), dtype=numpy.int64, count=len(self.latest))
        deleted = signed < 0
        offsets = numpy.where(deleted, ~signed, signed)
        tombstones = self._histogram(offsets[deleted])
        live = self._histogram(offsets[~deleted]) + self._histogram(numpy.array(self.keyless, dtype=numpy.int64))
        records = numpy.array(self.records, dtype=numpy.int64)
        sizes = numpy.array(self.size_bytes, dtype=numpy.int64)
        return numpy.column_stack([records, sizes, live, records - live - tombstones, tombstones])

    def _histogram(self, offsets: numpy.ndarray) -> numpy.ndarray:
        kept = offsets[offsets >= self.start]
        return numpy.bincount((kept - self.start) // self.width, minlength=self.buckets).astype(numpy.int64)


def _record_size(batch: RecordBatch, record: Record) -> int:
    deltas = (record.offset - batch.base_offset, record.timestamp - batch.base_timestamp)
    return record_size_bytes(*deltas, record.key, record.value, record.headers)
