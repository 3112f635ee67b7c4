"""Tables and text dumps into the record schema: JSON Lines, Parquet, ``kafka-dump-log.sh`` and kcat files.

Dump and kcat files are parsed by the io layer's parsers inside Spark tasks, one task per file. Every
loader takes local paths (made absolute before Spark sees them) or Hadoop filesystem URLs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from io import BytesIO, TextIOWrapper

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from kcompact_nb.core import TimestampType, record_size_bytes
from kcompact_nb.io import (
    UNKNOWN_PARTITION,
    DumpParseError,
    KcatParse,
    compile_kcat_format,
    parse_dump_log,
    parse_kcat_format,
    parse_kcat_json,
    read_dump_log,
    read_kcat,
)
from kcompact_nb.spark._file_tasks import FileDecoder, RowTuple, arrow_chunks, decode_file_bytes, decode_in_tasks
from kcompact_nb.spark._load_kafka import with_estimated_sizes
from kcompact_nb.spark._load_log_dir import batch_rows, without_source
from kcompact_nb.spark._schema import KAFKA_SOURCE_COLUMNS, RECORD_SCHEMA, require_columns, validate_records
from kcompact_nb.spark._segment_source import in_session
from kcompact_nb.spark._storage import StorageError, storage_location

_JSONL_SCHEMA = (
    "key string, value string, topic string, partition int, offset long, timestamp string, "
    "timestampType int, headers array<struct<key:string,value:string>>"
)


def load_jsonl(spark: SparkSession, path: str | os.PathLike[str]) -> DataFrame:
    """Records written as Spark's ``to_json`` writes the Kafka source (the samples' ``records.jsonl``).

    ``key``, ``value`` and header values are base64, ``timestamp`` UTC ISO-8601. Sizes are estimates.
    """
    raw = spark.read.schema(_JSONL_SCHEMA).json(storage_location(path).url)
    decoded_headers = F.transform(
        raw["headers"], lambda h: F.struct(h["key"].alias("key"), F.unbase64(h["value"]).alias("value"))
    )
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
    df = require_columns(spark.read.parquet(storage_location(path).url), KAFKA_SOURCE_COLUMNS, what="load_parquet")
    return validate_records(df) if "record_size_bytes" in df.columns else with_estimated_sizes(df)


@dataclass(frozen=True)
class _TextFiles:
    """How to turn one text file into records; called with the file's name and its bytes (None: open it)."""

    topic: str
    partition: int | None
    kcat_format: str | None = None
    print_nulls: bool = False

    def dump_rows(self, name: str, content: bytes | None) -> Iterator[pa.RecordBatch]:
        return arrow_chunks(_dump_rows(self, name, content))

    def kcat_rows(self, name: str, content: bytes | None) -> Iterator[pa.RecordBatch]:
        return arrow_chunks(_kcat_rows(self, name, content))

    def kcat_refusals(self, name: str, content: bytes | None) -> Iterator[pa.RecordBatch]:
        """Nothing when the file parses, else its refusal (the file, line and reason the parser gave)."""
        try:
            _kcat(self, name, content)
        except DumpParseError as refused:
            yield pa.RecordBatch.from_pylist(
                [{"file": refused.file, "line": refused.position, "reason": refused.reason}], schema=_REFUSAL_ARROW
            )


_REFUSAL_ARROW = pa.schema([("file", pa.string()), ("line", pa.int64()), ("reason", pa.string())])
_REFUSAL_SCHEMA = "file string, line long, reason string"


def load_dump_log(
    spark: SparkSession, paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], *, topic: str, partition: int
) -> DataFrame:
    """``kafka-dump-log.sh --print-data-log --deep-iteration`` output, one Spark task per file.

    Dumps do not name the partition, so ``topic`` and ``partition`` are given. Batch columns come
    from the dump; ``record_size_bytes`` is computed with the v2 formula from the printed fields.
    ``paths`` are local paths (made absolute) or Hadoop filesystem URLs (read by the JVM segment-file source).
    """
    return _decode_text_files(spark, paths, _TextFiles(topic, partition).dump_rows)[0]


def load_kcat(
    spark: SparkSession,
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    topic: str,
    partition: int | None = None,
    kcat_format: str | None = None,
    print_nulls: bool = False,
) -> DataFrame:
    """kcat output (``-J`` JSON by default, or the ``-f`` format string it was made with), one task per file.

    Messages naming their own topic keep it; ``topic`` fills in the rest. ``partition`` is kcat's
    ``-p N``: the output holds that partition only (a record printing another ``%p`` is refused);
    a ``-f`` format without ``%p`` needs it (the partition is unknown otherwise, and refused).
    ``print_nulls`` is kcat's ``-Z``. Every file is parsed once when the DataFrame is made, so
    output the parser refuses raises its :class:`~kcompact_nb.io.DumpParseError` here, with the
    parser's one-line message (not inside a Spark job's stack trace); the DataFrame parses the
    files again when it is computed. Batch columns are null; sizes are v2 sizes of each record as if alone in its
    batch. ``timestamp`` is null where kcat printed none (a format without ``%T``, or a message
    without a timestamp), ``timestampType`` where it is not printed (every ``-f`` format). Columns
    the output does not carry have column metadata ``kcompact.missing`` saying so
    (:func:`missing_note`); key, value and headers there are null. ``paths`` are local paths (made
    absolute) or Hadoop filesystem URLs (read by the JVM segment-file source).
    """
    if kcat_format is not None and partition is None and "p" not in compile_kcat_format(kcat_format).fields:
        raise DumpParseError(f"kcat format {kcat_format!r}", None, UNKNOWN_PARTITION)
    files = _TextFiles(topic, partition, kcat_format, print_nulls)
    df, decode = _decode_text_files(spark, paths, files.kcat_rows)
    refused = decode(files.kcat_refusals, _REFUSAL_SCHEMA).limit(1).collect()
    if refused:
        raise DumpParseError(refused[0]["file"], refused[0]["line"], refused[0]["reason"])
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
    "partition": ("partition", "the -f format has no %p", "load_kcat's partition argument (kcat -p N)"),
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


def _decode_text_files(
    spark: SparkSession, paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], decode: FileDecoder
) -> tuple[DataFrame, Callable[[FileDecoder, str], DataFrame]]:
    """The files decoded by ``decode``, and the same files for another decoder and schema.

    Local files are opened by the Python workers; any URL makes the JVM source read them all (Hadoop's API).
    """
    locations = [storage_location(p) for p in ([paths] if isinstance(paths, (str, os.PathLike)) else paths)]
    if all(location.local is not None for location in locations):
        names = [str(location) for location in locations]
        for name in names:  # a missing file or a folder raises as open() does, not inside a task
            open(name, "rb").close()

        def local(other: FileDecoder, schema: str | StructType = RECORD_SCHEMA) -> DataFrame:
            return decode_in_tasks(spark, names, lambda name: other(name, None), schema)

        return local(decode), local
    if not in_session(spark):
        remote = next(location for location in locations if location.local is None)
        raise StorageError(f"{remote.url}: {without_source(spark)}")
    urls = [location.url for location in locations]

    def remote_files(other: FileDecoder, schema: str | StructType = RECORD_SCHEMA) -> DataFrame:
        return decode_file_bytes(spark, urls, other, schema)

    return remote_files(decode), remote_files


def _dump_rows(files: _TextFiles, name: str, content: bytes | None) -> Iterator[RowTuple]:
    if content is None:
        dump = read_dump_log(name)
    else:  # as read_dump_log decodes a file
        dump = parse_dump_log(TextIOWrapper(BytesIO(content), encoding="utf-8", errors="replace"), source=name)
    assert files.partition is not None  # load_dump_log's partition is required
    for segment in dump.segments:
        for batch in segment.batches:
            yield from batch_rows(files.topic, files.partition, segment.base_offset, batch)


def _kcat_rows(files: _TextFiles, name: str, content: bytes | None) -> Iterator[RowTuple]:
    nulls = (None,) * 8
    for message in _kcat(files, name, content).messages:
        r = message.record
        topic = message.topic if message.topic is not None else files.topic
        partition = message.partition  # placed by the parser when stated (load_kcat refuses it unknown)
        headers = [{"key": k, "value": v} for k, v in r.headers] if r.headers else None
        size = record_size_bytes(0, 0, r.key, r.value, r.headers)
        stamp_us = None if r.timestamp == -1 else r.timestamp * 1000  # -1: none printed (Kafka's NO_TIMESTAMP)
        kind = None if message.timestamp_type is None else _TIMESTAMP_TYPE_IDS[message.timestamp_type]
        yield (r.key, r.value, topic, partition, r.offset, stamp_us, kind, headers, *nulls, size)


def _kcat(files: _TextFiles, name: str, content: bytes | None) -> KcatParse:
    """As :func:`kcompact_nb.io.read_kcat` reads a file (its bytes, as kcat wrote them)."""
    if content is None:
        return read_kcat(name, files.kcat_format, print_nulls=files.print_nulls, partition=files.partition)
    if files.kcat_format is None:
        return parse_kcat_json(content, partition=files.partition, source=name)
    return parse_kcat_format(
        content, files.kcat_format, print_nulls=files.print_nulls, partition=files.partition, source=name
    )


_TIMESTAMP_TYPE_IDS = {TimestampType.CREATE_TIME: 0, TimestampType.LOG_APPEND_TIME: 1}
