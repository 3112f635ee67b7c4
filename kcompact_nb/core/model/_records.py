"""Records and v2 record batches as Kafka stores them (spec 2.4-2.6)."""

from __future__ import annotations

import enum
import struct
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import repeat
from operator import is_, itemgetter, sub
from typing import Any, NamedTuple, cast, overload

import numpy

from kcompact_nb.core.model._errors import KafkaModelError
from kcompact_nb.core.model._record_sizes import (
    RECORD_BATCH_OVERHEAD,
    Header,
    headers_len,
    record_size_bytes,
    record_size_of_lengths,
)

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


class ControlRecordType(enum.IntEnum):
    """Type field of a control record key (``ControlRecordType``)."""

    ABORT = 0
    COMMIT = 1


class Record(NamedTuple):
    """One record as stored: absolute offset and timestamp, raw key, value and headers.

    ``timestamp`` is the stored (producer) timestamp; in a ``LogAppendTime`` batch consumers
    read the batch's ``max_timestamp`` instead (see :meth:`RecordBatch.read_timestamp`).
    A tombstone has a key and ``value is None``; an empty value is not a tombstone.
    """

    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: tuple[Header, ...] = ()

    @property
    def is_tombstone(self) -> bool:
        return self.key is not None and self.value is None


record_from_tuple = partial(tuple.__new__, Record)
"""A :class:`Record` from a tuple of its five fields, faster than ``Record._make`` (no length check)."""
_OFFSET, _KEY, _VALUE = itemgetter(0), itemgetter(2), itemgetter(3)


class KeyRegistry:
    """The distinct keys of one log, numbered 0, 1, ... in order of first appearance.

    Readers intern keys through it (one bytes object per key: less memory, identity-fast dict lookups),
    and packed batches carry the numbers, so the cleaner's offset strategy can index a dense array
    instead of a dict whose random accesses miss the CPU caches once a log has many keys.
    """

    __slots__ = ("keys", "_ids", "__weakref__")

    def __init__(self) -> None:
        self.keys: list[bytes | None] = []
        self._ids = _Numbering(self.keys)

    def __len__(self) -> int:
        return len(self.keys)

    def ids(self, keys: Iterable[bytes | None]) -> array[int]:
        """The id of each key, numbering new keys."""
        return array("q", map(self._ids.__getitem__, keys))

    def ids_of_distinct(self, keys: Sequence[bytes | None]) -> array[int]:
        """The id of each of ``keys`` (no two equal), numbering the new ones in order in one dict update."""
        ids = self.known_ids(keys)
        unknown = ids.count(-1)
        if not unknown:
            return ids
        new = list(keys) if unknown == len(ids) else [key for key, number in zip(keys, ids, strict=True) if number < 0]
        first = len(self.keys)
        self._ids.update(zip(new, range(first, first + len(new)), strict=True))
        self.keys.extend(new)
        if unknown == len(ids):
            return array("q", range(first, first + len(new)))
        numbers = iter(range(first, first + len(new)))
        return array("q", [number if number >= 0 else next(numbers) for number in ids])

    def register_new(self, keys: Sequence[bytes | None]) -> range:
        """Number ``keys``, none of them registered and no two equal (the caller knows it), without looking them up.

        Returns their ids. Raises :class:`KafkaModelError` (the registry is then unusable) if the caller was wrong.
        """
        first = len(self.keys)
        self._ids.update(zip(keys, range(first, first + len(keys)), strict=True))
        self.keys.extend(keys)
        if len(self._ids) != len(self.keys):
            raise KafkaModelError("register_new was given a key already registered (or twice)")
        return range(first, len(self.keys))

    def known_ids(self, keys: Iterable[bytes | None]) -> array[int]:
        """The id of each key, -1 for keys never registered (nothing is numbered)."""
        return array("q", map(self._ids.get, keys, repeat(-1)))

    def intern(self, key: bytes | None) -> bytes | None:
        """The registered object equal to ``key``, registering it when new."""
        return self.keys[self._ids[key]]

    def interned(self, ids: Iterable[int]) -> tuple[bytes | None, ...]:
        """The registered key object of each id."""
        return tuple(map(self.keys.__getitem__, ids))


class _Numbering(dict[bytes | None, int]):
    """Key -> id; a missing key gets the next id and is appended to ``order``."""

    __slots__ = ("order",)

    def __init__(self, order: list[bytes | None]) -> None:
        super().__init__()
        self.order = order

    def __missing__(self, key: bytes | None) -> int:
        number = self[key] = len(self.order)
        self.order.append(key)
        return number


class PackedRecords(Sequence[Record]):
    """A batch's records held by column; each :class:`Record` is built when it is read.

    What the io reader stores for decoded batches: a ``Record`` tuple and an offset ``int`` per record
    cost about 110 bytes, which a 5M-record log cannot spare. Offsets and timestamps are int64 arrays,
    keys and values tuples of bytes, ``headers`` None when no record has any; ``key_ids`` number the
    keys in ``registry`` (the reader's, shared by a partition, or a new one), and ``all_keyed`` says no
    key is None. Compares equal to the tuple of the same records; slices are tuples.

    Records made by :meth:`from_spans` are decoded lazily, as Kafka's cleaner reads them: the offset map and
    retention read offsets and key ids only, and values stay spans into the batch's bytes until a record is
    read (a batch the pass rewrites), when only that record's value is sliced out. Records made by
    :meth:`from_span_keys` leave their keys in the batch's bytes too, unnumbered (``key_ids`` and ``registry``
    None): a pass streamed over segment files looks them up by their bytes (:meth:`key_spans`).
    """

    __slots__ = (
        "offsets", "timestamps", "headers", "key_ids", "registry", "all_keyed", "_keys", "_values", "_spans",
        "_key_spans",
    )  # fmt: skip
    key_ids: array[int] | None
    registry: KeyRegistry | None
    _keys: tuple[bytes | None, ...] | None
    _values: tuple[bytes | None, ...] | None
    _spans: _Spans | None
    _key_spans: _Spans | None

    def __init__(
        self,
        offsets: array[int],
        timestamps: array[int],
        keys: tuple[bytes | None, ...],
        values: tuple[bytes | None, ...],
        headers: tuple[tuple[Header, ...], ...] | None = None,
        registry: KeyRegistry | None = None,
    ) -> None:
        if not len(offsets) == len(timestamps) == len(keys) == len(values) == len(headers or offsets):
            raise KafkaModelError("packed record columns must have the same length")
        self.offsets, self.timestamps, self._values, self.headers = offsets, timestamps, values, headers
        self.registry = KeyRegistry() if registry is None else registry
        self.key_ids = self.registry.ids(keys)
        self._keys = self.registry.interned(self.key_ids)
        self._spans = self._key_spans = None
        self.all_keyed = None not in keys
        """No keyless record: known here, so hot loops need not touch every key object again."""

    @classmethod
    def from_spans(
        cls,
        offsets: array[int],
        timestamps: array[int],
        key_ids: array[int],
        registry: KeyRegistry,
        data: bytes,
        value_starts: array[int],
        value_lengths: array[int],
        all_keyed: bool,
    ) -> PackedRecords:
        """Records without headers whose keys are ``registry``'s ``key_ids`` and whose values are the byte spans
        ``data[start:start + length]`` (length -1: a null value), sliced out when first read; ``all_keyed``: no
        key id is None's."""
        if not len(offsets) == len(timestamps) == len(key_ids) == len(value_starts) == len(value_lengths):
            raise KafkaModelError("packed record columns must have the same length")
        records = cls.__new__(cls)
        records.offsets, records.timestamps, records.key_ids, records.registry = offsets, timestamps, key_ids, registry
        records.headers, records._keys, records._values, records._key_spans = None, None, None, None
        records._spans = _Spans(data, value_starts, value_lengths)
        records.all_keyed = all_keyed
        return records

    @classmethod
    def from_span_keys(
        cls,
        offsets: array[int],
        timestamps: array[int],
        data: bytes,
        key_spans: tuple[array[int], array[int]],
        value_spans: tuple[array[int], array[int]],
        all_keyed: bool,
    ) -> PackedRecords:
        """Records without headers whose keys and values are byte spans of ``data`` (``(starts, lengths)``, a
        length of -1: null), sliced out when first read; the keys are not numbered. ``all_keyed``: no key is null.
        """
        if not len(offsets) == len(timestamps) == len(key_spans[0]) == len(value_spans[0]):
            raise KafkaModelError("packed record columns must have the same length")
        records = cls.__new__(cls)
        records.offsets, records.timestamps, records.key_ids, records.registry = offsets, timestamps, None, None
        records.headers, records._keys, records._values = None, None, None
        records._key_spans, records._spans = _Spans(data, *key_spans), _Spans(data, *value_spans)
        records.all_keyed = all_keyed
        return records

    def key_spans(self) -> tuple[bytes, array[int], array[int]] | None:
        """The batch's bytes and each key's start and length there (-1: null) for records made by
        :meth:`from_span_keys` whose keys were not read yet; None otherwise."""
        spans = self._key_spans
        return None if spans is None or self._keys is not None else (spans.data, spans.starts, spans.lengths)

    @property
    def values_in_batch_bytes(self) -> bool:
        """Values not yet sliced out of the batch's bytes (records made by :meth:`from_spans`, not yet all read)."""
        return self._values is None

    @property
    def keys(self) -> tuple[bytes | None, ...]:
        """Each record's key (the registry's object for it, or sliced out of the batch's bytes)."""
        if self._keys is None:
            if self.registry is not None and self.key_ids is not None:
                self._keys = self.registry.interned(self.key_ids)
            else:
                self._keys = cast("_Spans", self._key_spans).take(range(len(self.offsets)))
        return self._keys

    @property
    def values(self) -> tuple[bytes | None, ...]:
        """Each record's value, None for a tombstone (all sliced out on first read of records made from spans)."""
        if self._values is None:
            spans = cast("_Spans", self._spans)
            self._values = spans.take(range(len(self.offsets)))
        return self._values

    def null_values(self) -> Any:
        """A numpy bool array: which records have a null value (tombstones, when keyed)."""
        if self._spans is not None and self._values is None:
            return numpy.frombuffer(self._spans.lengths, numpy.int64) < 0
        return numpy.fromiter(map(is_, self.values, repeat(None)), bool, len(self.offsets))

    @classmethod
    def from_rows(
        cls,
        rows: Sequence[tuple[int, int, bytes | None, bytes | None, tuple[Header, ...]]],
        registry: KeyRegistry | None = None,
    ) -> PackedRecords:
        """Columns of ``(offset, timestamp, key, value, headers)`` rows."""
        if not rows:
            return cls(array("q"), array("q"), (), (), None, registry)
        offsets, stamps, keys, values, headers = zip(*rows, strict=False)
        return cls(array("q", offsets), array("q", stamps), keys, values, headers if any(headers) else None, registry)

    def retained_at_entries(self, entries: Any, keep_deletes: bool) -> PackedRecords:
        """The records whose offset is not below their key's map entry (``entries``, a numpy array, one per record),
        as packed records.

        Tombstones only with ``keep_deletes``. The offset strategy's retention for a batch wholly covered by
        the offset map (spec 7.4). ``self`` when every record stays; no :class:`Record` is built either way.
        """
        keep = entries <= numpy.frombuffer(self.offsets, numpy.int64)
        if not keep_deletes:
            keep &= ~self.null_values()
        kept: list[int] = numpy.flatnonzero(keep).tolist()
        return self if len(kept) == len(self.offsets) else self.subset(kept)

    def subset(self, indexes: Sequence[int]) -> PackedRecords:
        """The records at ``indexes`` (ascending), still packed (no :class:`Record` built); values still in the
        batch's bytes are sliced out, so a rebuilt batch keeps only its own records' bytes alive."""
        if len(indexes) > 1:
            take: Callable[[Sequence[Any]], Sequence[Any]] = itemgetter(*indexes)  # a tuple per column, in C
        elif indexes:
            index = indexes[0]
            take = lambda column: (column[index],)  # noqa: E731 - itemgetter of one index gives no tuple
        else:
            take = lambda column: ()  # noqa: E731
        records = PackedRecords.__new__(PackedRecords)
        records.offsets, records.timestamps = array("q", take(self.offsets)), array("q", take(self.timestamps))
        records.key_ids = None if self.key_ids is None else array("q", take(self.key_ids))
        records.registry = self.registry
        records.headers = None if self.headers is None else tuple(take(self.headers))
        # keys and values sliced out of the batch's bytes: the subset holds what it keeps, not the batch
        if self._keys is not None:
            records._keys = tuple(take(self._keys))
        else:
            records._keys = None if self._key_spans is None else self._key_spans.take(indexes)
        if self._values is None:
            records._values = cast("_Spans", self._spans).take(indexes)
        else:
            records._values = tuple(take(self._values))
        records._spans = records._key_spans = None
        records.all_keyed = self.all_keyed or None not in records.keys
        return records

    def has_null_value(self) -> bool:
        """Whether some record's value is null (a tombstone, when keyed)."""
        if self._values is None:
            return bool(self._spans is not None and len(self._spans.lengths) and min(self._spans.lengths) < 0)
        return None in self._values

    def batch_size(self, base_offset: int, base_timestamp: int) -> int:
        """:func:`uncompressed_batch_size` of these records, from their columns (values are not sliced out)."""
        if self._values is None:
            value_lengths: Iterable[int] = cast("_Spans", self._spans).lengths
        else:
            value_lengths = [-1 if v is None else len(v) for v in self._values]
        key_lengths: Iterable[int]
        if self._keys is None and self._key_spans is not None:
            key_lengths = self._key_spans.lengths
        elif self.all_keyed:
            key_lengths = map(len, cast("tuple[bytes, ...]", self.keys))
        else:
            key_lengths = [-1 if k is None else len(k) for k in self.keys]
        header_bytes = repeat(1) if self.headers is None else [headers_len(h) if h else 1 for h in self.headers]
        offset_deltas = map(sub, self.offsets, repeat(base_offset))
        timestamp_deltas = map(sub, self.timestamps, repeat(base_timestamp))
        sizes = map(record_size_of_lengths, offset_deltas, timestamp_deltas, key_lengths, value_lengths, header_bytes)
        return RECORD_BATCH_OVERHEAD + sum(sizes)

    def _rows(self) -> Iterator[tuple[Any, ...]]:
        headers = self.headers if self.headers is not None else repeat((), len(self.offsets))
        return zip(self.offsets, self.timestamps, self.keys, self.values, headers, strict=False)

    def __iter__(self) -> Iterator[Record]:
        return map(record_from_tuple, self._rows())

    def __len__(self) -> int:
        return len(self.offsets)

    @overload
    def __getitem__(self, index: int) -> Record: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Record, ...]: ...
    def __getitem__(self, index: int | slice) -> Record | tuple[Record, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        headers = () if self.headers is None else self.headers[index]
        if self._values is None:
            key = self._key_at(index)
            value = cast("_Spans", self._spans).take((index,))[0]
            return Record(self.offsets[index], self.timestamps[index], key, value, headers)
        return Record(self.offsets[index], self.timestamps[index], self.keys[index], self._values[index], headers)

    def _key_at(self, index: int) -> bytes | None:
        if self._keys is not None:
            return self._keys[index]
        if self.registry is not None and self.key_ids is not None:
            return self.registry.keys[self.key_ids[index]]
        return cast("_Spans", self._key_spans).take((index,))[0]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (PackedRecords, tuple)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"PackedRecords({tuple(self)!r})"


class _Spans:
    """Keys or values left in a batch's bytes: ``data[start:start + length]``, None where the length is negative."""

    __slots__ = ("data", "starts", "lengths")

    def __init__(self, data: bytes, starts: array[int], lengths: array[int]) -> None:
        self.data, self.starts, self.lengths = data, starts, lengths

    def take(self, indexes: Iterable[int]) -> tuple[bytes | None, ...]:
        """The values at ``indexes``, sliced out of the batch's bytes."""
        data, starts, lengths = self.data, self.starts, self.lengths
        if isinstance(indexes, range) and indexes == range(len(starts)):  # all of them: no indexing
            return tuple(None if n < 0 else data[start : start + n] for start, n in zip(starts, lengths, strict=True))
        return tuple(None if lengths[i] < 0 else data[starts[i] : starts[i] + lengths[i]] for i in indexes)


def record_keys(records: Sequence[Record]) -> Sequence[bytes | None]:
    """The records' keys, from the column when the records are packed."""
    return records.keys if isinstance(records, PackedRecords) else list(map(_KEY, records))


def record_offsets(records: Sequence[Record]) -> Sequence[int]:
    """The records' offsets, from the column when the records are packed."""
    return records.offsets if isinstance(records, PackedRecords) else list(map(_OFFSET, records))


def record_values(records: Sequence[Record]) -> Sequence[bytes | None]:
    """The records' values, from the column when the records are packed."""
    return records.values if isinstance(records, PackedRecords) else list(map(_VALUE, records))


def control_record_key(kind: ControlRecordType) -> bytes:
    """Key of a control record: int16 version 0, int16 type (``ControlRecordType``)."""
    return struct.pack(">hh", 0, int(kind))


def end_txn_marker_value(coordinator_epoch: int) -> bytes:
    """Value of a transaction marker: int16 version 0, int32 coordinator epoch (``EndTransactionMarker``)."""
    return struct.pack(">hi", 0, coordinator_epoch)


def control_record_type(record: Record) -> ControlRecordType | None:
    """The marker type of a control record, ``None`` for other control types."""
    if record.key is None or len(record.key) < 4:
        return None
    kind = struct.unpack(">h", record.key[2:4])[0]
    return ControlRecordType(kind) if kind in (0, 1) else None


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
    promise Kafka's bytes (see :mod:`kcompact_nb.core.model._compression`).
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
