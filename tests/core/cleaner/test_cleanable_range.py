"""Cleanable range, ratio, eligibility and selection (spec 4-5), and the offset map's capacity (spec 6.1)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kcompact_nb import BrokerConfig, PartitionLog, TopicConfig, explain, filthiest
from kcompact_nb.core import log_to_clean
from kcompact_nb.core.cleaner import log_to_clean_over_time
from kcompact_nb.core.cleaner._cleaner_manager import CleanerManager
from kcompact_nb.core.cleaner._offset_map import BoundedOffsetMap
from tests.conftest import compacted_log, rec


def filled(log: PartitionLog, keys: str, *, at: int = 0) -> PartitionLog:
    for key in keys:
        log.append([rec(key, timestamp=at)], now_ms=at)
    return log


def test_never_cleaned_log_has_ratio_one_once_a_segment_rolls():
    """Spec 5 notes: clean bytes 0 -> ratio 1.0 with one non-active segment, duplicates or not."""
    log = filled(compacted_log(), "abc")
    assert (log_to_clean(log, now_ms=0).cleanable_bytes, log_to_clean(log, now_ms=0).eligible) == (0, False)
    log.roll(now_ms=0)
    ltc = log_to_clean(log, now_ms=0)
    assert (ltc.first_dirty_offset, ltc.first_uncleanable_offset, ltc.cleanable_ratio, ltc.eligible) == (
        0,
        3,
        1.0,
        True,
    )


@pytest.mark.parametrize(("ratio", "eligible"), [(0.49, True), (0.5, False), (0.0, True), (1.0, False)])
def test_eligibility_is_strictly_greater_than_min_cleanable_dirty_ratio(ratio, eligible):
    """Spec 5.4: 237 clean, 237 cleanable bytes (79-byte batches) -> 0.5, compared with a strict >."""
    log = filled(compacted_log(min_cleanable_dirty_ratio=ratio), "abc")
    log.roll(now_ms=0)
    log.cleaner_checkpoint = 3
    filled(log, "def")
    log.roll(now_ms=0)
    ltc = log_to_clean(log, now_ms=0)
    assert (ltc.clean_bytes, ltc.cleanable_bytes, ltc.cleanable_ratio, ltc.eligible) == (237, 237, 0.5, eligible)


def test_mid_segment_checkpoint_counts_its_segment_twice():
    """Spec 4.3 quirk: a checkpoint inside a segment puts that segment in clean and cleanable bytes."""
    log = filled(compacted_log(), "abcd")
    log.roll(now_ms=0)
    log.cleaner_checkpoint = 2
    ltc = log_to_clean(log, now_ms=0)
    assert (ltc.first_dirty_offset, ltc.clean_bytes, ltc.cleanable_bytes, ltc.cleanable_ratio) == (2, 316, 316, 0.5)


BELOW_START_WARNING = (
    "Resetting first dirty offset of t-0 to log start offset 3 since the checkpointed offset 1 is invalid."
)
BEYOND_END_WARNING = (
    "The last checkpoint dirty offset for partition t-0 is 9, which is larger than the log end offset 6. "
    "Resetting to the log start offset 0."
)


@pytest.mark.parametrize(
    ("policy", "checkpoint", "log_start", "expected_first_dirty", "reason", "warning"),
    [
        ("compact,delete", None, 0, 0, None, None),
        ("compact,delete", 2, 0, 2, None, None),
        ("compact,delete", 1, 3, 3, "checkpoint 1 is below the log start offset 3", None),
        ("compact", 1, 3, 3, "checkpoint 1 is below the log start offset 3", BELOW_START_WARNING),
        ("compact,delete", 9, 0, 0, "checkpoint 9 is beyond the log end offset 6", BEYOND_END_WARNING),
        ("compact", 9, 0, 0, "checkpoint 9 is beyond the log end offset 6", BEYOND_END_WARNING),
    ],
)
def test_checkpoint_validation(policy, checkpoint, log_start, expected_first_dirty, reason, warning):
    """Spec 4.1: an out-of-range checkpoint resets to the log start offset, with the WARN line
    LogCleanerManager.cleanableOffsets logs (none below the start of a compact,delete log)."""
    log = filled(compacted_log(cleanup_policy=policy), "abcdef")
    log.roll(now_ms=0)
    log.cleaner_checkpoint, log.log_start_offset = checkpoint, log_start
    ltc = log_to_clean(log, now_ms=0)
    assert (ltc.first_dirty_offset, ltc.checkpoint_reset, ltc.checkpoint_warning) == (
        expected_first_dirty,
        reason,
        warning,
    )
    if warning is not None:
        assert f"  Kafka's cleaner logs: WARN {warning}" in explain(log, now_ms=0).lines()


def test_open_transaction_blocks_its_segment_and_everything_after():
    """Spec 4.2: the LSO rounds down to its segment's base offset."""
    log = filled(compacted_log(segment_bytes=240), "abcd")  # 79-byte batches, 3 per segment
    log.append([rec("e")], now_ms=0, producer_id=1, producer_epoch=0, transactional=True)
    filled(log, "fgh")
    log.roll(now_ms=0)
    assert [s.base_offset for s in log.segments] == [0, 3, 6, 8]
    assert log.last_stable_offset == 4
    ltc = log_to_clean(log, now_ms=0)
    assert ltc.first_uncleanable_offset == 3
    log.append_end_txn_marker(1, 0, commit=True, now_ms=0)
    assert log_to_clean(log, now_ms=0).first_uncleanable_offset == 8


def test_min_compaction_lag_keeps_young_segments_dirty():
    """Spec 4.2: the first non-active segment with largest timestamp > now - lag bounds the range."""
    log = compacted_log(segment_bytes=160, min_compaction_lag_ms=1000)
    filled(log, "ab", at=0)
    filled(log, "cd", at=500)
    filled(log, "ef", at=900)
    assert [s.base_offset for s in log.segments] == [0, 2, 4]
    assert log_to_clean(log, now_ms=1400).first_uncleanable_offset == 2
    assert log_to_clean(log, now_ms=1500).first_uncleanable_offset == 4
    assert log_to_clean(log, now_ms=10**6).first_uncleanable_offset == 4  # never beyond the active segment


def test_max_compaction_lag_makes_a_log_eligible_below_the_ratio():
    """Spec 5.3-5.4 (KIP-354): overdue dirty segments make the log eligible whatever its ratio."""
    log = compacted_log(min_cleanable_dirty_ratio=0.99, max_compaction_lag_ms=1000, segment_bytes=160)
    filled(log, "ab", at=100)
    log.cleaner_checkpoint = 0
    filled(log, "ab", at=200)
    filled(log, "c", at=300)
    log.cleaner_checkpoint = 2
    assert log_to_clean(log, now_ms=1100).compaction_delay_ms == 0
    ltc = log_to_clean(log, now_ms=1300)
    assert (ltc.compaction_delay_ms, ltc.cleanable_ratio, ltc.eligible) == (100, 0.5, True)
    old = PartitionLog("t", config=log.config, broker=BrokerConfig.from_properties({"kafka.version": "2.2"}))
    filled(old, "ab", at=100)
    old.roll(now_ms=0)
    assert log_to_clean(old, now_ms=10**6).compaction_delay_ms == 0  # no max.compaction.lag.ms before 2.3


def test_filthiest_log_is_selected_and_ties_go_to_the_first_in_the_log_pool():
    """Spec 5: the highest ratio wins; of equals, the first in the broker's ``ConcurrentHashMap`` order.

    ``TopicPartition`` hash codes 1059 (b-0), 1090 (b-1), 1058 (a-0), 1060 (c-0) fall in bins 3, 2, 2
    and 4 of the 16-bin table, a-0 after b-1 in bin 2 (created later): so b-1 wins the tie with b-0.
    """

    def log(topic: str, partition: int, dirty_keys: str) -> PartitionLog:
        config = TopicConfig.from_properties({"cleanup.policy": "compact", "min.cleanable.dirty.ratio": 0.1})
        lg = PartitionLog(topic, partition, config=config)
        filled(lg, "abcd")
        lg.roll(now_ms=0)
        lg.cleaner_checkpoint = 4
        filled(lg, dirty_keys)
        lg.roll(now_ms=0)
        return lg

    logs = [log("b", 0, "xyz"), log("b", 1, "xyz"), log("a", 0, "x"), log("c", 0, "xy")]
    best, considered = CleanerManager(BrokerConfig()).grab_filthiest_log(logs, now_ms=0)
    assert best is not None and best.name == "b-1"
    assert [c.name for c in considered] == ["b-1", "a-0", "b-0", "c-0"]
    assert [round(c.cleanable_ratio, 4) for c in considered] == [0.4286, 0.2, 0.4286, 0.3333]
    assert filthiest(considered) is best
    busy, _ = CleanerManager(BrokerConfig()).grab_filthiest_log(logs, now_ms=0, in_progress={"b-1"})
    assert busy is not None and busy.name == "b-0"


@pytest.mark.parametrize(
    ("buffer", "threads", "slots", "max_keys"),
    [
        (134_217_728, 1, 5_592_405, 5_033_164),
        (134_217_728, 2, 2_796_202, 2_516_581),
        (134_217_728, 4, 1_398_101, 1_258_290),
        (4 * 2**31, 1, 89_478_485, 80_530_636),
    ],
)
def test_offset_map_capacity_table(buffer, threads, slots, max_keys):
    """Spec 6.1's table: 24-byte entries, memory capped at Int.MaxValue per thread, load factor 0.9."""
    broker = BrokerConfig.from_properties({"log.cleaner.dedupe.buffer.size": buffer, "log.cleaner.threads": threads})
    m = BoundedOffsetMap.for_broker(broker)
    assert (m.slots, m.max_entries) == (slots, max_keys)


def test_versioned_strategies_use_32_byte_entries():
    m = BoundedOffsetMap.for_broker(BrokerConfig(), entry_bytes=32)
    assert (m.slots, m.max_entries) == (4_194_304, 3_774_873)


@settings(max_examples=80, deadline=None)
@given(
    appends=st.lists(st.tuples(st.integers(0, 3_000), st.sampled_from("abcd"), st.booleans()), min_size=1, max_size=14),
    min_lag_ms=st.sampled_from([0, 500, 4_000]),
    max_lag_ms=st.sampled_from([1_000, 8_000, 2**62]),
    checkpoint=st.none() | st.integers(0, 16),
    times=st.lists(st.integers(-5_000, 60_000), min_size=1, max_size=10),
)
def test_a_log_to_clean_kept_over_time_answers_at_each_time_as_one_made_for_it(
    appends, min_lag_ms, max_lag_ms, checkpoint, times
):
    """log_to_clean_over_time reads a log once and is then asked at times in any order (the segment too young per
    min.compaction.lag.ms and the delay past max.compaction.lag.ms moving with the clock): every answer is the one
    made for that time alone."""
    assume(min_lag_ms <= max_lag_ms)  # a topic config refuses a minimum lag above the maximum
    log = compacted_log(min_compaction_lag_ms=min_lag_ms, max_compaction_lag_ms=max_lag_ms)
    at = 0
    for gap, key, roll in appends:
        at += gap
        log.append([rec(key, timestamp=at)], now_ms=at)
        if roll:
            log.roll(now_ms=at)
    log.cleaner_checkpoint = checkpoint
    kept = log_to_clean_over_time(log)
    assert [kept(t) for t in times] == [log_to_clean(log, now_ms=t) for t in times]
