"""Topic and broker configs: Kafka names, defaults, synonyms and validation messages (spec 1, 14)."""

from __future__ import annotations

import re

import pytest

from kcompact_nb.core import BrokerConfig, ConfigError, KafkaVersion, TopicConfig
from kcompact_nb.core.model import RuleB


def test_topic_defaults_are_kafkas():
    c = TopicConfig()
    assert c.to_properties() == {
        "cleanup.policy": ("delete",),
        "min.cleanable.dirty.ratio": 0.5,
        "delete.retention.ms": 86_400_000,
        "min.compaction.lag.ms": 0,
        "max.compaction.lag.ms": 9_223_372_036_854_775_807,
        "segment.bytes": 1_073_741_824,
        "segment.ms": 604_800_000,
        "segment.jitter.ms": 0,
        "segment.index.bytes": 10_485_760,
        "index.interval.bytes": 4096,
        "max.message.bytes": 1_048_588,
        "max.decompressed.message.bytes": 2_147_483_639,  # 4.2.2, 4.4.0: no bound beyond the largest array
        "retention.ms": 604_800_000,
        "retention.bytes": -1,
        "file.delete.delay.ms": 60_000,
        "message.timestamp.type": "CreateTime",
        "compression.type": "producer",
        "compression.gzip.level": -1,  # KIP-390: GzipCompression.DEFAULT_LEVEL (Deflater.DEFAULT_COMPRESSION)
        "compression.lz4.level": 9,
        "compression.zstd.level": 3,
        "preallocate": False,
        "compaction.strategy": "offset",
        "compaction.strategy.header": "",
        "internal.segment.bytes": -1,
    }


def test_broker_defaults_are_kafkas():
    b = BrokerConfig()
    assert (b.log_cleaner_threads, b.log_cleaner_dedupe_buffer_size, b.log_cleaner_io_buffer_load_factor) == (
        1,
        134_217_728,
        0.9,
    )
    assert (b.log_cleaner_io_buffer_size, b.log_cleaner_backoff_ms, b.producer_id_expiration_ms) == (
        524_288,
        15_000,
        86_400_000,
    )
    assert b.log_cleaner_enable and b.kafka_version == "4.4.0"


def test_properties_from_strings_like_a_properties_file():
    c = TopicConfig.from_properties(
        {"cleanup.policy": "compact,delete", "segment.bytes": "1000", "preallocate": "true"}
    )
    assert (c.cleanup_policy, c.segment_bytes, c.preallocate) == (("compact", "delete"), 1000, True)
    assert c.compact and c.delete


@pytest.mark.parametrize(
    ("properties", "message"),
    [
        (
            {"min.cleanable.dirty.ratio": 1.5},
            r"Invalid value 1\.5 for configuration min\.cleanable\.dirty\.ratio .*\[0, 1\]",
        ),
        ({"min.cleanable.dirty.ratio": -0.1}, r"min\.cleanable\.dirty\.ratio .*Value must be in \[0, 1\]"),
        ({"segment.bytes": 13}, r"Invalid value 13 for configuration segment\.bytes .*\[14, 2147483647\]"),
        ({"delete.retention.ms": -1}, r"delete\.retention\.ms .*at least 0"),
        ({"max.compaction.lag.ms": 0}, r"max\.compaction\.lag\.ms .*at least 1"),
        ({"cleanup.policy": "compact,forever"}, r"cleanup\.policy .*one of: compact, delete"),
        ({"cleanup.policy": ""}, r"cleanup\.policy"),
        ({"compaction.strategy": "newest"}, r"compaction\.strategy .*one of: offset, timestamp, header"),
        ({"segment.bytes": 10.5}, r"segment\.bytes: Not a number of type INT"),
        ({"segment.bytes": "big"}, r"segment\.bytes: Not a number of type INT"),
        (
            {"min.compaction.lag.ms": 10, "max.compaction.lag.ms": 5},
            r"min\.compaction\.lag\.ms: it must not exceed max\.compaction\.lag\.ms \(5\)",
        ),
        ({"compaction.strategy": "header"}, r"compaction\.strategy\.header: a header name is required"),
        ({"segment.byte": 100}, r"Unknown configuration 'segment\.byte'"),
    ],
)
def test_invalid_topic_configs_name_property_value_and_range(properties, message):
    with pytest.raises(ConfigError, match=message):
        TopicConfig.from_properties(properties)


def test_direct_construction_is_validated_and_frozen():
    with pytest.raises(ConfigError, match=r"min\.cleanable\.dirty\.ratio \(field min_cleanable_dirty_ratio\)"):
        TopicConfig(min_cleanable_dirty_ratio=2.0)
    with pytest.raises(AttributeError):
        TopicConfig().segment_bytes = 5  # type: ignore[misc]


def test_max_segment_ms_is_capped_by_max_compaction_lag_only_when_compacted():
    compact = TopicConfig.from_properties(
        {"cleanup.policy": "compact", "segment.ms": 1000, "max.compaction.lag.ms": 10}
    )
    delete = TopicConfig.from_properties({"cleanup.policy": "delete", "segment.ms": 1000, "max.compaction.lag.ms": 10})
    assert (compact.max_segment_ms, delete.max_segment_ms) == (10, 1000)


def test_broker_synonyms_become_topic_defaults_and_topic_values_override_them():
    broker = BrokerConfig.from_properties(
        {
            "log.segment.bytes": 2048,
            "log.roll.hours": 2,
            "log.cleaner.min.cleanable.ratio": 0.1,
            "log.retention.hours": -1,
            "kafka.version": "3.9.2",
        }
    )
    topic = TopicConfig.from_properties({"segment.bytes": 4096}, broker=broker)
    assert (topic.segment_bytes, topic.segment_ms, topic.min_cleanable_dirty_ratio, topic.retention_ms) == (
        4096,
        7_200_000,
        0.1,
        -1,
    )


def test_more_specific_broker_synonym_wins():
    broker = BrokerConfig.from_properties({"log.roll.hours": 2, "log.roll.ms": 5})
    assert TopicConfig.from_properties({}, broker=broker).segment_ms == 5


def test_with_properties_changes_only_what_is_named():
    c = TopicConfig.from_properties({"cleanup.policy": "compact", "segment.bytes": 1000})
    d = c.with_properties({"min.cleanable.dirty.ratio": 0.01})
    assert (d.segment_bytes, d.min_cleanable_dirty_ratio, c.min_cleanable_dirty_ratio) == (1000, 0.01, 0.5)
    small = {"log.segment.bytes": 2048, "kafka.version": "3.9.2"}  # below 4.0's minimum of log.segment.bytes
    b = BrokerConfig.from_properties(small).with_properties({"log.cleaner.threads": 2})
    assert (b.log_cleaner_threads, b.topic_defaults["segment_bytes"]) == (2, 2048)


@pytest.mark.parametrize(
    ("properties", "message"),
    [
        ({"log.cleaner.dedupe.buffer.size": 1_048_576}, r"must exceed 1 MiB \(1048576\) per cleaner thread"),
        ({"log.cleaner.dedupe.buffer.size": 3_000_000, "log.cleaner.threads": 3}, r"per cleaner thread \(3 threads\)"),
        ({"log.cleaner.io.buffer.load.factor": 0}, r"load\.factor .*\(0, 1\]"),
        ({"log.cleaner.threads": -1}, r"log\.cleaner\.threads .*at least 0"),
        (
            {"log.segment.bytes": 5},
            r"Invalid value 5 for configuration segment\.bytes .*Value must be in \[14, 2147483647\]$",
        ),
        ({"log.cleanup.policy": "compact,compcat"}, r"Invalid value 'compcat' for configuration cleanup\.policy"),
        ({"kafka.version": "four"}, r"kafka\.version: expected MAJOR\.MINOR"),
        ({"kafka.version": "1.1"}, r"kafka\.version: Value must be at least 2\.0"),
        (
            {"kafka.version": "9.9.9"},
            r"'9\.9\.9' .*kafka\.version: not an Apache Kafka release line .*; known: 2\.0-2\.8, "
            r"3\.0-3\.9, 4\.0-4\.4 \(any patch",
        ),
        ({"kafka.version": "4.5.0"}, r"kafka\.version: not an Apache Kafka release line"),
        ({"kafka.version": "2.9"}, r"kafka\.version: not an Apache Kafka release line"),
        ({"log.segment.bytes": 1}, r"segment\.bytes"),
        ({"log.cleaner.bogus": 1}, r"Unknown configuration 'log\.cleaner\.bogus'"),
    ],
)
def test_invalid_broker_configs(properties, message):
    with pytest.raises(ConfigError, match=message):
        BrokerConfig.from_properties(properties)


def test_dedupe_buffer_just_over_one_mib_per_thread_is_accepted():
    BrokerConfig.from_properties({"log.cleaner.dedupe.buffer.size": 1_048_577})


@pytest.mark.parametrize(
    ("version", "rule_b", "batch_horizon", "max_lag", "index_per_batch"),
    [
        ("2.2", RuleB.ABSENT, False, False, False),
        ("2.3.0", RuleB.ABSENT, False, True, False),
        ("3.0.2", RuleB.ABSENT, False, True, False),
        ("3.1.0", RuleB.ABSENT, True, True, False),
        ("3.9.0", RuleB.ABSENT, True, True, False),
        ("3.9.1", RuleB.ABSENT, True, True, True),
        ("3.9.2", RuleB.FIRST_UNCLEANABLE_OFFSET, True, True, True),
        ("4.0", RuleB.FIRST_UNCLEANABLE_OFFSET, True, True, False),
        ("4.0.1", RuleB.FIRST_UNCLEANABLE_OFFSET, True, True, True),
        ("4.2.1", RuleB.FIRST_UNCLEANABLE_OFFSET, True, True, True),
        ("4.3.1", RuleB.FIRST_UNCLEANABLE_OFFSET, True, True, True),  # observed on a 4.3.1 broker
        ("4.4.0", RuleB.HIGH_WATERMARK, True, True, True),
        ("4.4", RuleB.HIGH_WATERMARK, True, True, True),
    ],
)
def test_kafka_version_rules(version, rule_b, batch_horizon, max_lag, index_per_batch):
    """Spec 15: each row pins one side of a version boundary."""
    v = KafkaVersion.parse(version)
    assert (v.rule_b, v.has_batch_delete_horizon, v.has_max_compaction_lag) == (rule_b, batch_horizon, max_lag)
    assert v.indexes_each_batch is index_per_batch  # KAFKA-806
    assert str(KafkaVersion.parse("4.0")) == "4.0.0"


@pytest.mark.parametrize(
    ("version", "names_end"), [("2.0.1", False), ("2.5.1", False), ("2.6.0", True), ("4.4.0", True)]
)
def test_the_log_line_names_the_dirty_section_end_from_2_6(version, names_end):
    """apache/kafka#8435 (2.6.0): before it the pass's log line read ``[first dirty, first dirty]`` (seen on real
    2.0.1, 2.4.1 and 2.5.1 brokers; 2.6.3 names the end)."""
    assert KafkaVersion.parse(version).logs_dirty_section_end is names_end


@pytest.mark.parametrize(
    ("version", "properties", "error", "effective"),
    [
        ("3.9.2", {"segment.bytes": 1024}, None, 1024),
        ("4.0.2", {"segment.bytes": 1024}, None, 1024),  # 4.0 raised only log.segment.bytes' minimum
        (
            "4.1.0",
            {"segment.bytes": 1024},
            r"segment\.bytes: Value must be at least 1048576 from Kafka 4\.1 on \(KAFKA-19080, KIP-1030",
            None,
        ),
        ("4.0.2", {"internal.segment.bytes": 1024}, r"^Unknown topic config name: internal\.segment\.bytes", None),
        ("4.1.0", {"internal.segment.bytes": 1024}, None, 1024),
        ("4.4.0", {"segment.bytes": 1_048_576}, None, 1_048_576),
        ("4.4.0", {"internal.segment.bytes": 1024}, None, 1024),
        ("4.4.0", {"internal.segment.bytes": 13}, r"internal\.segment\.bytes .*-1 \(unset\) or in \[14", None),
    ],
)
def test_kip_1030_minimum_segment_size_by_kafka_version(version, properties, error, effective):
    """Spec 15: from 4.1 segment.bytes must be at least 1 MiB; internal.segment.bytes (4.1 too) overrides it (as
    the real 4.4.0 broker accepts in tests/broker; the 4.0 and 4.1 boundaries read in kafka-storage's LogConfig)."""
    broker = BrokerConfig.from_properties({"kafka.version": version})
    if error is not None:
        with pytest.raises(ConfigError, match=error):
            TopicConfig.from_properties(properties, broker=broker)
        return
    assert TopicConfig.from_properties(properties, broker=broker).effective_segment_bytes == effective


def test_internal_segment_bytes_drives_rolls():
    from kcompact_nb import NewRecord, PartitionLog

    broker = BrokerConfig()
    config = TopicConfig.from_properties({"cleanup.policy": "compact", "internal.segment.bytes": 160}, broker=broker)
    log = PartitionLog("t", config=config, broker=broker)
    for key in (b"k0", b"k1", b"k2"):
        log.append([NewRecord(key, b"0123456789", timestamp=0)], now_ms=0)
    assert [s.base_offset for s in log.segments] == [0, 2]


@pytest.mark.parametrize(
    ("name", "value", "allowed"),
    [
        ("compression.gzip.level", 0, "Value must be -1 or in [1, 9]"),  # GzipCompression.LevelValidator
        ("compression.lz4.level", 18, "Value must be in [1, 17]"),
        ("compression.zstd.level", 23, "Value must be in [-131072, 22]"),
        ("compression.type", "brotli", "String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer"),
    ],
)
def test_compression_configs_are_validated_like_kafkas(name, value, allowed):
    with pytest.raises(ConfigError, match=rf"Invalid value .* for configuration {name} .*: {re.escape(allowed)}"):
        TopicConfig.from_properties({name: value})


def test_compression_configs_are_broker_defaults_too():
    broker = BrokerConfig.from_properties({"compression.type": "zstd", "compression.zstd.level": 9})
    topic = TopicConfig.from_properties({}, broker=broker)
    assert (topic.compression_type, topic.compression_zstd_level) == ("zstd", 9)
