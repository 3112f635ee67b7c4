"""KIP-1030 (segment.bytes >= 1 MiB from Kafka 4.1, KAFKA-19080) applies on every path that knows a kafka.version,
and only there:
a TopicConfig made without a broker belongs to no release (README, "A TopicConfig made without a broker")."""

from __future__ import annotations

import pytest

from kcompact_nb import BrokerConfig, ConfigError, Simulation, TopicConfig
from kcompact_nb.scenario import FORMAT, parse_scenario, simulation_for
from tests.cli.conftest import kcompact

SAMPLE_LOG_DIR = "data/samples/kafka/compaction-basic/before"


def test_without_a_broker_no_release_rule_applies():
    assert TopicConfig.from_properties({"cleanup.policy": "compact", "segment.bytes": 1000}).segment_bytes == 1000


def paths(version: str) -> dict[str, object]:
    """Each way a topic config meets a kafka.version, as a function that builds it."""
    broker = {"kafka.version": version}
    return {
        "from_properties": lambda: TopicConfig.from_properties({"segment.bytes": 1000},
                                                               broker=BrokerConfig.from_properties(broker)),
        "Simulation": lambda: Simulation(broker, topics={"t": {"segment.bytes": 1000}}),
        "scenario": lambda: simulation_for(parse_scenario(
            {"format": FORMAT, "broker": broker, "topics": {"t": {"config": {"segment.bytes": 1000}}}, "steps": []})),
    }  # fmt: skip


@pytest.mark.parametrize("path", ["from_properties", "Simulation", "scenario"])
def test_kafka_4_1_refuses_small_segment_bytes_and_4_0_accepts_them(path):
    with pytest.raises(Exception, match=r"segment\.bytes: Value must be at least 1048576 from Kafka 4\.1 on") as raised:
        paths("4.4.0")[path]()  # type: ignore[operator]
    assert isinstance(raised.value, ConfigError) or "ScenarioError" in type(raised.value).__name__
    paths("4.0.2")[path]()  # type: ignore[operator]
    paths("3.9.2")[path]()  # type: ignore[operator]


def test_inspect_follows_the_version_too(tmp_path):
    """(The CompactionStepper's config panel shows the same refusal: tests/widgets/test_widgets.py.)"""
    refused = kcompact("inspect", SAMPLE_LOG_DIR, "--config", "segment.bytes=1000")
    assert refused.returncode == 2 and "Value must be at least 1048576 from Kafka 4.1 on" in refused.stderr
    (tmp_path / "c.properties").write_text("kafka.version=3.9.2\n")
    accepted = kcompact("inspect", SAMPLE_LOG_DIR, "--config", "segment.bytes=1000",
                        "--config-file", tmp_path / "c.properties", "--now-ms", "0")  # fmt: skip
    assert accepted.returncode == 0, accepted.stderr
