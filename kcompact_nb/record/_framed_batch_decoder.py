"""Framed v2 batches (whole, CRC-checked: a segment file's framing gives them) decoded into core batches.

A block of batches at a time, records are decompressed and decoded into columns (:class:`BlockBatches`); batch by
batch, those it leaves are parsed (:mod:`kcompact_nb.record._record_parser`), and anything that parser does not
read cleanly is decoded by kafka-python's ``DefaultRecordBatch``, which decides what it holds or why it is corrupt.
Keys are numbered in a :class:`KeyRegistry`. A batch's header (its offsets checked against the segment it was framed
in) comes from the framing's ``check_header``.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from kcompact_nb.record import _batch_header as L
from kcompact_nb.record._block_batches import PACKED_MIN_RECORDS, BlockBatches, FramedBlock, record_batch
from kcompact_nb.record._decompression import decompress_records
from kcompact_nb.record._errors import CorruptBatchError, MissingCodecError, OffsetOrderError
from kcompact_nb.record._kernels import key_numbering
from kcompact_nb.record._key_numbering import KeyNumbering, NativeKeyNumbering, release_key_table
from kcompact_nb.record._key_registry import KeyRegistry
from kcompact_nb.record._packed_records import PackedRecords, record_offsets
from kcompact_nb.record._record import Record, record_from_tuple
from kcompact_nb.record._record_batch import RecordBatch
from kcompact_nb.record._record_parser import NotPlain, RecordColumns, parse_records

HeaderCheck = Callable[[bytes, int, int], tuple[Any, ...]]
"""``check_header(data, position, next_offset)``: a framed batch's 13 header fields (:data:`L.HEADER` order) once its
offsets and records count are valid where it lies, or the framing's error."""


class FramedBatchDecoder:
    """Decode framed batches of the file ``path`` into core :class:`RecordBatch` values.

    Parameters
    ----------
    path:
        The file the batches were framed in (named by errors).
    check_header:
        The framing's header check (:data:`HeaderCheck`).
    keep_raw:
        Keep each batch's bytes in ``RecordBatch.raw`` so it can be written back identically.
    key_registry:
        Numbers and interns the records' keys (see :class:`KeyRegistry`); share one across a partition's segments.
        A new one by default.
    registry_keys:
        Start a new key registry (and forget the old one's keys) once the current one holds this many keys, between
        blocks: memory for keys stays bounded whatever the file holds. Each batch keeps the registry that numbered it.
    number_keys:
        Number the keys of the batches decoded a block at a time in ``key_registry`` (False: leave them in the
        batches' bytes, :meth:`PackedRecords.from_span_keys`; other batches still number theirs).
    """

    def __init__(
        self,
        path: Path,
        check_header: HeaderCheck,
        *,
        keep_raw: bool = True,
        key_registry: KeyRegistry | None = None,
        registry_keys: int | None = None,
        number_keys: bool = True,
    ) -> None:
        self.path = path
        self.check_header = check_header
        self.keep_raw = keep_raw
        self.key_registry = KeyRegistry() if key_registry is None else key_registry
        self.registry_keys = registry_keys
        self.number_keys = number_keys
        self._keys: KeyNumbering | NativeKeyNumbering | None = None

    def block(self, block: FramedBlock) -> BlockBatches:
        """The batches of a framed block, its plain ones decoded together (their keys numbered in the registry)."""
        self.bound_registry()
        if self._keys is None or self._keys.registry is not self.key_registry:
            self._keys = key_numbering(self.key_registry)
        return BlockBatches(block, self, self._keys)

    def bound_registry(self) -> None:
        """Start a new key registry when the current one holds ``registry_keys`` keys (its C table released now)."""
        if self.registry_keys is not None and len(self.key_registry) >= self.registry_keys:
            release_key_table(self.key_registry)
            self.key_registry = KeyRegistry()

    def decode_batch(self, data: bytes, position: int, next_offset: int) -> RecordBatch:
        """One framed batch's bytes (at byte ``position`` of the file) as a core :class:`RecordBatch`, records
        checked; ``next_offset`` is the lowest offset it may start at."""
        # The hot path: one header unpack, cheap checks inline, the detailed ones only on failure.
        header = self.check_header(data, position, next_offset)
        base_offset, attributes, last_delta, count = header[0], header[5], header[6], header[12]
        last_offset = base_offset + last_delta
        codec = "none" if attributes & L.CODEC_MASK == 0 else self._codec(attributes, position)
        records = self._records(data, header, codec, position)
        if (
            len(records) != count
            or (count and not base_offset <= records[0].offset <= records[-1].offset <= last_offset)
            or count > 1
        ):
            self._check_records(records, count, (base_offset, last_offset), position)
        return record_batch(header, records, data, codec, self.keep_raw)

    def _codec(self, attributes: int, position: int) -> str:
        codec_id = attributes & L.CODEC_MASK
        if codec_id >= len(L.COMPRESSION_CODECS):
            self._fail(CorruptBatchError, position, f"unknown compression codec id {codec_id}")
        codec = L.COMPRESSION_CODECS[codec_id]
        if codec != "none" and not _codec_installed(codec):
            raise MissingCodecError(self.path, position, codec, L.CODEC_PACKAGES[codec])
        return codec

    def _records(self, data: bytes, header: tuple[Any, ...], codec: str, position: int) -> Sequence[Record]:
        base_offset, attributes, last_delta, base_ts, count = header[0], header[5], header[6], header[7], header[12]
        if count == 0:  # DefaultRecordBatch.iterator: no records, whatever follows the header is never read
            return ()
        if codec != "none":
            data = self._uncompressed(data, codec, position)
        columns = RecordColumns()
        try:
            parse_records(data, base_offset, base_ts, last_delta, count, columns)
        except NotPlain:
            return self._records_by_kafka_python(data, attributes, codec, position)
        if count == 1:  # the common small case, without the iterators below
            key = self.key_registry.intern(columns.keys[0])
            return (
                record_from_tuple(
                    (columns.offsets[0], columns.timestamps[0], key, columns.values[0], columns.headers[0])
                ),
            )
        if count < PACKED_MIN_RECORDS:
            keys = map(self.key_registry.intern, columns.keys)
            fields = zip(columns.offsets, columns.timestamps, keys, columns.values, columns.headers, strict=False)
            return tuple(map(record_from_tuple, fields))
        headers = tuple(columns.headers) if any(columns.headers) else None
        offsets, stamps = array("q", columns.offsets), array("q", columns.timestamps)
        return PackedRecords(offsets, stamps, tuple(columns.keys), tuple(columns.values), headers, self.key_registry)

    def _uncompressed(self, data: bytes, codec: str, position: int) -> bytes:
        """The batch as if written uncompressed: its header (codec bits cleared), then the decompressed records."""
        try:
            records = decompress_records(codec, data[L.RECORD_BATCH_OVERHEAD :])
        except Exception as error:  # noqa: BLE001 - any failure of a codec on these bytes is corruption
            self._fail(
                CorruptBatchError, position, f"cannot decode the {codec} records: {type(error).__name__}: {error}"
            )
        patched = bytearray(data[: L.RECORD_BATCH_OVERHEAD])
        patched[L.ATTRIBUTES_POSITION + 1] &= ~L.CODEC_MASK
        return bytes(patched) + records

    def _records_by_kafka_python(self, data: bytes, attributes: int, codec: str, position: int) -> Sequence[Record]:
        """Records the column parser does not read cleanly.

        kafka-python decides what they are, or that they are corrupt.
        """
        if attributes & L.LOG_APPEND_TIME_BIT:
            # kafka-python reports maxTimestamp for every record of a LogAppendTime batch; clearing
            # the bit in a copy (after the CRC check) yields the timestamps as stored.
            patched = bytearray(data)
            patched[L.ATTRIBUTES_POSITION + 1] &= ~L.LOG_APPEND_TIME_BIT
            data = bytes(patched)
        from kafka.record.default_records import DefaultRecordBatch  # kafka-python loads in tenths of a second

        try:
            rows = [
                (r.offset, r.timestamp, r.key, r.value, tuple(r.headers) if r.headers else ())
                for r in DefaultRecordBatch(data)
            ]
        except Exception as error:  # noqa: BLE001 - any failure of the third-party decoder on these bytes is corruption
            self._fail(
                CorruptBatchError, position, f"cannot decode the {codec} records: {type(error).__name__}: {error}"
            )
        if len(rows) >= PACKED_MIN_RECORDS:
            return PackedRecords.from_rows(rows, self.key_registry)
        intern = self.key_registry.intern
        return tuple(
            record_from_tuple((offset, stamp, intern(key), value, headers))
            for offset, stamp, key, value, headers in rows
        )

    def _check_records(self, records: Sequence[Record], count: int, span: tuple[int, int], position: int) -> None:
        base, last = span
        if len(records) != count:
            self._fail(CorruptBatchError, position, f"records count {count} but {len(records)} records decoded")
        previous = base - 1
        for offset in record_offsets(records):
            if not previous < offset <= last:
                reason = f"record offset {offset} is outside the batch range [{base}, {last}] or out of order"
                self._fail(OffsetOrderError, position, reason)
            previous = offset

    def _fail(self, kind: type[CorruptBatchError], position: int, reason: str) -> NoReturn:
        raise kind(self.path, position, reason)


def _codec_installed(codec: str) -> bool:
    """Whether kafka-python's decoder of ``codec`` can run here (imported only once a compressed batch is read)."""
    import kafka.codec as kafka_codec

    has_codec: Callable[[], bool] = getattr(kafka_codec, f"has_{codec}")
    return has_codec()
