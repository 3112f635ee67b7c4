"""Writing partition logs: byte-identical round trips, exact encodings, checkpoints, refusal to clobber."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kcompact_nb.core import Record, RecordBatch, TimestampType
from kcompact_nb.io import (
    LogWriteError,
    batch_bytes,
    read_checkpoint,
    read_log_dir,
    read_partition_dir,
    write_partition_dir,
)
from kcompact_nb.io.logdir import write_log_dir
from kcompact_nb.record import encode_batch
from tests.conftest import compacted_log
from tests.conftest import rec as new_rec
from tests.io.kafka_bytes import file_bytes, kafka_batch, marker_batch, rec, simple_batches, write_segments


def kafka_written_partition(root):
    return write_segments(
        root / "t-0",
        {
            0: [
                kafka_batch(
                    [rec(0, 5, b"k1", b"v1", [("h", b"x")]), rec(2, 9, None, b"")], base_offset=0, leader_epoch=4
                ),
                kafka_batch([rec(0, 1_000, b"k2", None)], base_offset=3, delete_horizon=90_000_000),
                kafka_batch([], base_offset=4, producer_id=3, producer_epoch=1, base_sequence=0, last_offset_delta=1),
                marker_batch(6, 3, 1, commit=True, ts=2_000),
                kafka_batch([rec(0, 7, b"k3", b"v")], base_offset=7, log_append_time=8_000),
            ],
            8: simple_batches(range(8, 11)),
        },
    )


def test_read_then_write_is_byte_identical(tmp_path):
    source = kafka_written_partition(tmp_path / "in")
    loaded = read_partition_dir(source)
    write_partition_dir(loaded.log, tmp_path / "out")
    assert file_bytes(tmp_path / "out" / "t-0") == file_bytes(source)


def test_encoding_without_raw_bytes_is_exact_for_every_kind_of_batch(tmp_path):
    source = kafka_written_partition(tmp_path / "in")
    log = read_partition_dir(source).log
    for segment in log.segments:
        segment.batches[:] = [b.without_raw() for b in segment.batches]
    write_partition_dir(log, tmp_path / "out")
    assert file_bytes(tmp_path / "out" / "t-0") == file_bytes(source)
    again = read_partition_dir(tmp_path / "out" / "t-0").log
    assert list(again.batches()) == list(log.batches())


def test_model_batches_encode_to_their_model_sizes():
    horizon = 60_000 + 86_400_000
    batches = [
        RecordBatch.build([Record(0, 0, b"k0", b"0123456789")]),
        RecordBatch.build([Record(1, 60_000, b"k1", None)], delete_horizon_ms=horizon),
        RecordBatch.build([], base_offset=2, last_offset=2, max_timestamp=5, producer_id=1, producer_epoch=0),
        RecordBatch.build([Record(3, 1, b"k", b"v", (("a", b"1"),))], log_append_time_ms=99),
    ]
    assert (
        [len(encode_batch(b)) for b in batches]
        == [b.size_bytes for b in batches]
        == [80, 73, 61, batches[3].size_bytes]
    )


def test_model_log_round_trip(tmp_path):
    log = compacted_log(segment_bytes=400)
    for i in range(12):
        log.append([new_rec(f"k{i % 4}", timestamp=i)], now_ms=i, producer_id=2, producer_epoch=0, base_sequence=i)
    log.append_end_txn_marker(2, 0, commit=True, now_ms=20)
    write_partition_dir(log, tmp_path / "a")
    read = read_partition_dir(tmp_path / "a" / "t-0").log
    assert list(read.batches()) == list(log.batches())
    assert [(s.base_offset, s.size_bytes, s.largest_timestamp) for s in read.segments] == [
        (s.base_offset, s.size_bytes, s.largest_timestamp) for s in log.segments
    ]
    write_partition_dir(read, tmp_path / "b")
    assert file_bytes(tmp_path / "b") == file_bytes(tmp_path / "a")


def test_stale_raw_bytes_are_not_written(tmp_path):
    batch = RecordBatch.build([Record(0, 1, b"a", b"1"), Record(1, 2, b"b", b"2")])
    with_raw = replace(batch, raw=encode_batch(batch))
    assert batch_bytes(with_raw) is with_raw.raw
    kept = RecordBatch.build([Record(1, 2, b"b", b"2")], base_offset=0, last_offset=1)
    stale = replace(kept, raw=with_raw.raw)  # a model edit that forgot to drop the raw bytes
    assert batch_bytes(stale) == encode_batch(kept) != with_raw.raw


def test_a_wrong_model_size_is_refused():
    batch = RecordBatch.build([Record(0, 1, b"a", b"1")])
    with pytest.raises(
        LogWriteError, match="x.log: batch .0, 0. at byte position 0 encodes to 70 bytes but its size_bytes is 71"
    ):
        batch_bytes(replace(batch, size_bytes=71), "x.log", 0)


def test_compressed_model_batch_is_written_with_its_codec(tmp_path):
    batch = RecordBatch.build([Record(i, 1, b"k%d" % i, b"z" * 100) for i in range(10)], compression="gzip")
    data = encode_batch(batch)
    assert data[22] & 0x07 == 1 and len(data) < batch.size_bytes
    (tmp_path / "t-0").mkdir()
    (tmp_path / "t-0" / f"{0:020d}.log").write_bytes(data)
    (read,) = read_partition_dir(tmp_path / "t-0").log.batches()
    assert read.records == batch.records and read.compression == "gzip"


def test_existing_non_empty_targets_are_refused_unless_overwrite(tmp_path, fruit_log):
    write_partition_dir(fruit_log, tmp_path)
    with pytest.raises(LogWriteError, match="not empty"):
        write_partition_dir(fruit_log, tmp_path)
    (tmp_path / "t-0" / "extra").write_text("x")
    write_partition_dir(fruit_log, tmp_path, overwrite=True)
    assert not (tmp_path / "t-0" / "extra").exists()
    with pytest.raises(LogWriteError, match="not empty"):
        write_log_dir([fruit_log], tmp_path)


def test_write_log_dir_writes_checkpoints(tmp_path, fruit_log):
    fruit_log.cleaner_checkpoint = 24
    fruit_log.log_start_offset = 5
    other = compacted_log("u")
    other.append([new_rec("a", timestamp=1)], now_ms=1)
    root = write_log_dir([fruit_log, other], tmp_path / "logs")
    assert read_checkpoint(root / "cleaner-offset-checkpoint") == {("t", 0): 24}
    assert read_checkpoint(root / "log-start-offset-checkpoint") == {("t", 0): 5}
    assert read_checkpoint(root / "recovery-point-offset-checkpoint") == {("t", 0): 30, ("u", 0): 1}
    result = read_log_dir(root)
    assert (result.logs["t-0"].cleaner_checkpoint, result.logs["t-0"].log_start_offset) == (24, 5)
    fruit_log.cleaner_checkpoint = 30
    write_log_dir([fruit_log], root, overwrite=True)
    assert read_checkpoint(root / "recovery-point-offset-checkpoint") == {("t", 0): 30, ("u", 0): 1}
    assert read_checkpoint(root / "cleaner-offset-checkpoint") == {("t", 0): 30}


def test_segment_files_keep_the_segment_mtime(tmp_path, fruit_log):
    fruit_log.segments[0].last_modified_ms = 1_700_000_000_123
    write_partition_dir(fruit_log, tmp_path)
    assert read_partition_dir(tmp_path / "t-0").log.segments[0].last_modified_ms == 1_700_000_000_123


def test_log_append_time_batches_keep_their_type(tmp_path):
    batch = RecordBatch.build([Record(0, 3, b"a", b"1")], log_append_time_ms=50)
    (tmp_path / "t-0").mkdir()
    (tmp_path / "t-0" / f"{0:020d}.log").write_bytes(encode_batch(batch))
    (read,) = read_partition_dir(tmp_path / "t-0").log.batches()
    assert read.timestamp_type is TimestampType.LOG_APPEND_TIME and read == batch
