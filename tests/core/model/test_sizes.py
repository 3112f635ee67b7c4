"""Exact v2 byte sizes (spec 2.4-2.5), cross-checked against kafka-python's real encoder."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kafka.record.default_records import DefaultRecordBatchBuilder

from kcompact_nb.core import (
    RECORD_BATCH_OVERHEAD,
    ControlRecordType,
    NewRecord,
    PartitionLog,
    Record,
    RecordBatch,
    record_size_bytes,
    record_sizes_of_lengths,
)
from kcompact_nb.record import control_record_key, end_txn_marker_value
from kcompact_nb.record._record_sizes import record_size_of_lengths, varint_len, varlong_len


def encoded_batch_bytes(records: list[Record]) -> int:
    """Length of the batch kafka-python's DefaultRecordBatchBuilder writes for ``records``."""
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=0,
        is_transactional=0,
        producer_id=-1,
        producer_epoch=-1,
        base_sequence=-1,
        batch_size=1 << 24,
    )
    base = records[0].offset
    for r in records:
        builder.append(r.offset - base, timestamp=r.timestamp, key=r.key, value=r.value, headers=list(r.headers))
    return len(builder.build())


@pytest.mark.parametrize(
    ("key", "value", "headers", "expected_batch_bytes"),
    [
        (b"a", b"b", (), 70),  # issue 2: 1-byte key and value
        (b"k0", b"0123456789", (), 80),  # spec 2.5 example
        (b"k1", None, (), 70),  # spec 2.5: tombstone with a 2-byte key
        (b"k", b"", (), 69),  # an empty value is not a null value
        (b"k", b"v", (("h", b"12345678"),), 81),
        (b"k", b"v", (("h", None),), 73),
    ],
)
def test_single_record_batch_sizes(key, value, headers, expected_batch_bytes):
    batch = RecordBatch.build([Record(0, 0, key, value, headers)])
    assert batch.size_bytes == expected_batch_bytes
    assert encoded_batch_bytes(list(batch.records)) == expected_batch_bytes


def test_empty_batch_is_61_bytes():
    batch = RecordBatch.build([], base_offset=5, last_offset=9)
    assert (batch.size_bytes, RECORD_BATCH_OVERHEAD) == (61, 61)
    assert (batch.base_timestamp, batch.max_timestamp) == (-1, -1)


def test_commit_and_abort_marker_batches_are_78_bytes():
    """Spec 2.6: marker record 17 B, marker batch 78 B."""
    log = PartitionLog("t")
    log.append([NewRecord(b"k", b"v")], now_ms=0, producer_id=7, producer_epoch=0, transactional=True)
    commit = log.append_end_txn_marker(7, 0, commit=True, now_ms=0)
    log.append([NewRecord(b"k", b"v")], now_ms=0, producer_id=7, producer_epoch=0, transactional=True)
    abort = log.append_end_txn_marker(7, 0, commit=False, now_ms=0, coordinator_epoch=3)
    markers = [b for b in log.batches() if b.is_control]
    assert [b.base_offset for b in markers] == [commit.first_offset, abort.first_offset] == [1, 3]
    assert [b.size_bytes for b in markers] == [78, 78]
    assert markers[1].records[0].key == control_record_key(ControlRecordType.ABORT)
    assert markers[1].records[0].value == end_txn_marker_value(3)


def test_delete_horizon_stamp_grows_a_tombstone_batch_to_73_bytes():
    """Spec 13.1: a tombstone written a minute before a pass stamped with a 1-day horizon."""
    written, pass_time = 0, 60_000
    horizon = pass_time + 86_400_000
    batch = RecordBatch.build([Record(0, written, b"k1", None)], delete_horizon_ms=horizon)
    assert batch.base_timestamp == horizon
    assert batch.size_bytes == 73


def test_record_deltas_are_relative_to_the_base_offset_and_timestamp():
    records = [Record(100, 1_000, b"k", b"v"), Record(300, 1_000 + 10_000, b"k", b"v")]
    batch = RecordBatch.build(records)
    second = record_size_bytes(200, 10_000, b"k", b"v")
    assert second == 1 + 1 + 2 + 3 + 2 + 2 + 1  # length, attributes, delta 200, delta 10000, key, value, headers
    assert batch.size_bytes == 61 + record_size_bytes(0, 0, b"k", b"v") + second


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (-64, 1),
        (63, 1),
        (64, 2),
        (-65, 2),
        (-8192, 2),
        (8191, 2),
        (8192, 3),
        (-1_048_576, 3),
        (1_048_576, 4),
        (-134_217_728, 4),
        (134_217_728, 5),
        (-86_460_000, 4),
    ],
)
def test_zigzag_varint_lengths_by_range(value, expected):
    assert varint_len(value) == expected
    assert varlong_len(value) == expected


@pytest.mark.parametrize(("value", "expected"), [(2**34 - 1, 5), (2**35, 6), (-(2**62), 9), (2**63 - 1, 10)])
def test_varlong_lengths_beyond_32_bits(value, expected):
    assert varlong_len(value) == expected


keys = st.one_of(st.none(), st.binary(max_size=300))
headers = st.lists(st.tuples(st.text(max_size=20), st.one_of(st.none(), st.binary(max_size=40))), max_size=3)


@given(
    st.lists(
        st.tuples(st.integers(0, 5000), st.integers(-(2**40), 2**40), keys, keys, headers), min_size=1, max_size=20
    )
)
def test_batch_size_equals_kafka_python_encoding(rows):
    offset = 0
    records = []
    for gap, ts, key, value, hdrs in rows:
        records.append(Record(offset, ts, key, value, tuple(hdrs)))
        offset += gap + 1
    batch = RecordBatch.build(records)
    assert batch.size_bytes == encoded_batch_bytes(records)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(-(2**63), 2**63 - 1),
            st.integers(-(2**63), 2**63 - 1),
            st.integers(-1, 2**31 - 1),
            st.integers(-1, 2**31 - 1),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_record_sizes_of_columns_equal_those_of_each_record(rows):
    """The numpy sizes of records without headers (a streamed tally sizes a block's records at once) are
    ``DefaultRecord.sizeInBytes`` of each, as the scalar function computes it."""
    columns = [numpy.array(column, numpy.int64) for column in zip(*rows, strict=True)]
    expected = [record_size_of_lengths(*row) for row in rows]
    assert record_sizes_of_lengths(*columns).tolist() == expected
