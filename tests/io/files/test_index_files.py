"""Kafka's .index, .timeindex, .txnindex and .snapshot files: broker-written samples read, rebuilt and written back.

tests/broker/test_index_files_kafka.py compares the writers with Kafka's own classes and a live broker.
"""

from __future__ import annotations

import struct
from dataclasses import replace
from pathlib import Path

import pytest
from crc32c import crc32c
from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb.core import AbortedTxn, RecordBatch, rebuild_producer_state, segment_file_name
from kcompact_nb.io import (
    INDEX_FILE_SUFFIXES,
    IndexFileError,
    OffsetIndexFile,
    ProducerSnapshotFile,
    SegmentFileReader,
    TimeIndexFile,
    TransactionIndexFile,
    read_index_file,
    read_partition_dir,
    segment_files,
)
from kcompact_nb.io.files import (
    OffsetPosition,
    ProducerSnapshotEntry,
    TimestampOffset,
    appended_indexes,
    decode_offset_index,
    decode_producer_snapshot,
    decode_time_index,
    decode_txn_index,
    encode_index_file,
    java_hash_map_order,
    preallocated_bytes,
    read_index_pairs,
    segment_indexes,
    write_index_file,
)
from tests.io.kafka_bytes import kafka_batch, rec, tree_digest

TEMPLATE = RecordBatch.build([], base_offset=0)
"""A batch whose offsets, size and timestamps the property test replaces."""

SAMPLES = Path(__file__).resolve().parents[3] / "data" / "samples" / "kafka"
INDEX_FILES = sorted(p for p in SAMPLES.rglob("*") if p.suffix in INDEX_FILE_SUFFIXES)
PARTITION_DIRS = sorted(p for p in SAMPLES.glob("*/*/*-0") if p.is_dir())


def test_the_samples_hold_every_kind_of_file():
    kinds = {p.suffix for p in INDEX_FILES}
    assert kinds == set(INDEX_FILE_SUFFIXES) and len(INDEX_FILES) == 138


@pytest.mark.parametrize("path", INDEX_FILES, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_broker_written_files_read_and_write_back_byte_for_byte(path, tmp_path):
    before = path.read_bytes()
    index = read_index_file(path)
    assert encode_index_file(index) == before
    written = write_index_file(index, tmp_path)
    assert written.name == path.name and written.read_bytes() == before
    assert path.read_bytes() == before  # the reader left its input alone


@pytest.mark.parametrize("partition_dir", PARTITION_DIRS, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_index_entries_rebuilt_from_the_batches_equal_the_brokers(partition_dir):
    """LogSegment.append per batch; the active segment (copied from a running broker) is preallocated."""
    files = segment_files(partition_dir)
    for number, log_file in enumerate(files):
        active = number == len(files) - 1
        expected = segment_indexes(SegmentFileReader(log_file), inactive=not active)
        offset_index = read_index_file(log_file.with_suffix(".index"))
        time_index = read_index_file(log_file.with_suffix(".timeindex"))
        assert isinstance(offset_index, OffsetIndexFile) and isinstance(time_index, TimeIndexFile)
        assert (offset_index.entries, time_index.entries) == (expected.offset_index, expected.time_index)
        sizes = (preallocated_bytes(4096, 8), preallocated_bytes(4096, 12)) if active else (None, None)
        assert (offset_index.preallocated_bytes, time_index.preallocated_bytes) == sizes  # segment.index.bytes=4096


@pytest.mark.parametrize("partition_dir", PARTITION_DIRS, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_the_loader_takes_the_transaction_indexes_as_stored(partition_dir):
    """Where the cleaner removed an aborted data batch they differ from a rebuild: Cleaner.cleanSegments copies the
    source segments' AbortedTxn entries (CleanedTransactionMetadata), so the stored first offset is the original
    one, 1, while rebuilding the index from the batches that remain finds the transaction at its marker, 2; the
    broker's next passes go by the stored entry, and so does the loaded log (docs/cleaner-rules.md, section 8.4)."""
    log = read_partition_dir(partition_dir).log
    stored = []
    for segment in log.segments:
        path = partition_dir / segment_file_name(segment.base_offset, ".txnindex")
        stored += read_index_file(path).entries if path.exists() else ()
    assert [t for s in log.segments for t in s.aborted_transactions] == stored
    rebuild_producer_state(log)
    rebuilt = [t for s in log.segments for t in s.aborted_transactions]
    if partition_dir.relative_to(SAMPLES).parts[:2] == ("rule-b-kafka-4.4.0", "after"):
        assert (stored, rebuilt) == ([AbortedTxn(1, 1, 2, 3)], [AbortedTxn(1, 2, 2, 3)])
    else:
        assert stored == rebuilt


def test_the_transactional_sample_in_detail():
    before = SAMPLES / "transactional" / "before" / "txn-0"
    assert read_index_file(before / "00000000000000000005.txnindex") == TransactionIndexFile(
        5, (AbortedTxn(producer_id=3, first_offset=3, last_offset=5, last_stable_offset=6),)
    )
    snapshot = read_index_file(before / "00000000000000000005.snapshot")
    assert snapshot == ProducerSnapshotFile(5, (ProducerSnapshotEntry(
        producer_id=3, producer_epoch=0, last_sequence=3, last_offset=4, offset_delta=1,
        timestamp=1_795_281_428_576, coordinator_epoch=0, current_txn_first_offset=3),))  # fmt: skip
    assert read_index_file(before / "00000000000000000002.timeindex") == TimeIndexFile(
        2, (TimestampOffset(1_795_281_428_611, 2),)
    )
    active = read_index_file(before / "00000000000000000006.index")
    assert active == OffsetIndexFile(6, (), preallocated_bytes=4096)


def test_index_points_follow_index_interval_bytes_per_batch(tmp_path):
    """LogSegment.append: an entry once more than index.interval.bytes were appended since the last one."""
    sizes, stamps = [100, 150, 120, 80, 300, 90, 50], [5, 9, 7, 20, 11, 30, 40]
    path = tmp_path / segment_file_name(10, ".log")
    path.write_bytes(b"".join(kafka_batch([rec(0, ts, b"k", b"v" * size)], base_offset=10 + i)
                              for i, (size, ts) in enumerate(zip(sizes, stamps, strict=True))))  # fmt: skip
    batches = list(SegmentFileReader(path))
    positions = [sum(b.size_bytes for b in batches[:i]) for i in range(len(batches))]
    got = segment_indexes(batches, index_interval_bytes=200, inactive=True)
    # batch sizes 171, 221, 191, 151, 371, 161, 119; bytes appended since the last entry, before each batch:
    # 0, 171, 392 (> 200: entry at batch 2), 191, 342 (entry at 4), 371 (entry at 5), 161
    assert [b.size_bytes for b in batches] == [171, 221, 191, 151, 371, 161, 119]
    assert got.offset_index == tuple(OffsetPosition(10 + i, positions[i]) for i in (2, 4, 5))
    # each index point adds the largest timestamp so far with its batch's offset (9 at 11, 20 at 13, 30 at 15);
    # becoming inactive adds the final largest (40 at 16)
    expected = (TimestampOffset(9, 11), TimestampOffset(20, 13), TimestampOffset(30, 15), TimestampOffset(40, 16))
    assert got.time_index == expected
    assert segment_indexes(batches, index_interval_bytes=200, inactive=False).time_index == expected[:3]


def test_index_points_follow_index_interval_bytes_per_append_before_kafka_806(tmp_path):
    """The same batches in three appends (as the cleaner writes read buffers) under the rule before 3.9.1 and 4.0.1:
    one check per append, before its bytes count; the entry is the append's last offset at its first position, and
    the time entry the largest timestamp so far including the whole append."""
    sizes, stamps = [100, 150, 120, 80, 300, 90, 50], [5, 9, 7, 20, 11, 30, 40]
    path = tmp_path / segment_file_name(10, ".log")
    path.write_bytes(b"".join(kafka_batch([rec(0, ts, b"k", b"v" * size)], base_offset=10 + i)
                              for i, (size, ts) in enumerate(zip(sizes, stamps, strict=True))))  # fmt: skip
    batches = list(SegmentFileReader(path))
    appends = [batches[:3], batches[3:5], batches[5:]]
    got = appended_indexes(appends, index_interval_bytes=200, indexes_each_batch=False)
    # appends of 583, 522 and 280 bytes: the first gets no entry, the next two do (583 and 522 went by)
    assert got.offset_index == (OffsetPosition(14, 583), OffsetPosition(16, 583 + 522))
    # 20 (batch 13) is the largest timestamp once the second append is in; 40 (batch 16) with the third: closing
    # the segment adds nothing
    assert got.time_index == (TimestampOffset(20, 13), TimestampOffset(40, 16))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(61, 400), st.integers(0, 50)), min_size=1, max_size=25),
    st.lists(st.integers(1, 4), min_size=25, max_size=25),
    st.integers(1, 600),
)
def test_per_append_entries_sit_at_append_starts_and_single_batch_appends_index_per_batch(shapes, cuts, interval):
    """For any batches and appends: one batch per append gives the per-batch entries under either rule; per append,
    each offset entry is an append's last offset at the append's first position, after the first append."""
    batches = [
        replace(TEMPLATE, base_offset=offset, last_offset=offset, size_bytes=size, base_timestamp=ts, max_timestamp=ts)
        for offset, (size, ts) in enumerate(shapes)
    ]
    singles = appended_indexes(([b] for b in batches), index_interval_bytes=interval, indexes_each_batch=False)
    assert singles == segment_indexes(batches, index_interval_bytes=interval)
    appends, start = [], 0
    for cut in cuts:
        if start < len(batches):
            appends.append(batches[start : start + cut])
            start += cut
    starts = {sum(b.size_bytes for a in appends[:i] for b in a): a[-1].last_offset for i, a in enumerate(appends)}
    got = appended_indexes(appends, index_interval_bytes=interval, indexes_each_batch=False)
    assert all(starts.get(e.position) == e.offset and e.position > 0 for e in got.offset_index)
    assert len(got.offset_index) <= len(appends) - 1


def test_preallocated_indexes_keep_their_size_and_stop_at_the_zero_fill():
    entries = (OffsetPosition(7, 0x1000), OffsetPosition(9, 0x2000))
    data = encode_index_file(OffsetIndexFile(5, entries, preallocated_bytes=preallocated_bytes(100, 8)))
    assert len(data) == 96 and data[16:] == bytes(80)
    assert decode_offset_index(data, 5) == OffsetIndexFile(5, entries, preallocated_bytes=96)
    time_data = encode_index_file(TimeIndexFile(5, (TimestampOffset(0, 5),), preallocated_bytes=36))
    assert time_data == bytes(36)  # a lone (0, base) entry is the zero fill itself: both read the same bytes
    assert decode_time_index(time_data, 5) == TimeIndexFile(5, (), preallocated_bytes=36)
    assert decode_time_index(bytes(12), 5) == TimeIndexFile(5, (TimestampOffset(0, 5),))  # trimmed: an entry


BAD_FILES = [
    (decode_offset_index, bytes(12), 8, "12 bytes is not a whole number of 8-byte offset index entries"),
    (decode_offset_index, struct.pack(">iiii", 5, 80, 3, 160), 8, "offsets and positions must increase"),
    (decode_offset_index, struct.pack(">iiiiii", 5, 80, 0, 0, 0, 1), 23, "non-zero bytes after the zero-filled"),
    (decode_offset_index, struct.pack(">ii", -3, 80), 0, "negative relative offset -3"),
    (decode_time_index, struct.pack(">qiqi", 50, 1, 40, 2), 12, "goes back from entry 0"),
    (decode_time_index, bytes(13), 12, "not a whole number of 12-byte time index entries"),
    (decode_txn_index, bytes(35), 34, "35 bytes is not a whole number of 34-byte aborted-transaction entries"),
    (decode_txn_index, struct.pack(">hqqqq", 1, 1, 2, 3, 4), 0, "aborted transaction version 1"),
    (decode_producer_snapshot, b"\x00\x01", 0, "2 bytes are too few for a producer snapshot header"),
    (decode_producer_snapshot, struct.pack(">hIi", 2, 0, 0), 0, "snapshot version 2; Kafka reads version 1"),
    (
        decode_producer_snapshot,
        struct.pack(">hIi", 1, 0, 1),
        6,
        "an entry count of 1 needs 56 bytes but the file has 10",
    ),
    (decode_producer_snapshot, struct.pack(">hIi", 1, 7, 0), 2, f"stored CRC 7, computed {crc32c(bytes(4))}"),
]


@pytest.mark.parametrize(("decode", "data", "position", "message"), BAD_FILES)
def test_files_not_in_kafkas_format_name_the_file_and_byte_position(decode, data, position, message):
    with pytest.raises(IndexFileError) as caught:
        decode(data, 0, "f.index")
    assert (
        caught.value.position == position and message in str(caught.value) and str(caught.value).startswith("f.index: ")
    )


def test_names_that_are_not_segment_files_are_refused(tmp_path):
    for name, message in [
        ("abc.index", "expected 20 digits"),
        (f"{0:020d}.idx", "not an index or snapshot file"),
        ("9" * 20 + ".index", "the offset in the file name, 99999999999999999999, is beyond 9223372036854775807"),
    ]:
        (tmp_path / name).write_bytes(b"")
        with pytest.raises(IndexFileError, match=message) as raised:
            read_index_file(tmp_path / name)
        assert raised.value.position is None and "byte position" not in str(raised.value)


def test_snapshot_writes_in_java_hash_map_order_with_its_crc():
    """ProducerStateManager.writeSnapshot iterates a HashMap<Long, ProducerStateEntry> (bucket of the id's hash)."""

    def entry(pid: int) -> ProducerSnapshotEntry:
        return ProducerSnapshotEntry(pid, 0, 4, 100 + pid % 7, 0, 1_000, -1, -1)

    inserted = [entry(pid) for pid in (17, 1, 33, 2, (1 << 32) + 1, 16)]
    # capacity 16: buckets 17->1, 1->1, 33->1, 2->2, 2^32+1 -> (1 ^ 1) = 0, 16->0; in a bucket, insertion order
    assert [e.producer_id for e in java_hash_map_order(inserted)] == [(1 << 32) + 1, 16, 17, 1, 33, 2]
    many = [entry(pid) for pid in range(20, 0, -1)]  # 20 producers: the table grew to 32 buckets
    assert [e.producer_id for e in java_hash_map_order(many)] == list(range(1, 21))
    assert [e.producer_id for e in java_hash_map_order(many, capacity=16)][:3] == [16, 17, 1]
    snapshot = ProducerSnapshotFile(40, tuple(java_hash_map_order(inserted)))
    data = encode_index_file(snapshot)
    assert len(data) == 10 + 6 * 46 and struct.unpack_from(">I", data, 2)[0] == crc32c(data[6:])
    assert decode_producer_snapshot(data, 40) == snapshot


def test_reading_index_files_leaves_the_folder_untouched():
    folder = SAMPLES / "transactional" / "before"
    before = tree_digest(folder)
    for path in sorted(folder.rglob("*")):
        if path.suffix in INDEX_FILE_SUFFIXES:
            read_index_file(path)
    assert tree_digest(folder) == before


def test_index_pairs_are_the_entries_read_whole():
    """The pairs log loading takes (``read_index_pairs``) are the entries ``read_index_file`` reads, file by file."""
    paths = [p for p in sorted(SAMPLES.rglob("*")) if p.suffix in (".index", ".timeindex")]
    assert paths
    for path in paths:
        entries = read_index_file(path).entries
        fields = ("offset", "position") if path.suffix == ".index" else ("timestamp", "offset")
        assert read_index_pairs(path) == [tuple(getattr(e, f) for f in fields) for e in entries]


def test_a_base_offset_near_long_max_gives_the_offsets_past_it_not_wrapped_ones():
    base = 2**63 - 10  # a hostile file name: base + relative passes Long.MAX_VALUE, which int64 columns would wrap
    index = decode_offset_index(struct.pack(">iiii", 5, 0, 20, 80), base)
    assert [e.offset for e in index.entries] == [base + 5, base + 20]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 1000), min_size=2, max_size=40), st.data())
def test_the_first_entry_that_goes_back_is_the_one_named(steps, data):
    """Whatever the entries, the error names the first entry not above the one before it, by number and bytes."""
    offsets = [sum(steps[: i + 1]) for i in range(len(steps))]
    broken = data.draw(st.integers(1, len(offsets) - 1))
    offsets[broken] = offsets[broken - 1] - data.draw(st.integers(0, offsets[broken - 1] - 1))
    positions = [8 * i + 1 for i in range(len(offsets))]
    first = next(i for i in range(1, len(offsets)) if offsets[i] <= offsets[i - 1])
    raw = b"".join(struct.pack(">ii", o, p) for o, p in zip(offsets, positions, strict=True))
    with pytest.raises(IndexFileError) as caught:
        decode_offset_index(raw, 0, "f.index")
    assert caught.value.position == 8 * first
    named = f"entry {first} ({offsets[first]} at {positions[first]}) does not follow entry {first - 1} "
    assert named in str(caught.value)
