"""Latest per key under three strategies, fates and counts by the latest record per key, tombstones after the core's
passes, cross-partition keys, buckets and the bridge."""

from __future__ import annotations

import struct

import pytest

from kcompact_nb import NewRecord, OffsetMapSpec, PartitionLog
from kcompact_nb.core import OFFSET_BUCKET_COLUMNS
from kcompact_nb.io import read_log_dir
from kcompact_nb.spark import (
    BridgeLimitError,
    compact,
    dirty_keys,
    duplicates,
    exact_counts,
    keys_on_many_partitions,
    latest_per_key,
    live_state,
    load_log_dir,
    logs_to_dataframe,
    offset_buckets,
    to_partition_log,
    tombstones,
    whole_log_range,
    with_transaction_flags,
)
from tests.conftest import offsets_in_log
from tests.spark.conftest import SAMPLES

DAY_MS = 86_400_000
"""``delete.retention.ms``'s default."""


def v(n: int) -> tuple[tuple[str, bytes]]:
    return (("version", struct.pack(">q", n)),)


@pytest.fixture(scope="module")
def topic(spark):
    """Partition 0: a@0 (ts 50, v2), a@1 (ts 10, v1), b@2, a@3 tombstone (ts 20), c@4; partition 1: a@0."""
    p0 = PartitionLog("t", 0)
    p0.append([NewRecord(b"a", b"a0", 50, v(2)), NewRecord(b"a", b"a1", 10, v(1))], now_ms=0)
    p0.append([NewRecord(b"b", b"b2", 30), NewRecord(b"a", None, 20), NewRecord(b"c", b"c4", 40)], now_ms=0)
    p1 = PartitionLog("t", 1)
    p1.append([NewRecord(b"a", b"x", 5)], now_ms=0)
    return logs_to_dataframe(spark, [p0, p1])


def winners(df):
    return sorted((r["partition"], r["key"], r["offset"]) for r in df.collect())


def test_latest_and_live_state_under_each_strategy(topic):
    assert winners(latest_per_key(topic)) == [(0, b"a", 3), (0, b"b", 2), (0, b"c", 4), (1, b"a", 0)]
    assert winners(live_state(topic)) == [(0, b"b", 2), (0, b"c", 4), (1, b"a", 0)]
    assert winners(live_state(topic, strategy="timestamp")) == [(0, b"a", 0), (0, b"b", 2), (0, b"c", 4), (1, b"a", 0)]
    assert winners(latest_per_key(topic, strategy="header")) == [(0, b"a", 0), (0, b"b", 2), (0, b"c", 4), (1, b"a", 0)]


def test_counts_duplicates_tombstones_and_cross_partition_keys(topic):
    assert sorted(tuple(r) for r in exact_counts(topic).collect()) == [("t", 0, 5, 2, 1, 5), ("t", 1, 1, 1, 0, 1)]
    assert sorted(tuple(r)[:4] for r in duplicates(topic).collect()) == [("t", 0, 5, 2), ("t", 1, 1, 0)]
    assert [tuple(r) for r in tombstones(topic).collect()] == [("t", 0, b"a", 3, None, False)]
    assert [tuple(r) for r in keys_on_many_partitions(topic).collect()] == [("t", b"a", [0, 1], 2)]
    keys = dirty_keys(topic, whole_log_range(topic), dedupe_buffer_bytes=48)
    assert sorted(tuple(r) for r in keys.collect()) == [("t", 0, 3, 1), ("t", 1, 1, 1)]


def test_tombstones_say_whether_the_cores_pass_removed_them(topic):
    """The first pass keeps the tombstone a@3 (latest of its key) and stamps its delete horizon (now +
    ``delete.retention.ms``, a day by default); a pass after the horizon removes it. ``tombstones`` reads both from
    the passes' output; it works out nothing itself."""
    whole, exact = whole_log_range(topic), OffsetMapSpec(exact=True)
    first = compact(topic, now_ms=0, cleanable=whole, offset_map=exact).cache()
    later = compact(first, now_ms=DAY_MS + 1, cleanable=whole_log_range(first), offset_map=exact)
    assert [tuple(r) for r in tombstones(topic, cleaned=first).collect()] == [("t", 0, b"a", 3, None, False, False)]
    assert [tuple(r) for r in tombstones(first, cleaned=later).collect()] == [("t", 0, b"a", 3, DAY_MS, False, True)]


def test_aborted_data_is_what_the_transaction_index_says(spark):
    """``with_transaction_flags`` flags as aborted exactly the data records each segment's transaction index (the
    aborted transactions rebuilt from the markers, as ``LogLoader`` rebuilds them) lists for their producer."""
    stage = SAMPLES / "transactional" / "before"
    (log,) = read_log_dir(stage).logs.values()
    entries = [entry for segment in log.segments for entry in segment.aborted_transactions]
    expected = sorted(
        record.offset
        for batch, record in log.records()
        if not batch.is_control
        and any(
            e.producer_id == batch.producer_id and e.first_offset <= record.offset <= e.last_offset for e in entries
        )
    )
    flagged = with_transaction_flags(load_log_dir(spark, stage)).filter("aborted").select("offset").collect()
    assert sorted(row["offset"] for row in flagged) == expected != []


def test_offset_buckets_have_the_shared_columns(topic):
    df = offset_buckets(topic, bucket_offsets=2)
    assert tuple(df.columns) == OFFSET_BUCKET_COLUMNS
    got = sorted(
        (
            r["partition"],
            r["bucket"],
            r["start_offset"],
            r["end_offset"],
            r["records"],
            r["live"],
            r["superseded"],
            r["tombstones"],
        )
        for r in df.collect()
    )
    assert got == [
        (0, 0, 0, 2, 2, 0, 2, 0),
        (0, 1, 2, 4, 2, 1, 0, 1),
        (0, 2, 4, 5, 1, 1, 0, 0),
        (1, 0, 0, 1, 1, 1, 0, 0),
    ]


def test_bridge_round_trip_and_limit(topic):
    log = to_partition_log(topic, topic="t", partition=0, limit=5)
    assert offsets_in_log(log) == [0, 1, 2, 3, 4] and [b.last_offset for b in log.batches()] == [1, 4]
    with pytest.raises(BridgeLimitError, match="t-0 has more than 4 records"):
        to_partition_log(topic, topic="t", partition=0, limit=4)
