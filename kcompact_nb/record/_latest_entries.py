"""Where a streamed offset-bucket tally keeps each key's latest entry: keys given as bytes or as byte spans of a block.

:class:`NativeLatestEntries` keeps them in the C kernel's hash table of key bytes (:func:`latest_entries_in_c`), its
twin :class:`NumberedLatestEntries` numbers keys with numpy and keeps an array by key id; ``latest_entries``
(:mod:`kcompact_nb.record._kernels`) gives the first when the C kernels were built, the other otherwise.
"""

from __future__ import annotations

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
``hold``): 192k keys of 32 bytes, sorted into as many again, 12 MiB a table (the 50M tally's peak RSS about 520 MiB;
256k held were no faster, 128k slower)."""


class NativeLatestEntries:
    """Entries in C kernel :class:`~kcompact_nb.record._native.OffsetTable` tables (keys by their bytes, the higher
    entry kept), the keys sharded over ``tables`` by a hash of their last bytes (``OffsetTable.put_spans``'
    ``shard``).

    :meth:`put_spans` returns while a thread per table puts its shard of the keys (``stage_spans`` runs without the
    GIL): the caller decodes its next block meanwhile, and the tables fill on every core there is. A table holds
    back its short keys (up to ``hold``, :data:`HOLD_KEYS`) and puts them in the order of their slots, its reads
    going up through it instead of all over it: a table (128 MiB a shard at 50M records) waited on memory at every
    put (issue #41). Each table's puts run one at a time in the order given, so its entries end as a put-by-put
    one's would (only the order of :meth:`entries` differs); every other method waits for the puts first (and
    raises what they raised). The threads live from the first put to :meth:`entries`.
    """

    def __init__(self, *tables: Any, hold: int = HOLD_KEYS) -> None:
        self._tables = tables
        self._hold = hold
        self._threads: ThreadPoolExecutor | None = None
        self._putting: list[Future[None]] = []

    def __len__(self) -> int:
        self._flush()
        return sum(len(table) for table in self._tables)

    def put_keys(self, keys: Any, entries: Any) -> None:
        self._wait()
        entries = numpy.ascontiguousarray(entries, numpy.int64)
        for shard, table in enumerate(self._tables):
            table.put(keys, entries, shard, len(self._tables))

    def put_spans(self, block: bytes, starts: Any, lengths: Any, entries: Any) -> None:
        starts, lengths, entries = (numpy.ascontiguousarray(c, numpy.int64) for c in (starts, lengths, entries))
        self._wait()
        if self._threads is None:
            self._threads = ThreadPoolExecutor(len(self._tables), thread_name_prefix="kcompact-put-spans")
        shards = len(self._tables)
        self._putting = [
            self._threads.submit(table.stage_spans, block, starts, lengths, entries, shard, shards, self._hold)
            for shard, table in enumerate(self._tables)
        ]

    def _wait(self) -> None:
        """Wait for the puts under way, if any; raise what one raised."""
        putting, self._putting = self._putting, []
        for future in putting:
            future.exception()  # every put done before one's error is raised
        for future in putting:
            future.result()

    def _flush(self) -> None:
        """Wait for the puts under way, then put the keys the tables hold back, each table on its thread."""
        self._wait()
        if self._threads is not None:
            self._putting = [self._threads.submit(table.flush) for table in self._tables]
            self._wait()

    def entries(self) -> Any:
        try:
            self._flush()
        finally:
            if self._threads is not None:
                self._threads.shutdown()
                self._threads = None
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
