"""Producer state loaded as ``LogLoader`` loads it: the latest usable snapshot, then the batches after it
(docs/cleaner-rules.md, section 8.5; Kafka's ``ProducerStateManager.truncateAndReload`` and ``loadFromSnapshot``)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb import BrokerConfig, PartitionLog, TopicConfig
from kcompact_nb.core import ProducerSnapshot, ProducerStateEntry, load_log
from kcompact_nb.core.model import ProducerStateManager
from tests.conftest import rec

TXN, IDEMPOTENT = (1, 2), 3


def broker(version: str = "4.4.0") -> BrokerConfig:
    return BrokerConfig.from_properties({"kafka.version": version})


def segments_of(log: PartitionLog):
    return [(s.base_offset, s.last_modified_ms, s.batches) for s in log.segments]


def loaded(log: PartitionLog, *snapshots: ProducerSnapshot, log_start_offset: int | None = None) -> PartitionLog:
    start = log_start_offset
    return load_log("t", 0, segments_of(log), broker=log.broker, producer_snapshots=snapshots, log_start_offset=start)


def snapshot_at(log: PartitionLog, offset: int) -> ProducerSnapshot:
    """The state a broker would have written at ``offset``: every batch below it replayed."""
    state = ProducerStateManager()
    for batch in log.batches():
        if batch.last_offset < offset:
            state.replay(batch)
    return ProducerSnapshot(offset, tuple(state.producers.values()))


def open_then_closed() -> PartitionLog:
    """0: pid 1's transactional batch; segment 1: its COMMIT at 1, a at 2; active segment 3: pid 2's batch at 3."""
    log = PartitionLog("t", config=TopicConfig.from_properties({"cleanup.policy": "compact"}), broker=broker())
    log.append([rec("k")], now_ms=0, producer_id=1, producer_epoch=0, base_sequence=0, transactional=True)
    log.roll(now_ms=0)
    log.append_end_txn_marker(1, 0, commit=True, now_ms=0)
    log.append([rec("a")], now_ms=0)
    log.roll(now_ms=0)
    log.append([rec("b")], now_ms=0, producer_id=2, producer_epoch=0, base_sequence=0, transactional=True)
    return log


def test_the_latest_snapshot_at_most_the_log_end_offset_is_taken_and_the_batches_after_it_replayed():
    log = open_then_closed()
    # a snapshot claiming pid 1's transaction still open at 1 (the COMMIT at 1 not yet replayed) is overridden by
    # the one at 3, which the batches after it complete with pid 2's open transaction
    stale = ProducerSnapshot(1, (ProducerStateEntry(1, 0, 0, 0, 0, current_txn_first_offset=0),))
    taken = ProducerSnapshot(3, (ProducerStateEntry(7, 0, 9, 0, 4),))
    beyond = ProducerSnapshot(5, (ProducerStateEntry(8, 0, 9, 0, 4),))  # above the log end offset 4: not usable
    state = loaded(log, beyond, stale, taken).producer_state
    assert state.producers == {
        7: ProducerStateEntry(7, 0, 9, 0, 4),  # as the snapshot has it, though no batch of pid 7 is in the log
        2: ProducerStateEntry(2, 0, 3, 0, 0, current_txn_first_offset=3),
    }
    assert loaded(log, beyond, stale, taken).last_stable_offset == 3


def test_a_snapshot_at_or_below_the_log_start_offset_is_not_used():
    """``truncateAndReload`` deletes the snapshots at or below the log start offset; without one the batches are
    replayed from the first segment."""
    log = open_then_closed()
    at_start = ProducerSnapshot(1, (ProducerStateEntry(7, 0, 9, 0, 4),))
    assert set(loaded(log, at_start, log_start_offset=1).producer_state.producers) == {1, 2}
    assert set(loaded(log, at_start).producer_state.producers) == {7, 1, 2}  # pid 1 from its COMMIT at 1


@pytest.mark.parametrize(("version", "producers"), [("2.3.1", {2}), ("2.4.0", {1, 2})])
def test_before_2_4_a_snapshots_producer_whose_last_data_is_below_the_log_start_is_dropped(version, producers):
    """KAFKA-7190 (2.4): ``loadFromSnapshot`` kept only producers with ``isProducerRetained`` (last data offset at or
    above the log start offset); pid 1's last data batch is at 0, the log starts at 1."""
    log = open_then_closed()
    log.broker = broker(version)
    assert set(loaded(log, snapshot_at(log, 3), log_start_offset=1).producer_state.producers) == producers


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("data"), st.sampled_from([*TXN, IDEMPOTENT, -1])),
        st.tuples(st.just("marker"), st.sampled_from(TXN), st.booleans()),
        st.tuples(st.just("roll")),
    ),
    max_size=25,
)


def appended(ops) -> PartitionLog:
    log = PartitionLog("t", config=TopicConfig.from_properties({"cleanup.policy": "compact"}), broker=broker())
    sequences = dict.fromkeys((*TXN, IDEMPOTENT), 0)
    for time, op in enumerate(ops):
        if op[0] == "roll":
            log.roll(now_ms=time)
        elif op[0] == "marker":
            log.append_end_txn_marker(op[1], 0, commit=op[2], now_ms=time)
        elif op[1] == -1:
            log.append([rec("p")], now_ms=time)
        else:
            pid = op[1]
            log.append([rec("k"), rec("l")], now_ms=time, producer_id=pid, producer_epoch=0,
                       base_sequence=sequences[pid], transactional=pid in TXN)  # fmt: skip
            sequences[pid] += 2
    return log


@settings(max_examples=40, deadline=None)
@given(OPS)
def test_a_snapshot_taken_at_any_roll_and_the_batches_after_it_give_the_appended_state(ops):
    """For a log no pass changed, every snapshot a broker took at a roll loads to the state of its appends."""
    log = appended(ops)
    for segment in log.segments[1:]:
        snapshot = snapshot_at(log, segment.base_offset)
        assert loaded(log, snapshot).producer_state.producers == log.producer_state.producers
