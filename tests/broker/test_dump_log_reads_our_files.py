"""Kafka's own DumpLogSegments reads the segment files we write, batch for batch (issue: real Kafka formats).

The log is cleaned by the simulator first, so the files hold every kind of batch the cleaner writes:
rebuilt batches, delete-horizon batches, 61-byte empty shells, control batches and untouched originals;
uncompressed, and with every codec (the producer's, kept by ``compression.type=producer``).
"""

from __future__ import annotations

import pytest

from kcompact_nb import NewRecord, PartitionLog, TopicConfig
from kcompact_nb.broker import dump_log_segments
from kcompact_nb.core._cleaner_manager import CleanerManager
from kcompact_nb.io import parse_dump_log, write_partition_dir

from tests.io.test_samples_against_dump_log import batch_fields

from .conftest import BASE_TS_MS, require_java_and_maven


def cleaned_log(codec: str = "none") -> PartitionLog:
    log = PartitionLog("ours", config=TopicConfig.from_properties({"cleanup.policy": "compact", "delete.retention.ms": 5000}))
    at = BASE_TS_MS
    log.append([NewRecord(b"a", b"1", at), NewRecord(b"b", b"1", at), NewRecord(b"a", b"2", at)], now_ms=at, compression=codec)
    log.append([NewRecord(b"c", None, at)], now_ms=at, compression=codec)
    log.append([NewRecord(b"d", b"1", at, headers=(("h", b"x"),))], now_ms=at, producer_id=7, producer_epoch=0, base_sequence=0, compression=codec)
    log.append([NewRecord(b"d", b"2", at)], now_ms=at, compression=codec)
    log.append([NewRecord(b"e", b"1", at)], now_ms=at, producer_id=9, producer_epoch=1, transactional=True, compression=codec)
    log.append_end_txn_marker(9, 1, commit=False, now_ms=at)
    log.append([NewRecord(b"f", b"1", at)], now_ms=at, producer_id=8, producer_epoch=0, transactional=True, compression=codec)
    log.append_end_txn_marker(8, 0, commit=True, now_ms=at)
    log.roll(now_ms=at)
    log.append([NewRecord(b"z", b"1", at)], now_ms=at, compression=codec)
    assert CleanerManager(log.broker).clean_once([log], now_ms=at + 1000) is not None
    return log


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_dump_log_segments_reads_what_we_write(tmp_path, codec):
    require_java_and_maven()
    log = cleaned_log(codec)
    assert {b.compression for b in log.batches() if b.records and not b.is_control} == {codec}
    kinds = {(b.size_bytes == 61, b.delete_horizon_ms is not None, b.is_control) for b in log.batches()}
    assert {(True, False, False), (False, True, False), (False, False, True)} <= kinds  # shell, stamped, marker
    folder = write_partition_dir(log, tmp_path)
    parsed = parse_dump_log(dump_log_segments(sorted(folder.glob("*.log"))))
    assert parsed.invalid_batches == () and parsed.missing == frozenset()
    assert [batch_fields(b) for b in parsed.batches()] == [batch_fields(b) for b in log.batches()]
    assert [b.compression for b in parsed.batches()] == [b.compression for b in log.batches()]
