"""Offset-bucketed summaries for drawing big partitions without collecting them.

The columns are exactly :data:`kcompact_nb.core.OFFSET_BUCKET_COLUMNS` (see its module for meanings).
"""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from kcompact_nb.core import OFFSET_BUCKET_COLUMNS, KcompactError
from kcompact_nb.spark._analytics import with_fates
from kcompact_nb.spark._schema import PARTITION_COLUMNS


def offset_buckets(records: DataFrame, *, bucket_offsets: int) -> DataFrame:
    """Records per ``bucket_offsets``-wide offset range of each partition, counted by fate.

    Buckets start at the partition's first data-record offset; ``end_offset`` is exclusive and
    clipped to one past the partition's last offset. Buckets without data records have no row.
    """
    if bucket_offsets < 1:
        raise KcompactError(f"bucket_offsets must be at least 1, got {bucket_offsets}")
    fated = with_fates(records)
    first = F.min("offset").over(Window.partitionBy(*PARTITION_COLUMNS))
    last = F.max("offset").over(Window.partitionBy(*PARTITION_COLUMNS))
    placed = fated.withColumns({"_first": first, "_last": last}).withColumn(
        "bucket", F.floor((F.col("offset") - F.col("_first")) / bucket_offsets).cast("long")
    )
    summary = placed.groupBy(*PARTITION_COLUMNS, "bucket").agg(
        (F.first("_first") + F.col("bucket") * bucket_offsets).alias("start_offset"),
        F.least(F.first("_first") + (F.col("bucket") + 1) * bucket_offsets, F.first("_last") + 1).alias("end_offset"),
        F.count("*").alias("records"),
        F.sum("record_size_bytes").cast("long").alias("size_bytes"),
        F.sum(F.col("live").cast("long")).alias("live"),
        F.sum(F.col("superseded").cast("long")).alias("superseded"),
        F.sum(F.col("tombstone_latest").cast("long")).alias("tombstones"),
    )
    return summary.select(*OFFSET_BUCKET_COLUMNS)
