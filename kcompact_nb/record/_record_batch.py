"""v2 record batches as Kafka stores them (``DefaultRecordBatch``, spec 2.4-2.6)."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from kcompact_nb.record._errors import KafkaModelError
from kcompact_nb.record._packed_records import PackedRecords
from kcompact_nb.record._record import Record
from kcompact_nb.record._record_sizes import RECORD_BATCH_OVERHEAD, record_size_bytes

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
NO_TIMESTAMP = -1
COMPRESSION_CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
"""Codec names by id, 0-4 (``CompressionType``; a batch's attribute bits 0-2); ids 5-7 are invalid."""


class TimestampType(enum.StrEnum):
    """``message.timestamp.type``: who sets the timestamps of a batch."""

    CREATE_TIME = "CreateTime"
    LOG_APPEND_TIME = "LogAppendTime"


def uncompressed_batch_size(base_offset: int, base_timestamp: int, records: Sequence[Record]) -> int:
    """Bytes of an uncompressed v2 batch: 61 + the sizes of its records (spec 2.4)."""
    if isinstance(records, PackedRecords):
        return records.batch_size(base_offset, base_timestamp)
    total = RECORD_BATCH_OVERHEAD
    for r in records:
        total += record_size_bytes(r.offset - base_offset, r.timestamp - base_timestamp, r.key, r.value, r.headers)
    return total


@dataclass(frozen=True, slots=True)
class RecordBatch:
    """A magic-v2 record batch (``DefaultRecordBatch``).

    ``last_offset`` is ``base_offset + lastOffsetDelta``; it survives cleaning even when the
    trailing records are removed, so ``records`` may hold fewer offsets than the range.
    ``delete_horizon_ms`` is set when attribute bit 6 is set; ``base_timestamp`` then holds it.
    ``raw`` keeps the bytes read from disk (or a codec's output) so the batch is written back identically.
    ``records`` is a tuple, or :class:`PackedRecords` for batches read from disk.
    ``compression`` is the codec of the records section (``none``, ``gzip``, ``snappy``, ``lz4``,
    ``zstd``); ``size_estimated`` is True when ``size_bytes`` came from an encoder that could not
    promise Kafka's bytes (see :mod:`kcompact_nb.record._encoders`).
    """

    base_offset: int
    last_offset: int
    records: Sequence[Record]
    size_bytes: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH
    base_sequence: int = NO_SEQUENCE
    is_transactional: bool = False
    is_control: bool = False
    timestamp_type: TimestampType = TimestampType.CREATE_TIME
    compression: str = "none"
    delete_horizon_ms: int | None = None
    partition_leader_epoch: int = 0
    raw: bytes | None = field(default=None, compare=False, repr=False)
    size_estimated: bool = False

    @classmethod
    def build(
        cls,
        records: Sequence[Record],
        *,
        last_offset: int | None = None,
        base_offset: int | None = None,
        delete_horizon_ms: int | None = None,
        log_append_time_ms: int | None = None,
        checked: bool = False,
        **fields: object,
    ) -> RecordBatch:
        """An uncompressed batch with its timestamps and exact size derived from ``records``.

        ``base_offset`` defaults to the first record's offset and ``last_offset`` to the last
        record's. With ``log_append_time_ms`` the batch is ``LogAppendTime`` and its max
        timestamp is the broker's append time (records keep their stored timestamps).
        ``checked=True`` skips the offset checks for records taken from a valid batch.
        """
        if not isinstance(records, PackedRecords):
            records = tuple(records)
        if base_offset is None:
            if not records:
                raise KafkaModelError("an empty batch needs an explicit base_offset")
            base_offset = records[0].offset
        if last_offset is None:
            last_offset = records[-1].offset if records else base_offset
        if not checked:
            _check_offsets(base_offset, last_offset, records)
        if not records:
            base_ts, max_ts = NO_TIMESTAMP, fields.pop("max_timestamp", NO_TIMESTAMP)
        else:
            timestamps = records.timestamps if isinstance(records, PackedRecords) else [r.timestamp for r in records]
            base_ts = timestamps[0] if delete_horizon_ms is None else delete_horizon_ms
            max_ts = max(timestamps)
        if log_append_time_ms is not None:
            fields["timestamp_type"] = TimestampType.LOG_APPEND_TIME
            max_ts = log_append_time_ms
        size = uncompressed_batch_size(base_offset, base_ts, records)
        return cls(
            base_offset=base_offset,
            last_offset=last_offset,
            records=records,
            size_bytes=size,
            base_timestamp=base_ts,
            max_timestamp=max_ts,  # type: ignore[arg-type]
            delete_horizon_ms=delete_horizon_ms,
            **fields,  # type: ignore[arg-type]
        )

    @property
    def next_offset(self) -> int:
        return self.last_offset + 1

    @property
    def has_producer_id(self) -> bool:
        return self.producer_id != NO_PRODUCER_ID

    def read_timestamp(self, record: Record) -> int:
        """The timestamp a consumer reads for ``record`` (the batch's for ``LogAppendTime``)."""
        if self.timestamp_type is TimestampType.LOG_APPEND_TIME:
            return self.max_timestamp
        return record.timestamp

    def without_raw(self) -> RecordBatch:
        return replace(self, raw=None)

    def stored_as(self, size_bytes: int, raw: bytes | None, *, estimated: bool) -> RecordBatch:
        """The batch stored in ``size_bytes``, ``raw`` its bytes when known (``estimated``: they may not be Kafka's).
        Built positionally, in the fields' order: ``dataclasses.replace`` costs a rebuilt batch about 20 us."""
        return RecordBatch(
            self.base_offset, self.last_offset, self.records, size_bytes, self.base_timestamp, self.max_timestamp,
            self.producer_id, self.producer_epoch, self.base_sequence, self.is_transactional, self.is_control,
            self.timestamp_type, self.compression, self.delete_horizon_ms, self.partition_leader_epoch, raw, estimated,
        )  # fmt: skip


def _check_offsets(base_offset: int, last_offset: int, records: Sequence[Record]) -> None:
    previous = base_offset - 1
    for r in records:
        if r.offset <= previous:
            raise KafkaModelError(f"record offsets must increase within a batch: {r.offset} after {previous}")
        previous = r.offset
    if previous > last_offset or last_offset < base_offset:
        raise KafkaModelError(f"batch last_offset {last_offset} is below its records or base offset {base_offset}")
    if last_offset - base_offset > 0x7FFFFFFF:
        raise KafkaModelError(f"batch offset range [{base_offset}, {last_offset}] exceeds lastOffsetDelta's 32 bits")
