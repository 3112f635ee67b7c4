"""What a stepper or what-if explorer steps through: a scenario's steps, or a log's cleaner passes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from kcompact_nb.core import (
    BrokerConfig,
    Frame,
    OffsetMapSpec,
    PartitionLog,
    Simulation,
    Strategy,
    Timeline,
    TopicConfig,
    copy_log,
    pass_frames,
)
from kcompact_nb.scenario import Scenario, load_scenario, scenario_frames, simulation_for
from kcompact_nb.widgets._config_panel import ConfigPanel

CHECK_OPS = frozenset({"expect", "snapshot"})
"""Scenario ops that look at the partition without changing it."""
Source = Scenario | str | Path | PartitionLog | Simulation
"""A scenario (parsed or a path), a partition log, or a simulation (one of its partitions)."""


class FrameSource(Protocol):
    """Builds the timeline of one partition under the configs of a panel."""

    topic: TopicConfig
    broker: BrokerConfig
    by: str
    """The natural x axis over frames: ``"time"`` for scenarios, ``"frame"`` for passes at one time."""
    unit: str
    """What one step is: ``"step"`` (a scenario's step, numbered as in the file) or ``"pass"`` (one cleaner pass at
    the source's time, offset map and strategy over the frame before: the next pass a layout of that frame shows)."""
    offset_map: OffsetMapSpec | None
    """The passes' offset map (None: the broker's dedupe buffer)."""
    strategy: Strategy | None
    """The passes' strategy (None: the topic's)."""

    def timeline(self, panel: ConfigPanel) -> Timeline: ...

    def step_number(self, frame: Frame) -> int | None:
        """The number of the step that made ``frame`` (None for the start)."""
        ...

    def is_check(self, frame: Frame) -> bool:
        """True for frames of steps that only check the partition (a scenario's ``expect``, ``snapshot``)."""
        ...


@dataclass
class ScenarioSource:
    """A scenario re-run from its start with the panel's properties overriding its topic's and broker's."""

    scenario: Scenario
    name: str
    partition: int
    topic: TopicConfig
    broker: BrokerConfig
    by: str = "time"
    unit: str = "step"
    offset_map: OffsetMapSpec | None = None
    strategy: Strategy | None = None

    def step_number(self, frame: Frame) -> int | None:
        """Frame ``i`` follows the scenario's step ``i - 1`` (``steps[i - 1]`` in the file)."""
        return frame.index - 1 if frame.index else None

    def is_check(self, frame: Frame) -> bool:
        step = self.step_number(frame)
        return step is not None and self.scenario.steps[step].op in CHECK_OPS

    def timeline(self, panel: ConfigPanel) -> Timeline:
        frames = scenario_frames(
            self.scenario,
            topic=self.name,
            partition=self.partition,
            topic_config=panel.topic_properties(),
            broker_config=panel.broker_properties(),
        )
        timeline = Timeline(frames)
        timeline.compute_all()  # scenarios are small: every step is known, so the slider spans them all
        return timeline


@dataclass
class LogSource:
    """Cleaner passes at ``now_ms`` over a copy of ``log`` carrying the panel's configs."""

    log: PartitionLog
    now_ms: int
    topic: TopicConfig
    broker: BrokerConfig
    offset_map: OffsetMapSpec | None = None
    strategy: Strategy | None = None
    by: str = "frame"
    unit: str = "pass"

    def step_number(self, frame: Frame) -> int | None:
        """Frame ``i`` follows pass ``i``."""
        return frame.index or None

    def is_check(self, frame: Frame) -> bool:
        return False

    def timeline(self, panel: ConfigPanel) -> Timeline:
        start = copy_log(self.log, config=panel.topic_config, broker=panel.broker_config)
        return Timeline(pass_frames(start, now_ms=self.now_ms, offset_map=self.offset_map, strategy=self.strategy))


def frame_source(
    source: Source, *, topic: str | None, partition: int, now_ms: int | None, offset_map: OffsetMapSpec | None
) -> FrameSource:
    """The frame source for any :data:`Source` (``now_ms``: pass time for logs, default their last change)."""
    if isinstance(source, PartitionLog):
        when = source.active_segment.last_modified_ms if now_ms is None else now_ms
        return LogSource(source, when, source.config, source.broker, offset_map)
    if isinstance(source, Simulation):
        log = source.log(topic, partition)
        strategy = source.cleaner.strategies.get(log.topic)
        when = source.now_ms if now_ms is None else now_ms
        return LogSource(log, when, log.config, log.broker, offset_map, strategy)
    scenario = source if isinstance(source, Scenario) else load_scenario(source)
    sim = simulation_for(scenario)
    log = sim.log(topic, partition)
    return ScenarioSource(scenario, log.topic, partition, log.config, log.broker)
