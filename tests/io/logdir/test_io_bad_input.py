"""Bad segment input: each failure is a project error naming the file and byte position.

Recovery keeps the valid prefix.
"""

from __future__ import annotations

import struct

import pytest

from kcompact_nb import KcompactError
from kcompact_nb.io import (
    CorruptBatchError,
    CrcMismatchError,
    InvalidMagicError,
    NotASegmentError,
    OffsetOrderError,
    TruncatedBatchError,
    iter_segment_batches,
    read_log_dir,
    read_partition_dir,
)
from kcompact_nb.io.logdir import DroppedBytes
from tests.io.kafka_bytes import kafka_batch, rec, simple_batches, tree_digest, write_segments

GOOD = simple_batches(range(3))  # three 80-byte batches, offsets 0-2


def corrupt(data: bytes, position: int, value: int) -> bytes:
    return data[:position] + bytes([value]) + data[position + 1 :]


def bad_segment(kind: str) -> bytes:
    """Three good batches followed by one bad batch (at byte 240)."""
    last = simple_batches([3])[0]
    bad = {
        "truncated": last[:50],
        "short header": last[:7],
        "crc": corrupt(last, 75, last[75] ^ 0xFF),
        "magic": corrupt(last, 16, 1),
        "backwards": simple_batches([1])[0],
        "text": b"this is not a kafka segment at all, just some text\n" * 3,
        "tiny length": last[:8] + struct.pack(">i", 20) + last[12:],
    }[kind]
    return b"".join(GOOD) + bad


CASES = [
    ("truncated", TruncatedBatchError, "truncated: only 50 bytes remain"),
    ("short header", TruncatedBatchError, "7 trailing bytes are too few"),
    ("crc", CrcMismatchError, "CRC mismatch"),
    ("magic", InvalidMagicError, "magic byte 1 is a legacy"),
    ("backwards", OffsetOrderError, "base offset 1 is below 3"),
    ("text", InvalidMagicError, "magic byte"),
    ("tiny length", CorruptBatchError, "batch length 20 is below the minimum 49"),
]


@pytest.mark.parametrize(("kind", "error", "message"), CASES)
def test_bad_batches_raise_project_errors_with_file_and_position(tmp_path, kind, error, message):
    path = tmp_path / f"{0:020d}.log"
    path.write_bytes(bad_segment(kind))
    before = tree_digest(tmp_path)
    with pytest.raises(error, match=message) as raised:
        list(iter_segment_batches(path))
    assert isinstance(raised.value, KcompactError)
    assert (raised.value.file, raised.value.position) == (str(path), 240)
    assert str(path) in str(raised.value) and "byte position 240" in str(raised.value)
    assert tree_digest(tmp_path) == before


@pytest.mark.parametrize(("kind", "error", "message"), CASES)
def test_recover_keeps_the_valid_prefix_and_reports_the_rest(tmp_path, kind, error, message):
    path = tmp_path / f"{0:020d}.log"
    data = bad_segment(kind)
    path.write_bytes(data)
    before = tree_digest(tmp_path)
    from kcompact_nb.io import SegmentFileReader

    reader = SegmentFileReader(path, recover=True)
    assert [b.base_offset for b in reader] == [0, 1, 2]
    assert reader.dropped is not None
    assert (reader.dropped.file, reader.dropped.position, reader.dropped.bytes) == (str(path), 240, len(data) - 240)
    assert message.split(":")[0] in reader.dropped.reason
    assert tree_digest(tmp_path) == before


def test_a_text_file_is_flagged_as_not_a_segment(tmp_path):
    path = tmp_path / f"{0:020d}.log"
    path.write_text("hello world, this is a plain text file\n" * 4)
    with pytest.raises(InvalidMagicError, match=r"is this a Kafka segment file\?") as raised:
        list(iter_segment_batches(path))
    assert raised.value.position == 0
    with pytest.raises(NotASegmentError, match="not a segment file"):
        list(iter_segment_batches(tmp_path / "notes.txt"))


def test_overlapping_segments_are_rejected(tmp_path):
    part = write_segments(tmp_path / "t-0", {0: simple_batches(range(4)), 2: simple_batches(range(5, 7))})
    with pytest.raises(OffsetOrderError, match="reaches the next segment's base offset 2") as raised:
        read_partition_dir(part)
    assert raised.value.file.endswith(f"{0:020d}.log") and raised.value.position == 160


def test_recovery_drops_everything_after_the_first_corrupt_segment(tmp_path):
    segments = {0: GOOD, 3: [bad_segment("crc")[240:]] + simple_batches([4]), 5: simple_batches([5, 6])}
    part = write_segments(tmp_path / "t-0", segments)
    before = tree_digest(tmp_path)
    with pytest.raises(CrcMismatchError):
        read_partition_dir(part)
    loaded = read_partition_dir(part, recover=True)
    assert tree_digest(tmp_path) == before
    log = loaded.log
    assert [(s.base_offset, s.size_bytes) for s in log.segments] == [(0, 240), (3, 0)]
    assert log.log_end_offset == 3
    seg3, seg5 = str(part / f"{3:020d}.log"), str(part / f"{5:020d}.log")
    assert [(d.file, d.position, d.bytes) for d in loaded.dropped] == [(seg3, 0, 160), (seg5, 0, 160)]
    assert "CRC" in loaded.dropped[0].reason and "later segment" in loaded.dropped[1].reason
    assert isinstance(loaded.dropped[0], DroppedBytes)


def test_log_dir_recovery_and_errors(tmp_path):
    root = tmp_path / "logs"
    write_segments(root / "t-0", {0: [bad_segment("truncated")]})
    with pytest.raises(TruncatedBatchError):
        read_log_dir(root)
    result = read_log_dir(root, recover=True)
    assert result.logs["t-0"].log_end_offset == 3
    assert [d.bytes for d in result.partitions["t-0"].dropped] == [50]


def test_crc_check_can_be_skipped(tmp_path):
    path = tmp_path / f"{0:020d}.log"
    path.write_bytes(bad_segment("crc"))
    assert len(list(iter_segment_batches(path, verify_crc=False))) == 4


def test_offsets_beyond_what_a_signed_64_bit_long_holds_are_refused(tmp_path):
    """A batch whose last offset is Long.MAX_VALUE leaves no next offset (the log end offset would overflow);
    a file name above Long.MAX_VALUE is no offset at all (Kafka's Long.parseLong fails on it)."""
    long_max = 2**63 - 1
    part = write_segments(tmp_path / "t-0", {0: GOOD + [kafka_batch([rec(0, 1, b"k", b"v")], base_offset=long_max)]})
    with pytest.raises(OffsetOrderError) as raised:
        read_partition_dir(part)
    assert raised.value.position == 240
    assert raised.value.reason == (
        f"batch last offset {long_max} leaves no next offset: the log end offset would pass {long_max} (Long.MAX_VALUE)"
    )
    nines = write_segments(tmp_path / "u-0", {0: GOOD})
    (nines / f"{0:020d}.log").rename(nines / ("9" * 20 + ".log"))
    with pytest.raises(NotASegmentError) as named:
        read_partition_dir(nines)
    assert named.value.position is None
    assert str(named.value) == (
        f"{nines / ('9' * 20 + '.log')}: the offset in the file name, 99999999999999999999, is beyond {long_max}, "
        "the largest offset (Long.MAX_VALUE)"
    )


def test_missing_paths_and_wrong_kinds_say_so_without_a_byte_position(tmp_path):
    (tmp_path / "file.txt").write_text("x")
    cases = [
        (read_partition_dir, tmp_path / "gone-0", f"{tmp_path / 'gone-0'}: does not exist"),
        (read_log_dir, tmp_path / "gone", f"{tmp_path / 'gone'}: does not exist"),
        (read_log_dir, tmp_path / "file.txt", f"{tmp_path / 'file.txt'}: is a file, not a log directory"),
        (read_partition_dir, tmp_path / "file.txt", f"{tmp_path / 'file.txt'}: is a file, not a partition directory"),
        (read_partition_dir, tmp_path, f"{tmp_path}: not a partition directory: expected a name like my-topic-0"),
    ]
    for read, path, message in cases:
        with pytest.raises(NotASegmentError) as raised:
            read(path)
        assert (str(raised.value), raised.value.position) == (message, None)
