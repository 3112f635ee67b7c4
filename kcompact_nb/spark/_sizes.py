"""The v2 record size (``DefaultRecord.sizeInBytes``, spec 2.4) as a Spark expression, no Python UDF."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

SIZE_ESTIMATE_NOTE = (
    "v2 size formula with offset and timestamp deltas taken as 0 (one varint byte each); "
    "the real deltas depend on the record's batch, which this source does not expose"
)


def varint_len(value: Column) -> Column:
    """Bytes of a zig-zag varint holding ``value`` (``ByteUtils.sizeOfVarint``), for ``-1 <= value < 2**31``."""
    zigzag = F.when(value < 0, F.lit(1)).otherwise(value * 2)
    return (
        F.when(zigzag < 1 << 7, 1)
        .when(zigzag < 1 << 14, 2)
        .when(zigzag < 1 << 21, 3)
        .when(zigzag < 1 << 28, 4)
        .otherwise(5)
    )


def _field_len(length: Column) -> Column:
    """A length-prefixed field: the varint of its length (-1 for null) plus its bytes."""
    size = F.coalesce(length, F.lit(-1))
    return varint_len(size) + F.greatest(size, F.lit(0))


HEADERS_TYPE = "array<struct<key:string,value:binary>>"


def estimated_record_size(key: Column, value: Column, headers: Column) -> Column:
    """``DefaultRecord.sizeInBytes`` with offset and timestamp deltas of 0: exact for a batch's first record.

    Later records of a batch are larger by the extra varint bytes of their deltas (at most 4 + 9).
    """
    listed = F.coalesce(headers, F.array().cast(HEADERS_TYPE))
    header_bytes = F.aggregate(
        listed,
        F.lit(0),
        lambda acc, h: acc + _field_len(F.length(F.encode(h["key"], "UTF-8"))) + _field_len(F.length(h["value"])),
    )
    attributes_and_deltas = 3
    body = (
        attributes_and_deltas
        + _field_len(F.length(key))
        + _field_len(F.length(value))
        + varint_len(F.size(listed))
        + header_bytes
    )
    return (varint_len(body) + body).cast("int")
