"""The one bounded bridge between Spark and the core model.

:func:`to_partition_log` collects one partition (at most ``limit`` records, else an error) into a
:class:`~kcompact_nb.core.PartitionLog` for stepping through passes; :func:`logs_to_dataframe`
goes the other way for small core logs (tests, what-ifs).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import groupby
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F

from kcompact_nb.core import (
    BrokerConfig,
    KcompactError,
    PartitionLog,
    Record,
    RecordBatch,
    SegmentData,
    TopicConfig,
    build_partition_log,
)
from kcompact_nb.spark._file_tasks import ARROW_SCHEMA, to_arrow
from kcompact_nb.spark._load_log_dir import batch_rows
from kcompact_nb.spark._schema import RECORD_COLUMNS, RECORD_SCHEMA, require_columns

DEFAULT_RECORD_LIMIT = 100_000


class BridgeLimitError(KcompactError, ValueError):
    """A partition has more records than the bridge was allowed to collect."""


def to_partition_log(
    records: DataFrame,
    *,
    topic: str,
    partition: int,
    limit: int = DEFAULT_RECORD_LIMIT,
    config: TopicConfig | None = None,
    broker: BrokerConfig | None = None,
    cleaner_checkpoint: int | None = None,
) -> PartitionLog:
    """Collect one partition into a core :class:`PartitionLog` (``collect`` of at most ``limit`` + 1 rows).

    Rows become batches by ``batch_base_offset`` and segments by ``segment_base_offset`` (one batch
    per record and one segment when those are null). Batches are rebuilt uncompressed, so their
    sizes are v2 sizes of the records. Raises :class:`BridgeLimitError` past ``limit`` records.
    """
    require_columns(records, RECORD_COLUMNS, what="to_partition_log")
    chosen = records.filter((F.col("topic") == topic) & (F.col("partition") == partition))
    rows = chosen.orderBy("offset").limit(limit + 1).collect()
    if len(rows) > limit:
        message = (
            f"{topic}-{partition} has more than {limit} records; the bridge collects at most limit={limit} "
            "(raise it deliberately, or filter an offset range first)"
        )
        raise BridgeLimitError(message)
    segments = [SegmentData(base, [_batch(b) for b in _batches(seg_rows)]) for base, seg_rows in _segments(rows)]
    return build_partition_log(
        topic, partition, segments, config=config, broker=broker, cleaner_checkpoint=cleaner_checkpoint
    )


def _segments(rows: Sequence[Row]) -> list[tuple[int, list[Row]]]:
    first = rows[0]["offset"] if rows else 0
    keyed = groupby(rows, key=lambda r: r["segment_base_offset"] if r["segment_base_offset"] is not None else first)
    return [(base, list(group)) for base, group in keyed]


def _batches(rows: Iterable[Row]) -> list[list[Row]]:
    keyed = groupby(
        rows, key=lambda r: r["batch_base_offset"] if r["batch_base_offset"] is not None else ("record", r["offset"])
    )
    return [list(group) for _, group in keyed]


def _batch(rows: list[Row]) -> RecordBatch:
    head = rows[0]
    records = [
        Record(r["offset"], _ms(r), r["key"], r["value"], tuple((h["key"], h["value"]) for h in r["headers"] or ()))
        for r in rows
    ]
    fields: dict[str, Any] = {name: head[name] for name in ("producer_id", "producer_epoch") if head[name] is not None}
    fields["is_transactional"] = bool(head["is_transactional"])
    fields["is_control"] = bool(head["is_control"])
    return RecordBatch.build(
        records,
        base_offset=head["batch_base_offset"],
        last_offset=head["batch_last_offset"],
        delete_horizon_ms=head["delete_horizon_ms"],
        log_append_time_ms=_ms(head) if head["timestampType"] == 1 else None,
        **fields,
    )


def _ms(row: Row) -> int:
    stamp = row["timestamp"]
    return int(stamp.timestamp() * 1000 + (0.5 if stamp.timestamp() >= 0 else -0.5))


def logs_to_dataframe(spark: SparkSession, logs: Iterable[PartitionLog]) -> DataFrame:
    """Core logs as one record DataFrame (built on the driver: for small logs), control records included."""
    rows = [
        row
        for log in logs
        for segment in log.segments
        for batch in segment.batches
        for row in batch_rows(log.topic, log.partition, segment.base_offset, batch)
    ]
    table = pa.Table.from_batches([to_arrow(rows)]) if rows else ARROW_SCHEMA.empty_table()
    return spark.createDataFrame(table, schema=RECORD_SCHEMA)
