"""A partition read on disk takes a block's runs of data batches as columns (:class:`HeaderRun`, issue #41): the log
it loads is the one the batch-by-batch scan loads, whatever the partition holds (producer state and notes too).

The batch-by-batch scan is the same read with every block's headers refused as columns (``BlockHeaders.valid``
False: each batch then goes through the per-batch path, as every batch did before the columns).
"""

from __future__ import annotations

import tempfile
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path
from typing import Any
from unittest import mock

import numpy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kcompact_nb.core import BrokerConfig, HeaderRun, NewRecord, PartitionLog, Segment, StoredSegment, TopicConfig
from kcompact_nb.core.model._header_run import append_run
from kcompact_nb.io import CorruptBatchError, OffsetOrderError, ReadOptions, read_partition_dir, write_partition_dir
from kcompact_nb.io.logdir import _segment_framing
from kcompact_nb.io.logdir._block_headers import BlockHeaders
from kcompact_nb.io.logdir._header_scan import header_segments
from kcompact_nb.record import RecordBatch
from tests.io.logdir.test_partition_stream import operations, random_log

INDEX_FILES = ("*.index", "*.timeindex", "*.txnindex")


def loaded_state(folder: Path, options: ReadOptions) -> Any:
    """Everything a read on disk loads: each segment's fields (sizes, index entries, timestamps, aborted
    transactions...), producer state, offsets, notes, what was dropped or found corrupt; or the error it raised."""
    try:
        loaded = read_partition_dir(folder, options)
    except CorruptBatchError as error:
        return ("raised", type(error), str(error))
    log = loaded.log
    return (
        [(type(s), asdict(s)) for s in log.segments],
        {pid: asdict(entry) for pid, entry in log.producer_state.producers.items()},
        list(log.producer_state.producers),
        (log.log_start_offset, log.log_end_offset),
        loaded.notes,
        loaded.dropped,
        str(loaded.corrupt),
    )


def batch_by_batch(folder: Path, options: ReadOptions) -> Any:
    """:func:`loaded_state` with no block's headers taken as columns."""
    with mock.patch.object(BlockHeaders, "valid", return_value=False):
        return loaded_state(folder, options)


def partition_dir(log: PartitionLog, root: Path) -> Path:
    """``log`` written under ``root``, without the files that would replace what the scan rebuilds."""
    folder = write_partition_dir(log, root)
    for pattern in INDEX_FILES:
        for file in folder.glob(pattern):
            file.unlink()
    return folder


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ops=operations,
    segment_bytes=st.integers(150, 900),
    interval=st.integers(0, 300),
    version=st.sampled_from(["4.4.0", "3.9.0", "3.6.2"]),
    block_bytes=st.sampled_from([64, 400, 1600, 8 << 20]),
    damage=st.one_of(st.none(), st.tuples(st.sampled_from(["cut", "flip"]), st.integers(0, 10_000))),
)
def test_the_columnar_scan_loads_the_log_the_batch_by_batch_scan_loads(
    ops, segment_bytes, interval, version, block_bytes, damage
):
    broker = BrokerConfig(kafka_version=version)
    config = TopicConfig.from_properties({"cleanup.policy": "compact", "index.interval.bytes": interval}, broker=broker)
    with tempfile.TemporaryDirectory() as scratch, ExitStack() as stack:
        folder = partition_dir(random_log(ops, segment_bytes, "offset"), Path(scratch))
        if damage is not None:
            spoil(folder, *damage)
        stack.enter_context(mock.patch.object(_segment_framing, "BLOCK_BYTES", block_bytes))
        options = ReadOptions(config=config, broker=broker, on_disk_from_bytes=0, as_cleaner_reads=True, now_ms=5)
        assert loaded_state(folder, options) == batch_by_batch(folder, options)


def spoil(folder: Path, how: str, where: int) -> None:
    """Cut the tail of one of ``folder``'s segment files, or flip a byte of it (``where`` picks the file and byte)."""
    files = sorted(folder.glob("*.log"))
    file = files[where % len(files)]
    data = bytearray(file.read_bytes())
    if not data:
        return
    at = where % len(data)
    if how == "cut":
        del data[at:]
    else:
        data[at] ^= 0x5A
    file.write_bytes(bytes(data))


# -- the fold, by hand ------------------------------------------------------------------------------------------

SIZES = [70, 70, 70, 30, 200, 10]
LAST_OFFSETS = [0, 1, 2, 3, 4, 5]
MAX_TIMESTAMPS = [5, 3, 9, 9, 7, 12]


def run_of(sizes: list[int], last_offsets: list[int], max_timestamps: list[int], codec: int = 0) -> HeaderRun:
    """Data batches of one offset each, without a producer id."""
    none = [-1] * len(sizes)
    columns = (sizes, last_offsets, last_offsets, max_timestamps, [codec] * len(sizes), none, none, none)
    return HeaderRun(*(numpy.array(column, numpy.int64) for column in columns), numpy.zeros(len(sizes), bool))


def fields(segment: Segment) -> tuple[Any, ...]:
    return (
        segment.size_bytes,
        segment.offset_index,
        segment.time_index,
        segment.max_timestamp_so_far,
        segment.offset_of_max_timestamp_so_far,
        segment.rolling_based_timestamp,
        segment._bytes_since_last_index_entry,
        segment.last_offset,
    )


# index.interval.bytes 100: an entry before batch 2 (140 bytes since none) and before batch 5 (300 since batch 2's);
# the time index gets the largest timestamp so far with each (9 first held at offset 2, then 12 at 5)
BY_HAND = (450, [(2, 140), (5, 440)], [(9, 2), (12, 5)], 12, 5, 5, 10, 5)


@pytest.mark.parametrize("splits", [[0, 6], [0, 3, 6], [0, 1, 2, 3, 4, 5, 6], [0, 5, 6]])
def test_a_run_is_appended_as_its_batches_one_at_a_time(splits):
    folded = StoredSegment(0, created_ms=0, index_interval_bytes=100)
    for start, stop in zip(splits, splits[1:], strict=False):
        append_run(folded, run_of(SIZES[start:stop], LAST_OFFSETS[start:stop], MAX_TIMESTAMPS[start:stop]))
    one_by_one = StoredSegment(0, created_ms=0, index_interval_bytes=100)
    for size, last, largest in zip(SIZES, LAST_OFFSETS, MAX_TIMESTAMPS, strict=True):
        one_by_one.append([RecordBatch(last, last, (), size, largest, largest)], 0, offset_of_max_timestamp=last)
    assert fields(folded) == fields(one_by_one) == BY_HAND
    assert (folded.batch_count, folded.stored_codecs) == (6, {"none"})


def test_an_entry_without_a_larger_timestamp_adds_no_time_index_entry():
    segment = StoredSegment(0, created_ms=0, index_interval_bytes=0, size_bytes=50, time_index=[(20, 0)])
    segment.max_timestamp_so_far, segment.offset_of_max_timestamp_so_far = 20, 0
    segment.rolling_based_timestamp, segment._bytes_since_last_index_entry = 20, 50
    sizes, lasts, stamps = [10, 10, 10, 10], [1, 2, 3, 4], [4, 25, 25, 30]
    append_run(segment, run_of(sizes, lasts, stamps, codec=1))
    # interval 0: an entry before every batch; the time index only where the largest timestamp grew
    assert segment.offset_index == [(1, 50), (2, 60), (3, 70), (4, 80)]
    assert segment.time_index == [(20, 0), (25, 2), (30, 4)]
    assert (segment.size_bytes, segment.max_timestamp_so_far, segment.offset_of_max_timestamp_so_far) == (90, 30, 4)
    assert (segment.rolling_based_timestamp, segment._bytes_since_last_index_entry) == (20, 10)
    assert segment.stored_codecs == {"gzip"}


# -- fallbacks -----------------------------------------------------------------------------------------------------


def scanned(folder: Path) -> list[list[str]]:
    """What the scan gives log loading for each segment file: runs (their batch counts) and single batches."""
    files = sorted(folder.glob("*.log"))
    return [
        [f"run of {len(b.sizes)}" if isinstance(b, HeaderRun) else describe(b) for b in batches]
        for _, _, batches in header_segments(files, verify_crc=True, on_bytes=None)
    ]


def describe(batch: RecordBatch) -> str:
    kind = "marker" if batch.is_control else "txn" if batch.is_transactional else "producer"
    return f"{kind} {batch.base_offset}-{batch.last_offset}"


def plain_and_transactional(root: Path) -> tuple[Path, PartitionLog]:
    log = PartitionLog(
        "t", config=TopicConfig.from_properties({"cleanup.policy": "compact", "index.interval.bytes": 50})
    )
    for i in range(3):
        log.append([NewRecord(b"k%d" % i, b"v", timestamp=10 - i)], now_ms=i)
    log.append([NewRecord(b"t", b"v", timestamp=3)], now_ms=3, producer_id=9, producer_epoch=0, transactional=True)
    log.append_end_txn_marker(9, 0, commit=False, now_ms=4)
    for i in range(5, 9):
        log.append([NewRecord(b"k%d" % i, b"v", timestamp=i * 2), NewRecord(b"x", b"y", timestamp=i)], now_ms=i)
    log.append([NewRecord(b"p", b"v", timestamp=9)], now_ms=9, producer_id=5, producer_epoch=0, base_sequence=0)
    return partition_dir(log, root), log


def test_a_marker_is_read_on_its_own_between_runs(tmp_path):
    folder, log = plain_and_transactional(tmp_path)
    assert scanned(folder) == [["run of 4", "marker 4-4", "run of 5"]]
    options = ReadOptions(on_disk_from_bytes=0, config=log.config)
    stored = read_partition_dir(folder, options).log
    assert stored.segments[0].aborted_transactions == log.segments[0].aborted_transactions != []
    assert [(s.size_bytes, s.offset_index, s.time_index, s.last_offset) for s in stored.segments] == [
        (s.size_bytes, s.offset_index, s.time_index, s.last_offset) for s in log.segments
    ]
    assert loaded_state(folder, options) == batch_by_batch(folder, options)


def test_a_cut_tail_ends_the_run_where_the_last_whole_batch_ends(tmp_path):
    folder, log = plain_and_transactional(tmp_path)
    file = next(folder.glob("*.log"))
    sizes = [b.size_bytes for b in log.segments[0].batches]
    file.write_bytes(file.read_bytes()[: sum(sizes[:7]) + 20])  # the 8th batch (a plain one) cut after 20 bytes
    options = ReadOptions(on_disk_from_bytes=0, as_cleaner_reads=True, config=log.config)
    loaded = read_partition_dir(folder, options)
    segment = loaded.log.segments[0]
    assert (segment.last_offset, segment.batch_count) == (8, 7)  # type: ignore[attr-defined]
    assert segment.size_bytes == sum(sizes[:7]) + 20  # the broker loaded the file whole before it broke
    assert loaded.corrupt is not None and "truncated" in str(loaded.corrupt)
    assert loaded_state(folder, options) == batch_by_batch(folder, options)


def test_a_corrupt_batch_in_a_block_is_read_one_by_one_and_stops_the_read(tmp_path):
    folder, log = plain_and_transactional(tmp_path)
    file = next(folder.glob("*.log"))
    sizes = [b.size_bytes for b in log.segments[0].batches]
    data = bytearray(file.read_bytes())
    data[sum(sizes[:6]) + 23] = 0xFF  # the 7th batch's lastOffsetDelta negative: its header is invalid
    file.write_bytes(bytes(data))
    with pytest.raises(CorruptBatchError, match="negative lastOffsetDelta"):
        read_partition_dir(folder, ReadOptions(on_disk_from_bytes=0, verify_crc=False, config=log.config))
    options = ReadOptions(on_disk_from_bytes=0, verify_crc=False, recover=False, as_cleaner_reads=True)
    assert loaded_state(folder, options) == batch_by_batch(folder, options)


def test_progress_counts_every_byte_of_a_run(tmp_path):
    folder, _ = plain_and_transactional(tmp_path)
    counted: list[int] = []
    for _, _, batches in header_segments(sorted(folder.glob("*.log")), verify_crc=True, on_bytes=counted.append):
        list(batches)
    assert sum(counted) == sum(f.stat().st_size for f in folder.glob("*.log"))


@pytest.mark.parametrize("block_bytes", [64, 8 << 20])  # the two batches in blocks of their own, or in one
def test_a_batch_starting_within_the_run_before_it_is_out_of_order(tmp_path, block_bytes):
    folder, log = plain_and_transactional(tmp_path)
    file = next(folder.glob("*.log"))
    data = bytearray(file.read_bytes())
    data[log.segments[0].batches[0].size_bytes : log.segments[0].batches[0].size_bytes + 8] = bytes(8)  # base 0
    file.write_bytes(bytes(data))  # the base offset lies outside the CRC: only the offsets are wrong
    options = ReadOptions(on_disk_from_bytes=0, as_cleaner_reads=True)
    with mock.patch.object(_segment_framing, "BLOCK_BYTES", block_bytes):
        with pytest.raises(OffsetOrderError, match="batch base offset 0 is below 1"):
            read_partition_dir(folder, options)
        assert loaded_state(folder, options) == batch_by_batch(folder, options)
