"""Key ids for many records at once: keys given as byte spans of a block, numbered by a :class:`KeyRegistry`.

Each key is read as a few little-endian 64-bit words straight from the block (bytes past its end masked
off) and hashed. Keys already numbered by an earlier
block are found in a sorted index of hashes (checked against their words again); only the others are
grouped with ``numpy.unique`` (each row checked against its group's first row, so a collision costs time,
never a wrong id), and one ``bytes`` per new key goes through the registry, in order of first appearance,
as record-by-record interning numbers them. Blocks with keys longer than :data:`MAX_WORD_KEY_BYTES` are
numbered key by key.

:func:`native_key_numbering` gives the C version of the same numbering (:class:`NativeKeyNumbering`, keys of any
length compared by content in a hash table of their bytes); ``key_numbering`` (:mod:`kcompact_nb.record._kernels`)
gives it when it was built, this numpy one otherwise.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy

from kcompact_nb.record._key_registry import KeyRegistry
from kcompact_nb.record._native_kernels import c_kernels

MAX_WORD_KEY_BYTES = 64
"""Longest key read as words (8 words); blocks with longer keys go key by key."""
MIN_TABLE_SLOTS = 1 << 10
"""Slots of the hash table before its first growth (a power of two)."""
_MULTIPLIER = numpy.uint64(0x9E3779B97F4A7C15)


class KeyNumbering:
    """Numbers the keys of successive blocks in ``registry``, remembering the hashes of the keys it numbered.

    The hashes live in an open-addressing table (linear probing, at most half full), probed for all rows of a
    block at once: a few array operations per probe step instead of sorting each block.
    """

    def __init__(self, registry: KeyRegistry) -> None:
        self.registry = registry
        self._hashes = numpy.zeros(0, numpy.uint64)
        self._ids = numpy.zeros(0, numpy.int64)
        self._words = numpy.zeros((0, 0), numpy.uint64)
        self._table = numpy.zeros(MIN_TABLE_SLOTS, numpy.int32)
        """Entry index + 1 (0: an empty slot) at each slot; a hash starts at the slot of its top bits."""

    def ids(self, block: bytes, starts: Any, lengths: Any) -> Any:
        """The registry id (an int64 array) of each key ``block[starts[i]:starts[i] + lengths[i]]`` (-1: None)."""
        if not len(starts):
            return numpy.zeros(0, numpy.int64)
        longest = int(lengths.max())
        if longest > MAX_WORD_KEY_BYTES:
            return self._one_by_one(block, starts, lengths)
        words = _key_words(block, starts, lengths, max(1, -(-longest // 8)))
        hashes = _hash_rows(words, lengths)
        ids = self._known(hashes, words)
        missing = numpy.flatnonzero(ids < 0)
        if not len(missing):
            return ids
        distinct, firsts, inverse = numpy.unique(hashes[missing], return_index=True, return_inverse=True)
        rows = missing[firsts]  # each new key's first row; ``missing`` is ascending, so is appearance order
        if not (words[missing] == words[rows[inverse]]).all():  # a hash collision inside the block
            return self._one_by_one(block, starts, lengths)
        appearance = numpy.argsort(rows, kind="stable")
        new_ids = numpy.empty(len(rows), numpy.int64)
        new_ids[appearance] = self._new_keys(block, starts[rows[appearance]], lengths[rows[appearance]])
        self._remember(distinct, new_ids, words[rows])
        ids[missing] = new_ids[inverse]
        return ids

    def _entries_of(self, hashes: Any) -> Any:
        """The entry holding each hash, -1 where none does (linear probing from each hash's slot)."""
        table, hashes_held = self._table, self._hashes
        mask = len(table) - 1
        entries = numpy.full(len(hashes), -1, numpy.int64)
        pending = numpy.arange(len(hashes))
        slots = _slots(hashes, len(table))
        while len(pending):
            held = table[slots] - 1
            occupied = held >= 0
            found = occupied & (hashes_held[held] == hashes[pending])
            entries[pending[found]] = held[found]
            probing = occupied & ~found
            pending, slots = pending[probing], (slots[probing] + 1) & mask
        return entries

    def _known(self, hashes: Any, words: Any) -> Any:
        """The id of each row's key if this numbering met it before, -1 otherwise."""
        ids = numpy.full(len(hashes), -1, numpy.int64)
        if not len(self._hashes):
            return ids
        at = self._entries_of(hashes)
        rows = numpy.flatnonzero(at >= 0)
        if len(rows) < len(at):
            at, words = at[rows], words[rows]
        same = numpy.ones(len(rows), bool)
        for column in range(max(words.shape[1], self._words.shape[1])):  # a column at a time: 1-d gathers
            held = self._words[at, column] if column < self._words.shape[1] else 0
            same &= (words[:, column] if column < words.shape[1] else 0) == held
        ids[rows[same]] = self._ids[at[same]]
        return ids

    def _remember(self, hashes: Any, ids: Any, words: Any) -> None:
        if len(self._hashes):
            fresh = self._entries_of(hashes) < 0  # a colliding hash keeps its first key only
            hashes, ids, words = hashes[fresh], ids[fresh], words[fresh]
        first = len(self._hashes)
        width = max(words.shape[1], self._words.shape[1])
        all_words = numpy.zeros((first + len(hashes), width), numpy.uint64)
        all_words[:first, : self._words.shape[1]] = self._words
        all_words[first:, : words.shape[1]] = words
        self._hashes = numpy.concatenate([self._hashes, hashes])
        self._ids, self._words = numpy.concatenate([self._ids, ids]), all_words
        if 2 * len(self._hashes) > len(self._table):
            slots = max(MIN_TABLE_SLOTS, 1 << (2 * len(self._hashes)).bit_length())  # a quarter to half full
            self._table = numpy.zeros(slots, numpy.int32)
            first = 0
        self._insert(numpy.arange(first, len(self._hashes)))

    def _insert(self, entries: Any) -> None:
        """Put entries (their hashes absent from the table, distinct) into empty slots, probing linearly."""
        table, mask = self._table, len(self._table) - 1
        slots = _slots(self._hashes[entries], len(table))
        while len(entries):
            free = table[slots] == 0
            table[slots[free]] = entries[free] + 1  # rows claiming the same slot: one wins, the others probe on
            placed = numpy.zeros(len(entries), bool)
            placed[free] = table[slots[free]] == entries[free] + 1
            entries, slots = entries[~placed], (slots[~placed] + 1) & mask

    def _new_keys(self, block: bytes, starts: Any, lengths: Any) -> Any:
        """The registry ids of distinct keys this numbering has not met (the registry may have)."""
        pairs = zip(starts.tolist(), lengths.tolist(), strict=True)
        keys = [None if length < 0 else block[start : start + length] for start, length in pairs]
        return numpy.frombuffer(self.registry.ids_of_distinct(keys), numpy.int64)

    def _one_by_one(self, block: bytes, starts: Any, lengths: Any) -> Any:
        pairs = zip(starts.tolist(), lengths.tolist(), strict=True)
        keys = [None if length < 0 else block[start : start + length] for start, length in pairs]
        return numpy.frombuffer(self.registry.ids(keys), numpy.int64)


class NativeKeyNumbering:
    """:class:`KeyNumbering`'s numbering by the C kernel's :class:`~kcompact_nb.record._native.KeyTable`: each key's
    bytes looked up in a hash table of the keys met before (copied there), new keys numbered by ``registry``.

    One table serves every numbering into the same registry (a partition's segment files share one), so a key
    is copied and hashed into a table once. While the table holds every key of the registry (nothing else
    registered keys since), keys new to the table are new to the registry too, and are numbered unlooked-up.
    """

    def __init__(self, registry: KeyRegistry, table: Any) -> None:
        self.registry = registry
        self._table = table

    def ids(self, block: bytes, starts: Any, lengths: Any) -> Any:
        """The registry id (an int64 array) of each key ``block[starts[i]:starts[i] + lengths[i]]`` (-1: None)."""
        starts, lengths = numpy.ascontiguousarray(starts, numpy.int64), numpy.ascontiguousarray(lengths, numpy.int64)
        ids, first_rows = numpy.empty(len(starts), numpy.int64), numpy.empty(len(starts), numpy.int64)
        try:
            self._number(block, starts, lengths, ids, first_rows)
        except BaseException:
            _TABLES.pop(self.registry, None)  # a failed call leaves its table unusable: the next numbering starts anew
            raise
        return ids

    def _number(self, block: bytes, starts: Any, lengths: Any, ids: Any, first_rows: Any) -> None:
        complete = len(self._table) == len(self.registry)
        new = self._table.number(block, starts, lengths, ids, first_rows)
        if new:
            rows = first_rows[:new]
            pairs = zip(starts[rows].tolist(), lengths[rows].tolist(), strict=True)
            keys = [None if length < 0 else block[start : start + length] for start, length in pairs]
            if complete:
                numbers = self.registry.register_new(keys)
                registered = numpy.arange(numbers.start, numbers.stop, dtype=numpy.int64)
            else:
                registered = numpy.frombuffer(self.registry.ids_of_distinct(keys), numpy.int64)
            self._table.commit(registered)
            staged = numpy.flatnonzero(ids < -1)
            ids[staged] = registered[-2 - ids[staged]]


def native_key_numbering(registry: KeyRegistry) -> NativeKeyNumbering:
    """A numbering of keys into ``registry`` by the C kernel's ``KeyTable`` (its table shared by every numbering into
    ``registry``, and released with it); its twin is :class:`KeyNumbering`."""
    table = _TABLES.get(registry)
    if table is None:
        table = _TABLES[registry] = c_kernels().KeyTable()
    return NativeKeyNumbering(registry, table)


def release_key_table(registry: KeyRegistry) -> None:
    """Free the C table of ``registry``'s keys now, not with the registry (a later numbering starts a new one)."""
    _TABLES.pop(registry, None)


_TABLES: weakref.WeakKeyDictionary[KeyRegistry, Any] = weakref.WeakKeyDictionary()


def _slots(hashes: Any, table_slots: int) -> Any:
    """Each hash's home slot: its top bits (the hash's multiply mixes them best)."""
    return (hashes >> numpy.uint64(64 - (table_slots.bit_length() - 1))).astype(numpy.int64)


def _key_words(block: bytes, starts: Any, lengths: Any, count: int) -> Any:
    """Each key as ``count + 1`` uint64 words: its length + 1 (0: None), then its bytes, little-endian, zero-padded."""
    rows = numpy.empty((len(starts), count + 1), numpy.uint64)
    rows[:, 0] = lengths + 1
    if len(block) < 8:
        block += bytes(8)
    last = len(block) - 8
    windows = numpy.ndarray((last + 1,), numpy.dtype("<u8"), block, 0, (1,))  # the 8 bytes at every position
    for word in range(count):
        at = starts + 8 * word
        left = numpy.clip(lengths - 8 * word, 0, 8).astype(numpy.uint64)
        mask = numpy.where(left == 8, ~numpy.uint64(0), (numpy.uint64(1) << (left * numpy.uint64(8))) - numpy.uint64(1))
        column = windows[numpy.minimum(at, last)]
        late = numpy.flatnonzero(at > last)  # within 8 bytes of the block's end: the window ends there
        column[late] = (column[late] >> ((at[late] - last) * 8).astype(numpy.uint64)) if len(late) else column[late]
        rows[:, word + 1] = column & mask
    return rows


def _hash_rows(rows: Any, lengths: Any) -> Any:
    """A 64-bit hash of each row over the words its key covers (the same whatever the block's width)."""
    hashes = numpy.zeros(len(rows), numpy.uint64)
    for column in range(rows.shape[1]):
        mixed = (hashes ^ rows[:, column]) * _MULTIPLIER
        mixed ^= mixed >> numpy.uint64(29)
        hashes = mixed if column == 0 else numpy.where(lengths > 8 * (column - 1), mixed, hashes)
    return hashes
