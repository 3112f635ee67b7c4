"""Per-partition and per-topic analytics: duplicates, tombstones, dirty keys, exact counts.

Every function is DataFrame -> DataFrame over the record schema; control records never count. These are counts over
the records (the latest record per key, by offset), not the cleaner: what a pass does, and when, is the core's
(:func:`~kcompact_nb.spark.compact`, :func:`~kcompact_nb.spark.topic_passes`).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from kcompact_nb.core import dedupe_buffer_sizing
from kcompact_nb.spark._compact import CLEANABLE_COLUMNS
from kcompact_nb.spark._schema import PARTITION_COLUMNS, RECORD_COLUMNS, require_columns


def _data(records: DataFrame) -> DataFrame:
    require_columns(records, RECORD_COLUMNS, what="this analysis")
    return records.filter(~F.coalesce(F.col("is_control"), F.lit(False)))


def with_fates(records: DataFrame) -> DataFrame:
    """Data records marked by the latest record of their key (latest per key): ``superseded`` (a later record of
    the same key exists in the partition), ``live`` (latest of its key, not a tombstone) and ``tombstone_latest``
    (latest of its key, a tombstone).

    Latest per key, not the cleaner's fates (a pass keeps a superseded record it does not reach, or whose newer
    record is not in its offset map; :func:`compact` runs the cleaner). Keyless records are neither live nor
    superseded (a compacted topic rejects them).
    """
    by_key = Window.partitionBy(*PARTITION_COLUMNS, "key")
    latest = F.max("offset").over(by_key)
    keyed = F.col("key").isNotNull()
    is_latest = keyed & (F.col("offset") == latest)
    return _data(records).withColumns(
        {
            "superseded": keyed & (F.col("offset") < latest),
            "live": is_latest & F.col("value").isNotNull(),
            "tombstone_latest": is_latest & F.col("value").isNull(),
        }
    )


def duplicates(records: DataFrame) -> DataFrame:
    """Per partition: ``records``, ``superseded`` records (a later record of their key exists: latest per key) and
    their bytes.

    A count over the records, not the cleaner: a pass removes a superseded record only when it reaches it with the
    newer one in its offset map (:func:`compact` says what a pass removes)."""
    fated = with_fates(records)
    return fated.groupBy(*PARTITION_COLUMNS).agg(
        F.count("*").alias("records"),
        F.sum(F.col("superseded").cast("long")).alias("superseded"),
        F.sum(F.when(F.col("superseded"), F.col("record_size_bytes")).otherwise(0))
        .cast("long")
        .alias("superseded_bytes"),
    )


def tombstones(records: DataFrame, *, cleaned: DataFrame | None = None) -> DataFrame:
    """Every tombstone (a keyed record without a value) with its batch's ``delete_horizon_ms`` (``deleteHorizonMs``,
    null until a pass stamps one) and ``superseded`` (a later record of its key exists: latest per key, not the
    cleaner).

    With ``cleaned``, the same partitions after a pass (:func:`compact`'s result, or the log dir after a broker's
    pass), ``removed`` says whether that pass removed the tombstone. When a tombstone goes is the engine's: a pass
    removes it once its delete horizon has passed, or when it finds a later record of its key in its offset map;
    :func:`compact` runs that pass and :func:`topic_passes` says when the cleaner runs it.
    """
    fated = with_fates(records).filter(F.col("key").isNotNull() & F.col("value").isNull())
    listed = fated.select(*PARTITION_COLUMNS, "key", "offset", "delete_horizon_ms", "superseded")
    if cleaned is None:
        return listed
    kept = require_columns(cleaned, RECORD_COLUMNS, what="tombstones' cleaned records").select(
        *PARTITION_COLUMNS, "offset", F.lit(True).alias("_kept")
    )
    joined = listed.join(kept, [*PARTITION_COLUMNS, "offset"], "left")
    return joined.select(*listed.columns, F.col("_kept").isNull().alias("removed"))


def map_capacity(dedupe_buffer_bytes: int, *, threads: int = 1, load_factor: float = 0.9) -> int:
    """Keys one pass's offset map holds: the core's :func:`~kcompact_nb.core.dedupe_buffer_sizing`
    (``log.cleaner.dedupe.buffer.size`` / ``log.cleaner.threads``, 24 bytes a key, ``SkimpyOffsetMap``)."""
    sizing = dedupe_buffer_sizing(0, load_factor=load_factor, dedupe_buffer_size=dedupe_buffer_bytes, threads=threads)
    return sizing.keys_per_pass


def dirty_keys(
    records: DataFrame, cleanable: DataFrame, *, dedupe_buffer_bytes: int = 134_217_728, threads: int = 1
) -> DataFrame:
    """Per partition: distinct keys in ``[first_dirty_offset, first_uncleanable_offset)`` next to the keys one
    pass's offset map holds (:func:`map_capacity` of ``log.cleaner.dedupe.buffer.size`` / ``log.cleaner.threads``).

    A count, not the cleaner: a range with more distinct keys than ``map_capacity`` takes more than one pass (Kafka
    stops a pass once its map is full, spec 6.3); how many passes the cleaner runs, and when, is the engine's
    (:func:`topic_passes`' ``passes_until_settled``).
    """
    capacity = map_capacity(dedupe_buffer_bytes, threads=threads)
    joined = _data(records).join(F.broadcast(cleanable.select(*CLEANABLE_COLUMNS)), list(PARTITION_COLUMNS))
    dirty = joined.filter(
        (F.col("offset") >= F.col("first_dirty_offset")) & (F.col("offset") < F.col("first_uncleanable_offset"))
    )
    counted = dirty.groupBy(*PARTITION_COLUMNS).agg(F.count_distinct("key").alias("distinct_dirty_keys"))
    return counted.withColumn("map_capacity", F.lit(capacity))


def keys_on_many_partitions(records: DataFrame) -> DataFrame:
    """Keys found on more than one partition of a topic: they never compact against each other
    (the usual result of changing a topic's partition count). One row per (topic, key)."""
    keyed = _data(records).filter(F.col("key").isNotNull())
    per_key = keyed.groupBy("topic", "key").agg(F.array_sort(F.collect_set("partition")).alias("partitions"))
    return per_key.filter(F.size("partitions") > 1).withColumn("partition_count", F.size("partitions"))


def exact_counts(records: DataFrame) -> DataFrame:
    """Exact per-partition counts of a compacted topic, next to the offset-span estimate UIs show.

    Latest per key, not the cleaner: what the partition holds once the cleaner has reached every record
    (:func:`compact` and :func:`topic_passes` say what a pass leaves, and when).

    Columns: ``records`` (data records present), ``live_keys``, ``tombstones`` (keys whose latest
    record is a tombstone), ``offset_span`` (``last - first + 1``, what offset arithmetic reports).
    """
    fated = with_fates(records)
    return fated.groupBy(*PARTITION_COLUMNS).agg(
        F.count("*").alias("records"),
        _count_true(F.col("live")).alias("live_keys"),
        _count_true(F.col("tombstone_latest")).alias("tombstones"),
        (F.max("offset") - F.min("offset") + 1).alias("offset_span"),
    )


def _count_true(flag: Column) -> Column:
    return F.sum(flag.cast("long"))
