"""The Arrow column decoder of segment files agrees with the io reader (kafka-python) on rows and errors."""

from __future__ import annotations

import pyarrow as pa
import pytest
from kafka.record.util import calc_crc32c

from kcompact_nb.io import CorruptBatchError, SegmentFileReader
from kcompact_nb.spark._file_tasks import ARROW_SCHEMA, arrow_chunks
from kcompact_nb.spark._load_log_dir import batch_rows, decode_segment, segment_tasks
from tests.io.kafka_bytes import every_batch_kind, kafka_batch, rec, write_segments
from tests.spark.conftest import SAMPLES


def reference(task) -> pa.Table:
    reader = SegmentFileReader(task.path, base_offset=task.base_offset, end_offset=task.end_offset, keep_raw=False)
    rows = (row for batch in reader for row in batch_rows(task.topic, task.partition, task.base_offset, batch))
    return pa.Table.from_batches(list(arrow_chunks(rows)), schema=ARROW_SCHEMA)


def decoded(task) -> pa.Table:
    return pa.Table.from_batches(list(decode_segment(task)), schema=ARROW_SCHEMA)


@pytest.mark.parametrize("stage", sorted(p.parent for p in SAMPLES.glob("*/*/*-[0-9]*/")), ids=str)
def test_bundled_samples_decode_as_the_io_reader_does(stage):
    for task in segment_tasks(stage):
        assert decoded(task).equals(reference(task)), task.path


def test_every_batch_kind_decodes_as_the_io_reader_does(tmp_path):
    write_segments(tmp_path / "t-3", {0: every_batch_kind()})
    (task,) = segment_tasks(tmp_path)
    got = decoded(task)
    assert got.num_rows == 200 + 2 + 3 + 1 + 2 + 1
    assert got.equals(reference(task))


def test_a_corrupt_record_fails_with_the_io_readers_error(tmp_path):
    good = kafka_batch([rec(0, 1, b"k", b"value")], base_offset=0)
    bad = bytearray(kafka_batch([rec(0, 2, b"k", b"value")], base_offset=1))
    bad[61] += 2  # the record's length varint now claims one more byte than it has
    bad[17:21] = calc_crc32c(memoryview(bad)[21:]).to_bytes(4, "big")
    write_segments(tmp_path / "t-0", {0: [good, bytes(bad)]})
    (task,) = segment_tasks(tmp_path)
    with pytest.raises(CorruptBatchError) as expected:
        reference(task)
    with pytest.raises(CorruptBatchError) as got:
        decoded(task)
    assert str(got.value) == str(expected.value)
