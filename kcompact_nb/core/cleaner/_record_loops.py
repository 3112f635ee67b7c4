"""Kafka's own record loops (:class:`RecordByRecord`: a put per record, ``shouldRetainRecord`` per record) and the
loops of a pass that records every record's rule (:class:`RecordedLoops`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from kcompact_nb.core.cleaner._cleaning import CleanerFilter, Cleaning, RecordLoops
from kcompact_nb.core.cleaner._decisions import PassDecisions, RecordDecision, RecordRule
from kcompact_nb.core.cleaner._filter_to import FilteredBatch
from kcompact_nb.core.cleaner._strategies import rank_offset
from kcompact_nb.core.model import BatchBlock, KeyedRun
from kcompact_nb.record import BatchEncoder, RecordBatch


class RecordByRecord:
    """Kafka's own record loops: ``buildOffsetMapForSegment``'s put per record, ``shouldRetainRecord`` per record."""

    def map_records(self, cleaning: Cleaning, batch: RecordBatch, start: int) -> bool:
        """Record by record, with Kafka's capacity check before every put, even of a key already held (spec 6.3)."""
        stats, offset_map, strategy = cleaning.stats, cleaning.cleaner.offset_map, cleaning.cleaner.strategy
        limit, by_offset = offset_map.max_entries, strategy.ranks_by_offset
        for record in batch.records:
            if record.key is not None and record.offset >= start:
                if limit is not None and offset_map.size >= limit:
                    return True
                if not by_offset and strategy.is_malformed(record):
                    stats.malformed_version_headers += 1
                rank = record.offset if by_offset else strategy.rank(batch, record)
                offset_map.put(record.key, rank, record.offset)
            stats.map_messages_read += 1
        return False

    def map_run(self, cleaning: Cleaning, run: KeyedRun) -> bool:
        """Never: Kafka's loops take a batch's records one by one."""
        return False

    def filter_run(
        self, record_filter: CleanerFilter, block: BatchBlock, run: KeyedRun, *, encoder: BatchEncoder
    ) -> list[FilteredBatch] | None:
        """Never: Kafka's loops filter a batch's records one by one."""
        return None

    def retained_records(self, record_filter: CleanerFilter, batch: RecordBatch) -> Sequence[Any]:
        """``shouldRetainRecord`` on each record, as ``MemoryRecords.filterTo`` asks it."""
        return [r for r in batch.records if record_filter.should_retain_record(batch, r)]


RECORD_BY_RECORD = RecordByRecord()


class RecordedLoops:
    """Record loops that record each record's rule into ``decisions``: the map is built by ``inner``'s loops, records
    are filtered one by one through ``shouldRetainRecord`` (:meth:`CleanerFilter.record_rule`), as Kafka does."""

    def __init__(self, inner: RecordLoops, decisions: PassDecisions) -> None:
        self.inner = inner
        self.decisions = decisions

    def map_records(self, cleaning: Cleaning, batch: RecordBatch, start: int) -> bool:
        return self.inner.map_records(cleaning, batch, start)

    def map_run(self, cleaning: Cleaning, run: KeyedRun) -> bool:
        return self.inner.map_run(cleaning, run)

    def filter_run(
        self, record_filter: CleanerFilter, block: BatchBlock, run: KeyedRun, *, encoder: BatchEncoder
    ) -> list[FilteredBatch] | None:
        """Never: each record's rule is recorded as it is filtered."""
        return None

    def retained_records(self, record_filter: CleanerFilter, batch: RecordBatch) -> Sequence[Any]:
        kept = []
        offset_map, record = record_filter.offset_map, self.decisions.record
        for r in batch.records:
            rule = record_filter.record_rule(batch, r)
            if rule is RecordRule.SUPERSEDED:  # only a keyed record is superseded
                record(RecordDecision(r.offset, rule, rank_offset(offset_map.get(cast("bytes", r.key)))))
            else:
                record(RecordDecision(r.offset, rule))
            if rule.kept:
                kept.append(r)
        return kept
