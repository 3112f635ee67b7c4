"""A forecast's results: each pass, each partition's sizes over time, Kafka's cleaner metrics, record lifetimes.

Times are milliseconds from the forecast's start (``Forecast.start_ms`` is that start's epoch time); sizes are
bytes of the modelled broker (a forecast that samples keys has already scaled its own back).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy

from kcompact_nb.core.cleaner import OFFSET_ENTRY_BYTES, CleanerSpeed
from kcompact_nb.core.forecasting._produce_model import ProduceModel, ProduceModelError
from kcompact_nb.core.model import BrokerConfig, TopicConfig


@dataclass(frozen=True)
class ForecastPass:
    """One cleaner pass: which partition, which thread, when, over what, and what it did (``CleanerStats``)."""

    topic: str
    partition: int
    thread: int
    start_ms: int
    end_ms: int
    first_dirty_offset: int
    first_uncleanable_offset: int
    """Where the dirty section the cleaner chose ends; ``end_offset`` is where the pass stopped (earlier when its
    map filled)."""
    end_offset: int
    cleanable_ratio: float
    """The dirty ratio that made the cleaner choose the log (``LogToClean.cleanableRatio``)."""
    ratio_after: float
    size_before_bytes: int
    size_after_bytes: int
    dirty_bytes: int
    """Bytes of the dirty section the pass read to build its offset map (``mapBytesRead``)."""
    bytes_read: int
    bytes_written: int
    map_entries: int
    """Keys the pass's offset map held (``SkimpyOffsetMap``, 24 bytes each)."""
    dirty_keys: int
    """Distinct keys of the dirty section the cleaner chose: the map's entries, unless the map filled and the pass
    stopped early (``map_full``), when the section held more."""
    buffer_utilization: float
    map_full: bool
    elapsed_secs: float
    log_line: str = field(repr=False)

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    @property
    def duration_ms(self) -> int:
        return self.end_ms - self.start_ms


@dataclass(frozen=True)
class PartitionTimeline:
    """One partition over time: sampled on a grid, and just before and after each of its passes."""

    topic: str
    partition: int
    times_ms: numpy.ndarray
    size_bytes: numpy.ndarray
    """Bytes of every segment, the active one included (``Log.size``, what ``kafka-log-dirs`` reports)."""
    live_bytes: numpy.ndarray
    """Bytes of each live key's latest record: what a fully compacted partition cannot go below."""
    dirty_ratio: numpy.ndarray
    """The cleanable ratio the cleaner would compute at that moment (spec 5.2)."""
    cleanable_bytes: numpy.ndarray
    segments: numpy.ndarray

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True)
class MetricReading:
    """Kafka's cleaner gauges as they read after a pass (``LogCleaner``'s and ``LogCleanerManager``'s, each an int).

    ``max-dirty-percent`` is the dirtiest considered log's ratio at the last selection; the others take the
    maximum (or, for the recopy percent, the sum) over the threads' last passes.
    """

    at_ms: int
    max_dirty_percent: int
    max_clean_time_secs: int
    max_compaction_delay_secs: int
    uncleanable_partitions_count: int
    max_buffer_utilization_percent: int
    cleaner_recopy_percent: int

    def as_dict(self) -> dict[str, int]:
        """The gauges by Kafka's metric names."""
        return {
            "max-dirty-percent": self.max_dirty_percent,
            "max-clean-time-secs": self.max_clean_time_secs,
            "max-compaction-delay-secs": self.max_compaction_delay_secs,
            "uncleanable-partitions-count": self.uncleanable_partitions_count,
            "max-buffer-utilization-percent": self.max_buffer_utilization_percent,
            "cleaner-recopy-percent": self.cleaner_recopy_percent,
        }


@dataclass(frozen=True)
class RecordLifetimes:
    """Traced records: written when, removed when (-1: still stored at the end), how many each stands for."""

    topic: str
    written_ms: numpy.ndarray
    removed_ms: numpy.ndarray
    weights: numpy.ndarray
    tombstone: numpy.ndarray

    def removed(self, *, tombstones: bool) -> tuple[numpy.ndarray, numpy.ndarray]:
        """Lifetimes (ms from write to the removing pass) of removed tombstones or other records, and weights."""
        chosen = (self.removed_ms >= 0) & (self.tombstone == tombstones)
        return self.removed_ms[chosen] - self.written_ms[chosen], self.weights[chosen]

    def quantiles(self, qs: tuple[float, ...], *, tombstones: bool) -> list[int]:
        """Weighted quantiles of the removed records' lifetimes (ms); empty when none was removed."""
        lives, weights = self.removed(tombstones=tombstones)
        if not len(lives):
            return []
        order = numpy.argsort(lives)
        cumulative = numpy.cumsum(weights[order]) / weights.sum()
        ranked = lives[order]
        return [int(ranked[min(int(numpy.searchsorted(cumulative, q)), len(lives) - 1)]) for q in qs]


@dataclass(frozen=True)
class KeepingUp:
    """Whether the cleaner keeps up with one partition: how dirty the log is when its passes start, over time.

    A cleaner that keeps up picks a log soon after it becomes eligible, at about the same dirty ratio pass after
    pass; one that falls behind reaches it later and later, dirtier each time (its backlog grows). Telling them apart
    takes passes in both halves of the horizon (the first pass, over a log never cleaned, aside); with fewer, the
    ratios are NaN and the verdict says so.
    """

    name: str
    passes: int
    mean_interval_ms: float
    """Mean time between the partition's passes (its dirty ratio's sawtooth period)."""
    first_ratio: float
    """Mean dirty ratio at the start of the passes in the horizon's first half (the first pass aside; NaN: none)."""
    last_ratio: float
    """The same in the second half."""
    last_dirty_bytes: float
    """Mean dirty bytes a pass cleaned in the second half."""

    @property
    def falling_behind(self) -> bool:
        """The dirty ratio at which passes start rose by more than 5 points from the first half to the second."""
        return self.last_ratio - self.first_ratio > FALLING_BEHIND_RATIO  # False when either is NaN

    @property
    def verdict(self) -> str:
        """``keeps up``, ``falls behind``, or ``too few passes to tell`` (none in one half of the horizon)."""
        if math.isnan(self.first_ratio) or math.isnan(self.last_ratio):
            return "too few passes to tell"
        return "falls behind" if self.falling_behind else "keeps up"


FALLING_BEHIND_RATIO = 0.05


@dataclass(frozen=True)
class Forecast:
    """What a broker's cleaner does over ``horizon_ms`` under a produce model.

    ``mode`` is ``exact`` or ``folded``; ``key_fraction`` is the share of keys a folded run follows (1: all);
    ``notes`` say, in words, what is exact and what is estimated. Times are ms from the start (epoch
    ``start_ms``); sizes are the modelled broker's bytes.
    """

    model: ProduceModel
    broker: BrokerConfig
    topics: Mapping[str, Mapping[str, Any]]
    start_ms: int
    horizon_ms: int
    mode: str
    key_fraction: float
    speed: CleanerSpeed | None
    passes: list[ForecastPass]
    timelines: list[PartitionTimeline]
    metrics: list[MetricReading]
    lifetimes: Mapping[str, RecordLifetimes]
    expected_records: Mapping[str, float]
    produced_bytes: Mapping[str, int]
    """Bytes producers wrote to each topic over the horizon (every batch and marker as stored, before cleaning)."""
    notes: list[str] = field(default_factory=list)

    @property
    def threads(self) -> int:
        return self.broker.log_cleaner_threads

    def topic_config(self, topic: str) -> TopicConfig:
        """A topic's config as the forecast's broker resolves it (``cleanup.policy=compact`` unless it says)."""
        properties = {"cleanup.policy": "compact", **self.topics.get(topic, {}).get("config", {})}
        return TopicConfig.from_properties(properties, broker=self.broker)

    def timeline(self, topic: str, partition: int = 0) -> PartitionTimeline:
        """One partition's samples."""
        for timeline in self.timelines:
            if (timeline.topic, timeline.partition) == (topic, partition):
                return timeline
        raise ProduceModelError(f"the forecast has no partition {topic}-{partition}")

    def busy_fraction(self, period_ms: int | None = None) -> numpy.ndarray:
        """Each thread's share of time spent in passes: over the horizon (shape ``(threads,)``), or per period
        of ``period_ms`` (shape ``(threads, periods)``; the last one's share of its time up to the horizon)."""
        periods = 1 if period_ms is None else -(-self.horizon_ms // period_ms)
        length = self.horizon_ms if period_ms is None else period_ms
        busy = numpy.zeros((self.threads, periods))
        for p in self.passes:
            start, end = p.start_ms, min(p.end_ms, self.horizon_ms)
            while start < end:
                index = int(start // length)
                stop = min(end, (index + 1) * length)
                busy[p.thread, min(index, periods - 1)] += stop - start
                start = stop
        # the last period may end at the horizon, short of a whole period
        lengths = numpy.minimum(length, self.horizon_ms - numpy.arange(periods) * length)
        fraction = busy / lengths
        return fraction[:, 0] if period_ms is None else fraction

    def keeping_up(self) -> list[KeepingUp]:
        """For each partition: how often it is cleaned and how dirty it is when passes start (its first pass, over
        a log never cleaned, aside)."""
        out = []
        half = self.horizon_ms / 2
        for timeline in self.timelines:
            mine = self._passes_of(timeline)
            starts = numpy.array([p.start_ms for p in mine], dtype=float)
            later = starts[1:]
            ratios = numpy.array([p.cleanable_ratio for p in mine], dtype=float)[1:]
            dirty = numpy.array([p.dirty_bytes for p in mine], dtype=float)[1:]
            first, last = later < half, later >= half
            out.append(
                KeepingUp(
                    timeline.name,
                    len(mine),
                    float(numpy.diff(starts).mean()) if len(starts) > 1 else float("nan"),
                    float(ratios[first].mean()) if first.any() else math.nan,
                    float(ratios[last].mean()) if last.any() else math.nan,
                    float(dirty[last].mean()) if last.any() else 0.0,
                )
            )
        return out

    def buffer_needed_bytes(self, p: ForecastPass) -> int:
        """The ``log.cleaner.dedupe.buffer.size`` per thread whose offset map holds ``p``'s dirty keys in one pass (24
        bytes a key, the map filled to ``log.cleaner.io.buffer.load.factor``)."""
        return math.ceil(p.dirty_keys * OFFSET_ENTRY_BYTES / self.broker.log_cleaner_io_buffer_load_factor)

    def dedupe_buffer_needed_bytes(self) -> int:
        """The ``log.cleaner.dedupe.buffer.size`` per thread that would clean every pass's dirty section in one pass."""
        return max((self.buffer_needed_bytes(p) for p in self.passes), default=0)

    def metrics_summary(self) -> dict[str, tuple[int, int]]:
        """Each gauge by Kafka's name: (its reading at the end, its largest reading over the horizon)."""
        if not self.metrics:
            return {name: (0, 0) for name in MetricReading(0, 0, 0, 0, 0, 0, 0).as_dict()}
        readings = [m.as_dict() for m in self.metrics]
        return {name: (readings[-1][name], max(r[name] for r in readings)) for name in readings[0]}

    def _passes_of(self, timeline: PartitionTimeline) -> list[ForecastPass]:
        return [p for p in self.passes if (p.topic, p.partition) == (timeline.topic, timeline.partition)]
