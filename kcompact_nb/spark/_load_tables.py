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

from kcompact_nb.core import TimestampType, record_size_bytes
from kcompact_nb.io import compile_kcat_format, read_dump_log, read_kcat
from kcompact_nb.spark._file_tasks import RowTuple, arrow_chunks, decode_in_tasks
from kcompact_nb.spark._load_kafka import with_estimated_sizes
from kcompact_nb.spark._load_log_dir import batch_rows
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
    print_nulls: bool = False


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
    print_nulls: bool = False,
) -> DataFrame:
    """kcat output (``-J`` JSON by default, or the ``-f`` format string it was made with), one task per file.

    Messages naming their own topic/partition keep them; ``topic``/``partition`` fill in the rest
    (output of several partitions without ``%p`` is refused by the parser). ``print_nulls`` is
    kcat's ``-Z``. Batch columns are null; sizes are v2 sizes of each record as if alone in its
    batch. ``timestamp`` is null where kcat printed none (a format without ``%T``, or a message
    without a timestamp), ``timestampType`` where it is not printed (every ``-f`` format). Columns
    the output does not carry have column metadata ``kcompact.missing`` saying so
    (:func:`missing_note`); key, value and headers there are null.
    """
    tasks = [_TextFileTask(str(p), topic, partition, kcat_format, print_nulls) for p in _paths(paths)]
    df = decode_in_tasks(spark, tasks, lambda task: arrow_chunks(_decode_kcat(task)))
    for column, note in _kcat_missing_notes(kcat_format).items():
        df = df.withMetadata(column, {**df.schema[column].metadata, MISSING_METADATA_KEY: note})
    return df


MISSING_METADATA_KEY = "kcompact.missing"
"""Column metadata key marking a column its source did not carry; its value says what stands there instead."""

_KCAT_COLUMNS = {  # parser field: (column, why it is missing, what the column holds)
    "key": ("key", "the -f format has no %k", "nulls"),
    "value": ("value", "the -f format has no %s", "nulls"),
    "headers": ("headers", "the -f format has no %h", "nulls"),
    "timestamp": ("timestamp", "the -f format has no %T", "nulls"),
    "timestamp_type": ("timestampType", "kcat -f prints no timestamp type", "nulls"),
    "topic": ("topic", "the -f format has no %t", "load_kcat's topic argument"),
    "partition": ("partition", "the -f format has no %p", "load_kcat's partition argument"),
}


def _kcat_missing_notes(kcat_format: str | None) -> dict[str, str]:
    """Column -> note for what a ``-f`` format does not print (``-J`` prints every field)."""
    if kcat_format is None:
        return {}
    missing = compile_kcat_format(kcat_format).missing
    return {
        column: f"not in the kcat output ({why}); the column holds {instead}"
        for field, (column, why, instead) in _KCAT_COLUMNS.items()
        if field in missing
    }


def missing_note(df: DataFrame, column: str) -> str | None:
    """Why ``column`` holds no data from the source (e.g. a kcat format without ``%T``), ``None`` when it does."""
    note = df.schema[column].metadata.get(MISSING_METADATA_KEY)
    return None if note is None else str(note)


def _paths(paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> list[Path]:
    return [Path(paths)] if isinstance(paths, (str, os.PathLike)) else [Path(p) for p in paths]


def _decode_dump(task: _TextFileTask) -> Iterator[RowTuple]:
    for segment in read_dump_log(task.path).segments:
        for batch in segment.batches:
            yield from batch_rows(task.topic, task.partition, segment.base_offset, batch)


def _decode_kcat(task: _TextFileTask) -> Iterator[RowTuple]:
    nulls = (None,) * 8
    for message in read_kcat(task.path, task.kcat_format, print_nulls=task.print_nulls).messages:
        r = message.record
        topic = message.topic if message.topic is not None else task.topic
        partition = message.partition if message.partition is not None else task.partition
        headers = [{"key": k, "value": v} for k, v in r.headers] if r.headers else None
        size = record_size_bytes(0, 0, r.key, r.value, r.headers)
        stamp_us = None if r.timestamp == -1 else r.timestamp * 1000  # -1: none printed (Kafka's NO_TIMESTAMP)
        kind = None if message.timestamp_type is None else _TIMESTAMP_TYPE_IDS[message.timestamp_type]
        yield (r.key, r.value, topic, partition, r.offset, stamp_us, kind, headers, *nulls, size)


_TIMESTAMP_TYPE_IDS = {TimestampType.CREATE_TIME: 0, TimestampType.LOG_APPEND_TIME: 1}
