"""Fidelity: the simulator against a real Kafka broker, pass by pass (needs the broker layer's Java and Maven).

Not imported by ``kcompact_nb``.
"""

from __future__ import annotations

from kcompact_nb.fidelity._catalog import CATEGORIES, catalog, generate_workload
from kcompact_nb.fidelity._compare import (
    broker_settings,
    catch_up,
    cleaner_messages,
    compare_round,
    differences,
    layout,
    load_round,
    load_stage,
    log_line_facts,
    marks_uncleanable,
    partition_file_differences,
    pass_time_ms,
    simulate_broker_pass,
    simulate_phases,
    topic_settings,
    uncleanable_message,
)
from kcompact_nb.fidelity._conformance_summary import conformance_summary
from kcompact_nb.fidelity._differential import DifferentialResult, RoundResult, run_differential
from kcompact_nb.fidelity._forecast_proof import (
    ForecastProof,
    ObservedPass,
    calibrate_speed,
    observed_passes,
    run_forecast_proof,
)
from kcompact_nb.fidelity._report import ConformanceReport, reproduction_scenario, save_reproductions
from kcompact_nb.fidelity._workload import BASE_TS_MS, HOLD, Phase, Produce, Round, Workload

__all__ = [
    "BASE_TS_MS",
    "CATEGORIES",
    "ConformanceReport",
    "HOLD",
    "DifferentialResult",
    "ForecastProof",
    "ObservedPass",
    "observed_passes",
    "Phase",
    "Produce",
    "Round",
    "RoundResult",
    "Workload",
    "broker_settings",
    "calibrate_speed",
    "catalog",
    "catch_up",
    "cleaner_messages",
    "marks_uncleanable",
    "uncleanable_message",
    "compare_round",
    "conformance_summary",
    "differences",
    "generate_workload",
    "layout",
    "load_round",
    "load_stage",
    "partition_file_differences",
    "log_line_facts",
    "pass_time_ms",
    "reproduction_scenario",
    "run_differential",
    "run_forecast_proof",
    "save_reproductions",
    "simulate_broker_pass",
    "simulate_phases",
    "topic_settings",
]
