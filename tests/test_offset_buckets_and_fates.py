"""Offset-bucketed summaries and record fates: whole logs in, rows and fates out."""

from __future__ import annotations

import pytest

from kcompact_nb import OFFSET_BUCKET_COLUMNS, KafkaModelError, RecordFate, offset_buckets, record_fates, strategy_for
from kcompact_nb.core.cleaner._cleaner import clean_pass
from kcompact_nb.core.cleaner._log_to_clean import log_to_clean
from kcompact_nb.core.model._record_sizes import record_size_bytes
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


def test_fates_follow_the_offset_strategy_and_tombstone_horizons():
    log = small_log()
    fates = [(r.offset, r.fate) for r in record_fates(log, now_ms=0)]
    assert fates == [
        (0, RecordFate.SUPERSEDED),
        (1, RecordFate.SUPERSEDED),
        (2, RecordFate.SUPERSEDED),
        (3, RecordFate.AWAITING_HORIZON),
        (4, RecordFate.KEPT),
        (5, RecordFate.KEPT),
    ]
    log.roll(now_ms=0)
    clean_pass(log, now_ms=0, first_dirty_offset=0, first_uncleanable_offset=6)  # stamps horizon 0 + 1 day
    day = 86_400_000
    assert [r.fate for r in record_fates(log, now_ms=day - 1) if r.offset == 3] == [RecordFate.AWAITING_HORIZON]
    assert [r.fate for r in record_fates(log, now_ms=day) if r.offset == 3] == [RecordFate.TOMBSTONE]


def test_fates_under_the_kip280_timestamp_strategy():
    """KIP-280 (not Kafka's behaviour): the later timestamp wins even at a lower offset; the log-end record stays."""
    log = compacted_log(compaction_strategy="timestamp")
    log.append([rec("k", "new", timestamp=2000)], now_ms=0)
    log.append([rec("k", "old", timestamp=1000)], now_ms=0)
    log.append([rec("k", "older", timestamp=500)], now_ms=0)
    fates = [r.fate for r in record_fates(log, now_ms=0)]
    assert fates == [RecordFate.KEPT, RecordFate.SUPERSEDED, RecordFate.KEPT]
    offset_fates = [r.fate for r in record_fates(log, now_ms=0, strategy=strategy_for(compacted_log().config))]
    assert offset_fates == [RecordFate.SUPERSEDED, RecordFate.SUPERSEDED, RecordFate.KEPT]
