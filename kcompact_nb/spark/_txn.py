"""Transaction outcomes from the records themselves: the data of aborted transactions (spec 7.3).

Kafka tracks aborted transactions through each segment's transaction index and the markers it
reads (``CleanedTransactionMetadata``). Here the same fact comes from the rows: a producer's
transactional data up to its next marker belongs to that marker's transaction. What a consumer reading
``read_committed`` skips, not the cleaner: which data and markers a pass removes is :func:`compact`'s.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

ABORT_KEY_HEX = "00000000"
"""Control record key version 0, type 0 (``ControlRecordType.ABORT``)."""


def with_transaction_flags(df: DataFrame) -> DataFrame:
    """Add ``aborted``: the row is data of an aborted transaction (its producer's next marker is an ABORT).

    Only transactional rows are windowed, so logs without transactions pay one filter and a union.
    """
    in_txn = F.coalesce(df["is_transactional"], F.lit(False)) | F.coalesce(df["is_control"], F.lit(False))
    plain = df.filter(~in_txn).withColumn("aborted", F.lit(False))
    return plain.unionByName(_flag_transactions(df.filter(in_txn)))


def _flag_transactions(txn: DataFrame) -> DataFrame:
    producer = ["topic", "partition", "producer_id"]
    before = Window.partitionBy(*producer).orderBy("offset").rowsBetween(Window.unboundedPreceding, -1)
    control = F.col("is_control").cast("int")
    grouped = txn.withColumn("_txn", F.coalesce(F.sum(control).over(before), F.lit(0)))
    same_txn = Window.partitionBy(*producer, "_txn")
    marker_is_abort = F.first(F.when(F.col("is_control"), _is_abort_marker(F.col("key"))), ignorenulls=True).over(
        same_txn
    )
    flagged = grouped.withColumn("aborted", ~F.col("is_control") & F.coalesce(marker_is_abort, F.lit(False)))
    return flagged.drop("_txn")


def _is_abort_marker(key: Column) -> Column:
    return F.hex(key) == ABORT_KEY_HEX
