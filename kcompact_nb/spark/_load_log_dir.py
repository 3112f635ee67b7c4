"""Kafka log directories into DataFrames: segment files decoded by Spark tasks, checkpoints on the side.

Each ``.log`` segment file is one Spark task, read-only and CRC-checked. Two decoders give the same rows
and the same errors: the JVM segment-file source (:mod:`kcompact_nb.spark._segment_source`, kafka-clients
in the executors), used when the session has it, and :class:`kcompact_nb.io.SegmentFileReader` in Python
workers, writing Arrow columns (:mod:`kcompact_nb.spark._segment_columns`), for any other session.
Control records (transaction markers) are included with ``is_control``; batches the cleaner emptied hold
no records and so have no rows.

Where a log dir may live (:mod:`kcompact_nb.spark._storage`): with the JVM source, any Hadoop filesystem
(local paths, ``file://``, ``hdfs://``, ``s3a://``...), listed and read through Hadoop's API; without it,
local paths only, listed here with the same rules (``LogDir.java`` mirrors :func:`segment_tasks`).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType

from kcompact_nb.core import SEGMENT_FILE_NAME, RecordBatch, TimestampType, record_size_bytes, topic_partition_of_dir
from kcompact_nb.io import (
    CLEANER_OFFSET_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    CheckpointFormatError,
    NotASegmentError,
    SegmentFileReader,
    parse_checkpoint,
    read_checkpoint,
    segment_base_offset,
)
from kcompact_nb.spark._file_tasks import RowTuple, decode_in_tasks
from kcompact_nb.spark._segment_columns import decode_segment_columns
from kcompact_nb.spark._segment_source import (
    SegmentSourceError,
    in_session,
    io_errors,
    missing_source_reason,
    read_source,
)
from kcompact_nb.spark._storage import StorageLocation, local_path, storage_location

DECODERS = ("auto", "jvm", "python")


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


def segment_tasks(
    path: str | os.PathLike[str], *, topics: Collection[str] | None = None, verify_crc: bool = True
) -> list[SegmentTask]:
    """The segment files of every ``<topic>-<partition>/`` directory of a local log dir, in offset order.

    The rules of the JVM source's listing (``LogDir.java``): partition directories by name (hidden ones such
    as ``__consumer_offsets-0`` included, partitions beyond 2^31-1 skipped), ``<20 digits>.log`` files by name.
    """
    root = _log_dir(Path(path))
    tasks: list[SegmentTask] = []
    for directory in sorted(root.iterdir()):
        partition = topic_partition_of_dir(directory.name)
        if not directory.is_dir() or partition is None or (topics is not None and partition[0] not in topics):
            continue
        files = sorted(p for p in directory.iterdir() if p.is_file() and SEGMENT_FILE_NAME.match(p.name))
        bases = [_base_offset(f) for f in files]
        for i, file in enumerate(files):
            end = bases[i + 1] if i + 1 < len(files) else None
            tasks.append(SegmentTask(str(file), *partition, bases[i], end, verify_crc))
    return tasks


def _log_dir(root: Path) -> Path:
    if not root.exists():
        raise NotASegmentError(root, None, "not a log directory: it does not exist")
    if not root.is_dir():
        raise NotASegmentError(root, None, "not a log directory: it is a file")
    return root


def _base_offset(file: Path) -> int:
    offset = segment_base_offset(file)  # raises NotASegmentError beyond Long.MAX_VALUE
    assert offset is not None, file  # only <20 digits>.log names are listed
    return offset


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
    path : the log dir, never modified: a local path (made absolute here; on a cluster it must exist at that
        path on every machine) or a Hadoop filesystem URL (``file:///``, ``hdfs://``, ``s3a://``...). Directories
        that are not ``<topic>-<partition>`` are skipped.
    topics : restrict to these topics.
    verify_crc : check each batch's CRC-32C (``DefaultRecordBatch.ensureValid``).
    decoder : ``"jvm"`` (Kafka's own decoding in the executors; the session needs the JVM segment-file source,
        which :func:`spark_session` adds and a Spark Connect server gets with ``--jars``), ``"python"`` (the io
        reader in Python workers; local paths only) or ``"auto"``: the JVM one when the session has it.

    Returns the record schema (:data:`kcompact_nb.spark.RECORD_COLUMNS`) with exact
    ``record_size_bytes``. A corrupt batch fails its task with the io layer's error (its class name, the
    file, the reason and the byte position).
    """
    location = storage_location(path)
    if _use_segment_source(spark, decoder):
        options = _log_dir_options(location, topics)
        return read_source(spark, "records", verify_crc=str(verify_crc).lower(), **options)
    why = _PYTHON_DECODER_LOCAL if decoder == "python" else without_source(spark)
    tasks = segment_tasks(local_path(location, why), topics=topics, verify_crc=verify_crc)
    return decode_in_tasks(spark, tasks, decode_segment)


_PYTHON_DECODER_LOCAL = (
    "decoder='python' opens segment files in Python workers, so only local paths: use decoder='jvm' for URLs"
)


def without_source(spark: SparkSession) -> str:
    """Why a Hadoop URL cannot be read in ``spark``: it lacks the JVM source, and how to add it."""
    return f"Hadoop filesystem URLs are read by the JVM segment-file source, and {missing_source_reason(spark)}"


def _use_segment_source(spark: SparkSession, decoder: str) -> bool:
    if decoder not in DECODERS:
        raise ValueError(f"decoder must be one of {DECODERS}, not {decoder!r}")
    if decoder == "python":
        return False
    available = in_session(spark)
    if decoder == "jvm" and not available:
        raise SegmentSourceError(f"{missing_source_reason(spark)}; or use decoder='python'")
    return available


def _log_dir_options(location: StorageLocation, topics: Collection[str] | None) -> dict[str, str]:
    if topics is None:
        return {"path": location.url}
    if any("," in topic for topic in topics):
        raise ValueError(f"topic names never contain ',' (Kafka allows [a-zA-Z0-9._-]): {sorted(topics)}")
    return {"path": location.url, "topics": ",".join(sorted(topics))}


def decode_segment(task: SegmentTask) -> Iterator[pa.RecordBatch]:
    """The records of one segment file as Arrow batches (runs inside a Spark task)."""
    reader = SegmentFileReader(
        task.path, base_offset=task.base_offset, end_offset=task.end_offset, verify_crc=task.verify_crc, keep_raw=False
    )
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


def load_segments(
    spark: SparkSession, path: str | os.PathLike[str], *, topics: Collection[str] | None = None
) -> DataFrame:
    """One row per segment file: topic, partition, ``segment_base_offset``, ``size_bytes`` and mtime (ms).

    File sizes are what the cleaner counts (``LogSegment.size``). Listing is metadata only, on the driver:
    through Hadoop's filesystem API when the session has the JVM segment-file source (any URL), else of a
    local path here.
    """
    location = storage_location(path)
    if in_session(spark):
        return read_source(spark, "segments", **_log_dir_options(location, topics))
    rows = []
    for task in segment_tasks(local_path(location, without_source(spark)), topics=topics):
        stat = Path(task.path).stat()
        rows.append((task.topic, task.partition, task.base_offset, stat.st_size, stat.st_mtime_ns // 1_000_000))
    return spark.createDataFrame(rows, SEGMENT_SCHEMA)


_CHECKPOINTS = (CLEANER_OFFSET_CHECKPOINT, LOG_START_OFFSET_CHECKPOINT)


def load_checkpoints(spark: SparkSession, path: str | os.PathLike[str]) -> DataFrame:
    """``cleaner-offset-checkpoint`` and ``log-start-offset-checkpoint`` of a log dir as one small DataFrame.

    One row per partition named in either file; a missing entry (or file) is null. The files are read on the
    driver (through Hadoop's filesystem API when the session has the JVM segment-file source) and parsed by
    :func:`kcompact_nb.io.parse_checkpoint`.
    """
    location = storage_location(path)
    if in_session(spark):
        cleaner, starts = _checkpoint_entries(spark, location)
    else:
        root = _log_dir(local_path(location, without_source(spark)))
        cleaner, starts = (
            read_checkpoint(root / CLEANER_OFFSET_CHECKPOINT),
            read_checkpoint(root / LOG_START_OFFSET_CHECKPOINT),
        )
    keys = sorted(set(cleaner) | set(starts))
    rows = [
        (topic, partition, cleaner.get((topic, partition)), starts.get((topic, partition))) for topic, partition in keys
    ]
    return spark.createDataFrame(rows, CHECKPOINT_SCHEMA)


Entries = dict[tuple[str, int], int]


def _checkpoint_entries(spark: SparkSession, location: StorageLocation) -> tuple[Entries, Entries]:
    with io_errors():  # Spark Connect lists at the collect, which holds at most the two checkpoint files
        files = {
            row["name"]: (row["file"], bytes(row["content"]))
            for row in read_source(spark, "checkpoints", path=location.url).collect()
        }
    entries = [_parse_checkpoint(*files[name]) if name in files else {} for name in _CHECKPOINTS]
    return entries[0], entries[1]


def _parse_checkpoint(file: str, content: bytes) -> Entries:
    """As :func:`kcompact_nb.io.read_checkpoint` reads a file's bytes: UTF-8 text, else an error at the bad byte."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CheckpointFormatError(file, error.start, "not a text checkpoint file") from None
    return parse_checkpoint(text, file)
