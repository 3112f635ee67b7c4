"""Kafka's own DumpLogSegments reads the files we write (issue: real Kafka formats; issue 16 point 4).

The log is cleaned by the simulator first, so the files hold every kind of batch the cleaner writes:
rebuilt batches, delete-horizon batches, 61-byte empty shells, control batches and untouched originals,
uncompressed and with every codec (the producer's, kept by ``compression.type=producer``); the offset, time
and transaction indexes and the producer snapshot of ``write_broker_log_dir`` too.
"""

from __future__ import annotations

import re

import pytest

from kcompact_nb.broker import BrokerError, dump_log_segments
from kcompact_nb.io import OffsetIndexFile, parse_dump_log, read_index_file, write_broker_log_dir, write_partition_dir
from kcompact_nb.io.files import OffsetPosition, write_index_file
from tests.conftest import cleaned_mixed_log
from tests.io.test_samples_against_dump_log import batch_fields

from .conftest import require_java_and_maven


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_dump_log_segments_reads_what_we_write(tmp_path, codec):
    require_java_and_maven()
    log = cleaned_mixed_log(codec=codec)
    assert {b.compression for b in log.batches() if b.records and not b.is_control} == {codec}
    kinds = {(b.size_bytes == 61, b.delete_horizon_ms is not None, b.is_control) for b in log.batches()}
    assert {(True, False, False), (False, True, False), (False, False, True)} <= kinds  # shell, stamped, marker
    folder = write_partition_dir(log, tmp_path)
    parsed = parse_dump_log(dump_log_segments(sorted(folder.glob("*.log"))))
    assert parsed.invalid_batches == () and parsed.missing == frozenset()
    assert [batch_fields(b) for b in parsed.batches()] == [batch_fields(b) for b in log.batches()]
    assert [b.compression for b in parsed.batches()] == [b.compression for b in log.batches()]


def test_dump_log_segments_reads_our_indexes_and_snapshot_and_finds_them_consistent(tmp_path):
    """Kafka's tool checks each offset and time index entry against the ``.log`` file (a mismatch raises)."""
    require_java_and_maven()
    log = cleaned_mixed_log(index_interval_bytes=100)  # index entries are added as batches are appended
    folder = write_broker_log_dir([log], tmp_path / "out") / log.name
    others = sorted(p for p in folder.iterdir() if p.suffix in (".index", ".timeindex", ".txnindex", ".snapshot"))
    dumped = dump_log_segments(others)
    offsets = [(int(o), int(p)) for o, p in re.findall(r"^offset: (\d+) position: (\d+)$", dumped, re.M)]
    times = [(int(t), int(o)) for t, o in re.findall(r"^timestamp: (\d+) offset: (\d+)$", dumped, re.M)]
    txns = re.findall(
        r"^version: 0 producerId: (\d+) firstOffset: (\d+) lastOffset: (\d+) lastStableOffset: (\d+)$", dumped, re.M
    )
    producers = re.findall(r"^producerId: (\d+) producerEpoch: (\d+) .* lastOffset: (-?\d+) offsetDelta", dumped, re.M)
    assert offsets == [
        (e.offset, e.position) for p in others if p.suffix == ".index" for e in read_index_file(p).entries
    ]
    assert offsets == [(4, 149), (6, 280), (8, 419)]
    assert times == [
        (e.timestamp, e.offset) for p in others if p.suffix == ".timeindex" for e in read_index_file(p).entries
    ]
    assert [tuple(map(int, t)) for t in txns] == [(9, 6, 7, 8)]
    assert [tuple(map(int, p)) for p in producers] == [(7, 0, 4), (8, 0, 8), (9, 1, 6)]


def test_dump_log_segments_reports_an_index_entry_that_disagrees_with_the_log(tmp_path):
    require_java_and_maven()
    log = cleaned_mixed_log()
    folder = write_broker_log_dir([log], tmp_path / "out") / log.name
    write_index_file(OffsetIndexFile(0, (OffsetPosition(5, 149),)), folder)  # batch 149 ends at offset 4
    with pytest.raises(
        BrokerError, match=r"(?s)Mismatches in :.*00000000000000000000.index\n  Index offset: 5, log offset: 4"
    ):
        dump_log_segments([folder / "00000000000000000000.index"])
