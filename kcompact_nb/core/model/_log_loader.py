"""Kafka's log loading rules (``LogLoader``): a partition log from the segments found on disk or in a dump.

Each batch is appended to its segment as ``LogSegment.append`` would have done, the log end offset follows
the last batch, and producer state and aborted transactions are rebuilt from the batches
(``UnifiedLog.rebuildProducerState``), what ``LogLoader`` does when a partition's snapshot and index files
are missing. Readers of segment files, dumps and kcat output, and Spark's bridge, all build logs here.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

from kcompact_nb.core.model._config import BrokerConfig, TopicConfig
from kcompact_nb.core.model._log import PartitionLog
from kcompact_nb.core.model._records import RecordBatch, control_record_type
from kcompact_nb.core.model._segment import AbortedTxn, Segment


def compacted_topic_config() -> TopicConfig:
    """The default topic config for logs read from disk (log dirs do not store topic configs)."""
    return TopicConfig.from_properties({"cleanup.policy": "compact"})


@dataclass(frozen=True)
class SegmentData:
    """One segment's content as read from a file or a dump, before it becomes a core :class:`Segment`."""

    base_offset: int
    batches: Sequence[RecordBatch]
    last_modified_ms: int = 0


def build_partition_log(
    topic: str,
    partition: int,
    segments: Sequence[SegmentData],
    *,
    config: TopicConfig | None = None,
    broker: BrokerConfig | None = None,
    log_start_offset: int | None = None,
    cleaner_checkpoint: int | None = None,
    now_ms: int | None = None,
    notes: list[str] | None = None,
) -> PartitionLog:
    """A :class:`PartitionLog` from segments read from disk or parsed from a dump.

    Each batch is appended to its segment the way ``LogSegment.append`` would have (so sizes,
    largest timestamps, the rolling-based timestamp and index entry counts follow the model),
    the log end offset is the active segment's next offset, and producer state plus aborted
    transactions are rebuilt from the batches (``UnifiedLog.rebuildProducerState``).
    """
    config, broker = config or compacted_topic_config(), broker or BrokerConfig()
    per_batch = broker.version.indexes_each_batch
    built = [_segment(data, config, per_batch, last=i == len(segments) - 1) for i, data in enumerate(segments)]
    first_base = built[0].base_offset if built else 0
    start = max(log_start_offset or 0, first_base) if built else (log_start_offset or 0)
    end = _log_end_offset(built, start)
    log = PartitionLog(
        topic,
        partition,
        config=config,
        broker=broker,
        created_ms=built[0].created_ms if built else 0,
        segments=built,
        log_start_offset=start,
        log_end_offset=end,
        cleaner_checkpoint=cleaner_checkpoint,
    )
    rebuild_producer_state(log, now_ms=now_ms, notes=notes)
    return log


def _segment(data: SegmentData, config: TopicConfig, indexes_each_batch: bool, *, last: bool) -> Segment:
    segment = Segment(
        data.base_offset,
        created_ms=data.last_modified_ms,
        index_interval_bytes=config.index_interval_bytes,
        indexes_each_batch=indexes_each_batch,
    )
    for batch in data.batches:
        segment.append([batch], data.last_modified_ms)
    if not last:
        segment.on_become_inactive()
    segment.last_modified_ms = data.last_modified_ms
    return segment


def _log_end_offset(segments: list[Segment], start: int) -> int:
    if not segments:
        return start
    last_offsets = [s.last_offset for s in segments if s.last_offset is not None]
    next_after_batches = max(last_offsets) + 1 if last_offsets else 0
    return max(segments[-1].base_offset, next_after_batches)


def rebuild_producer_state(log: PartitionLog, *, now_ms: int | None = None, notes: list[str] | None = None) -> None:
    """Replay every producer batch into ``log.producer_state`` and the segments' aborted-txn lists.

    Mirrors loading with ``AppendOrigin.REPLICATION``: a lower producer epoch is accepted (Kafka
    only warns), control batches the cleaner emptied are skipped, and each ABORT marker adds an
    entry to the transaction index of the segment it sits in.
    """
    state = log.producer_state
    for segment in log.segments:
        segment.aborted_transactions.clear()
        for batch in segment.batches:
            if not batch.has_producer_id:
                continue
            entry = state.producers.get(batch.producer_id)
            if entry is not None and batch.producer_epoch < entry.producer_epoch:
                if notes is not None:
                    notes.append(
                        f"producer {batch.producer_id}: epoch {batch.producer_epoch} at offset {batch.base_offset} "
                        f"is below the last seen epoch {entry.producer_epoch} (accepted, as on replication)"
                    )
                entry.producer_epoch = batch.producer_epoch
            if batch.is_control:
                _replay_marker(log, segment, batch)
            else:
                state.on_data_batch(batch)
    if now_ms is not None:
        state.remove_expired_producers(now_ms, log.broker.producer_id_expiration_ms)


def _replay_marker(log: PartitionLog, segment: Segment, batch: RecordBatch) -> None:
    if not batch.records or control_record_type(batch.records[0]) is None:
        return  # emptied by the cleaner, or a non-transaction control record
    value = batch.records[0].value or b""
    coordinator_epoch = struct.unpack_from(">i", value, 2)[0] if len(value) >= 6 else -1
    txn = log.producer_state.on_end_txn_marker(batch, coordinator_epoch)
    if txn.is_aborted:
        lso = log.producer_state.last_stable_offset_after(txn)
        segment.aborted_transactions.append(AbortedTxn(txn.producer_id, txn.first_offset, txn.last_offset, lso))
