"""Fidelity: the simulator against a real Kafka broker, pass by pass (needs the broker layer's Java and Maven).

Not imported by ``kcompact_nb``.
"""

from __future__ import annotations

from kcompact_nb.fidelity._compare import catch_up, differences, layout, load_stage, pass_time_ms, simulate_broker_pass
from kcompact_nb.fidelity._differential import (
    DifferentialResult,
    broker_settings,
    compare_stages,
    log_line_facts,
    run_differential,
    topic_settings,
)
from kcompact_nb.fidelity._workload import BASE_TS_MS, Workload, generate_workload

__all__ = [
    "BASE_TS_MS",
    "DifferentialResult",
    "Workload",
    "broker_settings",
    "catch_up",
    "compare_stages",
    "differences",
    "generate_workload",
    "layout",
    "load_stage",
    "log_line_facts",
    "pass_time_ms",
    "run_differential",
    "simulate_broker_pass",
    "topic_settings",
]
