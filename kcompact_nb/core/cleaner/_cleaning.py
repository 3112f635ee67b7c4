"""One pass's state and how it decides a record: the :class:`Cleaner` a pass runs with, its :class:`Cleaning` state,
the cleaner's record filter (:class:`CleanerFilter`: ``checkBatchRetention`` and ``shouldRetainRecord``, spec 7.3-7.4)
and the :class:`RecordLoops` that walk a batch's records into the offset map and through that filter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import numpy

from kcompact_nb.core.cleaner._cleaned_txn import CleanedTransactionMetadata
from kcompact_nb.core.cleaner._cleaner_stats import CleanerStats
from kcompact_nb.core.cleaner._decisions import PassDecisions, RecordRule
from kcompact_nb.core.cleaner._filter_to import BatchRetention, BatchRetentionResult, FilteredBatch
from kcompact_nb.core.cleaner._offset_map import OffsetMap
from kcompact_nb.core.cleaner._strategies import Strategy
from kcompact_nb.core.model import BatchBlock, BrokerConfig, KeyedRun, LogStorage, PartitionLog
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


class _LastRecord(NamedTuple):
    """What rule A knows of an active producer (``LastRecord``; before 2.2.1 only its last sequence)."""

    last_data_offset: int | None
    producer_epoch: int
    last_sequence: int


def last_records_of_active_producers(log: PartitionLog) -> dict[int, _LastRecord]:
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
