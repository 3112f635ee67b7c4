"""Scenario files (``kcompact-scenario/1``): parse, validate, run, and report results.

A scenario drives a :class:`~kcompact_nb.core.Simulation` step by step; see
``docs/scenario-format.md`` for the contract and ``scenario.schema.json`` (shipped with the package)
for its JSON Schema.
"""

from __future__ import annotations

from kcompact_nb.scenario._errors import ScenarioError
from kcompact_nb.scenario._frames import scenario_frames
from kcompact_nb.scenario._model import FORMAT, RESULT_FORMAT, Scenario, Step, TopicSpec
from kcompact_nb.scenario._parse import load_scenario, parse_scenario
from kcompact_nb.scenario._runner import ScenarioRunner, run_scenario, simulation_for
from kcompact_nb.scenario._schema import schema, schema_path
from kcompact_nb.scenario._views import live_state, retained_keys, retained_offsets

__all__ = [
    "FORMAT",
    "RESULT_FORMAT",
    "Scenario",
    "ScenarioError",
    "ScenarioRunner",
    "Step",
    "TopicSpec",
    "live_state",
    "load_scenario",
    "parse_scenario",
    "retained_keys",
    "retained_offsets",
    "run_scenario",
    "scenario_frames",
    "schema",
    "schema_path",
    "simulation_for",
]
