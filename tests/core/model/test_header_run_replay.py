"""Producer state from runs of data batches known by their headers (:class:`HeaderRun`) is the state their batches
replayed one at a time leave (``ProducerStateManager.replay``): epochs (a lower one noted), last offsets, timestamps
and sequences, open transactions, new producers in the order they first appear; and a snapshot's replay
(:class:`SnapshotReplay`) keeps the same batches from a run as from its batches one by one."""

from __future__ import annotations

import dataclasses

import numpy
from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb.core import HeaderRun, KafkaVersion, ProducerSnapshot, ProducerStateEntry
from kcompact_nb.core.model import ProducerStateManager
from kcompact_nb.core.model._run_replay import replay_run
from kcompact_nb.core.model._snapshot_replay import SnapshotReplay
from kcompact_nb.record import RecordBatch

rows = st.lists(
    st.tuples(
        st.sampled_from([-1, 1, 2, 3]),  # producer id (-1: none)
        st.integers(0, 3),  # epoch
        st.sampled_from([-1, 0, 7, 40]),  # base sequence
        st.booleans(),  # transactional
        st.integers(0, 2),  # lastOffsetDelta
        st.integers(-1, 50),  # largest timestamp
    ),
    min_size=1,
    max_size=25,
)
entries = st.lists(
    st.builds(
        ProducerStateEntry,
        producer_id=st.sampled_from([1, 2, 7]),
        producer_epoch=st.integers(0, 3),
        last_data_offset=st.integers(-1, 5),
        last_timestamp=st.integers(-1, 5),
        last_sequence=st.integers(-1, 5),
        current_txn_first_offset=st.one_of(st.none(), st.integers(0, 5)),
    ),
    max_size=3,
)


def batches_of(table: list[tuple[int, ...]]) -> list[RecordBatch]:
    """One batch a row, in offset order from offset 10."""
    batches, offset = [], 10
    for producer_id, epoch, sequence, transactional, delta, largest in table:
        fields = (producer_id, epoch, sequence if producer_id >= 0 else -1, transactional and producer_id >= 0)
        batches.append(RecordBatch(offset, offset + delta, (), 70, largest, largest, *fields))
        offset += delta + 1
    return batches


def runs_of(batches: list[RecordBatch], cuts: list[int]) -> list[HeaderRun]:
    """``batches`` as runs, cut before the batches at ``cuts``."""
    bounds = sorted({0, len(batches), *(c % len(batches) for c in cuts)})
    return [run_of(batches[start:stop]) for start, stop in zip(bounds, bounds[1:], strict=False)]


def run_of(batches: list[RecordBatch]) -> HeaderRun:
    columns = (
        [(b.size_bytes, b.base_offset, b.last_offset, b.max_timestamp, 0) for b in batches],
        [(b.producer_id, b.producer_epoch, b.base_sequence, int(b.is_transactional)) for b in batches],
    )
    producers = numpy.array(columns[1], numpy.int64).T
    return HeaderRun(*numpy.array(columns[0], numpy.int64).T, *producers[:3], producers[3].astype(bool))


def state_of(known: list[ProducerStateEntry]) -> ProducerStateManager:
    state = ProducerStateManager()
    for entry in known:
        state.producers[entry.producer_id] = dataclasses.replace(entry)
    return state


@settings(max_examples=300, deadline=None)
@given(table=rows, known=entries, cuts=st.lists(st.integers(0, 30), max_size=4))
def test_a_run_replays_as_its_batches_one_at_a_time(table, known, cuts):
    batches = batches_of(table)
    one_by_one, by_run = state_of(known), state_of(known)
    notes: list[str] = []
    for batch in batches:
        one_by_one.replay(batch, notes)
    run_notes: list[str] = []
    for run in runs_of(batches, cuts):
        replay_run(by_run, run, run_notes)
    assert list(by_run.producers.items()) == list(one_by_one.producers.items())
    assert run_notes == notes


@settings(max_examples=300, deadline=None)
@given(
    table=rows,
    known=entries,
    cuts=st.lists(st.integers(0, 30), max_size=4),
    offsets=st.lists(st.integers(0, 60), max_size=3, unique=True),
)
def test_a_snapshots_replay_keeps_from_a_run_the_batches_it_keeps_one_by_one(table, known, cuts, offsets):
    batches = batches_of(table)
    snapshots = [ProducerSnapshot(offset, tuple(known)) for offset in offsets]
    one_by_one, by_run = SnapshotReplay(snapshots, None), SnapshotReplay(snapshots, None)
    one_by_one.segment(10)
    by_run.segment(10)
    for batch in batches:
        one_by_one.add(batch)
    for run in runs_of(batches, cuts):
        by_run.add_run(run)
    expected = one_by_one.state(KafkaVersion(4, 4), None, 1000)
    got = by_run.state(KafkaVersion(4, 4), None, 1000)
    assert (got is None) == (expected is None)
    if got is not None and expected is not None:
        assert list(got.producers.items()) == list(expected.producers.items())


def test_a_lower_epoch_is_noted_at_its_batch_in_offset_order():
    batches = batches_of(
        [(1, 2, 0, False, 0, 5), (2, 1, 0, False, 0, 5), (1, 1, 1, False, 0, 6), (2, 0, 3, True, 1, 7)]
    )
    state = state_of([ProducerStateEntry(2, 3)])
    notes: list[str] = []
    replay_run(state, run_of(batches), notes)
    assert notes == [
        "producer 2: epoch 1 at offset 11 is below the last seen epoch 3 (accepted, as on replication)",
        "producer 1: epoch 1 at offset 12 is below the last seen epoch 2 (accepted, as on replication)",
        "producer 2: epoch 0 at offset 13 is below the last seen epoch 1 (accepted, as on replication)",
    ]
    assert list(state.producers.values()) == [
        ProducerStateEntry(2, 0, last_data_offset=14, last_timestamp=7, last_sequence=4, current_txn_first_offset=13),
        ProducerStateEntry(1, 1, last_data_offset=12, last_timestamp=6, last_sequence=1),
    ]
