"""Every config is bounded by its Kafka type (``ConfigDef.Type``): an INT holds 32 bits, a LONG 64, as Java's
``Integer.parseInt``/``Long.parseLong`` read them, with Kafka's message (``ConfigDef.parseType``: "Not a number of
type LONG"), wherever the value comes from: a ``.properties`` string, a JSON number, a Python value."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kcompact_nb.core import BrokerConfig, ConfigError, TopicConfig
from kcompact_nb.core.model._config_keys import INT, LONG, config_keys

_NUMBERS = [
    (cls, name, key.kafka_type)
    for cls in (TopicConfig, BrokerConfig)
    for name, (_, key) in config_keys(cls).items()
    if key.kafka_type in (INT, LONG)
]
_KAFKA_TYPES = {  # LogConfig, CleanerConfig, TransactionLogConfigs: the types Kafka defines them with
    "segment.bytes": "INT", "segment.ms": "LONG", "segment.jitter.ms": "LONG", "segment.index.bytes": "INT",
    "retention.bytes": "LONG", "retention.ms": "LONG", "max.message.bytes": "INT", "index.interval.bytes": "INT",
    "delete.retention.ms": "LONG", "min.compaction.lag.ms": "LONG", "max.compaction.lag.ms": "LONG",
    "file.delete.delay.ms": "LONG", "compression.gzip.level": "INT", "compression.lz4.level": "INT",
    "compression.zstd.level": "INT", "internal.segment.bytes": "INT", "max.decompressed.message.bytes": "INT",
    "log.cleaner.threads": "INT",
    "log.cleaner.dedupe.buffer.size": "LONG", "log.cleaner.io.buffer.size": "INT", "log.cleaner.backoff.ms": "LONG",
    "producer.id.expiration.ms": "INT", "producer.id.expiration.check.interval.ms": "INT",
}  # fmt: skip


def _build(cls, properties):
    return cls.from_properties(properties)


def test_every_number_config_has_kafkas_type():
    assert {name: kafka_type.name for _, name, kafka_type in _NUMBERS} == _KAFKA_TYPES


@pytest.mark.parametrize(("cls", "name", "kafka_type"), _NUMBERS, ids=[n for _, n, _ in _NUMBERS])
def test_a_value_past_the_type_is_refused_with_kafkas_message(cls, name, kafka_type):
    for value in (kafka_type.high + 1, kafka_type.low - 1):
        for given_as in (value, str(value)):
            message = f"Invalid value {value} for configuration {name}: Not a number of type {kafka_type.name}$"
            with pytest.raises(ConfigError, match=message):
                _build(cls, {name: given_as})


@pytest.mark.parametrize(("cls", "name", "kafka_type"), _NUMBERS, ids=[n for _, n, _ in _NUMBERS])
def test_the_types_own_bounds_are_judged_by_the_keys_range_only(cls, name, kafka_type):
    """At the type's bounds a value parses; only the key's own range (or a rule between keys) may refuse it."""
    for value in (kafka_type.high, kafka_type.low):
        try:
            _build(cls, {name: str(value)})
        except ConfigError as error:
            assert "Not a number of type" not in str(error)


@pytest.mark.parametrize("text", ["1_000", "1 000", "0x10", "1e3", "10.0", "", "++1", "٣x"])
def test_integer_text_is_read_as_java_reads_it(text):
    with pytest.raises(ConfigError, match="Not a number of type LONG"):
        TopicConfig.from_properties({"segment.ms": text})


def test_integer_text_is_trimmed_and_signed_as_java_reads_it():
    assert TopicConfig.from_properties({"segment.ms": " +100\t"}).segment_ms == 100
    assert TopicConfig.from_properties({"retention.ms": "-1"}).retention_ms == -1


@pytest.mark.parametrize(("text", "value"), [("0.25", 0.25), (".5", 0.5), ("1.", 1.0), ("5e-1", 0.5), ("0.5d", 0.5)])
def test_double_text_is_read_as_java_reads_it(text, value):
    assert TopicConfig.from_properties({"min.cleanable.dirty.ratio": text}).min_cleanable_dirty_ratio == value


@pytest.mark.parametrize("text", ["0_5", "half", "0x1p-1", "nan0"])
def test_double_text_java_does_not_read_is_refused(text):
    with pytest.raises(ConfigError, match="Not a number of type DOUBLE"):
        TopicConfig.from_properties({"min.cleanable.dirty.ratio": text})


def test_a_synonym_in_hours_is_an_int():
    """``log.roll.hours`` is an INT in Kafka: 2^31 hours do not parse, 2^31 - 1 hours are ms in a LONG."""
    with pytest.raises(ConfigError, match="Invalid value 2147483648 for configuration log.roll.hours: Not a number of"):
        BrokerConfig.from_properties({"log.roll.hours": str(2**31)})
    assert BrokerConfig.from_properties({"log.roll.hours": str(2**31 - 1)}).topic_defaults["segment_ms"] == (
        (2**31 - 1) * 3_600_000
    )


@given(st.integers(min_value=2**63, max_value=2**80) | st.integers(min_value=-(2**80), max_value=-(2**63) - 1))
def test_python_values_past_a_long_are_refused_too(value):
    with pytest.raises(ConfigError, match=r"\(field delete_retention_ms\): Not a number of type LONG"):
        TopicConfig(delete_retention_ms=value)


@pytest.mark.parametrize("value", [float("inf"), float("nan"), 1e300])
def test_json_numbers_no_long_holds_are_refused(value):
    with pytest.raises(ConfigError, match="Not a number of type LONG"):
        TopicConfig.from_properties({"segment.ms": value})
