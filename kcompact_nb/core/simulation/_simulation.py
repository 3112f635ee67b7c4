"""One simulated broker: configs, topics, partition logs, a clock and the cleaner (spec 1-5, 9)."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kcompact_nb.core.cleaner import (
    CleanerManager,
    LogStartMove,
    LogToClean,
    OffsetMapSpec,
    PassResult,
    Strategy,
    delete_records,
    increment_log_start_offset,
    log_to_clean,
    topic_creation_order,
)
from kcompact_nb.core.model import AppendInfo, BrokerConfig, NewRecord, PartitionLog, Segment, TopicConfig, copy_log
from kcompact_nb.core.simulation._clock import SimulatedClock
from kcompact_nb.record import NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE, KafkaModelError, TimestampType

RecordLike = NewRecord | tuple[Any, ...]
"""A record to append: a :class:`NewRecord` or ``(key, value[, timestamp_ms[, headers]])``."""


@dataclass(frozen=True)
class Snapshot:
    """Copies of every partition log taken at ``now_ms`` (see :meth:`Simulation.snapshot`)."""

    label: str
    now_ms: int
    logs: Mapping[str, PartitionLog]


class Simulation:
    """A single Kafka broker whose logs, clock and cleaner are driven step by step.

    Topics default to ``cleanup.policy=compact``. Methods that address a partition take the
    topic first (``None`` when the simulation has exactly one topic) and ``partition=0``.

    Examples
    --------
    >>> sim = Simulation(topics={"fruit-prices": {"segment.ms": 604800000}})
    >>> sim.append("fruit-prices", [("grape", "2.69"), ("lime", "0.49")]).last_offset
    1
    """

    def __init__(
        self,
        broker: BrokerConfig | Mapping[str, Any] | None = None,
        *,
        start_ms: int = 0,
        topics: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self.broker = broker if isinstance(broker, BrokerConfig) else BrokerConfig.from_properties(broker or {})
        self.clock = SimulatedClock(start_ms)
        self.topic_overrides: dict[str, dict[str, Any]] = {}
        self.topics: dict[str, TopicConfig] = {}
        self.logs: dict[tuple[str, int], PartitionLog] = {}
        self.snapshots: dict[str, Snapshot] = {}
        self.cleaner = CleanerManager(self.broker, started_ms=start_ms)
        for name, config in (topics or {}).items():
            self.create_topic(name, config=config)

    @property
    def now_ms(self) -> int:
        """The broker's wall clock in milliseconds."""
        return self.clock.now_ms

    # -- topics and partitions -------------------------------------------------------------

    def create_topic(self, name: str, *, partitions: int = 1, config: Mapping[str, Any] | None = None) -> TopicConfig:
        """Declare a topic (``cleanup.policy`` defaults to ``compact``) with ``partitions`` empty logs."""
        if name in self.topics:
            raise KafkaModelError(f"topic {name!r} already exists")
        if partitions < 1:
            raise KafkaModelError(f"topic {name!r}: partitions must be at least 1, got {partitions}")
        topic_config = self._declare_topic(name, config)
        for partition in topic_creation_order(name, partitions):
            self.logs[(name, partition)] = self._new_log(name, partition)
        return topic_config

    def add_log(self, log: PartitionLog, *, config: Mapping[str, Any] | None = None) -> None:
        """Add ``log`` (for example one read from a broker's log dir) as a partition of its topic.

        It enters the broker's log pool after the logs already there (a broker loading its log dirs
        adds them in the order it lists them). The topic is declared with ``config`` (``cleanup.policy``
        defaults to ``compact``) when it is new; the log takes the topic's and the broker's configs. Its batches
        stay where they live (``log.storage``): the cleaner's passes over a log in its files stream them.
        """
        key = (log.topic, log.partition)
        if key in self.logs:
            raise KafkaModelError(f"{log.name}: the simulation already has this partition")
        if log.topic not in self.topics:
            self._declare_topic(log.topic, config)
        log.config = self.topics[log.topic]
        log.broker = self.broker
        self.logs[key] = log

    def log(self, topic: str | None = None, partition: int = 0) -> PartitionLog:
        """The partition log of ``topic`` (the only topic when ``None``) and ``partition``."""
        name = self._topic_name(topic)
        try:
            return self.logs[(name, partition)]
        except KeyError:
            raise KafkaModelError(f"topic {name!r} has no partition {partition}") from None

    def partitions(self) -> list[PartitionLog]:
        """Every partition log, ordered by topic name then partition number."""
        return [self.logs[key] for key in sorted(self.logs)]

    def partitions_in_creation_order(self) -> list[PartitionLog]:
        """Every partition log in the order its topic and partition were created (the broker's log pool
        is filled in this order, which decides the cleaner's choice among equally dirty logs)."""
        return list(self.logs.values())

    def replace_log(self, log: PartitionLog) -> None:
        """Install ``log`` (for example one read from a Kafka log dir) as its partition's state."""
        key = (log.topic, log.partition)
        if key not in self.logs:
            raise KafkaModelError(f"{log.name}: no such partition in the simulation")
        log.config = self.topics[log.topic]
        log.broker = self.broker
        self.logs[key] = log

    # -- producing -------------------------------------------------------------------------

    def append(
        self,
        topic: str | None,
        records: Iterable[RecordLike],
        *,
        partition: int = 0,
        producer_id: int = NO_PRODUCER_ID,
        producer_epoch: int = NO_PRODUCER_EPOCH,
        base_sequence: int = NO_SEQUENCE,
        transactional: bool = False,
        timestamp_type: TimestampType | str | None = None,
        compression: str = "none",
    ) -> AppendInfo:
        """Append ONE record batch at the current time (``UnifiedLog.appendAsLeader``).

        ``records`` are :class:`NewRecord` values or ``(key, value[, timestamp_ms[, headers]])``
        tuples whose ``str`` keys and values are UTF-8 encoded; ``None`` values are tombstones.
        """
        return self.log(topic, partition).append(
            [as_new_record(r) for r in records],
            now_ms=self.now_ms,
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            base_sequence=base_sequence,
            transactional=transactional,
            timestamp_type=timestamp_type,
            compression=compression,
        )

    def end_txn(
        self,
        topic: str | None,
        producer_id: int,
        producer_epoch: int,
        *,
        commit: bool,
        partition: int = 0,
        coordinator_epoch: int = 0,
        timestamp: int | None = None,
        offset: int | None = None,
    ) -> AppendInfo:
        """Write a COMMIT or ABORT marker for a producer (``UnifiedLog.appendAsLeader`` of a control batch)."""
        return self.log(topic, partition).append_end_txn_marker(
            producer_id,
            producer_epoch,
            commit=commit,
            now_ms=self.now_ms,
            coordinator_epoch=coordinator_epoch,
            timestamp=timestamp,
            offset=offset,
        )

    def roll(self, topic: str | None = None, *, partition: int = 0, base_offset: int | None = None) -> Segment:
        """Force a new active segment at the log end offset or ``base_offset`` (``UnifiedLog.roll``)."""
        return self.log(topic, partition).roll(now_ms=self.now_ms, expected_next_offset=base_offset)

    # -- clock and configs -----------------------------------------------------------------

    def advance(self, ms: int) -> int:
        """Move the wall clock forward by ``ms`` milliseconds; returns the new ``now_ms``."""
        return self.clock.advance(ms)

    def set_time(self, now_ms: int) -> int:
        """Set the wall clock to ``now_ms`` (never backwards)."""
        return self.clock.set(now_ms)

    def set_config(self, config: Mapping[str, Any], *, topic: str | None = None) -> None:
        """Change a topic's configs (``topic`` given) or the broker's (Kafka's ``alterConfigs``).

        Topic configs are recomputed from the broker's defaults plus the topic's overrides, so
        a broker change reaches every topic that does not override the property.
        """
        if topic is None:
            self._set_broker_config(config)
            return
        overrides = {**self.topic_overrides[self._topic_name(topic)], **dict(config)}
        self._apply_topic_config(topic, TopicConfig.from_properties(overrides, broker=self.broker), overrides)

    # -- offsets and cleaner state ---------------------------------------------------------

    def set_checkpoint(self, topic: str | None, offset: int | None, *, partition: int = 0) -> None:
        """Write the partition's cleaner checkpoint (``None`` removes it); validated only at selection (spec 4.1)."""
        self.log(topic, partition).cleaner_checkpoint = offset

    def set_high_watermark(self, topic: str | None, offset: int | None, *, partition: int = 0) -> None:
        """Hold the high watermark at ``offset``; ``None`` lets it follow the log end offset again."""
        self.log(topic, partition).set_high_watermark(offset)

    def set_log_start_offset(self, topic: str | None, offset: int, *, partition: int = 0) -> int:
        """Advance the log start offset on any topic (``UnifiedLog.maybeIncrementLogStartOffset``).

        Never lowers it; the offset must not exceed the high watermark. Segments below it are
        deleted later by retention (spec 9). Returns the new log start offset.
        """
        log = self.log(topic, partition)
        before = log.log_start_offset
        increment_log_start_offset(log, offset)
        self._moved(log, before, "log start offset set")
        return log.log_start_offset

    def delete_records(self, topic: str | None, offset: int, *, partition: int = 0) -> int:
        """Kafka's ``DeleteRecords``: only on topics whose policy contains ``delete`` (spec 9).

        Returns the new log start offset.
        """
        log = self.log(topic, partition)
        before = log.log_start_offset
        delete_records(log, offset)
        self._moved(log, before, "DeleteRecords")
        return log.log_start_offset

    def mark_uncleanable(self, topic: str | None = None, *, partition: int = 0) -> None:
        """Mark a partition uncleanable, as the broker does after a cleaning failure (spec 3)."""
        self.uncleanable.add(self.log(topic, partition).name)

    # -- cleaning --------------------------------------------------------------------------

    @property
    def uncleanable(self) -> set[str]:
        """Partitions the cleaner skips (``uncleanable-partitions-count``)."""
        return self.cleaner.uncleanable

    def use_strategy(self, topic: str | None, strategy: Strategy) -> None:
        """Compact ``topic`` with a user-defined strategy (never Kafka's behaviour; see ``Strategy``)."""
        self.cleaner.strategies[self._topic_name(topic)] = strategy

    def clean(self) -> PassResult | None:
        """One cleaner iteration at the current time (``CleanerThread.doWork`` without the sleep).

        Cleans the filthiest eligible log once, then runs compacted-log retention on every log;
        ``None`` when no log was eligible, or when the pass threw (the log is then marked uncleanable,
        ``cleaner.failures`` says why, and the iteration runs no retention, as Kafka's).
        """
        return self.cleaner.clean_once(self.partitions_in_creation_order(), now_ms=self.now_ms)

    def clean_log(
        self,
        topic: str | None = None,
        *,
        partition: int = 0,
        first_dirty_offset: int | None = None,
        first_uncleanable_offset: int | None = None,
        offset_map: OffsetMapSpec | None = None,
        now_ms: int | None = None,
        force: bool = False,
    ) -> PassResult | None:
        """One pass on one log (``Cleaner.clean`` on a chosen range); ``None`` when not eligible and not forced.

        ``now_ms`` is the pass time (default: the clock); bounds not given are the broker's.
        """
        return self.cleaner.clean_log(
            self.log(topic, partition),
            now_ms=self.now_ms if now_ms is None else now_ms,
            first_dirty_offset=first_dirty_offset,
            first_uncleanable_offset=first_uncleanable_offset,
            offset_map=offset_map,
            force=force,
        )

    def run_cleaner(self, until_ms: int) -> list[PassResult]:
        """Run the background cleaner loop (with ``log.cleaner.backoff.ms`` sleeps) until ``until_ms``.

        Nothing is appended meanwhile, so idle threads skip the back-off wakes before the engine could find work
        (``CleanerManager.run``'s ``skip_idle``: the same passes and logs, fewer idle iterations recorded).
        """
        if until_ms < self.now_ms:
            raise KafkaModelError(f"run_cleaner until {until_ms} ms: the clock is already at {self.now_ms} ms")
        logs = self.partitions_in_creation_order()
        passes: list[PassResult] = self.cleaner.run(logs, from_ms=self.now_ms, until_ms=until_ms, skip_idle=True)
        self.clock.set(until_ms)
        return passes

    def dirtiness(self, topic: str | None = None, *, partition: int = 0) -> LogToClean:
        """The cleanable range and dirty ratio the broker would compute now (``LogCleanerManager``, spec 4-5)."""
        return log_to_clean(self.log(topic, partition), now_ms=self.now_ms)

    def copy(self) -> Simulation:
        """A copy of this broker (logs, clock, configs, cleaner state) whose later steps change only itself: for
        what-ifs and for checking a claim about the future against the simulation run on. Streamed storages of
        scanned logs are not copied."""
        clone = copy.copy(self)
        clone.clock = SimulatedClock(self.now_ms)
        clone.topic_overrides = {name: dict(overrides) for name, overrides in self.topic_overrides.items()}
        clone.topics = dict(self.topics)
        clone.logs = {key: copy_log(log) for key, log in self.logs.items()}
        clone.snapshots = dict(self.snapshots)
        clone.cleaner = self.cleaner.copy()
        return clone

    def snapshot(self, label: str) -> Snapshot:
        """Keep copies of every partition log under ``label`` (later steps do not change them)."""
        logs = {log.name: copy_log(log) for log in self.partitions()}
        self.snapshots[label] = Snapshot(label, self.now_ms, logs)
        return self.snapshots[label]

    # -- helpers ---------------------------------------------------------------------------

    def _moved(self, log: PartitionLog, before: int, cause: str) -> None:
        if log.log_start_offset > before:
            self.cleaner.log_start_moves.append(
                LogStartMove(log.name, self.now_ms, before, log.log_start_offset, cause)
            )

    def _topic_name(self, topic: str | None) -> str:
        if topic is None:
            if len(self.topics) != 1:
                raise KafkaModelError(f"name the topic: the simulation has {len(self.topics)} topics")
            return next(iter(self.topics))
        if topic not in self.topics:
            raise KafkaModelError(f"unknown topic {topic!r}; known: {', '.join(sorted(self.topics)) or 'none'}")
        return topic

    def _declare_topic(self, name: str, config: Mapping[str, Any] | None) -> TopicConfig:
        overrides = {"cleanup.policy": "compact", **dict(config or {})}
        topic_config = TopicConfig.from_properties(overrides, broker=self.broker)
        self.topic_overrides[name] = overrides
        self.topics[name] = topic_config
        return topic_config

    def _new_log(self, topic: str, partition: int) -> PartitionLog:
        now = self.now_ms
        return PartitionLog(topic, partition, config=self.topics[topic], broker=self.broker, created_ms=now)

    def _set_broker_config(self, config: Mapping[str, Any]) -> None:
        self.broker = self.broker.with_properties(config)
        for log in self.logs.values():
            log.broker = self.broker
        for name, overrides in self.topic_overrides.items():
            self._apply_topic_config(name, TopicConfig.from_properties(overrides, broker=self.broker), overrides)
        self.cleaner.broker = self.broker

    def _apply_topic_config(self, topic: str, config: TopicConfig, overrides: dict[str, Any]) -> None:
        self.topic_overrides[topic] = overrides
        self.topics[topic] = config
        for (name, _), log in self.logs.items():
            if name == topic:
                log.config = config


def as_new_record(record: RecordLike) -> NewRecord:
    """A :class:`NewRecord` from itself or from ``(key, value[, timestamp_ms[, headers]])``; ``str`` is UTF-8."""
    if isinstance(record, NewRecord):
        return record
    if not 2 <= len(record) <= 4:
        raise KafkaModelError(f"a record tuple is (key, value[, timestamp_ms[, headers]]), got {record!r}")
    key, value, *rest = record
    timestamp = rest[0] if rest else None
    headers: Sequence[tuple[str, Any]] = rest[1] if len(rest) > 1 else ()
    return NewRecord(_utf8(key), _utf8(value), timestamp, tuple((name, _utf8(v)) for name, v in headers))


def _utf8(data: str | bytes | None) -> bytes | None:
    if data is None or isinstance(data, bytes):
        return data
    if isinstance(data, str):
        return data.encode("utf-8")
    raise KafkaModelError(f"keys, values and header values are str, bytes or None, got {type(data).__name__}")
