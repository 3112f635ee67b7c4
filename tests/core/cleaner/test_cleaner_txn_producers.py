"""Transactions, markers, producer state and version-dependent rule B (spec 7.3-7.5, 15)."""

from __future__ import annotations

import pytest

from kcompact_nb import BrokerConfig, PartitionLog, TopicConfig
from kcompact_nb.core.cleaner._offset_map import ExactOffsetMap
from tests.conftest import last_offsets_per_batch, offsets_in_log, rec
from tests.core.cleaner.test_cleaner_pass import one_pass


def txn_log(version: str = "4.4.0") -> PartitionLog:
    broker = BrokerConfig.from_properties({"kafka.version": version})
    config = TopicConfig.from_properties({"cleanup.policy": "compact", "delete.retention.ms": 1000})
    return PartitionLog("t", config=config, broker=broker)


def roll_and_append(log: PartitionLog, key: str, now_ms: int = 0) -> None:
    log.roll(now_ms=now_ms)
    log.append([rec(key, timestamp=now_ms)], now_ms=now_ms)


def committed_and_aborted(log: PartitionLog) -> None:
    """0-1: pid 1 txn [a, b]; 2: COMMIT; 3: pid 2 txn [c]; 4: ABORT; 5: d; active 6: z."""
    log.append([rec("a"), rec("b")], now_ms=0, producer_id=1, producer_epoch=0, transactional=True)
    log.append_end_txn_marker(1, 0, commit=True, now_ms=0)
    log.append([rec("c")], now_ms=0, producer_id=2, producer_epoch=0, transactional=True)
    log.append_end_txn_marker(2, 0, commit=False, now_ms=0)
    log.append([rec("d")], now_ms=0)
    roll_and_append(log, "z")


def batch_at(log: PartitionLog, base_offset: int):
    return next(b for b in log.batches() if b.base_offset == base_offset)


def test_aborted_data_is_removed_but_a_live_producers_last_batch_stays_empty():
    """Spec 7.3: the aborted batch is DELETE-able, but rule A keeps it as a 61-byte shell while pid 2 lives."""
    log = txn_log()
    committed_and_aborted(log)
    result = one_pass(log)
    assert offsets_in_log(log) == [0, 1, 2, 4, 5, 6]
    assert last_offsets_per_batch(log) == [1, 2, 3, 4, 5, 6]
    assert batch_at(log, 3).size_bytes == 61 and batch_at(log, 3).records == ()
    assert result.stats.map_messages_read == 6  # 2 data + COMMIT + aborted batch count 1 + ABORT + d
    # the kept ABORT marker re-adds its transaction to the cleaned segment's index
    assert [(t.producer_id, t.first_offset, t.last_offset) for t in log.segments[0].aborted_transactions] == [(2, 3, 4)]


def test_abort_marker_lifecycle_after_producer_expiry():
    """Spec 7.4: aborted data goes; the marker is kept while data is seen, stamped next, dropped at the horizon."""
    log = txn_log()
    committed_and_aborted(log)
    one_pass(log, now_ms=0)
    assert log.producer_state.remove_expired_producers(100_000, 1000) == [1, 2]
    roll_and_append(log, "y", now_ms=100_000)
    one_pass(log, now_ms=100_000)  # the empty aborted batch is read (so the ABORT stays) and dropped
    assert last_offsets_per_batch(log) == [1, 2, 4, 5, 6, 7]
    assert batch_at(log, 4).delete_horizon_ms is None
    roll_and_append(log, "x", now_ms=100_000)
    one_pass(log, now_ms=100_000)  # nothing of the transaction is left: marker stamped
    assert batch_at(log, 4).delete_horizon_ms == 101_000 and batch_at(log, 4).size_bytes == 78 + 2
    assert batch_at(log, 2).delete_horizon_ms is None  # the COMMIT still sees a and b
    roll_and_append(log, "w", now_ms=101_000)
    one_pass(log, now_ms=101_000)
    assert offsets_in_log(log) == [0, 1, 2, 5, 6, 7, 8, 9]


def test_commit_marker_lifecycle_once_its_data_is_superseded():
    """Spec 7.4: a COMMIT stays while any batch of its transaction is read, then is stamped, then dropped."""
    log = txn_log()
    log.append([rec("a"), rec("b")], now_ms=0, producer_id=1, producer_epoch=0, transactional=True)
    log.append_end_txn_marker(1, 0, commit=True, now_ms=0)
    log.append([rec("a"), rec("b")], now_ms=0)
    roll_and_append(log, "z")
    one_pass(log)  # a and b superseded, but pid 1's last batch stays as a shell (rule A)
    assert last_offsets_per_batch(log) == [1, 2, 4, 5]
    assert batch_at(log, 0).size_bytes == 61
    log.producer_state.remove_expired_producers(10_000, 1000)
    roll_and_append(log, "y", now_ms=10_000)
    one_pass(log, now_ms=10_000)  # shell dropped; COMMIT saw it this pass, so stays unstamped
    assert last_offsets_per_batch(log) == [2, 4, 5, 6]
    assert batch_at(log, 2).delete_horizon_ms is None
    roll_and_append(log, "x", now_ms=10_000)
    one_pass(log, now_ms=10_000)
    assert batch_at(log, 2).delete_horizon_ms == 11_000
    roll_and_append(log, "w", now_ms=11_000)
    one_pass(log, now_ms=11_000)
    assert offsets_in_log(log) == [3, 4, 5, 6, 7, 8]


def test_idempotent_producers_last_batch_survives_as_an_empty_shell_until_expiry():
    """Spec 7.5: rule A keeps the live producer's last batch; records inside are still compacted."""
    log = txn_log()
    log.append([rec("a")], now_ms=0, producer_id=7, producer_epoch=0, base_sequence=0)
    log.append([rec("a")], now_ms=0)
    roll_and_append(log, "z")
    one_pass(log)
    (shell, kept, *_rest) = list(log.batches())
    assert (shell.base_offset, shell.size_bytes, shell.producer_id, shell.base_sequence, shell.base_timestamp) == (
        0,
        61,
        7,
        0,
        -1,
    )
    assert kept.base_offset == 1
    log.producer_state.remove_expired_producers(86_400_000, 86_400_000)
    roll_and_append(log, "y", now_ms=86_400_000)
    one_pass(log, now_ms=86_400_000)
    assert last_offsets_per_batch(log) == [1, 2, 3]


def test_producer_with_an_open_transaction_never_expires():
    log = txn_log()
    log.append([rec("a")], now_ms=0, producer_id=1, producer_epoch=0, transactional=True)
    assert log.producer_state.remove_expired_producers(10**12, 1) == []


@pytest.mark.parametrize(
    ("version", "active_has_data", "expected_last_offsets"),
    [
        ("3.9.1", True, [0, 2]),  # no rule B before KAFKA-17076
        ("3.9.1", False, [0]),
        ("3.9.2", True, [0, 1, 2]),  # backport: the batch ending at the first uncleanable offset stays
        ("4.0.0", True, [0, 1, 2]),
        ("4.2.1", False, [0, 1]),
        ("4.4.0", True, [0, 2]),  # KAFKA-20452: only when its next offset is the high watermark
        ("4.4.0", False, [0, 1]),
    ],
)
def test_rule_b_by_kafka_version(version, active_has_data, expected_last_offsets):
    """Spec 7.3 rule B and 15: a keyless batch emptied right before the uncleanable region."""
    broker = BrokerConfig.from_properties({"kafka.version": version})
    log = PartitionLog("t", config=TopicConfig.from_properties({"cleanup.policy": "delete"}), broker=broker)
    log.append([rec("a")], now_ms=0)
    log.append([rec(None)], now_ms=0)
    log.config = log.config.with_properties({"cleanup.policy": "compact"})
    log.roll(now_ms=0)
    if active_has_data:
        log.append([rec("z")], now_ms=0)
    one_pass(log, offset_map=ExactOffsetMap())
    assert last_offsets_per_batch(log) == expected_last_offsets
    assert all(b.size_bytes == 61 for b in log.batches() if b.base_offset == 1)


@pytest.mark.parametrize(
    ("version", "after_each_pass"),
    [
        ("3.0.0", [[1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5]]),
        ("3.1.0", [[1, 2, 3], [2, 3, 4], [2, 3, 4, 5]]),
    ],
)
def test_tombstone_horizon_before_and_after_kip_534(version, after_each_pass):
    """Spec 7.1, 15: before 3.1 a tombstone goes once its segment's mtime is at or below the last clean
    segment's mtime minus delete.retention.ms; from 3.1 at the horizon stamped in its batch."""
    t = 1_000_000
    broker = BrokerConfig.from_properties({"kafka.version": version})
    config = TopicConfig.from_properties(
        {"cleanup.policy": "compact", "delete.retention.ms": 1000, "segment.bytes": 100}
    )
    log = PartitionLog("t", config=config, broker=broker)
    for key, value, at in [("a", "v", t), ("a", None, t), ("b", "v", t), ("z", "v", t + 3000)]:
        log.append([rec(key, value, timestamp=at)], now_ms=at)  # one batch per segment
    seen = []
    for at, key in [(t + 3000, None), (t + 6000, "y"), (t + 9000, "x")]:
        if key is not None:
            log.append([rec(key, timestamp=at)], now_ms=at)
        one_pass(log, now_ms=at)
        seen.append(offsets_in_log(log))
    assert seen == after_each_pass


@pytest.mark.parametrize(("version", "batches"), [("2.2.0", [0, 1, 2, 3, 4, 5, 6]), ("2.2.1", [1, 2, 3, 4, 5, 6])])
def test_before_2_2_1_rule_a_keeps_every_batch_ending_at_the_producers_last_sequence(version, batches):
    """KAFKA-8335 (2.2.1): rule A went by the producer's last sequence, whatever the epoch; every transaction of a
    re-initialised producer starts at sequence 0, so its emptied batch at 0 stayed too (seen on 2.0.1 and 2.1.1)."""
    log = txn_log(version)
    for epoch, key in enumerate("ab"):  # 0: [a] epoch 0, 1: COMMIT, 2: [b] epoch 1, 3: COMMIT
        log.append([rec(key)], now_ms=0, producer_id=1, producer_epoch=epoch, base_sequence=0, transactional=True)
        log.append_end_txn_marker(1, epoch, commit=True, now_ms=0)
    log.append([rec("a")], now_ms=0)
    log.append([rec("b")], now_ms=0)
    roll_and_append(log, "z")
    one_pass(log)
    assert last_offsets_per_batch(log) == batches
    assert offsets_in_log(log) == [1, 3, 4, 5, 6]  # both transactions' records are superseded either way


@pytest.mark.parametrize(("version", "indexed"), [("2.2.1", []), ("2.2.2", [(1, 0, 1)])])
def test_before_2_2_2_a_marker_in_a_later_segment_than_its_data_loses_its_index_entry(version, indexed):
    """KAFKA-8351 (2.2.2): each source segment began with fresh transaction bookkeeping, so an ABORT marker whose
    data sat in the previous segment was kept (legacy horizon) without its aborted entry in the cleaned index
    (seen on 2.0.1 and 2.1.1: no ``.txnindex`` after the pass; the next pass dropped the marker)."""
    log = txn_log(version)
    log.append([rec("a")], now_ms=1000, producer_id=1, producer_epoch=0, base_sequence=0, transactional=True)
    log.roll(now_ms=1000)
    log.append_end_txn_marker(1, 0, commit=False, now_ms=1000)
    log.append([rec("d")], now_ms=1000)
    roll_and_append(log, "z", now_ms=1000)
    one_pass(log, now_ms=1000)
    assert last_offsets_per_batch(log) == [0, 1, 2, 3]  # the aborted batch stays empty (rule A), the marker stays
    assert [(t.producer_id, t.first_offset, t.last_offset) for t in log.segments[0].aborted_transactions] == indexed
