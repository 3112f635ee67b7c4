"""A batch's records held by column (not Kafka's: how the io reader keeps millions of records small).

:class:`PackedRecords` reads as the tuple of its :class:`Record` objects and builds each one when it is read; its
columns (offsets, key ids of a :class:`KeyRegistry`, values left in the batch's bytes) are what the cleaner's
whole-batch paths read. :func:`record_keys`, :func:`record_offsets` and :func:`record_values` give a column of
any records, packed or not.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from itertools import repeat
from operator import is_, itemgetter
from typing import Any, cast, overload

import numpy

from kcompact_nb.record._errors import KafkaModelError
from kcompact_nb.record._key_registry import KeyRegistry
from kcompact_nb.record._record import Record, record_from_tuple
from kcompact_nb.record._record_sizes import (
    RECORD_BATCH_OVERHEAD,
    Header,
    column_record_sizes,
    headers_len,
    records_size,
)

_OFFSET, _KEY, _VALUE = itemgetter(0), itemgetter(2), itemgetter(3)


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
        data: bytes | Callable[[], bytes],
        value_starts: array[int],
        value_lengths: array[int],
        all_keyed: bool,
    ) -> PackedRecords:
        """Records without headers whose keys are ``registry``'s ``key_ids`` and whose values are the byte spans
        ``data[start:start + length]`` (length -1: a null value), sliced out when first read; ``all_keyed``: no
        key id is None's.

        ``data`` may be a function giving those bytes, called each time values are sliced out: a compressed
        batch's records then stay compressed until a pass reads them, as Kafka's cleaner decompresses a batch
        when it reads it (a loaded log holds no decompressed copy)."""
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
        if spans is None or self._keys is not None:
            return None
        return cast("bytes", spans.data), spans.starts, spans.lengths  # from_span_keys: never deferred

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

    def spans(self) -> tuple[bytes, array[int], array[int], array[int], array[int]] | None:
        """The batch's bytes and each key's and value's start and length there (-1: null), for records made by
        :meth:`from_span_keys` whose keys and values were not read yet; None otherwise."""
        keys, values = self.key_spans(), self._spans
        if keys is None or values is None or self._values is not None or values.data is not keys[0]:
            return None
        return (*keys, values.starts, values.lengths)

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
        spans = self._keys is None and self._key_spans is not None
        keys = cast("_Spans", self._key_spans).lengths if spans else self.keys
        values = cast("_Spans", self._spans).lengths if self._values is None else self._values
        columns = self.offsets, self.timestamps, keys, values
        if self.headers is None:
            return RECORD_BATCH_OVERHEAD + records_size(*columns, base_offset, base_timestamp)
        header_bytes = [headers_len(h) if h else 1 for h in self.headers]
        return RECORD_BATCH_OVERHEAD + sum(column_record_sizes(*columns, base_offset, base_timestamp, header_bytes))

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
        if self._values is None and not cast("_Spans", self._spans).deferred:
            key = self._key_at(index)
            value = cast("_Spans", self._spans).take((index,))[0]
            return Record(self.offsets[index], self.timestamps[index], key, value, headers)
        # values made all at once when their bytes are (deferred), not once per record read
        return Record(self.offsets[index], self.timestamps[index], self.keys[index], self.values[index], headers)

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
    """Keys or values left in a batch's bytes: ``data[start:start + length]``, None where the length is negative;
    ``data`` may be a function giving the bytes when they are read (:attr:`deferred`)."""

    __slots__ = ("data", "starts", "lengths")

    def __init__(self, data: bytes | Callable[[], bytes], starts: array[int], lengths: array[int]) -> None:
        self.data, self.starts, self.lengths = data, starts, lengths

    @property
    def deferred(self) -> bool:
        """Whether the bytes are made each time they are read (read them all at once, not one by one)."""
        return callable(self.data)

    def take(self, indexes: Sequence[int]) -> tuple[bytes | None, ...]:
        """The values at ``indexes``, sliced out of the batch's bytes."""
        data, starts, lengths = self.data, self.starts, self.lengths
        if callable(data):
            if not indexes:
                return ()  # bytes not made for nothing
            data = data()
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
