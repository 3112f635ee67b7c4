"""``kcompact dump`` of .index, .timeindex, .txnindex and .snapshot files, checked against their segment file."""

from __future__ import annotations

import json
from pathlib import Path

from kcompact_nb.core import segment_file_name
from kcompact_nb.io import OffsetIndexFile, SegmentFileReader, TimeIndexFile
from kcompact_nb.io.files import OffsetPosition, TimestampOffset, segment_indexes, write_index_file
from tests.cli.conftest import kcompact
from tests.io.kafka_bytes import kafka_batch, rec, tree_digest

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "kafka"
TXN = SAMPLES / "transactional" / "before" / "txn-0"


def indexed_segment(folder: Path) -> Path:
    """A segment at base offset 100 of eight 161-byte batches and its two index files: an entry once more than 350
    bytes were appended since the last one (before batch 3: 483 bytes; then 161 + 161 + 161 before batch 6)."""
    folder.mkdir()
    log = folder / segment_file_name(100, ".log")
    log.write_bytes(b"".join(kafka_batch([rec(0, 1_767_225_600_000 + 7 * (i % 5), b"k", b"v" * 90)],
                                         base_offset=100 + i) for i in range(8)))  # fmt: skip
    indexes = segment_indexes(SegmentFileReader(log), index_interval_bytes=350, inactive=True)
    write_index_file(OffsetIndexFile(100, indexes.offset_index), folder)
    write_index_file(TimeIndexFile(100, indexes.time_index), folder)
    return log


def test_offset_and_time_indexes_are_shown_and_checked_against_the_segment(tmp_path):
    log = indexed_segment(tmp_path / "t-0")
    before = tree_digest(log.parent)
    offsets = kcompact("dump", log.with_suffix(".index"))
    assert offsets.returncode == 0, offsets.stderr
    assert offsets.stdout.splitlines() == [
        "Offset index 00000000000000000100.index: base offset 100, 2 entries, 16 bytes",
        "  OFFSET  POSITION",
        "  103     483",
        "  106     966",
        "every entry matches 00000000000000000100.log",
    ]
    times = kcompact("dump", log.with_suffix(".timeindex"))
    assert times.returncode == 0, times.stderr
    assert times.stdout.splitlines() == [  # the largest timestamp so far at each index point (28 ms twice: once)
        "Time index 00000000000000000100.timeindex: base offset 100, 2 entries, 24 bytes",
        "  TIMESTAMP                 OFFSET",
        "  2026-01-01T00:00:00.021Z  103",
        "  2026-01-01T00:00:00.028Z  104",
        "every entry matches 00000000000000000100.log",
    ]
    assert tree_digest(log.parent) == before


def test_index_entries_that_do_not_match_the_segment_fail_the_dump(tmp_path):
    log = indexed_segment(tmp_path / "t-0")
    write_index_file(OffsetIndexFile(100, (OffsetPosition(103, 483), OffsetPosition(106, 805))), log.parent)
    write_index_file(TimeIndexFile(100, (TimestampOffset(1_767_225_600_021, 103),
                                         TimestampOffset(1_767_225_600_099, 104))), log.parent)  # fmt: skip
    before = tree_digest(log.parent)
    offsets = kcompact("dump", log.with_suffix(".index"))
    assert offsets.returncode == 1
    assert "entries not matching 00000000000000000100.log: 1 of 2" in offsets.stdout
    assert "MISMATCH index offset 106 at byte position 805: the batch there ends at offset 105" in offsets.stdout
    times = kcompact("dump", log.with_suffix(".timeindex"), "--json")
    assert times.returncode == 1
    document = json.loads(times.stdout)
    assert document["mismatches"] == [
        "time index offset 104: timestamp 1767225600099 but the batch's largest is 1767225600028 "
        "(2026-01-01T00:00:00.099Z vs 2026-01-01T00:00:00.028Z)"
    ]
    assert tree_digest(log.parent) == before


def test_an_index_without_its_segment_is_shown_unchecked(tmp_path):
    log = indexed_segment(tmp_path / "t-0")
    log.unlink()
    done = kcompact("dump", log.with_suffix(".index"))
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "not checked: no 00000000000000000100.log beside it"


def test_broker_written_transaction_index_and_snapshot():
    before = tree_digest(TXN)
    txn = kcompact("dump", TXN / "00000000000000000005.txnindex")
    assert txn.returncode == 0
    assert txn.stdout.splitlines() == [
        "Transaction index 00000000000000000005.txnindex: base offset 5, 1 aborted transaction, 34 bytes",
        "  PRODUCER  FIRST OFFSET  LAST OFFSET (MARKER)  LAST STABLE OFFSET",
        "  3         3             5                     6",
    ]
    snapshot = kcompact("dump", TXN / "00000000000000000005.snapshot")
    assert snapshot.stdout.splitlines()[0] == (
        "Producer snapshot 00000000000000000005.snapshot: producer state at offset 5, 1 producer, 56 bytes"
    )
    assert snapshot.stdout.splitlines()[2].split() == ["3", "0", "3", "4", "1", "2026-11-21T17:17:08.576Z", "0", "3"]
    as_json = json.loads(kcompact("dump", TXN / "00000000000000000006.snapshot", "--json").stdout)
    assert as_json["kind"] == "producer snapshot" and as_json["offset"] == 6
    assert as_json["entries"] == [{
        "producer_id": 3, "producer_epoch": 0, "last_sequence": 3, "last_offset": 4, "offset_delta": 1,
        "timestamp": 1_795_281_428_715, "coordinator_epoch": 0, "current_txn_first_offset": -1}]  # fmt: skip
    active = json.loads(kcompact("dump", TXN / "00000000000000000006.timeindex", "--json").stdout)
    assert (active["entries"], active["preallocated_bytes"], active["file_bytes"]) == ([], 4092, 4092)
    assert tree_digest(TXN) == before


def test_a_corrupt_snapshot_is_invalid_input(tmp_path):
    bad = tmp_path / segment_file_name(5, ".snapshot")
    data = bytearray((TXN / "00000000000000000005.snapshot").read_bytes())
    data[-1] ^= 1
    bad.write_bytes(bytes(data))
    done = kcompact("dump", bad)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"kcompact dump: {bad}: snapshot is corrupt: stored CRC ")
    assert done.stderr.rstrip().endswith("(at byte position 2)")
