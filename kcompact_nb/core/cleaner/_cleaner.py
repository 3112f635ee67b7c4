"""Kafka's ``Cleaner``: one cleaning pass over one partition, record by record (spec 6-8, 10).

:func:`do_clean` is ``Cleaner.doClean``: build the offset map over the dirty range (:func:`build_offset_map`,
``buildOffsetMap`` and ``buildOffsetMapForSegment``), group the segments up to where the map ends
(``groupSegmentsBySize``), and rewrite each group into one segment (:func:`clean_segments`, ``cleanSegments``),
source segment by source segment (:func:`clean_into`, ``cleanInto``) through the cleaner's record filter
(:class:`CleanerFilter`: ``checkBatchRetention`` and ``shouldRetainRecord``) and ``MemoryRecords.filterTo``.
Each group of segments is replaced by its cleaned segment as soon as it is written.

A batch's records are walked by the cleaner's :class:`RecordLoops`: Kafka's own loops (:class:`RecordByRecord`),
or the whole-batch paths that decide alike (:mod:`kcompact_nb.core.cleaner._whole_batches`), chosen once per pass
by :func:`~kcompact_nb.core.cleaner._clean_pass.clean_pass`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, Protocol, cast

import numpy

from kcompact_nb.core.cleaner._cleaned_txn import CleanedTransactionMetadata
from kcompact_nb.core.cleaner._cleaner_stats import CleanerStats
from kcompact_nb.core.cleaner._decisions import PassDecisions, PassStop, RecordDecision, RecordRule
from kcompact_nb.core.cleaner._failure import CleanerThrew, index_full, oversized_record, record_too_large
from kcompact_nb.core.cleaner._filter_to import (
    BatchRetention,
    BatchRetentionResult,
    FilteredBatch,
    FilterResult,
    filter_to,
)
from kcompact_nb.core.cleaner._grouping import group_segments_by_size
from kcompact_nb.core.cleaner._log_to_clean import segments_overlapping
from kcompact_nb.core.cleaner._offset_map import ExactOffsetMap, OffsetMap
from kcompact_nb.core.cleaner._strategies import Strategy, rank_offset
from kcompact_nb.core.model import (
    AbortedTxn,
    BatchBlock,
    BrokerConfig,
    IndexFullError,
    KeyedRun,
    LogStorage,
    PartitionLog,
    RuleB,
    Segment,
)
from kcompact_nb.record import NO_SEQUENCE, BatchEncoder, RecordBatch


class RecordLoops(Protocol):
    """How the pass walks one batch's records: into the offset map, and through the record filter."""

    def map_records(self, cleaning: Cleaning, batch: RecordBatch, start: int) -> bool:
        """Put the batch's keyed records at or after ``start`` into the map; True when the map filled up."""
        ...

    def map_run(self, cleaning: Cleaning, run: KeyedRun) -> bool:
        """Put a keyed run's records (all at or after the range's start) into the map at once; False (nothing put)
        when these loops do not take runs, or the map might fill within it (then its batches go one by one)."""
        ...

    def filter_run(
        self, record_filter: CleanerFilter, block: BatchBlock, run: KeyedRun, *, encoder: BatchEncoder
    ) -> list[FilteredBatch] | None:
        """What ``filterTo`` makes of each batch of ``block``'s keyed run, decided at once; None when these loops do
        not take runs or this one (then its batches are filtered one by one)."""
        ...

    def retained_records(self, record_filter: CleanerFilter, batch: RecordBatch) -> Sequence[Any]:
        """The batch's records for which ``shouldRetainRecord`` holds, in order (a list, or packed records)."""
        ...


@dataclass(frozen=True)
class Cleaner:
    """What a cleaner thread brings to every pass (Kafka's ``Cleaner``): its offset map and read buffer (sized from
    ``broker``), the strategy that ranks records, where segments are read and written, and its record loops."""

    offset_map: OffsetMap
    strategy: Strategy
    broker: BrokerConfig
    storage: LogStorage
    loops: RecordLoops
    decisions: PassDecisions | None = None
    """Where the pass records what it decided (``None``: nothing is recorded)."""


@dataclass
class Cleaning:
    """One pass's state: the cleaner, the log, and what ``doClean`` hands ``cleanSegments`` and ``cleanInto``."""

    cleaner: Cleaner
    log: PartitionLog
    now_ms: int
    upper_bound_offset: int | None
    """The offset whose preceding batch rule B keeps (``upperBoundOffsetOfCleaningRound``; per Kafka version)."""
    legacy_delete_horizon_ms: int
    stats: CleanerStats = field(default_factory=CleanerStats)


class Cleaned(NamedTuple):
    """What ``doClean`` returns: the first offset not cleaned (the new checkpoint) and the pass's statistics, with
    whether the offset map filled up and the base offsets of each group cleaned."""

    end_offset: int
    stats: CleanerStats
    map_full: bool
    groups: tuple[tuple[int, ...], ...]


def do_clean(
    cleaner: Cleaner, log: PartitionLog, *, first_dirty_offset: int, first_uncleanable_offset: int, now_ms: int
) -> Cleaned:
    """Clean ``[first_dirty_offset, first_uncleanable_offset)`` of ``log`` at ``now_ms`` (``Cleaner.doClean``).

    ``first_uncleanable_offset`` is a segment's base offset (``LogToClean``'s). Called on an empty range, the pass
    ends at offset 0, as Kafka's would.
    """
    cleaning = Cleaning(
        cleaner,
        log,
        now_ms,
        upper_bound_offset=_rule_b_upper_bound(log, cleaner.broker, first_uncleanable_offset),
        legacy_delete_horizon_ms=_legacy_delete_horizon_ms(log, first_dirty_offset),
    )
    offset_map = cleaner.offset_map
    full = build_offset_map(cleaning, first_dirty_offset, first_uncleanable_offset)
    if full and cleaner.decisions is not None:
        cleaner.decisions.stop = PassStop.MAP_FULL
    end_offset = offset_map.latest_offset + 1
    segments = segments_overlapping(log, -1, end_offset)
    _check_codecs(log, {codec for segment in segments for codec in segment.codecs})
    groups = group_segments_by_size(
        segments,
        max_size_bytes=log.config.effective_segment_bytes,
        max_index_bytes=log.config.segment_index_bytes,
        first_uncleanable_offset=first_uncleanable_offset,
    )
    transactions = CleanedTransactionMetadata()
    for group in groups:
        clean_segments(cleaning, group, transactions)
    cleaning.stats.buffer_utilization = offset_map.utilization
    return Cleaned(end_offset, cleaning.stats, full, tuple(tuple(s.base_offset for s in g) for g in groups))


def _check_codecs(log: PartitionLog, codecs: set[str]) -> None:
    """Fail before any segment is replaced when a codec the pass may rewrite cannot be encoded here."""
    for codec in sorted(codecs - {"none"}):
        log.encoder.check_available(codec)


def _rule_b_upper_bound(log: PartitionLog, broker: BrokerConfig, first_uncleanable_offset: int) -> int | None:
    """The offset whose preceding batch rule B keeps, per ``kafka.version`` (spec 7.3, 15)."""
    rule = broker.version.rule_b
    if rule is RuleB.FIRST_UNCLEANABLE_OFFSET:
        return first_uncleanable_offset
    if rule is RuleB.HIGH_WATERMARK:
        return log.high_watermark
    return None


def _legacy_delete_horizon_ms(log: PartitionLog, first_dirty_offset: int) -> int:
    """Before Kafka 3.1 (and for magic < 2): last clean segment's mtime minus ``delete.retention.ms`` (spec 7.1)."""
    clean = segments_overlapping(log, -1, first_dirty_offset)
    return clean[-1].last_modified_ms - log.config.delete_retention_ms if clean else 0


def collect_aborted_transactions(log: PartitionLog, start: int, upper: int) -> list[AbortedTxn]:
    """Aborted transactions overlapping ``[log start, upper)`` indexed at or after ``start``'s segment."""
    return [
        entry
        for segment in segments_overlapping(log, start, log.log_end_offset + 1)
        for entry in segment.aborted_transactions
        if entry.last_offset >= log.log_start_offset and entry.first_offset < upper
    ]


class ReadBuffer:
    """The cleaner's read buffer as batches are read into it: complete batches that fit, the buffer growing for a big
    one (up to ``limit``, or the batch's size past it)."""

    def __init__(self, capacity: int, limit: int) -> None:
        self.initial = self.capacity = capacity
        self.limit = limit
        self.filled = 0
        """Bytes of the batches in the buffer."""

    def read(self, size: int) -> int:
        """Read a batch of ``size`` bytes; the bytes of the buffer's batches before it when it did not fit with them (a
        full buffer was read), else 0."""
        done = 0
        if self.filled + size > self.capacity and self.filled:
            done, self.filled = self.filled, 0
        while size > self.capacity:
            ceiling = self.limit if self.capacity < self.limit else size
            self.capacity = min(self.capacity * 2, max(ceiling, self.initial))
        self.filled += size
        return done


def _read_buffer_bytes(broker: BrokerConfig) -> int:
    """Per-thread read buffer: ``log.cleaner.io.buffer.size / threads / 2``."""
    return max(broker.log_cleaner_io_buffer_size // max(broker.log_cleaner_threads, 1) // 2, 1)


# -- buildOffsetMap ------------------------------------------------------------------------------


def build_offset_map(cleaning: Cleaning, start: int, end: int) -> bool:
    """Index the dirty range into the map (``buildOffsetMap``); True when the map filled up (spec 6.3)."""
    log, offset_map = cleaning.log, cleaning.cleaner.offset_map
    dirty = segments_overlapping(log, start, end)
    transactions = CleanedTransactionMetadata()
    transactions.add_aborted_transactions(collect_aborted_transactions(log, start, end))
    for i, segment in enumerate(dirty):
        if _build_offset_map_for_segment(cleaning, segment, transactions, start):
            return True
        offset_map.latest_offset = (dirty[i + 1].base_offset if i + 1 < len(dirty) else end) - 1
    return False


def offset_map_keys(log: PartitionLog, *, start: int, end: int, strategy: Strategy, now_ms: int) -> set[bytes]:
    """The keys ``buildOffsetMap`` puts into a map large enough for ``[start, end)`` of ``log`` (markers and aborted
    data are never mapped); the log is not modified."""
    offset_map = ExactOffsetMap()
    cleaner = Cleaner(offset_map, strategy, log.broker, log.storage, loops=RECORD_BY_RECORD)
    build_offset_map(Cleaning(cleaner, log, now_ms, None, 0), start, end)
    return set(offset_map.entries())


def _build_offset_map_for_segment(
    cleaning: Cleaning, segment: Segment, transactions: CleanedTransactionMetadata, start: int
) -> bool:
    """Index one segment from ``start``'s position, read buffer by read buffer (``buildOffsetMapForSegment``).

    A block of the segment read as a keyed run goes into the map at once when the record loops take it (the map
    cannot fill within it): the same entries, counts and read buffers as its batches one by one.
    """
    cleaner, stats = cleaning.cleaner, cleaning.stats
    buffer = ReadBuffer(_read_buffer_bytes(cleaner.broker), cleaning.log.config.max_message_bytes)
    runs = cleaning.log.config.record_body_bound is None  # else each compressed batch's records are measured
    for block in cleaner.storage.blocks(segment, segment.lookup_position(start)):
        run = block.keyed_run() if runs else None
        if run is not None and run.base_offset >= start and cleaner.loops.map_run(cleaning, run):
            transactions.on_plain_batches_read(run.last_offset)
            stats.map_bytes_read += sum(map(buffer.read, run.sizes.tolist()))
            stats.map_messages_read += len(run.records.offsets)
            cleaner.offset_map.latest_offset = run.last_offset
            continue
        for batch in block.batches():
            stats.map_bytes_read += buffer.read(batch.size_bytes)
            if _map_batch(cleaning, batch, transactions, start):
                return True
            if batch.last_offset >= start:
                cleaner.offset_map.latest_offset = batch.last_offset
    stats.map_bytes_read += buffer.filled
    return False


def _map_batch(cleaning: Cleaning, batch: RecordBatch, transactions: CleanedTransactionMetadata, start: int) -> bool:
    """Index one batch; True when the map filled up. Markers and aborted data are not indexed."""
    stats = cleaning.stats
    if batch.is_control:
        transactions.on_control_batch_read(batch)
        stats.map_messages_read += 1
        return False
    if transactions.on_batch_read(batch):
        stats.map_messages_read += len(batch.records)
        return False
    bound = cleaning.log.config.record_body_bound
    oversized = None if bound is None else oversized_record(batch, bound)
    if oversized is None:
        return cleaning.cleaner.loops.map_records(cleaning, batch, start)
    # the records before it are read (and mapped, unless the map fills up first); reading it throws
    if cleaning.cleaner.loops.map_records(cleaning, replace(batch, records=batch.records[:oversized]), start):
        return True
    raise record_too_large(batch, oversized, cast("int", bound))


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


# -- cleanSegments, cleanInto ---------------------------------------------------------------------


def clean_segments(cleaning: Cleaning, group: list[Segment], transactions: CleanedTransactionMetadata) -> None:
    """Rewrite one group into a new segment named after its first segment, then swap it in (``cleanSegments``)."""
    log, storage = cleaning.log, cleaning.cleaner.storage
    cleaned = storage.cleaned_segment(
        group[0].base_offset,
        created_ms=cleaning.now_ms,
        index_interval_bytes=log.config.index_interval_bytes,
        indexes_each_batch=log.broker.version.indexes_each_batch,
    )
    cleaned.rewritten_by_cleaner = True
    cleaned.max_index_bytes = log.config.segment_index_bytes  # its indexes are preallocated (spec 8.4)
    transactions.cleaned_index = cleaned.aborted_transactions
    producers = _last_records_of_active_producers(log)
    for i, source in enumerate(group):
        upper = group[i + 1].base_offset if i + 1 < len(group) else _read_next_offset(source)
        if not log.broker.version.carries_transactions_across_segments:
            # before 2.2.2 (KAFKA-8351) each source segment began with fresh bookkeeping: a marker in a later segment
            # than its transaction's data counts as having no data, and its aborted entry is not re-indexed
            transactions = CleanedTransactionMetadata()
            transactions.cleaned_index = cleaned.aborted_transactions
        transactions.add_aborted_transactions(collect_aborted_transactions(log, source.base_offset, upper))
        retain_legacy_deletes = source.last_modified_ms > cleaning.legacy_delete_horizon_ms
        record_filter = CleanerFilter(cleaning, transactions, producers, retain_legacy_deletes)
        clean_into(cleaning, source, cleaned, record_filter)
    cleaned.on_become_inactive()
    cleaned.last_modified_ms = group[-1].last_modified_ms
    storage.replace(log.segments, group, cleaned)


def _read_next_offset(segment: Segment) -> int:
    return segment.base_offset if segment.last_offset is None else segment.last_offset + 1


class _LastRecord(NamedTuple):
    """What rule A knows of an active producer (``LastRecord``; before 2.2.1 only its last sequence)."""

    last_data_offset: int | None
    producer_epoch: int
    last_sequence: int


def _last_records_of_active_producers(log: PartitionLog) -> dict[int, _LastRecord]:
    """producer id -> its last data offset (None when none), epoch and last sequence (``lastRecordsOfActiveProducers``,
    before 2.2.1 ``activeProducersWithLastSequence``)."""
    return {
        pid: _LastRecord(entry.last_data_offset if entry.last_data_offset >= 0 else None, entry.producer_epoch,
                         entry.last_sequence)
        for pid, entry in log.producer_state.producers.items()
    }  # fmt: skip


_INT_MAX = 2**31 - 1


def _last_sequence(batch: RecordBatch) -> int:
    """``DefaultRecordBatch.lastSequence``: the base sequence plus the offset delta, wrapping past 2^31 - 1."""
    if batch.base_sequence == NO_SEQUENCE:
        return NO_SEQUENCE
    delta = batch.last_offset - batch.base_offset
    if batch.base_sequence > _INT_MAX - delta:
        return delta - (_INT_MAX - batch.base_sequence) - 1
    return batch.base_sequence + delta


def clean_into(cleaning: Cleaning, source: Segment, cleaned: Segment, record_filter: CleanerFilter) -> None:
    """Filter one source segment read buffer by read buffer, appending each buffer's survivors (``cleanInto``).

    A block of the segment read as a keyed run is filtered at once when the record loops take it: the same batches
    written, counts and appends as its batches one by one.
    """
    log, cleaner = cleaning.log, cleaning.cleaner
    buffer = ReadBuffer(_read_buffer_bytes(cleaner.broker), log.config.max_message_bytes)
    bound = log.config.record_body_bound
    result = FilterResult([])
    for block in cleaner.storage.blocks(source, 0):
        run = block.keyed_run() if bound is None else None
        outcomes = None if run is None else cleaner.loops.filter_run(record_filter, block, run, encoder=log.encoder)
        if run is None or outcomes is None:
            for batch in block.batches():
                if buffer.read(batch.size_bytes):
                    result = _appended(cleaning, cleaned, result)
                try:
                    filter_to((batch,), record_filter, encoder=log.encoder, kafka_version=cleaner.broker.version,
                              decisions=cleaner.decisions, record_body_bound=bound, into=result)  # fmt: skip
                except CleanerThrew as error:  # filterTo threw: this read buffer's survivors are never appended
                    raise CleanerThrew(error.exception, error.message, cleaned) from error
            continue
        for size, records, outcome in zip(run.sizes.tolist(), run.counts.tolist(), outcomes, strict=True):
            if buffer.read(size):
                result = _appended(cleaning, cleaned, result)
            result.bytes_read += size
            result.messages_read += records
            if outcome.output is not None:
                result.kept(outcome.output, outcome.retained, outcome.max_offset)
    _appended(cleaning, cleaned, result)


def _appended(cleaning: Cleaning, cleaned: Segment, result: FilterResult) -> FilterResult:
    """Count one read buffer's filtering and append its survivors to ``cleaned``; a result for the next buffer."""
    stats = cleaning.stats
    stats.messages_read += result.messages_read
    stats.bytes_read += result.bytes_read
    stats.messages_written += result.messages_retained
    stats.bytes_written += result.bytes_retained
    try:
        cleaned.append(result.batches, cleaning.now_ms, largest_offset=result.max_offset)
    except IndexFullError as error:  # LogSegment.append writes the batches, then its index entry throws
        raise index_full(error, cleaning.cleaner.broker.version, cleaned) from error
    return FilterResult([])


class CleanerFilter:
    """The cleaner's ``MemoryRecords.RecordFilter`` for one source segment: rules A-D per batch, spec 7.4 per record."""

    def __init__(
        self,
        cleaning: Cleaning,
        transactions: CleanedTransactionMetadata,
        producers: dict[int, _LastRecord],
        retain_legacy_deletes: bool,
    ) -> None:
        self.cleaning = cleaning
        self.transactions = transactions
        self.producers = producers
        self.retain_legacy_deletes = retain_legacy_deletes
        """Kafka's ``retainLegacyDeletesAndTxnMarkers``: the source segment is newer than the legacy horizon."""
        self.discard_batch_records = False
        self.offset_map, self.strategy = cleaning.cleaner.offset_map, cleaning.cleaner.strategy
        self.now_ms = cleaning.now_ms
        self.delete_retention_ms = cleaning.log.config.delete_retention_ms

    def check_batch_retention(self, batch: RecordBatch) -> BatchRetentionResult:
        """Rules A-D of spec 7.3 (``checkBatchRetention``)."""
        if batch.is_control:
            can_discard = self.transactions.on_control_batch_read(batch)
            if self.cleaning.cleaner.broker.version.has_batch_delete_horizon:
                horizon = batch.delete_horizon_ms
                self.discard_batch_records = can_discard and horizon is not None and horizon <= self.now_ms
            else:
                self.discard_batch_records = can_discard and not self.retain_legacy_deletes
        else:
            can_discard = self.transactions.on_batch_read(batch)
            self.discard_batch_records = can_discard
        # Kept even when emptied: the last batch of an active producer (its sequence and epoch, rule A) and
        # the batch that ends the cleaning round (its last offset, rule B).
        keeps_producer_state = batch.has_producer_id and self._is_batch_last_record_of_producer(batch)
        upper_bound = self.cleaning.upper_bound_offset
        ends_round = upper_bound is not None and batch.next_offset == upper_bound
        if keeps_producer_state or ends_round:
            retention = BatchRetention.RETAIN_EMPTY
        elif self.discard_batch_records:
            retention = BatchRetention.DELETE
        else:
            retention = BatchRetention.DELETE_EMPTY
        return BatchRetentionResult(
            retention,
            can_discard and batch.is_control,
            last_batch_of_producer=batch.producer_id if keeps_producer_state else None,
            ends_round=ends_round,
        )

    def _is_batch_last_record_of_producer(self, batch: RecordBatch) -> bool:
        last = self.producers.get(batch.producer_id)
        if last is None:
            return False
        if not self.cleaning.cleaner.broker.version.keeps_last_batch_by_offset:
            # before 2.2.1 (KAFKA-8335): any batch ending at the producer's last sequence, whatever its epoch
            return _last_sequence(batch) == last.last_sequence
        if last.last_data_offset is not None:
            return batch.last_offset == last.last_data_offset
        return batch.is_control and batch.producer_epoch == last.producer_epoch

    def retained_records(self, batch: RecordBatch) -> Sequence[Any]:
        """The records of ``batch`` that survive (``shouldRetainRecord`` on each, by the cleaner's record loops)."""
        return self.cleaning.cleaner.loops.retained_records(self, batch)

    def should_retain_record(self, batch: RecordBatch, record: Any) -> bool:
        """Spec 7.4 (``shouldRetainRecord``), with the strategy's rank in place of the offset."""
        return self.record_rule(batch, record).kept

    def record_rule(self, batch: RecordBatch, record: Any) -> RecordRule:
        """The branch of ``shouldRetainRecord`` that decides ``record`` (:meth:`should_retain_record` keeps it when
        the rule is a keeping one)."""
        if self.discard_batch_records:
            return RecordRule.MARKER_DISCARDED if batch.is_control else RecordRule.ABORTED
        if batch.is_control:
            return RecordRule.MARKER
        cleaning, offset_map, strategy = self.cleaning, self.offset_map, self.strategy
        if record.offset > offset_map.latest_offset:
            return RecordRule.UNREAD_BY_MAP
        if strategy.retains_log_end_record and record.offset == cleaning.log.log_end_offset - 1:
            return RecordRule.LOG_END
        if record.key is None:
            cleaning.stats.invalid_messages_read += 1
            return RecordRule.KEYLESS
        rank = record.offset if strategy.ranks_by_offset else strategy.rank(batch, record)
        found = offset_map.get(record.key)
        if found is not None and rank < found:
            return RecordRule.SUPERSEDED
        outranks = found is not None and rank > found
        if outranks:
            offset_map.put(record.key, rank, offset_map.latest_offset)  # KIP-280: a clean record beats the dirty winner
        if record.value is None:
            return self.tombstone_rule(batch)
        if outranks:
            return RecordRule.OUTRANKS_ENTRY
        return RecordRule.NOT_MAPPED if found is None else RecordRule.LATEST

    def retains_deletes(self, batch: RecordBatch) -> bool:
        """Whether tombstones stay.

        Before Kafka 3.1 while the segment is newer than the legacy horizon, from 3.1 on until the batch's horizon.
        """
        return self.tombstone_rule(batch).kept

    def retains_deletes_of_run(self, run: KeyedRun) -> Any:
        """:meth:`retains_deletes` for each batch of a keyed run (a numpy bool array)."""
        if not self.cleaning.cleaner.broker.version.has_batch_delete_horizon:
            return numpy.full(len(run.counts), self.retain_legacy_deletes)
        return ~run.stamped | (self.now_ms < run.base_timestamps)

    def tombstone_rule(self, batch: RecordBatch) -> RecordRule:
        """Whether a tombstone of ``batch`` stays, as the rule that decides it (:meth:`retains_deletes`)."""
        if not self.cleaning.cleaner.broker.version.has_batch_delete_horizon:
            if self.retain_legacy_deletes:
                return RecordRule.LEGACY_TOMBSTONE_RETAINED
            return RecordRule.LEGACY_TOMBSTONE_EXPIRED
        horizon = batch.delete_horizon_ms
        if horizon is None:
            return RecordRule.TOMBSTONE_UNSTAMPED
        return RecordRule.TOMBSTONE_BEFORE_HORIZON if self.now_ms < horizon else RecordRule.TOMBSTONE_PAST_HORIZON
