"""Whether the cleaner keeps up, and the tables a forecast prints: the forecast's numbers in units people read."""

from __future__ import annotations

import pytest

from kcompact_nb.core.cleaner import CleanerSpeed
from kcompact_nb.core.forecasting import (
    ProduceModel,
    ProducerModel,
    TopicLoad,
    forecast,
    forecast_summary,
    lifetimes_table,
    metrics_table,
    partition_table,
    passes_table,
    thread_table,
    what_if_table,
)

MODEL = ProduceModel(
    {"t": TopicLoad(records_per_second=400, keys=20_000, tombstone_share=0.05, producer=ProducerModel(linger_ms=200))},
    seed=4,
)
TOPICS = {"t": {"partitions": 2, "config": {"internal.segment.bytes": 100_000, "delete.retention.ms": 30_000}}}
BROKER = {"log.cleaner.backoff.ms": 1_000}


def _run(clean_bytes_per_second: float):
    speed = CleanerSpeed(
        pass_ms=5.0, index_bytes_per_second=4 * clean_bytes_per_second, clean_bytes_per_second=clean_bytes_per_second
    )
    return forecast(MODEL, horizon_ms=300_000, broker=BROKER, topics=TOPICS, mode="exact", speed=speed)


@pytest.fixture(scope="module")
def fast():
    return _run(50e6)


def test_a_fast_cleaner_keeps_up_and_a_slow_one_falls_behind(fast):
    slow = _run(60_000)
    assert not any(k.falling_behind for k in fast.keeping_up())
    assert all(k.falling_behind for k in slow.keeping_up())
    assert slow.busy_fraction()[0] > 0.9 > fast.busy_fraction()[0]
    assert dict(forecast_summary(slow))["keeps up"] == "no: falls behind on t-0, t-1"
    assert dict(forecast_summary(fast))["keeps up"] == "yes"


def test_too_few_passes_to_tell_is_said_not_guessed():
    """12 s: each partition's first pass (over a log never cleaned), then one more in the second half: no pass in
    the first half to compare the second with, so no verdict."""
    short = forecast(MODEL, horizon_ms=12_000, broker=BROKER, topics=TOPICS, mode="exact")
    assert [(p.name, p.start_ms >= 6_000) for p in short.passes] == [
        ("t-0", False), ("t-1", False), ("t-0", True), ("t-1", True)
    ]  # fmt: skip
    assert [(k.verdict, k.falling_behind) for k in short.keeping_up()] == [("too few passes to tell", False)] * 2
    assert dict(forecast_summary(short))["keeps up"] == "too few passes to tell on t-0, t-1 (a longer horizon tells)"
    rows = partition_table(short)
    assert [(r["dirty ratio at passes (1st half)"], r["cleaner"]) for r in rows] == [
        ("-", "too few passes to tell")
    ] * 2


def test_tables_hold_the_forecasts_numbers(fast):
    partitions = partition_table(fast)
    assert [row["partition"] for row in partitions] == ["t-0", "t-1"]
    assert [row["passes"] for row in partitions] == [sum(p.partition == i for p in fast.passes) for i in (0, 1)]
    threads = thread_table(fast)
    assert threads[0]["passes"] == len(fast.passes) and threads[0]["busy"] == f"{fast.busy_fraction()[0]:.1%}"
    metrics = {row["metric"]: (row["at the end"], row["largest"]) for row in metrics_table(fast)}
    assert metrics == fast.metrics_summary()
    assert metrics["max-dirty-percent"][1] == 100
    first = passes_table(fast, limit=1)[0]
    assert (first["partition"], first["dirty section"]) == (fast.passes[0].name, f"[0, {fast.passes[0].end_offset:,})")
    kinds = [(row["topic"], row["records"]) for row in lifetimes_table(fast)]
    assert kinds == [("t", "tombstones"), ("t", "superseded records")]
    side_by_side = {row[""]: row for row in what_if_table({"fast": fast, "again": fast})}
    passes = str(len(fast.passes))
    assert side_by_side["cleaner passes"] == {"": "cleaner passes", "fast": passes, "again": passes}
