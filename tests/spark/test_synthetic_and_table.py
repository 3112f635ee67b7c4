"""The generated topic (deterministic, keyed partitioning, a cleaned head) and the bounded table view."""

from __future__ import annotations

import pytest

from kcompact_nb import KcompactError
from kcompact_nb.spark import (
    RECORD_COLUMNS,
    compact,
    dirtiness,
    keys_on_many_partitions,
    load_log_dir,
    load_segments,
    segments_from_records,
    synthetic_topic,
    table,
)
from tests.spark.conftest import SAMPLES


@pytest.fixture(scope="module")
def topic(spark):
    return synthetic_topic(
        spark,
        topic="t",
        partitions=3,
        records=3_000,
        keys=90,
        seed=5,
        segment_records=100,
        cleaned_fractions=[0.5, 0.25, 0.0],
    )


def _rows(df, *columns):
    return [tuple(r) for r in df.select(*columns).orderBy(*columns).collect()]


def test_same_arguments_same_topic(spark, topic):
    again = synthetic_topic(
        spark,
        topic="t",
        partitions=3,
        records=3_000,
        keys=90,
        seed=5,
        segment_records=100,
        cleaned_fractions=[0.5, 0.25, 0.0],
    )
    columns = ("partition", "offset", "key", "value")
    assert _rows(topic.records, *columns) == _rows(again.records, *columns)
    assert topic.records.columns == list(RECORD_COLUMNS)


def test_offsets_are_dense_before_cleaning_and_keys_stay_on_their_partition(spark, topic):
    raw = synthetic_topic(
        spark, topic="t", partitions=3, records=3_000, keys=90, seed=5, segment_records=100, cleaned_fractions=[0.0] * 3
    )
    spans = _rows(
        raw.records.groupBy("partition").agg({"offset": "max", "*": "count"}), "partition", "max(offset)", "count(1)"
    )
    assert spans == [(0, 999, 1000), (1, 999, 1000), (2, 999, 1000)]
    assert keys_on_many_partitions(raw.records).count() == 0


def test_the_head_is_compacted_up_to_the_checkpoint(topic):
    assert _rows(topic.checkpoints, "partition", "cleaner_checkpoint", "log_start_offset") == [
        (0, 500, 0),
        (1, 200, 0),
        (2, 0, 0),
    ]
    head = topic.records.filter("offset < 500 AND partition = 0")
    assert head.groupBy("key").count().filter("count > 1").count() == 0
    ranges = dirtiness(topic.segments, topic.checkpoints, topic.records, now_ms=topic.now_ms)
    assert _rows(ranges, "partition", "first_dirty_offset", "first_uncleanable_offset") == [
        (0, 500, 900),
        (1, 200, 900),
        (2, 0, 900),
    ]


def test_a_partition_count_change_puts_keys_on_two_partitions(spark):
    moved = synthetic_topic(
        spark, partitions=4, records=2_000, keys=40, earlier_partitions=2, cleaned_fractions=[0.0] * 4
    )
    counts = _rows(
        keys_on_many_partitions(moved.records).groupBy("partition_count").count(), "partition_count", "count"
    )
    # keys 0-19 were written on k mod 2, then on k mod 4: the ten with k mod 4 in {2, 3} moved
    assert counts == [(2, 10)]


def test_bad_arguments_name_the_parameter(spark):
    with pytest.raises(KcompactError, match="cleaned_fractions"):
        synthetic_topic(spark, partitions=2, cleaned_fractions=[0.5])
    with pytest.raises(KcompactError, match="earlier_partitions"):
        synthetic_topic(spark, partitions=2, earlier_partitions=3)


def test_segments_from_records_match_the_files_of_a_broker_sample(spark):
    stage = SAMPLES / "compaction-basic" / "before"
    from_files = _rows(load_segments(spark, stage), "segment_base_offset", "size_bytes")
    assert _rows(segments_from_records(load_log_dir(spark, stage)), "segment_base_offset", "size_bytes") == from_files


def test_table_orders_bounds_and_decodes(spark, topic):
    records = load_log_dir(spark, SAMPLES / "compaction-basic" / "before")
    shown = table(records.select("offset", "key", "value", "topic", "partition"), limit=3)
    assert shown.to_dict("list") == {
        "offset": [0, 1, 2],
        "key": ["k0", "k1", "k2"],
        "value": ["v0", "v1", "v2"],
        "topic": ["basic"] * 3,
        "partition": [0] * 3,
    }
    tombstone = table(compact(records, now_ms=0).filter("value IS NULL"), limit=5)
    assert list(tombstone["value"]) == [None]
    with pytest.raises(KcompactError, match="order_by"):
        table(records.select("value"))
