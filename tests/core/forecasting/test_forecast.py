"""An exact forecast is the engine's own run: the same passes as appending the model's batches by hand.

The forecast decides only what is appended when; every selection, pass, back-off, thread and retention is the
simulated broker's. So a reference that appends the same records through ``PartitionLog.append`` and runs a
:class:`CleanerLoop` that never skips a wake must make the same passes, byte for byte.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from types import MappingProxyType

import numpy
import pytest

from kcompact_nb.core import NewRecord, Simulation, format_bytes
from kcompact_nb.core.cleaner import CleanerLoop, CleanerSpeed
from kcompact_nb.core.forecasting import (
    DailyCycle,
    ProducedBatch,
    ProduceModel,
    ProducerModel,
    TopicLoad,
    Transactions,
    ValueSizes,
    exact_events,
    forecast,
    forecast_summary,
    key_bytes,
    play_model,
)
from kcompact_nb.record import record_size_of_lengths

BROKER = {"log.cleaner.threads": 2, "log.cleaner.backoff.ms": 700}
TOPICS = {
    "orders": {"partitions": 2, "config": {"internal.segment.bytes": 20_000, "delete.retention.ms": 5_000}},
    "prices": {"partitions": 1, "config": {"internal.segment.bytes": 30_000, "min.compaction.lag.ms": 3_000}},
}
SPEED = CleanerSpeed(pass_ms=20.0, index_bytes_per_second=2e6, clean_bytes_per_second=1e6)
MODEL = ProduceModel(
    {
        "orders": TopicLoad(
            records_per_second=150,
            keys=300,
            key_distribution="zipf",
            tombstone_share=0.1,
            update_share=0.85,
            value_bytes=ValueSizes(20, 60),
            producer=ProducerModel(linger_ms=10, transactions=Transactions(100, abort_share=0.2)),
        ),
        "prices": TopicLoad(
            records_per_second=60,
            keys=100,
            value_bytes=ValueSizes(40, 40),
            daily_cycle=DailyCycle(0.8),
            producer=ProducerModel(idempotent=False),
        ),
    },
    seed=11,
)
HORIZON_MS = 40_000


def _by_hand() -> list[tuple]:
    sim = Simulation(BROKER, start_ms=0)
    for name, spec in TOPICS.items():
        sim.create_topic(name, partitions=spec["partitions"], config=spec["config"])
    sim.cleaner.speed = SPEED
    loop = CleanerLoop(sim.cleaner, 0)
    logs = sim.partitions_in_creation_order()
    partitions = {name: spec["partitions"] for name, spec in TOPICS.items()}
    for chunk in exact_events(MODEL, partitions, start_ms=0, horizon_ms=HORIZON_MS):
        for event in chunk:
            loop.run_until(logs, event.append_ms)
            if isinstance(event, ProducedBatch):
                records = [
                    NewRecord(key_bytes(int(k), 16), None if n < 0 else bytes(int(n)), int(t))
                    for k, t, n in zip(event.key_ids, event.timestamps, event.value_lengths, strict=True)
                ]
                sim.set_time(event.append_ms)
                sim.append(
                    event.topic,
                    records,
                    partition=event.partition,
                    producer_id=event.producer_id,
                    producer_epoch=event.producer_epoch,
                    base_sequence=event.base_sequence,
                    transactional=event.transactional,
                )
            else:
                sim.set_time(event.append_ms)
                sim.end_txn(event.topic, event.producer_id, 0, commit=event.commit, partition=event.partition)
    loop.run_until(logs, HORIZON_MS + 1)
    return [
        (p.name, t, p.start_ms, p.end_ms, p.end_offset, p.log_line)
        for p, t in zip(loop.passes, loop.pass_threads, strict=True)
    ]


@pytest.fixture(scope="module")
def exact():
    return forecast(MODEL, horizon_ms=HORIZON_MS, broker=BROKER, topics=TOPICS, mode="exact", speed=SPEED)


def test_an_exact_forecast_makes_the_engines_passes(exact):
    made = [(p.name, p.thread, p.start_ms, p.end_ms, p.end_offset, p.log_line) for p in exact.passes]
    assert made == _by_hand()
    assert {p.thread for p in exact.passes} == {0, 1} and {p.topic for p in exact.passes} == {"orders", "prices"}


def test_each_pass_reads_back_its_sizes_and_the_sawtooth(exact):
    for p in exact.passes:
        assert p.size_before_bytes - p.size_after_bytes == p.bytes_read - p.bytes_written
        timeline = exact.timeline(p.topic, p.partition)
        at = numpy.flatnonzero(timeline.times_ms == p.start_ms).tolist()
        samples = [(timeline.size_bytes[i], timeline.dirty_ratio[i]) for i in at]
        before_after = [(p.size_before_bytes, p.cleanable_ratio), (p.size_after_bytes, p.ratio_after)]
        assert any(samples[i : i + 2] == before_after for i in range(len(samples)))


def test_kafkas_gauges_read_as_kafka_computes_them_after_each_pass(exact):
    last: dict[int, object] = {}
    for p, reading in zip(exact.passes, exact.metrics, strict=True):
        last[p.thread] = p
        assert reading.at_ms == p.start_ms
        assert reading.max_clean_time_secs == int(max(q.elapsed_secs for q in last.values()))
        assert reading.max_buffer_utilization_percent == int(100 * max(q.buffer_utilization for q in last.values()))
        written, read = sum(q.bytes_written for q in last.values()), sum(q.bytes_read for q in last.values())
        assert reading.cleaner_recopy_percent == int(100 * written / max(read, 1))
        assert reading.uncleanable_partitions_count == 0
    summary = exact.metrics_summary()
    assert summary["max-dirty-percent"][1] == 100  # a log never cleaned has a ratio of 1.0 (spec 5.6)


def test_busy_fraction_is_the_passes_time(exact):
    busy = exact.busy_fraction()
    for thread in (0, 1):
        spent = sum(p.duration_ms for p in exact.passes if p.thread == thread)
        assert busy[thread] == pytest.approx(spent / HORIZON_MS)
    assert exact.busy_fraction(10_000).sum(axis=1) * 10_000 == pytest.approx(busy * HORIZON_MS)
    # 30 s, then the 10 s left to the horizon: each period's share of its own time
    for thread in (0, 1):
        late = sum(
            max(0, min(p.end_ms, HORIZON_MS) - max(p.start_ms, 30_000)) for p in exact.passes if p.thread == thread
        )
        assert exact.busy_fraction(30_000)[thread, 1] == pytest.approx(late / 10_000)


def test_what_producers_wrote_is_the_log_a_broker_that_never_cleans_keeps(exact):
    """``produced_bytes``, against which a forecast says what compaction saves: every batch and marker as stored."""
    sim = Simulation({**BROKER, "log.cleaner.enable": False}, start_ms=0)
    for name, spec in TOPICS.items():
        sim.create_topic(name, partitions=spec["partitions"], config=spec["config"])
    play_model(sim, MODEL, start_ms=0, from_ms=0, until_ms=HORIZON_MS, horizon_ms=HORIZON_MS)
    kept = {name: sum(log.size_bytes for log in sim.partitions() if log.topic == name) for name in TOPICS}
    assert exact.produced_bytes == kept
    ends = {name: sum(int(t.size_bytes[-1]) for t in exact.timelines if t.topic == name) for name in TOPICS}
    assert all(ends[name] < kept[name] for name in TOPICS)  # the cleaner ran
    produced, saved = sum(kept.values()), sum(kept.values()) - sum(ends.values())
    saved_text, produced_text = (format_bytes(n, exact=False) for n in (saved, produced))
    line = dict(forecast_summary(exact))["disk compaction saves"]
    assert line == f"{saved_text} ({saved / produced:.0%} of the {produced_text} produced)"


def test_live_data_is_each_keys_latest_record(exact):
    timeline = exact.timeline("prices", 0)
    # prices: 100 keys written many times, no tombstone, 40-byte values (DefaultRecord.sizeInBytes: spec 2.5)
    assert timeline.live_bytes[-1] == 100 * record_size_of_lengths(0, 0, 16, 40)
    assert (timeline.size_bytes >= timeline.live_bytes).all()


def test_lifetimes_are_traced_until_a_pass_removes_them(exact):
    lives = exact.lifetimes["orders"]
    gone, weights = lives.removed(tombstones=False)
    assert len(gone) and (gone > 0).all() and (weights >= 1).all()
    quantiles = lives.quantiles((0.1, 0.5, 0.9), tombstones=False)
    assert quantiles == sorted(quantiles) and quantiles[0] > 0


def test_the_same_model_and_seed_give_the_same_forecast(exact):
    again = forecast(MODEL, horizon_ms=HORIZON_MS, broker=BROKER, topics=TOPICS, mode="exact", speed=SPEED)
    assert again.passes == exact.passes and again.metrics == exact.metrics


def test_a_forecast_run_in_another_process_comes_back_whole(exact):
    """Notebook 10 runs its what-if forecasts side by side in worker processes: a forecast (its broker's
    ``topic_defaults`` a read-only view) pickles and reads back the same."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        there = pool.submit(forecast, MODEL, horizon_ms=HORIZON_MS, broker=BROKER, topics=TOPICS, mode="exact",
                            speed=SPEED).result()  # fmt: skip
    assert there.passes == exact.passes and there.metrics == exact.metrics
    assert there.broker == exact.broker and isinstance(there.broker.topic_defaults, MappingProxyType)


SMALL_BUFFER = {"log.cleaner.dedupe.buffer.size": 1_153_434, "log.cleaner.io.buffer.load.factor": 0.1}
"""A thread's map of 48,059 slots, filled to a tenth: 4,805 keys a pass."""
MANY_KEYS = ProduceModel({"k": TopicLoad(records_per_second=800, keys=30_000, value_bytes=ValueSizes(20, 20))}, seed=6)
MANY_KEYS_TOPICS = {"k": {"config": {"internal.segment.bytes": 200_000}}}


def _many_keys(broker: dict) -> object:
    return forecast(MANY_KEYS, horizon_ms=30_000, broker=broker, topics=MANY_KEYS_TOPICS, mode="exact", speed=None)


def test_the_dedupe_buffer_a_pass_needs_counts_the_keys_a_full_map_left_out():
    """A pass whose map fills stops early (``buildOffsetMap``): the buffer it needs holds every distinct key of the
    dirty section the cleaner chose, counted from the model's own stream; a buffer of that size cleans the section
    in one pass, its map holding exactly those keys."""
    small = _many_keys(SMALL_BUFFER)
    first = small.passes[0]
    assert first.map_full and first.map_entries == 4_805 and first.end_offset < first.first_uncleanable_offset
    keys = numpy.concatenate([e.key_ids for chunk in exact_events(MANY_KEYS, {"k": 1}, start_ms=0, horizon_ms=30_000)
                              for e in chunk])  # fmt: skip
    assert first.dirty_keys == len(numpy.unique(keys[first.first_dirty_offset : first.first_uncleanable_offset]))
    needed = small.buffer_needed_bytes(first)
    assert needed == -(-first.dirty_keys * 24 // 0.1) and small.dedupe_buffer_needed_bytes() >= needed
    enough = _many_keys({**SMALL_BUFFER, "log.cleaner.dedupe.buffer.size": needed})
    again = enough.passes[0]
    assert (again.start_ms, again.first_uncleanable_offset) == (first.start_ms, first.first_uncleanable_offset)
    assert not again.map_full and again.end_offset == first.first_uncleanable_offset
    assert again.map_entries == again.dirty_keys == first.dirty_keys
