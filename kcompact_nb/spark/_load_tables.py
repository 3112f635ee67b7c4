"""Tables and text dumps into the record schema: JSON Lines, Parquet, ``kafka-dump-log.sh`` and kcat files.

Dump and kcat files are parsed by the io layer's parsers inside Spark tasks, one task per file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from kcompact_nb.core import record_size_bytes
from kcompact_nb.io import read_dump_log, read_kcat
from kcompact_nb.spark._file_tasks import RowTuple, arrow_chunks, decode_in_tasks
from kcompact_nb.spark._load_log_dir import batch_rows
from kcompact_nb.spark._load_kafka import with_estimated_sizes
from kcompact_nb.spark._schema import KAFKA_SOURCE_COLUMNS, require_columns, validate_records

_JSONL_SCHEMA = (
    "key string, value string, topic string, partition int, offset long, timestamp string, "
    "timestampType int, headers array<struct<key:string,value:string>>"
)


def load_jsonl(spark: SparkSession, path: str | os.PathLike[str]) -> DataFrame:
    """Records written as Spark's ``to_json`` writes the Kafka source (the samples' ``records.jsonl``).

    ``key``, ``value`` and header values are base64, ``timestamp`` UTC ISO-8601. Sizes are estimates.
    """
    raw = spark.read.schema(_JSONL_SCHEMA).json(str(path))
    decoded_headers = F.transform(raw["headers"], lambda h: F.struct(h["key"].alias("key"), F.unbase64(h["value"]).alias("value")))
    df = raw.select(
        F.unbase64("key").alias("key"),
        F.unbase64("value").alias("value"),
        "topic",
        "partition",
        "offset",
        F.to_timestamp("timestamp").alias("timestamp"),
        "timestampType",
        decoded_headers.alias("headers"),
    )
    return with_estimated_sizes(df)


def load_parquet(spark: SparkSession, path: str | os.PathLike[str]) -> DataFrame:
    """A Parquet table with at least the Kafka source columns; batch columns kept when present.

    Without a ``record_size_bytes`` column sizes are estimated (and labelled so).
    """
    df = require_columns(spark.read.parquet(str(path)), KAFKA_SOURCE_COLUMNS, what="load_parquet")
    return validate_records(df) if "record_size_bytes" in df.columns else with_estimated_sizes(df)


@dataclass(frozen=True)
class _TextFileTask:
    path: str
    topic: str
    partition: int
    kcat_format: str | None = None


def load_dump_log(spark: SparkSession, paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], *, topic: str, partition: int) -> DataFrame:
    """``kafka-dump-log.sh --print-data-log --deep-iteration`` output, one Spark task per file.

    Dumps do not name the partition, so ``topic`` and ``partition`` are given. Batch columns come
    from the dump; ``record_size_bytes`` is computed with the v2 formula from the printed fields.
    """
    tasks = [_TextFileTask(str(p), topic, partition) for p in _paths(paths)]
    return decode_in_tasks(spark, tasks, lambda task: arrow_chunks(_decode_dump(task)))


def load_kcat(
    spark: SparkSession,
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    topic: str,
    partition: int = 0,
    kcat_format: str | None = None,
) -> DataFrame:
    """kcat output (``-J`` JSON by default, or the ``-f`` format string it was made with), one task per file.

    Messages naming their own topic/partition keep them; ``topic``/``partition`` fill in the rest.
    Batch columns are null; sizes are v2 sizes of each record as if alone in its batch.
    """
    tasks = [_TextFileTask(str(p), topic, partition, kcat_format) for p in _paths(paths)]
    return decode_in_tasks(spark, tasks, lambda task: arrow_chunks(_decode_kcat(task)))


def _paths(paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> list[Path]:
    return [Path(paths)] if isinstance(paths, (str, os.PathLike)) else [Path(p) for p in paths]


def _decode_dump(task: _TextFileTask) -> Iterator[RowTuple]:
    for segment in read_dump_log(task.path).segments:
        for batch in segment.batches:
            yield from batch_rows(task.topic, task.partition, segment.base_offset, batch)


def _decode_kcat(task: _TextFileTask) -> Iterator[RowTuple]:
    nulls = (None,) * 8
    for message in read_kcat(task.path, task.kcat_format).messages:
        r = message.record
        topic = message.topic if message.topic is not None else task.topic
        partition = message.partition if message.partition is not None else task.partition
        headers = [{"key": k, "value": v} for k, v in r.headers] if r.headers else None
        size = record_size_bytes(0, 0, r.key, r.value, r.headers)
        stamp_us = r.timestamp * 1000
        yield (r.key, r.value, topic, partition, r.offset, stamp_us, 0, headers, *nulls, size)
