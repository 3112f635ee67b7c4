"""The folded forecast against the exact one on a load both run: the same passes, sizes within the stated bound.

docs/forecast.md states the error measured over several loads and seeds (``tools/forecast_error.py``); this test
holds one load to it so a change that breaks the folding fails here.
"""

from __future__ import annotations

from dataclasses import replace

import numpy
import pytest

from kcompact_nb.core.forecasting import ProduceModel, ProducerModel, TopicLoad, Transactions, ValueSizes, forecast

LOAD = TopicLoad(
    records_per_second=120,
    keys=1_500,
    tombstone_share=0.05,
    value_bytes=ValueSizes(80, 120),
    producer=ProducerModel(linger_ms=40),
)
TOPICS = {"orders": {"partitions": 1, "config": {"internal.segment.bytes": 250_000, "delete.retention.ms": 60_000}}}
BROKER = {"log.cleaner.backoff.ms": 5_000}
HORIZON_MS = 900_000


@pytest.fixture(scope="module")
def runs():
    model = ProduceModel({"orders": LOAD}, seed=3)
    return {
        mode: forecast(model, horizon_ms=HORIZON_MS, broker=BROKER, topics=TOPICS, mode=mode, speed=None)
        for mode in ("exact", "folded")
    }


def _mean(timeline, values):
    """A time-weighted mean of a sampled series (samples at one time count once)."""
    times, keep = numpy.unique(timeline.times_ms, return_index=True)
    return float(numpy.average(values[keep][:-1], weights=numpy.diff(times)))


def test_folded_passes_are_the_exact_ones_in_number_and_time(runs):
    exact, folded = runs["exact"], runs["folded"]
    assert folded.mode == "folded" and folded.key_fraction == 1.0
    assert abs(len(folded.passes) - len(exact.passes)) <= 1
    starts = [(p.start_ms for p in run.passes) for run in (exact, folded)]
    assert (
        sum(abs(a - b) <= BROKER["log.cleaner.backoff.ms"] for a, b in zip(*starts, strict=False))
        >= len(exact.passes) - 2
    )


def test_folded_sizes_are_within_the_stated_bound(runs):
    exact, folded = (run.timeline("orders") for run in (runs["exact"], runs["folded"]))
    for series in ("size_bytes", "live_bytes"):
        a, b = _mean(exact, getattr(exact, series)), _mean(folded, getattr(folded, series))
        assert abs(b - a) / a < 0.05, series
    produced = [run.produced_bytes["orders"] for run in (runs["exact"], runs["folded"])]
    assert abs(produced[1] / produced[0] - 1) < 0.01  # the folded records carry the bytes they stand for
    for field, bound in (("size_after_bytes", 0.08), ("dirty_bytes", 0.05), ("bytes_written", 0.05)):
        a = numpy.mean([getattr(p, field) for p in runs["exact"].passes])
        b = numpy.mean([getattr(p, field) for p in runs["folded"].passes])
        assert abs(b - a) / a < bound, field


def test_a_sampled_run_scales_its_bytes_back():
    model = ProduceModel({"orders": TopicLoad(records_per_second=1_000, keys=2_000_000)}, seed=1)
    topics = {"orders": {"config": {"segment.bytes": 134_217_728}}}
    run = forecast(model, horizon_ms=4 * 3_600_000, topics=topics, budget=100_000)
    assert run.mode == "folded" and run.key_fraction < 1
    assert any("sampled: one key in" in note for note in run.notes)
    live = run.timeline("orders").live_bytes[-1]
    # 2 million keys, 1 - e^-7.2 of them written in 4 h, each 16 + 100 + 7 bytes
    assert live == pytest.approx(2_000_000 * (1 - numpy.exp(-7.2)) * 123, rel=0.03)
    assert all(p.size_before_bytes > 100 * 2**20 for p in run.passes)  # real-sized, not the sampled bytes


def test_folded_transactions_and_compression_run_and_say_so():
    producer = ProducerModel(transactions=Transactions(100, abort_share=0.1), compression="zstd")
    model = ProduceModel({"orders": TopicLoad(records_per_second=200, keys=5_000, producer=producer)}, seed=2)
    run = forecast(model, horizon_ms=300_000, topics=TOPICS, mode="folded")
    assert run.passes and any("transactions" in note for note in run.notes)
    assert any("orders: compressed sizes from the codec's ratio" in note for note in run.notes)


def test_a_compressed_topic_folds_at_the_codecs_ratio_and_keeps_the_exact_runs_sizes():
    """Exact: every batch compressed by the real codec. Folded: values stored at the ratio the codec gives sample
    batches of the model's records (docs/forecast.md); the two agree within the stated bound, and both are what the
    codec saves against the same load uncompressed."""
    compressed = replace(LOAD, value_compressibility=0.7, producer=replace(LOAD.producer, compression="zstd"))
    runs = {
        (name, mode): forecast(
            ProduceModel({"orders": load}, seed=5),
            horizon_ms=300_000,
            broker=BROKER,
            topics=TOPICS,
            mode=mode,
            speed=None,
        ).timeline("orders")
        for name, load, mode in (("zstd", compressed, "exact"), ("zstd", compressed, "folded"), ("none", LOAD, "exact"))
    }
    sizes = {run: _mean(timeline, timeline.size_bytes) for run, timeline in runs.items()}
    assert abs(sizes[("zstd", "folded")] / sizes[("zstd", "exact")] - 1) < 0.05
    assert sizes[("zstd", "exact")] < 0.85 * sizes[("none", "exact")]
    live = {run: timeline.live_bytes[-1] for run, timeline in runs.items()}
    assert abs(live[("zstd", "folded")] / live[("zstd", "exact")] - 1) < 0.05
