"""Each partition as the cleaner sees it: the core's cleanable range, dirty ratio and eligibility, one Spark task each.

Each task rebuilds its partition from its rows, its segment files and its checkpoints
(:mod:`~kcompact_nb.spark._partition_facts`) and asks the core: :func:`kcompact_nb.core.log_to_clean`
(``LogCleanerManager.cleanableOffsets``, ``calculateCleanableBytes``, ``maxCompactionDelay``; spec 4-5) and the
cleaner's own selection (``grabFilthiestCompactedLog``). Nothing is restated here: the last stable offset of open
transactions, ``min.compaction.lag.ms`` and ``max.compaction.lag.ms`` are the engine's. A segment counts its file's
size, as the cleaner does (``LogSegment.size``), not the size of its batches rebuilt uncompressed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame

from kcompact_nb.core import BrokerConfig, CleanerManager, PartitionLog, TopicConfig, log_to_clean, log_to_clean_row
from kcompact_nb.spark._executors import prepare_python_workers
from kcompact_nb.spark._log_rows import rows_to_log
from kcompact_nb.spark._partition_facts import partition_facts, with_partition_facts
from kcompact_nb.spark._schema import PARTITION_COLUMNS, require_columns

SEGMENT_COLUMNS = ("topic", "partition", "segment_base_offset", "size_bytes", "last_modified_ms")
_DIRTINESS_ARROW_SCHEMA = pa.schema(
    [
        ("topic", pa.string()),
        ("partition", pa.int32()),
        ("first_dirty_offset", pa.int64()),
        ("first_uncleanable_offset", pa.int64()),
        ("clean_bytes", pa.int64()),
        ("cleanable_bytes", pa.int64()),
        ("total_bytes", pa.int64()),
        ("cleanable_ratio", pa.float64()),
        ("compaction_delay_ms", pa.int64()),
        ("eligible", pa.bool_()),
    ]
)
DIRTINESS_COLUMNS = tuple(_DIRTINESS_ARROW_SCHEMA.names)
"""The columns of :func:`dirtiness`: the partition, then ``log_to_clean_row``'s fields, in order."""
_DIRTINESS_DDL = (
    "topic string, partition int, first_dirty_offset long, first_uncleanable_offset long, clean_bytes long, "
    "cleanable_bytes long, total_bytes long, cleanable_ratio double, compaction_delay_ms long, eligible boolean"
)


def dirtiness(
    segments: DataFrame,
    checkpoints: DataFrame,
    records: DataFrame,
    *,
    now_ms: int,
    config: TopicConfig | None = None,
    topic_configs: Mapping[str, TopicConfig] | None = None,
    broker: BrokerConfig | None = None,
) -> DataFrame:
    """One row per partition of ``segments``: the cleaner's view of it at ``now_ms``, the core's (one task each).

    Parameters
    ----------
    segments : every segment file, ``topic, partition, segment_base_offset, size_bytes, last_modified_ms``
        (:func:`load_segments`): the sizes are what the cleaner counts, the modification times date empty segments.
    checkpoints : ``topic, partition, cleaner_checkpoint, log_start_offset`` (:func:`load_checkpoints`).
    records : the partitions' records in the record schema, control records included (open transactions hold the
        last stable offset back; the segments' largest timestamps are their records').
    now_ms : when the cleaner looks (ms since the epoch), for ``min.compaction.lag.ms`` and ``max.compaction.lag.ms``.
    config, topic_configs : the topic config of every topic, and per topic (``min.cleanable.dirty.ratio``, the
        compaction lags, ``cleanup.policy``; default ``cleanup.policy=compact`` and Kafka's defaults).
    broker : the broker's configs (producer expiry at ``now_ms``).

    Returns
    -------
    ``topic, partition, first_dirty_offset, first_uncleanable_offset, clean_bytes, cleanable_bytes, total_bytes,
    cleanable_ratio, compaction_delay_ms, eligible`` (bytes, ms): ``LogToClean``'s fields (a checkpoint outside the
    log replaced by the log start offset, as the cleaner replaces it), and ``eligible`` when the cleaner's selection
    takes the partition now (a compacted topic, dirty enough or overdue per ``max.compaction.lag.ms``).
    :func:`topic_passes` says when the cleaner then runs each partition of a log dir, and what it removes.
    """
    require_columns(segments, SEGMENT_COLUMNS, what="dirtiness")
    rows = with_partition_facts(
        records, checkpoints=checkpoints, segments=segments, what="dirtiness", every_segmented_partition=True
    )
    prepare_python_workers(records.sparkSession)
    configs, chosen_broker = dict(topic_configs or {}), broker or BrokerConfig()

    def task(key: tuple[pa.Scalar, pa.Scalar], table: pa.Table) -> pa.Table:
        topic, partition = key[0].as_py(), key[1].as_py()
        facts = partition_facts(table)
        log = rows_to_log(
            facts.columns, topic=topic, partition=partition, config=configs.get(topic, config), broker=chosen_broker,
            log_start_offset=facts.log_start_offset, cleaner_checkpoint=facts.cleaner_checkpoint, now_ms=now_ms,
            segment_files=facts.segment_times,
        )  # fmt: skip
        for segment in log.segments:  # the file's bytes, as the cleaner counts them
            segment.size_bytes = facts.segment_files.get(segment.base_offset, (None, None))[0] or segment.size_bytes
        row = {"topic": topic, "partition": partition, **cleaner_view(log, now_ms=now_ms)}
        return pa.Table.from_pylist([row], schema=_DIRTINESS_ARROW_SCHEMA)

    return rows.groupBy(*PARTITION_COLUMNS).applyInArrow(task, _DIRTINESS_DDL)


def cleaner_view(log: PartitionLog, *, now_ms: int, uncleanable: bool = False) -> dict[str, Any]:
    """``log`` as the cleaner sees it at ``now_ms``: ``log_to_clean_row``'s fields, ``eligible`` when the cleaner's
    selection (``grabFilthiestCompactedLog`` over this log alone) takes it; a partition marked ``uncleanable`` is
    skipped. The selection replaces an invalid checkpoint of ``log`` by the log start offset, as Kafka's does."""
    view = log_to_clean_row(log_to_clean(log, now_ms=now_ms))
    selection = CleanerManager(log.broker, uncleanable={log.name} if uncleanable else set())
    chosen, _ = selection.grab_filthiest_log([log], now_ms=now_ms)
    return view | {"eligible": chosen is not None}
