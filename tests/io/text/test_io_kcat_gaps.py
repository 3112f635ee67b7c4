"""kcat output parsers and the "when did compaction last run" gap analysis."""

from __future__ import annotations

import json

import pytest

from kcompact_nb.core import Record, TimestampType
from kcompact_nb.io import (
    DumpParseError,
    format_gap_report,
    last_compaction_gap,
    parse_kcat_format,
    parse_kcat_json,
    read_kcat,
    read_partition_dir,
)
from kcompact_nb.io.text._kcat_json import HEADER_NAME_NUL
from tests.conftest import compacted_log, rec
from tests.io.kafka_bytes import simple_batches, write_segments
from tests.io.kcat_stderr import mixed_in

JSON_LINES = "% Reached end of topic fruit [1] at offset 8\n% Reached end of topic fruit [0] at offset 3: exiting\n" + (
    "\n".join(
        json.dumps(m)
        for m in [
            {
                "topic": "fruit",
                "partition": 0,
                "offset": 0,
                "tstype": "create",
                "ts": 1000,
                "broker": 1,
                "key": "grape",
                "payload": "$2.69",
            },
            {
                "topic": "fruit",
                "partition": 0,
                "offset": 2,
                "tstype": "create",
                "ts": 1002,
                "broker": 1,
                "headers": ["src", "pos", "trace", None],
                "key": "grape",
                "payload": None,
            },
            {
                "topic": "fruit",
                "partition": 1,
                "offset": 7,
                "tstype": "logappend",
                "ts": 1003,
                "broker": 1,
                "key": None,
                "payload": "",
            },
        ]
    )
    + "\n"
)


def test_kcat_json_lines():
    parsed = parse_kcat_json(JSON_LINES)
    assert parsed.records("fruit", 0) == [
        Record(0, 1000, b"grape", b"$2.69"),
        Record(2, 1002, b"grape", None, (("src", b"pos"), ("trace", None))),
    ]
    assert parsed.records(partition=1) == [Record(7, 1003, None, b"")]
    assert parsed.missing == frozenset()
    log = parsed.to_partition_log("fruit", 0)
    assert (log.name, log.log_start_offset, log.log_end_offset) == ("fruit-0", 0, 3)
    assert [b.size_bytes for b in log.batches()] == [78, 88]


def kcat_object(offset: int = 1, **fields: object) -> str:
    """One line as kcat -J writes it, with ``fields`` replaced (``None`` removes a field)."""
    obj = {"topic": "t", "partition": 0, "offset": offset, "tstype": "create", "ts": 5, "broker": 1}
    obj |= {"key": "k", "payload": "v"} | fields
    return json.dumps({name: value for name, value in obj.items() if value is not None or name in ("key", "payload")})


def test_kcat_json_header_map_and_errors():
    (message,) = parse_kcat_json(kcat_object(headers={"a": ["1", "2"]})).messages
    assert message.record.headers == (("a", b"1"), ("a", b"2"))
    with pytest.raises(DumpParseError, match="line 2"):
        parse_kcat_json(kcat_object() + "\n{not json}\n")
    with pytest.raises(DumpParseError, match="'offset' must be an integer"):
        parse_kcat_json(kcat_object(offset="1"))
    with pytest.raises(DumpParseError, match="headers"):
        parse_kcat_json(kcat_object(headers=["odd"]))
    unknown = json.loads(kcat_object(tstype="unknown"))
    del unknown["ts"]
    assert parse_kcat_json(json.dumps(unknown)).missing == {"timestamp", "timestamp_type"}
    with pytest.raises(DumpParseError, match="a kcat status line.*2>/dev/null"):
        parse_kcat_json(kcat_object() + "\n% Something new\n")


def test_json_that_is_not_kcat_output_is_refused_naming_what_is_missing():
    # the project's own records.jsonl (Spark's Kafka source as JSON): value, not payload
    spark_row = '{"key":"az0=","value":"dg==","topic":"t","partition":0,"offset":0,"timestamp":"2026-01-01T00:00:00Z"}'
    with pytest.raises(DumpParseError, match=r"not a kcat -J object: no 'tstype', 'broker', 'payload'"):
        parse_kcat_json(spark_row)
    ts_missing = json.loads(kcat_object())
    del ts_missing["ts"]
    with pytest.raises(DumpParseError, match="no 'ts'"):
        parse_kcat_json(json.dumps(ts_missing))
    with pytest.raises(DumpParseError, match="'tstype' must be create, logappend or unknown"):
        parse_kcat_json(kcat_object(tstype="later"))
    with pytest.raises(DumpParseError, match=r"was kcat run with -J -D '\|'\? .* run it again without -D"):
        parse_kcat_json(kcat_object(0) + "|" + kcat_object(1) + "|")


def test_kcat_json_header_name_cut_at_NUL_by_kcat_is_a_caveat():
    assert parse_kcat_json(kcat_object()).caveats == ()
    parsed = parse_kcat_json(kcat_object(headers=["a", "c\u0000d"]))
    assert parsed.records()[0].headers == (("a", b"c\x00d"),)
    assert parsed.caveats == (HEADER_NAME_NUL,)


def test_kcat_json_stated_partition_is_checked():
    assert parse_kcat_json(kcat_object(partition=2), partition=2).partitions() == [("t", 2)]
    with pytest.raises(DumpParseError, match=r"stated to hold partition 0 only \(kcat -p 0\)"):
        parse_kcat_json(kcat_object(partition=2), partition=0)


# What Debian's kcat 1.7.1 printed for a binary value, byte for byte: yajl escapes control
# characters and passes every other byte through, valid UTF-8 or not.
BINARY_LINE = (
    b'{"topic":"aw","partition":0,"offset":0,"tstype":"create","ts":1767225600000,"broker":1,'
    b'"headers":["h","v","e","","n",null],"key":"bin",'
    b'"payload":"\\u0000\\u0001\\t\\n\\r\\u001F \\"\\\\\x7f\x80\xff\xc3\xa9"}\n'
)


def test_kcat_json_bytes_keep_binary_values_exact():
    (message,) = parse_kcat_json(BINARY_LINE).messages
    headers = (("h", b"v"), ("e", b""), ("n", None))
    assert message.record == Record(0, 1767225600000, b"bin", b'\x00\x01\t\n\r\x1f "\\\x7f\x80\xff\xc3\xa9', headers)
    assert message.timestamp_type is TimestampType.CREATE_TIME
    as_text = BINARY_LINE.decode("utf-8", "surrogateescape")
    assert parse_kcat_json(as_text).messages == parse_kcat_json([as_text]).messages == (message,)


@pytest.mark.parametrize("shift", [0, 40, len(BINARY_LINE) - 2, len(BINARY_LINE) - 1])
def test_kcat_status_lines_inside_a_json_record_are_skipped(shift):
    # kcat 2>&1: stderr is unbuffered, stdout goes out in 4 KiB blocks, so "% Reached end" lands mid-record
    inserted = b"% Reached end of topic aw [1] at offset 3\n% Reached end of topic aw [2] at offset 1\n"
    first = BINARY_LINE.replace(b'"bin"', b'"' + b"k" * (4096 - shift) + b'"')
    output = mixed_in(first + BINARY_LINE.replace(b'"offset":0', b'"offset":1'), *inserted.splitlines(True), block=1)
    parsed = parse_kcat_json(output)
    assert [m.record.offset for m in parsed.messages] == [0, 1]
    assert parsed.messages[0] == parse_kcat_json(first).messages[0]
    assert parsed.status_lines == (
        "% Reached end of topic aw [1] at offset 3",
        "% Reached end of topic aw [2] at offset 1",
    )


def test_kcat_json_value_holding_status_text_is_read_whole():
    # the case: a value with status-like text and a real status line later in the same JSON line
    value = "2026-11-27 app: % ERROR: disk full; retrying " + "B" * 6000
    stdout = (kcat_object(0, payload=value) + "\n").encode()
    parsed = parse_kcat_json(mixed_in(stdout, b"% Reached end of topic t [0] at offset 1: exiting\n", block=1))
    assert parsed.records()[0].value == value.encode()
    assert parsed.status_lines == ("% Reached end of topic t [0] at offset 1: exiting",)
    kept_out = parse_kcat_json(kcat_object(0, payload="% Reached end of topic t [0] at offset 1\n") + "\n")
    assert kept_out.records()[0].value == b"% Reached end of topic t [0] at offset 1\n"


def test_kcat_json_several_partitions_and_runs():
    parsed = parse_kcat_json("\n".join(kcat_object(o, partition=p) for p, o in [(0, 0), (1, 0), (0, 1)]))
    assert parsed.partitions() == [("t", 0), ("t", 1)]
    with pytest.raises(DumpParseError, match="several kcat runs"):
        parse_kcat_json("\n".join(kcat_object(o) for o in [0, 1, 0]))


def test_kcat_format_of_the_seed_script():
    text = "% Reached end of topic t [0] at offset 6\n0\t1690000000000\n1\t1690000000001\n5\t1690000000005\n"
    parsed = parse_kcat_format(text, r"%o\t%T\n")
    assert [(r.offset, r.timestamp, r.key, r.value) for r in parsed.records()] == [
        (0, 1690000000000, None, None),
        (1, 1690000000001, None, None),
        (5, 1690000000005, None, None),
    ]
    assert parsed.missing == {"key", "value", "headers", "topic", "partition", "timestamp_type"}


def test_kcat_format_with_every_field():
    fmt = r"%t|%p|%o|%T|%K:%k|%S:%s|%h\n"
    text = "fruit|0|4|99|5:grape|-1:|src=pos,x=NULL\nfruit|0|6|100|-1:|0:|\n"
    parsed = parse_kcat_format(text, fmt)
    assert parsed.records() == [
        Record(4, 99, b"grape", None, (("src", b"pos"), ("x", None))),
        Record(6, 100, None, b""),
    ]
    assert parsed.missing == {"timestamp_type"}
    assert parsed.messages[0].topic == "fruit" and parsed.messages[0].partition == 0


@pytest.mark.parametrize(
    ("fmt", "text", "message"),
    [
        (r"%o\n", "12\nnot-a-number\n", "line 2"),
        (r"%x\n", "1\n", "unsupported kcat formatter %x"),
        (r"%T\n", "1\n", "has no %o"),
    ],
)
def test_kcat_format_errors(fmt, text, message):
    with pytest.raises(DumpParseError, match=message):
        parse_kcat_format(text, fmt)


def test_read_kcat_files(tmp_path):
    (tmp_path / "j.txt").write_text(JSON_LINES)
    (tmp_path / "f.txt").write_text("3\t7\n")
    (tmp_path / "b.txt").write_bytes(BINARY_LINE)
    assert len(read_kcat(tmp_path / "j.txt").messages) == 3
    assert read_kcat(tmp_path / "f.txt", r"%o\t%T\n").records() == [Record(3, 7, None, None)]
    assert read_kcat(tmp_path / "b.txt").messages == parse_kcat_json(BINARY_LINE).messages


def test_gap_analysis_matches_the_seed_script():
    rows = [(0, 10), (1, 11), (4, 14), (5, 15), (9, 19), (10, 20), (11, 21), (12, 22)]
    gap = last_compaction_gap(rows)
    assert (gap.last_gap_offset, gap.last_gap_row, gap.last_gap_timestamp_ms, gap.missing_offsets) == (9, 5, 19, 3)
    assert (gap.gap_count, gap.last_offset, gap.last_row, gap.dirty_rows_since_gap) == (2, 12, 8, 3)
    assert format_gap_report(gap).splitlines() == [
        "last gap offset:  9 (3 offsets missing before it: removed records, or a transaction's marker and aborted "
        "records, which consumers never see)",
        "last gap row:  5",
        "last gap time:  1970-01-01T00:00:00.019Z (a lower bound for the last compaction: the timestamp of the first "
        "record after the gap, which the cleaner pass that made the gap had already seen)",
        "last offset:  12",
        "last row:  8",
        "contiguous ~dirty rows since gap:  3 (an upper bound: the cleaner may have passed the gap since without "
        "removing anything; Kafka's cleaner-offset-checkpoint holds the exact point)",
    ]
    assert not gap.markers_known
    assert format_gap_report(last_compaction_gap([(0, 1), (2, 3)])).splitlines()[0] == (
        "last gap offset:  2 (1 offset missing before it: a removed record, or a transaction marker, "
        "which consumers never see)"
    )


def test_no_gap_means_every_row_may_be_dirty():
    gap = last_compaction_gap([Record(5, 1, b"k", b"v"), Record(6, 2, b"k", b"v")])
    assert (gap.last_gap_offset, gap.last_gap_time, gap.dirty_rows_since_gap, gap.last_row) == (None, None, 2, 2)
    assert (
        format_gap_report(gap).splitlines()[-1]
        == "contiguous ~dirty rows since gap:  2 (no gap: every row may be dirty)"
    )
    assert last_compaction_gap([(5, 1)], log_start_offset=0).last_gap_row == 1
    assert last_compaction_gap([]).last_row == 0


def test_gap_analysis_on_a_partition_ignores_transaction_markers():
    log = compacted_log()
    for i in range(3):
        log.append(
            [rec(f"k{i}", timestamp=100 + i)],
            now_ms=i,
            producer_id=1,
            producer_epoch=0,
            base_sequence=i,
            transactional=True,
        )
    log.append_end_txn_marker(1, 0, commit=True, now_ms=5)
    log.append([rec("k0", timestamp=200)], now_ms=6)
    gap = last_compaction_gap(log)
    assert (gap.gap_count, gap.last_row, gap.dirty_rows_since_gap) == (0, 4, 4)


def test_gap_analysis_on_a_cleaned_partition_read_from_disk(tmp_path):
    part = write_segments(tmp_path / "t-0", {0: simple_batches([2, 5], ts=0), 6: simple_batches(range(6, 9), ts=0)})
    gap = last_compaction_gap(read_partition_dir(part).log)
    assert (gap.last_gap_offset, gap.last_gap_row, gap.last_gap_timestamp_ms, gap.gap_count) == (5, 2, 5, 2)
    assert gap.dirty_rows_since_gap == 3 and gap.markers_known
    assert (
        format_gap_report(gap).splitlines()[0] == "last gap offset:  5 (2 offsets missing before it: removed records)"
    )
