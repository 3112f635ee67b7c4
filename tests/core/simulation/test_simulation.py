"""Simulation: the broker-level API notebooks and scenarios drive (spec 1, 2, 4.1, 9)."""

from __future__ import annotations

import pytest

from kcompact_nb.core import BrokerConfig, KafkaModelError, NewRecord, Simulation


def test_topics_default_to_compact_over_broker_defaults():
    sim = Simulation(
        {"log.segment.bytes": 2000, "log.cleaner.min.cleanable.ratio": 0.2, "kafka.version": "3.9.2"},
        topics={"a": {}, "b": {"segment.bytes": 500}},
    )
    assert sim.topics["a"].cleanup_policy == ("compact",)
    assert (sim.topics["a"].segment_bytes, sim.topics["b"].segment_bytes) == (2000, 500)
    assert sim.log("b").config.min_cleanable_dirty_ratio == 0.2
    assert sim.log("a").broker is sim.broker


def test_append_tuples_encode_utf8_and_use_the_clock():
    sim = Simulation(start_ms=1_000, topics={"fruit-prices": {}})
    info = sim.append(None, [("grape", "2.69"), ("grape", None, 5), NewRecord(b"lime", b"0.49")])
    records = [r for _, r in sim.log().records()]
    assert (info.first_offset, info.last_offset, info.rolled) == (0, 2, False)
    assert [(r.key, r.value, r.timestamp) for r in records] == [
        (b"grape", b"2.69", 1_000),
        (b"grape", None, 5),
        (b"lime", b"0.49", 1_000),
    ]
    assert len(list(sim.log().batches())) == 1


def test_keyless_append_is_rejected_on_a_compacted_topic():
    sim = Simulation(topics={"t": {}})
    with pytest.raises(KafkaModelError, match="without key"):
        sim.append("t", [(None, "v")])


def test_topic_config_change_reaches_every_partition_and_broker_change_reaches_non_overrides():
    sim = Simulation({"kafka.version": "3.9.2"}, topics={"t": {"segment.bytes": 700}})
    sim.create_topic("u", partitions=2)
    sim.set_config({"min.cleanable.dirty.ratio": 0.1}, topic="u")
    assert [sim.log("u", p).config.min_cleanable_dirty_ratio for p in (0, 1)] == [0.1, 0.1]
    sim.set_config({"log.segment.bytes": 900, "log.cleaner.backoff.ms": 10})
    assert (sim.log("t").config.segment_bytes, sim.log("u", 1).config.segment_bytes) == (700, 900)
    assert sim.log("u", 1).broker.log_cleaner_backoff_ms == 10
    assert sim.log("u", 1).config.min_cleanable_dirty_ratio == 0.1


def test_roll_time_and_offsets():
    sim = Simulation(topics={"t": {}})
    sim.append("t", [("k", "v")])
    assert sim.roll("t", base_offset=5).base_offset == 5
    sim.advance(10)
    sim.set_time(20)
    with pytest.raises(KafkaModelError, match="backwards"):
        sim.set_time(19)
    info = sim.append("t", [NewRecord(b"k", b"w", offset=6)])
    assert (info.first_offset, sim.now_ms) == (6, 20)
    assert [(s.base_offset, [b.last_offset for b in s.batches]) for s in sim.log().segments] == [(0, [0]), (5, [6])]


def test_checkpoint_accepts_any_offset_and_log_start_only_advances():
    """Spec 4.1: the checkpoint is validated at selection, not when written."""
    sim = Simulation(topics={"t": {}})
    sim.append("t", [("a", "1"), ("b", "2"), ("c", "3")])
    sim.set_checkpoint("t", 99)
    assert sim.log().cleaner_checkpoint == 99
    assert sim.set_log_start_offset("t", 2) == 2
    assert sim.set_log_start_offset("t", 1) == 2
    with pytest.raises(KafkaModelError, match="high watermark"):
        sim.set_log_start_offset("t", 4)


def test_delete_records_needs_the_delete_policy():
    """Spec 9: DeleteRecords only when cleanup.policy contains delete."""
    sim = Simulation(topics={"t": {}})
    with pytest.raises(KafkaModelError, match="cleanup.policy"):
        sim.delete_records("t", 0)


def test_high_watermark_hold_and_release():
    sim = Simulation(topics={"t": {}})
    sim.append("t", [("a", "1"), ("b", "2")])
    sim.set_high_watermark("t", 1)
    assert (sim.log().high_watermark, sim.log().last_stable_offset) == (1, 1)
    sim.set_high_watermark("t", None)
    assert sim.log().high_watermark == 2


def test_uncleanable_and_snapshots_are_independent_copies():
    sim = Simulation(topics={"t": {}})
    sim.append("t", [("a", "1")])
    sim.mark_uncleanable("t")
    snap = sim.snapshot("one")
    sim.append("t", [("a", "2")])
    assert sim.uncleanable == {"t-0"}
    assert (snap.now_ms, snap.logs["t-0"].log_end_offset, sim.log().log_end_offset) == (0, 1, 2)


def test_topic_must_be_named_when_there_are_several():
    sim = Simulation(BrokerConfig(), topics={"a": {}, "b": {}})
    with pytest.raises(KafkaModelError, match="name the topic"):
        sim.log()
    with pytest.raises(KafkaModelError, match="no partition 3"):
        sim.log("a", 3)
