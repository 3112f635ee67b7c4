"""A whole log dir's next cleaner passes in Spark: the core's cleaner run forward, one Spark task per partition.

Each task reads one ``<topic>-<partition>/`` directory with the io reader in a Python worker and runs the core's
cleaner forward on it (:func:`kcompact_nb.spark._partition_pass.predict_partition`); the result is one row per
partition, read from what the engine did, equal to what the core computes on the driver. The driver only lists the log
dir and reads its two checkpoint files; one last small task ranks the rows in the order successive
``LogCleanerManager.grabFilthiestCompactedLog`` calls take them, by the core's own choice (spec 5).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator, Mapping
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pandas
import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession

from kcompact_nb.core import (
    METADATA_LOG_TOPIC,
    BrokerConfig,
    KcompactError,
    LogToClean,
    TopicConfig,
    filthiest,
    format_bytes,
    format_duration_ms,
    format_instant_ms,
    log_pool_order,
    topic_partition_of_dir,
)
from kcompact_nb.io import (
    CLEANER_OFFSET_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    NotASegmentError,
    ReadOptions,
    read_checkpoint,
)
from kcompact_nb.spark._bridge import BridgeLimitError
from kcompact_nb.spark._executors import prepare_python_workers
from kcompact_nb.spark._partition_pass import PartitionTask, predict_partition
from kcompact_nb.spark._storage import local_path, storage_location

PASS_ARROW_SCHEMA = pa.schema(
    [
        ("topic", pa.string()),
        ("partition", pa.int32()),
        ("log_pool_position", pa.int32()),
        ("size_bytes", pa.int64()),
        ("records", pa.int64()),
        ("first_dirty_offset", pa.int64()),
        ("first_uncleanable_offset", pa.int64()),
        ("clean_bytes", pa.int64()),
        ("cleanable_bytes", pa.int64()),
        ("total_bytes", pa.int64()),
        ("cleanable_ratio", pa.float64()),
        ("compaction_delay_ms", pa.int64()),
        ("compacted", pa.bool_()),
        ("uncleanable", pa.bool_()),
        ("eligible", pa.bool_()),
        ("next_pass_ms", pa.int64()),
        ("end_offset", pa.int64()),
        ("map_full", pa.bool_()),
        ("removed_records", pa.int64()),
        ("bytes_freed", pa.int64()),
        ("keys_per_pass", pa.int64()),
        ("passes_until_settled", pa.int32()),
        ("settled_records", pa.int64()),
    ]
)
"""A task's row: :class:`~kcompact_nb.spark._partition_pass.PartitionPass`'s fields in order."""
_PASS_SCHEMA_DDL = (
    "topic string, partition int, log_pool_position int, size_bytes long, records long, first_dirty_offset long, "
    "first_uncleanable_offset long, clean_bytes long, cleanable_bytes long, total_bytes long, cleanable_ratio double, "
    "compaction_delay_ms long, compacted boolean, uncleanable boolean, eligible boolean, next_pass_ms long, "
    "end_offset long, map_full boolean, removed_records long, bytes_freed long, keys_per_pass long, "
    "passes_until_settled int, settled_records long"
)
_RANKED_SCHEMA = PASS_ARROW_SCHEMA.insert(2, pa.field("cleaning_order", pa.int32()))
_RANKED_DDL = _PASS_SCHEMA_DDL.replace("partition int, ", "partition int, cleaning_order int, ", 1)
TOPIC_PASS_COLUMNS = tuple(_RANKED_SCHEMA.names)
"""The columns of :func:`topic_passes`, in order."""
DEFAULT_SUMMARY_LIMIT = 10_000
"""Partitions :func:`topic_pass_summary` collects at most."""

_LOCAL_ONLY = (
    "topic_passes reads partition directories with the io reader in Python workers, so only local paths "
    "(on a cluster: a path that every executor sees, such as a shared mount)"
)


def topic_passes(
    spark: SparkSession,
    path: str | os.PathLike[str],
    *,
    now_ms: int,
    options: ReadOptions | None = None,
    uncleanable: Collection[str] = (),
) -> DataFrame:
    """Every partition of a broker log dir at ``now_ms``: the cleaner's view and its next passes, one Spark task each.

    Each task runs the core's cleaner loop forward (:func:`kcompact_nb.core.run_forward`: selection,
    ``Cleaner.doClean``, retention, back-off; not an approximation) on its partition as ``kcompact clean`` reads it,
    with nothing appended, and reads what it did; so every row equals the core's result on the driver.

    Parameters
    ----------
    path : the log dir (``log.dirs`` entry), never modified; a local path (on a cluster, the same path on every
        executor) or a ``file:`` URL. Directories that are not ``<topic>-<partition>`` and the KRaft metadata log
        are skipped, as :func:`kcompact_nb.io.read_log_dir` skips them.
    now_ms : when the cleaner looks (ms since the epoch), for ``min.compaction.lag.ms``, ``max.compaction.lag.ms``,
        delete horizons and producer expiry.
    options : how each task reads its partition, as :func:`kcompact_nb.io.read_log_dir` reads them
        (:class:`kcompact_nb.io.ReadOptions`): ``config`` and ``topic_configs`` (log dirs do not store them; default
        ``cleanup.policy=compact`` and Kafka's defaults), ``broker`` (its cleaner configs,
        ``log.cleaner.dedupe.buffer.size`` and ``log.cleaner.threads``, size each pass's offset map; default Kafka's:
        128 MiB, 1 thread), ``topics``, ``verify_crc``, and ``on_disk_from_bytes``: a task reads a partition at
        least that big on disk and its passes stream the files, in the memory of one read buffer and the offset map.
    uncleanable : partitions (``topic-partition``) the broker has marked uncleanable after a failed pass (spec 3),
        which the cleaner skips; a broker keeps that set in memory, never on disk.

    Returns
    -------
    One row per partition (:data:`TOPIC_PASS_COLUMNS`, sizes in bytes and times in ms), ordered by
    ``cleaning_order``: 1 for the partition the cleaner takes first, and so on, in the order successive
    ``grabFilthiestCompactedLog`` calls at ``now_ms`` take the eligible partitions (the highest
    ``cleanable_ratio`` first; of equal ratios, the first in the broker's log pool, ``log_pool_position``, for a
    broker that loaded the partitions in the order the directory lists them); null when not eligible.
    ``next_pass_ms`` is when the engine runs the partition's next pass (null: no pass without appends), and
    ``end_offset``, ``map_full``, ``removed_records`` and ``bytes_freed`` say what that pass does;
    ``passes_until_settled`` counts the passes the engine runs, ``keys_per_pass`` keys each at most, until nothing
    more happens without appends, and ``settled_records`` the records then left. Each partition runs forward alone:
    a cleaner thread busy with another partition (a pass that takes time under ``log.cleaner.io.max.bytes.per.second``)
    can make a time later. The rows are computed again by every action: cache the DataFrame to use it more than once.
    :func:`topic_pass_summary` gives a pandas table for people.

    Examples
    --------
    >>> from kcompact_nb import BrokerConfig
    >>> from kcompact_nb.spark import spark_session, topic_pass_summary, topic_passes
    >>> spark = spark_session("local[2]")  # or spark://host:7077, with the log dir on every machine
    >>> passes = topic_passes(spark, "/var/lib/kafka/data", now_ms=1_767_225_660_000,
    ...                       options=ReadOptions(broker=BrokerConfig(log_cleaner_dedupe_buffer_size=8 << 20)))
    >>> topic_pass_summary(passes)[["partition", "cleaning_order", "dirty ratio", "next pass", "frees"]]
    """
    root = _log_dir(path)
    options = options or ReadOptions()
    tasks = partition_tasks(root, replace(options, broker=options.broker or BrokerConfig()), uncleanable=uncleanable)
    prepare_python_workers(spark)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            rows = [asdict(predict_partition(tasks[i], now_ms=now_ms)) for i in batch.column(0).to_pylist()]
            yield pa.RecordBatch.from_pylist(rows, schema=PASS_ARROW_SCHEMA)

    rows = spark.range(0, len(tasks), 1, max(len(tasks), 1)).mapInArrow(run, _PASS_SCHEMA_DDL)
    min_ratios = {task.topic: (task.options.config or TopicConfig()).min_cleanable_dirty_ratio for task in tasks}
    return _with_cleaning_order(rows, min_ratios)


def _with_cleaning_order(rows: DataFrame, min_ratios: Mapping[str, float]) -> DataFrame:
    """``rows`` with ``cleaning_order``: the core's choice (:func:`kcompact_nb.core.filthiest`, the first of equally
    dirty partitions in the log pool's order) asked again and again over the eligible partitions, each chosen one set
    aside as another cleaner thread would hold it; null for the others. ``min_ratios``: each topic's
    ``min.cleanable.dirty.ratio``. Rows come ordered by it, then topic, partition (few rows: one task)."""

    def ranked(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        found = sorted(pa.Table.from_batches(list(batches), schema=PASS_ARROW_SCHEMA).to_pylist(), key=_pool_position)
        order = _cleaning_order([_log_to_clean(row, min_ratios[row["topic"]]) for row in found if row["eligible"]])
        for row in found:
            row["cleaning_order"] = order.get((row["topic"], row["partition"]))
        found.sort(
            key=lambda row: (row["cleaning_order"] is None, row["cleaning_order"] or 0, row["topic"], row["partition"])
        )
        yield pa.RecordBatch.from_pylist(
            [{name: row[name] for name in TOPIC_PASS_COLUMNS} for row in found], schema=_RANKED_SCHEMA
        )

    return rows.coalesce(1).mapInArrow(ranked, _RANKED_DDL)


def _cleaning_order(eligible: list[LogToClean]) -> dict[tuple[str, int], int]:
    """(topic, partition) -> 1, 2, ...: what successive ``grabFilthiestCompactedLog`` calls take of ``eligible`` (in
    the log pool's order), each with the partitions taken before it in progress (:func:`kcompact_nb.core.filthiest`)."""
    order: dict[tuple[str, int], int] = {}
    left = list(eligible)
    while (chosen := filthiest(left)) is not None:
        order[(chosen.topic, chosen.partition)] = len(order) + 1
        left = [ltc for ltc in left if ltc is not chosen]
    return order


def _pool_position(row: Mapping[str, Any]) -> int:
    return int(row["log_pool_position"])


def _log_to_clean(row: Mapping[str, Any], min_ratio: float) -> LogToClean:
    """A row's cleaner view as the core's :class:`LogToClean` (``min_ratio``: its topic's
    ``min.cleanable.dirty.ratio``)."""
    fields = ("first_dirty_offset", "first_uncleanable_offset", "clean_bytes", "cleanable_bytes", "compaction_delay_ms")
    return LogToClean(
        row["topic"], row["partition"], **{name: row[name] for name in fields}, min_cleanable_dirty_ratio=min_ratio
    )


def _log_dir(path: str | os.PathLike[str]) -> Path:
    root = local_path(storage_location(path), _LOCAL_ONLY)
    if not root.is_dir():
        reason = "it does not exist" if not root.exists() else "it is a file"
        raise NotASegmentError(root, None, f"not a log directory: {reason}")
    return root


def partition_tasks(root: Path, options: ReadOptions, *, uncleanable: Collection[str]) -> list[PartitionTask]:
    """One task per partition directory of ``root``, in the order the directory lists them (``File.listFiles``, the
    order a broker loads and so creates its logs in), each with its checkpoint entries and log pool position."""
    listed = [(entry, topic_partition_of_dir(entry)) for entry in os.listdir(root) if (root / entry).is_dir()]
    unknown = sorted(set(uncleanable) - {f"{found[0]}-{found[1]}" for _, found in listed if found is not None})
    if unknown:
        raise KcompactError(
            f"uncleanable names partitions that {root} does not hold: {', '.join(unknown)} (give <topic>-<partition> "
            "names of its partition directories)"
        )
    chosen = [
        (entry, found)
        for entry, found in listed
        if found is not None
        and found[0] != METADATA_LOG_TOPIC
        and (options.topics is None or found[0] in options.topics)
    ]
    cleaner = read_checkpoint(root / CLEANER_OFFSET_CHECKPOINT)
    starts = read_checkpoint(root / LOG_START_OFFSET_CHECKPOINT)
    pool = log_pool_order([found for _, found in chosen])
    position = {index: rank for rank, index in enumerate(pool)}
    return [
        PartitionTask(
            path=str(root / entry),
            topic=topic,
            partition=partition,
            log_pool_position=position[index],
            options=replace(options, config=options.config_of(topic), topic_configs={}),
            log_start_offset=starts.get((topic, partition)),
            cleaner_checkpoint=cleaner.get((topic, partition)),
            uncleanable=f"{topic}-{partition}" in uncleanable,
        )
        for index, (entry, (topic, partition)) in enumerate(chosen)
    ]


def topic_pass_summary(passes: DataFrame, *, limit: int = DEFAULT_SUMMARY_LIMIT) -> Any:
    """:func:`topic_passes`' rows as a pandas DataFrame (``toPandas`` of at most ``limit`` rows, else an error),
    with columns for people after the exact ones: ``dirty ratio`` (a percentage), ``size`` and ``cleanable`` (binary
    units, :func:`kcompact_nb.format_bytes`), ``overdue by`` (``max.compaction.lag.ms``, as a duration; empty when not
    overdue), ``next pass`` (when the engine runs it, ISO 8601; ``none without appends``), and what that pass does:
    ``removes`` (records) and ``frees`` (binary units)."""
    frame: Any = passes.limit(limit + 1).toPandas()
    if len(frame) > limit:
        raise BridgeLimitError(
            f"the log dir has more than {limit} partitions; topic_pass_summary collects at most limit={limit} "
            "(raise it deliberately, or pass topics=...)"
        )
    frame["dirty ratio"] = [f"{ratio:.1%}" for ratio in frame["cleanable_ratio"]]
    for column, source in (("size", "size_bytes"), ("cleanable", "cleanable_bytes")):
        frame[column] = [format_bytes(int(n), exact=False) for n in frame[source]]
    frame["overdue by"] = [
        format_duration_ms(int(ms), max_units=2) if ms > 0 else "" for ms in frame["compaction_delay_ms"]
    ]
    frame["next pass"] = [
        "none without appends" if pandas.isna(ms) else format_instant_ms(int(ms)) for ms in frame["next_pass_ms"]
    ]
    removed = zip(frame["removed_records"], frame["records"], strict=True)
    frame["removes"] = [f"{int(n):,} of {int(total):,} records" for n, total in removed]
    frame["frees"] = [format_bytes(int(n), exact=False) for n in frame["bytes_freed"]]
    return frame
