"""Where a streamed offset-bucket tally keeps each key's latest entry: keys given as bytes or as byte spans of a block.

:class:`NativeLatestEntries` keeps them in the C kernel's hash table of key bytes (:func:`latest_entries_in_c`), its
twin :class:`NumberedLatestEntries` numbers keys with numpy and keeps an array by key id; ``latest_entries``
(:mod:`kcompact_nb.record._kernels`) gives the first when the C kernels were built, the other otherwise.
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
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


HOLD_KEYS = 3 << 16
"""Short keys a table holds back before it puts them in the order of their slots (``OffsetTable.stage_spans``'
``hold``): 192k keys of 32 bytes, sorted into as many again, 12 MiB (256k held were no faster, 128k slower, with the
keys sharded over two tables)."""


PUTS_AHEAD = 3
"""Blocks a tally's caller hands over ahead of the table's puts at most (each 8 MiB and its columns held meanwhile):
with one, the puts waited for the caller at nearly every block (perf's scheduler events); with three the 50M tally
was fastest (two and four about 5 % slower; issue #41)."""


class NativeLatestEntries:
    """Entries in a C kernel :class:`~kcompact_nb.record._native.OffsetTable` (keys by their bytes, the higher entry
    kept), filled on a thread of its own.

    :meth:`put_spans` returns once the table's thread has the block (``stage_spans`` runs without the GIL): the caller
    decodes its next blocks meanwhile, up to ``ahead`` blocks ahead of the puts (:data:`PUTS_AHEAD`), and the machine's
    two cores are both busy. The table holds back its short keys (up to ``hold``, :data:`HOLD_KEYS`) and puts them in
    the order of their slots, its reads going up through it instead of all over it: a table of 256 MiB at 50M records
    waited on memory at every put (issue #41). The puts run one at a time in the order given; every other method
    waits for them first (and raises what one raised). The thread lives from the first put to :meth:`entries`.

    Why one table and not one per core (keys sharded by their bytes, as the tally had them until 2026-12-03): each
    shard's thread read every key of a block to find its own, and the caller waited for both before handing over
    the next block; one table filled while the caller stays blocks ahead took about 14 % less time for the 50M
    tally (bench/RESULTS.md).
    """

    def __init__(self, table: Any, *, hold: int = HOLD_KEYS, ahead: int = PUTS_AHEAD) -> None:
        self._table = table
        self._hold = hold
        self._ahead = ahead
        self._thread: ThreadPoolExecutor | None = None
        self._putting: deque[Future[None]] = deque()

    def __len__(self) -> int:
        self._flush()
        return len(self._table)

    def put_keys(self, keys: Any, entries: Any) -> None:
        self._wait()
        self._table.put(keys, numpy.ascontiguousarray(entries, numpy.int64))

    def put_spans(self, block: bytes, starts: Any, lengths: Any, entries: Any) -> None:
        starts, lengths, entries = (numpy.ascontiguousarray(c, numpy.int64) for c in (starts, lengths, entries))
        while len(self._putting) >= self._ahead:
            self._putting.popleft().result()
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="kcompact-put-spans")
        self._putting.append(self._thread.submit(self._table.stage_spans, block, starts, lengths, entries, self._hold))

    def _wait(self) -> None:
        """Wait for the puts under way, if any; raise what the first that failed raised."""
        putting, self._putting = self._putting, deque()
        for future in putting:
            future.exception()  # every put done before one's error is raised
        for future in putting:
            future.result()

    def _flush(self) -> None:
        """Wait for the puts under way, then put the keys the table holds back, on its thread."""
        self._wait()
        if self._thread is not None:
            self._thread.submit(self._table.flush).result()

    def entries(self) -> Any:
        try:
            self._flush()
        finally:
            if self._thread is not None:
                self._thread.shutdown()
                self._thread = None
        held = numpy.empty(len(self._table), numpy.int64)
        self._table.values(held)
        return held


def latest_entries_in_c() -> SpanEntries:
    """A new :class:`NativeLatestEntries` (a C kernel ``OffsetTable``)."""
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
