"""Scenario run time for every bundled scenario (``data/samples/scenarios/``)."""

from __future__ import annotations

from pathlib import Path

from bench._runner import Measurement, benchmark, timed
from kcompact_nb.scenario import load_scenario, run_scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "samples" / "scenarios"


def _register(path: Path) -> None:
    scenario = load_scenario(path)

    @benchmark(f"scenario: run {path.name}", repeat=5)
    def run() -> Measurement:
        def work() -> tuple[int, int]:
            run_scenario(scenario)
            return 0, 0

        return timed(work)


for _path in sorted(SCENARIOS.glob("*.json")):
    _register(_path)
