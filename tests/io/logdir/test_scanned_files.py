"""A partition read on disk reads its segment files again later (a pass, a view, a figure): as its scan found them, or
not at all. A running broker appends to the active segment (bytes past the scan are not the scanned log's) and its
cleaner swaps cleaned segments in and deletes the old ones (another file, or none): reading such a file says the
log dir changed, so that the reader reads the log dir again (``read_consistently``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kcompact_nb.core import PartitionLog
from kcompact_nb.io import LogReadError, ReadOptions, read_partition_dir

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
