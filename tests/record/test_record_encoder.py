"""The header-less records encoder and its size (in C and in Python) against kafka-python's
``DefaultRecordBatchBuilder`` (Kafka's record format), for records as tuples, as packed columns and as spans of a
batch's bytes (placed: where each key and value lands)."""

from __future__ import annotations

import dataclasses
import itertools
from array import array
from typing import Any

import numpy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.record.default_records import DefaultRecordBatchBuilder

from kcompact_nb.core import RECORD_BATCH_OVERHEAD, Record, RecordBatch, TimestampType
from kcompact_nb.record import (
    KafkaBatchEncoder,
    KeyRegistry,
    PackedRecords,
    RebuiltBatches,
    compressed,
    compressed_placed,
    encode_batch,
    placed_batches,
)
from kcompact_nb.record import batch_header as L
from kcompact_nb.record._codec_releases import NEWEST_RELEASE
from kcompact_nb.record._kernels import placed_batches as placed_batches_kernel
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
    (nothing sliced out): kafka-python's bytes, each key and value found at the position it gives."""
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


batch_fields = st.fixed_dictionaries({
    "leader_epoch": st.integers(0, 2**31 - 1),
    "horizon": st.one_of(st.none(), st.integers(0, 2**41)),
    "codec": st.sampled_from(["none", "none", "gzip", "lz4"]),
    "producer": st.tuples(st.integers(-1, 2**40), st.integers(-1, 2**15 - 1), st.integers(-1, 2**31 - 1)),
    "extra_offsets": st.integers(0, 3),
})  # fmt: skip


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=rows, base_ts=st.integers(0, 2**41), picks=st.lists(st.booleans()), cuts=st.sets(st.integers(1, 9)),
       fields=st.lists(batch_fields, min_size=10, max_size=10))  # fmt: skip
def test_batches_placed_from_spans_are_the_batches_kafka_writes_their_records_spans_of_their_own_bytes(
    kernels, spec, base_ts, picks, cuts, fields
) -> None:
    """placed_batches over the kept records of several batches, all spans of one buffer (a keyed run's block): each
    batch is the encoding of the batch built from its records and header fields (the delete horizon as its base
    timestamp, its codec's compression applied by ``compressed``), its records spans of its own bytes, the kernel's
    positions pointing at each key and value."""
    records, _ = built(spec, 1000, base_ts)
    rows = [i for i, pick in enumerate(picks[: len(records)]) if pick] or [0]
    bounds = [0, *sorted(cut for cut in cuts if cut < len(rows)), len(rows)]
    kept = span_records(records, rows)
    data, key_starts, key_lengths, value_starts, value_lengths = kept.spans()
    columns = tuple(
        numpy.asarray(column, numpy.int64)
        for column in (kept.offsets, kept.timestamps, key_starts, key_lengths, value_starts, value_lengths)
    )  # fmt: skip
    expected, headers, codecs = [], [], []
    for (first, end), field in zip(itertools.pairwise(bounds), fields, strict=False):
        own = [records[row] for row in rows[first:end]]
        base_offset, last_offset = own[0].offset - field["extra_offsets"], own[-1].offset + field["extra_offsets"]
        batch = RecordBatch.build(
            own, base_offset=base_offset, last_offset=last_offset, delete_horizon_ms=field["horizon"],
            partition_leader_epoch=field["leader_epoch"], producer_id=field["producer"][0],
            producer_epoch=field["producer"][1], base_sequence=field["producer"][2], compression=field["codec"],
        )  # fmt: skip
        expected.append(batch)
        attributes = 0 if field["horizon"] is None else L.DELETE_HORIZON_BIT
        headers.append([base_offset, field["leader_epoch"], attributes, last_offset - base_offset,
                        batch.base_timestamp, batch.max_timestamp, *field["producer"]])  # fmt: skip
        codecs.append(L.COMPRESSION_CODECS.index(field["codec"]))
    counts = numpy.diff(bounds)
    rebuilt = RebuiltBatches(data, columns, counts, numpy.array(headers, numpy.int64), numpy.array(codecs))
    placed = placed_batches(rebuilt)
    assert [(b.base_offset, b.last_offset, b.delete_horizon_ms, b.compression) for b in placed] == [
        (b.base_offset, b.last_offset, b.delete_horizon_ms, b.compression) for b in expected
    ]
    encoder = KafkaBatchEncoder()
    at_once = compressed_placed(placed, encoder, level=None, kafka_version=NEWEST_RELEASE)  # their layouts compressed
    assert [(b.raw, b.size_bytes, b.size_estimated) for b in at_once] == [
        (w.raw, w.size_bytes, w.size_estimated)
        for w in (compressed(b, encoder, level=None, kafka_version=NEWEST_RELEASE) for b in placed)
    ]
    assert [b.raw for b in at_once] == [encode_batch(want) for want in expected]
    for batch, want in zip(placed, expected, strict=True):
        own_bytes = batch.records.spans()[0]  # its own bytes, not the block's: the uncompressed layout
        assert own_bytes is not data and len(own_bytes) == want.size_bytes
        assert own_bytes is batch.raw if batch.compression == "none" else batch.raw is None
        assert [tuple(r) for r in batch.records] == [tuple(r) for r in want.records]
        assert batch.size_bytes == want.size_bytes  # uncompressed, as ``compressed`` expects
    layouts, key_positions, value_positions = placed_batches_kernel(data, columns, counts, rebuilt.headers)
    first = 0
    for layout, count in zip(layouts, counts.tolist(), strict=True):
        for row in range(first, first + count):
            key, value = records[rows[row]].key, records[rows[row]].value
            assert key is None or layout[key_positions[row] : key_positions[row] + len(key)] == key
            assert value is None or layout[value_positions[row] : value_positions[row] + len(value)] == value
        first += count


def test_placed_batches_refuse_counts_that_do_not_add_up(kernels) -> None:
    records, _ = built([(0, 0, b"k", b"v"), (0, 1, b"k2", None)], 5, 100)
    data, *spans = span_records(records, [0, 1]).spans()
    columns = (array("q", [5, 6]), array("q", [100, 101]), *spans)
    headers = numpy.zeros((1, 9), numpy.int64)
    for counts in ([1], [3], [0]):
        with pytest.raises(ValueError, match="records"):
            placed_batches_kernel(data, columns, numpy.array(counts, numpy.int64), headers)


def test_a_batch_stored_as_its_bytes_keeps_every_other_field() -> None:
    """``stored_as`` builds the batch positionally (for speed): every field is as ``dataclasses.replace`` sets it."""
    records, _ = built([(0, 0, b"k", b"v"), (2, 5, b"k2", None)], 40, 7_000)
    batch = RecordBatch(
        40, 45, tuple(records), 99, 6_000, 7_005, 11, 3, 17, True, False, TimestampType.LOG_APPEND_TIME, "zstd", 6_000,
        8, b"old", False,
    )  # fmt: skip
    stored = batch.stored_as(123, b"new", estimated=True)
    expected = dataclasses.replace(batch, size_bytes=123, raw=b"new", size_estimated=True)
    assert [getattr(stored, f.name) for f in dataclasses.fields(RecordBatch)] == [
        getattr(expected, f.name) for f in dataclasses.fields(RecordBatch)
    ]


def test_only_batches_laid_out_by_placed_batches_are_encoded_from_their_layout() -> None:
    """A batch whose records are not spans of its own uncompressed bytes is refused, never compressed from other
    bytes."""
    records, _ = built([(0, 0, b"k", b"v")], 40, 7_000)
    batch = RecordBatch.build(records, compression="gzip")
    with pytest.raises(ValueError, match="not a batch laid out by placed_batches"):
        KafkaBatchEncoder().encode_placed([batch], level=None, kafka_version=NEWEST_RELEASE)
