"""Where an offset map keeps its entries: key -> the highest rank put (``SkimpyOffsetMap``'s buffer, spec 6.1).

An :class:`OffsetTable` takes keys one at a time (any strategy's ranks) and, under the offset strategy, whole
batches at once (ranks are offsets there; the pass's whole-batch paths use these). :class:`DictOffsetTable` keeps
a dict; :class:`~kcompact_nb.core.cleaner._numbered_offset_table.NumberedOffsetTable` keeps packed batches' key ids
in numpy arrays; the io layer offers a hash table of key bytes in C for passes streamed over segment files, as
Kafka's ``SkimpyOffsetMap`` keeps its entries in one buffer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import Any, Protocol, cast

import numpy

from kcompact_nb.record import PackedRecords


class OffsetTable(Protocol):
    """Key -> the highest rank put; the bulk methods serve the offset strategy only."""

    def __len__(self) -> int: ...

    def put(self, key: bytes, rank: Any) -> None:
        """Keep the higher of ``rank`` and ``key``'s entry."""
        ...

    def get(self, key: bytes) -> Any:
        """``key``'s entry, None when absent."""
        ...

    def put_records(self, records: PackedRecords) -> None:
        """Put each record (all keyed, offsets increasing) at its offset."""
        ...

    def put_keys(self, keys: Sequence[bytes], offsets: Sequence[int]) -> None:
        """Put each key at its offset (offsets increasing)."""
        ...

    def put_key_spans(self, data: bytes, starts: Any, lengths: Any, offsets: Any) -> None:
        """Put each key, ``data[start:start + length]``, at its offset (numpy int64 arrays; offsets increasing)."""
        ...

    def entries_of_records(self, records: PackedRecords) -> Any:
        """Each record's key's entry, a numpy int64 array (-1 where none is held)."""
        ...

    def entries_of_keys(self, keys: Sequence[bytes]) -> Sequence[int]:
        """Each key's entry (-1 where none is held)."""
        ...

    def entries_of_key_spans(self, data: bytes, starts: Any, lengths: Any) -> Any:
        """Each key's entry, the keys ``data[start:start + length]``: a numpy int64 array (-1 where none is held)."""
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

    def put_key_spans(self, data: bytes, starts: Any, lengths: Any, offsets: Any) -> None:
        self.put_keys(key_slices(data, starts, lengths), offsets.tolist())

    def entries_of_records(self, records: PackedRecords) -> Any:
        keys = cast("tuple[bytes, ...]", records.keys)  # bulk methods take keyed records only
        return numpy.fromiter(map(self.get, keys, repeat(-1)), numpy.int64, len(records))

    def entries_of_keys(self, keys: Sequence[bytes]) -> Sequence[int]:
        return list(map(self.get, keys, repeat(-1)))

    def entries_of_key_spans(self, data: bytes, starts: Any, lengths: Any) -> Any:
        return numpy.fromiter(map(self.get, key_slices(data, starts, lengths), repeat(-1)), numpy.int64, len(starts))


def key_slices(data: bytes, starts: Any, lengths: Any) -> list[bytes]:
    """The keys ``data[start:start + length]`` (for tables that keep key bytes)."""
    return [data[start : start + length] for start, length in zip(starts.tolist(), lengths.tolist(), strict=True)]
