"""Sizes estimated in Spark (``load_parquet`` without sizes, as ``load_kafka`` and ``load_jsonl`` do) are the v2 sizes
of the core (``DefaultRecord.sizeInBytes``, deltas 0) at every varint boundary of a length: 64, 8,192 and 1,048,576
bytes (a zig-zag varint of ``2 * length`` gains a byte at 2**7, 2**14, 2**21), and of the record's own length."""

from __future__ import annotations

import datetime

from kcompact_nb.core import record_size_bytes
from kcompact_nb.spark import load_parquet

LENGTHS = (None, 0, 1, 58, 59, 63, 64, 8_184, 8_185, 8_191, 8_192, 1_048_575, 1_048_576)
"""Value lengths at a boundary of their own varint, and (58-59, 8,184-8,185 without a key) of the record's length."""
SCHEMA = (
    "key binary, value binary, topic string, partition int, offset long, timestamp timestamp, timestampType int, "
    "headers array<struct<key:string,value:binary>>"
)
STAMP = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def _bytes(length: int | None) -> bytes | None:
    return None if length is None else b"x" * length


def test_estimated_sizes_are_the_cores_at_every_varint_boundary(spark, tmp_path) -> None:
    cases = [(key, value, ()) for key in (None, 3, 64) for value in LENGTHS]
    cases += [(3, 5, (("h", _bytes(value)),)) for value in LENGTHS]  # header values: their own varints
    cases += [(3, 5, (("h" * 63, b""), ("", None)))]  # a 63-character header key, an empty one, a null value
    rows = [
        (_bytes(key), _bytes(value), "t", 0, offset, STAMP, 0, [(k, v) for k, v in headers] or None)
        for offset, (key, value, headers) in enumerate(cases)
    ]
    spark.createDataFrame(rows, SCHEMA).write.parquet(str(tmp_path / "t.parquet"))
    estimated = load_parquet(spark, tmp_path / "t.parquet").orderBy("offset").select("record_size_bytes").collect()
    expected = [record_size_bytes(0, 0, _bytes(key), _bytes(value), headers) for key, value, headers in cases]
    assert [row[0] for row in estimated] == expected
