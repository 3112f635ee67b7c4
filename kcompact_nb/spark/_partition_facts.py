"""What the driver knows of each partition, carried on its rows to the Spark task that rebuilds it as a core log.

:func:`compact` and :func:`dirtiness` group the records by partition and run the core in each task; the task reads
its partition's checkpoints and segment files from columns every row of the partition carries
(:func:`with_partition_facts`, Spark side) and hands them to :func:`~kcompact_nb.spark._log_rows.rows_to_log`
(:func:`partition_facts`, task side).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kcompact_nb.spark._log_rows import columns_of
from kcompact_nb.spark._schema import HEADER_TYPE, PARTITION_COLUMNS, RECORD_COLUMNS, require_columns

CHECKPOINT_COLUMNS = ("topic", "partition", "cleaner_checkpoint", "log_start_offset")
SEGMENT_COLUMNS = ("topic", "partition", "segment_base_offset")
_FILE_FIELDS = ("segment_base_offset", "size_bytes", "last_modified_ms")
_FACTS = ("_cleaner_checkpoint", "_log_start_offset", "_segment_files")


@dataclass(frozen=True)
class PartitionFacts:
    """A task's partition: its rows as columns (:data:`~kcompact_nb.spark._log_rows.Columns`), its checkpoint
    entries (None when absent) and its segment files (base offset -> (size in bytes, modification time in ms), each
    None when the segment table lacks it; empty without a segment table)."""

    columns: dict[str, list[Any]]
    cleaner_checkpoint: int | None
    log_start_offset: int | None
    segment_files: Mapping[int, tuple[int | None, int | None]]

    @property
    def segment_times(self) -> dict[int, int | None]:
        """Each segment file's modification time by base offset (``rows_to_log``'s ``segment_files``)."""
        return {base: mtime for base, (_, mtime) in self.segment_files.items()}


def with_partition_facts(
    records: DataFrame,
    *,
    checkpoints: DataFrame | None,
    segments: DataFrame | None,
    what: str,
    every_segmented_partition: bool = False,
) -> DataFrame:
    """``records``' rows (the record schema) with their partition's checkpoints and segment files as columns.

    Parameters
    ----------
    checkpoints : ``topic, partition, cleaner_checkpoint, log_start_offset`` (:func:`load_checkpoints`).
    segments : ``topic, partition, segment_base_offset`` and, when present, ``size_bytes`` and ``last_modified_ms``
        of every segment file (:func:`load_segments`).
    what : the caller's name, for errors about missing columns.
    every_segmented_partition : a partition the segment table lists but no record has gets one row whose record
        columns are null (its log is its segments alone); without it, only partitions with records.

    A record without headers gets an empty list instead of null: both mean none to the task, and Spark 4.3's Arrow
    writer to Python workers spends about 45 us on each null list of structs (5 s for 110,000 records, measured).
    """
    rows = require_columns(records, RECORD_COLUMNS, what=what).select(*RECORD_COLUMNS)
    rows = rows.withColumn("headers", F.coalesce(F.col("headers"), F.array().cast(HEADER_TYPE)))
    facts = _segment_files(segments, what) if segments is not None else None
    if checkpoints is not None:
        given = require_columns(checkpoints, CHECKPOINT_COLUMNS, what=f"{what}'s checkpoints")
        entries = given.select(
            *PARTITION_COLUMNS,
            F.col("cleaner_checkpoint").cast("long").alias("_cleaner_checkpoint"),
            F.col("log_start_offset").cast("long").alias("_log_start_offset"),
        )
        facts = entries if facts is None else facts.join(entries, list(PARTITION_COLUMNS), "left")
    if facts is not None and every_segmented_partition:
        rows = facts.join(rows, list(PARTITION_COLUMNS), "left")  # the left side of an outer join is never broadcast
    elif facts is not None:
        rows = rows.join(F.broadcast(facts), list(PARTITION_COLUMNS), "left")
    for column, kind in zip(_FACTS, ("long", "long", _FILES_TYPE), strict=True):
        if column not in rows.columns:
            rows = rows.withColumn(column, F.lit(None).cast(kind))
    return rows


_FILES_TYPE = "array<struct<segment_base_offset: long, size_bytes: long, last_modified_ms: long>>"


def _segment_files(segments: DataFrame, what: str) -> DataFrame:
    listed = require_columns(segments, SEGMENT_COLUMNS, what=f"{what}'s segments")
    fields = [
        (F.col(name) if name in listed.columns else F.lit(None)).cast("long").alias(name) for name in _FILE_FIELDS
    ]
    files = F.array_sort(F.collect_list(F.struct(*fields))).alias("_segment_files")
    return listed.groupBy(*PARTITION_COLUMNS).agg(files)


def partition_facts(table: pa.Table) -> PartitionFacts:
    """A task's Arrow table (one partition, from :func:`with_partition_facts`) as its rows and facts."""
    head = {name: table.column(name)[0].as_py() for name in _FACTS}
    records = table.drop_columns(list(_FACTS))
    records = records.filter(pc.is_valid(records.column("offset")))  # a partition with segments and no record
    files = {f["segment_base_offset"]: (f["size_bytes"], f["last_modified_ms"]) for f in head["_segment_files"] or ()}
    return PartitionFacts(columns_of(records), head["_cleaner_checkpoint"], head["_log_start_offset"], files)
