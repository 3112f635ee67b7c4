"""Appends, rolls and offsets as a broker performs them (spec 2.3), table-driven where possible."""

from __future__ import annotations

import pytest

from kcompact_nb.core import (
    BrokerConfig,
    InvalidRecordError,
    KafkaModelError,
    KafkaVersion,
    NewRecord,
    PartitionLog,
    Record,
    RecordBatch,
    Segment,
    TimestampType,
    TopicConfig,
)
from tests.conftest import compacted_log, rec, segment_layout


def test_worked_example_rolls_every_12_batches(fruit_log):
    """Spec 13.1: 80-byte batches, segment.bytes 1000 -> segments of 12 batches (960 B)."""
    assert segment_layout(fruit_log) == [
        (0, 960, list(range(0, 12))),
        (12, 960, list(range(12, 24))),
        (24, 480, list(range(24, 30))),
    ]
    assert (fruit_log.log_start_offset, fruit_log.log_end_offset, fruit_log.high_watermark) == (0, 30, 30)


def test_worked_example_continues_with_a_roll_at_offset_36(fruit_log):
    for i in range(30, 37):
        info = fruit_log.append([rec(f"k{i % 3}", timestamp=0)], now_ms=0)
    assert info.rolled and info.segment_base_offset == 36
    assert [(s.base_offset, s.size_bytes) for s in fruit_log.segments] == [(0, 960), (12, 960), (24, 960), (36, 80)]


@pytest.mark.parametrize(
    ("segment_bytes", "batch_sizes", "expected_bases"),
    [
        (160, [80, 80, 80], [0, 2]),  # an append that exactly fills the segment does not roll
        (159, [80, 80, 80], [0, 1, 2]),
        (70, [80, 80], [0, 1]),  # an oversized batch still goes into a fresh segment
        (1000, [80] * 25, [0, 12, 24]),
    ],
)
def test_size_roll_points(segment_bytes, batch_sizes, expected_bases):
    log = compacted_log(segment_bytes=segment_bytes)
    for i, size in enumerate(batch_sizes):
        assert size == 80
        log.append([rec(f"k{i % 3}", timestamp=0)], now_ms=0)
    assert [s.base_offset for s in log.segments] == expected_bases


@pytest.mark.parametrize(
    ("segment_ms", "max_lag_ms", "policy", "timestamps", "expected_bases"),
    [
        # waited = record timestamp - first batch timestamp; roll only when strictly greater
        (100, None, "compact", [0, 100, 101], [0, 2]),
        (100, None, "compact", [0, 50, 150, 201], [0, 2]),
        # KIP-354: max.compaction.lag.ms caps the roll interval of compacted topics only
        (1000, 100, "compact", [0, 100, 101], [0, 2]),
        (1000, 100, "delete", [0, 100, 101], [0]),
        # rolls follow record timestamps, not the wall clock
        (100, None, "compact", [0, 0, 0], [0]),
    ],
)
def test_time_roll_points(segment_ms, max_lag_ms, policy, timestamps, expected_bases):
    props = {"cleanup.policy": policy, "segment.ms": segment_ms}
    if max_lag_ms is not None:
        props["max.compaction.lag.ms"] = max_lag_ms
    log = PartitionLog("t", config=TopicConfig.from_properties(props))
    for i, ts in enumerate(timestamps):
        log.append([rec(f"k{i}", timestamp=ts)], now_ms=10_000_000)
    assert [s.base_offset for s in log.segments] == expected_bases


@pytest.mark.parametrize(("kafka_version", "expected_bases"), [("2.2.2", [0]), ("2.3.0", [0, 2])])
def test_max_compaction_lag_caps_time_rolls_from_kafka_2_3(kafka_version, expected_bases):
    """KIP-354 (spec 2.3 rule 2, 15): the cap came with max.compaction.lag.ms in 2.3; before, segment.ms alone."""
    config = TopicConfig.from_properties(
        {"cleanup.policy": "compact", "segment.ms": 1000, "max.compaction.lag.ms": 100}
    )
    log = PartitionLog("t", config=config, broker=BrokerConfig.from_properties({"kafka.version": kafka_version}))
    for i, ts in enumerate([0, 100, 101]):
        log.append([rec(f"k{i}", timestamp=ts)], now_ms=10_000_000)
    assert [s.base_offset for s in log.segments] == expected_bases


def test_time_roll_ignores_the_wall_clock_when_nothing_is_produced():
    """Spec 12.2: the active segment never rolls without appends."""
    log = compacted_log(segment_ms=100)
    log.append([rec("a", timestamp=0)], now_ms=0)
    log.append([rec("b", timestamp=50)], now_ms=10**9)
    assert [s.base_offset for s in log.segments] == [0]


def test_segment_jitter_is_deterministic_and_bounded():
    log = compacted_log(segment_ms=1000, segment_jitter_ms=400)
    jitters = []
    for i in range(40):
        log.append([rec(f"k{i}", timestamp=i * 700)], now_ms=i * 700)
        jitters.append(log.active_segment.roll_jitter_ms)
    again = compacted_log(segment_ms=1000, segment_jitter_ms=400)
    for i in range(40):
        again.append([rec(f"k{i}", timestamp=i * 700)], now_ms=i * 700)
    assert segment_layout(log) == segment_layout(again)
    assert all(0 <= j < 400 for j in jitters) and len(set(jitters)) > 1


@pytest.mark.parametrize(
    ("segment_index_bytes", "timestamps", "expected_bases", "offset_entries", "time_entries"),
    [
        # 24 bytes: 3 offset entries (8 B) and 2 time entries (12 B), the time index full at 1 (its last slot is
        # kept for the roll's entry); equal timestamps add one time entry only, and that fills it
        (24, [0] * 7, [0, 2, 4, 6], [1, 1, 1, 0], [1, 1, 1, 0]),
        # 16 bytes: one time entry, full from the start: every append rolls
        (16, list(range(7)), [0, 1, 2, 3, 4, 5, 6], [0] * 7, [1, 1, 1, 1, 1, 1, 0]),
        # 64 bytes: 8 offset entries, 5 time entries: the time index is full at 4
        (64, list(range(12)), [0, 5, 10], [4, 4, 1], [4, 4, 1]),
    ],
)
def test_roll_when_an_index_is_full(segment_index_bytes, timestamps, expected_bases, offset_entries, time_entries):
    """index.interval.bytes 0: every append but a segment's first adds an index entry (spec 2.2, 2.3 rule 3); a
    time index is full one entry early (``TimeIndex.isFull``). The segments are Kafka 4.4.0's for the same appends."""
    log = compacted_log(segment_index_bytes=segment_index_bytes, index_interval_bytes=0)
    for i, ts in enumerate(timestamps):
        log.append([rec(f"k{i}", timestamp=ts)], now_ms=0)
    assert [s.base_offset for s in log.segments] == expected_bases
    assert [s.offset_index_entries for s in log.segments] == offset_entries
    assert [s.time_index_entries for s in log.segments] == time_entries


def test_index_entries_follow_index_interval_bytes():
    log = compacted_log(index_interval_bytes=200)
    for i in range(11):
        log.append([rec(f"k{i}", timestamp=i)], now_ms=0)
    segment = log.active_segment
    # 80-byte appends: an entry once more than 200 bytes went in since the last, i.e. before appends 4, 7 and 10
    assert (segment.offset_index_entries, segment.time_index_entries) == (3, 3)
    log.roll(now_ms=0)
    assert segment.time_index_entries == 4  # onBecomeInactiveSegment adds the grown max timestamp 10
    assert segment.offset_index_bytes == 24 and segment.time_index_bytes == 48


def test_roll_when_relative_offsets_overflow_32_bits():
    log = compacted_log()
    log.append([rec("a", offset=0)], now_ms=0)
    info = log.append([rec("b", offset=2**31)], now_ms=0)
    assert info.rolled and [s.base_offset for s in log.segments] == [0, 2**31]


def test_follower_style_appends_leave_offset_gaps():
    log = compacted_log(segment_bytes=160)
    log.append([rec("a", offset=5), rec("b", offset=9)], now_ms=0)  # 97 bytes
    info = log.append([rec("c", offset=20)], now_ms=0)  # 79 more would exceed 160
    assert (info.first_offset, info.last_offset, log.log_end_offset) == (20, 20, 21)
    assert [[r.offset for r in b.records] for b in log.batches()] == [[5, 9], [20]]
    # the segment rolled for a follower append starts at the first incoming offset, not at the log end
    assert info.rolled and [(s.base_offset, s.size_bytes) for s in log.segments] == [(0, 97), (20, 79)]


@pytest.mark.parametrize(
    "records",
    [
        [rec("a", offset=1)],  # below the log end offset 2
        [rec("a", offset=5), rec("b")],  # mixed explicit and assigned
        [rec("a", offset=6), rec("b", offset=6)],  # not increasing
    ],
)
def test_bad_explicit_offsets_are_rejected(records):
    log = compacted_log()
    log.append([rec("x"), rec("y")], now_ms=0)
    with pytest.raises(KafkaModelError):
        log.append(records, now_ms=0)
    assert log.log_end_offset == 2


def test_keyless_records_are_rejected_on_compacted_topics_with_kafkas_error():
    log = compacted_log()
    with pytest.raises(
        InvalidRecordError, match=r"^Compacted topic cannot accept message without key in topic partition t-0\.$"
    ):
        log.append([rec("a"), rec(None)], now_ms=0)
    assert log.log_end_offset == 0
    plain = PartitionLog("plain")
    plain.append([rec(None)], now_ms=0)
    assert plain.log_end_offset == 1


def test_tombstones_are_accepted_on_compacted_topics():
    log = compacted_log()
    log.append([rec("a", None)], now_ms=0)
    assert next(log.records())[1].is_tombstone


@pytest.mark.parametrize("via", ["topic", "append"])
def test_log_append_time_stamps_the_batch_with_the_broker_clock(via):
    props = {"cleanup.policy": "compact"}
    if via == "topic":
        props["message.timestamp.type"] = "LogAppendTime"
    log = PartitionLog("t", config=TopicConfig.from_properties(props))
    kind = TimestampType.LOG_APPEND_TIME if via == "append" else None
    log.append([rec("a", timestamp=5), rec("b", timestamp=7)], now_ms=1_000, timestamp_type=kind)
    batch = next(log.batches())
    assert batch.timestamp_type is TimestampType.LOG_APPEND_TIME
    assert batch.max_timestamp == 1_000 and log.active_segment.largest_timestamp == 1_000
    assert [batch.read_timestamp(r) for r in batch.records] == [1_000, 1_000]
    assert [r.timestamp for r in batch.records] == [5, 7]


def test_timestamps_default_to_the_append_time():
    log = compacted_log()
    log.append([rec("a")], now_ms=4_242)
    assert next(log.records())[1].timestamp == 4_242


def test_transactions_move_the_last_stable_offset_and_markers_close_them():
    log = compacted_log()
    log.append([rec("a")], now_ms=0)
    log.append([rec("b"), rec("c")], now_ms=0, producer_id=1, producer_epoch=0, transactional=True)
    log.append([rec("d")], now_ms=0, producer_id=2, producer_epoch=0, transactional=True)
    assert log.last_stable_offset == 1
    log.append_end_txn_marker(1, 0, commit=True, now_ms=0)
    assert log.last_stable_offset == 3
    log.append_end_txn_marker(2, 0, commit=False, now_ms=0)
    assert log.last_stable_offset == log.log_end_offset == 6
    aborted = log.active_segment.aborted_transactions
    assert [(t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset) for t in aborted] == [(2, 3, 5, 6)]


def test_abort_records_the_lso_of_other_open_transactions():
    log = compacted_log()
    log.append([rec("a")], now_ms=0, producer_id=1, producer_epoch=0, transactional=True)
    log.append([rec("b")], now_ms=0, producer_id=2, producer_epoch=0, transactional=True)
    log.append_end_txn_marker(2, 0, commit=False, now_ms=0)
    (entry,) = log.active_segment.aborted_transactions
    assert (entry.first_offset, entry.last_offset, entry.last_stable_offset) == (1, 2, 0)
    assert log.last_stable_offset == 0


def test_marker_without_open_transaction_covers_only_itself():
    log = compacted_log()
    log.append_end_txn_marker(9, 0, commit=False, now_ms=0)
    (entry,) = log.active_segment.aborted_transactions
    assert (entry.first_offset, entry.last_offset, entry.last_stable_offset) == (0, 0, 1)


def test_producer_state_tracks_last_batches_and_rejects_old_epochs():
    log = compacted_log()
    log.append([rec("a"), rec("b")], now_ms=0, producer_id=3, producer_epoch=1, base_sequence=0)
    log.append([rec("c")], now_ms=5, producer_id=3, producer_epoch=1, base_sequence=2)
    entry = log.producer_state.producers[3]
    assert (entry.last_data_offset, entry.last_sequence, entry.last_timestamp) == (2, 2, 5)
    with pytest.raises(KafkaModelError, match="smaller than the last seen epoch 1"):
        log.append([rec("d")], now_ms=0, producer_id=3, producer_epoch=0)
    assert log.producer_state.remove_expired_producers(5 + 86_400_000, 86_400_000) == [3]


def test_transactional_batches_need_a_producer_id():
    with pytest.raises(KafkaModelError, match="needs a producer_id"):
        compacted_log().append([rec("a")], now_ms=0, transactional=True)


def test_forced_roll_and_roll_at_an_expected_offset():
    log = compacted_log()
    log.append([rec("a")], now_ms=0)
    log.roll(now_ms=1)
    log.roll(now_ms=2)  # the empty active segment at the same base is replaced, not duplicated
    assert [s.base_offset for s in log.segments] == [0, 1]
    log.roll(now_ms=3, expected_next_offset=10)
    assert [s.base_offset for s in log.segments] == [0, 1, 10]


def test_high_watermark_can_be_held_below_the_log_end():
    log = compacted_log()
    log.append([rec("a"), rec("b")], now_ms=0)
    log.set_high_watermark(1)
    assert (log.high_watermark, log.last_stable_offset) == (1, 1)
    with pytest.raises(KafkaModelError):
        log.set_high_watermark(3)
    log.set_high_watermark(None)
    assert log.high_watermark == 2


def test_new_record_defaults():
    r = NewRecord(b"k", None)
    assert (r.timestamp, r.headers, r.offset) == (None, (), None)


def test_append_below_a_segment_rolled_ahead_fails_as_in_kafka():
    """``LocalLog.roll``: a new segment may not start below the active segment's base offset."""
    log = compacted_log()
    log.append([rec("a")], now_ms=0)
    log.roll(now_ms=0, expected_next_offset=10)
    with pytest.raises(KafkaModelError, match="lower than start offset of the active segment 10"):
        log.append([rec("b")], now_ms=0)
    assert log.append([rec("b", offset=10)], now_ms=0).segment_base_offset == 10


def _batches(count: int, first_timestamp: int) -> list[RecordBatch]:
    """``count`` one-record 80-byte batches at offsets 0, 1, ... with timestamps growing by 10."""
    return [RecordBatch.build([Record(i, first_timestamp + 10 * i, b"k%d" % i, b"0123456789")]) for i in range(count)]


@pytest.mark.parametrize(
    ("kafka_version", "per_batch"),
    [("3.9.0", False), ("3.9.1", True), ("3.9.2", True), ("4.0.0", False), ("4.0.1", True), ("4.4.0", True)],
)
def test_kafka_806_index_entries_per_batch_from_3_9_1_and_4_0_1(kafka_version, per_batch):
    """KAFKA-806 (spec 2.2, 15): ``LogSegment.append`` checks index.interval.bytes before every batch of a record
    set since 3.9.1 and 4.0.1 (as the cleaner's multi-batch appends show), before only once per append earlier.
    The first batch's largest timestamp starts the roll clock then, the whole append's before."""
    assert KafkaVersion.parse(kafka_version).indexes_each_batch is per_batch
    segment = Segment(0, created_ms=0, index_interval_bytes=100, indexes_each_batch=per_batch)
    segment.append(_batches(6, first_timestamp=1_000), now_ms=0)
    segment.append([RecordBatch.build([Record(6, 2_000, b"k6", b"0123456789")])], now_ms=0)
    sizes = [b.size_bytes for b in segment.batches]
    assert sizes == [80] * 7
    if per_batch:
        # more than 100 bytes since the last entry before batches 2 and 4 (160 bytes each time), and before 6
        assert segment.offset_index == [(2, 160), (4, 320), (6, 480)]
        assert segment.rolling_based_timestamp == 1_000
        assert segment.time_index_entries == 3
    else:
        # the first append (480 bytes) gets no entry, being the segment's first; the second one does
        assert segment.offset_index == [(6, 480)]
        assert segment.rolling_based_timestamp == 1_050
        assert segment.time_index_entries == 1
    assert segment.size_bytes == 560 and segment.max_timestamp_so_far == 2_000


TIES = [(0, 400), (1, 400), (2, 400)]
RISING = [(0, 360), (1, 380), (2, 400)]


@pytest.mark.parametrize(
    ("kafka_version", "timestamps", "compression", "append_time", "held_at"),
    [
        ("2.0.1", TIES, "none", False, 20),
        ("3.6.2", TIES, "none", False, 20),
        ("3.7.0", TIES, "none", False, 22),
        ("4.4.0", TIES, "none", False, 22),
        ("2.8.2", [(0, 360), (1, 400), (2, 400)], "none", False, 21),
        ("2.8.2", RISING, "none", False, 22),
        ("2.8.2", TIES, "gzip", False, 22),
        ("2.8.2", TIES, "none", True, 22),
    ],
)
def test_a_produced_batch_is_time_indexed_at_the_offset_logvalidator_reports(
    kafka_version, timestamps, compression, append_time, held_at
):
    """Spec 2.2: ``LogSegment.append`` indexes an append's largest timestamp at the ``shallowOffsetOfMaxTimestamp``
    ``LogValidator`` reports. Before 3.7 (apache/kafka#14697), ``assignOffsetsNonCompressed`` reported the first
    record holding the batch's largest timestamp (a record is taken when its timestamp is strictly above the largest
    so far); compressed batches, ``LogAppendTime`` and 3.7 on report the batch's last offset. Kafka 2.0.1-2.8.2 wrote
    (400 ms, 20) for three keyless records at 20-22 that share one timestamp (workload
    ``rule-b-8keys-3keyless-last``), 3.7.2 (400 ms, 22); the model wrote 22 for all."""
    broker = BrokerConfig.from_properties({"kafka.version": kafka_version})
    log = PartitionLog("t", broker=broker, config=TopicConfig.from_properties({"index.interval.bytes": 1}))
    log.append([rec("a", offset=19, timestamp=100)], now_ms=0)
    records = [rec(f"k{i}", timestamp=ts, offset=20 + i) for i, ts in timestamps]
    log.append(records, now_ms=500, compression=compression, timestamp_type="LogAppendTime" if append_time else None)
    log.roll(now_ms=500)
    expected = 500 if append_time else 400
    assert log.segments[0].time_index == [(expected, held_at)]
