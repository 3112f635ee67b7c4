"""One cleaning pass over one partition, as Kafka's ``Cleaner`` does it (spec 6-8, 10).

:func:`clean_pass` is ``doClean``: build the offset map over the dirty range (``buildOffsetMap``), group the
segments up to where the map ends (``groupSegmentsBySize``), and rewrite each group into one segment
(``cleanSegments``), source segment by source segment (``cleanInto``) through the cleaner's record filter
(:class:`_CleanerFilter`: ``checkBatchRetention`` and ``shouldRetainRecord``) and ``MemoryRecords.filterTo``.
The pass mutates the log: each group of segments is replaced by its cleaned segment as soon as it is
written, and the checkpoint moves to the pass's end offset. The fast paths that make large passes quick
live apart, in :mod:`kcompact_nb.core.cleaner._fast_paths`, and decide exactly as the rules here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kcompact_nb.core.cleaner._cleaned_txn import CleanedTransactionMetadata
from kcompact_nb.core.cleaner._cleaner_stats import CleanerStats, log_line, throttled_elapsed
from kcompact_nb.core.cleaner._fast_paths import bulk_map, cyclic_gc_paused, map_batch_at_once, retained_at_once
from kcompact_nb.core.cleaner._filter_to import BatchRetention, BatchRetentionResult, filter_to
from kcompact_nb.core.cleaner._grouping import group_segments_by_size
from kcompact_nb.core.cleaner._log_to_clean import segment_aligned_uncleanable_offset, segments_overlapping
from kcompact_nb.core.cleaner._offset_map import BoundedOffsetMap, BulkOffsetMap, OffsetMap
from kcompact_nb.core.cleaner._segment_storage import InMemoryStorage, SegmentStorage, offset_table_for
from kcompact_nb.core.cleaner._strategies import Strategy, strategy_for
from kcompact_nb.core.model import NO_SEQUENCE, AbortedTxn, BrokerConfig, PartitionLog, RecordBatch, RuleB, Segment

_INT_MAX = 2**31 - 1


@dataclass(frozen=True)
class PassResult:
    """What one pass did: its range, end offset (the new checkpoint), groups, stats and log line."""

    topic: str
    partition: int
    first_dirty_offset: int
    first_uncleanable_offset: int
    end_offset: int
    cleanable_ratio: float
    start_ms: int
    end_ms: int
    stats: CleanerStats
    log_line: str
    groups: tuple[tuple[int, ...], ...]
    offset_map: OffsetMap = field(repr=False)
    map_full: bool = False

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass
class _Pass:
    """What every step of one pass shares (Kafka passes it as ``cleanSegments``' and ``cleanInto``'s parameters)."""

    log: PartitionLog
    broker: BrokerConfig
    offset_map: OffsetMap
    strategy: Strategy
    now_ms: int
    upper_bound_offset: int | None
    """The offset whose preceding batch rule B keeps (``upperBoundOffsetOfCleaningRound``; per Kafka version)."""
    legacy_delete_horizon_ms: int
    stats: CleanerStats
    storage: SegmentStorage
    """Where the source segments' batches are read and the cleaned segments kept."""
    bulk: BulkOffsetMap | None = None
    """The map again when it takes whole batches and the strategy ranks by offset: the fast paths apply."""


def clean_pass(
    log: PartitionLog,
    *,
    now_ms: int,
    first_dirty_offset: int,
    first_uncleanable_offset: int,
    offset_map: OffsetMap | None = None,
    strategy: Strategy | None = None,
    cleanable_ratio: float = 0.0,
    broker: BrokerConfig | None = None,
    thread_id: int = 0,
    storage: SegmentStorage | None = None,
) -> PassResult:
    """Clean ``[first_dirty_offset, first_uncleanable_offset)`` of ``log`` at ``now_ms`` (``Cleaner.doClean``).

    ``offset_map`` defaults to one cleaner thread's bounded map from the broker config (``broker``,
    default the log's), sized for the strategy's entry bytes; ``strategy`` defaults to the topic's
    ``compaction.strategy``. ``first_uncleanable_offset`` is rounded down to its segment's base offset,
    as ``LogToClean`` does. Called on an empty range, the pass ends at offset 0, as Kafka's would.
    ``storage`` says where the batches are read and the cleaned segments kept (default: in ``log``).
    """
    first_uncleanable_offset = segment_aligned_uncleanable_offset(log, first_uncleanable_offset)
    broker = broker or log.broker
    strategy = strategy or strategy_for(log.config)
    storage = storage or InMemoryStorage()
    offset_map = offset_map or BoundedOffsetMap.for_broker(
        broker,
        entry_bytes=strategy.entry_bytes,
        streaming=storage.streams,
        table=offset_table_for(storage, strategy),
    )
    cleaning = _Pass(
        log=log,
        broker=broker,
        offset_map=offset_map,
        strategy=strategy,
        now_ms=now_ms,
        upper_bound_offset=_rule_b_upper_bound(log, broker, first_uncleanable_offset),
        legacy_delete_horizon_ms=_legacy_delete_horizon_ms(log, first_dirty_offset),
        stats=CleanerStats(),
        storage=storage,
        bulk=bulk_map(offset_map) if strategy.ranks_by_offset else None,
    )
    with cyclic_gc_paused():
        full = build_offset_map(cleaning, first_dirty_offset, first_uncleanable_offset)
        end_offset = offset_map.latest_offset + 1
        segments = segments_overlapping(log, -1, end_offset)
        _check_codecs(log, cleaning.storage.codecs(segments))
        groups = group_segments_by_size(
            segments,
            max_size_bytes=log.config.effective_segment_bytes,
            max_index_bytes=log.config.segment_index_bytes,
            first_uncleanable_offset=first_uncleanable_offset,
        )
        transactions = CleanedTransactionMetadata()
        for group in groups:
            clean_segments(cleaning, group, transactions)
    log.cleaner_checkpoint = end_offset
    cleaning.stats.buffer_utilization = offset_map.utilization
    throttled_elapsed(cleaning.stats, broker)
    line = log_line(
        cleaning.stats,
        thread_id=thread_id,
        log_name=log.name,
        first_dirty_offset=first_dirty_offset,
        end_offset=end_offset if broker.version.logs_dirty_section_end else first_dirty_offset,
    )
    return PassResult(
        topic=log.topic,
        partition=log.partition,
        first_dirty_offset=first_dirty_offset,
        first_uncleanable_offset=first_uncleanable_offset,
        end_offset=end_offset,
        cleanable_ratio=cleanable_ratio,
        start_ms=now_ms,
        end_ms=now_ms + round(cleaning.stats.elapsed_secs * 1000),
        stats=cleaning.stats,
        log_line=line,
        groups=tuple(tuple(s.base_offset for s in g) for g in groups),
        offset_map=offset_map,
        map_full=full,
    )


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


def read_chunks(
    batches: Iterable[RecordBatch], *, capacity: int, limit: int
) -> Iterator[tuple[list[RecordBatch], int]]:
    """Batches as the cleaner reads them: complete batches fitting its read buffer, which grows for big ones."""
    initial, total = capacity, 0
    chunk: list[RecordBatch] = []
    for batch in batches:
        size = batch.size_bytes
        if total + size > capacity and chunk:
            yield chunk, total
            chunk, total = [], 0
        while size > capacity:
            capacity = min(capacity * 2, max(limit if capacity < limit else size, initial))
        chunk.append(batch)
        total += size
    if chunk:
        yield chunk, total


def _read_buffer_bytes(broker: BrokerConfig) -> int:
    """Per-thread read buffer: ``log.cleaner.io.buffer.size / threads / 2``."""
    return max(broker.log_cleaner_io_buffer_size // max(broker.log_cleaner_threads, 1) // 2, 1)


# -- buildOffsetMap ------------------------------------------------------------------------------


def build_offset_map(cleaning: _Pass, start: int, end: int) -> bool:
    """Index the dirty range into the map (``buildOffsetMap``); True when the map filled up (spec 6.3)."""
    log, offset_map = cleaning.log, cleaning.offset_map
    dirty = segments_overlapping(log, start, end)
    transactions = CleanedTransactionMetadata()
    transactions.add_aborted_transactions(collect_aborted_transactions(log, start, end))
    for i, segment in enumerate(dirty):
        if _build_offset_map_for_segment(cleaning, segment, transactions, start):
            return True
        offset_map.latest_offset = (dirty[i + 1].base_offset if i + 1 < len(dirty) else end) - 1
    return False


def _build_offset_map_for_segment(
    cleaning: _Pass, segment: Segment, transactions: CleanedTransactionMetadata, start: int
) -> bool:
    """Index one segment from ``start``'s position, read buffer by read buffer (``buildOffsetMapForSegment``)."""
    for chunk, chunk_bytes in read_chunks(
        cleaning.storage.batches(segment, segment.lookup_position(start)),
        capacity=_read_buffer_bytes(cleaning.broker),
        limit=cleaning.log.config.max_message_bytes,
    ):
        for batch in chunk:
            if _map_batch(cleaning, batch, transactions, start):
                return True
            if batch.last_offset >= start:
                cleaning.offset_map.latest_offset = batch.last_offset
        cleaning.stats.map_bytes_read += chunk_bytes
    return False


def _map_batch(cleaning: _Pass, batch: RecordBatch, transactions: CleanedTransactionMetadata, start: int) -> bool:
    """Index one batch; True when the map filled up. Markers and aborted data are not indexed."""
    stats = cleaning.stats
    if batch.is_control:
        transactions.on_control_batch_read(batch)
        stats.map_messages_read += 1
        return False
    if transactions.on_batch_read(batch) or (
        cleaning.bulk is not None and map_batch_at_once(cleaning.bulk, batch, start)
    ):
        stats.map_messages_read += len(batch.records)
        return False
    return _map_records(cleaning, batch, start)


def _map_records(cleaning: _Pass, batch: RecordBatch, start: int) -> bool:
    """Record by record, with Kafka's capacity check before every put, even of a key already held (spec 6.3)."""
    stats, offset_map, strategy = cleaning.stats, cleaning.offset_map, cleaning.strategy
    limit, by_offset = offset_map.max_entries, strategy.ranks_by_offset
    for record in batch.records:
        if record.key is not None and record.offset >= start:
            if limit is not None and offset_map.size >= limit:
                return True
            if not by_offset and strategy.is_malformed(record):
                stats.malformed_version_headers += 1
            offset_map.put(record.key, record.offset if by_offset else strategy.rank(batch, record), record.offset)
        stats.map_messages_read += 1
    return False


# -- cleanSegments, cleanInto ---------------------------------------------------------------------


def clean_segments(cleaning: _Pass, group: list[Segment], transactions: CleanedTransactionMetadata) -> None:
    """Rewrite one group into a new segment named after its first segment, then swap it in (``cleanSegments``)."""
    log = cleaning.log
    cleaned = cleaning.storage.cleaned_segment(
        group[0].base_offset,
        created_ms=cleaning.now_ms,
        index_interval_bytes=log.config.index_interval_bytes,
        indexes_each_batch=log.broker.version.indexes_each_batch,
    )
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
        record_filter = _CleanerFilter(cleaning, transactions, producers, retain_legacy_deletes)
        clean_into(cleaning, source, cleaned, record_filter)
    cleaned.on_become_inactive()
    cleaned.last_modified_ms = group[-1].last_modified_ms
    cleaning.storage.replace(log, group, cleaned)


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


def _last_sequence(batch: RecordBatch) -> int:
    """``DefaultRecordBatch.lastSequence``: the base sequence plus the offset delta, wrapping past 2^31 - 1."""
    if batch.base_sequence == NO_SEQUENCE:
        return NO_SEQUENCE
    delta = batch.last_offset - batch.base_offset
    if batch.base_sequence > _INT_MAX - delta:
        return delta - (_INT_MAX - batch.base_sequence) - 1
    return batch.base_sequence + delta


def clean_into(cleaning: _Pass, source: Segment, cleaned: Segment, record_filter: _CleanerFilter) -> None:
    """Filter one source segment read buffer by read buffer, appending each buffer's survivors (``cleanInto``)."""
    log, stats = cleaning.log, cleaning.stats
    for chunk, _ in read_chunks(
        cleaning.storage.batches(source, 0),
        capacity=_read_buffer_bytes(cleaning.broker),
        limit=log.config.max_message_bytes,
    ):
        result = filter_to(chunk, record_filter, encoder=log.encoder, kafka_version=cleaning.broker.version)
        stats.messages_read += result.messages_read
        stats.bytes_read += result.bytes_read
        stats.messages_written += result.messages_retained
        stats.bytes_written += result.bytes_retained
        cleaned.append(result.batches, cleaning.now_ms, largest_offset=result.max_offset)


class _CleanerFilter:
    """The cleaner's ``MemoryRecords.RecordFilter`` for one source segment: rules A-D per batch, spec 7.4 per record."""

    def __init__(
        self,
        cleaning: _Pass,
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
        self.now_ms = cleaning.now_ms
        self.delete_retention_ms = cleaning.log.config.delete_retention_ms

    def check_batch_retention(self, batch: RecordBatch) -> BatchRetentionResult:
        """Rules A-D of spec 7.3 (``checkBatchRetention``)."""
        if batch.is_control:
            can_discard = self.transactions.on_control_batch_read(batch)
            if self.cleaning.broker.version.has_batch_delete_horizon:
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
        return BatchRetentionResult(retention, can_discard and batch.is_control)

    def _is_batch_last_record_of_producer(self, batch: RecordBatch) -> bool:
        last = self.producers.get(batch.producer_id)
        if last is None:
            return False
        if not self.cleaning.broker.version.keeps_last_batch_by_offset:
            # before 2.2.1 (KAFKA-8335): any batch ending at the producer's last sequence, whatever its epoch
            return _last_sequence(batch) == last.last_sequence
        if last.last_data_offset is not None:
            return batch.last_offset == last.last_data_offset
        return batch.is_control and batch.producer_epoch == last.producer_epoch

    def retained_records(self, batch: RecordBatch) -> Sequence[Any]:
        """The records of ``batch`` that survive (``shouldRetainRecord`` on each, or a fast path that decides alike)."""
        bulk = self.cleaning.bulk
        if (
            bulk is not None
            and not self.discard_batch_records
            and not batch.is_control
            and batch.last_offset <= bulk.latest_offset
        ):
            kept = retained_at_once(bulk, batch, self._retains_deletes(batch))
            if kept is not None:
                return kept
        return [r for r in batch.records if self.should_retain_record(batch, r)]

    def should_retain_record(self, batch: RecordBatch, record: Any) -> bool:
        """Spec 7.4 (``shouldRetainRecord``), with the strategy's rank in place of the offset."""
        if self.discard_batch_records:
            return False
        if batch.is_control:
            return True
        cleaning = self.cleaning
        offset_map, strategy = cleaning.offset_map, cleaning.strategy
        if record.offset > offset_map.latest_offset:
            return True
        if strategy.retains_log_end_record and record.offset == cleaning.log.log_end_offset - 1:
            return True
        if record.key is None:
            cleaning.stats.invalid_messages_read += 1
            return False
        rank = record.offset if strategy.ranks_by_offset else strategy.rank(batch, record)
        found = offset_map.get(record.key)
        if found is not None and rank < found:
            return False
        if found is not None and rank > found:
            offset_map.put(record.key, rank, offset_map.latest_offset)  # KIP-280: a clean record beats the dirty winner
        return record.value is not None or self._retains_deletes(batch)

    def _retains_deletes(self, batch: RecordBatch) -> bool:
        """Whether tombstones stay.

        Before Kafka 3.1 while the segment is newer than the legacy horizon, from 3.1 on until the batch's horizon.
        """
        if not self.cleaning.broker.version.has_batch_delete_horizon:
            return self.retain_legacy_deletes
        return batch.delete_horizon_ms is None or self.now_ms < batch.delete_horizon_ms
