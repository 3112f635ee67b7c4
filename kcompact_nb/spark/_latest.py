"""The latest record per key and the live state, under the ``offset``, ``timestamp`` and ``header`` strategies.

Counts over the records, not the cleaner (a pass keeps what it does not reach; :func:`compact` runs it).

``offset`` is Kafka's rule (the highest offset wins). ``timestamp`` and ``header`` are KIP-280's
(accepted, never released; not Kafka's behaviour): the highest timestamp, or the highest version
read from a header, wins, ties going to the later offset (as :mod:`kcompact_nb.core` ranks them).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from kcompact_nb.core import COMPACTION_STRATEGIES, KcompactError
from kcompact_nb.spark._schema import PARTITION_COLUMNS, RECORD_COLUMNS, require_columns
from kcompact_nb.spark._txn import with_transaction_flags


def header_version(headers: Column, name: str) -> Column:
    """KIP-280's version: the last header called ``name`` as an 8-byte big-endian long, else null."""
    last = F.element_at(F.filter(headers, lambda h: h["key"] == F.lit(name)), -1)
    # A negative target base makes ``conv`` read the 64 bits as a signed (two's complement) long.
    signed = F.conv(F.hex(last["value"]), 16, -10).cast("long")
    return F.when(F.length(last["value"]) == 8, signed)


def _rank(strategy: str, header: str) -> Column:
    if strategy == "offset":
        return F.col("offset")
    if strategy == "timestamp":
        return F.struct(F.col("timestamp"), F.col("offset"))
    if strategy == "header":
        version = header_version(F.col("headers"), header)
        return F.struct(version.isNotNull(), F.coalesce(version, F.lit(0)), F.col("offset"))
    message = f"strategy {strategy!r} is not one of {list(COMPACTION_STRATEGIES)} (compaction.strategy)"
    raise KcompactError(message)


def latest_per_key(records: DataFrame, *, strategy: str = "offset", header: str = "version") -> DataFrame:
    """One row per (topic, partition, key): the record that wins under ``strategy``.

    Parameters
    ----------
    records : the record schema. Control records, keyless records and data of aborted
        transactions (known only where batch columns are present) take no part.
    strategy : ``offset`` (Kafka), ``timestamp`` or ``header`` (KIP-280, ``compaction.strategy``).
    header : the header holding the version for ``header`` (``compaction.strategy.header``).

    Tombstones are included (the latest record of a deleted key is its tombstone); see :func:`live_state`.
    """
    require_columns(records, RECORD_COLUMNS, what="latest_per_key")
    rank = _rank(strategy, header)
    eligible = with_transaction_flags(records).filter(
        F.col("key").isNotNull() & ~F.coalesce(F.col("is_control"), F.lit(False)) & ~F.col("aborted")
    )
    winner = F.max_by(F.struct(*RECORD_COLUMNS), rank).alias("_winner")
    return eligible.groupBy(*PARTITION_COLUMNS, "key").agg(winner).select("_winner.*")


def live_state(records: DataFrame, *, strategy: str = "offset", header: str = "version") -> DataFrame:
    """The latest value per key without deleted keys: what a compacted topic converges to once the cleaner has
    reached every record (latest per key, not the cleaner: :func:`compact` says what a pass leaves)."""
    return latest_per_key(records, strategy=strategy, header=header).filter(F.col("value").isNotNull())
