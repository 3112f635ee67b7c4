"""Kafka's ``Cleaner``: one cleaning pass over one partition, record by record (spec 6-8, 10).

:func:`do_clean` is ``Cleaner.doClean``: build the offset map over the dirty range (:func:`build_offset_map`,
``buildOffsetMap`` and ``buildOffsetMapForSegment``), group the segments up to where the map ends
(``groupSegmentsBySize``), and rewrite each group into one segment (:func:`clean_segments`, ``cleanSegments``),
source segment by source segment (:func:`clean_into`, ``cleanInto``) through the cleaner's record filter
(:class:`~kcompact_nb.core.cleaner._cleaning.CleanerFilter`: ``checkBatchRetention`` and ``shouldRetainRecord``) and
``MemoryRecords.filterTo``.
Each group of segments is replaced by its cleaned segment as soon as it is written.

A batch's records are walked by the cleaner's record loops: Kafka's own
(:class:`~kcompact_nb.core.cleaner._record_loops.RecordByRecord`), or the whole-batch paths that decide alike
(:mod:`kcompact_nb.core.cleaner._whole_batches`), chosen once per pass by
:func:`~kcompact_nb.core.cleaner._clean_pass.clean_pass`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple, cast

from kcompact_nb.core.cleaner._cleaned_txn import CleanedTransactionMetadata
from kcompact_nb.core.cleaner._cleaner_stats import CleanerStats
from kcompact_nb.core.cleaner._cleaning import (
    Cleaner,
    CleanerFilter,
    Cleaning,
    last_records_of_active_producers,
)
from kcompact_nb.core.cleaner._decisions import PassStop
from kcompact_nb.core.cleaner._failure import CleanerThrew, index_full, oversized_record, record_too_large
from kcompact_nb.core.cleaner._filter_to import FilterResult, filter_to
from kcompact_nb.core.cleaner._grouping import group_segments_by_size
from kcompact_nb.core.cleaner._log_to_clean import segments_overlapping
from kcompact_nb.core.cleaner._offset_map import ExactOffsetMap
from kcompact_nb.core.cleaner._record_loops import RECORD_BY_RECORD
from kcompact_nb.core.cleaner._strategies import Strategy
from kcompact_nb.core.model import AbortedTxn, BrokerConfig, IndexFullError, PartitionLog, RuleB, Segment
from kcompact_nb.record import RecordBatch


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
    producers = last_records_of_active_producers(log)
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
    stats.records_removed += result.messages_read - result.messages_retained + result.messages_deleted
    try:
        cleaned.append(result.batches, cleaning.now_ms, largest_offset=result.max_offset)
    except IndexFullError as error:  # LogSegment.append writes the batches, then its index entry throws
        raise index_full(error, cleaning.cleaner.broker.version, cleaned) from error
    return FilterResult([])
