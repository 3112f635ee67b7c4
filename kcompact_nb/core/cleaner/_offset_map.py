"""The cleaner's offset map (``OffsetMap`` / ``SkimpyOffsetMap``, spec 6.1-6.2).

Kafka keys the map by the MD5 of the key bytes; probing affects speed only, so a dict keyed by
the raw key bytes decides the same. An entry is 24 bytes (16-byte hash + 8-byte offset); with a
KIP-280 strategy it also caches the version, 32 bytes (spec 14).

:class:`OffsetMap` is Kafka's small interface, all a pass needs record by record. The maps here also
take whole batches (:class:`BulkOffsetMap`), which the pass's fast paths use when a map offers it.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat
from typing import Any, Protocol, cast, runtime_checkable

import numpy

from kcompact_nb.core.model import INT_MAX, BrokerConfig, ConfigError, KeyRegistry, PackedRecords

OFFSET_ENTRY_BYTES = 24
VERSIONED_ENTRY_BYTES = 32
FLUSH_CHUNK_BATCHES = 256
"""Collected batches whose key ids and offsets are joined into one numpy array at a time when they are folded."""


class OffsetMap(Protocol):
    """Key -> rank of the winning record (for offsets: the latest offset), Kafka's ``OffsetMap``."""

    latest_offset: int
    """The offset of the last record indexed (``latestOffset``, ``updateLatestOffset``)."""

    @property
    def size(self) -> int:
        """Keys held (``size``)."""
        ...

    @property
    def max_entries(self) -> int | None:
        """Keys a pass may put before it stops: ``slots * load factor`` (the cleaner's ``maxDesiredMapSize``),
        ``None`` when unbounded."""
        ...

    @property
    def utilization(self) -> float:
        """``size / slots`` (``utilization``: Kafka's "Buffer utilization")."""
        ...

    def put(self, key: bytes, rank: Any, offset: int) -> None:
        """Keep the higher of ``rank`` and ``key``'s entry, and note ``offset`` as the latest (``put``)."""
        ...

    def get(self, key: bytes) -> Any:
        """``key``'s entry, ``None`` when absent (``get``; Kafka's -1)."""
        ...

    def entries(self) -> dict[bytes, Any]:
        """A copy of key -> rank, keys in the order first put (for views; Kafka's map cannot list its keys)."""
        ...


@runtime_checkable
class BulkOffsetMap(OffsetMap, Protocol):
    """An offset map that also takes whole batches under the offset strategy (the pass's fast paths).

    Callers keep the capacity rule: :attr:`size_upper_bound` tells whether a batch may fill the map.
    """

    @property
    def size_upper_bound(self) -> int:
        """``size`` or more, known without folding collected batches."""
        ...

    def put_offsets(self, records: PackedRecords) -> None:
        """Put every record of ``records`` (all keyed) at its offset; ``latest_offset`` is the caller's."""
        ...

    def put_keyed(self, keys: Sequence[bytes], offsets: Sequence[int]) -> None:
        """Put each key at its offset (offsets increasing); ``latest_offset`` is the caller's."""
        ...

    def entries_of(self, records: PackedRecords) -> Any:
        """Each record's key's entry, a numpy int64 array (-1 where the map holds none)."""
        ...

    def entries_of_keys(self, keys: Sequence[bytes]) -> Sequence[int]:
        """Each key's entry (-1 where the map holds none)."""
        ...


class OffsetTable(Protocol):
    """Where a pass streamed over segment files keeps its map's entries: key -> the highest rank put.

    :class:`DictOffsetTable` keeps a dict; the io layer offers a hash table of key bytes in C for passes under
    the offset strategy (ranks are offsets there), as Kafka's ``SkimpyOffsetMap`` keeps its entries in one
    buffer. The bulk methods serve the offset strategy only.
    """

    def __len__(self) -> int: ...

    def put(self, key: bytes, rank: Any) -> None:
        """Keep the higher of ``rank`` and ``key``'s entry."""
        ...

    def get(self, key: bytes) -> Any:
        """``key``'s entry, None when absent."""
        ...

    def put_records(self, records: PackedRecords) -> None:
        """Put each record (all keyed) at its offset, keeping the higher entry."""
        ...

    def put_keys(self, keys: Sequence[bytes], offsets: Sequence[int]) -> None:
        """Put each key at its offset, keeping the higher entry."""
        ...

    def entries_of_records(self, records: PackedRecords) -> Any:
        """Each record's key's entry, a numpy int64 array (-1 where none is held)."""
        ...

    def entries_of_keys(self, keys: Sequence[bytes]) -> Sequence[int]:
        """Each key's entry (-1 where none is held)."""
        ...

    def items(self) -> Iterable[tuple[bytes, Any]]:
        """(key, entry), keys in the order first put."""
        ...


class DictOffsetTable(dict[bytes, Any]):
    """An :class:`OffsetTable` in a dict: any ranks (KIP-280's too), keys in the order first put."""

    def put(self, key: bytes, rank: Any) -> None:
        current = self.get(key)
        if current is None or rank > current:
            self[key] = rank

    def put_records(self, records: PackedRecords) -> None:
        self.update(zip(cast("tuple[bytes, ...]", records.keys), records.offsets, strict=True))

    def put_keys(self, keys: Sequence[bytes], offsets: Sequence[int]) -> None:
        self.update(zip(keys, offsets, strict=True))

    def entries_of_records(self, records: PackedRecords) -> Any:
        keys = cast("tuple[bytes, ...]", records.keys)  # bulk methods take keyed records only
        return numpy.fromiter(map(self.get, keys, repeat(-1)), numpy.int64, len(records))

    def entries_of_keys(self, keys: Sequence[bytes]) -> Sequence[int]:
        return list(map(self.get, keys, repeat(-1)))


class ExactOffsetMap:
    """An unbounded map: every pass indexes its whole dirty range (for tests and what-ifs).

    Under the offset strategy the cleaner hands it whole packed batches (:meth:`put_offsets`). Their key
    ids and offsets are folded with numpy into per-id arrays (each key's last and first offset), and a
    dict is made from them, keys in order of first appearance, only when something asks for one.

    ``streaming=True`` is for passes that read their segments from files (batches released once read): every
    entry goes into ``table`` at once (a :class:`DictOffsetTable` by default), so the map holds keys and
    entries but never the batches' records.
    """

    def __init__(self, *, streaming: bool = False, table: OffsetTable | None = None) -> None:
        self.streaming = streaming or table is not None
        self._table: OffsetTable | None = table if table is not None else DictOffsetTable() if streaming else None
        self._entries: dict[bytes, Any] = {}
        self._pending: list[PackedRecords] = []
        self._pending_records = 0
        self._dense: _DenseEntries | None = None
        self._by_key_id: tuple[KeyRegistry, int, Any] | None = None
        self.latest_offset = -1

    @property
    def size(self) -> int:
        if self._table is not None:
            return len(self._table)
        self._fold()
        return len(self._entries) + (self._dense.size if self._dense is not None else 0)

    @property
    def size_upper_bound(self) -> int:
        """``size`` without folding collected batches: no more than their records or their registry's keys."""
        if self._table is not None:
            return len(self._table)
        pending = self._pending_records
        if self._pending:
            pending = min(pending, len(cast("KeyRegistry", self._pending[0].registry)))
        return len(self._entries) + (self._dense.size if self._dense is not None else 0) + pending

    @property
    def max_entries(self) -> int | None:
        return None

    @property
    def utilization(self) -> float:
        """Unbounded: reported as 0.0."""
        return 0.0

    def put(self, key: bytes, rank: Any, offset: int) -> None:
        """Keep the highest rank for ``key`` (for offsets: the later one) and note ``offset`` as latest."""
        if self._table is not None:
            self._table.put(key, rank)
        else:
            entries = self._dict(changing=True)
            current = entries.get(key)
            if current is None or rank > current:
                entries[key] = rank
        self.latest_offset = offset

    def put_offsets(self, records: PackedRecords) -> None:
        """Offset strategy: put every record of ``records`` (all keyed) at its offset.

        The caller keeps the capacity rule (see :attr:`size_upper_bound`) and ``latest_offset``.
        """
        if self._table is not None:
            self._table.put_records(records)
            return
        if records.registry is None:  # keys not numbered: straight into the dict
            self.put_keyed(cast("tuple[bytes, ...]", records.keys), records.offsets)
            return
        if self._pending and records.registry is not self._pending[0].registry:
            self._fold()
        self._by_key_id = None
        self._pending.append(records)
        self._pending_records += len(records)

    def put_keyed(self, keys: Sequence[bytes], offsets: Sequence[int]) -> None:
        """Offset strategy: put each key at its offset (the caller keeps the capacity rule and ``latest_offset``)."""
        if self._table is not None:
            self._table.put_keys(keys, offsets)
        else:
            self._dict(changing=True).update(zip(keys, offsets, strict=True))

    def get(self, key: bytes) -> Any:
        return self._table.get(key) if self._table is not None else self._dict().get(key)

    def entries(self) -> dict[bytes, Any]:
        """A copy of key -> rank."""
        return dict(self._table.items()) if self._table is not None else dict(self._dict())

    def entries_of(self, records: PackedRecords) -> Any:
        """Offset strategy: each record's key's entry (a numpy int64 array, -1 when absent)."""
        if self._table is not None:
            return self._table.entries_of_records(records)
        if records.registry is None or records.key_ids is None:
            keys = cast("tuple[bytes, ...]", records.keys)  # bulk methods take keyed records only
            return numpy.fromiter(map(self._dict().get, keys, repeat(-1)), numpy.int64, len(records))
        return self.latest_by_key_id(records.registry)[numpy.frombuffer(records.key_ids, numpy.int64)]

    def entries_of_keys(self, keys: Sequence[bytes]) -> Sequence[int]:
        """Offset strategy: each key's entry (-1 when absent)."""
        if self._table is not None:
            return self._table.entries_of_keys(keys)
        return list(map(self._dict().get, keys, repeat(-1)))

    def latest_by_key_id(self, registry: KeyRegistry) -> Any:
        """Offset strategy: a numpy array of each key of ``registry``'s entry (-1 when absent), indexed by key id.

        The array is kept until the map changes.
        """
        self._fold()
        dense = self._dense
        if dense is not None and not self._entries and dense.registry is registry:
            return dense.latest_for(len(registry))
        cached = self._by_key_id
        if cached is not None and cached[0] is registry and cached[1] == len(registry):
            return cached[2]
        entries = self._dict()
        ids = numpy.frombuffer(registry.known_ids(entries), numpy.int64)
        ranks = numpy.fromiter(entries.values(), numpy.int64, len(entries))
        latest = numpy.full(len(registry), -1, numpy.int64)
        known = ids >= 0
        latest[ids[known]] = ranks[known]
        self._by_key_id = (registry, len(registry), latest)
        return latest

    def _fold(self) -> None:
        """Fold collected batches into the per-id arrays (into the dict when it already holds entries)."""
        if not self._pending:
            return
        pending, self._pending, self._pending_records = self._pending, [], 0
        registry = cast("KeyRegistry", pending[0].registry)
        dense = self._dense
        if dense is None or dense.registry is not registry:
            self._materialize()
            dense = self._dense = _DenseEntries(registry)
        dense.add(pending)
        if self._entries:
            self._materialize()

    def _dict(self, *, changing: bool = False) -> dict[bytes, Any]:
        self._fold()
        self._materialize()
        if changing:
            self._by_key_id = None
        return self._entries

    def _materialize(self) -> None:
        if self._dense is not None:
            self._entries.update(self._dense.items())
            self._dense = None


class _DenseEntries:
    """Offset-map entries by key id: each key's last and first offset (-1 / int64 max when absent)."""

    def __init__(self, registry: KeyRegistry) -> None:
        self.registry = registry
        self.latest = numpy.full(len(registry), -1, numpy.int64)
        self.first = numpy.full(len(registry), _NO_OFFSET, numpy.int64)
        self.size = 0

    def add(self, batches: list[PackedRecords]) -> None:
        """Fold the batches' key ids and offsets in, a chunk of batches per numpy call."""
        self.latest_for(len(self.registry))
        for start in range(0, len(batches), FLUSH_CHUNK_BATCHES):
            chunk = batches[start : start + FLUSH_CHUNK_BATCHES]
            ids = numpy.concatenate([numpy.frombuffer(cast("array[int]", b.key_ids), numpy.int64) for b in chunk])
            offsets = numpy.concatenate([numpy.frombuffer(b.offsets, numpy.int64) for b in chunk])
            numpy.maximum.at(self.latest, ids, offsets)
            numpy.minimum.at(self.first, ids, offsets)
        self.size = int(numpy.count_nonzero(self.latest >= 0))

    def latest_for(self, keys: int) -> Any:
        """``latest`` grown to ``keys`` ids (the registry may have grown since)."""
        grow = keys - len(self.latest)
        if grow > 0:
            self.latest = numpy.concatenate([self.latest, numpy.full(grow, -1, numpy.int64)])
            self.first = numpy.concatenate([self.first, numpy.full(grow, _NO_OFFSET, numpy.int64)])
        return self.latest

    def items(self) -> Iterator[tuple[bytes, int]]:
        """(key, last offset) in order of each key's first offset."""
        present = numpy.flatnonzero(self.latest >= 0)
        present = present[numpy.argsort(self.first[present], kind="stable")]
        keys = cast("list[bytes]", self.registry.keys)  # put_offsets takes keyed records only
        return zip(map(keys.__getitem__, present.tolist()), self.latest[present].tolist(), strict=False)


_NO_OFFSET = numpy.iinfo(numpy.int64).max


class BoundedOffsetMap(ExactOffsetMap):
    """Kafka's fixed-size map (``SkimpyOffsetMap``): ``slots`` entries, usable up to ``int(slots * load_factor)``
    distinct keys (:attr:`max_entries`)."""

    def __init__(
        self,
        slots: int,
        load_factor: float = 0.9,
        entry_bytes: int = OFFSET_ENTRY_BYTES,
        *,
        streaming: bool = False,
        table: OffsetTable | None = None,
    ) -> None:
        super().__init__(streaming=streaming, table=table)
        if slots < 1 or not 0 < load_factor <= 1 or int(slots * load_factor) < 1:
            message = f"offset map of {slots} slots at load factor {load_factor} holds no key"
            raise ConfigError(message)
        self.slots = slots
        self.load_factor = load_factor
        self.entry_bytes = entry_bytes

    @classmethod
    def from_memory(
        cls,
        memory_bytes: int,
        *,
        load_factor: float = 0.9,
        entry_bytes: int = OFFSET_ENTRY_BYTES,
        streaming: bool = False,
        table: OffsetTable | None = None,
    ) -> BoundedOffsetMap:
        """A map over ``memory_bytes`` of buffer: ``slots = memory_bytes // entry_bytes``."""
        slots = min(memory_bytes, INT_MAX) // entry_bytes
        return cls(slots, load_factor, entry_bytes, streaming=streaming, table=table)

    @classmethod
    def for_broker(
        cls,
        broker: BrokerConfig,
        *,
        entry_bytes: int = OFFSET_ENTRY_BYTES,
        streaming: bool = False,
        table: OffsetTable | None = None,
    ) -> BoundedOffsetMap:
        """One cleaner thread's map: ``min(log.cleaner.dedupe.buffer.size / threads, Int.MaxValue)`` bytes."""
        memory = broker.log_cleaner_dedupe_buffer_size // max(broker.log_cleaner_threads, 1)
        load_factor = broker.log_cleaner_io_buffer_load_factor
        return cls.from_memory(
            memory, load_factor=load_factor, entry_bytes=entry_bytes, streaming=streaming, table=table
        )

    @property
    def max_entries(self) -> int:
        return int(self.slots * self.load_factor)

    @property
    def memory_bytes(self) -> int:
        return self.slots * self.entry_bytes

    @property
    def utilization(self) -> float:
        """``entries / slots`` (Kafka's "Buffer utilization"; a full map reads about 90 %)."""
        return self.size / self.slots
