"""Kafka log directories into DataFrames: segment files decoded by Spark tasks, checkpoints on the side.

Each ``.log`` segment file is one Spark task, read-only and CRC-checked. Two decoders give the same rows
and the same errors: the JVM segment-file source (:mod:`kcompact_nb.spark._segment_source`, kafka-clients
in the executors), used when the session has it, and :class:`kcompact_nb.io.SegmentFileReader` in Python
workers, writing Arrow columns (:mod:`kcompact_nb.spark._segment_columns`), for any other session.
Control records (transaction markers) are included with ``is_control``; batches the cleaner emptied hold
no records and so have no rows.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa  # type: ignore[import-untyped]
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType

from kcompact_nb.core import RecordBatch, TimestampType, record_size_bytes
from kcompact_nb.io import (
    CLEANER_OFFSET_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    NotASegmentError,
    SegmentFileReader,
    read_checkpoint,
)
from kcompact_nb.spark._file_tasks import RowTuple, decode_in_tasks
from kcompact_nb.spark._segment_columns import decode_segment_columns
from kcompact_nb.spark._segment_source import SEGMENT_SOURCE_CLASS, SegmentSourceError, in_session

DECODERS = ("auto", "jvm", "python")

_SEGMENT_SUFFIX = ".log"
_PARTITION_DIR = re.compile(r"^(?P<topic>.+)-(?P<partition>[0-9]+)$")

SEGMENT_SCHEMA = StructType(
    [
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("segment_base_offset", LongType()),
        StructField("size_bytes", LongType()),
        StructField("last_modified_ms", LongType()),
    ]
)
CHECKPOINT_SCHEMA = StructType(
    [
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("cleaner_checkpoint", LongType()),
        StructField("log_start_offset", LongType()),
    ]
)


@dataclass(frozen=True)
class SegmentTask:
    """One segment file to decode: its partition, base offset and the next segment's base offset."""

    path: str
    topic: str
    partition: int
    base_offset: int
    end_offset: int | None
    verify_crc: bool


def segment_tasks(path: str | os.PathLike[str], *, topics: Collection[str] | None = None, verify_crc: bool = True) -> list[SegmentTask]:
    """The segment files of every ``<topic>-<partition>/`` directory of a log dir, in offset order."""
    root = Path(path)
    if not root.is_dir():
        raise NotASegmentError(root, None, "not a log directory")
    tasks: list[SegmentTask] = []
    for directory in sorted(p for p in root.iterdir() if p.is_dir()):
        match = _PARTITION_DIR.match(directory.name)
        if match is None or (topics is not None and match.group("topic") not in topics):
            continue
        files = sorted(p for p in directory.iterdir() if p.name.endswith(_SEGMENT_SUFFIX) and p.name[:20].isdigit() and len(p.name) == 24)
        bases = [int(f.name[:20]) for f in files]
        for i, file in enumerate(files):
            end = bases[i + 1] if i + 1 < len(files) else None
            tasks.append(SegmentTask(str(file), match.group("topic"), int(match.group("partition")), bases[i], end, verify_crc))
    return tasks


def load_log_dir(
    spark: SparkSession,
    path: str | os.PathLike[str],
    *,
    topics: Collection[str] | None = None,
    verify_crc: bool = True,
    decoder: str = "auto",
) -> DataFrame:
    """Every record of a broker log dir (``log.dirs`` entry), one Spark task per segment file.

    Parameters
    ----------
    path : the log dir; never modified. Directories that are not ``<topic>-<partition>`` are skipped.
    topics : restrict to these topics.
    verify_crc : check each batch's CRC-32C (``DefaultRecordBatch.ensureValid``).
    decoder : ``"jvm"`` (Kafka's own decoding in the executors; the session must have been started by
        :func:`spark_session`, which adds it), ``"python"`` (the io reader in Python workers; works on
        any session, Spark Connect included) or ``"auto"``: the JVM one when the session has it.

    Returns the record schema (:data:`kcompact_nb.spark.RECORD_COLUMNS`) with exact
    ``record_size_bytes``. A corrupt batch fails its task with the io layer's error (its class name, the
    file, the reason and the byte position).
    """
    tasks = segment_tasks(path, topics=topics, verify_crc=verify_crc)
    if _use_segment_source(spark, decoder):
        return spark.read.format(SEGMENT_SOURCE_CLASS).options(**segment_source_options(tasks)).load()
    return decode_in_tasks(spark, tasks, decode_segment)


def _use_segment_source(spark: SparkSession, decoder: str) -> bool:
    if decoder not in DECODERS:
        raise ValueError(f"decoder must be one of {DECODERS}, not {decoder!r}")
    available = in_session(spark)
    if decoder == "jvm" and not available:
        raise SegmentSourceError(
            "this session has no JVM segment-file source: start it with kcompact_nb.spark.spark_session "
            "(segment_source=True, the default) or use decoder='python'"
        )
    return available and decoder != "python"


def segment_source_options(tasks: list[SegmentTask]) -> dict[str, str]:
    """The JVM source's options for ``tasks`` (``SegmentFile.fromOptions`` reads them)."""
    options = {"segments": str(len(tasks)), "verify_crc": str(all(t.verify_crc for t in tasks)).lower()}
    for i, task in enumerate(tasks):
        prefix = f"segment.{i}."
        options |= {prefix + "path": task.path, prefix + "topic": task.topic, prefix + "partition": str(task.partition)}
        options |= {prefix + "base_offset": str(task.base_offset), prefix + "end_offset": str(-1 if task.end_offset is None else task.end_offset)}
    return options


def decode_segment(task: SegmentTask) -> Iterator[pa.RecordBatch]:
    """The records of one segment file as Arrow batches (runs inside a Spark task)."""
    reader = SegmentFileReader(task.path, base_offset=task.base_offset, end_offset=task.end_offset, verify_crc=task.verify_crc, keep_raw=False)
    return decode_segment_columns(reader, task.topic, task.partition)


def batch_rows(topic: str, partition: int, segment_base_offset: int, batch: RecordBatch) -> Iterator[RowTuple]:
    """Row tuples of one batch's records: what a consumer reads plus the batch fields."""
    log_append = batch.timestamp_type is TimestampType.LOG_APPEND_TIME
    batch_fields = (
        segment_base_offset, batch.base_offset, batch.last_offset, batch.producer_id, batch.producer_epoch,
        batch.is_transactional, batch.is_control, batch.delete_horizon_ms,
    )  # fmt: skip
    base_ts = batch.base_timestamp
    for r in batch.records:
        size = record_size_bytes(r.offset - batch.base_offset, r.timestamp - base_ts, r.key, r.value, r.headers)
        stamp = batch.max_timestamp if log_append else r.timestamp
        headers = [{"key": k, "value": v} for k, v in r.headers] if r.headers else None
        yield (r.key, r.value, topic, partition, r.offset, stamp * 1000, int(log_append), headers, *batch_fields, size)


def load_segments(spark: SparkSession, path: str | os.PathLike[str], *, topics: Collection[str] | None = None) -> DataFrame:
    """One row per segment file: topic, partition, ``segment_base_offset``, ``size_bytes`` and mtime (ms).

    File sizes are what the cleaner counts (``LogSegment.size``); listing is metadata only, done on the driver.
    """
    rows = []
    for task in segment_tasks(path, topics=topics):
        stat = Path(task.path).stat()
        rows.append((task.topic, task.partition, task.base_offset, stat.st_size, stat.st_mtime_ns // 1_000_000))
    return spark.createDataFrame(rows, SEGMENT_SCHEMA)


def load_checkpoints(spark: SparkSession, path: str | os.PathLike[str]) -> DataFrame:
    """``cleaner-offset-checkpoint`` and ``log-start-offset-checkpoint`` of a log dir as one small DataFrame.

    One row per partition named in either file; a missing entry is null.
    """
    root = Path(path)
    cleaner = read_checkpoint(root / CLEANER_OFFSET_CHECKPOINT)
    starts = read_checkpoint(root / LOG_START_OFFSET_CHECKPOINT)
    keys = sorted(set(cleaner) | set(starts))
    rows = [(topic, partition, cleaner.get((topic, partition)), starts.get((topic, partition))) for topic, partition in keys]
    return spark.createDataFrame(rows, CHECKPOINT_SCHEMA)
