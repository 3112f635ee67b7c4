"""The distinct keys of one log, numbered in order of first appearance (not Kafka's: a reader's bookkeeping)."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from itertools import repeat

from kcompact_nb.record._errors import KafkaModelError


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
