"""KIP-280 strategies (spec 14; not Apache Kafka's behaviour) against Kafka's offset strategy."""

from __future__ import annotations

import struct

import pytest

from kcompact_nb.core import ConfigError, PartitionLog, Record, RecordBatch, TopicConfig
from kcompact_nb.core.cleaner._offset_map import ExactOffsetMap
from kcompact_nb.core.cleaner._strategies import HeaderStrategy, OffsetStrategy, TimestampStrategy, strategy_for
from tests.conftest import rec
from tests.core.cleaner.test_cleaner_pass import one_pass


def version(v: int) -> tuple[str, bytes]:
    return ("v", struct.pack(">q", v))


def out_of_order_log(strategy: str) -> PartitionLog:
    """Two producers race: the value written last (offset 2) is the older one (timestamp 100, version 1)."""
    props = {"cleanup.policy": "compact", "compaction.strategy": strategy}
    if strategy == "header":
        props["compaction.strategy.header"] = "v"
    log = PartitionLog("prices", config=TopicConfig.from_properties(props))
    log.append([rec("apple", "1.00", timestamp=100, headers=(version(1),))], now_ms=300)
    log.append([rec("apple", "1.20", timestamp=200, headers=(version(2),))], now_ms=300)
    log.append([rec("apple", "1.10", timestamp=150, headers=(version(1),))], now_ms=300)
    log.append([rec("pear", "2.00", timestamp=300)], now_ms=300)
    log.roll(now_ms=300)
    log.append([rec("z", timestamp=300)], now_ms=300)
    return log


def surviving(log: PartitionLog) -> list[tuple[int, str, str]]:
    return [(r.offset, r.key.decode(), r.value.decode()) for _, r in log.records() if r.value is not None]


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        ("offset", [(2, "apple", "1.10"), (3, "pear", "2.00"), (4, "z", "0123456789")]),
        ("timestamp", [(1, "apple", "1.20"), (3, "pear", "2.00"), (4, "z", "0123456789")]),
        ("header", [(1, "apple", "1.20"), (3, "pear", "2.00"), (4, "z", "0123456789")]),
    ],
)
def test_out_of_order_producers(strategy, expected):
    log = out_of_order_log(strategy)
    one_pass(log, now_ms=300, offset_map=ExactOffsetMap())
    assert surviving(log) == expected


def test_equal_versions_fall_back_to_the_highest_offset():
    ts = TimestampStrategy()
    batch = RecordBatch.build([Record(0, 5, b"k", b"v")])
    assert ts.rank(batch, Record(3, 5, b"k", b"v")) > ts.rank(batch, Record(2, 5, b"k", b"v"))
    hs = HeaderStrategy("v")
    assert hs.rank(batch, Record(3, 0, b"k", b"v", (version(1),))) > hs.rank(
        batch, Record(2, 0, b"k", b"v", (version(1),))
    )


def test_header_version_rules():
    """The LAST header with the name counts; only 8-byte values are versions; a version beats none."""
    hs = HeaderStrategy("v")
    two = Record(0, 0, b"k", b"v", (version(9), version(2)))
    bad = Record(1, 0, b"k", b"v", (("v", b"\x01"),))
    none = Record(2, 0, b"k", b"v", ())
    assert (hs.version(two), hs.version(bad), hs.version(none)) == (2, None, None)
    assert (hs.is_malformed(bad), hs.is_malformed(none), hs.is_malformed(two)) == (True, False, False)
    batch = RecordBatch.build([two])
    assert hs.rank(batch, two) > hs.rank(batch, none) and hs.rank(batch, two) > hs.rank(batch, bad)


def test_malformed_version_headers_are_counted_by_the_pass():
    log = PartitionLog(
        "t",
        config=TopicConfig.from_properties(
            {"cleanup.policy": "compact", "compaction.strategy": "header", "compaction.strategy.header": "v"}
        ),
    )
    log.append([rec("a", headers=(("v", b"short"),)), rec("b", headers=(version(1),))], now_ms=0)
    log.roll(now_ms=0)
    assert one_pass(log).stats.malformed_version_headers == 1


def test_a_clean_prefix_record_with_a_higher_version_beats_the_dirty_winner():
    """Spec 14: records in the clean prefix compete by (version, offset); the dirty loser goes."""
    log = out_of_order_log("timestamp")
    one_pass(log, now_ms=300, offset_map=ExactOffsetMap())
    log.append([rec("apple", "0.90", timestamp=120)], now_ms=300)  # late, and older than the kept 1.20
    log.roll(now_ms=300)
    log.append([rec("y", timestamp=300)], now_ms=300)
    one_pass(log, now_ms=300, offset_map=ExactOffsetMap())
    assert [s for s in surviving(log) if s[1] == "apple"] == [(1, "apple", "1.20")]


def test_log_end_record_is_retained_under_kip_280_strategies_only():
    """KIP-280 "retain LEO record": the record at LEO - 1 stays even when it loses.

    Kafka's offset strategy has no such rule.
    """
    for strategy, kept in [("timestamp", [0, 1]), ("offset", [1])]:
        log = PartitionLog(
            "t", config=TopicConfig.from_properties({"cleanup.policy": "compact", "compaction.strategy": strategy})
        )
        log.append([rec("a", timestamp=500)], now_ms=0)
        log.append([rec("a", None, timestamp=100)], now_ms=0)
        log.roll(now_ms=0)
        one_pass(log, offset_map=ExactOffsetMap())
        assert [r.offset for _, r in log.records()] == kept, strategy


def test_strategy_for_config_and_map_entry_sizes():
    assert isinstance(strategy_for(TopicConfig()), OffsetStrategy)
    assert strategy_for(TopicConfig(compaction_strategy="timestamp")).entry_bytes == 32
    header = strategy_for(TopicConfig(compaction_strategy="header", compaction_strategy_header="ver"))
    assert isinstance(header, HeaderStrategy) and header.header == "ver" and header.entry_bytes == 32
    with pytest.raises(ConfigError):
        TopicConfig(compaction_strategy="header")


class CheapestWins:
    """A user-defined strategy: the lowest price (the value, as a number) wins; ties go to the later offset."""

    name = "cheapest"
    entry_bytes = 32
    retains_log_end_record = False
    ranks_by_offset = False

    def rank(self, batch, record):
        price = float(record.value) if record.value is not None else float("inf")
        return (-price, record.offset)

    def is_malformed(self, record):
        return False


def test_a_user_defined_strategy_plugs_into_the_simulation():
    from kcompact_nb import Simulation, Strategy

    strategy: Strategy = CheapestWins()
    sim = Simulation(topics={"prices": {}})
    sim.use_strategy("prices", strategy)
    sim.append("prices", [("apple", "1.20"), ("apple", "0.90"), ("apple", "1.10"), ("pear", "2.00")])
    sim.roll("prices")
    result = sim.clean()
    assert result is not None and result.offset_map.entries() == {b"apple": (-0.9, 1), b"pear": (-2.0, 3)}
    assert [(r.offset, r.value) for _, r in sim.log("prices").records()] == [(1, b"0.90"), (3, b"2.00")]


def test_use_strategy_names_an_unknown_topic():
    from kcompact_nb.core import KafkaModelError, Simulation

    with pytest.raises(KafkaModelError, match="unknown topic 'nope'; known: prices"):
        Simulation(topics={"prices": {}}).use_strategy("nope", CheapestWins())
