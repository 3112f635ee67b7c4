"""The header-less records encoder and its size (in C and in Python) against kafka-python's
``DefaultRecordBatchBuilder`` (Kafka's record format), for records as tuples, as packed columns and as spans of a
batch's bytes (placed: where each key and value lands)."""

from __future__ import annotations

from array import array
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.record.default_records import DefaultRecordBatchBuilder

from kcompact_nb.core import RECORD_BATCH_OVERHEAD, Record, RecordBatch
from kcompact_nb.record import KeyRegistry, PackedRecords, encode_batch, placed
from kcompact_nb.record._kernels import placed_records_section, records_section, records_size

payload = st.one_of(st.none(), st.binary(max_size=20), st.binary(min_size=8000, max_size=9000))
rows = st.lists(
    st.tuples(
        st.integers(0, 20_000),  # offset gap: deltas past the varint table
        st.one_of(st.integers(-100, 100), st.integers(-(2**62), 2**62)),  # timestamp delta
        payload,
        payload,
    ),
    min_size=1,
    max_size=10,
)


def built(spec: list[Any], base_offset: int, base_ts: int, headers: bool = False) -> tuple[list[Record], bytes]:
    """The records of ``spec`` from ``base_offset`` and ``base_ts``, and their section as kafka-python writes it."""
    builder = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 30)
    offset, records = base_offset - 1, []
    for gap, ts_delta, key, value in spec:
        offset += 1 + gap
        record_headers = (("h", key), ("", None))[: len(records) % 3] if headers else ()
        records.append(Record(offset, base_ts + ts_delta, key, value, record_headers))
        builder.append(offset - base_offset, base_ts + ts_delta, key, value, list(record_headers))
    return records, bytes(builder.build())[RECORD_BATCH_OVERHEAD:]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=rows, base_offset=st.integers(0, 2**40), base_ts=st.integers(0, 2**41))
def test_records_are_written_byte_for_byte_as_kafka_python_writes_them(kernels, spec, base_offset, base_ts) -> None:
    records, expected = built(spec, base_offset, base_ts)
    assert records_section(records, base_offset, records[0].timestamp) == expected
    packed = PackedRecords.from_rows([tuple(r) for r in records])
    assert records_section(packed, base_offset, records[0].timestamp) == expected


def _lengths(column: list[bytes | None]) -> array[int]:
    return array("q", [-1 if item is None else len(item) for item in column])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=rows, base_offset=st.integers(0, 2**40), base_ts=st.integers(0, 2**41))
def test_records_are_sized_as_kafka_python_writes_them(kernels, spec, base_offset, base_ts) -> None:
    """records_size, with keys and values as bytes or as their lengths, and the size of a batch of packed records,
    their values in the batch's bytes or sliced out: the bytes kafka-python's builder writes."""
    records, expected = built(spec, base_offset, base_ts)
    base = records[0].timestamp
    offsets, stamps = array("q", [r.offset for r in records]), array("q", [r.timestamp for r in records])
    keys, values = [r.key for r in records], [r.value for r in records]
    assert records_size(offsets, stamps, keys, values, base_offset, base) == len(expected)
    assert records_size(offsets, stamps, _lengths(keys), _lengths(values), base_offset, base) == len(expected)
    packed = PackedRecords.from_rows([tuple(r) for r in records])
    assert packed.batch_size(base_offset, base) == RECORD_BATCH_OVERHEAD + len(expected)
    registry = KeyRegistry()
    data = b"".join(v or b"" for v in values)
    starts = array("q", [sum(len(v or b"") for v in values[:i]) for i in range(len(values))])
    spans = PackedRecords.from_spans(
        offsets, stamps, registry.ids(keys), registry, data, starts, _lengths(values), None not in keys
    )
    assert spans.batch_size(base_offset, base) == RECORD_BATCH_OVERHEAD + len(expected)
    assert tuple(spans.values) == tuple(values)  # sliced out now: sized from the values themselves
    assert spans.batch_size(base_offset, base) == RECORD_BATCH_OVERHEAD + len(expected)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=rows, base_offset=st.integers(0, 2**40), base_ts=st.integers(0, 2**41))
def test_packed_records_with_headers_are_sized_as_kafka_python_writes_them(kernels, spec, base_offset, base_ts) -> None:
    records, expected = built(spec, base_offset, base_ts, headers=True)
    packed = PackedRecords.from_rows([tuple(r) for r in records])
    assert packed.batch_size(base_offset, records[0].timestamp) == RECORD_BATCH_OVERHEAD + len(expected)


def span_records(records: list[Record], rows: list[int]) -> PackedRecords:
    """The records at ``rows`` as packed records whose keys and values are spans of one buffer holding every record's
    (as a block read from a file)."""
    data, starts = bytearray(b"\x07" * 3), []
    for record in records:
        starts.append([])
        for item in (record.key, record.value):
            starts[-1].append(len(data))
            data += (item or b"") + b"\x09"
    kept = [records[i] for i in rows]
    return PackedRecords.from_span_keys(
        array("q", [r.offset for r in kept]),
        array("q", [r.timestamp for r in kept]),
        bytes(data),
        (array("q", [starts[i][0] for i in rows]), _lengths([r.key for r in kept])),
        (array("q", [starts[i][1] for i in rows]), _lengths([r.value for r in kept])),
        False,
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=rows, base_offset=st.integers(0, 2**40), base_ts=st.integers(0, 2**41), picks=st.lists(st.booleans()))
def test_records_placed_from_spans_are_written_as_kafka_python_writes_them_their_keys_and_values_where_it_says(
    kernels, spec, base_offset, base_ts, picks
) -> None:
    """placed_records_section over records whose keys and values are spans of a buffer holding other records too
    (nothing sliced out): kafka-python's bytes, each key and value found at the position it gives; a batch ``placed``
    is its own encoding, its records spans of its own bytes."""
    records, _ = built(spec, base_offset, base_ts)
    rows = [i for i, pick in enumerate(picks[: len(records)]) if pick] or [0]
    kept = [records[i] for i in rows]
    subset = span_records(records, rows)
    assert subset.values_in_batch_bytes and subset.spans() is not None  # nothing sliced out
    base = kept[0].timestamp
    section, key_positions, value_positions = placed_records_section(subset, base_offset, base, 5)
    assert section == records_section(kept, base_offset, base)
    placed_at = b"\x00" * 5 + section  # the positions count from 5
    for record, key_at, value_at in zip(kept, key_positions, value_positions, strict=True):
        assert record.key is None or placed_at[key_at : key_at + len(record.key)] == record.key
        assert record.value is None or placed_at[value_at : value_at + len(record.value)] == record.value
    batch = RecordBatch.build(subset, base_offset=base_offset, last_offset=records[-1].offset, checked=True)
    own = placed(batch)
    assert own.raw == encode_batch(batch) and len(own.raw) == batch.size_bytes
    assert own.records.spans()[0] is own.raw  # no other batch's bytes held
    assert [tuple(r) for r in own.records] == [tuple(r) for r in kept]
