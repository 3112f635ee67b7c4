"""Forecast speed (issue #42): a month of a topic at 1,000 records/s forecast in under a minute.

Each benchmark runs :func:`kcompact_nb.forecast` once over 30 days (2.6 billion modelled records a topic) and
reports the records the forecast stands for; the note says how the run went (folded, the share of keys followed,
the passes it made).
"""

from __future__ import annotations

from pathlib import Path

from bench._runner import Measurement, benchmark
from kcompact_nb import ProduceModel, TopicLoad, ValueSizes, forecast
from kcompact_nb.scenario import load_scenario

DAYS = 30
ORDERS = Path(__file__).resolve().parents[1] / "data" / "samples" / "scenarios" / "orders-forecast.json"


def _month(load: TopicLoad, topics: dict) -> Measurement:
    import time

    model = ProduceModel({"t": load}, seed=1)
    start = time.perf_counter()
    fc = forecast(model, days=DAYS, topics=topics)
    seconds = time.perf_counter() - start
    note = f"{fc.mode}, 1 key in {round(1 / fc.key_fraction):,} followed, {len(fc.passes):,} passes"
    return Measurement(seconds, int(sum(fc.expected_records.values())), 0, note)


@benchmark("forecast: a month at 1,000 records/s, 1M uniform keys, 1 GiB segments", repeat=1, target="< 60 s")
def month_uniform() -> Measurement:
    load = TopicLoad(records_per_second=1_000, keys=1_000_000, tombstone_share=0.01, value_bytes=ValueSizes(100, 300))
    return _month(load, {"t": {"partitions": 1, "config": {}}})


@benchmark(
    "forecast: a month at 1,000 records/s, 1M Zipf keys, 3 partitions, 256 MiB segments", repeat=1, target="< 60 s"
)
def month_zipf() -> Measurement:
    load = TopicLoad(
        records_per_second=1_000,
        keys=1_000_000,
        key_distribution="zipf",
        tombstone_share=0.01,
        value_bytes=ValueSizes(100, 300),
    )
    return _month(load, {"t": {"partitions": 3, "config": {"segment.bytes": 268_435_456}}})


@benchmark("forecast: the orders sample (growing key space, daily cycle, bursts) over a week", repeat=1)
def orders_week() -> Measurement:
    import time

    scenario = load_scenario(ORDERS)
    assert scenario.produce is not None
    topics = {
        name: {"partitions": spec.partitions, "config": dict(spec.config)} for name, spec in scenario.topics.items()
    }
    start = time.perf_counter()
    fc = forecast(scenario.produce, days=7, broker=scenario.broker, topics=topics, start_ms=scenario.start_ms)
    seconds = time.perf_counter() - start
    note = f"{fc.mode}, 1 key in {round(1 / fc.key_fraction):,} followed, {len(fc.passes):,} passes"
    return Measurement(seconds, int(sum(fc.expected_records.values())), 0, note)
