"""The block decoder (:mod:`kcompact_nb.record._vector_decoder`, in C and in numpy) against the record-by-record
decoder.

Iterating a :class:`SegmentFileReader` decodes plain uncompressed batches a block at a time; its
``decoded(decode_batch)`` decodes every batch alone (the record parser, then kafka-python). On the same
file both give the same batches, field by field and record by record, and on corrupt files (CRCs made
valid again, so the records are read) the same error: type, file, byte position and reason. Every test runs on
the C kernels and on numpy (the ``kernels`` fixture).
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.record.util import calc_crc32c

from kcompact_nb.io import CorruptBatchError, SegmentFileReader
from kcompact_nb.record import PackedRecords
from kcompact_nb.record._record_batch import uncompressed_batch_size
from tests.io.kafka_bytes import kafka_batch, rec

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
payload = st.one_of(st.none(), st.binary(max_size=40), st.binary(min_size=60, max_size=90))
header = st.lists(st.tuples(st.text(max_size=3), st.one_of(st.none(), st.binary(max_size=4))), max_size=1)
record = st.tuples(
    st.integers(0, 70),  # offset gap before the record (multi-byte offset deltas past 63)
    st.one_of(st.integers(-(2**20), 2**20), st.integers(-(2**62), 2**62)),  # timestamp delta
    st.one_of(st.sampled_from([b"a", b"b", b"key-00000001", None, b""]), payload),
    payload,
    st.one_of(st.just(()), header),
)
pytestmark = pytest.mark.usefixtures("kernels")
batch = st.tuples(st.lists(record, min_size=1, max_size=12), st.integers(0, 5))  # records, gap before the batch
segment = st.lists(batch, min_size=1, max_size=8)


def write_segment(tmp_path: Path, spec: list) -> Path:
    path = tmp_path / "00000000000000000000.log"
    base, out = 0, bytearray()
    for records, gap in spec:
        base += gap
        delta, rows = -1, []
        for offset_gap, ts_delta, key, value, headers in records:
            delta += 1 + offset_gap
            rows.append(rec(delta, 1_700_000_000_000 + ts_delta, key, value, headers))
        out += kafka_batch(rows, base_offset=base)
        base += delta + 1
    path.write_bytes(bytes(out))
    return path


def both_ways(path: Path, **options: object) -> tuple[object, object]:
    """What the block reader and the batch-by-batch reader give: their batches, or the error they raise."""
    results = []
    for by_block in (True, False):
        reader = SegmentFileReader(path, **options)  # type: ignore[arg-type]
        try:
            batches = list(reader) if by_block else list(reader.decoded(reader.decode_batch))
            results.append(("batches", [described(b) for b in batches], reader.dropped))
        except CorruptBatchError as error:
            results.append(("error", type(error), error.file, error.position, error.reason))
    return results[0], results[1]


def described(batch: object) -> tuple:
    """Every field of a batch, its records as tuples and its raw bytes."""
    fields = tuple(getattr(batch, name) for name in batch.__dataclass_fields__ if name != "records")  # type: ignore[attr-defined]
    return fields, tuple(tuple(r) for r in batch.records)  # type: ignore[attr-defined]


def fits_nine_bytes(ts_delta: int) -> bool:
    """A timestamp delta whose zigzag varlong fits 9 bytes (63 bits): longer ones go to the record parser."""
    return -(2**62) <= ts_delta < 2**62


@SETTINGS
@given(segment)
def test_block_and_batch_decoders_agree_on_every_field(tmp_path, spec) -> None:
    path = write_segment(tmp_path, spec)
    by_block, by_batch = both_ways(path)
    assert by_block == by_batch
    lazy = [b.records for b in SegmentFileReader(path) if isinstance(b.records, PackedRecords)]
    plain = [
        len(r) >= 3 and not any(x[4] for x in r) and all(fits_nine_bytes(x[1] - r[0][1]) for x in r) for r, _ in spec
    ]
    assert sum(r.values_in_batch_bytes for r in lazy) == sum(plain)  # every plain batch took the block decoder


@SETTINGS
@given(segment, st.data())
def test_block_and_batch_decoders_raise_the_same_error_on_corrupt_records(tmp_path, spec, data) -> None:
    content = bytearray(write_segment(tmp_path, spec).read_bytes())
    starts, position = [], 0
    while position < len(content):
        starts.append(position)
        position += 12 + struct.unpack_from(">i", content, position + 8)[0]
    for _ in range(data.draw(st.integers(1, 3))):
        index = data.draw(st.integers(0, len(starts) - 1))
        start, end = starts[index], starts[index + 1] if index + 1 < len(starts) else len(content)
        if end - start <= 61:
            continue
        at = data.draw(st.integers(start + 61, end - 1))
        content[at] = data.draw(st.integers(0, 255))
        struct.pack_into(">I", content, start + 17, calc_crc32c(bytes(content[start + 21 : end])))
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(bytes(content))
    for recover in (False, True):
        by_block, by_batch = both_ways(path, recover=recover)
        assert by_block == by_batch


@pytest.mark.parametrize("count", [3, 100])
def test_a_batch_rewritten_by_nobody_keeps_its_values_in_the_batch_bytes(tmp_path, count) -> None:
    """Reading offsets, key ids and null-ness slices out no value; reading one record slices out only its own."""
    rows = [rec(i, 1_700_000_000_000, b"k%d" % (i % 7), None if i % 5 == 0 else b"v%d" % i) for i in range(count)]
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(kafka_batch(rows, base_offset=0))
    (batch,) = SegmentFileReader(path)
    records = batch.records
    assert isinstance(records, PackedRecords) and records.all_keyed
    assert list(records.offsets) == list(range(count))
    assert records.null_values().tolist() == [i % 5 == 0 for i in range(count)]
    assert records[1].value == b"v1" and records.values_in_batch_bytes
    assert records.values == tuple(None if i % 5 == 0 else b"v%d" % i for i in range(count))
    assert not records.values_in_batch_bytes


def test_a_rebuilt_subset_of_a_batch_holds_its_own_values(tmp_path) -> None:
    """The cleaner's packed retention: the kept records' values sliced out (the batch's bytes are not kept alive),
    their size from their lengths."""
    rows = [rec(i, 1_700_000_000_000 + i, b"k%d" % i, None if i == 3 else b"v" * (i * 40)) for i in range(6)]
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(kafka_batch(rows, base_offset=0))
    (batch,) = SegmentFileReader(path)
    records = batch.records
    assert isinstance(records, PackedRecords)
    subset = records.subset([1, 3, 5])
    assert not subset.values_in_batch_bytes and subset.has_null_value() and records.values_in_batch_bytes
    expected = tuple(list(records)[i] for i in (1, 3, 5))
    assert subset.batch_size(0, 1_700_000_000_003) == uncompressed_batch_size(0, 1_700_000_000_003, expected)
    assert subset == expected


def test_timestamps_are_read_in_javas_64_bit_arithmetic(tmp_path) -> None:
    """``DefaultRecord.readFrom``: ``baseTimestamp + timestampDelta`` in longs, the delta read as
    ``ByteUtils.readVarlong`` reads it (a tenth byte keeps its lowest bit). Found by the property test above:
    deltas 2**63 apart crashed the batch decoder (a Python int past int64) where Kafka reads a wrapped long."""
    low, high = 1_700_000_000_000 - 2**62, 1_700_000_000_000 + 2**62
    records = [(0, -(2**62), b"a", None, ())] + [(0, 0, b"a", None, ())] * 5 + [(0, 2**62, None, None, ())]
    path = write_segment(tmp_path, [([(0, 0, b"a", None, ())], 0), (records, 0)])
    by_block, by_batch = both_ways(path)
    assert by_block == by_batch
    stamps = [r.timestamp for b in SegmentFileReader(path) for r in b.records]
    # the last delta, 2**63, left kafka-python's writer as the zigzag 2**64 + 1 ((n << 1) ^ (n >> 63)), a 10-byte
    # varlong of which a long keeps the low 64 bits: 1, read as the delta -1
    assert stamps == [1_700_000_000_000, low] + [low + 2**62] * 5 + [low - 1]
    assert all(-(2**63) <= t < 2**63 for t in stamps) and high != stamps[-1]
