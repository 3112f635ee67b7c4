"""Per-partition cleanable range, dirty ratio and eligibility from segments and checkpoints
(``LogCleanerManager.cleanableOffsets``, ``calculateCleanableBytes``; spec 4-5).

Works on the small per-segment DataFrame of :func:`load_segments`, with built-in array functions.
Simplifications (not Kafka's behaviour): the last stable offset is taken as the log end offset
(open transactions are not detected) and ``max.compaction.lag.ms`` is not applied.
"""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from kcompact_nb.spark._schema import PARTITION_COLUMNS, require_columns

SEGMENT_COLUMNS = ("topic", "partition", "segment_base_offset", "size_bytes", "last_modified_ms")


def _segment_facts(segments: DataFrame, records: DataFrame) -> DataFrame:
    """Segments with their largest timestamp (ms; the file's mtime when empty) and next offset."""
    stats = records.groupBy(*PARTITION_COLUMNS, "segment_base_offset").agg(
        F.max(F.unix_millis("timestamp")).alias("max_ts"),
        (F.max(F.coalesce("batch_last_offset", "offset")) + 1).alias("next_offset"),
    )
    joined = segments.join(stats, [*PARTITION_COLUMNS, "segment_base_offset"], "left")
    return joined.select(
        *PARTITION_COLUMNS,
        F.struct(
            F.col("segment_base_offset").alias("base"),
            F.col("size_bytes").alias("size"),
            F.coalesce("max_ts", "last_modified_ms").alias("largest_ts"),
            F.coalesce("next_offset", "segment_base_offset").alias("next"),
        ).alias("seg"),
    )


def _sum_sizes(segs: Column, keep: Callable[[Column], Column]) -> Column:
    chosen = F.filter(segs, keep)
    return F.aggregate(chosen, F.lit(0).cast("long"), lambda acc, s: acc + s["size"])


def _floor(segs: Column, offset: Column) -> Column:
    """Base offset of the segment containing ``offset`` (the first segment's when below all)."""
    below = F.filter(segs, lambda s: s["base"] <= offset)
    return F.coalesce(
        F.array_max(F.transform(below, lambda s: s["base"])), F.array_min(F.transform(segs, lambda s: s["base"]))
    )


def dirtiness(
    segments: DataFrame,
    checkpoints: DataFrame,
    records: DataFrame,
    *,
    now_ms: int,
    min_compaction_lag_ms: int = 0,
    min_cleanable_dirty_ratio: float = 0.5,
) -> DataFrame:
    """One row per partition: ``first_dirty_offset``, ``first_uncleanable_offset``, ``clean_bytes``,
    ``cleanable_bytes``, ``total_bytes``, ``cleanable_ratio`` and ``eligible``.

    Parameters
    ----------
    segments, checkpoints : from :func:`load_segments` and :func:`load_checkpoints`.
    records : the partitions' records (for segments' largest timestamps and the log end offset).
    now_ms : the cleaner's wall clock, for ``min.compaction.lag.ms``.
    min_compaction_lag_ms, min_cleanable_dirty_ratio : the topic configs of the same names.
    """
    require_columns(segments, SEGMENT_COLUMNS, what="dirtiness")
    facts = (
        _segment_facts(segments, records)
        .groupBy(*PARTITION_COLUMNS)
        .agg(F.array_sort(F.collect_list("seg")).alias("segs"))
    )
    facts = facts.join(checkpoints, list(PARTITION_COLUMNS), "left")
    segs = F.col("segs")
    active = F.array_max(F.transform(segs, lambda s: s["base"]))
    start = F.greatest(F.coalesce("log_start_offset", F.lit(0)), F.array_min(F.transform(segs, lambda s: s["base"])))
    end = F.greatest(active, F.array_max(F.transform(segs, lambda s: s["next"])))
    checkpoint = F.col("cleaner_checkpoint")
    valid = checkpoint.isNotNull() & (checkpoint >= start) & (checkpoint <= end)
    step = facts.select(
        *PARTITION_COLUMNS, "segs", active.alias("active"), F.when(valid, checkpoint).otherwise(start).alias("fd")
    )
    return step.transform(lambda df: _uncleanable(df, now_ms, min_compaction_lag_ms)).transform(
        lambda df: _ratios(df, min_cleanable_dirty_ratio)
    )


def _uncleanable(df: DataFrame, now_ms: int, lag_ms: int) -> DataFrame:
    segs, fd, active = F.col("segs"), F.col("fd"), F.col("active")
    floor_fd = _floor(segs, fd)
    young = F.filter(
        segs, lambda s: (s["base"] >= floor_fd) & (s["base"] < active) & (s["largest_ts"] > now_ms - lag_ms)
    )
    young_base = F.array_min(F.transform(young, lambda s: s["base"])) if lag_ms > 0 else F.lit(None)
    bound = F.greatest(fd, F.least(active, F.coalesce(young_base, active)))
    fu = F.when(bound < active, _floor(segs, bound)).otherwise(active)
    return df.withColumn("fu", fu)


def _ratios(df: DataFrame, min_ratio: float) -> DataFrame:
    segs, fd, fu = F.col("segs"), F.col("fd"), F.col("fu")
    start = _floor(segs, F.least(fd, fu))
    clean = _sum_sizes(segs, lambda s: s["base"] < fd)
    cleanable = F.when(
        F.least(fd, fu) < fu, _sum_sizes(segs, lambda s: (s["base"] >= start) & (s["base"] < fu))
    ).otherwise(0)
    total = clean + cleanable
    ratio = F.when(total > 0, cleanable / total).otherwise(0.0)
    return df.select(
        *PARTITION_COLUMNS,
        fd.alias("first_dirty_offset"),
        fu.alias("first_uncleanable_offset"),
        clean.alias("clean_bytes"),
        cleanable.alias("cleanable_bytes"),
        total.alias("total_bytes"),
        ratio.alias("cleanable_ratio"),
        ((total > 0) & (ratio > min_ratio)).alias("eligible"),
    )
