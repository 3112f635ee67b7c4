"""Offset-bucketed summaries and superseded counts: whole logs in, rows and counts out."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kcompact_nb.core import (
    OFFSET_BUCKET_COLUMNS,
    KafkaModelError,
    NewRecord,
    clean_pass,
    log_table,
    log_to_clean,
    next_pass,
    offset_buckets,
    strategy_for,
)
from kcompact_nb.core.views import _offset_buckets
from kcompact_nb.core.views._next_pass import superseded_count
from kcompact_nb.record._record_sizes import record_size_bytes
from tests.conftest import compacted_log, rec


def small_log():
    """Offsets 0-5: a a b a(tombstone) c b, one record per batch except [4, 5] together."""
    log = compacted_log()
    for key, value in (("a", "1"), ("a", "2"), ("b", "1"), ("a", None)):
        log.append([rec(key, value, timestamp=0)], now_ms=0)
    log.append([rec("c", "1", timestamp=0), rec("b", "2", timestamp=0)], now_ms=0)
    return log


def test_buckets_have_the_contract_columns_and_count_by_fate():
    rows = offset_buckets(small_log(), bucket_count=3)
    assert rows[0]._fields == OFFSET_BUCKET_COLUMNS
    assert [(r.bucket, r.start_offset, r.end_offset, r.records, r.live, r.superseded, r.tombstones) for r in rows] == [
        (0, 0, 2, 2, 0, 2, 0),
        (1, 2, 4, 2, 0, 1, 1),
        (2, 4, 6, 2, 2, 0, 0),
    ]
    assert {(r.topic, r.partition) for r in rows} == {("t", 0)}


def test_bucket_bytes_are_record_sizes_without_batch_headers():
    log = small_log()
    rows = offset_buckets(log, bucket_count=6)
    expected = [record_size_bytes(r.offset - b.base_offset, 0, r.key, r.value) for b, r in log.records()]
    assert [r.size_bytes for r in rows] == expected
    straddling = offset_buckets(log, bucket_count=1, topic="renamed", partition=7)
    assert (straddling[0].size_bytes, straddling[0].topic, straddling[0].partition) == (sum(expected), "renamed", 7)


def test_buckets_keep_the_gaps_compaction_leaves():
    log = small_log()
    log.roll(now_ms=0)
    ltc = log_to_clean(log, now_ms=0)
    clean_pass(log, now_ms=0, first_dirty_offset=0, first_uncleanable_offset=ltc.first_uncleanable_offset)
    rows = offset_buckets(log, bucket_count=6)
    assert [r.records for r in rows] == [0, 0, 0, 1, 1, 1]  # 0-2 removed; the tombstone at 3 awaits its horizon
    assert [r.tombstones for r in rows] == [0, 0, 0, 1, 0, 0]


def test_bucket_count_bounds_the_rows_and_empty_logs_have_none():
    assert len(offset_buckets(small_log(), bucket_count=4)) == 3  # width ceil(6 / 4) = 2
    assert offset_buckets(compacted_log(), bucket_count=10) == []
    with pytest.raises(KafkaModelError, match="bucket_count"):
        offset_buckets(small_log(), bucket_count=0)


def test_the_next_pass_column_of_log_table_follows_the_offset_strategy_and_tombstone_horizons():
    log = small_log()
    log.roll(now_ms=0)
    assert next_pass_column(log, now_ms=0) == [
        "removed", "removed", "removed", "awaiting horizon", "kept", "kept",
    ]  # fmt: skip
    clean_pass(log, now_ms=0, first_dirty_offset=0, first_uncleanable_offset=6)  # stamps horizon 0 + 1 day
    day = 86_400_000
    assert next_pass_column(log, now_ms=day - 1) == ["awaiting horizon", "kept", "kept"]
    assert next_pass_column(log, now_ms=day) == [
        "past horizon",
        "kept",
        "kept",
    ]  # no cleanable range: no pass reaches it


def next_pass_column(log, *, now_ms):
    """The ``next pass`` cells of :func:`log_table`'s record rows."""
    lines = log_table(log, now_ms=now_ms).splitlines()
    start = lines[0].index("next pass")
    return [line[start:].strip() for line in lines[1:-1] if line[start:].strip()]


def test_superseded_count_under_the_kip280_timestamp_strategy():
    """KIP-280 (not Kafka's behaviour): the later timestamp wins even at a lower offset."""
    log = compacted_log(compaction_strategy="timestamp")
    log.append([rec("k", "new", timestamp=2000)], now_ms=0)
    log.append([rec("k", "old", timestamp=1000)], now_ms=0)
    log.append([rec("k", "older", timestamp=500)], now_ms=0)
    outcomes = next_pass(log, now_ms=0).records
    assert [r.superseded_by for r in outcomes] == [None, 0, 0]
    assert superseded_count(log) == 2
    assert (
        superseded_count(log, strategy=strategy_for(compacted_log().config)) == 2
    )  # offsets 0 and 1 under Kafka's rule
    assert superseded_count(small_log()) == 3


def test_aborted_data_neither_supersedes_nor_counts_as_superseded():
    """Spec 7.3: a pass drops aborted data whatever its key, so a committed record outranked only by aborted
    data is its key's latest, and the aborted record is not a duplicate."""
    log = compacted_log()
    log.append([rec("k", "committed", timestamp=0)], now_ms=0)
    log.append([rec("k", "aborted", timestamp=0)], now_ms=0, producer_id=7, producer_epoch=0, transactional=True)
    log.append_end_txn_marker(7, 0, commit=False, now_ms=0)
    log.roll(now_ms=0)
    records = next_pass(log, now_ms=0).records
    assert [(r.offset, r.kind.value, r.outcome.short, r.superseded_by) for r in records] == [
        (0, "data", "kept", None),
        (1, "aborted", "removed", None),
        (2, "marker", "kept", None),
    ]
    assert records[0].reason == "the latest record of its key"
    assert records[2].reason == (
        "ABORT marker of producer 7: its transaction had data when the pass read it; "
        "the first pass that finds none stamps its delete horizon"
    )
    assert superseded_count(log) == 0


batches = st.lists(
    st.tuples(
        st.lists(
            st.tuples(st.sampled_from([None, b"a", b"b", b"c", b"d"]), st.one_of(st.none(), st.binary(max_size=70))),
            min_size=1,
            max_size=8,
        ),
        st.sampled_from(["none", "none", "gzip"]),
        st.booleans(),  # a transaction, committed or aborted by a marker (a control batch) after it
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    batches=batches,
    bucket_count=st.integers(1, 12),
    start=st.integers(0, 120),
    pending=st.sampled_from([1, 7, 1 << 16]),
)
def test_buckets_count_each_record_by_the_latest_record_of_its_key(batches, bucket_count, start, pending, monkeypatch):
    """Record by record: counted from the log start offset on (control records never), bytes the records' own
    sizes, the latest record of each key (by offset) live or a tombstone, keyless records live, the rest
    superseded, whatever the batches and however many records the tally buffers."""
    monkeypatch.setattr(_offset_buckets, "PENDING_RECORDS", pending)
    log = compacted_log(cleanup_policy="delete", segment_bytes=2000)  # keyless records too; segments rolled
    for i, (rows, codec, transactional) in enumerate(batches):
        records = [NewRecord(key, value, timestamp=i * 3 + j) for j, (key, value) in enumerate(rows)]
        txn = {"producer_id": 4, "producer_epoch": 0, "transactional": True} if transactional else {}
        log.append(records, now_ms=i, compression=codec, **txn)
        if transactional:
            log.append_end_txn_marker(4, 0, commit=i % 2 == 0, now_ms=i)
    log.log_start_offset = min(start, log.log_end_offset)
    rows = offset_buckets(log, bucket_count=bucket_count)
    width = max(-(-(log.log_end_offset - log.log_start_offset) // bucket_count), 1)
    data = [(b, r) for b, r in log.records() if not b.is_control]
    latest = {r.key: r.offset for _, r in data if r.key is not None}
    expected: dict[int, list[int]] = {}
    for batch, r in data:
        if r.offset < log.log_start_offset:
            continue
        row = expected.setdefault((r.offset - log.log_start_offset) // width, [0, 0, 0, 0, 0])
        fate = 2 if r.key is None or (latest[r.key] == r.offset and r.value is not None) else 4
        fate = 3 if r.key is not None and latest[r.key] != r.offset else fate
        row[0] += 1
        row[1] += record_size_bytes(r.offset - batch.base_offset, r.timestamp - batch.base_timestamp, r.key, r.value)
        row[fate] += 1
    assert len(rows) == -(-(log.log_end_offset - log.log_start_offset) // width)
    assert [(r.records, r.size_bytes, r.live, r.superseded, r.tombstones) for r in rows] == [
        tuple(expected.get(i, [0] * 5)) for i in range(len(rows))
    ]
