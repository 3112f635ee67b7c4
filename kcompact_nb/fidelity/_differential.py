"""One differential run: the same workload through a real broker's cleaner and through the simulator."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kcompact_nb.broker import (
    COMPACTED_TOPIC_CONFIGS,
    FAST_CLEANER_SETTINGS,
    KafkaBroker,
    alter_topic_configs,
    copy_partition,
    create_topic,
    produce,
    produce_batches,
    wait_for_cleaner,
)
from kcompact_nb.core import BrokerConfig, TopicConfig
from kcompact_nb.fidelity._compare import differences, load_stage, simulate_broker_pass
from kcompact_nb.fidelity._workload import Workload

HOLD = {"min.cleanable.dirty.ratio": "1.0"}
"""A never-cleaned log has ratio 1.0, which is not above 1.0: the broker's cleaner waits."""
_LOG_LINE_KEYS = ("dirty section", "Buffer utilization", "Start size", "End size", "size reduction")


@dataclass
class DifferentialResult:
    """The outcome of one workload: where the copies are and every mismatch found."""

    workload: Workload
    version: str
    folder: Path
    mismatches: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.mismatches


def broker_settings(version: str) -> BrokerConfig:
    """The simulator's broker config matching :data:`FAST_CLEANER_SETTINGS` and ``version``."""
    cleaner = {k: v for k, v in FAST_CLEANER_SETTINGS.items() if k.startswith("log.cleaner.")}
    return BrokerConfig.from_properties({**cleaner, "kafka.version": version})


def topic_settings() -> TopicConfig:
    return TopicConfig.from_properties(dict(COMPACTED_TOPIC_CONFIGS))


def run_differential(broker: KafkaBroker, workload: Workload, folder: Path, *, topic: str) -> DifferentialResult:
    """Produce ``workload`` (cleaner held), copy "before", let Kafka clean once, copy "after", compare."""
    create_topic(broker, topic, configs=HOLD)
    produce_batches(broker, topic, workload.batches(), idempotent=workload.idempotent)
    (trigger_offset,) = produce(broker, topic, [workload.trigger])
    copy_partition(broker, topic, folder / "before")
    alter_topic_configs(broker, topic, COMPACTED_TOPIC_CONFIGS)
    wait_for_cleaner(broker, topic, trigger_offset)
    copy_partition(broker, topic, folder / "after")
    result = DifferentialResult(workload, broker.version, folder)
    result.mismatches = compare_stages(folder, broker.version, kafka_log=broker.cleaner_log(), topic=topic)
    return result


def compare_stages(folder: Path, version: str, *, kafka_log: str, topic: str) -> list[str]:
    """Mismatches between the simulated pass over ``folder/before`` and Kafka's ``folder/after``."""
    broker, config = broker_settings(version), topic_settings()
    before = load_stage(folder / "before", topic=config, broker=broker)
    after = load_stage(folder / "after", topic=config, broker=broker)
    simulated, line = simulate_broker_pass(before, after)
    found = differences(simulated, after)
    ours, theirs = log_line_facts(line or ""), log_line_facts(last_cleaner_message(kafka_log, f"{topic}-0"))
    if len(theirs) != len(_LOG_LINE_KEYS):
        found.append(f"Kafka's cleaner log has no complete message for {topic}-0: {theirs}")
    elif ours != theirs:
        found.append(f"log line: simulator {ours}\n          Kafka     {theirs}")
    return found


def last_cleaner_message(cleaner_log: str, name: str) -> str:
    """The lines of the last "cleaned log <name>" INFO message in a broker's cleaner log."""
    lines = cleaner_log.splitlines()
    starts = [i for i, line in enumerate(lines) if f"cleaned log {name} (dirty section" in line]
    return "\n".join(lines[starts[-1] : starts[-1] + 9]) if starts else ""


def log_line_facts(message: str) -> list[str]:
    """The lines of a pass's log message that do not depend on elapsed time, whitespace trimmed."""
    facts = []
    for line in message.splitlines():
        for key in _LOG_LINE_KEYS:
            if key in line:
                facts.append(line[line.index("Log cleaner") :] if key == "dirty section" else line.strip())
    return facts
