"""A partition log that appends and rolls as a Kafka broker does (spec 2.1-2.3)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from kcompact_nb.core.model._compression import stored_compression
from kcompact_nb.core.model._config import BrokerConfig, TopicConfig
from kcompact_nb.core.model._config_keys import INT_MAX
from kcompact_nb.core.model._errors import InvalidRecordError
from kcompact_nb.core.model._producer_state import ProducerStateManager
from kcompact_nb.core.model._segment import AbortedTxn, Segment, appended_offset_of_max_timestamp
from kcompact_nb.core.model._shallow_copy import shallow_copy
from kcompact_nb.core.model._storage import InMemoryStorage, LogStorage
from kcompact_nb.record import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    BatchEncoder,
    ControlRecordType,
    Header,
    KafkaBatchEncoder,
    KafkaModelError,
    Record,
    RecordBatch,
    TimestampType,
    check_codec,
    compressed,
    control_record_key,
    end_txn_marker_value,
)


@dataclass(frozen=True)
class NewRecord:
    """A record to append; ``timestamp`` defaults to the append time, ``offset`` to the next offset."""

    key: bytes | None
    value: bytes | None
    timestamp: int | None = None
    headers: tuple[Header, ...] = ()
    offset: int | None = None


@dataclass(frozen=True)
class AppendInfo:
    """Where an append landed: its offsets and whether it rolled a new segment first."""

    topic: str
    partition: int
    first_offset: int
    last_offset: int
    rolled: bool
    segment_base_offset: int


@dataclass
class PartitionLog:
    """One partition's log: segments, offsets, producer state and the cleaner checkpoint.

    Every time-dependent method takes ``now_ms`` (the broker's wall clock); record timestamps
    are separate. ``cleaner_checkpoint`` mirrors the partition's entry in the log dir's
    ``cleaner-offset-checkpoint`` file (``None`` when absent). ``encoder`` sizes compressed batches
    (appends and cleaner passes); by default Kafka's own bytes (:class:`~kcompact_nb.record.KafkaBatchEncoder`).
    ``storage`` is where the segments' batches live: in the segments (the default), or in their files, read when
    asked (:class:`~kcompact_nb.core.model.LogStorage`); read them through :meth:`batches` and
    :meth:`segment_batches`, whichever it is.
    """

    topic: str
    partition: int = 0
    config: TopicConfig = field(default_factory=TopicConfig)
    broker: BrokerConfig = field(default_factory=BrokerConfig)
    created_ms: int = 0
    segments: list[Segment] = field(default_factory=list)
    log_start_offset: int = 0
    log_end_offset: int = 0
    cleaner_checkpoint: int | None = None
    producer_state: ProducerStateManager = field(default_factory=ProducerStateManager)
    held_high_watermark: int | None = None
    min_snapshot_offset_to_retain: int = 0
    """The producer snapshots below it were deleted by the broker's recovery-point checkpoint (before 2.8:
    :meth:`delete_snapshots_after_recovery_point_checkpoint`)."""
    key_pool: dict[bytes, bytes] = field(default_factory=dict, repr=False, compare=False)
    """One shared bytes object per distinct key: saves memory and speeds up the cleaner's map lookups."""
    encoder: BatchEncoder = field(default_factory=KafkaBatchEncoder, repr=False, compare=False)
    storage: LogStorage = field(default_factory=InMemoryStorage, repr=False, compare=False)
    left_cleaned: list[Segment] = field(default_factory=list, repr=False, compare=False)
    """The segment a cleaner pass was filling when it threw: Kafka leaves its ``.cleaned`` files in the partition
    folder until the broker next loads the log (``LogLoader`` deletes them); it is not part of the log."""

    def __post_init__(self) -> None:
        if not self.segments:
            self.segments.append(self._new_segment(self.log_end_offset, self.created_ms))

    @property
    def name(self) -> str:
        """``topic-partition``, as Kafka names the partition directory."""
        return f"{self.topic}-{self.partition}"

    @property
    def active_segment(self) -> Segment:
        return self.segments[-1]

    @property
    def high_watermark(self) -> int:
        """The held high watermark, else the log end offset (a single broker replicates at once)."""
        return self.log_end_offset if self.held_high_watermark is None else self.held_high_watermark

    @property
    def last_stable_offset(self) -> int:
        """``min(first offset of the earliest open transaction, high watermark)`` (``UnifiedLog.lastStableOffset``)."""
        first_unstable = self.producer_state.first_unstable_offset()
        if first_unstable is None:
            return self.high_watermark
        return min(first_unstable, self.high_watermark)

    @property
    def size_bytes(self) -> int:
        return sum(s.size_bytes for s in self.segments)

    def batches(self) -> Iterator[RecordBatch]:
        """Every batch in offset order, wherever they live (:attr:`storage`)."""
        for segment in self.segments:
            yield from self.storage.batches(segment, 0)

    def segment_batches(self, segment: Segment) -> Iterable[RecordBatch]:
        """``segment``'s batches in file order, wherever they live (:attr:`storage`)."""
        return self.storage.batches(segment, 0)

    def records(self) -> Iterator[tuple[RecordBatch, Record]]:
        """Every (batch, record) pair in offset order, control records included."""
        for batch in self.batches():
            for record in batch.records:
                yield batch, record

    def floor_segment(self, offset: int) -> Segment:
        """The segment with the largest base offset ``<= offset`` (the first segment if none)."""
        chosen = self.segments[0]
        for segment in self.segments:
            if segment.base_offset > offset:
                break
            chosen = segment
        return chosen

    def append(
        self,
        records: Sequence[NewRecord],
        *,
        now_ms: int,
        producer_id: int = NO_PRODUCER_ID,
        producer_epoch: int = NO_PRODUCER_EPOCH,
        base_sequence: int = NO_SEQUENCE,
        transactional: bool = False,
        timestamp_type: TimestampType | str | None = None,
        compression: str = "none",
    ) -> AppendInfo:
        """Append one record batch as a leader (or, with explicit offsets, a follower) would.

        Mirrors ``UnifiedLog.append``: keyless records are rejected on compacted topics
        (``LogValidator.validateKey``), offsets are assigned from the log end offset unless
        every record gives one, and the active segment rolls first when ``shouldRoll`` says so.
        ``timestamp_type`` ``LogAppendTime`` (or the topic's ``message.timestamp.type``) stamps
        the batch with ``now_ms``. ``compression`` is the producer's codec; the topic's
        ``compression.type`` decides what is stored (:func:`stored_compression`).
        """
        if not records:
            raise KafkaModelError("an append needs at least one record")
        codec, level = stored_compression(self.config, check_codec(compression, f"{self.name}: append"))
        self._validate_keys(records)
        if transactional and producer_id == NO_PRODUCER_ID:
            raise KafkaModelError("a transactional batch needs a producer_id")
        stored = self._assign_offsets(records, now_ms)
        log_append = self._is_log_append_time(timestamp_type)
        batch = RecordBatch.build(
            stored,
            log_append_time_ms=now_ms if log_append else None,
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            base_sequence=base_sequence,
            is_transactional=transactional,
            compression=codec,
        )
        if codec != "none":
            self.encoder.check_available(codec)
            batch = compressed(batch, self.encoder, level=level, kafka_version=self.broker.version)
        info = self.append_batch(batch, now_ms=now_ms)
        if batch.has_producer_id:
            self.producer_state.on_data_batch(batch)
        return info

    def append_end_txn_marker(
        self,
        producer_id: int,
        producer_epoch: int,
        *,
        commit: bool,
        now_ms: int,
        coordinator_epoch: int = 0,
        timestamp: int | None = None,
        offset: int | None = None,
    ) -> AppendInfo:
        """Write a COMMIT or ABORT control batch for a producer (78 bytes, spec 2.6).

        An ABORT adds the transaction to the transaction index of the segment the marker lands in.
        """
        kind = ControlRecordType.COMMIT if commit else ControlRecordType.ABORT
        marker_offset = self.log_end_offset if offset is None else offset
        self._check_explicit_offset(marker_offset)
        record = Record(
            marker_offset,
            now_ms if timestamp is None else timestamp,
            control_record_key(kind),
            end_txn_marker_value(coordinator_epoch),
        )
        batch = RecordBatch.build(
            [record],
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            is_transactional=True,
            is_control=True,
        )
        info = self.append_batch(batch, now_ms=now_ms)
        txn = self.producer_state.on_end_txn_marker(batch, coordinator_epoch)
        if txn.is_aborted:
            lso = self.producer_state.last_stable_offset_after(txn)
            entry = AbortedTxn(txn.producer_id, txn.first_offset, txn.last_offset, lso)
            self.active_segment.aborted_transactions.append(entry)
        return info

    def append_batch(self, batch: RecordBatch, *, now_ms: int) -> AppendInfo:
        """Append a prepared batch at its own offsets, rolling first if needed (no validation of keys)."""
        if batch.base_offset < self.log_end_offset:
            message = (
                f"{self.name}: batch base offset {batch.base_offset} is below the log end offset "
                f"{self.log_end_offset} (Kafka's UnexpectedAppendOffsetException)"
            )
            raise KafkaModelError(message)
        rolled = self._maybe_roll(batch, now_ms)
        held_at = appended_offset_of_max_timestamp(batch, self.broker.version)
        self.active_segment.append([batch], now_ms, offset_of_max_timestamp=held_at)
        self.log_end_offset = batch.last_offset + 1
        return AppendInfo(
            self.topic, self.partition, batch.base_offset, batch.last_offset, rolled, self.active_segment.base_offset
        )

    def roll(self, *, now_ms: int, expected_next_offset: int | None = None) -> Segment:
        """Force a new active segment at ``max(expected_next_offset, log end offset)`` (``LocalLog.roll``)."""
        new_offset = max(expected_next_offset or 0, self.log_end_offset)
        active = self.active_segment
        if active.base_offset == new_offset:
            if active.size_bytes > 0:
                message = f"{self.name}: cannot roll a new segment at {new_offset}: a segment with that base exists"
                raise KafkaModelError(message)
            self.segments[-1] = self._new_segment(new_offset, now_ms)
            return self.segments[-1]
        if new_offset < active.base_offset:
            message = (
                f"Trying to roll a new log segment for topic partition {self.name} with start offset "
                f"{new_offset} lower than start offset of the active segment {active.base_offset}"
            )
            raise KafkaModelError(message)
        active.on_become_inactive()
        self.segments.append(self._new_segment(new_offset, now_ms))
        return self.segments[-1]

    def delete_snapshots_after_recovery_point_checkpoint(self, recovery_point: int | None = None) -> None:
        """The broker's recovery-point checkpoint (every ``log.flush.offset.checkpoint.interval.ms``) deleting old
        producer snapshots (``Log.deleteSnapshotsAfterRecoveryPointCheckpoint``, before 2.8; spec 8.5).

        It keeps those from ``minSnapshotsOffsetToRetain``: the lower of the base offset of the segment before the
        active one and that of the segment below ``recovery_point`` (``recovery_point`` itself when no segment lies
        below it). ``None``: the active segment's base offset, where the flush after its roll put the recovery
        point. From 2.8 (KAFKA-9393) the checkpoint deletes none; snapshots go with their segments.
        """
        if self.broker.version.deletes_snapshots_with_segments:
            return
        active = self.segments[-1].base_offset
        point = active if recovery_point is None else recovery_point
        kept_from = min(self._base_below(active, default=active), self._base_below(point, default=point))
        self.min_snapshot_offset_to_retain = max(self.min_snapshot_offset_to_retain, kept_from)

    def _base_below(self, offset: int, *, default: int) -> int:
        """The base offset of the last segment that starts below ``offset`` (Kafka's ``lowerSegment``), else
        ``default``."""
        return max((s.base_offset for s in self.segments if s.base_offset < offset), default=default)

    def set_high_watermark(self, offset: int | None) -> None:
        """Hold the high watermark at ``offset`` (``None``: follow the log end offset again)."""
        if offset is not None and not (self.log_start_offset <= offset <= self.log_end_offset):
            message = (
                f"{self.name}: high watermark {offset} must lie in "
                f"[log start offset {self.log_start_offset}, log end offset {self.log_end_offset}]"
            )
            raise KafkaModelError(message)
        self.held_high_watermark = offset

    def _new_segment(self, base_offset: int, now_ms: int) -> Segment:
        return Segment(
            base_offset,
            created_ms=now_ms,
            index_interval_bytes=self.config.index_interval_bytes,
            roll_jitter_ms=self._roll_jitter_ms(base_offset),
            indexes_each_batch=self.broker.version.indexes_each_batch,
        )

    def _roll_jitter_ms(self, base_offset: int) -> int:
        """Deterministic stand-in for Kafka's random per-segment jitter.

        Its range is ``[0, min(segment.jitter.ms, segment.ms))``.
        """
        bound = min(self.config.segment_jitter_ms, self.config.segment_ms)
        if bound == 0:
            return 0
        digest = hashlib.md5(f"{self.name}@{base_offset}".encode()).digest()
        return int.from_bytes(digest[:4], "big") % bound

    def _should_roll(self, batch: RecordBatch, now_ms: int) -> bool:
        """``LogSegment.shouldRoll`` for an incoming record set of one batch."""
        active = self.active_segment
        config = self.config
        if active.size_bytes > config.effective_segment_bytes - batch.size_bytes:
            return True
        if active.size_bytes > 0:
            if active.rolling_based_timestamp is not None and active.rolling_based_timestamp >= 0:
                waited = batch.max_timestamp - active.rolling_based_timestamp
            else:
                waited = now_ms - active.created_ms
            # KIP-354's cap of time rolls by max.compaction.lag.ms came with the setting, in 2.3
            limit_ms = config.max_segment_ms if self.broker.version.has_max_compaction_lag else config.segment_ms
            if waited > limit_ms - active.roll_jitter_ms:
                return True
        if active.is_index_full(config.segment_index_bytes):
            return True
        return not 0 <= batch.last_offset - active.base_offset <= INT_MAX

    def _maybe_roll(self, batch: RecordBatch, now_ms: int) -> bool:
        if not self._should_roll(batch, now_ms):
            return False
        self.roll(now_ms=now_ms, expected_next_offset=batch.base_offset)
        return True

    def _validate_keys(self, records: Sequence[NewRecord]) -> None:
        if self.config.compact and any(r.key is None for r in records):
            message = f"Compacted topic cannot accept message without key in topic partition {self.name}."
            raise InvalidRecordError(message)

    def _assign_offsets(self, records: Sequence[NewRecord], now_ms: int) -> list[Record]:
        given = [r.offset is not None for r in records]
        if any(given) and not all(given):
            raise KafkaModelError("either every record of an append gives an offset or none does")
        if all(given):
            offsets = [r.offset for r in records]
            self._check_explicit_offset(offsets[0])  # type: ignore[arg-type]
        else:
            offsets = list(range(self.log_end_offset, self.log_end_offset + len(records)))
        pool = self.key_pool
        return [
            Record(
                offset,  # type: ignore[arg-type]
                now_ms if r.timestamp is None else r.timestamp,
                None if r.key is None else pool.setdefault(r.key, r.key),
                r.value,
                tuple(r.headers),
            )
            for offset, r in zip(offsets, records, strict=False)
        ]

    def _check_explicit_offset(self, offset: int) -> None:
        if offset < self.log_end_offset:
            message = (
                f"{self.name}: offset {offset} is below the log end offset {self.log_end_offset}; "
                "explicit offsets must be at or above it"
            )
            raise KafkaModelError(message)

    def _is_log_append_time(self, timestamp_type: TimestampType | str | None) -> bool:
        if self.config.message_timestamp_type == TimestampType.LOG_APPEND_TIME.value:
            return True
        return timestamp_type is not None and TimestampType(timestamp_type) is TimestampType.LOG_APPEND_TIME


def copy_log(
    log: PartitionLog, *, config: TopicConfig | None = None, broker: BrokerConfig | None = None
) -> PartitionLog:
    """A copy of ``log`` whose segments, checkpoint and producer state are its own; batches are shared.

    ``config`` and ``broker`` replace the copy's configs (the same data under other settings). A log whose batches
    stay in their files gives a copy that reads the same files and keeps what its passes write to itself
    (:meth:`LogStorage.detached`).
    """
    clone = shallow_copy(log)
    clone.config, clone.broker = config or log.config, broker or log.broker
    clone.segments = [_copy_segment(s) for s in log.segments]
    clone.left_cleaned = [_copy_segment(s) for s in log.left_cleaned]
    clone.producer_state = log.producer_state.copy()
    clone.storage = log.storage.detached()
    return clone


def _copy_segment(segment: Segment) -> Segment:
    clone = shallow_copy(segment)
    clone.batches = list(segment.batches)
    clone.offset_index = list(segment.offset_index)
    clone.time_index = list(segment.time_index)
    clone.aborted_transactions = list(segment.aborted_transactions)
    return clone
