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
    """Entries in the C kernel's :class:`~kcompact_nb.record._native.OffsetTable` (keys by their bytes, the higher
    entry kept).

    :meth:`put_spans` returns while a thread of its own puts the keys (the table's ``put_spans`` runs without the
    GIL): the caller decodes its next block on the other core meanwhile. One put runs at a time, in the order given,
    so the table ends as a put-by-put one would; every other method waits for the put first (and raises its error).
    """

    def __init__(self, table: Any) -> None:
        self._table = table
        self._putting: threading.Thread | None = None
        self._failed: BaseException | None = None

    def __len__(self) -> int:
        self._wait()
        return len(self._table)

    def put_keys(self, keys: Any, entries: Any) -> None:
        self._wait()
        self._table.put(keys, numpy.ascontiguousarray(entries, numpy.int64))

    def put_spans(self, block: bytes, starts: Any, lengths: Any, entries: Any) -> None:
        columns = [numpy.ascontiguousarray(c, numpy.int64) for c in (starts, lengths, entries)]
        self._wait()
        self._putting = threading.Thread(target=self._put_spans, args=(block, *columns), name="kcompact-put-spans")
        self._putting.start()

    def _put_spans(self, block: bytes, *columns: Any) -> None:
        try:
            self._table.put_spans(block, *columns)
        except BaseException as error:  # raised in the caller's thread by its next call
            self._failed = error

    def _wait(self) -> None:
        """Wait for the put under way, if any; raise what it raised."""
        if self._putting is not None:
            self._putting.join()
            self._putting = None
        failed, self._failed = self._failed, None
        if failed is not None:
            raise failed

    def entries(self) -> Any:
        self._wait()
        held = numpy.empty(len(self._table), numpy.int64)
        self._table.values(held)
        return held


def latest_entries_in_c() -> SpanEntries:
    """A new :class:`NativeLatestEntries` (the C kernel's ``OffsetTable``)."""
    return NativeLatestEntries(c_kernels().OffsetTable())


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
