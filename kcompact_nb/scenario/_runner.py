"""Runs a validated scenario on a :class:`Simulation` and builds the result document."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kcompact_nb.core import BrokerConfig, KcompactError, Simulation
from kcompact_nb.scenario._errors import ScenarioError
from kcompact_nb.scenario._execute import states
from kcompact_nb.scenario._model import RESULT_FORMAT, Scenario, Step
from kcompact_nb.scenario._ops import execute
from kcompact_nb.scenario._parse import load_scenario


class ScenarioRunner:
    """Steps through a scenario; notebooks call :meth:`step`, the CLI :meth:`run`.

    ``sim`` is the live :class:`Simulation`; ``step_results`` and ``snapshots`` fill up as
    steps run. A step that the model refuses (an offset below the log end, say) raises
    :class:`ScenarioError` with that step's path.
    """

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.sim = simulation_for(scenario)
        self.position = 0
        self.step_results: list[dict[str, Any]] = []
        self.snapshots: dict[str, dict[str, Any]] = {}

    @property
    def done(self) -> bool:
        return self.position >= len(self.scenario.steps)

    @property
    def passed(self) -> bool:
        """Every ``expect`` run so far passed."""
        return all(r["result"]["passed"] for r in self.step_results if r["op"] == "expect")

    def step(self) -> dict[str, Any]:
        """Run the next step; returns its entry of the result's ``steps`` list."""
        if self.done:
            raise ScenarioError("steps", f"all {len(self.scenario.steps)} steps have run")
        step = self.scenario.steps[self.position]
        entry = {"index": step.index, "op": step.op, "result": _run(self.sim, step)}
        if step.op == "snapshot":
            self.snapshots[step.args["label"]] = states(self.sim)
        self.step_results.append(entry)
        self.position += 1
        return entry

    def run(self) -> dict[str, Any]:
        """Run the remaining steps; returns the result document."""
        while not self.done:
            self.step()
        return self.result()

    def result(self) -> dict[str, Any]:
        """The ``kcompact-scenario-result/1`` document of the steps run so far."""
        return {
            "format": RESULT_FORMAT,
            "passed": self.passed,
            "steps": list(self.step_results),
            "snapshots": dict(self.snapshots),
            "final": states(self.sim),
        }


def simulation_for(scenario: Scenario) -> Simulation:
    """A fresh simulation with the scenario's broker, clock start and topics."""
    sim = Simulation(BrokerConfig.from_properties(scenario.broker), start_ms=scenario.start_ms)
    for name, spec in scenario.topics.items():
        sim.create_topic(name, partitions=spec.partitions, config=spec.config)
    return sim


def run_scenario(scenario: Scenario | str | Path) -> dict[str, Any]:
    """Validate (when given a path) and run a scenario; returns the result document."""
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    return ScenarioRunner(scenario).run()


def _run(sim: Simulation, step: Step) -> dict[str, Any]:
    try:
        return execute(sim, step)
    except ScenarioError:
        raise
    except KcompactError as exc:
        raise ScenarioError(step.path, f"{step.op} failed: {exc}") from exc
