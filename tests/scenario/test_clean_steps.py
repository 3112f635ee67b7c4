"""Scenario steps that need the cleaner: clean, run_cleaner, delete_records, dirtiness, and every sample."""

from __future__ import annotations

import pytest

from kcompact_nb.scenario import load_scenario, parse_scenario, run_scenario
from tests.scenario.conftest import SAMPLES, scenario

SAMPLE_FILES = sorted(SAMPLES.glob("*.json"))
DIRTINESS_KEYS = {
    "first_dirty_offset", "first_uncleanable_offset", "clean_bytes", "cleanable_bytes", "total_bytes",
    "cleanable_ratio", "compaction_delay_ms", "eligible",
}
STATS_KEYS = {
    "bytes_read", "bytes_written", "messages_read", "messages_written", "map_bytes_read", "map_messages_read",
    "invalid_messages_read", "buffer_utilization",
}


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.name)
def test_every_sample_scenario_passes(path):
    result = run_scenario(load_scenario(path))
    failures = [(s["index"], s["result"]["failures"]) for s in result["steps"] if s["op"] == "expect" and not s["result"]["passed"]]
    assert failures == []
    assert result["passed"] is True


def _spec_13_1_steps():
    """Spec 13.1: keys k0-k2, 10-byte values, offsets 0-29, segment.bytes 1000 (80-byte batches)."""
    return [{"op": "append", "records": [{"key": f"k{i % 3}", "value": "0123456789", "timestamp": 0}]} for i in range(30)]


def test_clean_step_reports_the_pass_of_spec_13_1():
    doc = scenario(*_spec_13_1_steps(), {"op": "clean"}, {"op": "clean"},
                   topics={"t": {"config": {"segment.bytes": 1000}}}, broker={"kafka.version": "3.9.1"})
    result = run_scenario(parse_scenario(doc))
    first, second = result["steps"][30]["result"], result["steps"][31]["result"]
    assert first["selected"] == {"topic": "t", "partition": 0}
    assert (first["first_dirty_offset"], first["first_uncleanable_offset"], first["end_offset"], first["cleanable_ratio"]) == (0, 24, 24, 1.0)
    assert set(first["stats"]) == STATS_KEYS
    stats = first["stats"]
    assert (stats["bytes_read"], stats["bytes_written"], stats["messages_read"], stats["messages_written"]) == (1920, 240, 24, 3)
    assert first["log_line"].startswith("Log cleaner thread 0 cleaned log t-0 (dirty section = [0, 24])")
    assert second == {"selected": None}
    state = result["final"]["t-0"]
    assert set(state["dirtiness"]) == DIRTINESS_KEYS
    assert (state["checkpoint"], state["dirtiness"]["first_dirty_offset"], state["dirtiness"]["cleanable_bytes"]) == (24, 24, 0)
    assert [(s["base_offset"], s["size_bytes"]) for s in state["segments"]] == [(0, 0), (12, 240), (24, 480)]


def test_targeted_clean_with_bounds_and_force():
    doc = scenario(*_spec_13_1_steps(), {"op": "clean", "first_dirty_offset": 0, "first_uncleanable_offset": 12, "force": True},
                   {"op": "expect", "checkpoint": 12, "retained_offsets": [*range(9, 30)]},
                   topics={"t": {"config": {"internal.segment.bytes": 1000}}})
    result = run_scenario(parse_scenario(doc))
    assert result["steps"][30]["result"]["end_offset"] == 12
    assert result["passed"], result["steps"][31]


def test_run_cleaner_cleans_and_moves_the_clock():
    doc = scenario(*_spec_13_1_steps(), {"op": "run_cleaner", "until_ms": 60_000}, {"op": "expect", "checkpoint": 24},
                   topics={"t": {"config": {"internal.segment.bytes": 1000}}})
    result = run_scenario(parse_scenario(doc))
    run = result["steps"][30]["result"]
    assert run["now_ms"] == 60_000 and len(run["passes"]) == 1
    assert result["passed"]


def test_delete_records_and_mark_uncleanable():
    """Spec 9: DeleteRecords on compact,delete; spec 3: uncleanable partitions are skipped."""
    doc = scenario(*_spec_13_1_steps(), {"op": "delete_records", "offset": 12}, {"op": "mark_uncleanable"}, {"op": "clean"},
                   topics={"t": {"config": {"internal.segment.bytes": 1000, "cleanup.policy": "compact,delete"}}})
    result = run_scenario(parse_scenario(doc))
    assert result["steps"][30]["result"]["log_start_offset"] == 12
    assert result["steps"][32]["result"] == {"selected": None}
