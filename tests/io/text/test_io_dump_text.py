"""Parsing kafka-dump-log.sh output into core batches and partition logs."""

from __future__ import annotations

import pytest

from kcompact_nb.core import Record, RecordBatch, TimestampType
from kcompact_nb.io import DumpParseError, parse_dump_log, read_dump_log
from tests.conftest import compacted_log, rec, segment_layout
from tests.io.dump_format import dump_text

# Copied in the exact shape DumpLogSegments prints (Kafka 3.x/4.x), one batch per line.
REAL_SHAPE = """\
Dumping /var/lib/kafka/data/fruit-prices-0/00000000000000000000.log
Log starting offset: 0
baseOffset: 0 lastOffset: 1 count: 2 baseSequence: 0 lastSequence: 1 producerId: 1000 producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1690000000000 size: 90 magic: 2 compresscodec: none crc: 2956353402 isvalid: true
| offset: 0 CreateTime: 1690000000000 keySize: 5 valueSize: 5 sequence: 0 headerKeys: [] key: grape payload: $2.69
| offset: 1 CreateTime: 1690000000007 keySize: 4 valueSize: 5 sequence: 1 headerKeys: [src] key: lime payload: $0.49
baseOffset: 2 lastOffset: 2 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 3 isTransactional: false isControl: false deleteHorizonMs: OptionalLong[1690086400000] position: 90 CreateTime: 1690000000009 size: 73 magic: 2 compresscodec: none crc: 12 isvalid: true
| offset: 2 CreateTime: 1690000000009 keySize: 5 valueSize: -1 sequence: -1 headerKeys: [] key: grape
baseOffset: 3 lastOffset: 3 count: 1 baseSequence: -1 lastSequence: -1 producerId: 1000 producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: true isControl: true deleteHorizonMs: OptionalLong.empty position: 163 CreateTime: 1690000000010 size: 78 magic: 2 compresscodec: none crc: 5 isvalid: true
| offset: 3 CreateTime: 1690000000010 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 7
baseOffset: 4 lastOffset: 6 count: 0 baseSequence: -1 lastSequence: -1 producerId: 9 producerEpoch: 1 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 241 CreateTime: 1690000000020 size: 61 magic: 2 compresscodec: none crc: 6 isvalid: true
Found 17 invalid bytes at the end of 00000000000000000000.log
Non-consecutive offsets in /var/lib/kafka/data/fruit-prices-0/00000000000000000000.log
  3 is followed by 7
"""


def test_real_shaped_output():
    parsed = parse_dump_log(REAL_SHAPE)
    (segment,) = parsed.segments
    assert (segment.base_offset, segment.invalid_trailing_bytes) == (0, 17)
    b0, b2, marker, empty = segment.batches
    assert b0 == RecordBatch(
        base_offset=0,
        last_offset=1,
        records=(
            Record(0, 1690000000000, b"grape", b"$2.69"),
            Record(1, 1690000000007, b"lime", b"$0.49", (("src", None),)),
        ),
        size_bytes=90,
        base_timestamp=1690000000000,
        max_timestamp=1690000000000,
        producer_id=1000,
        producer_epoch=0,
        base_sequence=0,
    )
    assert (b2.delete_horizon_ms, b2.base_timestamp, b2.partition_leader_epoch) == (1690086400000,) * 2 + (3,)
    assert b2.records == (Record(2, 1690000000009, b"grape", None),)
    assert (
        marker.is_control
        and marker.records[0].key == b"\x00\x00\x00\x01"
        and marker.records[0].value == b"\x00\x00\x00\x00\x00\x07"
    )
    assert (empty.size_bytes, empty.records, empty.last_offset, empty.base_timestamp) == (61, (), 6, -1)
    assert parsed.missing == {"header_values"}
    assert parsed.inexact == ()


def test_model_log_round_trips_through_dump_text(tmp_path):
    log = compacted_log(segment_bytes=300)
    for i in range(9):
        log.append(
            [rec(f"k{i % 3}", f"value {i}", timestamp=100 + i)],
            now_ms=i,
            producer_id=4,
            producer_epoch=0,
            base_sequence=i,
            transactional=True,
        )
    log.append_end_txn_marker(4, 0, commit=False, now_ms=50, coordinator_epoch=3)
    log.append([rec("k1", None, timestamp=200), rec("k2", "with spaces in it", timestamp=201)], now_ms=60)
    segments = {f"/d/t-0/{s.base_offset:020d}.log": list(s.batches) for s in log.segments}
    parsed = parse_dump_log(dump_text(segments))
    assert parsed.missing == frozenset()
    assert parsed.batches() == list(log.batches())
    rebuilt = parsed.to_partition_log("t", config=log.config)
    assert segment_layout(rebuilt) == segment_layout(log)
    assert rebuilt.log_end_offset == log.log_end_offset
    assert [s.aborted_transactions for s in rebuilt.segments] == [s.aborted_transactions for s in log.segments]


def test_without_print_data_log_keys_and_values_are_missing():
    batch = RecordBatch.build([Record(0, 5, b"k", b"v"), Record(1, 6, b"k", None)])
    parsed = parse_dump_log(dump_text({"/d/t-0/00000000000000000000.log": [batch]}, print_data=False))
    (got,) = parsed.batches()
    assert [(r.key, r.value) for r in got.records] == [(None, None), (None, None)]
    assert parsed.missing == {"key", "value"}
    assert got.size_bytes == batch.size_bytes


def test_without_deep_iteration_records_are_missing():
    batch = RecordBatch.build([Record(0, 5, b"k", b"v"), Record(1, 6, b"k", None)])
    parsed = parse_dump_log(dump_text({"/d/t-0/00000000000000000000.log": [batch]}, deep=False, print_data=False))
    (got,) = parsed.batches()
    assert got.records == () and got.base_timestamp == -1 and got.size_bytes == batch.size_bytes
    assert parsed.missing == {"records", "base_timestamp"}


def test_log_append_time_and_multiline_payloads_and_binary():
    text = (
        "baseOffset: 10 lastOffset: 11 count: 2 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 "
        "partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 "
        "LogAppendTime: 999 size: 100 magic: 2 compresscodec: zstd crc: 1 isvalid: false\n"
        "| offset: 10 LogAppendTime: 999 keySize: 1 valueSize: 17 sequence: -1 headerKeys: [] key: a payload: line one\n"
        "line two\n"
        "| offset: 11 LogAppendTime: 999 keySize: 1 valueSize: 1 sequence: -1 headerKeys: [] key: b payload: \ufffd\n"
    )
    parsed = parse_dump_log(text, source="dump.txt")
    (batch,) = parsed.batches()
    assert batch.timestamp_type is TimestampType.LOG_APPEND_TIME and batch.compression == "zstd"
    assert batch.records[0].value == b"line one\nline two"
    assert parsed.missing == {"stored_timestamps"}
    assert parsed.invalid_batches == (("<text>", 0),)
    assert parsed.inexact == ("offset 11: value printed as 3 UTF-8 bytes but valueSize is 1",)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("hello\n", 1, "unrecognised line 'hello'"),
        ("| offset: 0 CreateTime: 1 keySize: 1 valueSize: 1\n", 1, "record line before any batch"),
        (
            "offset: 5 position: 0 CreateTime: 1 size: 70 magic: 1 compresscodec: NONE crc: 1 isvalid: true\n",
            1,
            "legacy",
        ),
        (
            "baseOffset: 5 lastOffset: 4 position: 0 CreateTime: 1 size: 70 magic: 2 compresscodec: none\n",
            1,
            "below baseOffset",
        ),
        (
            "baseOffset: 5 lastOffset: 5 position: 0 CreateTime: 1 size: 70 magic: 2 compresscodec: brotli\n",
            1,
            "unknown compresscodec",
        ),
        ("baseOffset: 5 lastOffset: 5 position: 0 size: 70 magic: 2 compresscodec: none\n", 1, "no CreateTime"),
        ("baseOffset: 5 lastOffset: 5 position: 0 CreateTime: 1 magic: 2 compresscodec: none\n", 1, "lacks size"),
    ],
)
def test_errors_name_the_line(text, line, message):
    with pytest.raises(DumpParseError, match=message) as raised:
        parse_dump_log(text, source="dump.txt")
    assert (raised.value.file, raised.value.position) == ("dump.txt", line)
    assert "line 1" in str(raised.value)


def test_index_dumps_are_skipped_and_files_can_be_read(tmp_path):
    text = "Dumping /d/t-0/00000000000000000000.index\noffset: 0 position: 0\n" + REAL_SHAPE
    path = tmp_path / "dump.txt"
    path.write_text(text)
    parsed = read_dump_log(path)
    assert len(parsed.segments) == 1 and len(parsed.batches()) == 4
    with pytest.raises(DumpParseError, match=str(path)):
        path.write_text("garbage\n")
        read_dump_log(path)


def _one_record_batch(key: bytes, value: bytes) -> RecordBatch:
    record = Record(0, 1_700_000_000_000, key, value)
    return RecordBatch(0, 0, (record,), 80, 1_700_000_000_000, 1_700_000_000_000)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        (b"x | payload: y", b"v"),  # issue #40: split wrongly before keySize decided
        (b"a", b"b payload: c"),
        (b"k payload: ", b" payload: z"),
        (b"payload: ", b""),
    ],
)
def test_a_key_or_value_holding_payload_is_split_where_key_size_says(key, value):
    parsed = parse_dump_log(dump_text({"/d/t-0/00000000000000000000.log": [_one_record_batch(key, value)]}))
    assert [(r.key, r.value) for r in parsed.batches()[0].records] == [(key, value)]
    assert parsed.inexact == ()


def test_a_split_no_size_tells_is_refused_with_advice():
    text = dump_text({"/d/t-0/00000000000000000000.log": [_one_record_batch(b"a payload: b", b"c")]})
    text = text.replace("keySize: 12", "keySize: 99")
    with pytest.raises(DumpParseError, match=r"cannot be told apart .*read the segment file itself"):
        parse_dump_log(text)
