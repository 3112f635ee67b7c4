"""PackedRecords: the column store of batches read from disk behaves as the tuple of its records.

The cleaner's whole-batch fast paths read the columns directly; a hypothesis property checks that a pass
over packed batches keeps exactly what a pass over tuple batches keeps.
"""

from __future__ import annotations

import copy
import pickle
from array import array
from dataclasses import replace

import pytest
from hypothesis import given, settings

from kcompact_nb.core import KafkaModelError, PackedRecords, Record, RecordBatch
from kcompact_nb.core._records import record_keys, record_offsets, record_values, select_records
from kcompact_nb.io import read_partition_dir
from tests.io.kafka_bytes import kafka_batch, rec, write_segments
from tests.test_cleaner_properties import build, logs, pass_over, state

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
    assert p == RECORDS and RECORDS == p and p != RECORDS[:2] and p != list(RECORDS)
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


def test_columns_and_selection_match_tuple_records() -> None:
    p = packed()
    for records in (p, RECORDS):
        assert list(record_keys(records)) == [b"a", None, b"b"]
        assert list(record_offsets(records)) == [10, 11, 13]
        assert list(record_values(records)) == [b"x", b"keyless", None]
        assert select_records(records, [True, False, True]) == [RECORDS[0], RECORDS[2]]


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
    segment_bytes, batches, slots, strategy = params
    tuples, columns = build(segment_bytes, batches, strategy), build(segment_bytes, batches, strategy)
    for segment in columns.segments:
        segment.batches = [replace(b, records=PackedRecords.from_rows(b.records)) for b in segment.batches]
    result_tuples, result_columns = pass_over(tuples, slots), pass_over(columns, slots)
    assert state(columns) == state(tuples)
    assert result_columns.stats == result_tuples.stats
    assert [[b.size_bytes for b in s.batches] for s in columns.segments] == [[b.size_bytes for b in s.batches] for s in tuples.segments]
