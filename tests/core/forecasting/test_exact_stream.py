"""The exact stream: every record drawn, batched as the producer batches, reproducible from its seed."""

from __future__ import annotations

import numpy

from kcompact_nb.core.forecasting import (
    ProducedBatch,
    ProduceModel,
    ProducerModel,
    TopicLoad,
    Transactions,
    TxnMarker,
    exact_events,
    partitions_of,
)


def _events(model: ProduceModel, partitions: int = 2, horizon_ms: int = 60_000) -> list:
    chunks = exact_events(model, {name: partitions for name in model.topics}, start_ms=0, horizon_ms=horizon_ms)
    return [event for chunk in chunks for event in chunk]


def _batches(events: list) -> list[ProducedBatch]:
    return [e for e in events if isinstance(e, ProducedBatch)]


def test_the_same_seed_draws_the_same_records_and_another_seed_others():
    load = TopicLoad(records_per_second=300, keys=500, tombstone_share=0.1)
    first, again = (
        _batches(_events(ProduceModel({"t": load}, seed=4))),
        _batches(_events(ProduceModel({"t": load}, seed=4))),
    )
    other = _batches(_events(ProduceModel({"t": load}, seed=5)))
    columns = [(b.partition, b.append_ms, b.key_ids.tolist(), b.value_lengths.tolist()) for b in first]
    assert columns == [(b.partition, b.append_ms, b.key_ids.tolist(), b.value_lengths.tolist()) for b in again]
    assert columns != [(b.partition, b.append_ms, b.key_ids.tolist(), b.value_lengths.tolist()) for b in other]


def test_records_are_batched_per_linger_slot_in_their_keys_partition():
    load = TopicLoad(records_per_second=2_000, keys=10_000, producer=ProducerModel(linger_ms=20, batch_bytes=10**6))
    batches = _batches(_events(ProduceModel({"t": load}, seed=1), partitions=3, horizon_ms=10_000))
    records = sum(len(b) for b in batches)
    assert abs(records - 20_000) < 5 * 20_000**0.5  # Poisson around the rate's 20,000
    for batch in batches:
        assert batch.append_ms % 20 == 0  # appended at its slot's end
        assert (batch.timestamps >= batch.append_ms - 20).all() and (batch.timestamps < batch.append_ms).all()
        assert (partitions_of(batch.key_ids, width=16, partitions=3) == batch.partition).all()
    appended = [(b.append_ms, b.partition) for b in batches]
    assert appended == sorted(appended) and len(set(appended)) == len(appended)  # one batch per slot and partition


def test_batch_size_splits_a_busy_slot():
    load = TopicLoad(records_per_second=5_000, keys=100, producer=ProducerModel(linger_ms=100, batch_bytes=2_000))
    batches = _batches(_events(ProduceModel({"t": load}), partitions=1, horizon_ms=2_000))
    approx = [int(numpy.sum(16 + numpy.maximum(b.value_lengths, 0) + 8)) for b in batches]
    assert max(approx) <= 2_000 and len(batches) > 2_000 / 100  # several batches per slot


def test_shares_of_tombstones_updates_and_new_keys():
    load = TopicLoad(records_per_second=20_000, keys=100, tombstone_share=0.2, update_share=0.5)
    batches = _batches(_events(ProduceModel({"t": load}, seed=2), partitions=1, horizon_ms=5_000))
    keys = numpy.concatenate([b.key_ids for b in batches])
    lengths = numpy.concatenate([b.value_lengths for b in batches])
    assert abs((lengths < 0).mean() - 0.2) < 0.01
    # 30% of the records each write a new key: the key space grows from 100 by about 30,000
    assert abs(int(keys.max()) + 1 - 100 - 0.3 * len(keys)) < 0.02 * len(keys)


def test_idempotent_batches_carry_a_producer_and_running_sequences():
    load = TopicLoad(records_per_second=500, keys=50)
    batches = _batches(_events(ProduceModel({"t": load}), partitions=1, horizon_ms=3_000))
    assert {b.producer_id for b in batches} == {1000}
    assert [b.base_sequence for b in batches] == numpy.cumsum([0] + [len(b) for b in batches[:-1]]).tolist()


def test_transactions_end_with_a_marker_in_each_partition_they_wrote():
    producer = ProducerModel(linger_ms=5, transactions=Transactions(commit_interval_ms=100, abort_share=0.25))
    load = TopicLoad(records_per_second=200, keys=1000, producer=producer)
    events = _events(ProduceModel({"t": load}, seed=9), partitions=2, horizon_ms=20_000)
    markers = [e for e in events if isinstance(e, TxnMarker)]
    written = {(b.append_ms - 1) // 100 * 100 + 100: set() for b in _batches(events)}
    for batch in _batches(events):
        written[(batch.append_ms - 1) // 100 * 100 + 100].add(batch.partition)
    assert sorted((m.append_ms, m.partition) for m in markers) == sorted(
        (t, p) for t, ps in written.items() for p in ps
    )
    assert all(b.transactional for b in _batches(events))
    aborted = sum(not m.commit for m in markers) / len(markers)
    assert 0.1 < aborted < 0.4
    order = [(e.append_ms, isinstance(e, TxnMarker)) for e in events]
    assert order == sorted(order)  # a transaction's marker after its batches
