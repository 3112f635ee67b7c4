"""Core values as rows (issue #38): one home for the partition, batch, record, ``LogToClean`` and ``PassResult``
documents that scenario results, ``kcompact dump``/``kcat``/``inspect --json`` and Spark's partition passes give."""

from __future__ import annotations

import json

from kcompact_nb.core import (
    CleanerManager,
    log_to_clean,
    log_to_clean_row,
    partition_row,
    pass_result_row,
    record_row,
)
from kcompact_nb.record import Record
from tests.conftest import compacted_log, rec


def test_a_partitions_row_holds_its_offsets_cleanable_range_and_every_batch_header():
    log = compacted_log(segment_bytes=1000)
    for i in range(30):
        log.append([rec(f"k{i % 3}", timestamp=0)], now_ms=0)
    row = partition_row(log, now_ms=0)
    assert json.loads(json.dumps(row)) == row  # JSON as it stands
    assert [row[k] for k in ("log_start_offset", "log_end_offset", "high_watermark", "checkpoint")] == [0, 30, 30, None]
    assert (
        row["dirtiness"]
        == log_to_clean_row(log_to_clean(log, now_ms=0))
        == {
            "first_dirty_offset": 0,
            "first_uncleanable_offset": 24,  # the active segment's base offset
            "clean_bytes": 0,
            "cleanable_bytes": 1920,
            "total_bytes": 1920,
            "cleanable_ratio": 1.0,
            "compaction_delay_ms": 0,
            "eligible": True,
        }
    )
    assert [(s["base_offset"], s["size_bytes"], len(s["batches"])) for s in row["segments"]] == [
        (0, 960, 12),  # 12 batches of 80 bytes (61 + a 19-byte record) fit in segment.bytes 1000
        (12, 960, 12),
        (24, 480, 6),
    ]
    first = row["segments"][0]["batches"][0]
    assert (first["base_offset"], first["size_bytes"], first["attributes"], first["records"]) == (
        0,
        80,
        0,
        [{"offset": 0, "timestamp": 0, "key": "k0", "value": "0123456789", "headers": []}],
    )


def test_a_record_row_writes_bytes_as_scenario_files_do():
    record = Record(5, 7, b"\xff\x00", None, (("h", b"v"),))
    assert record_row(record, read_timestamp=9) == {
        "offset": 5,
        "timestamp": 7,
        "key": {"base64": "/wA="},
        "value": None,
        "headers": [["h", "v"]],
        "read_timestamp": 9,
    }


def test_a_pass_row_holds_its_range_stats_and_log_line():
    log = compacted_log(segment_bytes=1000)
    for i in range(30):
        log.append([rec(f"k{i % 3}", timestamp=0)], now_ms=0)
    result = CleanerManager(log.broker).clean_log(log, now_ms=0, force=True)
    row = pass_result_row(result)
    assert (row["selected"], row["first_dirty_offset"], row["first_uncleanable_offset"], row["end_offset"]) == (
        {"topic": "t", "partition": 0},
        0,
        24,
        24,
    )
    assert [row["stats"][k] for k in ("messages_read", "messages_written", "bytes_read", "bytes_written")] == [
        24,
        3,
        1920,
        240,
    ]  # the latest of k0, k1, k2 kept
    assert row["log_line"].startswith("Log cleaner thread 0 cleaned log t-0 (dirty section = [0, 24]")
    assert pass_result_row(None) == {"selected": None}
