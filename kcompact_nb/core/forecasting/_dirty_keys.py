"""The distinct keys of a dirty section: what an offset map must hold to clean it in one pass.

A pass whose map fills stops early (``Cleaner.buildOffsetMap``), so its map's size says only what the buffer held;
what a buffer big enough for the whole section needs is the section's distinct keys, counted here after the pass
(the keys of the part it cleaned stay, each in its latest record, and the rest is untouched).
"""

from __future__ import annotations

import numpy

from kcompact_nb.core.model import PartitionLog
from kcompact_nb.record import KeyRegistry, PackedRecords


def dirty_keys(log: PartitionLog, first_offset: int, end_offset: int) -> int:
    """Distinct keys of the data records with offsets in ``[first_offset, end_offset)``."""
    numbered: list[numpy.ndarray] = []
    registry: KeyRegistry | None = None
    loose: set[bytes] = set()
    for segment in log.segments:
        if segment.base_offset >= end_offset:
            break
        for batch in segment.batches:
            if batch.is_control or batch.last_offset < first_offset or batch.base_offset >= end_offset:
                continue
            records = batch.records
            if (
                isinstance(records, PackedRecords)
                and records.key_ids is not None
                and registry in (None, records.registry)
            ):
                registry = records.registry
                offsets = numpy.frombuffer(records.offsets, numpy.int64)
                inside = (offsets >= first_offset) & (offsets < end_offset)
                numbered.append(numpy.frombuffer(records.key_ids, numpy.int64)[inside])
            else:
                loose.update(r.key for r in records if first_offset <= r.offset < end_offset and r.key is not None)
    ids = numpy.unique(numpy.concatenate(numbered)) if numbered else numpy.zeros(0, numpy.int64)
    if not loose or registry is None:
        return len(ids) + len(loose)
    return len(loose | {registry.keys[i] for i in ids.tolist()})
