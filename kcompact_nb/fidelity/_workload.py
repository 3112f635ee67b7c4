"""Differential workloads: what to produce, how the topic is configured, and when the cleaner may run.

A :class:`Workload` is a list of rounds. Each round produces its steps with the cleaner held back, rolls
the last segment with a trigger record, copies the partition ("before"), then walks its phases: each
phase sets the topic's configs and waits for the broker's cleaner thread (a checkpoint or a log start
offset to move), before the partition is copied again ("after").

Record timestamps are relative: ``clock="fixed"`` places round ``k`` at :data:`BASE_TS_MS` plus ``k``
days, so segment rolls (``segment.ms``) are repeatable; ``clock="wall"`` ends the round's records just
before the wall clock at produce time, for rules that compare record times with the broker's "now"
(``min.compaction.lag.ms``, ``max.compaction.lag.ms``, ``retention.ms``); ``clock="ahead"`` starts them
:data:`AHEAD_MS` after the wall clock, for rolls capped by ``max.compaction.lag.ms`` (the log is not due yet).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from kcompact_nb.core import BrokerConfig, ConfigError, NewRecord, TopicConfig

BASE_TS_MS = 1_767_225_600_000
"""2026-01-01T00:00:00Z: fixed CreateTime timestamps make ``segment.ms`` rolls repeatable."""
STEP_MS = 20
"""Default spacing of record timestamps; with ``segment.ms=100`` a segment holds 6 one-record batches."""
DAY_MS = 86_400_000
AHEAD_MS = 600_000
"""How far ahead of the wall clock ``clock="ahead"`` starts a round: its records are too young for
``max.compaction.lag.ms`` to make the log due while it is produced (brokers take timestamps up to an hour ahead)."""
TRIGGER_GAP_MS = 200_000
"""How far after the last record the trigger is stamped: far beyond ``segment.ms``, so it rolls."""

PRODUCERS = ("plain", "idempotent", "commit", "abort")
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
"""How a step is produced: no producer id, idempotent, or one transaction committed or aborted."""
HOLD = MappingProxyType({"min.cleanable.dirty.ratio": "1.0"})
"""A never-cleaned log has ratio 1.0, which is not above 1.0: the broker's cleaner waits."""


def _frozen(mapping: Mapping[str, str] | None = None) -> Mapping[str, str]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class Produce:
    """Records sent by one producer, ``batch_records`` per record batch (one produce request each),
    compressed by the producer with ``compression`` (``none``, ``gzip``, ``snappy``, ``lz4``, ``zstd``).

    Timestamps are relative to the round's base time (see the module docstring).
    """

    records: tuple[NewRecord, ...]
    producer: str = "plain"
    batch_records: int = 1
    compression: str = "none"

    def __post_init__(self) -> None:
        if self.producer not in PRODUCERS:
            raise ValueError(f"producer must be one of {PRODUCERS}, got {self.producer!r}")
        if self.compression not in CODECS:
            raise ValueError(f"compression must be one of {CODECS}, got {self.compression!r}")

    def batches(self) -> list[tuple[NewRecord, ...]]:
        """The records grouped into the batches they are produced as."""
        n = self.batch_records
        return [self.records[i : i + n] for i in range(0, len(self.records), n)]

    @property
    def transactional(self) -> bool:
        return self.producer in ("commit", "abort")


@dataclass(frozen=True)
class Phase:
    """Topic configs the cleaner runs under, and what to wait for.

    ``wait="checkpoint"`` waits for the cleaner checkpoint, ``wait="log_start"`` for the log start offset
    (compacted-log retention), to reach the first offset of step ``until_step`` (the trigger when ``None``).
    """

    configs: Mapping[str, str] = field(default_factory=_frozen)
    wait: str = "checkpoint"
    until_step: int | None = None


@dataclass(frozen=True)
class Round:
    """Steps produced with the cleaner held, then the phases that let it run."""

    steps: tuple[Produce, ...]
    phases: tuple[Phase, ...] = (Phase(),)

    @property
    def last_timestamp(self) -> int:
        return max((r.timestamp or 0 for step in self.steps for r in step.records), default=0)

    @property
    def has_transactions(self) -> bool:
        return any(step.transactional for step in self.steps)


@dataclass(frozen=True)
class Workload:
    """A named, seeded differential workload (see the module docstring)."""

    name: str
    category: str
    seed: int
    rounds: tuple[Round, ...]
    create: Mapping[str, str] = field(default_factory=_frozen)
    """Topic configs at creation, on top of the compacted defaults and :data:`HOLD`."""
    clock: str = "fixed"
    broker: Mapping[str, str] = field(default_factory=_frozen)
    """Dynamic broker configs set for this workload (e.g. a small ``log.cleaner.dedupe.buffer.size``)."""
    kept: Mapping[str, str] = field(default_factory=_frozen)
    """Topic configs in force through every round and phase (broker-side ``compression.type`` and levels)."""

    @property
    def recompressed_on_append(self) -> bool:
        """The broker stores every data batch in a codec the producers did not use (``LogValidator``)."""
        target = self.kept.get("compression.type", "producer")
        produced = {step.compression for round_ in self.rounds for step in round_.steps}
        return target not in ("producer", "uncompressed") and produced == {"none"}

    def refusal_on(self, kafka_version: str) -> str | None:
        """Why Kafka ``kafka_version`` (and the simulator imitating it) refuses a config this workload sets,
        e.g. ``compression.gzip.level`` before 3.8, or a codec its producers use (``zstd`` before 2.1); None
        when the release knows them all."""
        phases = [phase.configs for round_ in self.rounds for phase in round_.phases]
        try:
            broker = BrokerConfig.from_properties({**self.broker, "kafka.version": kafka_version})
            for configs in (self.create, self.kept, *phases):
                TopicConfig.from_properties(configs, broker=broker)
        except ConfigError as error:
            return str(error)
        for codec in sorted({step.compression for round_ in self.rounds for step in round_.steps} - {"none"}):
            try:  # a codec the release's compression.type does not know, its producers cannot send (zstd before 2.1)
                TopicConfig.from_properties({"compression.type": codec}, broker=broker)
            except ConfigError as error:
                return f"the producer's {codec} batches: {error}"
        return None

    def base_ms(self, round_index: int, *, wall_now_ms: int) -> int:
        """Absolute time of relative timestamp 0 in round ``round_index``."""
        if self.clock == "wall":
            return wall_now_ms - self.rounds[round_index].last_timestamp - 1_000
        if self.clock == "ahead":
            return wall_now_ms + AHEAD_MS
        return BASE_TS_MS + round_index * DAY_MS

    def trigger(self, round_index: int, *, wall_now_ms: int) -> NewRecord:
        """The record that rolls the round's last segment, making everything before it cleanable.

        Transaction markers carry the broker's wall clock, and a wall-clock round ends now: then the
        trigger is stamped a second after now; otherwise :data:`TRIGGER_GAP_MS` after the last record.
        """
        round_ = self.rounds[round_index]
        if self.clock == "wall" or round_.has_transactions:
            return NewRecord(b"trigger", b"roll", timestamp=wall_now_ms + 1_000)
        base = self.base_ms(round_index, wall_now_ms=wall_now_ms)
        return NewRecord(b"trigger", b"roll", timestamp=base + round_.last_timestamp + TRIGGER_GAP_MS)


def keyed_records(
    rng_choices: list[int], values: list[bytes | None], *, step_ms: int = STEP_MS, start_ms: int = 0
) -> tuple[NewRecord, ...]:
    """Records ``key-<k>`` with the given values, stamped ``start_ms``, ``start_ms + step_ms``, ..."""
    return tuple(
        NewRecord(b"key-%d" % k, value, timestamp=start_ms + i * step_ms)
        for i, (k, value) in enumerate(zip(rng_choices, values, strict=True))
    )
