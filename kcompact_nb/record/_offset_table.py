"""The offset map's entries in the C kernel's hash table of key bytes, for passes streamed over segment files.

:class:`NativeOffsetTable` is an offset table as core's cleaner reads one (``OffsetTable``: key -> the highest offset
put) over :class:`kcompact_nb.record._native.OffsetTable`: records read with their keys left in the batch's bytes
(:meth:`~kcompact_nb.record.PackedRecords.from_span_keys`) are put and looked up from those bytes, a block at a
time in C, as Kafka's ``SkimpyOffsetMap`` hashes keys straight from its read buffer. Offsets only: a pass under
a KIP-280 strategy keeps its ranks in a dict.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

import numpy

from kcompact_nb.record._native_kernels import c_kernels
from kcompact_nb.record._packed_records import PackedRecords


class NativeOffsetTable:
    """Key -> the highest offset put, in C (see the module)."""

    def __init__(self, table: Any) -> None:
        self._table = table

    def __len__(self) -> int:
        return len(self._table)

    def put(self, key: bytes, rank: Any) -> None:
        self._table.put((key,), array("q", (rank,)))

    def get(self, key: bytes) -> int | None:
        entry = int(self.entries_of_keys((key,))[0])
        return None if entry < 0 else entry

    def put_records(self, records: PackedRecords) -> None:
        spans = records.key_spans()
        if spans is None:
            self._table.put(records.keys, records.offsets)
        else:
            self._table.put_spans(*spans, records.offsets)

    def put_keys(self, keys: Sequence[bytes], offsets: Sequence[int]) -> None:
        self._table.put(keys, offsets if isinstance(offsets, array) else array("q", offsets))

    def put_key_spans(self, data: bytes, starts: Any, lengths: Any, offsets: Any) -> None:
        self._table.put_spans(data, starts, lengths, offsets)

    def entries_of_records(self, records: PackedRecords) -> Any:
        entries = numpy.empty(len(records), numpy.int64)
        spans = records.key_spans()
        if spans is None:
            self._table.get(records.keys, entries)
        else:
            self._table.get_spans(*spans, entries)
        return entries

    def entries_of_key_spans(self, data: bytes, starts: Any, lengths: Any) -> Any:
        entries = numpy.empty(len(starts), numpy.int64)
        self._table.get_spans(data, starts, lengths, entries)
        return entries

    def entries_of_keys(self, keys: Sequence[bytes]) -> Any:
        entries = numpy.empty(len(keys), numpy.int64)
        self._table.get(keys, entries)
        return entries

    def items(self) -> list[tuple[bytes, int]]:
        items: list[tuple[bytes, int]] = self._table.items()
        return items


def offset_table_in_c() -> NativeOffsetTable | None:
    """A new table in C (the C kernel's ``OffsetTable``)."""
    return NativeOffsetTable(c_kernels().OffsetTable())


def no_offset_table() -> NativeOffsetTable | None:
    """:func:`offset_table_in_c`'s twin: no table, the offset map then keeps a dict."""
    return None
