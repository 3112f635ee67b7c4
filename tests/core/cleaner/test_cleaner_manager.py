"""The cleaner loop: iterations, back-off, throttled pass time, retention, uncleanable logs (spec 3, 9, 11)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kcompact_nb.core import BrokerConfig, KafkaModelError, KcompactError, PartitionLog, TopicConfig
from kcompact_nb.core.cleaner._cleaner_manager import CleanerManager, OffsetMapSpec
from kcompact_nb.core.cleaner._retention import delete_records
from kcompact_nb.record._encoders import EstimatingEncoder
from tests.conftest import compacted_log, offsets_in_log, rec


def two_segments(log: PartitionLog, keys: str = "abab", at: int = 0) -> PartitionLog:
    for key in keys:
        log.append([rec(key, timestamp=at)], now_ms=at)
    log.roll(now_ms=at)
    return log


def test_clean_once_cleans_then_nothing_is_eligible():
    log = two_segments(compacted_log())
    manager = CleanerManager(BrokerConfig())
    first = manager.clean_once([log], now_ms=0)
    assert first is not None and (first.name, first.end_offset) == ("t-0", 4)
    assert offsets_in_log(log) == [2, 3]
    assert manager.clean_once([log], now_ms=0) is None


def test_run_backs_off_when_idle_and_cleans_after_rolls():
    log = two_segments(compacted_log())
    manager = CleanerManager(BrokerConfig.from_properties({"log.cleaner.backoff.ms": 1000}))
    results = manager.run([log], from_ms=0, until_ms=5000)
    assert [(r.start_ms, r.end_offset) for r in results] == [(0, 4)]


def test_throttled_passes_take_simulated_time():
    """Spec 11: time = (map bytes + bytes read + bytes written) / log.cleaner.io.max.bytes.per.second."""
    broker = BrokerConfig.from_properties({"log.cleaner.io.max.bytes.per.second": 100.0})
    log = two_segments(
        PartitionLog("t", config=TopicConfig.from_properties({"cleanup.policy": "compact"}), broker=broker)
    )
    result = CleanerManager(broker).clean_once([log], now_ms=1000)
    assert result is not None
    assert (result.stats.map_bytes_read, result.stats.bytes_read, result.stats.bytes_written) == (316, 316, 158)
    assert (result.stats.elapsed_secs, result.stats.elapsed_index_secs, result.end_ms) == (7.9, 3.16, 8900)
    assert "0.0 MB of log processed in 7.9 seconds (0.0 MB/sec)." in result.log_line
    assert "Indexed 0.0 MB in 3.2 seconds (0.0 Mb/sec, 40.0% of total time)" in result.log_line


def test_disabled_cleaner_neither_cleans_nor_retains():
    log = two_segments(compacted_log(cleanup_policy="compact,delete", retention_ms=1))
    manager = CleanerManager(BrokerConfig.from_properties({"log.cleaner.enable": False}))
    assert manager.clean_once([log], now_ms=10**9) is None
    assert manager.run([log], from_ms=0, until_ms=10**6) == []
    assert offsets_in_log(log) == [0, 1, 2, 3]


def test_uncleanable_partitions_are_skipped_and_failures_mark_them():
    log = two_segments(compacted_log())
    manager = CleanerManager(BrokerConfig())
    manager.uncleanable.add("t-0")
    assert manager.clean_once([log], now_ms=0) is None and offsets_in_log(log) == [0, 1, 2, 3]
    manager.uncleanable.clear()
    other = compacted_log("u")
    other.append([rec("a"), rec("b")], now_ms=0)
    two_segments(other, keys="a")
    first = other.segments[0].batches[0]
    other.segments[0].batches[0] = replace(first, compression="gzip")  # must be rebuilt: "a" is superseded
    other.encoder = NoCodecs()
    before = [list(s.batches) for s in other.segments]
    assert manager.clean_once([other], now_ms=0) is None
    assert manager.uncleanable == {"u-0"}
    assert manager.failures[0].error == "no gzip encoder here"
    assert [list(s.batches) for s in other.segments] == before  # nothing lost
    assert other.cleaner_checkpoint == 0  # doneCleaning checkpoints the first dirty offset, as a real broker showed


def test_an_iteration_whose_pass_throws_runs_no_retention():
    """``cleanFilthiestLog``: the exception leaves it before ``deleteOldSegments``; the next iteration retains."""
    failing = two_segments(compacted_log("u"), keys="a")
    failing.append([rec("a"), rec("b")], now_ms=0)
    two_segments(failing, keys="a")
    first = failing.segments[0].batches[0]
    failing.segments[0].batches[0] = replace(first, compression="gzip")  # must be rebuilt, and cannot be
    failing.encoder = NoCodecs()
    old = compacted_log("v", cleanup_policy="compact,delete", retention_ms=1000, min_cleanable_dirty_ratio=1.0)
    two_segments(old, keys="xy")  # never eligible (a ratio is never above 1.0): retention alone touches it
    manager = CleanerManager(BrokerConfig())
    assert manager.clean_once([failing, old], now_ms=10_000) is None and manager.uncleanable == {"u-0"}
    assert old.log_start_offset == 0  # no retention in the iteration that threw
    assert manager.clean_once([failing, old], now_ms=10_000) is None
    assert old.log_start_offset == 2  # the next iteration (nothing to clean) deletes the expired segment


class NoCodecs(EstimatingEncoder):
    """An encoder whose codecs are all missing: the pass must fail before it replaces any segment."""

    def check_available(self, codec: str) -> None:
        raise KcompactError(f"no {codec} encoder here")


def test_clean_log_with_explicit_range_and_offset_map():
    log = two_segments(compacted_log(), keys="abcabc")
    manager = CleanerManager(BrokerConfig())
    result = manager.clean_log(log, now_ms=0, offset_map=OffsetMapSpec(slots=2, load_factor=1.0))
    assert result is not None and (result.end_offset, result.map_full) == (2, True)
    # the checkpoint (2) is mid-segment: ratio 0.5 is not above 0.5, so only a forced pass runs
    assert manager.clean_log(log, now_ms=0, offset_map=OffsetMapSpec(exact=True)) is None
    exact = OffsetMapSpec(exact=True)
    assert manager.clean_log(log, now_ms=0, first_uncleanable_offset=6, offset_map=exact, force=True) is not None
    assert offsets_in_log(log) == [3, 4, 5]
    with pytest.raises(KafkaModelError, match="needs slots, memory_bytes or exact"):
        OffsetMapSpec().build(24)


def test_clean_log_returns_none_when_not_eligible_unless_forced():
    log = two_segments(compacted_log())
    manager = CleanerManager(BrokerConfig())
    manager.clean_log(log, now_ms=0)
    assert manager.clean_log(log, now_ms=0) is None
    forced = manager.clean_log(log, now_ms=0, force=True, first_dirty_offset=0)
    assert forced is not None and forced.end_offset == 4


def test_compact_delete_retention_by_time_uses_the_cleaned_largest_timestamp():
    """Spec 9: retention.ms runs in the cleaner loop; segments older than it are deleted, log start moves."""
    log = compacted_log(cleanup_policy="compact,delete", retention_ms=1000, segment_bytes=160)
    for i, key in enumerate("abcdef"):
        log.append([rec(key, timestamp=i * 100)], now_ms=i * 100)
    assert [s.base_offset for s in log.segments] == [0, 2, 4]
    manager = CleanerManager(BrokerConfig())
    manager.clean_once([log], now_ms=1200)  # segment 0 (max ts 100) is past retention; segment 2 (300) is not
    assert ([s.base_offset for s in log.segments], log.log_start_offset) == ([2, 4], 2)
    manager.clean_once([log], now_ms=10**6)  # every segment, the active one too: an empty one is rolled first
    assert ([s.base_offset for s in log.segments], log.log_start_offset, log.log_end_offset) == ([6], 6, 6)


def test_compact_delete_retention_by_bytes():
    log = compacted_log(cleanup_policy="compact,delete", retention_bytes=200, segment_bytes=160)
    for key in "abcdef":
        log.append([rec(key)], now_ms=0)
    CleanerManager(BrokerConfig()).clean_once([log], now_ms=0)
    # 474 bytes in 3 segments of 158: excess 274 allows deleting one segment (274 - 158 >= 0), not two
    assert [s.base_offset for s in log.segments] == [2, 4]


def test_delete_records_needs_the_delete_policy_and_moves_the_log_start():
    manager = CleanerManager(BrokerConfig())
    compact = two_segments(compacted_log())
    with pytest.raises(KafkaModelError, match="can not be deleted due to the configured policy"):
        delete_records(compact, 2)
    both = two_segments(compacted_log(cleanup_policy="compact,delete", segment_bytes=160))
    with pytest.raises(KafkaModelError, match="larger than the high watermark 4"):
        delete_records(both, 5)
    delete_records(both, 3)
    manager.clean_once([both], now_ms=0)
    assert (both.log_start_offset, [s.base_offset for s in both.segments]) == (3, [2, 4])


def test_compact_only_retention_deletes_segments_below_the_log_start_offset():
    log = compacted_log(segment_bytes=160)
    for key in "abcdef":
        log.append([rec(key)], now_ms=0)
    log.log_start_offset = 4
    CleanerManager(BrokerConfig()).clean_once([log], now_ms=0)
    assert [s.base_offset for s in log.segments] == [4]


def test_producer_expiry_runs_on_its_check_interval():
    broker = BrokerConfig.from_properties(
        {"producer.id.expiration.ms": 1000, "producer.id.expiration.check.interval.ms": 600}
    )
    log = PartitionLog("t", config=TopicConfig.from_properties({"cleanup.policy": "compact"}), broker=broker)
    log.append([rec("a", timestamp=0)], now_ms=0, producer_id=5, producer_epoch=0)
    manager = CleanerManager(broker)
    manager.clean_once([log], now_ms=1100)  # check at 600: 600 - 0 < 1000, still alive
    assert 5 in log.producer_state.producers
    manager.clean_once([log], now_ms=1300)  # check at 1200: expired
    assert 5 not in log.producer_state.producers


def test_delayed_partitions_add_kafkas_second_log_line():
    log = compacted_log(min_cleanable_dirty_ratio=0.99, max_compaction_lag_ms=1000, segment_bytes=160)
    for at, key in [(100, "a"), (200, "b"), (300, "a"), (400, "c"), (500, "d")]:
        log.append([rec(key, timestamp=at)], now_ms=at)
    log.cleaner_checkpoint = 2
    result = CleanerManager(BrokerConfig()).clean_once([log], now_ms=1400)
    assert result is not None
    assert result.log_line.endswith("\tCleanable partitions: 1, Delayed partitions: 1, max delay: 100\n")


def test_producer_expiry_checks_start_one_interval_after_the_broker():
    """``PeriodicProducerExpirationCheck`` first runs one interval after start, then every interval."""
    broker = BrokerConfig.from_properties(
        {"producer.id.expiration.ms": 100, "producer.id.expiration.check.interval.ms": 600}
    )
    log = PartitionLog("t", config=TopicConfig.from_properties({"cleanup.policy": "compact"}), broker=broker)
    log.append([rec("a", timestamp=0)], now_ms=0, producer_id=5, producer_epoch=0)
    manager = CleanerManager(broker, started_ms=1000)
    manager.clean_once([log], now_ms=1500)  # no check yet: the first is at 1600
    assert 5 in log.producer_state.producers
    manager.clean_once([log], now_ms=1600)
    assert 5 not in log.producer_state.producers
