"""One forecast run: the produce model's batches appended to a simulated broker whose cleaner threads run between.

The broker is a :class:`Simulation` (its topics, configs and :class:`CleanerManager`); its threads run as a
:class:`CleanerLoop` that keeps their back-off rhythm across the appends. Nothing here decides what the cleaner
does: every selection, pass, back-off and retention is the engine's. The run records each pass, samples every
partition on a time grid and around each pass, reads Kafka's cleaner gauges after each pass, and follows the live
data and traced records' lifetimes. Idle back-off wakes before the next moment anything can change are skipped
(``CleanerLoop.quiet_until``): the next append that rolls a segment or ends a transaction, or the first instant the
engine would clean or delete something without appends (``CleanerManager.would_work``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy

from kcompact_nb.core.cleaner import CleanerLoop, CleanerSpeed, PassResult, first_true, log_to_clean
from kcompact_nb.core.forecasting._appender import Appender
from kcompact_nb.core.forecasting._dirty_keys import dirty_keys
from kcompact_nb.core.forecasting._events import Event, ProducedBatch, TxnMarker
from kcompact_nb.core.forecasting._exact_stream import topic_rng
from kcompact_nb.core.forecasting._produce_model import ProduceModel
from kcompact_nb.core.forecasting._results import (
    Forecast,
    ForecastPass,
    MetricReading,
    PartitionTimeline,
    RecordLifetimes,
)
from kcompact_nb.core.forecasting._tracking import TRACED_TARGET, Lifetimes, LiveData
from kcompact_nb.core.model import BrokerConfig, PartitionLog
from kcompact_nb.core.simulation import Simulation

LIFETIME_STREAM = 1
VALUE_STREAM = 2


@dataclass
class _Samples:
    """One partition's samples, appended in time order."""

    times: list[int] = field(default_factory=list)
    size: list[int] = field(default_factory=list)
    live: list[int] = field(default_factory=list)
    ratio: list[float] = field(default_factory=list)
    cleanable: list[int] = field(default_factory=list)
    segments: list[int] = field(default_factory=list)


@dataclass
class ForecastRun:
    """The simulated broker and what the run has recorded so far; ``scale`` turns its bytes into the model's."""

    sim: Simulation
    model: ProduceModel
    start_ms: int
    horizon_ms: int
    expected_records: dict[str, float]
    scale: float = 1.0
    grid_points: int = 400
    ratios: Mapping[str, float] = field(default_factory=dict)
    """Each topic's stored bytes per value byte (for the live data's size)."""
    passes: list[ForecastPass] = field(default_factory=list)
    metrics: list[MetricReading] = field(default_factory=list)
    loop: CleanerLoop = field(init=False)
    _appenders: dict[str, Appender] = field(default_factory=dict)
    _live: dict[str, LiveData] = field(default_factory=dict)
    _lifetimes: dict[str, Lifetimes] = field(default_factory=dict)
    _samples: dict[tuple[str, int], _Samples] = field(default_factory=dict)
    _last: dict[int, tuple[PassResult, int]] = field(default_factory=dict)
    _grid: list[int] = field(default_factory=list)
    _logs: list[PartitionLog] = field(default_factory=list)
    _appends_change: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.loop = CleanerLoop(self.sim.cleaner, self.start_ms, quiet_until=self._quiet_until, on_pass=self._on_pass)
        self._logs = self.sim.partitions_in_creation_order()
        step = max(1, self.horizon_ms // self.grid_points)
        self._grid = list(range(self.horizon_ms, -1, -step))[::-1]
        for name, load in self.model.topics.items():
            partitions = sum(1 for log in self._logs if log.topic == name)
            self._appenders[name] = Appender(
                load.key_bytes,
                load.value_compressibility,
                self.start_ms,
                topic_rng(self.model.seed, name, VALUE_STREAM),
            )
            self._live[name] = LiveData(load.key_bytes, partitions, self.ratios.get(name, 1.0))
            expected = max(self.expected_records[name], 1.0)
            tomb = max(expected * load.tombstone_share, 1.0)
            self._lifetimes[name] = Lifetimes(
                min(1.0, TRACED_TARGET / expected),
                min(1.0, TRACED_TARGET / tomb),
                topic_rng(self.model.seed, name, LIFETIME_STREAM),
                load.tombstone_share,
            )
        for log in self._logs:
            self._samples[(log.topic, log.partition)] = _Samples()
            config = log.config
            if config.delete and config.retention_bytes >= 0:
                self._appends_change.add(log.name)

    def play(self, chunks: Iterable[list[Event]]) -> None:
        """Append every event at its time, the cleaner running in between, then run on to the horizon."""
        for events in chunks:
            self._prepare(events)
            for event in events:
                self._until(event.append_ms)
                self._apply(event)
        self._until(self.horizon_ms + 1)

    def _prepare(self, events: list[Event]) -> None:
        for name in self.model.topics:
            mine = [e for e in events if e.topic == name]
            self._live[name].prepare([e for e in mine if isinstance(e, ProducedBatch)])
            self._lifetimes[name].prepare(mine)

    def _until(self, at_ms: int) -> None:
        """Run the cleaner until ``at_ms`` (ms from the start), sampling every grid point before it."""
        while self._grid and self._grid[0] < at_ms:
            point = self._grid.pop(0)
            self.loop.run_until(self._logs, self.start_ms + point)
            for log in self._logs:
                self._sample(log, point)
        self.loop.run_until(self._logs, self.start_ms + at_ms)

    def _apply(self, event: Event) -> None:
        log = self.sim.log(event.topic, event.partition)
        appender = self._appenders[event.topic]
        if isinstance(event, TxnMarker):
            appender.append_marker(log, event)
            self.loop.changed(self.start_ms + event.append_ms)
            return
        first = log.log_end_offset
        info = appender.append(log, event)
        if info.rolled or log.name in self._appends_change:
            self.loop.changed(self.start_ms + event.append_ms)
        self._live[event.topic].record(event)
        shift = 0 if event.base_offset is None else max(0, first - event.base_offset)
        self._lifetimes[event.topic].record(event, first, shift)

    def _quiet_until(self, now_ms: int) -> int:
        """The earliest time at or after ``now_ms`` an iteration could find something to do without appends, as the
        engine finds it (:meth:`CleanerManager.would_work`), or just after the horizon."""
        horizon = self.start_ms + self.horizon_ms + 1
        found = first_true(self.sim.cleaner.work_over_time(self._logs), start=now_ms, end=horizon)
        return horizon if found is None else found

    def _on_pass(self, result: PassResult, thread: int) -> None:
        log = self.sim.log(result.topic, result.partition)
        at = result.start_ms - self.start_ms
        ltc = log_to_clean(log, now_ms=result.start_ms)
        size_after = log.size_bytes
        size_before = size_after + result.stats.bytes_read - result.stats.bytes_written
        self.passes.append(self._pass(result, thread, ltc.cleanable_ratio, size_before, size_after))
        samples = self._samples[(log.topic, log.partition)]
        live = int(self._live[log.topic].live_bytes[log.partition])
        before = (size_before, live, result.cleanable_ratio, result.stats.map_bytes_read)
        self._append_sample(samples, at, *before, len(log.segments))
        self._sample(log, at, ltc)
        self._lifetimes[log.topic].after_pass(log, log.partition, result.end_offset, at)
        self._last[thread] = (result, self.sim.cleaner.max_compaction_delay_ms)
        self.metrics.append(self._reading(at))

    def _pass(self, result: PassResult, thread: int, ratio_after: float, before: int, after: int) -> ForecastPass:
        stats, scale = result.stats, self.scale
        return ForecastPass(
            topic=result.topic,
            partition=result.partition,
            thread=thread,
            start_ms=result.start_ms - self.start_ms,
            end_ms=result.end_ms - self.start_ms,
            first_dirty_offset=result.first_dirty_offset,
            first_uncleanable_offset=result.first_uncleanable_offset,
            end_offset=result.end_offset,
            cleanable_ratio=result.cleanable_ratio,
            ratio_after=ratio_after,
            size_before_bytes=round(before / scale),
            size_after_bytes=round(after / scale),
            dirty_bytes=round(stats.map_bytes_read / scale),
            bytes_read=round(stats.bytes_read / scale),
            bytes_written=round(stats.bytes_written / scale),
            map_entries=round(result.offset_map.size / scale),
            dirty_keys=round(self._dirty_keys(result) / scale),
            buffer_utilization=stats.buffer_utilization,
            map_full=result.map_full,
            elapsed_secs=stats.elapsed_secs,
            log_line=result.log_line,
        )

    def _dirty_keys(self, result: PassResult) -> int:
        if not result.map_full:
            return result.offset_map.size
        log = self.sim.log(result.topic, result.partition)
        return dirty_keys(log, result.first_dirty_offset, result.first_uncleanable_offset)

    def _reading(self, at_ms: int) -> MetricReading:
        last = [stats for stats, _ in self._last.values()]
        read = sum(result.stats.bytes_read for result in last)
        written = sum(result.stats.bytes_written for result in last)
        return MetricReading(
            at_ms=at_ms,
            max_dirty_percent=int(100 * self.sim.cleaner.dirtiest_ratio),
            max_clean_time_secs=int(max(result.stats.elapsed_secs for result in last)),
            max_compaction_delay_secs=int(max(delay for _, delay in self._last.values()) / 1000),
            uncleanable_partitions_count=len(self.sim.uncleanable),
            max_buffer_utilization_percent=int(100 * max(result.stats.buffer_utilization for result in last)),
            cleaner_recopy_percent=int(100 * written / max(read, 1)),
        )

    def _sample(self, log: PartitionLog, at_ms: int, ltc: Any = None) -> None:
        ltc = ltc or log_to_clean(log, now_ms=self.start_ms + at_ms)
        live = int(self._live[log.topic].live_bytes[log.partition])
        samples = self._samples[(log.topic, log.partition)]
        self._append_sample(
            samples, at_ms, log.size_bytes, live, ltc.cleanable_ratio, ltc.cleanable_bytes, len(log.segments)
        )

    def _append_sample(
        self, samples: _Samples, at_ms: int, size: int, live: int, ratio: float, cleanable: int, segments: int
    ) -> None:
        samples.times.append(at_ms)
        samples.size.append(round(size / self.scale))
        samples.live.append(round(live / self.scale))
        samples.ratio.append(ratio)
        samples.cleanable.append(round(cleanable / self.scale))
        samples.segments.append(segments)

    def timelines(self) -> list[PartitionTimeline]:
        """Each partition's samples, by topic then partition."""
        out = []
        for (topic, partition), s in sorted(self._samples.items()):
            out.append(
                PartitionTimeline(
                    topic,
                    partition,
                    numpy.array(s.times, dtype=numpy.int64),
                    numpy.array(s.size, dtype=numpy.int64),
                    numpy.array(s.live, dtype=numpy.int64),
                    numpy.array(s.ratio, dtype=float),
                    numpy.array(s.cleanable, dtype=numpy.int64),
                    numpy.array(s.segments, dtype=numpy.int64),
                )
            )
        return out

    def produced_bytes(self) -> dict[str, int]:
        """Each topic's bytes appended (scaled back to the model's)."""
        return {name: round(appender.written_bytes / self.scale) for name, appender in self._appenders.items()}

    def lifetimes(self) -> dict[str, RecordLifetimes]:
        """Each topic's traced records (weights in the model's records)."""
        return {
            name: RecordLifetimes(
                name,
                numpy.array(t.written_ms, dtype=numpy.int64),
                numpy.array(t.removed_ms, dtype=numpy.int64),
                numpy.array(t.weights, dtype=float) / self.scale,
                numpy.array(t.tombstone, dtype=bool),
            )
            for name, t in self._lifetimes.items()
        }


def new_simulation(
    broker: Mapping[str, Any] | None,
    topics: Mapping[str, Mapping[str, Any]],
    *,
    start_ms: int,
    speed: CleanerSpeed | None,
) -> Simulation:
    """A simulated broker with ``topics`` (name -> ``{"partitions": n, "config": {...}}``) and the machine's speed."""
    sim = Simulation(broker or {}, start_ms=start_ms)
    for name, spec in topics.items():
        sim.create_topic(name, partitions=int(spec.get("partitions", 1)), config=spec.get("config", {}))
    sim.cleaner.speed = speed
    return sim


def forecast_result(
    run: ForecastRun,
    broker: BrokerConfig,
    topics: Mapping[str, Mapping[str, Any]],
    mode: str,
    fraction: float,
    speed: CleanerSpeed | None,
    notes: list[str],
) -> Forecast:
    return Forecast(
        model=run.model,
        broker=broker,
        topics=topics,
        start_ms=run.start_ms,
        horizon_ms=run.horizon_ms,
        mode=mode,
        key_fraction=fraction,
        speed=speed,
        passes=run.passes,
        timelines=run.timelines(),
        metrics=run.metrics,
        lifetimes=run.lifetimes(),
        expected_records=run.expected_records,
        produced_bytes=run.produced_bytes(),
        notes=notes,
    )


def speed_note(speed: CleanerSpeed | None) -> str:
    if speed is None:
        return "pass durations: only the I/O throttle takes time (no machine speed given)"
    return (
        f"pass durations: {speed.pass_ms:g} ms per pass plus the map's bytes at "
        f"{speed.index_bytes_per_second / 1e6:g} MB/s and the bytes cleaned at {speed.clean_bytes_per_second / 1e6:g} "
        "MB/s (a measured machine's pace: estimated), or the I/O throttle's time if longer"
    )
