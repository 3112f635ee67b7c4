"""Where a streamed offset-bucket tally keeps each key's latest entry: keys given as bytes or as byte spans of a block.

:class:`NativeLatestEntries` keeps them in the C kernel's hash table of key bytes (:func:`latest_entries_in_c`), its
twin :class:`NumberedLatestEntries` numbers keys with numpy and keeps an array by key id; ``latest_entries``
(:mod:`kcompact_nb.record._kernels`) gives the first when the C kernels were built, the other otherwise.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

import numpy

from kcompact_nb.record._key_numbering import KeyNumbering
from kcompact_nb.record._key_registry import KeyRegistry
from kcompact_nb.record._native_kernels import c_kernels


class SpanEntries(Protocol):
    """Key -> its latest record's entry (an ``OffsetBucketTally``'s ``latest``), keys as bytes or byte spans."""

    def __len__(self) -> int: ...

    def put_keys(self, keys: Any, entries: Any) -> None:
        """Keep for each key the higher of its entry and ``entries[i]`` (a numpy int64 array)."""
        ...

    def entries(self) -> Any:
        """Every key's entry, a numpy int64 array in any order."""
        ...

    def put_spans(self, block: bytes, starts: Any, lengths: Any, entries: Any) -> None:
        """Keep for each key ``block[starts[i]:starts[i] + lengths[i]]`` the higher of its entry and ``entries[i]``."""
        ...


class NativeLatestEntries:
    """Entries in C kernel :class:`~kcompact_nb.record._native.OffsetTable` tables (keys by their bytes, the higher
    entry kept), the keys sharded over ``tables`` by their hash (``OffsetTable.put_spans``' ``shard``).

    :meth:`put_spans` returns while a thread per table puts its shard of the keys (``put_spans`` runs without the
    GIL): the caller decodes its next block meanwhile, and the tables fill on every core there is. Each table's
    puts run one at a time in the order given, so it ends as a put-by-put one would; every other method waits for
    the puts first (and raises what they raised).
    """

    def __init__(self, *tables: Any) -> None:
        self._tables = tables
        self._putting: list[threading.Thread] = []
        self._failed: list[BaseException] = []

    def __len__(self) -> int:
        self._wait()
        return sum(len(table) for table in self._tables)

    def put_keys(self, keys: Any, entries: Any) -> None:
        self._wait()
        entries = numpy.ascontiguousarray(entries, numpy.int64)
        for shard, table in enumerate(self._tables):
            table.put(keys, entries, shard, len(self._tables))

    def put_spans(self, block: bytes, starts: Any, lengths: Any, entries: Any) -> None:
        columns = [numpy.ascontiguousarray(c, numpy.int64) for c in (starts, lengths, entries)]
        self._wait()
        self._putting = [
            threading.Thread(target=self._put_spans, args=(table, block, *columns, shard), name="kcompact-put-spans")
            for shard, table in enumerate(self._tables)
        ]
        for thread in self._putting:
            thread.start()

    def _put_spans(self, table: Any, block: bytes, starts: Any, lengths: Any, entries: Any, shard: int) -> None:
        try:
            table.put_spans(block, starts, lengths, entries, shard, len(self._tables))
        except BaseException as error:  # raised in the caller's thread by its next call
            self._failed.append(error)

    def _wait(self) -> None:
        """Wait for the puts under way, if any; raise what one raised."""
        for thread in self._putting:
            thread.join()
        self._putting = []
        failed, self._failed = self._failed, []
        if failed:
            raise failed[0]

    def entries(self) -> Any:
        self._wait()
        held = numpy.empty(len(self), numpy.int64)
        at = 0
        for table in self._tables:
            table.values(held[at : at + len(table)])
            at += len(table)
        return held


SHARDS = 2
"""Tables a tally's entries are sharded over, each filled by a thread: the machine's two cores (issue #41)."""


def latest_entries_in_c() -> SpanEntries:
    """A new :class:`NativeLatestEntries` (:data:`SHARDS` C kernel ``OffsetTable`` tables)."""
    return NativeLatestEntries(*(c_kernels().OffsetTable() for _ in range(SHARDS)))


class NumberedLatestEntries:
    """Entries by key id: keys numbered by numpy's :class:`~kcompact_nb.record._key_numbering.KeyNumbering` (spans)
    or interned (bytes) in one registry, each id's highest entry kept in an array."""

    def __init__(self) -> None:
        self.registry = KeyRegistry()
        self._numbering = KeyNumbering(self.registry)
        self._entries = numpy.zeros(0, numpy.int64)

    def __len__(self) -> int:
        return len(self.registry)

    def put_keys(self, keys: Any, entries: Any) -> None:
        self._put(numpy.frombuffer(self.registry.ids(keys), numpy.int64), entries)

    def put_spans(self, block: bytes, starts: Any, lengths: Any, entries: Any) -> None:
        self._put(self._numbering.ids(block, starts, lengths), entries)

    def _put(self, ids: Any, entries: Any) -> None:
        if len(self._entries) < len(self.registry):
            grown = numpy.full(max(len(self.registry), 2 * len(self._entries)), numpy.iinfo(numpy.int64).min)
            grown[: len(self._entries)] = self._entries
            self._entries = grown
        numpy.maximum.at(self._entries, ids, entries)

    def entries(self) -> Any:
        return self._entries[: len(self.registry)]
