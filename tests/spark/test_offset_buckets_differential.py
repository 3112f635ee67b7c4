"""Core and Spark offset buckets agree row for row: same parameters, same boundaries, empty buckets kept."""

from __future__ import annotations

from functools import reduce

import pytest
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kcompact_nb import PartitionLog
from kcompact_nb.core import OFFSET_BUCKET_COLUMNS, KcompactError
from kcompact_nb.core import offset_buckets as core_offset_buckets
from kcompact_nb.io import read_log_dir
from kcompact_nb.spark import logs_to_dataframe, offset_buckets
from kcompact_nb.spark._load_log_dir import CHECKPOINT_SCHEMA, SEGMENT_SCHEMA
from tests.conftest import compacted_log, rec
from tests.spark.conftest import SAMPLE_STAGES, core_full_pass, stage_topic

BUCKET_COUNTS = (1, 3, 8)


def spark_rows(records: DataFrame, segments: DataFrame, checkpoints: DataFrame) -> list[tuple]:
    """Rows for every bucket count in one Spark job, as (bucket_count, *OFFSET_BUCKET_COLUMNS) tuples."""
    per_count = [
        offset_buckets(records, bucket_count=n, segments=segments, checkpoints=checkpoints).select(
            F.lit(n), *OFFSET_BUCKET_COLUMNS
        )
        for n in BUCKET_COUNTS
    ]
    return sorted(tuple(r) for r in reduce(DataFrame.unionAll, per_count).collect())


def core_rows(logs, topic_of=lambda log: log.topic) -> list[tuple]:
    rows = (
        (n, *row)
        for log in logs
        for n in BUCKET_COUNTS
        for row in core_offset_buckets(log, bucket_count=n, topic=topic_of(log))
    )
    return sorted(rows)


def test_bundled_samples_give_the_same_rows_in_core_and_spark(samples_as_topics):
    expected = [
        row
        for stage in SAMPLE_STAGES
        for row in core_rows(read_log_dir(stage).logs.values(), lambda _, s=stage: stage_topic(s))
    ]
    assert spark_rows(*samples_as_topics) == sorted(expected)


def gapped_log():
    """Offsets 0-39 over several segments, keys k0-k4 overwritten, tombstones; then compacted (gaps),
    and a log start offset raised to 6 as DeleteRecords does."""
    log = compacted_log(segment_bytes=600)
    for i in range(40):
        log.append([rec(f"k{i % 5}", None if i % 11 == 10 else f"v{i}", timestamp=i)], now_ms=i)
    log.roll(now_ms=40)
    core_full_pass(log, now_ms=40)
    log.log_start_offset = 6
    return log


def keyless_log():
    """A delete-policy topic (keyless records allowed): they count as live in both."""
    log = PartitionLog("u", 2)
    log.append([rec(None, "a"), rec("k", "b"), rec(None, None), rec("k", None)], now_ms=0)
    return log


def test_a_compacted_log_with_gaps_and_keyless_records_give_the_same_rows(spark):
    logs = [gapped_log(), keyless_log()]
    assert len(logs[0].segments) > 2 and len(list(logs[0].records())) < 30  # compaction left gaps
    checkpoints = spark.createDataFrame([("t", 0, None, 6)], CHECKPOINT_SCHEMA)
    files = [(log.topic, log.partition, s.base_offset, s.size_bytes, 0) for log in logs for s in log.segments]
    got = spark_rows(logs_to_dataframe(spark, logs), spark.createDataFrame(files, SEGMENT_SCHEMA), checkpoints)
    assert got == core_rows(logs)
    assert any(row[OFFSET_BUCKET_COLUMNS.index("records") + 1] == 0 for row in got)  # empty buckets are rows


def test_bucket_parameters_are_checked(spark):
    df = logs_to_dataframe(spark, [gapped_log()])
    with pytest.raises(KcompactError, match="exactly one of bucket_count and bucket_offsets"):
        offset_buckets(df)
    with pytest.raises(KcompactError, match="bucket_count must be at least 1, got 0"):
        offset_buckets(df, bucket_count=0)
