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
from kcompact_nb.spark._log_rows import log_arrow, rows_to_log
from kcompact_nb.spark._partition_facts import partition_facts, with_partition_facts
from kcompact_nb.spark._schema import PARTITION_COLUMNS, RECORD_SCHEMA, require_columns

CLEANABLE_COLUMNS = ("topic", "partition", "first_dirty_offset", "first_uncleanable_offset")
_RANGE = ("_first_dirty_offset", "_first_uncleanable_offset")


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
    segments : ``topic, partition, segment_base_offset`` of every segment (:func:`load_segments`; its
        ``last_modified_ms``, when present, dates empty segments): each is a segment of the rebuilt log, empty or
        not, and a partition's last one is its active segment, which may hold no record yet (rolled, nothing
        appended since); without it, the last segment holding a record is taken as the active one.
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
    bounded = with_partition_facts(records, checkpoints=checkpoints, segments=segments, what="compact")
    if cleanable is not None:
        ranges = require_columns(cleanable, CLEANABLE_COLUMNS, what="compact's cleanable ranges")
        chosen = ranges.select(
            *PARTITION_COLUMNS,
            *(F.col(c).cast("long").alias(r) for c, r in zip(CLEANABLE_COLUMNS[2:], _RANGE, strict=True)),
        )
        bounded = bounded.join(F.broadcast(chosen), list(PARTITION_COLUMNS))
    else:
        bounded = bounded.withColumns({column: F.lit(None).cast("long") for column in _RANGE})
    prepare_python_workers(records.sparkSession)
    configs, chosen_broker = dict(topic_configs or {}), broker or BrokerConfig()

    def task(key: tuple[pa.Scalar, pa.Scalar], table: pa.Table) -> pa.Table:
        topic = key[0].as_py()
        log = _pass_over(table, topic, key[1].as_py(), configs.get(topic, config), chosen_broker, offset_map, now_ms)
        return pa.Table.from_batches(list(log_arrow(log)), schema=ARROW_SCHEMA)

    return bounded.groupBy(*PARTITION_COLUMNS).applyInArrow(task, RECORD_SCHEMA)


def _pass_over(
    table: pa.Table, topic: str, partition: int, config: TopicConfig | None, broker: BrokerConfig,
    offset_map: OffsetMapSpec | None, now_ms: int,
) -> PartitionLog:  # fmt: skip
    """One task's work: rebuild the partition from its rows, run the core's pass on it (a compacted topic's only)."""
    first_dirty, first_uncleanable = (table.column(column)[0].as_py() for column in _RANGE)
    facts = partition_facts(table.drop_columns(list(_RANGE)))
    log = rows_to_log(
        facts.columns, topic=topic, partition=partition, config=config, broker=broker,
        log_start_offset=facts.log_start_offset, cleaner_checkpoint=facts.cleaner_checkpoint, now_ms=now_ms,
        segment_files=facts.segment_times, active_segment_base_offset=first_uncleanable,
    )  # fmt: skip
    if log.config.compact:
        CleanerManager(log.broker).clean_log(
            log, now_ms=now_ms, first_dirty_offset=first_dirty, first_uncleanable_offset=first_uncleanable,
            offset_map=offset_map, force=True,
        )  # fmt: skip
    return log
