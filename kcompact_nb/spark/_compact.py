"""A full compaction in Spark: one cleaner pass with an unbounded offset map, every partition at once.

Reproduces which records :func:`kcompact_nb.core` 's ``clean_pass`` keeps with an exact offset map
under Kafka's ``offset`` strategy (spec 6-7, Kafka 3.1+ delete-horizon rules), for each partition's
cleanable range ``[first_dirty_offset, first_uncleanable_offset)``:

* records at or past ``first_uncleanable_offset`` are not read and stay;
* data of aborted transactions goes; keyless records go;
* a record stays when no record of its key in the dirty range has a higher offset;
* a kept tombstone stays while its batch has no ``deleteHorizonMs`` or ``now_ms`` is before it;
* a transaction marker stays unless its transaction has no data left and its horizon has passed.

Simplifications, not Kafka's behaviour, stated once: output rows are records, so empty batch
headers Kafka keeps (last batch of a live producer, rule B) do not appear; delete horizons are
not stamped on the output (Kafka stamps a batch keeping a tombstone with ``now + delete.retention.ms``);
see :func:`with_transaction_flags` for emptied transactional batches.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from kcompact_nb.spark._schema import PARTITION_COLUMNS, RECORD_COLUMNS, require_columns
from kcompact_nb.spark._txn import with_transaction_flags

CLEANABLE_COLUMNS = ("topic", "partition", "first_dirty_offset", "first_uncleanable_offset")


def whole_log_range(records: DataFrame) -> DataFrame:
    """Each partition's first offset to one past its last as the cleanable range.

    Not Kafka's behaviour: Kafka never cleans the active segment nor past the last stable offset;
    use :func:`kcompact_nb.spark.dirtiness` for the real range of a log dir.
    """
    return records.groupBy(*PARTITION_COLUMNS).agg(
        F.min("offset").alias("first_dirty_offset"), (F.max("offset") + 1).alias("first_uncleanable_offset")
    )


def compact(records: DataFrame, *, now_ms: int, cleanable: DataFrame | None = None) -> DataFrame:
    """The records one full cleaner pass keeps, per partition (``Cleaner.doClean`` with an exact map).

    Parameters
    ----------
    records : the record schema, control records included when the source has them.
    now_ms : the pass's wall-clock time, compared with batches' ``deleteHorizonMs``.
    cleanable : ``topic, partition, first_dirty_offset, first_uncleanable_offset`` per partition;
        by default :func:`whole_log_range` (labelled there as not Kafka's behaviour).

    Returns the kept rows in the record schema; partitions missing from ``cleanable`` are dropped.
    """
    require_columns(records, RECORD_COLUMNS, what="compact")
    ranges = (
        whole_log_range(records)
        if cleanable is None
        else require_columns(cleanable, CLEANABLE_COLUMNS, what="compact's cleanable ranges")
    )
    joined = with_transaction_flags(records).join(
        F.broadcast(ranges.select(*CLEANABLE_COLUMNS)), list(PARTITION_COLUMNS)
    )
    # An empty range indexes no segment, so the pass ends at offset 0 and rewrites nothing (``doClean``).
    in_pass = (F.col("first_dirty_offset") < F.col("first_uncleanable_offset")) & (
        F.col("offset") < F.col("first_uncleanable_offset")
    )
    kept = joined.withColumn("_latest_dirty", _latest_dirty_offset()).filter(~in_pass | _retained(now_ms))
    return kept.select(*RECORD_COLUMNS)


def _is_control() -> Column:
    return F.coalesce(F.col("is_control"), F.lit(False))


def _latest_dirty_offset() -> Column:
    """The offset map's entry for the row's key: its highest offset among mappable dirty records."""
    mappable = (
        (F.col("offset") >= F.col("first_dirty_offset"))
        & (F.col("offset") < F.col("first_uncleanable_offset"))
        & ~_is_control()
        & ~F.col("aborted")
    )
    by_key = Window.partitionBy(*PARTITION_COLUMNS, "key")
    return F.max(F.when(mappable, F.col("offset"))).over(by_key)


def _retained(now_ms: int) -> Column:
    """``shouldRetainRecord`` plus the batch rules that remove aborted data and expired markers."""
    horizon_open = F.col("delete_horizon_ms").isNull() | (F.lit(now_ms) < F.col("delete_horizon_ms"))
    marker_kept = ~F.coalesce(F.col("marker_discardable"), F.lit(False)) | horizon_open
    latest = F.col("_latest_dirty").isNull() | (F.col("offset") >= F.col("_latest_dirty"))
    data_kept = ~F.col("aborted") & F.col("key").isNotNull() & latest & (F.col("value").isNotNull() | horizon_open)
    return F.when(_is_control(), marker_kept).otherwise(data_kept)
