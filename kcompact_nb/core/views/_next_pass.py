"""What the next pass at ``now_ms`` does to each stored record, and why: the one vocabulary of record fates.

This view runs Kafka's pass on a copy of the log (the broker's offset map unless one is given) over the
cleanable range ``[first dirty, first uncleanable)`` and compares: a record absent afterwards is removed;
a superseded record that stays is explained (its newer copy lies beyond the range the pass maps, or the
record itself lies beyond where the pass ends). Figures, the stepper and :func:`log_table` all speak of
records in its :class:`Outcome` terms. The log itself is never modified.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from kcompact_nb.core.cleaner import (
    CleanedTransactionMetadata,
    CleanerManager,
    LogToClean,
    OffsetMapSpec,
    PassResult,
    Strategy,
    log_to_clean,
    strategy_for,
)
from kcompact_nb.core.model import (
    ControlRecordType,
    PartitionLog,
    Record,
    RecordBatch,
    control_record_type,
    copy_log,
    format_duration_ms,
    format_instant_ms,
)


class RecordKind(enum.StrEnum):
    """What a stored record is, independent of its fate."""

    DATA = "data"
    TOMBSTONE = "tombstone"
    """A keyed record with a null value: a delete."""
    ABORTED = "aborted"
    """Data of an aborted transaction (listed in a segment's transaction index, spec 7.3)."""
    MARKER = "marker"
    """A transaction's COMMIT or ABORT control record."""


class Outcome(enum.StrEnum):
    """What a pass at ``now_ms`` over the cleanable range does to a record (the value: a line for people)."""

    REMOVED = "removed by the next pass"
    KEPT = "kept"
    NEWER_BEYOND = "superseded, kept: its newer record is beyond where the pass reaches"
    """The pass rewrites the record's segment, but its key's newer record is not in the offset map."""
    BEYOND = "kept: beyond where the pass reaches"
    """A superseded, aborted or expired record the pass does not reach (uncleanable or active segment)."""
    WAITING = "tombstone kept until its delete horizon"
    """A tombstone (or marker) the pass keeps: not stamped yet, or its delete horizon is in the future."""
    DUE = "tombstone past its delete horizon: the next pass over it removes it"
    """A tombstone whose horizon has passed but that no pass reaches now (the cleanable range is empty)."""

    @property
    def short(self) -> str:
        """A few words for a table column: ``removed``, ``kept``, ``superseded, kept``, ``not reached``,
        ``awaiting horizon``, ``past horizon``."""
        return _SHORT[self]


_SHORT = {
    Outcome.REMOVED: "removed",
    Outcome.KEPT: "kept",
    Outcome.NEWER_BEYOND: "superseded, kept",
    Outcome.BEYOND: "not reached",
    Outcome.WAITING: "awaiting horizon",
    Outcome.DUE: "past horizon",
}


@dataclass(frozen=True)
class RecordOutcome:
    """One stored record: what it is, what the next pass does to it, and why (one line for people)."""

    offset: int
    key: bytes | None
    value: bytes | None
    timestamp: int
    batch_base_offset: int
    kind: RecordKind
    outcome: Outcome
    reason: str
    superseded_by: int | None = None
    """The offset of its key's winning record, when that is another record."""
    marker: str | None = None
    """``"COMMIT"`` or ``"ABORT"`` for a transaction marker."""


@dataclass(frozen=True)
class NextPass:
    """The pass a figure describes: its range and end offset (``None`` when the range is empty: no pass)."""

    log_to_clean: LogToClean
    result: PassResult | None
    records: tuple[RecordOutcome, ...]

    @property
    def end_offset(self) -> int:
        """Where the pass stops: the first uncleanable offset, or earlier when its offset map fills."""
        return self.log_to_clean.first_dirty_offset if self.result is None else self.result.end_offset


def next_pass(
    log: PartitionLog, *, now_ms: int, offset_map: OffsetMapSpec | None = None, strategy: Strategy | None = None
) -> NextPass:
    """Every stored record of ``log`` with its :class:`Outcome` under a pass at ``now_ms``.

    The pass is Kafka's (``Cleaner.doClean`` on a copy), run even when the log is not eligible (the
    figures show what the pass would do once it runs); ``offset_map`` defaults to the broker's
    dedupe buffer, ``strategy`` to the topic's ``compaction.strategy`` (KIP-280 strategies are not
    Kafka's). With an empty cleanable range no pass runs and nothing is removed.
    """
    ltc = log_to_clean(log, now_ms=now_ms)
    chosen = strategy or strategy_for(log.config)
    result, survivors = _run_pass(log, ltc, now_ms, offset_map, chosen)
    context = _Context(log, ltc, now_ms, result, survivors, winning_ranks(log, chosen), chosen)
    aborted = _aborted_batches(log)
    outcomes = [context.outcome(batch, record, batch.base_offset in aborted) for batch, record in log.records()]
    return NextPass(ltc, result, tuple(outcomes))


def winning_ranks(log: PartitionLog, strategy: Strategy) -> dict[bytes, Any]:
    """Key -> highest rank of its data records under ``strategy`` (for offsets: the latest offset)."""
    winners: dict[bytes, Any] = {}
    by_offset = strategy.ranks_by_offset
    for batch in log.batches():
        if batch.is_control:
            continue
        for record in batch.records:
            if record.key is None:
                continue
            rank = record.offset if by_offset else strategy.rank(batch, record)
            current = winners.get(record.key)
            if current is None or rank > current:
                winners[record.key] = rank
    return winners


def superseded_count(log: PartitionLog, *, strategy: Strategy | None = None) -> int:
    """Data records of ``log`` whose key has a higher-ranked record in the log (those a pass over both removes).

    ``strategy`` defaults to the topic's ``compaction.strategy``; the count ignores the cleanable range.
    """
    chosen = strategy or strategy_for(log.config)
    winners = winning_ranks(log, chosen)
    rank = _offset_rank if chosen.ranks_by_offset else chosen.rank
    return sum(
        1
        for batch, record in log.records()
        if not batch.is_control and record.key is not None and rank(batch, record) < winners[record.key]
    )


def _offset_rank(_batch: RecordBatch, record: Record) -> int:
    return record.offset


def _run_pass(
    log: PartitionLog, ltc: LogToClean, now_ms: int, offset_map: OffsetMapSpec | None, strategy: Strategy
) -> tuple[PassResult | None, set[int]]:
    if ltc.first_dirty_offset >= ltc.first_uncleanable_offset:
        return None, {r.offset for _, r in log.records()}
    work = copy_log(log)
    manager = CleanerManager(log.broker, strategies={log.topic: strategy})
    result = manager.clean_log(work, now_ms=now_ms, offset_map=offset_map, force=True)
    return result, {r.offset for _, r in work.records()}


def transaction_states(log: PartitionLog) -> dict[int, str]:
    """Base offset -> ``"committed"``, ``"aborted"`` or ``"open"`` for transactional data batches, and
    ``"COMMIT"``/``"ABORT"`` for markers: aborted as the cleaner reads the transaction index (spec 7.3),
    committed when a later COMMIT marker of the same producer follows, open otherwise."""
    aborted = _aborted_batches(log)
    states: dict[int, str] = {}
    waiting: dict[int, list[int]] = {}
    for batch in log.batches():
        if batch.is_control:
            marker = _marker_name(batch.records[0]) if batch.records else "control"
            states[batch.base_offset] = marker
            for base in waiting.pop(batch.producer_id, []):
                states[base] = "aborted" if base in aborted else ("committed" if marker == "COMMIT" else "aborted")
        elif batch.is_transactional:
            states[batch.base_offset] = "aborted" if batch.base_offset in aborted else "open"
            waiting.setdefault(batch.producer_id, []).append(batch.base_offset)
    return states


def _aborted_batches(log: PartitionLog) -> set[int]:
    """Base offsets of data batches in aborted transactions, read as the cleaner reads them (spec 7.3)."""
    txn = CleanedTransactionMetadata()
    txn.add_aborted_transactions(entry for segment in log.segments for entry in segment.aborted_transactions)
    aborted = set()
    for batch in log.batches():
        if batch.is_control:
            txn.on_control_batch_read(batch)
        elif txn.on_batch_read(batch):
            aborted.add(batch.base_offset)
    return aborted


@dataclass(frozen=True)
class _Context:
    log: PartitionLog
    ltc: LogToClean
    now_ms: int
    result: PassResult | None
    survivors: set[int]
    winners: dict[bytes, Any]
    strategy: Strategy

    @property
    def end_offset(self) -> int:
        return self.ltc.first_dirty_offset if self.result is None else self.result.end_offset

    def outcome(self, batch: RecordBatch, record: Record, aborted: bool) -> RecordOutcome:
        kind = _kind(batch, record, aborted)
        newer = self._newer_offset(batch, record)
        outcome, reason = self._judge(batch, record, kind, newer)
        marker = _marker_name(record) if kind is RecordKind.MARKER else None
        return RecordOutcome(
            record.offset,
            record.key,
            record.value,
            record.timestamp,
            batch.base_offset,
            kind,
            outcome,
            reason,
            newer,
            marker,
        )

    def _newer_offset(self, batch: RecordBatch, record: Record) -> int | None:
        if batch.is_control or record.key is None or record.key not in self.winners:
            return None
        best = self.winners[record.key]
        rank = record.offset if self.strategy.ranks_by_offset else self.strategy.rank(batch, record)
        if rank >= best:
            return None
        return int(best[-1]) if isinstance(best, tuple) else int(best)

    def _judge(self, batch: RecordBatch, record: Record, kind: RecordKind, newer: int | None) -> tuple[Outcome, str]:
        if kind is RecordKind.MARKER:
            return self._marker(batch, record)
        if record.offset not in self.survivors:
            return Outcome.REMOVED, self._removed_because(batch, kind, newer)
        if record.offset >= self.end_offset and (newer is not None or kind is RecordKind.ABORTED):
            return Outcome.BEYOND, self._beyond(record.offset)
        if newer is not None:
            return (
                Outcome.NEWER_BEYOND,
                f"superseded by offset {newer}, which the pass does not map ({self._beyond(newer)})",
            )
        if kind is RecordKind.TOMBSTONE:
            return self._tombstone_kept(batch, record.offset)
        return Outcome.KEPT, "the latest record of its key" if record.key is not None else "a record without a key"

    def _marker(self, batch: RecordBatch, record: Record) -> tuple[Outcome, str]:
        what = f"{_marker_name(record)} marker of producer {batch.producer_id}"
        if record.offset not in self.survivors:
            return Outcome.REMOVED, f"{what}: no data of its transaction is left and its delete horizon has passed"
        if batch.delete_horizon_ms is not None and batch.delete_horizon_ms > self.now_ms:
            return Outcome.WAITING, f"{what}: delete horizon {format_instant_ms(batch.delete_horizon_ms)}"
        return Outcome.KEPT, what

    def _removed_because(self, batch: RecordBatch, kind: RecordKind, newer: int | None) -> str:
        if kind is RecordKind.ABORTED:
            return "data of an aborted transaction: no consumer may read it, the pass drops it"
        if newer is not None:
            return f"superseded by offset {newer}"
        if kind is RecordKind.TOMBSTONE:
            horizon = batch.delete_horizon_ms
            when = "" if horizon is None else f" ({format_instant_ms(horizon)})"
            return f"a tombstone whose delete horizon{when} has passed"
        return "a record without a key: a compacted topic keeps none"

    def _beyond(self, offset: int) -> str:
        ltc, log = self.ltc, self.log
        if offset >= log.active_segment.base_offset:
            return "in the active segment, never cleaned"
        if offset >= ltc.first_uncleanable_offset:
            return f"at or above the first uncleanable offset {ltc.first_uncleanable_offset}"
        if offset >= self.end_offset:
            return f"at or above offset {self.end_offset}, where the pass stops: its offset map is full"
        return f"below the cleaner point {ltc.first_dirty_offset}, in the log tail"

    def _tombstone_kept(self, batch: RecordBatch, offset: int) -> tuple[Outcome, str]:
        horizon = batch.delete_horizon_ms
        if not self.log.broker.version.has_batch_delete_horizon:
            return (
                Outcome.WAITING,
                "kept while its segment is newer than the log tail's last modification "
                "minus delete.retention.ms (before Kafka 3.1)",
            )
        if horizon is not None and horizon <= self.now_ms:
            return (
                Outcome.DUE,
                f"delete horizon {format_instant_ms(horizon)} has passed; "
                f"no pass reaches it now ({self._beyond(offset)})",
            )
        if horizon is not None:
            return (
                Outcome.WAITING,
                f"delete horizon {format_instant_ms(horizon)}, "
                f"{format_duration_ms(horizon - self.now_ms, max_units=2)} from now",
            )
        if offset >= self.end_offset:
            return Outcome.WAITING, f"not stamped yet: {self._beyond(offset)}"
        retention = format_duration_ms(self.log.config.delete_retention_ms)
        return Outcome.WAITING, f"the pass stamps its delete horizon: pass time + delete.retention.ms ({retention})"


def _kind(batch: RecordBatch, record: Record, aborted: bool) -> RecordKind:
    if batch.is_control:
        return RecordKind.MARKER
    if aborted:
        return RecordKind.ABORTED
    return RecordKind.TOMBSTONE if record.key is not None and record.value is None else RecordKind.DATA


def _marker_name(record: Record) -> str:
    kind = control_record_type(record)
    return kind.name if isinstance(kind, ControlRecordType) else "control"
