"""The conformance report: workloads and passes compared per Kafka version, mismatches as scenario files."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kcompact_nb.broker import COMPACTED_TOPIC_CONFIGS
from kcompact_nb.fidelity._compare import broker_properties, load_round
from kcompact_nb.fidelity._differential import DifferentialResult, RoundResult
from kcompact_nb.fidelity._workload import HOLD
from kcompact_nb.scenario import retained_offsets

SCENARIO_FILE = "scenario.json"


@dataclass(frozen=True)
class ConformanceReport:
    """Differential results of one or more Kafka versions."""

    results: tuple[DifferentialResult, ...]

    @property
    def versions(self) -> list[str]:
        return sorted({r.version for r in self.results}, reverse=True)

    def counts(self, version: str) -> tuple[int, int, int]:
        """``(workloads, passes, mismatches)`` compared against ``version``."""
        mine = [r for r in self.results if r.version == version]
        return len(mine), sum(r.passes for r in mine), sum(len(r.mismatches) for r in mine)

    def summary_line(self, version: str) -> str:
        """``"N workloads, M passes, K mismatches against Apache Kafka <version>"``."""
        workloads, passes, mismatches = self.counts(version)
        return f"{workloads} workloads, {passes} passes, {mismatches} mismatches against Apache Kafka {version}"

    def log_files_identical(self, version: str) -> int:
        """How many workloads on ``version`` left ``.log`` files identical to Kafka's, byte for byte."""
        return sum(1 for r in self.results if r.version == version and r.log_files_identical)

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per version: workloads, passes, mismatches, workloads byte-identical on ``.log`` files and the
        summary line (JSON-ready, for notebooks)."""
        summary = {}
        for version in self.versions:
            workloads, passes, mismatches = self.counts(version)
            line = self.summary_line(version)
            summary[version] = {"workloads": workloads, "passes": passes, "mismatches": mismatches,
                                "log_files_identical": self.log_files_identical(version), "line": line}  # fmt: skip
        return summary

    def render(self) -> str:
        """The report as text: a summary line per version, workloads per category, then every mismatch."""
        lines = [self.summary_line(v) for v in self.versions]
        for version in self.versions:
            counts = Counter(r.workload.category for r in self.results if r.version == version)
            lines.append(f"  {version}: " + ", ".join(f"{name} {n}" for name, n in sorted(counts.items())))
            identical, total = self.log_files_identical(version), sum(counts.values())
            same = f"{identical} of {total} workloads leave .log files identical to Kafka's, byte for byte"
            lines.append(f"  {version}: {same}")
        for result in self.results:
            for round_ in result.rounds:
                if round_.mismatches:
                    lines.append(f"MISMATCH {result.workload.name} round {round_.index} on Kafka {result.version}")
                    lines.append(f"  reproduce: kcompact scenario run {round_.folder / SCENARIO_FILE}")
                    lines += [f"  {m}" for m in round_.mismatches]
        return "\n".join(lines)

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)


def save_reproductions(results: Sequence[DifferentialResult]) -> list[Path]:
    """Write a scenario file next to each mismatching round's copies; returns their paths."""
    written = []
    for result in results:
        for round_ in result.rounds:
            if round_.mismatches:
                path = round_.folder / SCENARIO_FILE
                path.write_text(json.dumps(reproduction_scenario(result, round_), indent=2) + "\n", encoding="utf-8")
                written.append(path)
    return written


def reproduction_scenario(result: DifferentialResult, round_: RoundResult) -> dict[str, Any]:
    """A ``kcompact-scenario/1`` document: load Kafka's "before", run the round's phases, expect Kafka's "after".

    Phases before the last run one cleaner iteration (they wait for retention); the last runs one
    iteration per pass Kafka made, plus one that should find nothing to do.
    """
    workload, topic = result.workload, result.topic
    phases = workload.rounds[round_.index].phases
    steps: list[dict[str, Any]] = [{"op": "load_log_dir", "path": f"before/{topic}-0"}]
    for number, (phase, released) in enumerate(zip(phases, round_.phase_ms, strict=True)):
        steps += [{"op": "set_time", "now_ms": released},
                  {"op": "set_config", "topic": topic,
                   "config": {**COMPACTED_TOPIC_CONFIGS, **phase.configs, **workload.kept}}]  # fmt: skip
        iterations = round_.kafka_passes + 1 if number == len(phases) - 1 else 1
        steps += [s for _ in range(iterations) for s in ({"op": "clean"}, {"op": "advance", "ms": 1})]
    steps.append({"op": "expect", "topic": topic, **_kafka_state(result, round_)})
    return {
        "format": "kcompact-scenario/1",
        "name": f"conformance {workload.name} round {round_.index} on Apache Kafka {result.version}",
        "description": "Kafka's partition before the round, the round's config changes, and Kafka's result.",
        "start_ms": round_.phase_ms[0],
        "broker": broker_properties(result.version, workload.broker),
        "topics": {
            topic: {"partitions": 1, "config": {**COMPACTED_TOPIC_CONFIGS, **HOLD, **workload.create, **workload.kept}}
        },
        "steps": steps,
    }


def _kafka_state(result: DifferentialResult, round_: RoundResult) -> dict[str, Any]:
    """The ``expect`` assertions that Kafka's "after" copy satisfies."""
    after = load_round(round_.folder, result.workload, version=result.version, stage="after")
    return {
        "retained_offsets": retained_offsets(after),
        "segment_base_offsets": [s.base_offset for s in after.segments],
        "segment_sizes_bytes": [s.size_bytes for s in after.segments],
        "batch_last_offsets": [b.last_offset for b in after.batches()],
        "checkpoint": after.cleaner_checkpoint,
    }
