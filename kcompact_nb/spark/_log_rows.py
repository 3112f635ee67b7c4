"""Record rows and core logs, both ways: the one place rows of the record schema become a :class:`PartitionLog`.

Used on the driver by the bridge (:func:`~kcompact_nb.spark.to_partition_log`, bounded;
:func:`~kcompact_nb.spark.logs_to_dataframe`) and in Spark tasks by :func:`~kcompact_nb.spark.compact` (one
partition per task). Rows become batches by ``batch_base_offset`` and segments by ``segment_base_offset`` (one batch
per record and one segment when those are null). Batches are rebuilt uncompressed, so their sizes are the v2 sizes of
their records. A log's rows are what a consumer reads plus the batch fields, control records included.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import groupby
from typing import Any

import pyarrow as pa

from kcompact_nb.core import (
    BrokerConfig,
    PartitionLog,
    Record,
    RecordBatch,
    SegmentData,
    TopicConfig,
    build_partition_log,
)
from kcompact_nb.spark._file_tasks import RowTuple, arrow_chunks
from kcompact_nb.spark._load_log_dir import batch_rows

Columns = Mapping[str, Sequence[Any]]
"""A partition's rows as columns of the record schema, in offset order (``timestamp`` in epoch microseconds)."""


def columns_of(table: pa.Table) -> dict[str, list[Any]]:
    """``table``'s rows (the record schema) as Python columns in offset order, timestamps in epoch microseconds."""
    ordered = table.sort_by("offset")
    stamps = ordered.column("timestamp").cast(pa.int64())
    return {name: (stamps if name == "timestamp" else ordered[name]).to_pylist() for name in ordered.column_names}


def rows_to_log(
    columns: Columns,
    *,
    topic: str,
    partition: int,
    config: TopicConfig | None = None,
    broker: BrokerConfig | None = None,
    log_start_offset: int | None = None,
    cleaner_checkpoint: int | None = None,
    now_ms: int | None = None,
    segment_files: Mapping[int, int | None] | None = None,
    active_segment_base_offset: int | None = None,
) -> PartitionLog:
    """One partition's rows as a core log (``build_partition_log``: producer state rebuilt from the batches;
    producers idle at ``now_ms`` expired, as :func:`kcompact_nb.io.read_partition_dir` does).

    ``segment_files`` maps the base offset of each of the partition's segment files to its modification time (ms,
    None when unknown): each is a segment, empty or not (an empty segment's largest timestamp is its modification
    time, ``LogSegment.largestTimestamp``); the last is the active segment. ``active_segment_base_offset``, when
    past every other segment's base, is where the active segment starts: the rows from it on move into it, as if
    the log rolled there; it holds no row when it is past them all (a segment rolled, nothing appended since).
    """
    count = len(columns["offset"])
    offsets, segment_of = columns["offset"], columns["segment_base_offset"]
    first = offsets[0] if count else 0
    files = dict(segment_files or {})
    last_base = max([first if not count or segment_of[-1] is None else segment_of[-1], *files])
    active = active_segment_base_offset if (active_segment_base_offset or -1) > last_base else None

    def segment(i: int) -> int:
        base = first if segment_of[i] is None else segment_of[i]
        return active if active is not None and offsets[i] >= active else base

    rows_of = {base: list(rows) for base, rows in groupby(range(count), key=segment)}
    bases = sorted({*rows_of, *files, *([] if active is None else [active])})
    segments = [
        SegmentData(
            base, [_batch(columns, rows) for rows in _batches(columns, rows_of.get(base, []))], files.get(base) or 0
        )
        for base in bases
    ]
    return build_partition_log(
        topic,
        partition,
        segments,
        config=config,
        broker=broker,
        log_start_offset=log_start_offset,
        cleaner_checkpoint=cleaner_checkpoint,
        now_ms=now_ms,
    )


def _headers(headers: list[dict[str, Any]] | None) -> tuple[tuple[str, bytes | None], ...]:
    return tuple((h["key"], h["value"]) for h in headers or ())


def _batches(columns: Columns, rows: list[int]) -> Iterator[list[int]]:
    base_of = columns["batch_base_offset"]
    for _, batch in groupby(rows, key=lambda i: ("record", i) if base_of[i] is None else base_of[i]):
        yield list(batch)


def _batch(columns: Columns, rows: list[int]) -> RecordBatch:
    head = rows[0]
    offsets, stamps, keys, values, headers = (
        columns[name] for name in ("offset", "timestamp", "key", "value", "headers")
    )
    records = [Record(offsets[i], stamps[i] // 1000, keys[i], values[i], _headers(headers[i])) for i in rows]
    fields: dict[str, Any] = {
        name: columns[name][head] for name in ("producer_id", "producer_epoch") if columns[name][head] is not None
    }
    return RecordBatch.build(
        records,
        base_offset=columns["batch_base_offset"][head],
        last_offset=columns["batch_last_offset"][head],
        delete_horizon_ms=columns["delete_horizon_ms"][head],
        log_append_time_ms=stamps[head] // 1000 if columns["timestampType"][head] == 1 else None,
        is_transactional=bool(columns["is_transactional"][head]),
        is_control=bool(columns["is_control"][head]),
        **fields,
    )


def log_rows(log: PartitionLog) -> Iterator[RowTuple]:
    """Every stored record of ``log`` as a row tuple of the record schema, in offset order."""
    for segment in log.segments:
        for batch in segment.batches:
            yield from batch_rows(log.topic, log.partition, segment.base_offset, batch)


def log_arrow(log: PartitionLog) -> Iterator[pa.RecordBatch]:
    """:func:`log_rows` as Arrow batches of the record schema."""
    return arrow_chunks(log_rows(log))
