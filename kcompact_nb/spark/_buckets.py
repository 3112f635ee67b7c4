"""Offset-bucketed summaries for drawing big partitions without collecting them.

The columns are exactly :data:`kcompact_nb.core.OFFSET_BUCKET_COLUMNS` (see its module for meanings), and
the rows are the core's (:func:`kcompact_nb.core.offset_buckets`) for the same partition and parameters: counts by the
latest record per key, not the cleaner (:func:`compact` says what a pass leaves).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from kcompact_nb.core import OFFSET_BUCKET_COLUMNS, KcompactError
from kcompact_nb.spark._analytics import with_fates
from kcompact_nb.spark._schema import PARTITION_COLUMNS, require_columns

_BUCKET_KEYS = [*PARTITION_COLUMNS, "bucket"]


def offset_buckets(
    records: DataFrame,
    *,
    bucket_count: int | None = None,
    bucket_offsets: int | None = None,
    segments: DataFrame | None = None,
    checkpoints: DataFrame | None = None,
) -> DataFrame:
    """Summarise each partition's ``[log start offset, log end offset)`` in equal-width offset buckets.

    The rule is the core's (:func:`kcompact_nb.core.offset_buckets`): every bucket is returned, empty ones
    too, so offset gaps left by compaction stay visible; control records and records below the log start
    offset are not counted; "later record of the same key" is by offset; keyless records count as live.

    Parameters
    ----------
    records : the record schema; control records and batch columns place the log end offset.
    bucket_count : at most this many buckets per partition, each ``ceil(span / bucket_count)`` offsets wide
        (the core's parameter: the same value gives the same rows).
    bucket_offsets : instead of ``bucket_count``, the width of every bucket in offsets.
    segments : :func:`load_segments` rows: segment files without records still place the log's ends.
    checkpoints : :func:`load_checkpoints` rows; their ``log_start_offset`` (``log-start-offset-checkpoint``)
        raises a partition's log start offset as ``LogLoader`` does.

    As in the core, the log start offset is ``max(log-start-offset checkpoint, first segment's base offset)``
    and the log end offset ``max(last segment's base offset, last batch's last offset + 1)``. Without
    ``segments`` the segments are those holding records; without segment and batch columns, the first
    offset and one past the last. A batch the cleaner emptied has no rows: pass ``segments`` or a log
    ending in one ends earlier here than in the core.
    """
    ranges = _bucket_ranges(records, _width(bucket_count, bucket_offsets), segments, checkpoints)
    fated = with_fates(records).join(ranges, list(PARTITION_COLUMNS)).filter(F.col("offset") >= F.col("_start"))
    placed = fated.withColumn("bucket", F.expr("(offset - _start) div _width"))
    counts = placed.groupBy(*_BUCKET_KEYS).agg(
        F.count("*").alias("records"),
        F.sum("record_size_bytes").cast("long").alias("size_bytes"),
        _count(F.col("live") | F.col("key").isNull()).alias("live"),
        _count(F.col("superseded")).alias("superseded"),
        _count(F.col("tombstone_latest")).alias("tombstones"),
    )
    grid = ranges.withColumn("bucket", F.explode(F.sequence(F.lit(0).cast("long"), F.col("_buckets") - 1)))
    rows = grid.join(counts, _BUCKET_KEYS, "left").fillna(
        0, ["records", "size_bytes", "live", "superseded", "tombstones"]
    )
    return rows.withColumns(
        {
            "start_offset": F.col("_start") + F.col("bucket") * F.col("_width"),
            "end_offset": F.least(F.col("_start") + (F.col("bucket") + 1) * F.col("_width"), F.col("_end")),
        }
    ).select(*OFFSET_BUCKET_COLUMNS)


def _width(bucket_count: int | None, bucket_offsets: int | None) -> Column:
    """Bucket width in offsets, as a column of ``_span`` (``ceil(span / bucket_count)`` or fixed)."""
    if (bucket_count is None) == (bucket_offsets is None):
        raise KcompactError(
            f"give exactly one of bucket_count and bucket_offsets, got {bucket_count} and {bucket_offsets}"
        )
    name, value = ("bucket_count", bucket_count) if bucket_offsets is None else ("bucket_offsets", bucket_offsets)
    if value is None or value < 1:
        raise KcompactError(f"{name} must be at least 1, got {value}")
    return F.lit(value).cast("long") if bucket_offsets is not None else F.expr(f"(_span + {value} - 1) div {value}")


def _bucket_ranges(
    records: DataFrame, width: Column, segments: DataFrame | None, checkpoints: DataFrame | None
) -> DataFrame:
    """Per partition: ``_start``, ``_end`` (log start and end offsets), ``_width`` and ``_buckets``.

    Empty logs are dropped.
    """
    require_columns(records, ["segment_base_offset", "batch_last_offset"], what="offset_buckets")
    ends = records.groupBy(*PARTITION_COLUMNS).agg(
        F.coalesce(F.min("segment_base_offset"), F.min("offset")).alias("_start"),
        (F.coalesce(F.max("batch_last_offset"), F.max("offset")) + 1).alias("_end"),
    )
    if segments is not None:
        bases = segments.groupBy(*PARTITION_COLUMNS).agg(
            F.min("segment_base_offset").alias("_first_base"), F.max("segment_base_offset").alias("_last_base")
        )
        ends = ends.join(bases, list(PARTITION_COLUMNS), "left").withColumns(
            {"_start": F.coalesce("_first_base", "_start"), "_end": F.greatest("_end", "_last_base")}
        )
    if checkpoints is not None:
        starts = checkpoints.select(*PARTITION_COLUMNS, F.col("log_start_offset").alias("_checkpoint"))
        ends = ends.join(starts, list(PARTITION_COLUMNS), "left").withColumn(
            "_start", F.greatest("_start", "_checkpoint")
        )
    spans = ends.withColumn("_span", F.col("_end") - F.col("_start")).filter(F.col("_span") > 0)
    sized = spans.withColumn("_width", width).withColumn("_buckets", F.expr("(_span + _width - 1) div _width"))
    return sized.select(*PARTITION_COLUMNS, "_start", "_end", "_width", "_buckets")


def _count(flag: Column) -> Column:
    return F.sum(flag.cast("long"))
