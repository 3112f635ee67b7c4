"""PackedRecords: the column store of batches read from disk behaves as the tuple of its records.

The cleaner's whole-batch fast paths read the columns directly; a hypothesis property checks that a pass
over packed batches keeps exactly what a pass over tuple batches keeps.
"""

from __future__ import annotations

import copy
import pickle
from array import array
from dataclasses import replace

import numpy
import pytest
from hypothesis import given, settings

from kcompact_nb.core import KafkaModelError, KeyRegistry, Record, RecordBatch, record_size_bytes
from kcompact_nb.core.cleaner._numbered_offset_table import NumberedOffsetTable
from kcompact_nb.core.cleaner._offset_map import BoundedOffsetMap, ExactOffsetMap
from kcompact_nb.io import batch_bytes, read_partition_dir, write_partition_dir
from kcompact_nb.record import PackedRecords
from kcompact_nb.record._packed_records import record_keys, record_offsets, record_values
from kcompact_nb.record._record_batch import uncompressed_batch_size
from tests.core.cleaner.test_cleaner_properties import build, logs, pass_over, state
from tests.io.kafka_bytes import kafka_batch, rec, write_segments

RECORDS = (
    Record(10, 1000, b"a", b"x"),
    Record(11, 1001, None, b"keyless"),
    Record(13, 1000, b"b", None, (("h", b"1"),)),
)


def packed(records: tuple[Record, ...] = RECORDS) -> PackedRecords:
    return PackedRecords.from_rows(records)


def test_reads_as_the_tuple_of_its_records() -> None:
    p = packed()
    assert list(p) == list(RECORDS)
    assert len(p) == 3 and bool(p)
    assert p[0] == RECORDS[0] and p[-1] == RECORDS[-1] and p[2].headers == (("h", b"1"),)
    assert p[1:] == RECORDS[1:] and isinstance(p[1:], tuple)
    assert p == RECORDS and p == RECORDS and p != RECORDS[:2] and p != list(RECORDS)
    assert hash(p) == hash(RECORDS)
    assert RECORDS[2] in p and p.index(RECORDS[2]) == 2


def test_headers_column_is_absent_when_no_record_has_headers() -> None:
    p = packed(RECORDS[:2])
    assert p.headers is None
    assert [r.headers for r in p] == [(), ()]
    assert p[1].headers == ()


def test_empty_batch() -> None:
    p = PackedRecords.from_rows(())
    assert len(p) == 0 and not p and p == () and list(p) == []


def test_columns_must_have_one_length() -> None:
    with pytest.raises(KafkaModelError, match="same length"):
        PackedRecords(array("q", [1, 2]), array("q", [1]), (b"a", b"b"), (None, None))


def test_columns_match_tuple_records() -> None:
    p = packed()
    for records in (p, RECORDS):
        assert list(record_keys(records)) == [b"a", None, b"b"]
        assert list(record_offsets(records)) == [10, 11, 13]
        assert list(record_values(records)) == [b"x", b"keyless", None]


def test_retained_at_entries_keeps_records_not_below_their_keys_entry() -> None:
    p = packed()  # offsets 10, 11, 13; one entry per record
    entries = numpy.array([11, -1, 13])
    kept = p.retained_at_entries(entries, keep_deletes=True)
    assert isinstance(kept, PackedRecords) and kept == (RECORDS[1], RECORDS[2]) and not kept.all_keyed
    assert p.retained_at_entries(entries, keep_deletes=False) == (RECORDS[1],)
    assert p.retained_at_entries(numpy.array([10, 11, 14]), keep_deletes=True) == (RECORDS[0], RECORDS[1])
    assert p.retained_at_entries(numpy.array([10, -1, 13]), keep_deletes=True) is p  # all kept: the records as they are
    assert p.retained_at_entries(numpy.array([99, 99, 99]), keep_deletes=True) == ()


SPANNED = (Record(10, 1000, b"a", b"x"), Record(11, 1001, None, b"keyless"), Record(13, 1003, b"bb", None))


def spanned(records: tuple[Record, ...] = SPANNED) -> PackedRecords:
    """The records with keys and values left in one byte string, as a pass streamed over files reads them."""
    data, columns = bytearray(b"batch header"), ([], [], [], [])
    for record in records:
        for field, (starts, lengths) in ((record.key, columns[:2]), (record.value, columns[2:])):
            starts.append(len(data))
            lengths.append(-1 if field is None else len(field))
            data += (field or b"") + b"."
    offsets, stamps = array("q", [r.offset for r in records]), array("q", [r.timestamp for r in records])
    keys, values = (array("q", columns[0]), array("q", columns[1])), (array("q", columns[2]), array("q", columns[3]))
    return PackedRecords.from_span_keys(
        offsets, stamps, bytes(data), keys, values, None not in [r.key for r in records]
    )


def test_records_with_span_keys_read_as_their_records_and_slice_only_what_is_read() -> None:
    p = spanned()
    assert p.key_ids is None and p.registry is None and not p.all_keyed
    data, starts, lengths = p.key_spans()
    assert [None if n < 0 else data[a : a + n] for a, n in zip(starts, lengths, strict=True)] == [b"a", None, b"bb"]
    assert p[2] == SPANNED[2] and p.key_spans() is not None  # one record read: the keys stay in the bytes
    assert p.batch_size(10, 1000) == uncompressed_batch_size(10, 1000, SPANNED) and p.key_spans() is not None
    assert p == SPANNED and p.keys == (b"a", None, b"bb") and p.key_spans() is None  # all keys read: sliced out
    assert pickle.loads(pickle.dumps(spanned())) == SPANNED


def test_a_subset_of_records_with_span_keys_holds_its_own_keys_and_values() -> None:
    p = spanned()
    for indexes in ([], [0], [1, 2], [0, 1, 2]):
        subset = p.subset(indexes)
        chosen = tuple(SPANNED[i] for i in indexes)
        assert subset == chosen and subset.key_spans() is None and not subset.values_in_batch_bytes
        assert subset.all_keyed == all(r.key is not None for r in chosen)
        assert subset.batch_size(10, 1000) == uncompressed_batch_size(10, 1000, chosen)
    assert p.retained_at_entries(numpy.array([10, 12, 13]), keep_deletes=False) == (SPANNED[0],)


def test_records_whose_values_bytes_are_deferred_make_them_once_per_read_of_values() -> None:
    """A compressed batch's values are left compressed (issue #29): its bytes come from a function, called once each
    time values are sliced out (all of a batch's values at once when one record is read), never for nothing."""
    plain = tuple(r for r in SPANNED if r.key is not None) + (Record(14, 1004, b"a", b"yy"),)
    data = bytearray(b"header")
    starts, lengths = array("q"), array("q")
    for record in plain:
        starts.append(len(data) if record.value is not None else 0)
        lengths.append(-1 if record.value is None else len(record.value))
        data += record.value or b""
    calls = []

    def made() -> bytes:
        calls.append(1)
        return bytes(data)

    def deferred() -> PackedRecords:
        registry = KeyRegistry()
        ids = registry.ids([r.key for r in plain])
        offsets, stamps = array("q", [r.offset for r in plain]), array("q", [r.timestamp for r in plain])
        return PackedRecords.from_spans(offsets, stamps, ids, registry, made, starts, lengths, True)

    p = deferred()
    assert p.null_values().tolist() == [r.value is None for r in plain] and p.batch_size(10, 1000) > 0 and not calls
    assert p.subset([]) == () and not calls
    assert p.subset([0, 2]) == (plain[0], plain[2]) and len(calls) == 1
    assert p[0] == plain[0] and p[2] == plain[2] and p == plain and len(calls) == 2 and not p.values_in_batch_bytes
    assert pickle.loads(pickle.dumps(deferred().subset([1, 2]))) == plain[1:]


def test_an_offset_map_without_a_table_takes_records_with_span_keys() -> None:
    keyed = spanned((SPANNED[0], SPANNED[2], Record(14, 1004, b"a", b"y")))
    for offset_map in (ExactOffsetMap(), ExactOffsetMap(streaming=True), BoundedOffsetMap(slots=4)):
        offset_map.table.put_records(keyed)
        assert offset_map.entries() == {b"a": 14, b"bb": 13} and offset_map.size == 2
        assert offset_map.table.entries_of_records(keyed).tolist() == [14, 13, 14]
        assert list(offset_map.table.entries_of_keys([b"bb", b"zz"])) == [13, -1]


def test_a_subset_reads_sizes_and_pickles_as_the_tuple_of_its_records() -> None:
    p = packed()
    for indexes in ([], [0], [2], [0, 2], [0, 1, 2]):
        chosen = tuple(RECORDS[i] for i in indexes)
        subset = p.subset(indexes)
        assert subset == chosen and list(subset) == list(chosen) and len(subset) == len(indexes)
        assert subset.has_null_value() == any(r.value is None for r in chosen)
        assert subset.all_keyed == all(r.key is not None for r in chosen)
        assert pickle.loads(pickle.dumps(subset)) == chosen
        for base_offset, base_timestamp in ((10, 1000), (0, 0), (10, 10**12)):
            assert subset.batch_size(base_offset, base_timestamp) == 61 + sum(
                record_size_bytes(r.offset - base_offset, r.timestamp - base_timestamp, r.key, r.value, r.headers)
                for r in chosen
            )


def test_pickles_and_copies() -> None:
    p = packed()
    assert pickle.loads(pickle.dumps(p)) == RECORDS
    assert copy.deepcopy(p) == RECORDS


def test_batches_read_from_disk_are_packed_and_equal_to_built_ones(tmp_path) -> None:
    records = [rec(0, 1000, b"a", b"x"), rec(1, 1001, None, b"keyless"), rec(3, 1000, b"b", None, [("h", b"1")])]
    write_segments(tmp_path / "t-0", {10: [kafka_batch(records, base_offset=10)]})
    read = read_partition_dir(tmp_path / "t-0").log.segments[0].batches[0]
    assert isinstance(read.records, PackedRecords)
    assert read.records == RECORDS
    assert read.without_raw() == replace(RecordBatch.build(RECORDS), raw=None)


@settings(max_examples=150, deadline=None)
@given(logs)
def test_a_pass_over_packed_batches_keeps_what_a_pass_over_tuples_keeps(params) -> None:
    """Packed batches with key ids take the offset table's numpy paths (``put_records``, ``entries_of_records``)."""
    segment_bytes, batches, slots, strategy = params
    tuples, columns = build(segment_bytes, batches, strategy), build(segment_bytes, batches, strategy)
    registry = KeyRegistry()
    for segment in columns.segments:
        segment.batches = [replace(b, records=PackedRecords.from_rows(b.records, registry)) for b in segment.batches]
    result_tuples, result_columns = pass_over(tuples, slots), pass_over(columns, slots)
    assert state(columns) == state(tuples)
    assert result_columns.stats == result_tuples.stats
    assert [[b.size_bytes for b in s.batches] for s in columns.segments] == [
        [b.size_bytes for b in s.batches] for s in tuples.segments
    ]


@settings(max_examples=100, deadline=None)
@given(logs)
def test_a_pass_over_batches_read_from_disk_writes_what_a_pass_over_tuples_writes(tmp_path_factory, params) -> None:
    """Batches read by the block decoder (values left in the batch bytes) take the packed retention: the rebuilt
    batches stay packed, sized from their columns; the cleaned log, its stats and every written byte are those of
    the record-by-record pass over tuple batches."""
    segment_bytes, batches, slots, strategy = params
    tuples = build(segment_bytes, batches, strategy)
    folder = write_partition_dir(build(segment_bytes, batches, strategy), tmp_path_factory.mktemp("log"))
    read = read_partition_dir(folder, config=tuples.config, broker=tuples.broker).log
    result_tuples, result_read = pass_over(tuples, slots), pass_over(read, slots)
    assert state(read) == state(tuples)
    assert result_read.stats == result_tuples.stats
    assert [[batch_bytes(b) for b in s.batches] for s in read.segments] == [
        [batch_bytes(b) for b in s.batches] for s in tuples.segments
    ]


def test_key_registry_numbers_keys_in_order_of_first_appearance_and_interns_them() -> None:
    registry = KeyRegistry()
    first = b"a"
    assert list(registry.ids([first, b"b", None, b"a"])) == [0, 1, 2, 0]
    assert registry.keys == [b"a", b"b", None] and list(registry.known_ids([b"b", b"z"])) == [1, -1]
    p = PackedRecords.from_rows(
        [(5, 0, b"".join([b"a"]), b"v", ()), (6, 0, b"b", None, ()), (7, 0, b"c", b"w", ())], registry
    )
    assert p.keys[0] is first and list(p.key_ids) == [0, 1, 3] and p.all_keyed
    assert not PackedRecords.from_rows([(1, 0, None, b"v", ())] * 1, registry).all_keyed
    assert pickle.loads(pickle.dumps(p)) == p


def test_register_new_numbers_keys_unlooked_up_and_refuses_a_key_already_registered() -> None:
    registry = KeyRegistry()
    assert registry.register_new([b"a", None, b""]) == range(0, 3)
    assert registry.keys == [b"a", None, b""] and list(registry.ids([b"", b"b"])) == [2, 3]
    with pytest.raises(KafkaModelError, match="already registered"):
        registry.register_new([b"c", b"a"])


def test_put_records_keeps_each_keys_last_offset_in_order_of_first_appearance() -> None:
    registry = KeyRegistry()
    one = PackedRecords.from_rows([(0, 0, b"x", b"1", ()), (1, 0, b"y", b"1", ()), (2, 0, b"x", b"2", ())], registry)
    two = PackedRecords.from_rows([(3, 0, b"z", b"1", ()), (4, 0, b"y", b"2", ()), (5, 0, b"z", None, ())], registry)
    offset_map = ExactOffsetMap()
    table = offset_map.table
    assert isinstance(table, NumberedOffsetTable)
    table.put_records(one)
    table.put_records(two)
    assert table.size_upper_bound == 3  # no more than the registry's keys, before any folding
    assert offset_map.size == 3
    assert list(registry.keys) == [b"x", b"y", b"z"]
    assert table.latest_by_key_id(registry).tolist() == [2, 4, 5]
    offset_map.put(b"w", 9, 9)  # a record-by-record put turns the entries into a dict
    assert list(offset_map.entries().items()) == [(b"x", 2), (b"y", 4), (b"z", 5), (b"w", 9)]
    assert table.latest_by_key_id(registry).tolist() == [2, 4, 5]
    three = PackedRecords.from_rows(
        [(10, 0, b"q", b"1", ()), (11, 0, b"x", b"3", ()), (12, 0, b"q", b"2", ())], registry
    )
    table.put_records(three)
    assert offset_map.get(b"x") == 11 and offset_map.get(b"q") == 12 and offset_map.size == 5
    assert list(offset_map.entries()) == [b"x", b"y", b"z", b"w", b"q"]
    assert table.latest_by_key_id(registry).tolist() == [11, 4, 5, 12]


def test_bounded_map_counts_folded_keys_against_its_capacity() -> None:
    registry = KeyRegistry()
    offset_map = BoundedOffsetMap(slots=4, load_factor=0.75)  # 3 keys
    offset_map.table.put_records(
        PackedRecords.from_rows([(0, 0, b"a", b"", ()), (1, 0, b"b", b"", ()), (2, 0, b"a", b"", ())], registry)
    )
    assert offset_map.max_entries == 3 and offset_map.size == 2 and offset_map.utilization == 0.5
    offset_map.table.put_records(
        PackedRecords.from_rows([(3, 0, b"c", b"", ()), (4, 0, b"c", b"", ()), (5, 0, b"c", b"", ())], registry)
    )
    assert offset_map.size == offset_map.max_entries == 3  # full: the next put would stop a pass
