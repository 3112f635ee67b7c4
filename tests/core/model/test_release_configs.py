"""Configs by release: each property or value the simulator gates by kafka.version, on both sides of its release.

The releases come from Kafka's TopicConfig/LogConfig/KafkaConfig at each release tag (docs/cleaner-rules.md 15);
the real-broker side is tests/broker/test_configs_by_release.py.
"""

from __future__ import annotations

import pytest

from kcompact_nb import BrokerConfig, ConfigError, TopicConfig

TOPIC_ROWS = [
    # property, value, last release without it, first release with it
    ("max.compaction.lag.ms", 60_000, "2.2.2", "2.3.0"),
    ("compression.gzip.level", 1, "3.7.2", "3.8.0"),
    ("compression.lz4.level", 9, "3.7.2", "3.8.0"),
    ("compression.zstd.level", 3, "3.7.2", "3.8.0"),
    ("internal.segment.bytes", 1024, "4.0.2", "4.1.0"),
]
BROKER_ROWS = [
    ("log.cleaner.max.compaction.lag.ms", 60_000, "2.2.2", "2.3.0"),
    ("compression.gzip.level", 1, "3.7.2", "3.8.0"),
    ("compression.lz4.level", 9, "3.7.2", "3.8.0"),
    ("compression.zstd.level", 3, "3.7.2", "3.8.0"),
    ("producer.id.expiration.ms", 3_600_000, "3.3.2", "3.4.0"),
    ("producer.id.expiration.check.interval.ms", 60_000, "3.3.2", "3.4.0"),
]


@pytest.mark.parametrize(("name", "value", "before", "since"), TOPIC_ROWS)
def test_a_topic_config_is_unknown_before_its_release(name, value, before, since):
    with pytest.raises(ConfigError, match=rf"^Unknown topic config name: {name} \(Kafka {since} introduced it"):
        TopicConfig.from_properties({name: value}, broker=BrokerConfig(kafka_version=before))
    config = TopicConfig.from_properties({name: value}, broker=BrokerConfig(kafka_version=since))
    assert config.to_properties()[name] == value


@pytest.mark.parametrize(("name", "value", "before", "since"), BROKER_ROWS)
def test_a_broker_config_is_unknown_before_its_release(name, value, before, since):
    with pytest.raises(ConfigError, match=rf"^Unknown broker config name: {name} .* broker ignores it"):
        BrokerConfig.from_properties({name: value, "kafka.version": before})
    broker = BrokerConfig.from_properties({name: value, "kafka.version": since})
    assert {**broker.to_properties(), **dict(_topic_defaults_by_name(broker))}[name] == value


def _topic_defaults_by_name(broker: BrokerConfig) -> dict[str, object]:
    topic = TopicConfig(**broker.topic_defaults).to_properties()
    renamed = {"max.compaction.lag.ms": "log.cleaner.max.compaction.lag.ms"}
    return {renamed.get(name, name): topic[name] for name in topic}


def test_an_old_release_keeps_working_while_nothing_unknown_is_set():
    """Defaults of properties a release lacks are not "set": with_properties round-trips on 2.0."""
    broker = BrokerConfig.from_properties({"kafka.version": "2.0.0", "log.segment.bytes": 2048})
    changed = broker.with_properties({"log.cleaner.threads": 2})
    assert (changed.log_cleaner_threads, changed.topic_defaults["segment_bytes"]) == (2, 2048)
    assert TopicConfig.from_properties({"cleanup.policy": "compact"}, broker=changed).compact


@pytest.mark.parametrize("where", ["topic", "broker"])
def test_zstd_arrived_in_2_1(where):
    """KIP-110: 2.0's ValidString lists the four other codecs and producer, in Kafka's order."""
    message = r"^Invalid value zstd for configuration compression\.type: String must be one of: "
    message += r"uncompressed, snappy, lz4, gzip, producer \("

    def make(version: str) -> TopicConfig:
        if where == "topic":
            return TopicConfig.from_properties({"compression.type": "zstd"}, broker=BrokerConfig(kafka_version=version))
        broker = BrokerConfig.from_properties({"compression.type": "zstd", "kafka.version": version})
        return TopicConfig.from_properties({}, broker=broker)

    with pytest.raises(ConfigError, match=message):
        make("2.0.1")
    assert make("2.1.0").compression_type == "zstd"


@pytest.mark.parametrize(
    ("version", "log_segment_bytes_refused", "segment_bytes_refused"),
    [("3.9.2", False, False), ("4.0.0", True, False), ("4.0.2", True, False), ("4.1.0", True, True)],
)
def test_the_1_mib_minimum_reached_the_broker_in_4_0_and_topics_in_4_1(
    version, log_segment_bytes_refused, segment_bytes_refused
):
    """KAFKA-16368 raised log.segment.bytes' minimum in 4.0; KAFKA-19080 raised segment.bytes' in 4.1."""

    def refused(make) -> bool:
        try:
            make()
        except ConfigError:
            return True
        return False

    broker_side = refused(lambda: BrokerConfig.from_properties({"log.segment.bytes": 1000, "kafka.version": version}))
    topic_side = refused(
        lambda: TopicConfig.from_properties({"segment.bytes": 1000}, broker=BrokerConfig(kafka_version=version))
    )
    assert (broker_side, topic_side) == (log_segment_bytes_refused, segment_bytes_refused)


@pytest.mark.parametrize(("version", "kept"), [("3.3.2", True), ("3.4.0", False)])
def test_idle_producers_expire_after_7_days_before_3_4_and_after_1_day_from_it(version, kept):
    """KIP-854: before 3.4 producer ids lived for transactional.id.expiration.ms (7 days), not 1 day."""
    from kcompact_nb import NewRecord, PartitionLog
    from kcompact_nb.core.model._log_loader import rebuild_producer_state

    broker = BrokerConfig(kafka_version=version)
    config = TopicConfig.from_properties({"cleanup.policy": "compact"}, broker=broker)
    log = PartitionLog("t", config=config, broker=broker)
    log.append([NewRecord(b"k", b"v", timestamp=0)], now_ms=0, producer_id=3, producer_epoch=0, base_sequence=0)
    rebuild_producer_state(log, now_ms=2 * 86_400_000)
    assert (3 in log.producer_state.producers) is kept
    assert broker.with_properties({"log.cleaner.threads": 2}).producer_id_expiration_ms == (
        604_800_000 if kept else 86_400_000
    )


@pytest.mark.parametrize(("version", "default"), [("2.4.1", 1_000_012), ("2.5.0", 1_048_588)])
def test_max_message_bytes_defaulted_to_1000012_before_2_5(version, default):
    """KAFKA-4203 aligned message.max.bytes with the producer's 1 MiB in 2.5; a broker or topic value wins."""
    broker = BrokerConfig(kafka_version=version)
    assert TopicConfig.from_properties({}, broker=broker).max_message_bytes == default
    assert TopicConfig.from_properties({"max.message.bytes": 5000}, broker=broker).max_message_bytes == 5000
    synonym = BrokerConfig.from_properties({"kafka.version": version, "message.max.bytes": 6000})
    assert TopicConfig.from_properties({}, broker=synonym).max_message_bytes == 6000
