"""Compaction of whole topics in Spark: the core's own cleaner pass, one Spark task per partition.

:func:`compact` groups the records by partition; each task rebuilds its partition as a core log
(:mod:`~kcompact_nb.spark._log_rows`) and runs the core's pass on it (``Cleaner.doClean``, the engine every other
answer of the package comes from), then hands back the records the pass left, in the record schema. Nothing about the
pass is restated here: empty batches the pass keeps, stamped delete horizons, markers and aborted data are the
engine's.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kcompact_nb.core import BrokerConfig, CleanerManager, OffsetMapSpec, PartitionLog, TopicConfig
from kcompact_nb.spark._executors import prepare_python_workers
from kcompact_nb.spark._file_tasks import ARROW_SCHEMA
from kcompact_nb.spark._log_rows import columns_of, log_arrow, rows_to_log
from kcompact_nb.spark._schema import PARTITION_COLUMNS, RECORD_COLUMNS, RECORD_SCHEMA, require_columns

CLEANABLE_COLUMNS = ("topic", "partition", "first_dirty_offset", "first_uncleanable_offset")
CHECKPOINT_COLUMNS = ("topic", "partition", "cleaner_checkpoint", "log_start_offset")
SEGMENT_COLUMNS = ("topic", "partition", "segment_base_offset")
ACTIVE_COLUMNS = ("topic", "partition", "active_segment_base_offset")
_BOUNDS = {  # the columns a task reads its partition's range and checkpoints from (null: the engine's own)
    "active_segment_base_offset": "_active_segment_base_offset",
    "first_dirty_offset": "_first_dirty_offset",
    "first_uncleanable_offset": "_first_uncleanable_offset",
    "cleaner_checkpoint": "_cleaner_checkpoint",
    "log_start_offset": "_log_start_offset",
}


def whole_log_range(records: DataFrame) -> DataFrame:
    """Each partition's first offset to one past its last as the cleanable range.

    Not Kafka's behaviour: Kafka never cleans the active segment nor past the last stable offset. A what-if for
    :func:`compact` on records that carry no segments (a table, the Kafka source).
    """
    return records.groupBy(*PARTITION_COLUMNS).agg(
        F.min("offset").alias("first_dirty_offset"), (F.max("offset") + 1).alias("first_uncleanable_offset")
    )


def compact(
    records: DataFrame,
    *,
    now_ms: int,
    segments: DataFrame | None = None,
    checkpoints: DataFrame | None = None,
    cleanable: DataFrame | None = None,
    config: TopicConfig | None = None,
    topic_configs: Mapping[str, TopicConfig] | None = None,
    broker: BrokerConfig | None = None,
    offset_map: OffsetMapSpec | None = None,
) -> DataFrame:
    """The records each partition keeps after the core's cleaner pass at ``now_ms`` (``Cleaner.doClean``).

    One Spark task per partition rebuilds it as a core log and runs the core's pass on it, whether or not its dirty
    ratio makes it eligible now (:func:`topic_passes` says when the cleaner runs it). The pass is the engine's, with
    Kafka's rules: transaction markers, aborted data, empty batches a live producer needs, stamped delete horizons.

    Parameters
    ----------
    records : the record schema, control records included when the source has them, all of a partition's records
        (the engine reads the whole log: its segments by ``segment_base_offset``, its batches by
        ``batch_base_offset``; one segment and a batch per record where those are null).
    now_ms : the pass's wall-clock time: ``min.compaction.lag.ms``, delete horizons, producer expiry.
    segments : ``topic, partition, segment_base_offset`` of every segment (:func:`load_segments`): a partition's
        last one is its active segment, which may hold no record yet (rolled, nothing appended since); without
        it, the last segment holding a record is taken as the active one.
    checkpoints : ``topic, partition, cleaner_checkpoint, log_start_offset`` per partition
        (:func:`load_checkpoints`); without an entry the cleaner starts at the log start.
    cleanable : ``topic, partition, first_dirty_offset, first_uncleanable_offset``: the range each pass cleans,
        instead of the cleaner's own (what-ifs such as :func:`whole_log_range`, not Kafka's behaviour); partitions
        without a row are dropped. A range that reaches into the active segment, which no pass reads, rolls the log
        where the range ends first.
    config, topic_configs : the topic config of every topic, and per topic (default ``cleanup.policy=compact`` and
        Kafka's defaults).
    broker : the broker's configs; ``log.cleaner.dedupe.buffer.size`` and ``log.cleaner.threads`` size the offset
        map, and a pass stops where it fills, as Kafka's does.
    offset_map : an offset map instead of the broker's, e.g. ``OffsetMapSpec(exact=True)`` for one that never fills
        (not Kafka's).

    Returns
    -------
    The stored records after the pass in the record schema (the batch columns are the engine's: rewritten batches,
    stamped ``delete_horizon_ms``, segments regrouped), control records included; sizes are of batches rebuilt
    uncompressed.
    """
    require_columns(records, RECORD_COLUMNS, what="compact")
    bounded = records.select(*RECORD_COLUMNS)
    if cleanable is not None:
        ranges = require_columns(cleanable, CLEANABLE_COLUMNS, what="compact's cleanable ranges")
        bounded = bounded.join(F.broadcast(_renamed(ranges, CLEANABLE_COLUMNS)), list(PARTITION_COLUMNS))
    if checkpoints is not None:
        given = require_columns(checkpoints, CHECKPOINT_COLUMNS, what="compact's checkpoints")
        bounded = bounded.join(F.broadcast(_renamed(given, CHECKPOINT_COLUMNS)), list(PARTITION_COLUMNS), "left")
    if segments is not None:
        listed = require_columns(segments, SEGMENT_COLUMNS, what="compact's segments").groupBy(*PARTITION_COLUMNS)
        active = listed.agg(F.max("segment_base_offset").alias("active_segment_base_offset"))
        bounded = bounded.join(F.broadcast(_renamed(active, ACTIVE_COLUMNS)), list(PARTITION_COLUMNS), "left")
    for column in set(_BOUNDS.values()) - set(bounded.columns):
        bounded = bounded.withColumn(column, F.lit(None).cast("long"))
    prepare_python_workers(records.sparkSession)
    configs, chosen_broker = dict(topic_configs or {}), broker or BrokerConfig()

    def task(key: tuple[pa.Scalar, pa.Scalar], table: pa.Table) -> pa.Table:
        topic = key[0].as_py()
        log = _pass_over(table, topic, key[1].as_py(), configs.get(topic, config), chosen_broker, offset_map, now_ms)
        return pa.Table.from_batches(list(log_arrow(log)), schema=ARROW_SCHEMA)

    return bounded.groupBy(*PARTITION_COLUMNS).applyInArrow(task, RECORD_SCHEMA)


def _renamed(frame: DataFrame, columns: tuple[str, ...]) -> DataFrame:
    return frame.select(*PARTITION_COLUMNS, *(F.col(c).cast("long").alias(_BOUNDS[c]) for c in columns[2:]))


def _pass_over(
    table: pa.Table, topic: str, partition: int, config: TopicConfig | None, broker: BrokerConfig,
    offset_map: OffsetMapSpec | None, now_ms: int,
) -> PartitionLog:  # fmt: skip
    """One task's work: rebuild the partition from its rows, run the core's pass on it (a compacted topic's only)."""
    bound = {name: table.column(column)[0].as_py() for name, column in _BOUNDS.items()}
    columns = columns_of(table.drop_columns(list(_BOUNDS.values())))
    active = max(bound["active_segment_base_offset"] or -1, bound["first_uncleanable_offset"] or -1)
    log = rows_to_log(
        columns, topic=topic, partition=partition, config=config, broker=broker,
        log_start_offset=bound["log_start_offset"], cleaner_checkpoint=bound["cleaner_checkpoint"], now_ms=now_ms,
        active_segment_base_offset=active if active >= 0 else None,
    )  # fmt: skip
    if log.config.compact:
        CleanerManager(log.broker).clean_log(
            log, now_ms=now_ms, first_dirty_offset=bound["first_dirty_offset"],
            first_uncleanable_offset=bound["first_uncleanable_offset"], offset_map=offset_map, force=True,
        )  # fmt: skip
    return log
