"""One cleaning pass, rule by rule (spec 6-8, 10, 13.1); whole logs in, whole logs out."""

from __future__ import annotations

import pytest

from kcompact_nb import BrokerConfig, PartitionLog, TopicConfig
from kcompact_nb.core import clean_pass, log_line_note, log_to_clean
from kcompact_nb.core.cleaner._offset_map import BoundedOffsetMap, ExactOffsetMap
from kcompact_nb.io.files import segment_indexes
from tests.conftest import compacted_log, keys_in_log, offsets_in_log, rec, segment_layout


def one_pass(log: PartitionLog, now_ms: int = 0, offset_map=None, decisions=None):
    ltc = log_to_clean(log, now_ms=now_ms)
    return clean_pass(
        log,
        now_ms=now_ms,
        first_dirty_offset=ltc.first_dirty_offset,
        first_uncleanable_offset=ltc.first_uncleanable_offset,
        cleanable_ratio=ltc.cleanable_ratio,
        offset_map=offset_map,
        decisions=decisions,
    )


def test_worked_example_first_pass(fruit_log):
    """Spec 13.1 pass 1: S0 becomes a 0-byte segment, S12 keeps 21-23, checkpoint 24."""
    result = one_pass(fruit_log)
    assert (result.first_dirty_offset, result.first_uncleanable_offset, result.end_offset) == (0, 24, 24)
    assert result.cleanable_ratio == 1.0
    assert result.groups == ((0,), (12,))
    assert segment_layout(fruit_log) == [(0, 0, []), (12, 240, [21, 22, 23]), (24, 480, list(range(24, 30)))]
    assert fruit_log.cleaner_checkpoint == 24
    stats = result.stats.counters()
    assert stats == {
        "bytes_read": 1920,
        "bytes_written": 240,
        "messages_read": 24,
        "messages_written": 3,
        "map_bytes_read": 1920,
        "map_messages_read": 24,
        "invalid_messages_read": 0,
        "buffer_utilization": 3 / 5_592_405,
    }


def test_worked_example_log_line(fruit_log):
    """Spec 10: Kafka's INFO message, with an unthrottled (0 s) simulated pass."""
    assert one_pass(fruit_log).log_line.splitlines() == [
        "",
        "\tLog cleaner thread 0 cleaned log t-0 (dirty section = [0, 24])",
        "\t0.0 MB of log processed in 0.0 seconds (Infinity MB/sec).",
        "\tIndexed 0.0 MB in 0.0 seconds (Infinity Mb/sec, NaN% of total time)",
        "\tBuffer utilization: 0.0%",
        "\tCleaned 0.0 MB in 0.0 seconds (Infinity Mb/sec, NaN% of total time)",
        "\tStart size: 0.0 MB (24 messages)",
        "\tEnd size: 0.0 MB (3 messages)",
        "\t87.5% size reduction (87.5% fewer messages)",
    ]


def test_a_pass_of_no_elapsed_time_has_its_infinity_and_nan_explained(fruit_log):
    """Kafka divides by the elapsed time (spec 10): a simulated pass takes none, and every view of its line says so."""
    note = log_line_note(one_pass(fruit_log).log_line)
    assert note is not None and "Infinity MB/sec and NaN% of total time" in note


def test_a_throttled_pass_reads_as_rates_with_nothing_to_explain(fruit_log):
    """``log.cleaner.io.max.bytes.per.second`` gives the pass an elapsed time: finite rates, no note."""
    fruit_log.broker = BrokerConfig.from_properties({"log.cleaner.io.max.bytes.per.second": "1000"})
    line = one_pass(fruit_log).log_line
    assert "Infinity" not in line and "NaN" not in line
    # the map's 1,920 bytes read, the pass's 1,920 read and 240 written, at 1,000 bytes a second
    assert "\t0.0 MB of log processed in 4.1 seconds (0.0 MB/sec)." in line.splitlines()
    assert log_line_note(line) is None


@pytest.mark.parametrize(("version", "section"), [("2.5.1", "[0, 0]"), ("2.6.0", "[0, 24]")])
def test_before_2_6_the_log_line_repeats_the_first_dirty_offset(fruit_log, version, section):
    """apache/kafka#8435 (2.6.0): ``recordStats`` was given the end offset before the pass set it. Only the line
    changed: the pass still ends at 24 (spec 10, 15)."""
    fruit_log.broker = BrokerConfig.from_properties({"kafka.version": version})
    result = one_pass(fruit_log)
    assert result.log_line.splitlines()[1] == f"\tLog cleaner thread 0 cleaned log t-0 (dirty section = {section})"
    assert (result.end_offset, fruit_log.cleaner_checkpoint) == (24, 24)
    assert segment_layout(fruit_log) == [(0, 0, []), (12, 240, [21, 22, 23]), (24, 480, list(range(24, 30)))]


def test_worked_example_second_pass_merges_the_clean_prefix(fruit_log):
    """Spec 13.1 pass 2: groups {S0, S12} and {S24}; batch 23 is no longer at the uncleanable boundary."""
    one_pass(fruit_log)
    for i in range(30, 37):
        fruit_log.append([rec(f"k{i % 3}", timestamp=0)], now_ms=0)
    ltc = log_to_clean(fruit_log, now_ms=0)
    assert (ltc.clean_bytes, ltc.cleanable_bytes, ltc.cleanable_ratio) == (240, 960, 0.8)
    result = one_pass(fruit_log)
    assert result.groups == ((0, 12), (24,))
    assert segment_layout(fruit_log) == [(0, 0, []), (24, 240, [33, 34, 35]), (36, 80, [36])]
    s = result.stats
    assert (s.bytes_read, s.messages_read, s.bytes_written, s.messages_written) == (1200, 15, 240, 3)
    assert "80.0% size reduction" in result.log_line


def test_tombstone_is_stamped_then_dropped_at_its_horizon():
    """Spec 7.4: pass N keeps the tombstone and stamps now + delete.retention.ms; a pass at the horizon drops it."""
    log = compacted_log(segment_bytes=1000, delete_retention_ms=1000)
    log.append([rec("a", timestamp=0)], now_ms=0)
    log.append([rec("b", timestamp=0)], now_ms=0)
    log.append([rec("a", None, timestamp=0)], now_ms=0)
    log.append([rec("c", timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    log.append([rec("z", timestamp=0)], now_ms=0)
    one_pass(log, now_ms=60_000)
    tombstone = [b for b in log.batches() if b.base_offset == 2][0]
    assert tombstone.delete_horizon_ms == 61_000 and tombstone.base_timestamp == 61_000
    # timestamp delta -61,000 is a 3-byte varlong: the 8-byte tombstone record grows to 10 bytes
    assert tombstone.size_bytes == 61 + 10
    assert offsets_in_log(log) == [1, 2, 3, 4]
    log.roll(now_ms=60_000)
    log.append([rec("y", timestamp=60_000)], now_ms=60_000)
    one_pass(log, now_ms=60_999)  # before the horizon: the tombstone, now in the clean prefix, stays
    assert offsets_in_log(log) == [1, 2, 3, 4, 5]
    log.roll(now_ms=60_999)
    log.append([rec("x", timestamp=61_000)], now_ms=61_000)
    one_pass(log, now_ms=61_000)
    assert offsets_in_log(log) == [1, 3, 4, 5, 6]
    assert keys_in_log(log) == ["b", "c", "z", "y", "x"]


def test_superseded_tombstone_goes_without_a_horizon():
    log = compacted_log()
    log.append([rec("a", None)], now_ms=0)
    log.append([rec("a", "v2")], now_ms=0)
    log.append([rec("b")], now_ms=0)
    log.roll(now_ms=0)
    one_pass(log)
    assert offsets_in_log(log) == [1, 2]


def test_partial_pass_stops_where_the_map_fills():
    """Spec 6.3-6.4: a 3-key map; the 4th distinct key stops indexing, the end offset lands mid-segment."""
    log = compacted_log()
    for key in ["a", "b", "a", "c", "d", "b", "e", "a"]:
        log.append([rec(key)], now_ms=0)
    log.roll(now_ms=0)
    log.append([rec("z")], now_ms=0)
    small = BoundedOffsetMap(slots=4, load_factor=0.9)  # int(4 * 0.9) = 3 keys
    result = one_pass(log, offset_map=small)
    # a, b, c indexed (offsets 0-3); "d" at 4 finds the map full: latest offset 3, end offset 4
    assert (result.end_offset, result.map_full, small.size) == (4, True, 3)
    # 0 (a) superseded by 2; offsets above 3 are kept unconditionally
    assert offsets_in_log(log) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert log.cleaner_checkpoint == 4
    assert result.stats.map_messages_read == 4 and result.stats.buffer_utilization == 3 / 4
    # the next pass indexes from 4: d, b, e (a at 7 fills the map again)
    second = one_pass(log, offset_map=BoundedOffsetMap(slots=4, load_factor=0.9))
    assert (second.first_dirty_offset, second.end_offset) == (4, 7)
    assert offsets_in_log(log) == [2, 3, 4, 5, 6, 7, 8]


def test_map_full_check_applies_even_to_keys_already_in_the_map():
    """Spec 6.3: "full" triggers before any put once the map holds maxEntries keys."""
    log = compacted_log()
    for key in ["a", "b", "a", "b"]:
        log.append([rec(key)], now_ms=0)
    log.roll(now_ms=0)
    result = one_pass(log, offset_map=BoundedOffsetMap(slots=2, load_factor=1.0))
    assert (result.end_offset, result.map_full) == (2, True)
    assert offsets_in_log(log) == [0, 1, 2, 3]


def test_keyless_records_are_dropped_and_counted():
    """Spec 7.4 and 12.12: a topic switched from delete to compact."""
    log = PartitionLog("t", config=TopicConfig.from_properties({"cleanup.policy": "delete"}))
    log.append([rec(None), rec("a"), rec(None)], now_ms=0)
    log.append([rec("b")], now_ms=0)
    log.config = log.config.with_properties({"cleanup.policy": "compact"})
    log.roll(now_ms=0)
    result = one_pass(log, offset_map=ExactOffsetMap())
    assert offsets_in_log(log) == [1, 3]
    assert result.stats.invalid_messages_read == 2
    assert [b.size_bytes for b in log.batches()] == [61 + 18, 61 + 18]  # "a" rebuilt alone; "b" untouched


def test_rebuilt_batch_keeps_base_and_last_offset_and_recomputes_deltas():
    """Spec 7.5: same baseOffset and lastOffsetDelta; base timestamp = first kept record's."""
    log = compacted_log()
    log.append([rec("a", timestamp=5), rec("b", timestamp=7), rec("a", timestamp=9)], now_ms=0)
    log.roll(now_ms=0)
    one_pass(log)
    (batch,) = log.batches()
    assert (batch.base_offset, batch.last_offset, [r.offset for r in batch.records]) == (0, 2, [1, 2])
    assert (batch.base_timestamp, batch.max_timestamp) == (7, 9)
    assert batch.size_bytes == 61 + 18 + 18  # 1-byte key, 10-byte value: 18-byte records


def test_untouched_batches_are_the_same_objects():
    log = compacted_log()
    log.append([rec("a")], now_ms=0)
    log.append([rec("b")], now_ms=0)
    before = list(log.batches())
    log.roll(now_ms=0)
    one_pass(log)
    assert all(a is b for a, b in zip(before, log.batches(), strict=False))


@pytest.mark.parametrize(("kafka_version", "per_batch"), [("4.4.0", True), ("3.9.2", True), ("3.9.0", False)])
def test_a_pass_starting_inside_a_cleaned_segment_reads_from_its_index_entry(kafka_version, per_batch):
    """KAFKA-806 (spec 2.2, 15): a cleaned segment is written in multi-batch appends, which get an index entry
    per batch since 3.9.1 and 4.0.1 (the live broker's cleaned segments: tests/broker/test_index_files_kafka.py);
    the next pass, whose first dirty offset lies inside it, starts its map where the index points (spec 6.2)."""
    log = PartitionLog(
        "t",
        config=TopicConfig.from_properties({"cleanup.policy": "compact", "index.interval.bytes": 100}),
        broker=BrokerConfig.from_properties({"kafka.version": kafka_version}),
    )
    for key in "abcdefgh":  # 79-byte batches, one per produce
        log.append([rec(key)], now_ms=0)
    log.roll(now_ms=0)
    log.append([rec("z")], now_ms=0)
    first = one_pass(log, offset_map=BoundedOffsetMap(slots=5, load_factor=1.0))
    assert (first.end_offset, first.map_full) == (5, True)
    cleaned = log.segments[0]
    assert offsets_in_log(log) == [0, 1, 2, 3, 4, 5, 6, 7, 8]  # every key distinct: all kept, rewritten in one append
    expected = segment_indexes(cleaned.batches, index_interval_bytes=100, inactive=True).offset_index
    if per_batch:
        assert cleaned.offset_index == [(e.offset, e.position) for e in expected] == [(2, 158), (4, 316), (6, 474)]
    else:
        assert cleaned.offset_index == []  # one append, the segment's first: no entry
    second = one_pass(log, offset_map=BoundedOffsetMap(slots=5, load_factor=1.0))
    assert second.first_dirty_offset == 5
    # from the entry (4, 316) to the segment's end (632 bytes), or from its start without an entry
    assert second.stats.map_bytes_read == (316 if per_batch else 632)
