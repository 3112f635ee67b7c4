"""The pass's accelerations: whole-batch record loops that decide exactly as Kafka's record-by-record ones.

Not Kafka's code, only Kafka's decisions made faster, for the offset strategy over a map that keeps its entries in
an :class:`~kcompact_nb.core.cleaner._offset_table.OffsetTable`. A batch is mostly handled at once: its keyed
offsets go into the table in one call (numpy for packed batches, a dict update otherwise), and a batch wholly
covered by the map keeps the records whose offset is not below their key's entry, found in C loops. Whenever a
batch is not one these paths take (it might fill the map, it has keyless records, ...), Kafka's loops
(:class:`~kcompact_nb.core.cleaner._record_loops.RecordByRecord`) handle it. A pass over segment files takes a whole
block of them at once where it can (:meth:`WholeBatches.map_run`, :meth:`WholeBatches.filter_run`: data batches
outside transactions, keyed records only, read as a :class:`~kcompact_nb.core.model.KeyedRun`), reading only the
batches it keeps and rebuilding the others from the block's bytes, all at once in C
(:func:`~kcompact_nb.record.placed_batches`).
:func:`record_loops_for` is the one place the pass chooses. ``tests/core/cleaner/test_whole_batches.py`` (both
loops under one strategy, over tuples and packed records), ``tests/core/cleaner/test_packed_records.py``,
``tests/core/cleaner/test_cleaner_properties.py`` and ``tests/io/logdir/test_partition_stream.py`` (blocks, against
the pass in memory) check that they give the same logs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress, repeat
from operator import and_, is_not, le
from typing import Any, cast

import numpy

from kcompact_nb.core.cleaner._cleaning import CleanerFilter, Cleaning, RecordLoops
from kcompact_nb.core.cleaner._decisions import PassDecisions, RecordDecision, RecordRule
from kcompact_nb.core.cleaner._filter_to import FilteredBatch, delete_horizon, rebuilt
from kcompact_nb.core.cleaner._numbered_offset_table import NumberedOffsetTable
from kcompact_nb.core.cleaner._offset_map import ExactOffsetMap, OffsetMap
from kcompact_nb.core.cleaner._record_loops import RECORD_BY_RECORD, RecordByRecord, RecordedLoops
from kcompact_nb.core.cleaner._strategies import Strategy
from kcompact_nb.core.model import BatchBlock, KeyedRun
from kcompact_nb.record import (
    NO_PRODUCER_ID,
    BatchEncoder,
    PackedRecords,
    RebuiltBatches,
    RecordBatch,
    SpanColumns,
    compressed_placed,
    placed_batches,
    record_keys,
    record_offsets,
    record_values,
)
from kcompact_nb.record import batch_header as L


def record_loops_for(offset_map: OffsetMap, strategy: Strategy) -> RecordLoops:
    """The whole-batch loops when ``strategy`` ranks by offset and ``offset_map`` keeps an offset table, else
    Kafka's record-by-record loops."""
    if strategy.ranks_by_offset and isinstance(offset_map, ExactOffsetMap):
        return WholeBatches(offset_map)
    return RECORD_BY_RECORD


def recording(loops: RecordLoops, decisions: PassDecisions) -> RecordedLoops:
    """``loops`` recording every record's rule into ``decisions``: under the whole-batch loops, a batch they take at
    once is recorded at once (:class:`RecordedWholeBatches`), else record by record (:class:`RecordedLoops`)."""
    if isinstance(loops, WholeBatches):
        return RecordedWholeBatches(loops, decisions)
    return RecordedLoops(loops, decisions)


class WholeBatches(RecordByRecord):
    """Record loops that take a batch at once when they can, and Kafka's loops otherwise."""

    def __init__(self, offset_map: ExactOffsetMap) -> None:
        self.offset_map = offset_map
        self.table = table = offset_map.table
        self._size_upper_bound: Callable[[], int] = (
            (lambda: table.size_upper_bound) if isinstance(table, NumberedOffsetTable) else table.__len__
        )
        """The table's size or more, known without folding collected batches (its exact size otherwise)."""

    def map_records(self, cleaning: Cleaning, batch: RecordBatch, start: int) -> bool:
        if self._map_at_once(batch, start):
            cleaning.stats.map_messages_read += len(batch.records)
            return False
        return super().map_records(cleaning, batch, start)

    def map_run(self, cleaning: Cleaning, run: KeyedRun) -> bool:
        """The run's keys put at their offsets in one call, unless the map might reach its capacity within it (no batch
        of the run would then reach it either: each would be taken at once, as :meth:`map_records` takes it)."""
        limit, records, count = self.offset_map.max_entries, run.records, len(run.records.offsets)
        if limit is not None and self._size_upper_bound() + count >= limit and len(self.table) + count >= limit:
            return False
        self.table.put_key_spans(run.data, records.key_starts, records.key_lengths, records.offsets)
        return True

    def filter_run(
        self, record_filter: CleanerFilter, block: BatchBlock, run: KeyedRun, *, encoder: BatchEncoder
    ) -> list[FilteredBatch] | None:
        """What ``filterTo`` makes of each batch of a keyed run wholly at or below the map's latest offset, decided at
        once: a record stays when its offset is not below its key's entry (a tombstone only while its batch retains
        deletes); a batch keeping all (and needing no delete horizon) is kept as it is, one keeping none is deleted
        (``DELETE_EMPTY``), the others rebuilt. Only the batches kept are read. ``None`` (filter batch by batch) when
        a batch may be kept empty: an active producer's (rule A) or the round's last (rule B)."""
        upper = record_filter.cleaning.upper_bound_offset
        if (
            run.last_offset > self.offset_map.latest_offset
            or (run.producer_ids != NO_PRODUCER_ID).any()
            or (upper is not None and (run.last_offsets + 1 == upper).any())
        ):
            return None
        record_filter.transactions.on_plain_batches_read(run.last_offset)  # checkBatchRetention of each batch
        record_filter.discard_batch_records = False
        records = run.records
        keep = self.table.entries_of_key_spans(run.data, records.key_starts, records.key_lengths) <= records.offsets
        keep &= ~run.null_values | numpy.repeat(record_filter.retains_deletes_of_run(run), run.counts)
        firsts = numpy.cumsum(run.counts) - run.counts
        kept = numpy.add.reduceat(keep, firsts)
        version = record_filter.cleaning.cleaner.broker.version
        tombstones_kept = numpy.add.reduceat(keep & run.null_values, firsts) > 0
        stamp = version.has_batch_delete_horizon & ~run.stamped & tombstones_kept  # needToSetDeleteHorizon
        whole = (kept == run.counts) & ~stamp
        in_place = (kept > 0) & ~whole & ((run.attributes & L.LOG_APPEND_TIME_BIT) == 0)
        read = numpy.flatnonzero((kept > 0) & ~in_place).tolist()
        outcomes = [FilteredBatch(None, 0, -1)] * len(run.counts)
        for index, batch in zip(read, block.batches_at(read), strict=True):
            if whole[index]:
                outcomes[index] = FilteredBatch(batch, int(kept[index]), batch.last_offset)
                continue
            rows = numpy.flatnonzero(keep[firsts[index] : firsts[index] + run.counts[index]]).tolist()
            retained = _subset(batch.records, rows)
            output = rebuilt(batch, retained, record_filter, stamp=bool(stamp[index]), encoder=encoder,
                             kafka_version=version)  # fmt: skip
            outcomes[index] = FilteredBatch(output, len(rows), record_offsets(retained)[-1])
        if in_place.any():
            placed = placed_batches(_rebuilt(run, keep, kept, in_place, stamp, delete_horizon(record_filter)))
            outputs = compressed_placed(placed, encoder, level=None, kafka_version=version)
            for index, output in zip(numpy.flatnonzero(in_place).tolist(), outputs, strict=True):
                outcomes[index] = FilteredBatch(output, int(kept[index]), record_offsets(output.records)[-1])
        return outcomes

    def retained_records(self, record_filter: CleanerFilter, batch: RecordBatch) -> Sequence[Any]:
        if (
            not record_filter.discard_batch_records
            and not batch.is_control
            and batch.last_offset <= self.offset_map.latest_offset
        ):
            kept = self._retained_at_once(batch, record_filter.retains_deletes(batch))
            if kept is not None:
                return kept
        return super().retained_records(record_filter, batch)

    def _map_at_once(self, batch: RecordBatch, start: int) -> bool:
        """Put the batch's keyed records at or after ``start`` at their offsets, unless they might fill the map.

        False (nothing put) when the map might reach its capacity within the batch: Kafka checks the
        capacity before every put, so such a batch goes record by record.
        """
        offset_map, table, records = self.offset_map, self.table, batch.records
        limit = offset_map.max_entries
        if (
            limit is not None
            and self._size_upper_bound() + len(records) >= limit
            and len(table) + len(records) >= limit
        ):
            return False
        if isinstance(records, PackedRecords) and batch.base_offset >= start and records and records.all_keyed:
            table.put_records(records)
            offset_map.latest_offset = records.offsets[-1]
            return True
        keys, offsets = _keyed_offsets(batch, start)
        if keys:
            table.put_keys(keys, offsets)
            offset_map.latest_offset = offsets[-1]
        return True

    def _retained_at_once(self, batch: RecordBatch, keep_deletes: bool) -> Sequence[Any] | None:
        """The records a data batch wholly at or below the map's latest offset keeps under the offset strategy:
        those whose offset is not below their key's entry, tombstones only with ``keep_deletes``.

        Packed records stay packed (:meth:`PackedRecords.retained_at_entries`: no record object is built, values
        stay in the batch's bytes). ``None`` when a record has no key (it must be counted as invalid, record by
        record).
        """
        records = batch.records
        if isinstance(records, PackedRecords) and records.all_keyed:
            return records.retained_at_entries(self.table.entries_of_records(records), keep_deletes)
        keys = record_keys(records)
        if None in keys:
            return None
        entries = self.table.entries_of_keys(cast("Sequence[bytes]", keys))
        latest = map(le, entries, record_offsets(records))
        if not keep_deletes:
            latest = map(and_, latest, map(is_not, record_values(records), repeat(None)))
        return list(compress(records, latest))


def _subset(records: Sequence[Any], rows: list[int]) -> Sequence[Any]:
    """The records at ``rows`` (ascending), packed ones still packed."""
    return records.subset(rows) if isinstance(records, PackedRecords) else [records[row] for row in rows]


def _rebuilt(run: KeyedRun, keep: Any, kept: Any, in_place: Any, stamp: Any, horizon: int) -> RebuiltBatches:
    """The run's CreateTime batches marked ``in_place``, each with its kept records (``keep``; ``kept`` per batch) as
    ``buildRetainedRecordsInto`` builds it: the source batch's header fields (its last offset and codec too), its
    first kept record's timestamp as the base (the delete horizon where the batch has one: ``horizon`` where
    ``stamp`` says it is stamped now) and their largest as the max; its records spans of the block's bytes (the source
    batch is never read)."""
    read = run.records
    rows = numpy.flatnonzero(keep & numpy.repeat(in_place, run.counts))
    columns = tuple(
        column[rows]
        for column in (read.offsets, read.timestamps, read.key_starts, read.key_lengths, read.value_starts,
                       read.value_lengths)
    )  # fmt: skip
    counts = kept[in_place]
    firsts, timestamps = numpy.cumsum(counts) - counts, columns[1]
    dated = stamp[in_place] | run.stamped[in_place]
    base_timestamps = numpy.where(
        dated, numpy.where(stamp[in_place], horizon, run.base_timestamps[in_place]), timestamps[firsts]
    )  # fmt: skip
    headers = numpy.column_stack((
        run.base_offsets[in_place], run.leader_epochs[in_place], numpy.where(dated, L.DELETE_HORIZON_BIT, 0),
        (run.last_offsets - run.base_offsets)[in_place], base_timestamps, numpy.maximum.reduceat(timestamps, firsts),
        run.producer_ids[in_place], run.producer_epochs[in_place], run.base_sequences[in_place],
    )).astype(numpy.int64)  # fmt: skip
    return RebuiltBatches(
        run.data, cast("SpanColumns", columns), counts, headers, run.attributes[in_place] & L.CODEC_MASK
    )


def _keyed_offsets(batch: RecordBatch, start: int) -> tuple[Sequence[bytes], Sequence[int]]:
    """Keys and offsets of the batch's keyed records at or after ``start``, in C loops when that is all of them."""
    records = batch.records
    keys = record_keys(records)
    if batch.base_offset < start or None in keys:
        records = tuple(r for r in records if r.key is not None and r.offset >= start)
        keys = record_keys(records)
    return cast("Sequence[bytes]", keys), record_offsets(records)


class RecordedWholeBatches(RecordedLoops):
    """:class:`RecordedLoops` over the whole-batch loops: a data batch wholly at or below the map's latest offset whose
    records all have keys is decided and recorded at once, each record with the branch ``shouldRetainRecord`` takes
    for it (:meth:`CleanerFilter.record_rule`): its key's entry outranks it (superseded), else a tombstone (the
    batch's tombstone rule), else no entry (not mapped) or its own (the latest). Every other batch, and one where a
    record outranks its key's entry (the branch that puts into the map), is filtered record by record.
    ``tests/core/cleaner/test_whole_batches.py`` holds both to the same decisions.
    """

    def __init__(self, inner: WholeBatches, decisions: PassDecisions) -> None:
        super().__init__(inner, decisions)
        self.whole = inner

    def retained_records(self, record_filter: CleanerFilter, batch: RecordBatch) -> Sequence[Any]:
        kept = self._retained_at_once(record_filter, batch)
        return super().retained_records(record_filter, batch) if kept is None else kept

    def _retained_at_once(self, record_filter: CleanerFilter, batch: RecordBatch) -> Sequence[Any] | None:
        """The records ``batch`` keeps, its records' decisions recorded; ``None`` when it goes record by record."""
        if (
            record_filter.discard_batch_records
            or batch.is_control
            or batch.last_offset > self.whole.offset_map.latest_offset
            or record_filter.strategy.retains_log_end_record
        ):
            return None
        records = batch.records
        keys = record_keys(records)
        if None in keys:
            return None
        offsets = record_offsets(records)
        entries = self.whole.table.entries_of_keys(cast("Sequence[bytes]", keys))  # -1: no entry
        tombstone = record_filter.tombstone_rule(batch)
        decided = list(map(_rule, offsets, entries, record_values(records), repeat(tombstone)))
        if None in decided:
            return None  # a record outranks its key's entry: Kafka's branch puts it into the map
        rules = cast("list[RecordRule]", decided)
        self.decisions.record_all(map(RecordDecision, offsets, rules, map(_outranking, rules, entries)))
        keep = [rule.kept for rule in rules]
        if isinstance(records, PackedRecords):
            return records if all(keep) else records.subset(list(compress(range(len(keep)), keep)))
        return list(compress(records, keep))


def _rule(offset: int, entry: int, value: bytes | None, tombstone: RecordRule) -> RecordRule | None:
    """``shouldRetainRecord``'s branch for a keyed record at or below the map's latest offset whose key's entry is
    ``entry`` (-1: none), as :meth:`CleanerFilter.record_rule` takes it; ``None`` when the record outranks its entry."""
    if entry > offset:
        return RecordRule.SUPERSEDED
    if 0 <= entry < offset:
        return None
    if value is None:
        return tombstone
    return RecordRule.NOT_MAPPED if entry < 0 else RecordRule.LATEST


def _outranking(rule: RecordRule, entry: int) -> int | None:
    """The offset of the entry that outranked a superseded record (``None`` for every other rule)."""
    return entry if rule is RecordRule.SUPERSEDED else None
