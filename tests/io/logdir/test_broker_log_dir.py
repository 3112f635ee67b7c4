"""A log dir as a broker leaves it (issue 16 point 4): every file Kafka keeps, the source never touched.

Byte-for-byte agreement with real brokers' files is checked on the broker-written samples
(``tests/fidelity/test_broker_samples.py``) and with Kafka's own ``DumpLogSegments``
(``tests/broker/test_dump_log_reads_our_files.py``); these tests pin the layout and the entries.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kcompact_nb.core import AbortedTxn
from kcompact_nb.io import LogWriteError, read_checkpoint, read_index_file, read_log_dir, write_broker_log_dir
from kcompact_nb.io.files import OffsetPosition, ProducerSnapshotEntry, TimestampOffset
from kcompact_nb.io.logdir import _broker_log_dir as broker_log_dir
from tests.conftest import cleaned_mixed_log
from tests.io.kafka_bytes import tree_digest

SAMPLE = Path(__file__).resolve().parents[3] / "data" / "samples" / "kafka" / "compaction-basic" / "before"
T = 1_767_225_600_000


def test_a_model_log_is_written_with_indexes_snapshot_and_checkpoints(tmp_path):
    log = cleaned_mixed_log(T, index_interval_bytes=100)
    out = write_broker_log_dir([log], tmp_path / "out")
    folder = out / "ours-0"
    assert sorted(p.name for p in folder.iterdir()) == [
        "00000000000000000000.index", "00000000000000000000.log", "00000000000000000000.timeindex",
        "00000000000000000000.txnindex", "00000000000000000010.index", "00000000000000000010.log",
        "00000000000000000010.timeindex", "00000000000000000011.snapshot",
    ]  # fmt: skip
    # batches of 79, 70, 61, 70, 61, 78, 70 and 78 bytes: an entry once more than 100 bytes went by
    index = read_index_file(folder / "00000000000000000000.index")
    assert index.entries == (OffsetPosition(4, 149), OffsetPosition(6, 280), OffsetPosition(8, 419))
    assert read_index_file(folder / "00000000000000000000.timeindex").entries == (TimestampOffset(T, 2),)
    assert read_index_file(folder / "00000000000000000010.timeindex").entries == (TimestampOffset(T, 10),)
    assert read_index_file(folder / "00000000000000000000.txnindex").entries == (AbortedTxn(9, 6, 7, 8),)
    assert read_index_file(folder / "00000000000000000011.snapshot").entries == (
        ProducerSnapshotEntry(7, 0, 0, 4, 0, T, -1, -1),  # idempotent, sequence 0
        ProducerSnapshotEntry(8, 0, -1, 8, 0, T, 0, -1),  # committed
        ProducerSnapshotEntry(9, 1, -1, 6, 0, T, 0, -1),  # aborted: its emptied batch is its last
    )
    assert (folder / "00000000000000000000.index").stat().st_mtime_ns == T * 1_000_000
    assert read_checkpoint(out / "cleaner-offset-checkpoint") == {("ours", 0): 10}
    assert read_checkpoint(out / "recovery-point-offset-checkpoint") == {("ours", 0): 11}
    again = read_log_dir(out).partitions["ours-0"].log
    assert list(again.batches()) == list(log.batches()) and again.cleaner_checkpoint == 10


RELEASE_INDEX_ENTRIES = [("4.0.0", ()), ("3.9.0", ()), ("4.0.1", (4, 6, 8)), ("3.9.1", (4, 6, 8))]


@pytest.mark.parametrize(("version", "entries"), RELEASE_INDEX_ENTRIES)
def test_a_cleaned_segment_is_indexed_by_the_rule_of_its_release(version, entries, tmp_path):
    """KAFKA-806: before 3.9.1 and 4.0.1 the cleaner's one append of the whole segment (one read buffer) gets no
    entry, as the first append of a segment; from them each batch is checked."""
    log = cleaned_mixed_log(T, index_interval_bytes=100, kafka_version=version)
    folder = write_broker_log_dir([log], tmp_path / "out") / "ours-0"
    index = read_index_file(folder / "00000000000000000000.index")
    assert tuple(e.offset for e in index.entries) == entries
    assert read_index_file(folder / "00000000000000000000.timeindex").entries == (TimestampOffset(T, 2),)


def test_a_non_empty_output_is_refused_unless_overwriting(tmp_path):
    log = cleaned_mixed_log(T)
    out = write_broker_log_dir([log], tmp_path / "out")
    (out / "keep.txt").write_text("mine")
    with pytest.raises(LogWriteError, match=r"out: directory exists and is not empty; choose an empty or new one"):
        write_broker_log_dir([log], out)
    log.cleaner_checkpoint = 3
    write_broker_log_dir([log], out, overwrite=True)
    assert (out / "keep.txt").read_text() == "mine"
    assert read_checkpoint(out / "cleaner-offset-checkpoint") == {("ours", 0): 3}
    assert not any(p.name.startswith(".") for p in out.iterdir())  # no staging folder left


def test_the_output_may_not_overlap_the_source(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(SAMPLE, source)
    logs = read_log_dir(source).logs.values()
    for target in (source, source / "inner", tmp_path):
        with pytest.raises(LogWriteError, match="must not be, contain or lie inside the source log dir"):
            write_broker_log_dir(logs, target, source=source, overwrite=True)
    with pytest.raises(LogWriteError, match="the source log dir does not exist"):
        write_broker_log_dir(logs, tmp_path / "out", source=tmp_path / "missing")


def test_with_a_source_unchanged_files_are_copied_and_the_source_is_untouched(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(SAMPLE, source)
    (source / "meta.properties").write_text("version=1\n")
    (source / "basic-0" / "00000000000000000003.log.deleted").write_bytes(b"in flight")
    for index, path in enumerate(sorted(source.rglob("*"))):
        os.utime(path, ns=(10**18 + index, 10**18 + index))
    before = tree_digest(source)
    loaded = read_log_dir(source)
    log = loaded.logs["basic-0"]
    merged = log.segments[0]
    for other in log.segments[1:3]:  # merge the first three segments by hand, as a cleaned group
        merged.batches.extend(other.batches)
        merged.size_bytes += other.size_bytes
    del log.segments[1:3]
    out = write_broker_log_dir([log], tmp_path / "out", source=source)
    assert tree_digest(source) == before
    names = sorted(p.name for p in (out / "basic-0").iterdir())
    assert "00000000000000000003.log" not in names and "00000000000000000006.snapshot" not in names
    assert "00000000000000000009.snapshot" in names and not any(n.endswith(".deleted") for n in names)
    copied = [
        n
        for n in names
        if n.startswith("00000000000000000009") or n in ("leader-epoch-checkpoint", "partition.metadata")
    ]
    for name in copied:  # untouched segment files and other files: same bytes, same mtimes
        assert (out / "basic-0" / name).read_bytes() == (source / "basic-0" / name).read_bytes()
        assert (out / "basic-0" / name).stat().st_mtime_ns == (source / "basic-0" / name).stat().st_mtime_ns
    assert (out / "meta.properties").read_text() == "version=1\n"
    assert (out / "basic-0" / "00000000000000000000.log").stat().st_size == 216 * 3


def _swap_in_other_bytes(path: Path) -> None:
    """What a broker's cleaner does to a segment: a new file of the same name (here of the same size) replaces it."""
    swapped = path.with_name(path.name + ".swap")
    swapped.write_bytes(bytes(path.stat().st_size))
    os.replace(swapped, path)


def _append_a_batch(path: Path) -> None:
    """What a broker does to its active segment: bytes appended."""
    with open(path, "ab") as handle:
        handle.write(path.read_bytes()[:216])


@pytest.mark.parametrize("broker_change", [_swap_in_other_bytes, _append_a_batch])
def test_a_segment_the_broker_changes_while_copied_is_written_as_it_was_read(broker_change, tmp_path, monkeypatch):
    """The copy of an unchanged segment reads the file that was compared, and a change meanwhile (the live log dir
    test met a cleaned segment swapped in between the comparison and the copy) leaves the segment to the model."""
    source = tmp_path / "source"
    shutil.copytree(SAMPLE, source)
    log = read_log_dir(source).logs["basic-0"]
    original = (source / "basic-0" / "00000000000000000009.log").read_bytes()
    copy = broker_log_dir.copy_open_file

    def copy_while_the_broker_works(reader, target, **options):
        if Path(target).name == "00000000000000000009.log":
            broker_change(source / "basic-0" / "00000000000000000009.log")
        return copy(reader, target, **options)

    monkeypatch.setattr(broker_log_dir, "copy_open_file", copy_while_the_broker_works)
    out = write_broker_log_dir([log], tmp_path / "out", source=source)
    assert (out / "basic-0" / "00000000000000000009.log").read_bytes() == original
    again = read_log_dir(out).logs["basic-0"]
    assert [b.base_offset for s in again.segments for b in s.batches] == [
        b.base_offset for s in log.segments for b in s.batches
    ]


@pytest.mark.parametrize(("version", "kept"), [("2.7.2", True), ("2.8.2", False), ("4.4.0", False)])
def test_a_replaced_segments_producer_snapshot_stays_before_2_8(version, kept, tmp_path):
    """Segments 3 and 6 merged into a cleaned group: their snapshots go with them from 2.8 (KAFKA-9393), stay
    before (only the log start offset passing a snapshot deletes it); the other segments' snapshots stay always."""
    from kcompact_nb.core import BrokerConfig
    from kcompact_nb.io import ReadOptions

    source = tmp_path / "source"
    shutil.copytree(SAMPLE, source)
    broker = BrokerConfig.from_properties({"kafka.version": version})
    log = read_log_dir(source, ReadOptions(broker=broker)).logs["basic-0"]
    merged = log.segments[0]
    for other in log.segments[1:3]:
        merged.batches.extend(other.batches)
        merged.size_bytes += other.size_bytes
    del log.segments[1:3]
    out = write_broker_log_dir([log], tmp_path / "out", source=source) / "basic-0"
    stored = sorted(p.name for p in (source / "basic-0").glob("*.snapshot"))
    replaced = {"00000000000000000003.snapshot", "00000000000000000006.snapshot"}
    assert replaced < set(stored)
    assert sorted(p.name for p in out.glob("*.snapshot")) == [n for n in stored if kept or n not in replaced]


@pytest.mark.parametrize(("version", "kept_from"), [("2.7.2", 30), ("2.8.2", 0)])
def test_before_2_8_the_recovery_point_checkpoint_deletes_the_snapshots_below_the_second_last_segment(
    version, kept_from, tmp_path
):
    """Spec 8.5: ``Log.deleteSnapshotsAfterRecoveryPointCheckpoint`` keeps the snapshots from
    ``minSnapshotsOffsetToRetain``, the base offset of the segment before the active one (30 here; the recovery point
    is the active segment's base offset, 31); from 2.8 (KAFKA-9393) the checkpoint deletes none. Seen on 2.0.1, 2.1.1
    and 2.5.1: a round whose checkpoint ran before its pass left the snapshots from the last two segments only."""
    from kcompact_nb.core import BrokerConfig
    from kcompact_nb.io import ReadOptions

    broker = BrokerConfig.from_properties({"kafka.version": version})
    log = read_log_dir(SAMPLE, ReadOptions(broker=broker)).logs["basic-0"]
    assert [s.base_offset for s in log.segments[-2:]] == [30, 31]
    log.delete_snapshots_after_recovery_point_checkpoint()
    out = write_broker_log_dir([log], tmp_path / "out", source=SAMPLE) / "basic-0"
    stored = sorted(p.name for p in (SAMPLE / "basic-0").glob("*.snapshot"))
    assert sorted(p.name for p in out.glob("*.snapshot")) == [n for n in stored if int(n[:20]) >= kept_from]
    assert len(stored) == 11


@pytest.mark.parametrize(("recovery_point", "kept_from"), [(None, 30), (31, 30), (40, 30), (30, 27), (20, 18), (0, 0)])
def test_a_recovery_point_below_the_active_segment_keeps_the_snapshots_from_the_segment_below_it(
    recovery_point, kept_from, tmp_path
):
    """Spec 8.5: ``minSnapshotsOffsetToRetain`` is the lower of the second-last segment's base offset and that of the
    segment below the recovery point (``lowerSegment``; the recovery point itself when none is below). A broker whose
    flush after a roll had not run yet checkpoints a recovery point below the active segment (segments here: 0, 3, ...,
    27, 30, 31)."""
    from kcompact_nb.core import BrokerConfig
    from kcompact_nb.io import ReadOptions

    broker = BrokerConfig.from_properties({"kafka.version": "2.6.3"})
    log = read_log_dir(SAMPLE, ReadOptions(broker=broker)).logs["basic-0"]
    log.delete_snapshots_after_recovery_point_checkpoint(recovery_point)
    out = write_broker_log_dir([log], tmp_path / "out", source=SAMPLE) / "basic-0"
    stored = sorted(p.name for p in (SAMPLE / "basic-0").glob("*.snapshot"))
    assert sorted(p.name for p in out.glob("*.snapshot")) == [n for n in stored if int(n[:20]) >= kept_from]
