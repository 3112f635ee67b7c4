"""The pass's accelerations: whole-batch paths that decide exactly as the record-by-record rules do.

Not Kafka's code, only Kafka's decisions made faster. Under the offset strategy a batch is mostly
handled at once: its keyed offsets go into the map in one call (numpy for packed batches, a dict
update otherwise), and a batch wholly covered by the map keeps the records whose offset is not below
their key's entry, found in C loops. The pass asks for a fast path and falls back to its record-by-record
rules (``buildOffsetMapForSegment``, ``shouldRetainRecord``) whenever one answers ``None`` or ``False``.
``tests/core/cleaner/test_packed_records.py`` and ``tests/core/cleaner/test_cleaner_properties.py`` check
that both give the same logs. Python's cyclic garbage collector is paused during a pass, which allocates records by the
million and creates no reference cycles.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import compress, repeat
from operator import and_, is_not, le
from typing import Any, cast

from kcompact_nb.core.cleaner._offset_map import BulkOffsetMap, OffsetMap
from kcompact_nb.core.model import PackedRecords, RecordBatch, record_keys, record_offsets, record_values


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (reference counting goes on).

    A pass allocates records and batches by the million and creates no reference cycles; the
    collector's repeated scans over them would grow a large pass faster than linearly.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def bulk_map(offset_map: OffsetMap) -> BulkOffsetMap | None:
    """``offset_map`` when it takes whole batches, else ``None`` (the pass then goes record by record)."""
    return offset_map if isinstance(offset_map, BulkOffsetMap) else None


def map_batch_at_once(offset_map: BulkOffsetMap, batch: RecordBatch, start: int) -> bool:
    """Put the batch's keyed records at or after ``start`` at their offsets, unless they might fill the map.

    False (nothing put) when the map might reach its capacity within the batch: Kafka checks the
    capacity before every put, so such a batch goes record by record.
    """
    limit, records = offset_map.max_entries, batch.records
    if (
        limit is not None
        and offset_map.size_upper_bound + len(records) >= limit
        and offset_map.size + len(records) >= limit
    ):
        return False
    if isinstance(records, PackedRecords) and batch.base_offset >= start and records and records.all_keyed:
        offset_map.put_offsets(records)
        offset_map.latest_offset = records.offsets[-1]
        return True
    keys, offsets = _keyed_offsets(batch, start)
    if keys:
        offset_map.put_keyed(keys, offsets)
        offset_map.latest_offset = offsets[-1]
    return True


def _keyed_offsets(batch: RecordBatch, start: int) -> tuple[Sequence[bytes], Sequence[int]]:
    """Keys and offsets of the batch's keyed records at or after ``start``, in C loops when that is all of them."""
    records = batch.records
    keys = record_keys(records)
    if batch.base_offset < start or None in keys:
        records = tuple(r for r in records if r.key is not None and r.offset >= start)
        keys = record_keys(records)
    return cast("Sequence[bytes]", keys), record_offsets(records)


def retained_at_once(offset_map: BulkOffsetMap, batch: RecordBatch, keep_deletes: bool) -> Sequence[Any] | None:
    """The records a data batch wholly at or below the map's latest offset keeps under the offset strategy:
    those whose offset is not below their key's entry, tombstones only with ``keep_deletes``.

    Packed records stay packed (:meth:`PackedRecords.retained_at_entries`: no record object is built, values
    stay in the batch's bytes). ``None`` when a record has no key (it must be counted as invalid, record by
    record).
    """
    records = batch.records
    if isinstance(records, PackedRecords) and records.all_keyed:
        return records.retained_at_entries(offset_map.entries_of(records), keep_deletes)
    keys = record_keys(records)
    if None in keys:
        return None
    entries = offset_map.entries_of_keys(cast("Sequence[bytes]", keys))
    latest = map(le, entries, record_offsets(records))
    if not keep_deletes:
        latest = map(and_, latest, map(is_not, record_values(records), repeat(None)))
    return list(compress(records, latest))
