"""Kafka's log loading rules (``LogLoader``): a partition log from the segments found on disk or in a dump.

Each batch is appended to its segment as ``LogSegment.append`` would have done, the log end offset follows
the last batch, and producer state and aborted transactions are rebuilt from the batches
(``UnifiedLog.rebuildProducerState``), what ``LogLoader`` does when a partition's snapshot and index files
are missing; given the partition's producer snapshots, the state is the latest usable one's and the batches'
after it (:mod:`~kcompact_nb.core.model._snapshot_replay`). Readers of segment files, dumps and kcat output, and
Spark's bridge, all build logs here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kcompact_nb.core.model._config import BrokerConfig, TopicConfig
from kcompact_nb.core.model._header_run import HeaderRun, append_run
from kcompact_nb.core.model._log import PartitionLog
from kcompact_nb.core.model._producer_state import ProducerStateManager
from kcompact_nb.core.model._run_replay import replay_run
from kcompact_nb.core.model._segment import AbortedTxn, Segment, StoredSegment, appended_offset_of_max_timestamp
from kcompact_nb.core.model._snapshot_replay import ProducerSnapshot, SnapshotReplay
from kcompact_nb.record import RecordBatch


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
    return load_log(
        topic,
        partition,
        ((data.base_offset, data.last_modified_ms, data.batches) for data in segments),
        config=config,
        broker=broker,
        log_start_offset=log_start_offset,
        cleaner_checkpoint=cleaner_checkpoint,
        now_ms=now_ms,
        notes=notes,
    )


def load_log(
    topic: str,
    partition: int,
    segments: Iterable[tuple[int, int, Iterable[RecordBatch | HeaderRun]]],
    *,
    config: TopicConfig | None = None,
    broker: BrokerConfig | None = None,
    log_start_offset: int | None = None,
    cleaner_checkpoint: int | None = None,
    now_ms: int | None = None,
    notes: list[str] | None = None,
    stored: bool = False,
    producer_snapshots: Sequence[ProducerSnapshot] = (),
) -> PartitionLog:
    """:func:`build_partition_log` from ``(base offset, last modified ms, batches)`` per segment, one at a time.

    With ``stored=True`` the segments are :class:`StoredSegment` values: each batch goes through once (sizes,
    timestamps, index entries, producer state and aborted transactions follow it) and is not kept, so a
    partition of any size loads in the memory of its metadata. Batches may then hold no records, except
    control batches, whose marker closes a transaction, and come as :class:`HeaderRun` values, many batches' headers
    at once (appended as each of them would be). With ``producer_snapshots`` (a broker's ``.snapshot`` files)
    the producer state is the latest usable one's and the batches' after it (:class:`SnapshotReplay`); the replay of
    every batch still gives the aborted transactions.
    """
    config = config or compacted_topic_config()
    broker = broker or BrokerConfig()
    state = ProducerStateManager()
    built: list[Segment] = []
    kind = StoredSegment if stored else Segment
    loaded = SnapshotReplay(producer_snapshots, log_start_offset)
    for base_offset, last_modified_ms, batches in segments:
        if built:
            built[-1].on_become_inactive()
        loaded.segment(base_offset)
        segment = kind(
            base_offset,
            created_ms=last_modified_ms,
            index_interval_bytes=config.index_interval_bytes,
            indexes_each_batch=broker.version.indexes_each_batch,
        )
        built.append(segment)
        for batch in batches:
            if isinstance(batch, HeaderRun):
                _append_run(segment, batch)
                replay_run(state, batch, notes)  # data batches: no marker closes a transaction
                loaded.add_run(batch)
                continue
            held_at = appended_offset_of_max_timestamp(batch, broker.version)
            segment.append([batch], last_modified_ms, offset_of_max_timestamp=held_at)
            _replay_batch(state, segment, batch, notes)
            loaded.add(batch)
        segment.last_modified_ms = last_modified_ms
    first_base = built[0].base_offset if built else 0
    start = max(log_start_offset or 0, first_base) if built else (log_start_offset or 0)
    log = PartitionLog(
        topic,
        partition,
        config=config,
        broker=broker,
        created_ms=built[0].created_ms if built else 0,
        segments=built,
        log_start_offset=start,
        log_end_offset=_log_end_offset(built, start),
        cleaner_checkpoint=cleaner_checkpoint,
        producer_state=state,
    )
    expiration_ms = broker.producer_id_expiration_ms
    from_snapshot = loaded.state(broker.version, now_ms, expiration_ms)
    if from_snapshot is not None:
        log.producer_state = from_snapshot
    if now_ms is not None:
        log.producer_state.remove_expired_producers(now_ms, expiration_ms)
    return log


def _append_run(segment: Segment, run: HeaderRun) -> None:
    if not isinstance(segment, StoredSegment):
        raise TypeError("batches known by their headers only are appended to stored segments (stored=True)")
    append_run(segment, run)


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
    for segment in log.segments:
        segment.aborted_transactions.clear()
        for batch in segment.batches:
            _replay_batch(log.producer_state, segment, batch, notes)
    if now_ms is not None:
        log.producer_state.remove_expired_producers(now_ms, log.broker.producer_id_expiration_ms)


def _replay_batch(state: ProducerStateManager, segment: Segment, batch: RecordBatch, notes: list[str] | None) -> None:
    """Replay ``batch`` into ``state``; an ABORT marker adds an entry to the transaction index of its segment."""
    txn = state.replay(batch, notes)
    if txn is not None and txn.is_aborted:
        lso = state.last_stable_offset_after(txn)
        segment.aborted_transactions.append(AbortedTxn(txn.producer_id, txn.first_offset, txn.last_offset, lso))
