"""A generated multi-partition compacted topic, built by Spark (no driver-side rows), deterministic per seed.

For notebooks and benchmarks that need a topic at scale without a broker: records in the record
schema, a segment table like :func:`load_segments` and checkpoints like :func:`load_checkpoints`, as
if Kafka's cleaner had already cleaned the start of each partition (its log tail, below the cleaner point).

Not Kafka's behaviour, on purpose: key index ``k`` lives on partition ``k mod partitions`` (Kafka's
default partitioner hashes keys with murmur2) and records arrive round-robin; every record is a batch
of its own without producer (``producerId -1``); segments roll every ``segment_records`` offsets; a
segment's size is its records' v2 sizes plus a 61-byte batch header each, and its modification time
is its largest timestamp. The log tail is made by a shortcut, not by the cleaner: below the cleaner point only
the latest record of each key among those below it stays (:func:`latest_per_key`), which is what the core's pass
over that range keeps with a map that never fills (tests/spark/test_compact.py checks it), except that the tail's
segments stay as they were and kept tombstones carry no delete horizon.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from kcompact_nb.core import RECORD_BATCH_OVERHEAD, KcompactError
from kcompact_nb.spark._latest import latest_per_key
from kcompact_nb.spark._schema import HEADER_TYPE, PARTITION_COLUMNS, RECORD_COLUMNS
from kcompact_nb.spark._sizes import estimated_record_size

SYNTHETIC_BASE_TS_MS = 1_767_225_600_000
"""Timestamps start at 2026-01-01T00:00:00Z, like the bundled broker samples."""


@dataclass(frozen=True)
class SyntheticTopic:
    """A generated topic: its ``records``, ``segments`` and ``checkpoints`` DataFrames (cached), and ``now_ms``.

    ``now_ms`` is one millisecond after the last record's timestamp: a natural "now" for analyses.
    """

    records: DataFrame
    segments: DataFrame
    checkpoints: DataFrame
    now_ms: int


def synthetic_topic(
    spark: SparkSession,
    *,
    topic: str = "synthetic",
    partitions: int = 4,
    records: int = 200_000,
    keys: int = 20_000,
    seed: int = 0,
    tombstone_ratio: float = 0.01,
    segment_records: int = 5_000,
    cleaned_fractions: Sequence[float] | None = None,
    earlier_partitions: int | None = None,
    interval_ms: int = 10,
) -> SyntheticTopic:
    """Generate a compacted topic whose log tail has been cleaned once, the same for the same arguments.

    Parameters
    ----------
    topic, partitions : the topic's name and partition count.
    records : records produced over the topic's life (before the cleaned log tail lost its duplicates).
    keys : about this many distinct keys (``key-%07d``), drawn per record with ``xxhash64(i, seed)``.
    seed : varies keys and tombstones.
    tombstone_ratio : share of records that are tombstones (null value).
    segment_records : offsets per segment (``segment.bytes`` as a record count).
    cleaned_fractions : per partition, the share of its offsets the cleaner has already compacted
        (rounded down to a segment boundary; that is its ``cleaner-offset-checkpoint``). Default:
        evenly spread from 0.8 (partition 0) down to 0.0 (the last), so dirty ratios differ.
    earlier_partitions : the first half of the records was produced when the topic had this many
        partitions (a partition count change: those keys then also live on another partition).
    interval_ms : milliseconds between consecutive records' timestamps.
    """
    fractions = _fractions(partitions, cleaned_fractions)
    produced = _produced(
        spark, topic, partitions, records, keys, seed, tombstone_ratio, earlier_partitions, interval_ms
    )
    placed = _with_offsets(produced, segment_records)
    checkpoints = _checkpoints(placed, fractions, segment_records)
    history = _with_cleaned_tail(placed, checkpoints).cache()
    now_ms = SYNTHETIC_BASE_TS_MS + (records - 1) * interval_ms + 1
    return SyntheticTopic(history, segments_from_records(history).cache(), checkpoints.cache(), now_ms)


def _fractions(partitions: int, given: Sequence[float] | None) -> list[float]:
    if partitions < 1:
        raise KcompactError(f"partitions must be at least 1, got {partitions}")
    fractions = (
        list(given)
        if given is not None
        else [0.8 * (partitions - 1 - p) / max(partitions - 1, 1) for p in range(partitions)]
    )
    if len(fractions) != partitions or any(not 0.0 <= f <= 1.0 for f in fractions):
        raise KcompactError(f"cleaned_fractions must be {partitions} values in [0, 1], got {fractions}")
    return fractions


def _produced(
    spark: SparkSession, topic: str, partitions: int, records: int, keys: int, seed: int,
    tombstone_ratio: float, earlier_partitions: int | None, interval_ms: int,
) -> DataFrame:  # fmt: skip
    """One row per produced record: key, value, partition, offset and timestamp, without a shuffle.

    Records go round-robin over the partitions, and each draws a key of its partition (key index
    ``k`` lives on partition ``k mod count``, as a partitioner would place it); so offsets are
    ``id div count`` without a window. With ``earlier_partitions`` the first half used that count.
    """
    half = records // 2 if earlier_partitions is not None else 0
    earlier = _earlier(earlier_partitions, partitions)
    i = F.col("id")
    count = F.when(i < half, F.lit(earlier)).otherwise(F.lit(partitions))
    position = F.when(i < half, i).otherwise(i - half)
    partition = F.pmod(position, count)
    head = F.when(partition < earlier, F.floor((F.lit(half) - partition + earlier - 1) / earlier)).otherwise(0)
    offset = F.when(i < half, F.floor(position / count)).otherwise(head + F.floor(position / count))
    draw = F.pmod(F.xxhash64(i, F.lit(seed)), F.lit(max(keys // partitions, 1)))
    key_index = draw * count + partition
    tombstone = F.pmod(F.xxhash64(i, F.lit(seed + 1)), F.lit(1_000_000)) < F.lit(int(tombstone_ratio * 1_000_000))
    value = F.when(tombstone, F.lit(None).cast("binary")).otherwise(F.encode(F.format_string("value-%09d", i), "UTF-8"))
    return spark.range(records).select(
        F.encode(F.format_string("key-%07d", key_index), "UTF-8").alias("key"),
        value.alias("value"),
        F.lit(topic).alias("topic"),
        partition.cast("int").alias("partition"),
        offset.cast("long").alias("offset"),
        F.timestamp_millis(F.lit(SYNTHETIC_BASE_TS_MS) + i * interval_ms).alias("timestamp"),
    )


def _earlier(earlier: int | None, partitions: int) -> int:
    if earlier is None:
        return partitions
    if not 1 <= earlier <= partitions:
        raise KcompactError(f"earlier_partitions must be in [1, {partitions}], got {earlier}")
    return earlier


def _with_offsets(produced: DataFrame, segment_records: int) -> DataFrame:
    """The record schema: one-record batches without producer, segments every ``segment_records`` offsets."""
    if segment_records < 1:
        raise KcompactError(f"segment_records must be at least 1, got {segment_records}")
    return produced.select(
        "key", "value", "topic", "partition", "offset", "timestamp",
        F.lit(0).alias("timestampType"),
        F.lit(None).cast(HEADER_TYPE).alias("headers"),
        (F.floor(F.col("offset") / segment_records) * segment_records).cast("long").alias("segment_base_offset"),
        F.col("offset").alias("batch_base_offset"),
        F.col("offset").alias("batch_last_offset"),
        F.lit(-1).cast("long").alias("producer_id"),
        F.lit(-1).cast("int").alias("producer_epoch"),
        F.lit(False).alias("is_transactional"),
        F.lit(False).alias("is_control"),
        F.lit(None).cast("long").alias("delete_horizon_ms"),
        # a batch's first record has offset and timestamp deltas 0, so the formula is exact here
        estimated_record_size(F.col("key"), F.col("value"), F.lit(None).cast(HEADER_TYPE)).alias("record_size_bytes"),
    )  # fmt: skip


def _with_cleaned_tail(placed: DataFrame, checkpoints: DataFrame) -> DataFrame:
    """``placed`` with only the latest record of each key left below each partition's cleaner checkpoint."""
    points = F.broadcast(checkpoints.select(*PARTITION_COLUMNS, "cleaner_checkpoint"))
    tail = F.col("offset") < F.col("cleaner_checkpoint")
    placed = placed.join(points, list(PARTITION_COLUMNS))
    head = placed.filter(~tail).select(*RECORD_COLUMNS)
    return latest_per_key(placed.filter(tail).select(*RECORD_COLUMNS)).unionByName(head)


def _checkpoints(placed: DataFrame, fractions: list[float], segment_records: int) -> DataFrame:
    """Per partition: the cleaner checkpoint (a segment boundary below the active segment) and log start 0."""
    ends = placed.groupBy(*PARTITION_COLUMNS).agg((F.max("offset") + 1).alias("_end"))
    fraction = F.element_at(F.array(*[F.lit(f) for f in fractions]), F.col("partition") + 1)
    active = F.floor((F.col("_end") - 1) / segment_records) * segment_records
    boundary = F.floor(F.col("_end") * fraction / segment_records) * segment_records
    return ends.select(
        *PARTITION_COLUMNS,
        F.least(boundary, active).cast("long").alias("cleaner_checkpoint"),
        F.lit(0).cast("long").alias("log_start_offset"),
    )


def segments_from_records(records: DataFrame) -> DataFrame:
    """A segment table like :func:`load_segments` computed from records (for sources without files).

    ``size_bytes`` is the records' v2 sizes plus one 61-byte batch header per distinct batch (per
    record when batch columns are null); ``last_modified_ms`` is the segment's largest timestamp.
    """
    batch = F.coalesce(F.col("batch_base_offset"), F.col("offset"))
    per_batch = records.groupBy(*PARTITION_COLUMNS, "segment_base_offset", batch.alias("_batch")).agg(
        (F.sum("record_size_bytes") + RECORD_BATCH_OVERHEAD).alias("_bytes"),
        F.max(F.unix_millis("timestamp")).alias("_ts"),
    )
    return per_batch.groupBy(*PARTITION_COLUMNS, "segment_base_offset").agg(
        F.sum("_bytes").cast("long").alias("size_bytes"), F.max("_ts").cast("long").alias("last_modified_ms")
    )
