"""Configs by release: a real broker and the simulator accept and refuse the same topic configs.

For each topic config or value the simulator gates by ``kafka.version`` (``_release_configs``), the broker of
each release creates the topic or refuses it, and the simulator, with ``kafka.version`` set to that release,
does the same; a refusal's message starts with the broker's.
"""

from __future__ import annotations

from kcompact_nb import BrokerConfig, ConfigError, TopicConfig
from kcompact_nb.broker import KafkaBroker

from .conftest import topic_refusal

#: Each gated property, with a value every release that knows it accepts.
GATED = {
    "compression.gzip.level": "1",
    "compression.lz4.level": "9",
    "compression.zstd.level": "3",
    "internal.segment.bytes": "1048576",
    "segment.bytes": "1024",
    "compression.type": "zstd",
    "max.compaction.lag.ms": "60000",
}


def simulator_refusal(version: str, configs: dict[str, str]) -> str | None:
    try:
        TopicConfig.from_properties(configs, broker=BrokerConfig(kafka_version=version))
    except ConfigError as error:
        return str(error)
    return None


def check_release(broker: KafkaBroker) -> list[str]:
    """Every gated property on ``broker``: whether it and the simulator agree; returns the refused names."""
    refused = []
    for name, value in GATED.items():
        topic = "gated-" + name.replace(".", "-")
        theirs, ours = topic_refusal(broker, topic, {name: value}), simulator_refusal(broker.version, {name: value})
        assert (theirs is None) == (ours is None), (broker.version, name, theirs, ours)
        if theirs is not None:
            assert ours is not None and ours.startswith(theirs), (theirs, ours)
            refused.append(name)
    return refused


def test_configs_by_release_on_the_ci_brokers(kafka_broker: KafkaBroker) -> None:
    """3.9.2 does not know internal.segment.bytes (4.1); 4.4.0 refuses segments below 1 MiB."""
    expected = {"4.4.0": ["segment.bytes"], "3.9.2": ["internal.segment.bytes"]}[kafka_broker.version]
    assert check_release(kafka_broker) == expected
