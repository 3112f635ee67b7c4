"""Scenario steps that need the cleaner: clean, run_cleaner, delete_records, dirtiness, and every sample."""

from __future__ import annotations

import pytest

from kcompact_nb.scenario import load_scenario, parse_scenario, run_scenario
from tests.scenario.conftest import SAMPLES, scenario

SAMPLE_FILES = sorted(SAMPLES.glob("*.json"))
DIRTINESS_KEYS = {
    "first_dirty_offset",
    "first_uncleanable_offset",
    "clean_bytes",
    "cleanable_bytes",
    "total_bytes",
    "cleanable_ratio",
    "compaction_delay_ms",
    "eligible",
}
STATS_KEYS = {
    "bytes_read",
    "bytes_written",
    "messages_read",
    "messages_written",
    "map_bytes_read",
    "map_messages_read",
    "invalid_messages_read",
    "buffer_utilization",
}


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.name)
def test_every_sample_scenario_passes(path):
    result = run_scenario(load_scenario(path))
    failures = [
        (s["index"], s["result"]["failures"])
        for s in result["steps"]
        if s["op"] == "expect" and not s["result"]["passed"]
    ]
    assert failures == []
    assert result["passed"] is True


def _spec_13_1_steps():
    """Spec 13.1: keys k0-k2, 10-byte values, offsets 0-29, segment.bytes 1000 (80-byte batches)."""
    return [
        {"op": "append", "records": [{"key": f"k{i % 3}", "value": "0123456789", "timestamp": 0}]} for i in range(30)
    ]


def test_clean_step_reports_the_pass_of_spec_13_1():
    doc = scenario(
        *_spec_13_1_steps(),
        {"op": "clean"},
        {"op": "clean"},
        topics={"t": {"config": {"segment.bytes": 1000}}},
        broker={"kafka.version": "3.9.1"},
    )
    result = run_scenario(parse_scenario(doc))
    first, second = result["steps"][30]["result"], result["steps"][31]["result"]
    assert first["selected"] == {"topic": "t", "partition": 0}
    assert (
        first["first_dirty_offset"],
        first["first_uncleanable_offset"],
        first["end_offset"],
        first["cleanable_ratio"],
    ) == (0, 24, 24, 1.0)
    assert set(first["stats"]) == STATS_KEYS
    stats = first["stats"]
    assert (stats["bytes_read"], stats["bytes_written"], stats["messages_read"], stats["messages_written"]) == (
        1920,
        240,
        24,
        3,
    )
    assert first["log_line"].startswith("Log cleaner thread 0 cleaned log t-0 (dirty section = [0, 24])")
    assert second == {"selected": None}
    state = result["final"]["t-0"]
    assert set(state["dirtiness"]) == DIRTINESS_KEYS
    assert (state["checkpoint"], state["dirtiness"]["first_dirty_offset"], state["dirtiness"]["cleanable_bytes"]) == (
        24,
        24,
        0,
    )
    assert [(s["base_offset"], s["size_bytes"]) for s in state["segments"]] == [(0, 0), (12, 240), (24, 480)]


def test_targeted_clean_with_bounds_and_force():
    doc = scenario(
        *_spec_13_1_steps(),
        {"op": "clean", "first_dirty_offset": 0, "first_uncleanable_offset": 12, "force": True},
        {"op": "expect", "checkpoint": 12, "retained_offsets": [*range(9, 30)]},
        topics={"t": {"config": {"internal.segment.bytes": 1000}}},
    )
    result = run_scenario(parse_scenario(doc))
    assert result["steps"][30]["result"]["end_offset"] == 12
    assert result["passed"], result["steps"][31]


def test_run_cleaner_cleans_and_moves_the_clock():
    doc = scenario(
        *_spec_13_1_steps(),
        {"op": "run_cleaner", "until_ms": 60_000},
        {"op": "expect", "checkpoint": 24},
        topics={"t": {"config": {"internal.segment.bytes": 1000}}},
    )
    result = run_scenario(parse_scenario(doc))
    run = result["steps"][30]["result"]
    assert run["now_ms"] == 60_000 and len(run["passes"]) == 1
    assert result["passed"]


def test_delete_records_and_mark_uncleanable():
    """Spec 9: DeleteRecords on compact,delete; spec 3: uncleanable partitions are skipped."""
    doc = scenario(
        *_spec_13_1_steps(),
        {"op": "delete_records", "offset": 12},
        {"op": "mark_uncleanable"},
        {"op": "clean"},
        topics={"t": {"config": {"internal.segment.bytes": 1000, "cleanup.policy": "compact,delete"}}},
    )
    result = run_scenario(parse_scenario(doc))
    assert result["steps"][30]["result"]["log_start_offset"] == 12
    assert result["steps"][32]["result"] == {"selected": None}


def test_forced_pass_ends_at_the_segment_holding_the_first_uncleanable_offset():
    """``LogToClean`` rounds an uncleanable offset down to its segment's base offset (spec 4.2).

    Derived from Kafka's ``LogCleanerTest.testCleaningWithUncleanableSection``: keys ``offset % 10``,
    values the offset, no timestamps, 1024-byte segments (14 records each), so the third segment starts
    at 28; the pass is asked to stop at 30 (one past that segment's base offset). Kafka cleans only the
    two segments before it and leaves segment 28 and everything after it as they were.
    """
    appends = [{"op": "append", "records": [{"key": str(i % 10), "value": str(i), "timestamp": -1}]} for i in range(71)]
    clean = {"op": "clean", "first_dirty_offset": 0, "first_uncleanable_offset": 30, "force": True}
    doc = scenario(
        *appends,
        {"op": "snapshot", "label": "before"},
        clean,
        topics={"t": {"config": {"internal.segment.bytes": 1024}}},
    )
    result = run_scenario(parse_scenario(doc))
    before = result["snapshots"]["before"]["t-0"]["segments"]
    assert [s["base_offset"] for s in before] == [0, 14, 28, 42, 56, 70]
    reported = result["steps"][72]["result"]
    assert (reported["first_dirty_offset"], reported["first_uncleanable_offset"], reported["end_offset"]) == (0, 28, 28)
    after = result["final"]["t-0"]
    assert after["checkpoint"] == 28
    # grouped by their sizes before cleaning (994 bytes each), the two cleaned segments stay apart
    assert [(s["base_offset"], s["size_bytes"]) for s in after["segments"][:2]] == [(0, 0), (14, 710)]
    assert [r["offset"] for b in after["segments"][1]["batches"] for r in b["records"]] == list(range(18, 28))
    assert after["segments"][2:] == before[2:]  # the uncleanable section is untouched
