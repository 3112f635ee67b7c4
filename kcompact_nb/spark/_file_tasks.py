"""Decode files in Spark tasks: one task per file, each turning its file into Arrow record batches.

The driver only lists files; decoding runs in the executors' Python workers (``mapInArrow``), which get the
package first (:func:`prepare_python_workers`). Local files are opened by the workers themselves; files behind
Hadoop filesystem URLs are read whole by the JVM source and handed to the workers as bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType

from kcompact_nb.spark._executors import prepare_python_workers
from kcompact_nb.spark._schema import RECORD_SCHEMA
from kcompact_nb.spark._segment_source import read_source

ARROW_CHUNK_ROWS = 65_536
"""Rows per Arrow batch handed back to Spark (bounds a task's memory on big segments)."""

ARROW_SCHEMA = pa.schema(
    [
        ("key", pa.binary()),
        ("value", pa.binary()),
        ("topic", pa.string()),
        ("partition", pa.int32()),
        ("offset", pa.int64()),
        ("timestamp", pa.timestamp("us", tz="UTC")),
        ("timestampType", pa.int32()),
        ("headers", pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())]))),
        ("segment_base_offset", pa.int64()),
        ("batch_base_offset", pa.int64()),
        ("batch_last_offset", pa.int64()),
        ("producer_id", pa.int64()),
        ("producer_epoch", pa.int32()),
        ("is_transactional", pa.bool_()),
        ("is_control", pa.bool_()),
        ("delete_horizon_ms", pa.int64()),
        ("record_size_bytes", pa.int32()),
    ]
)

RowTuple = tuple[Any, ...]
"""One record in :data:`ARROW_SCHEMA` order; ``timestamp`` in epoch microseconds."""

Decoder = Callable[[Any], Iterator[pa.RecordBatch]]


def decode_in_tasks(
    spark: SparkSession, tasks: Sequence[Any], decode: Decoder, schema: StructType | str = RECORD_SCHEMA
) -> DataFrame:
    """A record DataFrame from ``tasks`` (picklable descriptions of files), one Spark task each.

    ``decode`` runs in the executors and yields each task's records as Arrow batches in :data:`ARROW_SCHEMA`
    (:func:`arrow_chunks` makes them from row tuples), or in ``schema`` when given.
    """
    prepare_python_workers(spark)
    chosen = list(tasks)
    ids = spark.range(0, len(chosen), 1, max(len(chosen), 1))

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for task_id in batch.column(0).to_pylist():
                yield from decode(chosen[task_id])

    return ids.mapInArrow(run, schema)


FileDecoder = Callable[[str, bytes | None], Iterator[pa.RecordBatch]]


def decode_file_bytes(
    spark: SparkSession, urls: Sequence[str], decode: FileDecoder, schema: StructType | str = RECORD_SCHEMA
) -> DataFrame:
    """A record DataFrame from files behind Hadoop URLs, read whole by the JVM source, one Spark task each.

    ``decode(name, content)`` runs in the executors with the file as errors name it and its bytes (``None``:
    the decoder opens the local file ``name`` itself, as :func:`decode_in_tasks` callers do).
    """
    prepare_python_workers(spark)
    files = read_source(spark, "files", paths="\n".join(urls))

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for name, content in zip(
                batch.column("file").to_pylist(), batch.column("content").to_pylist(), strict=False
            ):
                yield from decode(name, content)

    return files.mapInArrow(run, schema)


def arrow_chunks(rows: Iterator[RowTuple]) -> Iterator[pa.RecordBatch]:
    """``rows`` as Arrow batches of at most :data:`ARROW_CHUNK_ROWS` rows."""
    buffer: list[RowTuple] = []
    for row in rows:
        buffer.append(row)
        if len(buffer) == ARROW_CHUNK_ROWS:
            yield to_arrow(buffer)
            buffer = []
    if buffer:
        yield to_arrow(buffer)


def to_arrow(rows: list[RowTuple]) -> pa.RecordBatch:
    columns = list(zip(*rows, strict=False))
    arrays = [pa.array(values, type=f.type) for values, f in zip(columns, ARROW_SCHEMA, strict=False)]
    return pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)
