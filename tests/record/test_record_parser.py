"""The io layer's record parser against kafka-python's ``DefaultRecordBatch`` on the same bytes.

Both decode every record field the same way (multi-byte varints, null keys and values, headers with
null values, negative timestamp deltas); bytes the parser does not read cleanly raise ``NotPlain``.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kafka.record.default_records import DefaultRecordBatch

from kcompact_nb.core import record_size_bytes
from kcompact_nb.record._record_parser import NotPlain, RecordColumns, parse_records
from tests.io.kafka_bytes import kafka_batch, rec

HEADER_FIELDS = ">qiibIhiqqqhii"

payload = st.one_of(st.none(), st.binary(max_size=300))
records = st.lists(
    st.tuples(
        st.integers(0, 3),  # offset gap before the record
        st.integers(-(2**40), 2**40),  # timestamp delta
        payload,
        payload,
        st.lists(st.tuples(st.text(max_size=5), payload), max_size=2),
    ),
    min_size=1,
    max_size=20,
)


def parsed(data: bytes) -> RecordColumns:
    header = struct.unpack_from(HEADER_FIELDS, data)
    columns = RecordColumns()
    parse_records(data, header[0], header[7], header[6], header[12], columns)
    return columns


@settings(max_examples=200, deadline=None)
@given(records, st.integers(0, 2**40))
def test_parser_reads_what_kafka_python_reads(spec, base_offset) -> None:
    delta, rows = -1, []
    for gap, ts_delta, key, value, headers in spec:
        delta += 1 + gap
        rows.append(rec(delta, 1_700_000_000_000 + ts_delta, key, value, headers))
    data = kafka_batch(rows, base_offset=base_offset)
    columns = parsed(data)
    expected = [(r.offset, r.timestamp, r.key, r.value, tuple(r.headers)) for r in DefaultRecordBatch(data)]
    got = list(zip(columns.offsets, columns.timestamps, columns.keys, columns.values, columns.headers, strict=False))
    assert got == expected
    base_ts = expected[0][1]
    sizes = [record_size_bytes(o - base_offset, t - base_ts, k, v, h) for o, t, k, v, h in expected]
    assert columns.sizes == sizes


def test_bytes_it_cannot_read_cleanly_raise_not_plain_and_truncate_restores_the_columns() -> None:
    data = kafka_batch([rec(0, 1000, b"k", b"v"), rec(1, 1000, b"k2", b"v2")], base_offset=5)
    columns = parsed(data)
    assert columns.offsets == [5, 6] and columns.keys == [b"k", b"k2"] and columns.sizes == [9, 11]
    for broken in (data[:-1], data + b"\x00", data[:61] + b"\x12" + data[62:]):  # truncated, trailing, record length
        rows = len(columns)
        try:
            header = struct.unpack_from(HEADER_FIELDS, broken)
            parse_records(broken, header[0], header[7], header[6], header[12], columns)
        except NotPlain:
            columns.truncate(rows)
        else:
            raise AssertionError("parsed bytes it should not read cleanly")
        assert columns.offsets == [5, 6] and len(columns) == 2


def test_the_attributes_byte_is_one_byte_whatever_its_value() -> None:
    """Kafka reads a record's attributes with ``buffer.get()`` (``DefaultRecord.readFrom``), and ignores them;
    kafka-python decodes them as a varint, so a byte >= 0x80 shifts every later field there."""
    data = kafka_batch([rec(0, 1000, b"k", b"v"), rec(1, 1000, b"k2", b"v2")], base_offset=5)
    flagged = bytearray(data)
    flagged[62] = flagged[62 + 9] = 0xFF  # both records' attributes (the first record is 9 bytes)
    clean, odd = parsed(data), parsed(bytes(flagged))
    assert (
        (odd.offsets, odd.keys, odd.values, odd.sizes)
        == (clean.offsets, clean.keys, clean.values, clean.sizes)
        == ([5, 6], [b"k", b"k2"], [b"v", b"v2"], [9, 11])
    )


@pytest.mark.parametrize("delta", [63, 64, 8191, 8192, 1_048_576])
@pytest.mark.parametrize("ts_delta", [-8193, -8192, -65, -64, 63, 64, 8191, 8192])
@pytest.mark.parametrize("length", [0, 63, 64, 8191, 8192])
def test_record_sizes_at_varint_boundaries_match_the_bytes(delta, ts_delta, length) -> None:
    """``record_size_bytes`` inlines one-byte varints; its edges against bytes kafka-python wrote."""
    payload = b"x" * length
    data = kafka_batch(
        [rec(0, 10_000, b"k", b"v"), rec(delta, 10_000 + ts_delta, payload, payload, [("h", payload)])], base_offset=0
    )
    columns = parsed(data)
    headers = (("h", payload),)
    assert columns.sizes == [
        record_size_bytes(0, 0, b"k", b"v"),
        record_size_bytes(delta, ts_delta, payload, payload, headers),
    ]
