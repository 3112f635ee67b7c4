"""One differential run: the same workload through a real broker's cleaner and through the simulator."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from kcompact_nb.broker import (
    COMPACTED_TOPIC_CONFIGS,
    FAST_CLEANER_SETTINGS,
    KafkaBroker,
    alter_broker_configs,
    alter_topic_configs,
    create_topic,
    produce,
    produce_batches,
    produce_transaction,
    wait_for_cleaner,
    wait_for_offsets,
)
from kcompact_nb.core import NewRecord
from kcompact_nb.fidelity._checkpoint_ticks import (
    CHECKPOINT_INTERVAL_PROPERTY,
    DEFAULT_CHECKPOINT_INTERVAL_MS,
    checkpoints_between,
    copy_between_checkpoints,
)
from kcompact_nb.fidelity._compare import LOG_FILE_MISMATCH, cleaner_messages, compare_round, marks_uncleanable
from kcompact_nb.fidelity._workload import HOLD, Phase, Produce, Workload


@dataclass
class RoundResult:
    """One round: where its copies are, when each phase released the cleaner, and what differed."""

    index: int
    folder: Path
    phase_ms: list[int]
    kafka_passes: int
    mismatches: list[str] = field(default_factory=list)
    uncleanable: bool = False
    """Kafka marked the partition uncleanable in this round or an earlier one: it is never cleaned again."""
    checkpoint_ms: list[int] = field(default_factory=list)
    """When the broker's recovery-point checkpoint ran during the round (wall ms)."""


@dataclass
class DifferentialResult:
    """The outcome of one workload on one broker version."""

    workload: Workload
    version: str
    folder: Path
    topic: str
    rounds: list[RoundResult] = field(default_factory=list)

    @property
    def passes(self) -> int:
        """Cleaner passes Kafka made (each compared with the simulator's)."""
        return sum(r.kafka_passes for r in self.rounds)

    @property
    def mismatches(self) -> list[str]:
        return [f"round {r.index}: {m}" for r in self.rounds for m in r.mismatches]

    @property
    def passed(self) -> bool:
        return not self.mismatches

    @property
    def log_files_identical(self) -> bool:
        """Every round's ``.log`` files as the simulator writes them are Kafka's, byte for byte."""
        return not any(m.startswith(LOG_FILE_MISMATCH) for r in self.rounds for m in r.mismatches)


def wall_ms() -> int:
    """The wall clock in ms: the broker's cleaner and the producers read the same clock."""
    return time.time_ns() // 1_000_000


def run_differential(broker: KafkaBroker, workload: Workload, folder: Path, *, topic: str) -> DifferentialResult:
    """Create ``topic``, run every round of ``workload`` on ``broker`` and compare each with the simulator."""
    result = DifferentialResult(workload, broker.version, Path(folder), topic)
    if workload.broker:
        alter_broker_configs(broker, workload.broker)
    try:
        create_topic(broker, topic, configs={**HOLD, **workload.create, **workload.kept})
        for index in range(len(workload.rounds)):
            result.rounds.append(_run_round(broker, workload, index, result))
    finally:
        if workload.broker:
            alter_broker_configs(broker, {k: FAST_CLEANER_SETTINGS[k] for k in workload.broker})
    return result


def _run_round(broker: KafkaBroker, workload: Workload, index: int, result: DifferentialResult) -> RoundResult:
    round_, topic = workload.rounds[index], result.topic
    folder = result.folder / f"round-{index}"
    base = workload.base_ms(index, wall_now_ms=wall_ms())
    first_offsets = [_produce_step(broker, topic, step, base)[0] for step in round_.steps]
    (trigger_offset,) = produce(broker, topic, [workload.trigger(index, wall_now_ms=wall_ms())])
    checkpointed = copy_between_checkpoints(broker, topic, folder / "before")
    seen = len(cleaner_messages(broker.cleaner_log(), f"{topic}-0"))
    phase_ms = [_run_phase(broker, workload, phase, (topic, first_offsets, trigger_offset)) for phase in round_.phases]
    after_checkpoint = copy_between_checkpoints(broker, topic, folder / "after")
    interval = int(workload.broker.get(CHECKPOINT_INTERVAL_PROPERTY, DEFAULT_CHECKPOINT_INTERVAL_MS))
    checkpoints = checkpoints_between(checkpointed, after_checkpoint, interval)
    alter_topic_configs(broker, topic, {**COMPACTED_TOPIC_CONFIGS, **HOLD, **workload.kept})
    kafka = cleaner_messages(broker.cleaner_log(), f"{topic}-0")[seen:]
    earlier = any(r.uncleanable for r in result.rounds)
    done = RoundResult(index, folder, phase_ms, len(kafka), uncleanable=earlier or any(map(marks_uncleanable, kafka)),
                       checkpoint_ms=checkpoints)  # fmt: skip
    done.mismatches = compare_round(folder, workload, round_index=index, version=broker.version, phase_ms=phase_ms,
                                    kafka_messages=kafka, uncleanable=earlier, checkpoint_ms=checkpoints)  # fmt: skip
    return done


def _run_phase(broker: KafkaBroker, workload: Workload, phase: Phase, produced: tuple[str, list[int], int]) -> int:
    """Release the cleaner under ``phase.configs`` (and the workload's kept configs) and wait for it, on the
    topic whose steps started at the given offsets, trigger last; returns the release time (wall ms)."""
    topic, first_offsets, trigger_offset = produced
    released = wall_ms()
    alter_topic_configs(broker, topic, {**COMPACTED_TOPIC_CONFIGS, **phase.configs, **workload.kept})
    target = trigger_offset if phase.until_step is None else first_offsets[phase.until_step]
    if phase.wait == "log_start":
        wait_for_offsets(broker, topic, log_start=target)
    else:
        wait_for_cleaner(broker, topic, target)
    return released


def _produce_step(broker: KafkaBroker, topic: str, step: Produce, base_ms: int) -> list[int]:
    """Produce one step with timestamps shifted by ``base_ms``; waits for a transaction's marker."""
    batches = [[NewRecord(r.key, r.value, (r.timestamp or 0) + base_ms, r.headers) for r in b] for b in step.batches()]
    if not step.transactional:
        groups = produce_batches(
            broker, topic, batches, idempotent=step.producer == "idempotent", compression=step.compression
        )
        return [offset for group in groups for offset in group]
    records = [record for batch in batches for record in batch]
    offsets = produce_transaction(
        broker,
        topic,
        records,
        transactional_id=f"{topic}-txn",
        commit=step.producer == "commit",
        compression=step.compression,
        batch_records=step.batch_records,
    )
    wait_for_offsets(broker, topic, end=offsets[-1] + 2)  # the marker follows the last record
    return offsets
