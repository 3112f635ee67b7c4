"""A scenario as frames of one partition: one per step, with the passes the step ran on it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from kcompact_nb.core import Frame, Iteration, copy_log, format_instant_ms
from kcompact_nb.scenario._errors import ScenarioError
from kcompact_nb.scenario._model import Scenario, TopicSpec
from kcompact_nb.scenario._parse import load_scenario
from kcompact_nb.scenario._runner import ScenarioRunner


def scenario_frames(
    scenario: Scenario | str | Path,
    *,
    topic: str | None = None,
    partition: int = 0,
    topic_config: Mapping[str, Any] | None = None,
    broker_config: Mapping[str, Any] | None = None,
) -> Iterator[Frame]:
    """Run ``scenario`` lazily and yield ``topic``-``partition`` before the first step and after each step.

    ``topic`` may be omitted when the scenario has one topic. ``topic_config`` and ``broker_config``
    (Kafka property names) override the scenario's own: the same workload under another config.
    Config errors (``ConfigError``) are raised before the first frame.
    """
    parsed = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    name = _topic_name(parsed, topic)
    runner = ScenarioRunner(with_overrides(parsed, name, topic_config or {}, broker_config or {}))
    decisions: list[Iteration] = []
    runner.sim.cleaner.decisions = decisions
    log_name = runner.sim.log(name, partition).name
    yield Frame(0, "start", runner.sim.now_ms, copy_log(runner.sim.log(name, partition)))
    while not runner.done:
        decisions.clear()
        entry = runner.step()
        passes = tuple(it.result for it in decisions if it.result is not None and it.result.name == log_name)
        log = copy_log(runner.sim.log(name, partition))
        yield Frame(entry["index"] + 1, step_label(entry), runner.sim.now_ms, log, passes, tuple(decisions))


def with_overrides(
    scenario: Scenario, topic: str, topic_config: Mapping[str, Any], broker_config: Mapping[str, Any]
) -> Scenario:
    """``scenario`` with ``topic``'s config and the broker's config overridden (property names)."""
    spec = scenario.topics[topic]
    topics = {**scenario.topics, topic: TopicSpec(spec.partitions, {**spec.config, **topic_config})}
    return replace(scenario, topics=topics, broker={**scenario.broker, **broker_config})


def step_label(entry: Mapping[str, Any]) -> str:
    """A one-line account of a step's result entry for people, e.g. ``step 3 append: offsets 4-4, rolled``
    or ``step 4 advance: clock at t = 7 d 1 ms``."""
    result = entry["result"]
    head = f"step {entry['index']} {entry['op']}"
    if entry["op"] == "append" or entry["op"] == "end_txn":
        return f"{head}: offsets {result['first_offset']}-{result['last_offset']}" + (
            ", rolled" if result["rolled"] else ""
        )
    if entry["op"] == "clean":
        if result["selected"] is None:
            return f"{head}: no log eligible"
        return f"{head}: [{result['first_dirty_offset']}, {result['end_offset']}) cleaned"
    if entry["op"] == "expect":
        return f"{head}: {'passed' if result['passed'] else 'FAILED'}"
    if entry["op"] in ("advance", "set_time"):
        return f"{head}: clock at {format_instant_ms(result['now_ms'])}"
    scalars = ", ".join(
        f"{k} {v}" for k, v in result.items() if isinstance(v, (int, str)) and k not in ("topic", "partition")
    )
    return f"{head}: {scalars}" if scalars else head


def _topic_name(scenario: Scenario, topic: str | None) -> str:
    if topic is None:
        if len(scenario.topics) != 1:
            raise ScenarioError("topics", f"name the topic: the scenario has {len(scenario.topics)} topics")
        return next(iter(scenario.topics))
    if topic not in scenario.topics:
        raise ScenarioError("topics", f"unknown topic {topic!r}; known: {', '.join(sorted(scenario.topics))}")
    return topic
