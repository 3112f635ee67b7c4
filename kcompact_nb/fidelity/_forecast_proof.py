"""A forecast held to a live broker: the same produce model produced to a real Kafka broker in real time, its cleaner's
passes, sizes and metrics read back, and compared with the forecast of that model (issue #42, docs/forecast.md).

Three runs of one model:

- **live**: every batch of the model's exact stream sent at its time (``produce_timed_batches``); the broker's
  passes read from its ``log-cleaner.log`` (when each began and ended, its dirty section, its log line), its
  partitions from its log dir, its cleaner gauges over JMX;
- **forecast**: :func:`forecast` of the model, exact, run freely: its passes should be the broker's in number and
  partition, each starting within the cleaner's own scheduling slack of the broker's (one back-off, plus the time
  the thread was busy);
- **replay**: the same batches appended to a simulated broker, each of the broker's passes run on it at the time
  and over the dirty section the broker's ran: where the cleaner's inputs are the same, what it leaves is the
  same, byte for byte (segments, sizes, log lines' counters, gauges).

A pass's wall-clock duration is the machine's: :func:`calibrate_speed` fits a :class:`CleanerSpeed` to the
broker's passes (their durations against the bytes the replay's same passes read), and the forecast's durations
are compared with the broker's under it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy

from kcompact_nb.broker import (
    KafkaBroker,
    cleaner_gauges,
    copy_partition,
    create_topic,
    produce_timed_batches,
)
from kcompact_nb.core import (
    CleanerSpeed,
    Forecast,
    ForecastPass,
    PartitionLog,
    PassResult,
    ProducedBatch,
    ProduceModel,
    Simulation,
    exact_events,
    forecast,
    log_to_clean,
    play_model,
)
from kcompact_nb.io import batch_bytes, read_log_dir

_BEGIN = re.compile(r"^\[(?P<at>[^\]]+)\] INFO (?:Cleaner \d+: )?Beginning cleaning of log (?P<name>\S+)")
_STAMP = re.compile(r"^\[(?P<at>[^\]]+)\] ")
_SECTION = re.compile(r"cleaned log (?P<name>\S+) \(dirty section = \[(?P<first>\d+), (?P<end>\d+)\]\)")
START_LEAD_S = 3.0
"""How long before its first batch the live run starts its clock (the producer connects meanwhile)."""
SETTLE_S = 1.0
"""How long after the horizon the live run waits before it reads the broker (its log lines flushed, its gauges set).
The model should end quiet (a ``Burst`` of factor 0) for longer than a back-off and a pass, so that the broker's last
passes, like the forecast's, fall within the horizon."""


@dataclass(frozen=True)
class ObservedPass:
    """One of the broker's passes: which partition, when it began and ended (epoch ms, the log's clock), over what."""

    name: str
    start_ms: int
    end_ms: int
    first_dirty_offset: int
    end_offset: int
    log_line: str

    @property
    def duration_ms(self) -> int:
        return self.end_ms - self.start_ms


@dataclass
class ForecastProof:
    """The live run, the forecast and the replay of one model, and how they compare."""

    start_ms: int
    horizon_ms: int
    backoff_ms: int
    observed: list[ObservedPass]
    forecast: Forecast
    replay: list[PassResult]
    broker_segments: dict[str, list[tuple[int, int]]]
    replay_segments: dict[str, list[tuple[int, int]]]
    broker_offsets: dict[str, list[int]]
    replay_offsets: dict[str, list[int]]
    gauges: dict[str, float]
    replay_gauges: dict[str, int]
    speed: CleanerSpeed
    sends: list[tuple[str, int, int]]
    """Each batch sent: its partition's name, when it was due (epoch ms) and how late it went out (ms): a loaded
    machine's producer is late now and then, and the broker's rolls with it."""
    notes: list[str] = field(default_factory=list)

    def matched(self) -> list[tuple[ObservedPass, ForecastPass | None]]:
        """Each broker pass with the forecast's pass over the same partition and dirty-section end (None: none)."""
        by_key = {(p.name, p.end_offset): p for p in self.forecast.passes}
        return [(o, by_key.get((o.name, o.end_offset))) for o in self.observed]

    def start_differences_ms(self) -> list[int]:
        """For each matched pass: the forecast's start minus the broker's (ms)."""
        return [f.start_ms + self.start_ms - o.start_ms for o, f in self.matched() if f is not None]

    def slack_ms(self, observed: ObservedPass) -> int:
        """The cleaner's own scheduling slack for a pass: one back-off (an idle thread wakes once a back-off, at a phase
        of its own), plus the time the thread spent on its pass before (the broker's or the forecast's, the longer: a
        log that becomes cleanable meanwhile waits for it), plus the producer's lateness."""
        before = [o.duration_ms for o in self.observed if o.end_ms <= observed.start_ms][-1:]
        predicted = {(o.name, o.end_offset): f for o, f in self.matched()}.get((observed.name, observed.end_offset))
        if predicted is not None:
            before += [f.duration_ms for f in self.forecast.passes if f.end_ms <= predicted.start_ms][-1:]
        return self.backoff_ms + max(before, default=0) + self.lateness_ms(observed)

    def lateness_ms(self, observed: ObservedPass) -> int:
        """How late the producer sent the batches of the pass's partition due since its pass before (the largest)."""
        since = max((o.start_ms for o in self.observed if o.name == observed.name and o.end_ms <= observed.start_ms),
                    default=0)  # fmt: skip
        late = [ms for name, due, ms in self.sends if name == observed.name and since < due <= observed.start_ms]
        return max(late, default=0)

    def size_errors(self) -> dict[str, float]:
        """Each partition's size on disk at the horizon, the forecast's over the broker's, minus 1."""
        return {
            t.name: float(t.size_bytes[-1]) / max(sum(size for _, size in self.broker_segments[t.name]), 1) - 1
            for t in self.forecast.timelines
        }

    def busy_error(self) -> float:
        """The time the forecast's thread spent cleaning over the broker's, minus 1."""
        broker = sum(o.duration_ms for o in self.observed)
        return sum(p.duration_ms for p in self.forecast.passes) / max(broker, 1) - 1

    def duration_errors(self) -> list[float]:
        """For each matched pass: the forecast's duration over the broker's, minus 1."""
        return [(f.duration_ms - o.duration_ms) / max(o.duration_ms, 1) for o, f in self.matched() if f is not None]


def run_forecast_proof(
    broker: KafkaBroker,
    model: ProduceModel,
    *,
    topics: Mapping[str, Mapping[str, Any]],
    broker_properties: Mapping[str, str],
    horizon_ms: int,
    work_dir: Path,
) -> ForecastProof:
    """Produce ``model`` (one topic) to ``broker`` over ``horizon_ms``, read what its cleaner did, forecast and
    replay the same.

    ``topics`` maps the topic to ``{"partitions": n, "config": {...}}`` (created on the broker with exactly these
    configs, over ``create_topic``'s); ``broker_properties`` are the broker's settings (the ones it was started
    with that the cleaner reads: back-off, dedupe buffer, threads), which the simulated broker takes.
    """
    if len(topics) != 1 or set(topics) != set(model.topics):
        raise ValueError(f"a proof produces one topic, the model's: got {sorted(topics)} for {sorted(model.topics)}")
    ((name, spec),) = topics.items()
    config = {k: str(v) for k, v in spec.get("config", {}).items()}
    create_topic(broker, name, configs=config, partitions=int(spec.get("partitions", 1)))
    start_ms = (int(time.time() * 1000) // 1000 + int(START_LEAD_S)) * 1000
    batches = [(at_s, partition, data) for _, at_s, partition, data in _encoded(model, topics, start_ms, horizon_ms)]
    sent = produce_timed_batches(broker, name, batches, clock=time.time)
    sends = [
        (f"{name}-{partition}", round(due * 1000), max(0, round((at - due) * 1000)))
        for at, (due, partition, _) in zip(sent, batches, strict=True)
    ]
    time.sleep(max(0.0, start_ms / 1000 + horizon_ms / 1000 + SETTLE_S - time.time()))
    observed = observed_passes(broker.cleaner_log())
    gauges = cleaner_gauges(broker)
    copies = {name: _copy(broker, name, spec, work_dir) for name, spec in topics.items()}
    replay, sim = replay_passes(model, topics, broker_properties, start_ms, horizon_ms, observed)
    speed = calibrate_speed(observed, replay)
    predicted = forecast(
        model,
        horizon_ms=horizon_ms,
        broker=broker_properties,
        topics=topics,
        start_ms=start_ms,
        mode="exact",
        speed=speed,
    )
    return ForecastProof(
        start_ms=start_ms,
        horizon_ms=horizon_ms,
        backoff_ms=int(broker_properties.get("log.cleaner.backoff.ms", 15_000)),
        observed=observed,
        forecast=predicted,
        replay=replay,
        broker_segments={name: _layout(log) for logs in copies.values() for name, log in logs.items()},
        replay_segments={log.name: _layout(log) for log in sim.partitions()},
        broker_offsets={name: _offsets(log) for logs in copies.values() for name, log in logs.items()},
        replay_offsets={log.name: _offsets(log) for log in sim.partitions()},
        gauges=gauges,
        replay_gauges=replay_gauges(sim, replay, at_ms=start_ms + horizon_ms),
        speed=speed,
        sends=sends,
    )


def _encoded(
    model: ProduceModel, topics: Mapping[str, Mapping[str, Any]], start_ms: int, horizon_ms: int
) -> list[tuple[str, float, int, bytes]]:
    """Every batch of the model's exact stream as the bytes a producer sends, with its topic, send time (epoch s)
    and partition: the batches a scratch simulated broker stores (their offsets are the broker's to assign)."""
    scratch = Simulation(start_ms=start_ms)
    for name, spec in topics.items():
        scratch.create_topic(name, partitions=int(spec.get("partitions", 1)), config=spec.get("config", {}))
    scratch.cleaner.broker = scratch.broker.with_properties({"log.cleaner.enable": False})
    play_model(
        scratch, model, start_ms=start_ms, from_ms=start_ms, until_ms=start_ms + horizon_ms, horizon_ms=horizon_ms
    )
    partitions = {name: int(spec.get("partitions", 1)) for name, spec in topics.items()}
    appended = [
        event
        for chunk in exact_events(model, partitions, start_ms=start_ms, horizon_ms=horizon_ms)
        for event in chunk
        if isinstance(event, ProducedBatch)
    ]
    stored = {log.name: [b for s in log.segments for b in s.batches] for log in scratch.partitions()}
    cursor = dict.fromkeys(stored, 0)
    out = []
    for event in appended:
        name = f"{event.topic}-{event.partition}"
        batch = stored[name][cursor[name]]
        cursor[name] += 1
        # a producer's batch starts at offset 0 (the broker assigns offsets, and refuses another base offset);
        # the CRC covers the attributes onwards, not the base offset
        data = bytes(8) + batch_bytes(batch)[8:]
        out.append((event.topic, (start_ms + event.append_ms) / 1000, event.partition, data))
    return out


def observed_passes(cleaner_log: str) -> list[ObservedPass]:
    """The broker's passes from its ``log-cleaner.log``: the "Beginning cleaning of log" line's time (the pass's
    start, in the JVM's time zone, this machine's) and the "cleaned log" message's (its end), oldest first."""
    lines = cleaner_log.splitlines()
    begun: dict[str, int] = {}
    passes = []
    for i, line in enumerate(lines):
        if (match := _BEGIN.match(line)) is not None:
            begun[match["name"]] = _epoch_ms(match["at"])
            continue
        section = _SECTION.search(line)
        stamp = _STAMP.match(lines[i - 1]) if i else None
        if section is None or stamp is None or section["name"] not in begun:
            continue
        passes.append(
            ObservedPass(
                section["name"],
                begun.pop(section["name"]),
                _epoch_ms(stamp["at"]),
                int(section["first"]),
                int(section["end"]),
                "\n".join(lines[i : i + 8]),
            )
        )
    return passes


def _epoch_ms(text: str) -> int:
    """A log4j ``%d`` time (``2026-11-29 04:40:00,123``, local time) in epoch ms."""
    return int(datetime.strptime(text, "%Y-%m-%d %H:%M:%S,%f").timestamp() * 1000)


def replay_passes(
    model: ProduceModel,
    topics: Mapping[str, Mapping[str, Any]],
    broker_properties: Mapping[str, str],
    start_ms: int,
    horizon_ms: int,
    observed: list[ObservedPass],
) -> tuple[list[PassResult], Simulation]:
    """The model's batches appended to a simulated broker, and the broker's passes run on it at their times and
    over their dirty sections (``Cleaner.clean`` with the broker's bounds): the same inputs as the broker's."""
    sim = Simulation(dict(broker_properties), start_ms=start_ms)
    for name, spec in topics.items():
        sim.create_topic(name, partitions=int(spec.get("partitions", 1)), config=spec.get("config", {}))
    idle = sim.broker.with_properties({"log.cleaner.enable": False})  # no pass but the broker's own
    sim.cleaner.broker = idle
    results, at = [], start_ms
    end = start_ms + horizon_ms
    for observed_pass in [*observed, None]:
        until = end if observed_pass is None else max(at, min(observed_pass.start_ms, end))
        if until > at:
            play_model(sim, model, start_ms=start_ms, from_ms=at, until_ms=until, horizon_ms=horizon_ms)
            at = until
        if observed_pass is None:
            break
        topic, _, partition = observed_pass.name.rpartition("-")
        result = sim.clean_log(
            topic,
            partition=int(partition),
            first_dirty_offset=observed_pass.first_dirty_offset,
            first_uncleanable_offset=observed_pass.end_offset,
            now_ms=observed_pass.start_ms,
            force=True,
        )
        if result is not None:
            results.append(result)
    return results, sim


def calibrate_speed(observed: list[ObservedPass], replay: list[PassResult]) -> CleanerSpeed:
    """A :class:`CleanerSpeed` fitted to the broker's passes: each one's duration (from its log) against the map's
    bytes and the bytes read of the replay's same pass, by non-negative least squares over the three terms."""
    rows = [
        (o.duration_ms / 1000, r.stats.map_bytes_read, r.stats.bytes_read)
        for o, r in zip(observed, replay, strict=False)
        if (o.first_dirty_offset, o.end_offset) == (r.first_dirty_offset, r.end_offset)
    ]
    if len(rows) < 3:
        raise ValueError(f"calibrating a cleaner's speed needs at least 3 passes, got {len(rows)}")
    secs = numpy.array([r[0] for r in rows])
    design = numpy.array([[1.0, r[1], r[2]] for r in rows])
    coefficients = _non_negative_least_squares(design, secs)
    fixed, per_map_byte, per_read_byte = (float(c) for c in coefficients)
    return CleanerSpeed(
        pass_ms=fixed * 1000,
        index_bytes_per_second=1 / per_map_byte if per_map_byte > 0 else 1e12,
        clean_bytes_per_second=1 / per_read_byte if per_read_byte > 0 else 1e12,
    )


def _non_negative_least_squares(design: numpy.ndarray, target: numpy.ndarray) -> numpy.ndarray:
    """The least-squares coefficients with every negative one dropped and the rest refitted (three columns)."""
    active = list(range(design.shape[1]))
    while True:
        solution, *_ = numpy.linalg.lstsq(design[:, active], target, rcond=None)
        if (solution >= 0).all():
            out = numpy.zeros(design.shape[1])
            out[active] = solution
            return out
        active = [column for column, value in zip(active, solution, strict=True) if value >= 0]
        if not active:
            return numpy.zeros(design.shape[1])


def replay_gauges(sim: Simulation, replay: list[PassResult], *, at_ms: int) -> dict[str, int]:
    """Kafka's cleaner gauges as the replay leaves them (one cleaner thread): the last pass's stats, and the
    dirtiest log's ratio at the end."""
    last = replay[-1] if replay else None
    ratios = [log_to_clean(log, now_ms=at_ms).cleanable_ratio for log in sim.partitions() if log.size_bytes]
    return {
        "max-dirty-percent": int(100 * max(ratios, default=0.0)),
        "max-buffer-utilization-percent": int(100 * last.stats.buffer_utilization) if last else 0,
        "cleaner-recopy-percent": int(100 * last.stats.bytes_written / max(last.stats.bytes_read, 1)) if last else 0,
        "uncleanable-partitions-count": len(sim.uncleanable),
    }


def _copy(broker: KafkaBroker, topic: str, spec: Mapping[str, Any], work_dir: Path) -> dict[str, PartitionLog]:
    """The broker's partitions of ``topic`` as it left them, each copied into a log dir of its own and read."""
    logs = {}
    for partition in range(int(spec.get("partitions", 1))):
        folder = work_dir / f"{topic}-{partition}-copy"
        copy_partition(broker, topic, folder, partition=partition)
        for name, loaded in read_log_dir(folder).partitions.items():
            logs[name] = loaded.log
    return logs


def _layout(log: PartitionLog) -> list[tuple[int, int]]:
    return [(segment.base_offset, segment.size_bytes) for segment in log.segments]


def _offsets(log: PartitionLog) -> list[int]:
    return [record.offset for segment in log.segments for batch in segment.batches for record in batch.records]
