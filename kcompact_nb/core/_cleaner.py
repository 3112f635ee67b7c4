"""One cleaning pass over one partition (``Cleaner.doClean``, ``cleanSegments``, ``cleanInto``; spec 6-8, 10).

The pass mutates the log: each group of segments is replaced by its cleaned segment as soon as
it is written, and the checkpoint moves to the pass's end offset.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from itertools import compress, repeat
from operator import and_, is_not, le
from typing import Any, cast

from kcompact_nb.core._cleaned_txn import CleanedTransactionMetadata
from kcompact_nb.core._cleaner_stats import CleanerStats, log_line
from kcompact_nb.core._compression import compressed
from kcompact_nb.core._config import BrokerConfig
from kcompact_nb.core._config_keys import DOUBLE_MAX
from kcompact_nb.core._grouping import group_segments_by_size
from kcompact_nb.core._log import PartitionLog
from kcompact_nb.core._log_to_clean import segment_aligned_uncleanable_offset, segments_overlapping
from kcompact_nb.core._offset_map import BoundedOffsetMap, OffsetMap
from kcompact_nb.core._records import (
    NO_TIMESTAMP,
    PackedRecords,
    RecordBatch,
    TimestampType,
    record_keys,
    record_offsets,
    record_values,
)
from kcompact_nb.core._segment import AbortedTxn, Segment
from kcompact_nb.core._strategies import Strategy, strategy_for
from kcompact_nb.core._versions import RuleB


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
class _PassContext:
    """State shared by the groups of one pass (Kafka passes these as ``cleanInto``'s many parameters)."""

    log: PartitionLog
    broker: BrokerConfig
    offset_map: OffsetMap
    strategy: Strategy
    now_ms: int
    upper_bound_offset: int | None
    legacy_delete_horizon_ms: int
    stats: CleanerStats
    txn: CleanedTransactionMetadata = field(default_factory=CleanedTransactionMetadata)
    producers: dict[int, tuple[int | None, int]] = field(default_factory=dict)
    retain_legacy_deletes: bool = True
    discard_records: bool = False


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
) -> PassResult:
    """Clean ``[first_dirty_offset, first_uncleanable_offset)`` of ``log`` at ``now_ms`` (``Cleaner.doClean``).

    ``offset_map`` defaults to one cleaner thread's bounded map from the broker config (``broker``,
    default the log's), sized for the strategy's entry bytes; ``strategy`` defaults to the topic's
    ``compaction.strategy``. ``first_uncleanable_offset`` is rounded down to its segment's base offset,
    as ``LogToClean`` does. Called on an empty range, the pass ends at offset 0, as Kafka's would.
    """
    first_uncleanable_offset = segment_aligned_uncleanable_offset(log, first_uncleanable_offset)
    broker = broker or log.broker
    strategy = strategy or strategy_for(log.config)
    offset_map = offset_map or BoundedOffsetMap.for_broker(broker, entry_bytes=strategy.entry_bytes)
    ctx = _PassContext(
        log=log,
        broker=broker,
        offset_map=offset_map,
        strategy=strategy,
        now_ms=now_ms,
        upper_bound_offset=_rule_b_upper_bound(log, broker, first_uncleanable_offset),
        legacy_delete_horizon_ms=_legacy_delete_horizon_ms(log, first_dirty_offset),
        stats=CleanerStats(),
    )
    with _cyclic_gc_paused():
        full = build_offset_map(ctx, first_dirty_offset, first_uncleanable_offset)
        end_offset = offset_map.latest_offset + 1
        segments = segments_overlapping(log, -1, end_offset)
        _check_codecs(log, segments)
        groups = group_segments_by_size(
            segments,
            max_size_bytes=log.config.effective_segment_bytes,
            max_index_bytes=log.config.segment_index_bytes,
            first_uncleanable_offset=first_uncleanable_offset,
        )
        for group in groups:
            _swap(log, group, _clean_segments(ctx, group))
    log.cleaner_checkpoint = end_offset
    ctx.stats.buffer_utilization = offset_map.utilization
    _set_elapsed(ctx.stats, broker)
    line = log_line(ctx.stats, thread_id=thread_id, log_name=log.name, first_dirty_offset=first_dirty_offset, end_offset=end_offset)
    return PassResult(
        topic=log.topic,
        partition=log.partition,
        first_dirty_offset=first_dirty_offset,
        first_uncleanable_offset=first_uncleanable_offset,
        end_offset=end_offset,
        cleanable_ratio=cleanable_ratio,
        start_ms=now_ms,
        end_ms=now_ms + round(ctx.stats.elapsed_secs * 1000),
        stats=ctx.stats,
        log_line=line,
        groups=tuple(tuple(s.base_offset for s in g) for g in groups),
        offset_map=offset_map,
        map_full=full,
    )


def _check_codecs(log: PartitionLog, segments: Sequence[Segment]) -> None:
    """Fail before any segment is replaced when a codec the pass may rewrite cannot be encoded here."""
    codecs = {batch.compression for segment in segments for batch in segment.batches}
    for codec in sorted(codecs - {"none"}):
        log.encoder.check_available(codec)


@contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
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


def read_chunks(batches: Sequence[RecordBatch], start: int, *, capacity: int, limit: int) -> Iterator[tuple[list[RecordBatch], int]]:
    """Batches as the cleaner reads them: complete batches fitting its read buffer, which grows for big ones."""
    index, initial = start, capacity
    while index < len(batches):
        end, total = index, 0
        while end < len(batches) and total + batches[end].size_bytes <= capacity:
            total += batches[end].size_bytes
            end += 1
        if end == index:
            target = limit if capacity < limit else batches[index].size_bytes
            capacity = min(capacity * 2, max(target, initial))
            continue
        yield list(batches[index:end]), total
        index = end


def build_offset_map(ctx: _PassContext, start: int, end: int) -> bool:
    """Index the dirty range into the map (``buildOffsetMap``); True when the map filled up (spec 6.3)."""
    log, offset_map = ctx.log, ctx.offset_map
    dirty = segments_overlapping(log, start, end)
    txn = CleanedTransactionMetadata()
    txn.add_aborted_transactions(collect_aborted_transactions(log, start, end))
    next_bases = [s.base_offset for s in dirty[1:]] + [end]
    for segment, next_base in zip(dirty, next_bases):
        if _map_segment(ctx, segment, txn, start):
            return True
        offset_map.latest_offset = next_base - 1
    return False


def _map_segment(ctx: _PassContext, segment: Segment, txn: CleanedTransactionMetadata, start: int) -> bool:
    position = segment.lookup_position(start)
    first = _batch_index_at_position(segment, position)
    for chunk, chunk_bytes in read_chunks(segment.batches, first, capacity=_read_buffer_bytes(ctx.broker), limit=ctx.log.config.max_message_bytes):
        for batch in chunk:
            if _map_batch(ctx, batch, txn, start):
                return True
            if batch.last_offset >= start:
                ctx.offset_map.latest_offset = batch.last_offset
        ctx.stats.map_bytes_read += chunk_bytes
    return False


def _map_batch(ctx: _PassContext, batch: RecordBatch, txn: CleanedTransactionMetadata, start: int) -> bool:
    stats = ctx.stats
    if batch.is_control:
        txn.on_control_batch_read(batch)
        stats.map_messages_read += 1
        return False
    if txn.on_batch_read(batch):
        stats.map_messages_read += len(batch.records)
        return False
    if ctx.strategy.name == "offset" and _map_offsets_at_once(ctx.offset_map, batch, start):
        stats.map_messages_read += len(batch.records)
        return False
    return _map_records(ctx, batch, start)


def _map_offsets_at_once(offset_map: OffsetMap, batch: RecordBatch, start: int) -> bool:
    """Fast path for the offset strategy: put a whole batch when it cannot fill the map."""
    limit, records = offset_map.max_entries, batch.records
    if limit is not None and offset_map.size_upper_bound + len(records) >= limit and offset_map.size + len(records) >= limit:
        return False
    if isinstance(records, PackedRecords) and batch.base_offset >= start and records and records.all_keyed:
        offset_map.put_offsets(records)
        offset_map.latest_offset = records.offsets[-1]
        return True
    keys, offsets = _keyed_offsets(batch, start)
    if keys:
        offset_map.live_entries().update(zip(keys, offsets))
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


def _map_records(ctx: _PassContext, batch: RecordBatch, start: int) -> bool:
    """Record by record, with Kafka's full check before every put (spec 6.3)."""
    stats, offset_map, strategy = ctx.stats, ctx.offset_map, ctx.strategy
    by_offset = strategy.name == "offset"
    for record in batch.records:
        if record.key is not None and record.offset >= start:
            if offset_map.is_full():
                return True
            if not by_offset and strategy.is_malformed(record):
                stats.malformed_version_headers += 1
            offset_map.put(record.key, record.offset if by_offset else strategy.rank(batch, record), record.offset)
        stats.map_messages_read += 1
    return False


def _batch_index_at_position(segment: Segment, position: int) -> int:
    offset = 0
    for index, batch in enumerate(segment.batches):
        if offset >= position:
            return index
        offset += batch.size_bytes
    return len(segment.batches)


def _read_buffer_bytes(broker: BrokerConfig) -> int:
    """Per-thread read buffer: ``log.cleaner.io.buffer.size / threads / 2``."""
    return max(broker.log_cleaner_io_buffer_size // max(broker.log_cleaner_threads, 1) // 2, 1)


def _clean_segments(ctx: _PassContext, group: list[Segment]) -> Segment:
    """Rewrite one group into a new segment named after its first segment (``cleanSegments``)."""
    log = ctx.log
    out = Segment(group[0].base_offset, created_ms=ctx.now_ms, index_interval_bytes=log.config.index_interval_bytes)
    ctx.producers = _last_records_of_active_producers(log)
    ctx.txn.cleaned_index = out.aborted_transactions
    for i, source in enumerate(group):
        upper = group[i + 1].base_offset if i + 1 < len(group) else _read_next_offset(source)
        ctx.txn.add_aborted_transactions(collect_aborted_transactions(log, source.base_offset, upper))
        ctx.retain_legacy_deletes = source.last_modified_ms > ctx.legacy_delete_horizon_ms
        _clean_into(ctx, source, out)
    out.on_become_inactive()
    out.last_modified_ms = group[-1].last_modified_ms
    return out


def _read_next_offset(segment: Segment) -> int:
    return segment.base_offset if segment.last_offset is None else segment.last_offset + 1


def _last_records_of_active_producers(log: PartitionLog) -> dict[int, tuple[int | None, int]]:
    """producer id -> (last data offset or None, epoch) (``lastRecordsOfActiveProducers``)."""
    return {
        pid: (entry.last_data_offset if entry.last_data_offset >= 0 else None, entry.producer_epoch)
        for pid, entry in log.producer_state.producers.items()
    }


def _clean_into(ctx: _PassContext, source: Segment, out: Segment) -> None:
    """Filter one source segment chunk by chunk and append each chunk's survivors (``cleanInto``)."""
    for chunk, _ in read_chunks(source.batches, 0, capacity=_read_buffer_bytes(ctx.broker), limit=ctx.log.config.max_message_bytes):
        kept: list[RecordBatch] = []
        largest = -1
        for batch in chunk:
            result = _filter_batch(ctx, batch)
            if result is not None:
                kept.append(result[0])
                largest = max(largest, result[1])
        out.append(kept, ctx.now_ms, largest_offset=largest)


def _filter_batch(ctx: _PassContext, batch: RecordBatch) -> tuple[RecordBatch, int] | None:
    """The batch as written to the cleaned segment and its max offset, or None (``MemoryRecords.filterTo``)."""
    stats = ctx.stats
    mode, marker_for_empty_txn = _batch_retention(ctx, batch)
    stats.bytes_read += batch.size_bytes
    if mode == "DELETE":
        return None
    stats.messages_read += len(batch.records)
    retained = _retained_records(ctx, batch)
    if retained:
        output = _retained_batch(ctx, batch, retained, marker_for_empty_txn)
        stats.bytes_written += output.size_bytes
        stats.messages_written += len(retained)
        return output, (batch.last_offset if output is batch else retained[-1].offset)
    if mode == "RETAIN_EMPTY":
        stats.bytes_written += 61
        return empty_batch(batch), batch.last_offset
    return None


def _batch_retention(ctx: _PassContext, batch: RecordBatch) -> tuple[str, bool]:
    """Rules A-D of spec 7.3 (``checkBatchRetention``): the mode and "marker for an empty transaction"."""
    if batch.is_control:
        can_discard = ctx.txn.on_control_batch_read(batch)
        if ctx.broker.version.has_batch_delete_horizon:
            ctx.discard_records = can_discard and batch.delete_horizon_ms is not None and batch.delete_horizon_ms <= ctx.now_ms
        else:
            ctx.discard_records = can_discard and not ctx.retain_legacy_deletes
    else:
        can_discard = ctx.txn.on_batch_read(batch)
        ctx.discard_records = can_discard
    if batch.has_producer_id and _is_last_batch_of_producer(ctx, batch):
        mode = "RETAIN_EMPTY"
    elif ctx.upper_bound_offset is not None and batch.next_offset == ctx.upper_bound_offset:
        mode = "RETAIN_EMPTY"
    elif ctx.discard_records:
        mode = "DELETE"
    else:
        mode = "DELETE_EMPTY"
    return mode, can_discard and batch.is_control


def _is_last_batch_of_producer(ctx: _PassContext, batch: RecordBatch) -> bool:
    last = ctx.producers.get(batch.producer_id)
    if last is None:
        return False
    last_data_offset, epoch = last
    if last_data_offset is not None:
        return batch.last_offset == last_data_offset
    return batch.is_control and batch.producer_epoch == epoch


def _retained_records(ctx: _PassContext, batch: RecordBatch) -> list[Any]:
    """The records of ``batch`` that survive; whole-batch C loops for indexed data batches under the offset strategy."""
    if _is_indexed_offset_batch(ctx, batch):
        records = batch.records
        if isinstance(records, PackedRecords) and records.all_keyed:
            latest = ctx.offset_map.latest_by_key_id(records.registry)
            return records.latest_of_each_key(latest, _retains_deletes(ctx, batch))
        kept = _latest_of_indexed_batch(ctx.offset_map.live_entries(), records, _retains_deletes(ctx, batch))
        if kept is not None:
            return kept
    return [r for r in batch.records if _should_retain_record(ctx, batch, r)]


def _is_indexed_offset_batch(ctx: _PassContext, batch: RecordBatch) -> bool:
    """A data batch wholly at or below the map's latest offset, records not discarded, offset strategy."""
    return (
        not ctx.discard_records
        and not batch.is_control
        and ctx.strategy.name == "offset"
        and batch.last_offset <= ctx.offset_map.latest_offset
    )


def _latest_of_indexed_batch(entries: dict[bytes, Any], records: Sequence[Any], keep_deletes: bool) -> list[Any] | None:
    """``_should_retain_record`` for such a batch in C loops: records whose offset is not below their key's
    entry (tombstones only with ``keep_deletes``); None when a record has no key (it needs counting)."""
    keys = record_keys(records)
    if None in keys:
        return None
    latest = map(le, map(entries.get, cast("Sequence[bytes]", keys), repeat(-1)), record_offsets(records))
    if not keep_deletes:
        latest = map(and_, latest, map(is_not, record_values(records), repeat(None)))
    return list(compress(records, latest))


def _should_retain_record(ctx: _PassContext, batch: RecordBatch, record: Any) -> bool:
    """Spec 7.4 (``shouldRetainRecord``), with the strategy's rank in place of the offset."""
    if ctx.discard_records:
        return False
    if batch.is_control:
        return True
    log, offset_map = ctx.log, ctx.offset_map
    if record.offset > offset_map.latest_offset:
        return True
    if ctx.strategy.retains_log_end_record and record.offset == log.log_end_offset - 1:
        return True
    if record.key is None:
        ctx.stats.invalid_messages_read += 1
        return False
    rank = record.offset if ctx.strategy.name == "offset" else ctx.strategy.rank(batch, record)
    found = offset_map.get(record.key)
    if found is not None and rank < found:
        return False
    if found is not None and rank > found:
        offset_map.promote(record.key, rank)
    return record.value is not None or _retains_deletes(ctx, batch)


def _retains_deletes(ctx: _PassContext, batch: RecordBatch) -> bool:
    if not ctx.broker.version.has_batch_delete_horizon:
        return ctx.retain_legacy_deletes
    return batch.delete_horizon_ms is None or ctx.now_ms < batch.delete_horizon_ms


def _retained_batch(ctx: _PassContext, batch: RecordBatch, retained: list[Any], marker_for_empty_txn: bool) -> RecordBatch:
    """The original batch when nothing changed, else a rebuilt one (``buildRetainedRecordsInto``)."""
    has_tombstone = any(r.value is None for r in retained)
    stamp = (
        ctx.broker.version.has_batch_delete_horizon
        and (has_tombstone or marker_for_empty_txn)
        and batch.delete_horizon_ms is None
    )
    if len(retained) == len(batch.records) and not stamp:
        return batch
    horizon = ctx.now_ms + ctx.log.config.delete_retention_ms if stamp else batch.delete_horizon_ms
    rebuilt = rebuild_batch(batch, retained, delete_horizon_ms=horizon)
    return compressed(rebuilt, ctx.log.encoder, level=None, kafka_version=ctx.broker.version)


def rebuild_batch(batch: RecordBatch, records: Sequence[Any], *, delete_horizon_ms: int | None) -> RecordBatch:
    """A batch with only ``records`` (same base and last offset, producer fields, flags and codec).

    Sized uncompressed: :func:`compressed` gives a compressed batch its size, at the codec's default
    level as ``buildRetainedRecordsInto`` always uses (``Compression.of(type).build()``).
    """
    log_append = batch.timestamp_type is TimestampType.LOG_APPEND_TIME
    if log_append:
        records = [r._replace(timestamp=batch.max_timestamp) for r in records]
    return RecordBatch.build(
        records,
        base_offset=batch.base_offset,
        last_offset=batch.last_offset,
        delete_horizon_ms=delete_horizon_ms,
        log_append_time_ms=batch.max_timestamp if log_append else None,
        checked=True,
        producer_id=batch.producer_id,
        producer_epoch=batch.producer_epoch,
        base_sequence=batch.base_sequence,
        is_transactional=batch.is_transactional,
        is_control=batch.is_control,
        partition_leader_epoch=batch.partition_leader_epoch,
        compression=batch.compression,
    )


def empty_batch(batch: RecordBatch) -> RecordBatch:
    """The 61-byte header Kafka keeps when all records go but the batch must stay (``writeEmptyHeader``):
    offsets, producer fields, flags, timestamp type and max timestamp kept; no codec, no horizon."""
    return replace(
        batch,
        records=(),
        size_bytes=61,
        base_timestamp=NO_TIMESTAMP,
        compression="none",
        delete_horizon_ms=None,
        raw=None,
    )


def _swap(log: PartitionLog, group: list[Segment], cleaned: Segment) -> None:
    """Replace the group's segments by the cleaned one (``replaceSegments``)."""
    first = log.segments.index(group[0])
    log.segments[first : first + len(group)] = [cleaned]


def _set_elapsed(stats: CleanerStats, broker: BrokerConfig) -> None:
    """Simulated pass time: only the I/O throttle takes time (spec 11); unthrottled passes take 0 s."""
    rate = broker.log_cleaner_io_max_bytes_per_second
    if rate >= DOUBLE_MAX:
        return
    stats.elapsed_index_secs = stats.map_bytes_read / rate
    stats.elapsed_secs = (stats.map_bytes_read + stats.bytes_read + stats.bytes_written) / rate
