"""A partition folder's producer state is its latest snapshot's, not a replay of what the cleaner left
(docs/cleaner-rules.md, section 8.5)."""

from __future__ import annotations

import pytest

from kcompact_nb import BrokerConfig, PartitionLog, TopicConfig
from kcompact_nb.core.cleaner import UncleanableBound, log_to_clean
from kcompact_nb.io import read_partition_dir, write_broker_log_dir
from tests.conftest import last_offsets_per_batch, rec
from tests.core.cleaner.test_cleaner_pass import one_pass


def marker_dropped_before_its_batch(version: str) -> PartitionLog:
    """0: pid 1's aborted batch; segment 1: its ABORT at 1, d at 2; two passes, then the active segment 5.

    Before KAFKA-8351 (2.2.2) the first pass cleans each source segment with fresh transaction bookkeeping: the
    ABORT, met without its transaction's batch, keeps no ``.txnindex`` entry, and the second pass drops it, while
    rule A keeps the batch at 0 empty (pid 1's last). From 2.2.2 both stay.
    """
    broker = BrokerConfig.from_properties({"kafka.version": version})
    config = TopicConfig.from_properties({"cleanup.policy": "compact", "delete.retention.ms": 0})
    log = PartitionLog("t", config=config, broker=broker)
    log.append([rec("a")], now_ms=1000, producer_id=1, producer_epoch=0, base_sequence=0, transactional=True)
    log.roll(now_ms=1000)
    log.append_end_txn_marker(1, 0, commit=False, now_ms=1000)
    log.append([rec("d")], now_ms=1000)
    for key, now_ms in (("z", 1000), ("y", 10_000)):
        log.roll(now_ms=now_ms)
        log.append([rec(key, timestamp=now_ms)], now_ms=now_ms)
        one_pass(log, now_ms=now_ms)
    log.roll(now_ms=10_000)
    log.append([rec("x", timestamp=10_000)], now_ms=10_000)
    return log


@pytest.mark.parametrize(("version", "batches"), [("2.1.1", [0, 2, 3, 4, 5]), ("2.2.2", [0, 1, 2, 3, 4, 5])])
def test_the_loaded_producer_state_is_the_snapshots_not_a_replay_of_the_cleaned_log(version, batches, tmp_path):
    """Kafka's broker keeps producer state in memory and loads it from the latest snapshot, replaying only the batches
    after it (``ProducerStateManager.truncateAndReload``, ``loadFromSnapshot``). Replayed from the start, the log
    2.0 and 2.1 leave finds pid 1's transaction open at its emptied batch, and the partition would wait at offset 0
    for ever; the broker, whose state saw the ABORT, cleans on (seen on 2.1.1, workload
    ``aborted-over-rounds``: Kafka cleaned [19, 26) where a replay held the last stable offset at 6)."""
    log = marker_dropped_before_its_batch(version)
    assert last_offsets_per_batch(log) == batches
    assert log.producer_state.first_unstable_offset() is None
    folder = write_broker_log_dir([log], tmp_path / "out") / "t-0"
    assert sorted(p.name for p in folder.glob("*.snapshot")) == ["00000000000000000006.snapshot"]  # at the log end
    again = read_partition_dir(folder, broker=log.broker, config=log.config, cleaner_checkpoint=4).log
    assert again.producer_state.producers == log.producer_state.producers
    ltc = log_to_clean(again, now_ms=10_000)
    assert (again.last_stable_offset, ltc.first_uncleanable_offset, ltc.uncleanable_bound) == (
        6,
        5,
        UncleanableBound.ACTIVE_SEGMENT,
    )
    (folder / "00000000000000000006.snapshot").unlink()
    replayed = read_partition_dir(folder, broker=log.broker, config=log.config, cleaner_checkpoint=4).log
    open_at = {"2.1.1": 0, "2.2.2": None}[version]
    assert replayed.producer_state.first_unstable_offset() == open_at


def test_an_unreadable_snapshot_is_passed_over_for_the_one_before(tmp_path):
    """``loadFromSnapshot``: a snapshot that does not read (``CorruptSnapshotException``) is deleted and the latest
    before it taken; the batches from its offset on are replayed. The reader notes it and deletes nothing."""
    log = marker_dropped_before_its_batch("2.1.1")
    folder = write_broker_log_dir([log], tmp_path / "out") / "t-0"
    taken = folder / "00000000000000000005.snapshot"
    (folder / "00000000000000000006.snapshot").rename(taken)  # the state at 6 holds at 5 too: no producer after 5
    corrupt = folder / "00000000000000000006.snapshot"
    corrupt.write_bytes(taken.read_bytes()[:-1] + b"\x00")
    loaded = read_partition_dir(folder, broker=log.broker, config=log.config)
    assert loaded.log.producer_state.producers == log.producer_state.producers
    assert [n for n in loaded.notes if "snapshot" in n] == [
        f"{corrupt}: snapshot is corrupt: stored CRC 1499241868, computed 4095856349 (at byte position 2); "
        "Kafka's log loading deletes it and takes the snapshot before it"
    ]
    assert corrupt.exists()
