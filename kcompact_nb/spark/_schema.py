"""The one record schema every Spark loader produces, and schema checks that name what is missing.

Columns are Spark's Kafka source columns (``KafkaRecordToRowConverter`` with ``includeHeaders=true``)
followed by batch and segment columns that only some sources have (null where a source lacks them):

=================== ========= ============================================================
column              type      meaning
=================== ========= ============================================================
key, value          binary    raw bytes; ``value`` null for a tombstone (and for markers' keys, see below)
topic, partition    str, int  the topic partition
offset              long      the record's offset
timestamp           timestamp what a consumer reads (the batch's max timestamp for LogAppendTime)
timestampType       int       0 CreateTime, 1 LogAppendTime
headers             array     ``struct<key: string, value: binary>``, null when a record has none
segment_base_offset long      base offset of the segment file holding the record
batch_base_offset   long      ``baseOffset`` of the record's batch
batch_last_offset   long      ``baseOffset + lastOffsetDelta``
producer_id         long      ``producerId`` (-1 without one)
producer_epoch      int       ``producerEpoch``
is_transactional    boolean   attribute bit 4
is_control          boolean   attribute bit 5 (transaction markers; never seen through the Kafka source)
delete_horizon_ms   long      ``deleteHorizonMs`` when attribute bit 6 is set
record_size_bytes   int       the record's v2 size (``DefaultRecord.sizeInBytes``), batch overhead excluded
=================== ========= ============================================================
"""

from __future__ import annotations

from collections.abc import Iterable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DataType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from kcompact_nb.core import KcompactError

HEADER_TYPE = ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())]))

KAFKA_SOURCE_FIELDS: tuple[StructField, ...] = (
    StructField("key", BinaryType()),
    StructField("value", BinaryType()),
    StructField("topic", StringType()),
    StructField("partition", IntegerType()),
    StructField("offset", LongType()),
    StructField("timestamp", TimestampType()),
    StructField("timestampType", IntegerType()),
    StructField("headers", HEADER_TYPE),
)
BATCH_FIELDS: tuple[StructField, ...] = (
    StructField("segment_base_offset", LongType()),
    StructField("batch_base_offset", LongType()),
    StructField("batch_last_offset", LongType()),
    StructField("producer_id", LongType()),
    StructField("producer_epoch", IntegerType()),
    StructField("is_transactional", BooleanType()),
    StructField("is_control", BooleanType()),
    StructField("delete_horizon_ms", LongType()),
    StructField("record_size_bytes", IntegerType()),
)
KAFKA_SOURCE_COLUMNS: tuple[str, ...] = tuple(f.name for f in KAFKA_SOURCE_FIELDS)
BATCH_COLUMNS: tuple[str, ...] = tuple(f.name for f in BATCH_FIELDS)
RECORD_COLUMNS: tuple[str, ...] = KAFKA_SOURCE_COLUMNS + BATCH_COLUMNS
RECORD_SCHEMA = StructType(list(KAFKA_SOURCE_FIELDS + BATCH_FIELDS))
PARTITION_COLUMNS = ("topic", "partition")

ESTIMATE_METADATA_KEY = "kcompact.estimate"
"""Column metadata key marking a column whose values are estimates; its value says how they were made."""


class SchemaMismatchError(KcompactError, ValueError):
    """A DataFrame lacks columns an operation needs; the message lists missing and present columns."""

    def __init__(self, what: str, missing: Iterable[str], present: Iterable[str]) -> None:
        self.missing = tuple(missing)
        self.present = tuple(present)
        message = f"{what} needs the column(s) {list(self.missing)}; the DataFrame has {list(self.present)}"
        super().__init__(message)


def require_columns(df: DataFrame, columns: Iterable[str], *, what: str = "this operation") -> DataFrame:
    """``df`` unchanged when it has every column of ``columns``, else :class:`SchemaMismatchError`."""
    present = df.columns
    missing = [c for c in columns if c not in present]
    if missing:
        raise SchemaMismatchError(what, missing, present)
    return df


def validate_records(df: DataFrame) -> DataFrame:
    """Check the Kafka source columns and conform ``df`` to :data:`RECORD_SCHEMA`.

    Batch columns the source lacks become typed nulls; present ones are cast to their types;
    other columns are dropped. Column metadata (estimate labels) is kept.
    """
    require_columns(df, KAFKA_SOURCE_COLUMNS, what="a kcompact_nb record DataFrame")
    return df.select(*(_conformed(df, f) for f in RECORD_SCHEMA.fields))


def _conformed(df: DataFrame, field: StructField) -> Column:
    if field.name not in df.columns:
        return F.lit(None).cast(field.dataType).alias(field.name)
    current: DataType = df.schema[field.name].dataType
    column = df[field.name] if current == field.dataType else df[field.name].cast(field.dataType)
    return column.alias(field.name, metadata=df.schema[field.name].metadata)


def estimate_note(df: DataFrame, column: str) -> str | None:
    """How ``column``'s values were estimated, ``None`` when they are exact (or unknown)."""
    note = df.schema[column].metadata.get(ESTIMATE_METADATA_KEY)
    return None if note is None else str(note)
