"""The v2 record size (``DefaultRecord.sizeInBytes``, spec 2.4) as a Spark expression, no Python UDF.

Each expression names its input once: a ``Column`` used twice is copied whole into the plan, so a varint size
written as a chain of comparisons of its input nested the record's fields about 9 times over (a plan of some 40 KB
text that every query over the records planned again and, without code generation, evaluated copy by copy: issue
#39, notebook 07 spent about a third of its Spark time there).
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

SIZE_ESTIMATE_NOTE = (
    "v2 size formula with offset and timestamp deltas taken as 0 (one varint byte each); "
    "the real deltas depend on the record's batch, which this source does not expose"
)


def varint_len(value: Column) -> Column:
    """Bytes of a zig-zag varint holding ``value`` (``ByteUtils.sizeOfVarint``), for ``-1 <= value < 2**31``.

    Seven bits a byte: ``ceil(bits / 7)`` of the zig-zag value ``2 * value`` (1 for -1), whose bit count is that of
    ``|2 * value + 1|`` (one more odd bit never carries), counted as the length of its binary digits.
    """
    bits = F.length(F.bin(F.abs(value.cast("long") * 2 + 1)))
    return F.ceil(bits / 7).cast("int")


def _field_len(length: Column) -> Column:
    """A length-prefixed field: the varint of its length (-1 for null) plus its bytes."""
    return varint_len(F.coalesce(length, F.lit(-1))) + F.coalesce(length, F.lit(0))


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
