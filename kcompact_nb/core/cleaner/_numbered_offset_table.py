"""An offset table for packed batches whose keys a :class:`KeyRegistry` numbers (not Kafka's: its speed-up).

Under the offset strategy the pass's whole-batch paths hand it whole packed batches
(:meth:`NumberedOffsetTable.put_records`). Their key ids and offsets are folded with numpy into per-id arrays
(each key's last and first offset), and a dict is made from them, keys in order of first appearance, only when
something asks for one: a key put one at a time, or the entries listed. A dense array indexed by key id is
what spares a log of many keys a dict whose random accesses miss the CPU caches.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat
from typing import Any, cast

import numpy

from kcompact_nb.core.cleaner._offset_table import key_slices
from kcompact_nb.record import KeyRegistry, PackedRecords

FLUSH_CHUNK_BATCHES = 256
"""Collected batches whose key ids and offsets are joined into one numpy array at a time when they are folded."""
_NO_OFFSET = numpy.iinfo(numpy.int64).max


class NumberedOffsetTable:
    """An :class:`~kcompact_nb.core.cleaner._offset_table.OffsetTable`: a dict, per-key-id arrays, and the packed
    batches put since the last fold."""

    def __init__(self) -> None:
        self._entries: dict[bytes, Any] = {}
        self._pending: list[PackedRecords] = []
        self._pending_records = 0
        self._dense: _DenseEntries | None = None
        self._by_key_id: tuple[KeyRegistry, int, Any] | None = None

    def __len__(self) -> int:
        self._fold()
        return len(self._entries) + (self._dense.size if self._dense is not None else 0)

    @property
    def size_upper_bound(self) -> int:
        """``len`` or more, without folding collected batches: no more than their records or their registry's keys."""
        pending = self._pending_records
        if self._pending:
            pending = min(pending, len(cast("KeyRegistry", self._pending[0].registry)))
        return len(self._entries) + (self._dense.size if self._dense is not None else 0) + pending

    def put(self, key: bytes, rank: Any) -> None:
        """Keep the higher of ``rank`` and ``key``'s entry (any strategy's ranks)."""
        if self._pending or self._dense is not None:
            self._to_dict()
        self._by_key_id = None
        entries = self._entries
        current = entries.get(key)
        if current is None or rank > current:
            entries[key] = rank

    def get(self, key: bytes) -> Any:
        if self._pending or self._dense is not None:
            self._to_dict()
        return self._entries.get(key)

    def put_records(self, records: PackedRecords) -> None:
        """Collect ``records`` (all keyed) to be folded when next read; keys not numbered go straight into the dict."""
        if records.registry is None:
            self.put_keys(cast("tuple[bytes, ...]", records.keys), records.offsets)
            return
        if self._pending and records.registry is not self._pending[0].registry:
            self._fold()
        self._by_key_id = None
        self._pending.append(records)
        self._pending_records += len(records)

    def put_keys(self, keys: Sequence[bytes], offsets: Sequence[int]) -> None:
        self._to_dict()
        self._by_key_id = None
        self._entries.update(zip(keys, offsets, strict=True))

    def put_key_spans(self, data: bytes, starts: Any, lengths: Any, offsets: Any) -> None:
        self.put_keys(key_slices(data, starts, lengths), offsets.tolist())

    def entries_of_records(self, records: PackedRecords) -> Any:
        if records.registry is None or records.key_ids is None:
            self._to_dict()
            keys = cast("tuple[bytes, ...]", records.keys)  # bulk methods take keyed records only
            return numpy.fromiter(map(self._entries.get, keys, repeat(-1)), numpy.int64, len(records))
        return self.latest_by_key_id(records.registry)[numpy.frombuffer(records.key_ids, numpy.int64)]

    def entries_of_keys(self, keys: Sequence[bytes]) -> Sequence[int]:
        self._to_dict()
        return list(map(self._entries.get, keys, repeat(-1)))

    def entries_of_key_spans(self, data: bytes, starts: Any, lengths: Any) -> Any:
        return numpy.asarray(self.entries_of_keys(key_slices(data, starts, lengths)), numpy.int64)

    def items(self) -> Iterable[tuple[bytes, Any]]:
        self._to_dict()
        return self._entries.items()

    def latest_by_key_id(self, registry: KeyRegistry) -> Any:
        """A numpy array of each key of ``registry``'s entry (-1 when absent), indexed by key id.

        The array is kept until the table changes.
        """
        self._fold()
        dense = self._dense
        if dense is not None and not self._entries and dense.registry is registry:
            return dense.latest_for(len(registry))
        cached = self._by_key_id
        if cached is not None and cached[0] is registry and cached[1] == len(registry):
            return cached[2]
        self._to_dict()
        entries = self._entries
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

    def _to_dict(self) -> None:
        self._fold()
        self._materialize()

    def _materialize(self) -> None:
        if self._dense is not None:
            self._entries.update(self._dense.items())
            self._dense = None


class _DenseEntries:
    """Entries by key id: each key's last and first offset (-1 / int64 max when absent)."""

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
        keys = cast("list[bytes]", self.registry.keys)  # put_records takes keyed records only
        return zip(map(keys.__getitem__, present.tolist()), self.latest[present].tolist(), strict=False)
