"""A partition read on disk reads its segment files again later (a pass, a view, a figure): as its scan found them, or
not at all. A running broker appends to the active segment (bytes past the scan are not the scanned log's) and its
cleaner swaps cleaned segments in and deletes the old ones (another file, or none): reading such a file says the
log dir changed, so that the reader reads the log dir again (``read_consistently``). While a file is as the scan
found it, its CRCs (which the scan checked) are not checked again."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kcompact_nb import NewRecord, TopicConfig
from kcompact_nb.core import PartitionLog, offset_buckets, segment_file_name
from kcompact_nb.io import CrcMismatchError, LogReadError, ReadOptions, read_partition_dir, write_partition_dir

SAMPLES = Path(__file__).parents[3] / "data" / "samples" / "kafka"
ON_DISK = ReadOptions(on_disk_from_bytes=0)


@pytest.fixture
def partition(tmp_path: Path) -> Path:
    """A copy of a sample partition of several segments."""
    (source,) = [p for p in (SAMPLES / "compaction-basic" / "before").iterdir() if p.is_dir()]
    return Path(shutil.copytree(source, tmp_path / source.name))


def offsets(log: PartitionLog) -> list[list[int]]:
    return [[r.offset for b in log.segment_batches(s) for r in b.records] for s in log.segments]


def test_bytes_appended_after_the_scan_are_not_read(partition):
    whole = read_partition_dir(partition).log
    log = read_partition_dir(partition, ON_DISK).log
    with open(partition / f"{log.active_segment.base_offset:020d}.log", "ab") as active:
        active.write(bytes(100))  # read, these would be a batch of length 0: corrupt
    assert offsets(log) == offsets(whole)


def test_a_segment_file_replaced_after_the_scan_says_the_log_dir_changed(partition):
    log = read_partition_dir(partition, ON_DISK).log
    first = partition / f"{log.segments[0].base_offset:020d}.log"
    copy = first.with_suffix(".swap")
    shutil.copyfile(first, copy)
    os.replace(copy, first)  # the same bytes in another file, as a cleaner's swap leaves it
    with pytest.raises(LogReadError, match=r"00000000000000000000\.log.*replaced since its partition was read"):
        offsets(log)


def test_a_segment_file_cut_after_the_scan_says_the_log_dir_changed(partition):
    log = read_partition_dir(partition, ON_DISK).log
    first = partition / f"{log.segments[0].base_offset:020d}.log"
    size = first.stat().st_size
    os.truncate(first, size - 1)
    with pytest.raises(LogReadError, match=f"cut to {size - 1} bytes since its partition was read"):
        offsets(log)


def test_a_segment_file_replaced_during_the_scan_is_read_again(partition, monkeypatch):
    """The scan notes each file's inode first: one replaced before the scan ends fails the read, which a read of a
    changing log dir starts again (here: once)."""
    import kcompact_nb.io.logdir._log_reader as reader

    scans = []
    scan = reader.header_segments

    def replacing(files, **kwargs):
        if not scans:
            copy = files[0].with_suffix(".swap")
            shutil.copyfile(files[0], copy)
            os.replace(copy, files[0])
        scans.append(files)
        return scan(files, **kwargs)

    monkeypatch.setattr(reader, "header_segments", replacing)
    log = read_partition_dir(partition, ON_DISK).log
    assert len(scans) == 2
    assert offsets(log) == offsets(read_partition_dir(partition).log)


def test_a_tally_checks_crcs_only_of_files_changed_since_the_scan_checked_them(tmp_path, monkeypatch):
    """Files as the scan read them are framed without a second CRC check, with the same buckets; a file touched since
    (a value byte flipped, its modification time moved) is checked again and refused; a partition scanned without
    CRC checks has them checked by its tally, as before."""
    from kcompact_nb.io.logdir import _segment_framing

    log = PartitionLog("w", config=TopicConfig.from_properties({"cleanup.policy": "compact", "segment.bytes": 2000}))
    for i in range(100):
        log.append([NewRecord(b"k%02d" % (i % 30), None if i % 7 == 0 else b"v" * 20, timestamp=i)], now_ms=i)
    folder = write_partition_dir(log, tmp_path / "w-0")
    expected = offset_buckets(read_partition_dir(folder).log, bucket_count=9)
    checks: list[bool] = []
    framing = _segment_framing.frame_batches
    monkeypatch.setattr(_segment_framing, "frame_batches", lambda block, crc: checks.append(crc) or framing(block, crc))
    scanned = read_partition_dir(folder, ON_DISK).log
    unchecked = read_partition_dir(folder, ReadOptions(on_disk_from_bytes=0, verify_crc=False)).log
    checks.clear()
    assert offset_buckets(scanned, bucket_count=9) == expected
    assert checks and not any(checks)
    checks.clear()
    assert offset_buckets(unchecked, bucket_count=9) == expected
    assert checks and all(checks)
    first = folder / segment_file_name(0)
    data, mtime_ns = bytearray(first.read_bytes()), first.stat().st_mtime_ns
    data[12 + int.from_bytes(data[8:12], "big") - 2] ^= 1  # the first batch's last value byte
    first.write_bytes(bytes(data))
    os.utime(first, ns=(mtime_ns + 1_000_000, mtime_ns + 1_000_000))  # a change within the clock's tick still shows
    with pytest.raises(CrcMismatchError):
        offset_buckets(scanned, bucket_count=9)


# -- a partition that holds its files' bytes (``ReadOptions.hold_bytes``, ``kcompact clean``) ------------------------
HELD = ReadOptions(hold_bytes=True)


def test_a_partition_holding_its_files_bytes_reads_none_of_them_again(partition, monkeypatch):
    """Read once with their CRCs checked, held files are read from memory: replaced, cut or appended to since, the
    partition's views are those of the log as read, and no CRC is checked twice."""
    from kcompact_nb.core import StoredSegment
    from kcompact_nb.io.logdir import _segment_framing

    whole = read_partition_dir(partition).log
    checks: list[bool] = []
    framing = _segment_framing.frame_batches
    monkeypatch.setattr(_segment_framing, "frame_batches", lambda block, crc: checks.append(crc) or framing(block, crc))
    log = read_partition_dir(partition, HELD).log
    assert checks and all(checks)  # the scan of the bytes read
    assert all(isinstance(segment, StoredSegment) for segment in log.segments)
    files = sorted(partition.glob("*.log"))
    copy = files[0].with_suffix(".swap")
    shutil.copyfile(files[0], copy)
    os.replace(copy, files[0])
    os.truncate(files[1], 10)
    with open(files[-1], "ab") as active:
        active.write(bytes(100))
    checks.clear()
    assert offsets(log) == offsets(whole)
    assert checks and not any(checks)


def test_a_held_partition_is_read_from_its_bytes_and_only_them(partition):
    """A byte flipped in a file before the read fails its CRC check, as a read whole does; nothing held by a partition
    streamed from its files (their bytes stay on disk)."""
    from kcompact_nb.io.logdir._log_writer import held_bytes

    streamed = read_partition_dir(partition, ON_DISK).log
    assert [held_bytes(streamed, segment) for segment in streamed.segments] == [None] * len(streamed.segments)
    held = read_partition_dir(partition, HELD).log
    assert [held_bytes(held, s) for s in held.segments] == [
        (partition / segment_file_name(s.base_offset)).read_bytes() for s in held.segments
    ]
    first = partition / segment_file_name(0)
    data = bytearray(first.read_bytes())
    data[12 + int.from_bytes(data[8:12], "big") - 2] ^= 1
    first.write_bytes(bytes(data))
    with pytest.raises(CrcMismatchError):
        read_partition_dir(partition, HELD)


def test_a_held_partition_is_written_from_its_bytes_once_its_files_changed(tmp_path):
    """The broker's writer copies a segment whose source file is still what was read (its indexes too); one a broker
    replaced since is written from the bytes held, with the indexes of the model, where a partition streamed from its
    files cannot be written at all."""
    from kcompact_nb.io import LogWriteError, read_log_dir, write_broker_log_dir

    source = Path(shutil.copytree(SAMPLES / "compaction-basic" / "before", tmp_path / "before"))
    (partition,) = [p for p in source.iterdir() if p.is_dir()]
    files = sorted(partition.glob("*.log"))
    original = files[0].read_bytes()
    held = read_log_dir(source, HELD).partitions[partition.name].log
    streamed = read_log_dir(source, ON_DISK).partitions[partition.name].log
    files[0].write_bytes(original[: len(original) // 2])  # another file, as a swap leaves it
    out = write_broker_log_dir([held], tmp_path / "held", source=source) / partition.name
    assert (out / files[0].name).read_bytes() == original
    assert [(out / f.name).read_bytes() for f in files[1:]] == [f.read_bytes() for f in files[1:]]
    with pytest.raises(LogWriteError, match="batches are no longer in this file"):
        write_broker_log_dir([streamed], tmp_path / "streamed", source=source)
