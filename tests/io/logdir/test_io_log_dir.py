"""Reading partition directories and log dirs: segments, offsets, timestamps, producer state, checkpoints."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kcompact_nb.core import AbortedTxn, TopicConfig
from kcompact_nb.io import (
    CheckpointFormatError,
    NotASegmentError,
    parse_checkpoint,
    read_log_dir,
    read_partition_dir,
    write_partition_dir,
)
from kcompact_nb.io.files import format_checkpoint
from tests.conftest import compacted_log, segment_layout
from tests.conftest import rec as new_rec
from tests.io.kafka_bytes import kafka_batch, marker_batch, rec, simple_batches, tree_digest, write_segments


def test_model_log_written_and_read_back_has_the_same_segments(tmp_path, fruit_log):
    write_partition_dir(fruit_log, tmp_path)
    loaded = read_partition_dir(tmp_path / "t-0")
    log = loaded.log
    assert (
        segment_layout(log)
        == segment_layout(fruit_log)
        == [
            (0, 960, list(range(12))),
            (12, 960, list(range(12, 24))),
            (24, 480, list(range(24, 30))),
        ]
    )
    assert (log.log_start_offset, log.log_end_offset, log.cleaner_checkpoint) == (0, 30, None)
    assert [list(s.batches) for s in log.segments] == [list(s.batches) for s in fruit_log.segments]
    assert loaded.dropped == [] and loaded.leftovers == []


def test_segment_timestamps_and_offsets(tmp_path):
    part = write_segments(
        tmp_path / "fruit-prices-3",
        {
            0: [
                kafka_batch([rec(0, 500, b"a", b"1"), rec(1, 900, b"b", b"2")], base_offset=0),
                *simple_batches([2], ts=300),
            ],
            10: simple_batches([10, 11], ts=2_000),  # offsets 3-9 missing: a cleaned gap
            20: [],
        },
    )
    os.utime(part / f"{20:020d}.log", ns=(7_000_000_000, 7_000_000_000))
    log = read_partition_dir(part).log
    assert (log.topic, log.partition) == ("fruit-prices", 3)
    s0, s10, s20 = log.segments
    assert (s0.size_bytes, s0.largest_timestamp, s0.rolling_based_timestamp) == (
        sum(b.size_bytes for b in s0.batches),
        900,
        900,
    )
    assert (s10.largest_timestamp, s10.rolling_based_timestamp) == (2_011, 2_010)
    assert (s20.size_bytes, s20.rolling_based_timestamp, s20.largest_timestamp) == (0, None, 7_000)
    assert log.active_segment is s20
    assert (log.log_start_offset, log.log_end_offset) == (0, 20)
    assert log.config == TopicConfig.from_properties({"cleanup.policy": "compact"})


def test_producer_state_open_and_aborted_transactions_are_rebuilt(tmp_path):
    part = write_segments(
        tmp_path / "txn-0",
        {
            0: [
                kafka_batch(
                    [rec(0, 10, b"a", b"1")],
                    base_offset=0,
                    producer_id=5,
                    producer_epoch=0,
                    base_sequence=0,
                    transactional=True,
                ),
                kafka_batch(
                    [rec(0, 11, b"b", b"1")],
                    base_offset=1,
                    producer_id=6,
                    producer_epoch=0,
                    base_sequence=0,
                    transactional=True,
                ),
                kafka_batch([rec(0, 12, b"c", b"1")], base_offset=2, producer_id=7, producer_epoch=1, base_sequence=4),
                marker_batch(3, 5, 0, commit=False, ts=13, coordinator_epoch=2),
            ],
            4: [
                kafka_batch(
                    [rec(0, 14, b"d", b"1")],
                    base_offset=4,
                    producer_id=6,
                    producer_epoch=0,
                    base_sequence=1,
                    transactional=True,
                ),
                kafka_batch([], base_offset=5, producer_id=8, producer_epoch=0, transactional=True, control=True),
            ],
        },
    )
    log = read_partition_dir(part).log
    producers = log.producer_state.producers
    assert sorted(producers) == [5, 6, 7]  # an emptied control batch does not touch producer 8's state
    assert producers[5].current_txn_first_offset is None and producers[5].coordinator_epoch == 2
    assert producers[6].current_txn_first_offset == 1 and producers[6].last_data_offset == 4
    assert (producers[7].producer_epoch, producers[7].last_sequence) == (1, 4)
    assert log.segments[0].aborted_transactions == [AbortedTxn(5, 0, 3, 1)]
    assert log.segments[1].aborted_transactions == []
    assert log.last_stable_offset == 1


def test_idle_producers_expire_only_when_now_is_given(tmp_path):
    part = write_segments(
        tmp_path / "p-0",
        {
            0: [
                kafka_batch(
                    [rec(0, 1_000, b"a", b"1")], base_offset=0, producer_id=5, producer_epoch=0, base_sequence=0
                )
            ]
        },
    )
    assert 5 in read_partition_dir(part).log.producer_state.producers
    assert read_partition_dir(part, now_ms=1_000 + 86_400_000).log.producer_state.producers == {}


def test_a_lower_producer_epoch_is_accepted_and_noted(tmp_path):
    part = write_segments(
        tmp_path / "p-0",
        {
            0: [
                kafka_batch([rec(0, 1, b"a", b"1")], base_offset=0, producer_id=5, producer_epoch=3, base_sequence=0),
                kafka_batch([rec(0, 2, b"a", b"2")], base_offset=1, producer_id=5, producer_epoch=2, base_sequence=0),
            ]
        },
    )
    loaded = read_partition_dir(part)
    assert loaded.log.producer_state.producers[5].producer_epoch == 2
    assert any("epoch 2" in note for note in loaded.notes)


def make_log_dir(root: Path) -> Path:
    write_segments(root / "orders-0", {0: simple_batches(range(4)), 4: simple_batches(range(4, 6))})
    write_segments(root / "orders-1", {0: simple_batches(range(3))})
    (root / "orders-0" / f"{4:020d}.index").write_bytes(bytes(80))
    (root / "orders-0" / f"{0:020d}.log.cleaned").write_bytes(b"")
    (root / "orders-0" / "leader-epoch-checkpoint").write_text("0\n0\n")
    (root / "orders-2.5b9d1e0c0c1a4f8e9f5e0b0b6c6f1a2b-delete").mkdir()
    (root / "cleaner-offset-checkpoint").write_text(format_checkpoint({("orders", 0): 4, ("orders", 1): 3}))
    (root / "log-start-offset-checkpoint").write_text(format_checkpoint({("orders", 0): 2}))
    (root / "recovery-point-offset-checkpoint").write_text(format_checkpoint({("orders", 0): 6, ("orders", 1): 3}))
    (root / "meta.properties").write_text("version=1\n")
    return root


def test_log_dir_reader_applies_checkpoints_and_reports_leftovers(tmp_path):
    root = make_log_dir(tmp_path / "logs")
    before = tree_digest(root)
    result = read_log_dir(root)
    assert tree_digest(root) == before
    assert sorted(result.partitions) == ["orders-0", "orders-1"]
    o0, o1 = result.logs["orders-0"], result.logs["orders-1"]
    assert (o0.log_start_offset, o0.cleaner_checkpoint, o0.log_end_offset) == (2, 4, 6)
    assert (o1.log_start_offset, o1.cleaner_checkpoint, o1.log_end_offset) == (0, 3, 3)
    assert result.recovery_points == {("orders", 0): 6, ("orders", 1): 3}
    leftovers = result.partitions["orders-0"].leftovers
    assert [Path(p).name for p, _ in leftovers] == ["00000000000000000000.log.cleaned"]
    assert "deletes it at startup" in leftovers[0][1]
    assert [Path(p).name for p, _ in result.skipped] == ["orders-2.5b9d1e0c0c1a4f8e9f5e0b0b6c6f1a2b-delete"]
    assert result.partitions["orders-0"].notes == []


def test_log_dir_reader_skips_the_kraft_metadata_log(tmp_path):
    """``LogManager.loadLogs`` leaves ``__cluster_metadata-0`` to the Raft layer: it is no log of the cleaner."""
    root = make_log_dir(tmp_path / "logs")
    write_segments(root / "__cluster_metadata-0", {0: simple_batches(range(3))})
    result = read_log_dir(root)
    assert sorted(result.partitions) == ["orders-0", "orders-1"]
    assert (
        "__cluster_metadata-0",
        "the KRaft metadata log, not a log of the broker's log manager (never cleaned)",
    ) in [(Path(p).name, why) for p, why in result.skipped]


def test_log_dir_reader_takes_per_topic_configs_and_a_topic_filter(tmp_path):
    root = make_log_dir(tmp_path / "logs")
    write_segments(root / "other-0", {0: simple_batches(range(2))})
    special = TopicConfig.from_properties({"cleanup.policy": "compact,delete", "segment.bytes": 4096})
    result = read_log_dir(root, topic_configs={"orders": special})
    assert result.logs["orders-0"].config == special
    assert result.logs["other-0"].config.cleanup_policy == ("compact",)
    assert sorted(read_log_dir(root, topics={"other"}).partitions) == ["other-0"]


def test_log_start_offset_is_never_below_the_first_segment(tmp_path):
    root = tmp_path / "logs"
    write_segments(root / "t-0", {10: simple_batches(range(10, 12))})
    (root / "log-start-offset-checkpoint").write_text(format_checkpoint({("t", 0): 3}))
    assert read_log_dir(root).logs["t-0"].log_start_offset == 10


def test_empty_partition_directory(tmp_path):
    (tmp_path / "t-0").mkdir()
    log = read_partition_dir(tmp_path / "t-0", log_start_offset=7).log
    assert [(s.base_offset, s.size_bytes) for s in log.segments] == [(7, 0)]
    assert (log.log_start_offset, log.log_end_offset) == (7, 7)


def test_not_a_partition_directory(tmp_path):
    (tmp_path / "no_partition_number").mkdir()
    with pytest.raises(NotASegmentError, match="not a partition directory"):
        read_partition_dir(tmp_path / "no_partition_number")
    with pytest.raises(NotASegmentError):
        read_log_dir(tmp_path / "missing")


def test_checkpoint_text_format():
    text = "0\n2\nmy-topic 0 1234\nmy-topic 1 99\n"
    assert parse_checkpoint(text) == {("my-topic", 0): 1234, ("my-topic", 1): 99}
    assert format_checkpoint(parse_checkpoint(text)) == text
    assert parse_checkpoint("") == {}


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("1\n0\n", 1, "unrecognised checkpoint version"),
        ("0\n", 2, "missing the entry count"),
        ("0\nx\n", 2, "entry count"),
        ("0\n2\nt 0 5\n", 3, "expected 2 entries but found 1"),
        ("0\n1\nt zero 5\n", 3, "malformed entry"),
    ],
)
def test_checkpoint_errors_name_the_line(text, line, message):
    with pytest.raises(CheckpointFormatError, match=message) as raised:
        parse_checkpoint(text, "cp")
    assert (raised.value.file, raised.value.position) == ("cp", line)


def test_core_transactions_survive_the_round_trip(tmp_path):
    log = compacted_log(segment_bytes=300)
    log.append(
        [new_rec("a", timestamp=1)], now_ms=1, producer_id=9, producer_epoch=0, base_sequence=0, transactional=True
    )
    log.append([new_rec("b", timestamp=2)], now_ms=2)
    log.append_end_txn_marker(9, 0, commit=False, now_ms=3)
    log.append(
        [new_rec("c", timestamp=4)], now_ms=4, producer_id=9, producer_epoch=1, base_sequence=0, transactional=True
    )
    write_partition_dir(log, tmp_path)
    read = read_partition_dir(tmp_path / "t-0").log
    assert segment_layout(read) == segment_layout(log)
    assert [s.aborted_transactions for s in read.segments] == [s.aborted_transactions for s in log.segments]
    assert read.last_stable_offset == log.last_stable_offset == 3


def test_a_cleaned_file_without_full_indexes_names_no_exception(tmp_path):
    """Only a full cleaned index tells the exception (section 8.4); any other is in the broker's log alone."""
    from kcompact_nb.io.logdir._failed_pass import UNNAMED_EXCEPTION

    root = make_log_dir(tmp_path / "logs")
    loaded = read_log_dir(root).partitions
    failure = loaded["orders-0"].failed_pass
    assert failure is not None and failure.error == UNNAMED_EXCEPTION and failure.checkpoint == 4
    assert failure.left_cleaned == ("00000000000000000000.log.cleaned",) and failure.name == "orders-0"
    assert loaded["orders-1"].failed_pass is None


@pytest.mark.parametrize("read", ["log dir", "partition"])
def test_a_cleaned_file_a_running_pass_finishes_during_the_read_is_read_again_not_taken_for_a_failure(
    read, tmp_path, monkeypatch
):
    """A running broker's pass fills ``NNN.log.cleaned`` and renames it: seen at the listing and gone by the read's
    end, it is no failed pass (whose files stay as left, section 8.4): the directory is read again."""
    from kcompact_nb.io.logdir import _log_reader

    root = make_log_dir(tmp_path / "logs")
    cleaned = root / "orders-0" / "00000000000000000000.log.cleaned"
    loads = []
    load = _log_reader._load_partition

    def load_while_the_pass_ends(path, *args, **kwargs):
        loaded = load(path, *args, **kwargs)
        loads.append(loaded.failed_pass)
        cleaned.unlink(missing_ok=True)  # the pass swapped its segment in after this partition's read
        return loaded

    monkeypatch.setattr(_log_reader, "_load_partition", load_while_the_pass_ends)
    if read == "log dir":
        partition = read_log_dir(root).partitions["orders-0"]
    else:
        partition = read_partition_dir(root / "orders-0")
    assert partition.failed_pass is None and not cleaned.exists()
    assert [failure is not None for failure in loads] == [True, *([False] * (len(loads) - 1))]
    assert len(loads) == (4 if read == "log dir" else 2)  # each partition read twice: the whole read again


def test_a_log_dir_is_held_while_another_process_locks_its_lock_file_as_a_broker_does(tmp_path):
    """Kafka locks ``<log dir>/.lock`` while it runs; asking changes nothing (no lock taken, no file written)."""
    import subprocess
    import sys

    from kcompact_nb.io.logdir._broker_lock import held_by_a_running_broker

    assert not held_by_a_running_broker(tmp_path)  # no .lock file: a copy
    lock = tmp_path / ".lock"
    lock.write_bytes(b"")
    assert not held_by_a_running_broker(tmp_path)  # a stopped broker's
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, sys; f = open(sys.argv[1], 'r+'); fcntl.lockf(f, fcntl.LOCK_EX); "
         "print('held', flush=True); sys.stdin.read()", str(lock)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert held_by_a_running_broker(tmp_path)
    finally:
        holder.communicate("")
    assert not held_by_a_running_broker(tmp_path) and lock.read_bytes() == b""


def test_a_running_brokers_cleaned_file_is_no_failure_unless_its_indexes_are_full(tmp_path, monkeypatch):
    """While a broker runs, a pass may be filling ``NNN.log.cleaned``: only full indexes prove it threw (8.4)."""
    from kcompact_nb.io.logdir import _failed_pass

    root = make_log_dir(tmp_path / "logs")
    monkeypatch.setattr(_failed_pass, "held_by_a_running_broker", lambda log_dir: log_dir == root)
    assert read_log_dir(root).partitions["orders-0"].failed_pass is None
    assert any(name.endswith(".log.cleaned") for name, _ in read_log_dir(root).partitions["orders-0"].leftovers)
