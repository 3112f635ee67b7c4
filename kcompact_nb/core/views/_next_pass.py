"""What the next pass at ``now_ms`` does to each stored record, and why: the one vocabulary of record fates.

This view runs Kafka's pass on a copy of the log (the broker's offset map unless one is given) over the
cleanable range ``[first dirty, first uncleanable)`` and reads back what it did: a record absent afterwards
is removed, and the reason names the pass's own offset-map entry that superseded it; a record kept is
explained from the pass's range (where it stops, and why the log head is uncleanable) and from the delete
horizons the pass left on its batches. Figures, the stepper, :func:`log_table` and :func:`explain`'s
tombstone lines all speak of records in its :class:`Outcome` terms. The log itself is never modified.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

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
from kcompact_nb.core.model import PartitionLog, copy_log, format_duration_ms, format_instant_ms
from kcompact_nb.core.simulation import Frame
from kcompact_nb.core.views._eligibility import eligibility, next_eligible_ms
from kcompact_nb.core.views._uncleanable import uncleanable_reason
from kcompact_nb.record import ControlRecordType, Record, RecordBatch, control_record_type


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
    """What a pass at ``now_ms`` over the cleanable range does to a record (the value: a line for people).

    Every pass recopies the log from its start up to where it stops (``cleanSegments`` over the segments
    below its end offset), so a record the pass keeps is either the one its key's offset-map entry names,
    or one the pass reaches but does not remove (a newer record outside its map), or one it does not reach
    (no pass runs now, or the record lies at or past where the pass stops).
    """

    REMOVED = "removed by the next pass"
    KEPT = "kept"
    NEWER_BEYOND = "superseded, kept"
    """The pass reads the record but keeps it: its key's newer record is not in the pass's offset map (KIP-280:
    or the map's entry rose after the pass read it, or it is the record at the log end offset - 1)."""
    BEYOND = "kept: no pass reaches it now"
    """A superseded, aborted or keyless record that a pass reaching it would remove: no pass runs now, or it
    lies at or past where the pass stops (uncleanable, active segment, offset map full)."""
    WAITING = "tombstone kept until its delete horizon"
    """A tombstone (or marker) kept: the pass stamps its delete horizon, the horizon is in the future, or it is
    not stamped yet and no pass reaches it now."""
    DUE = "tombstone past its delete horizon, kept: no pass reaches it now"
    """A tombstone (or marker) whose horizon has passed: the first pass that reaches it removes it, but none
    does now (the reason names what holds the pass back)."""

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


class RecordOutcome(NamedTuple):
    """One stored record: what it is, what the next pass does to it, and why (one line for people).

    A named tuple, not a frozen dataclass: a view builds one per stored record, and a frozen dataclass sets
    each field through ``object.__setattr__`` (15 ms of a 10,000-record stepper step, against 1 ms).
    """

    offset: int
    key: bytes | None
    value: bytes | None
    timestamp: int
    batch_base_offset: int
    kind: RecordKind
    outcome: Outcome
    reason: str
    superseded_by: int | None = None
    """The offset the reason names as outranking this record: the pass's offset-map entry for its key when
    the pass removes it, else its key's newer record that the pass does not map."""
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
    log: PartitionLog,
    *,
    now_ms: int,
    offset_map: OffsetMapSpec | None = None,
    strategy: Strategy | None = None,
    next_frame: Frame | None = None,
) -> NextPass:
    """Every stored record of ``log`` with its :class:`Outcome` under a pass at ``now_ms``.

    The pass is Kafka's (``Cleaner.doClean`` on a copy), run even when the log is not eligible (the
    figures show what the pass would do once it runs; then what it removes or stamps says that the pass
    waits, and until when, as :func:`explain` words it); ``offset_map`` defaults to the broker's
    dedupe buffer, ``strategy`` to the topic's ``compaction.strategy`` (KIP-280 strategies are not
    Kafka's). With an empty cleanable range no pass runs and nothing is removed.

    ``next_frame`` is that pass when it already ran: the frame it made from a copy of ``log``, as the next of
    :func:`~kcompact_nb.core.pass_frames` (a stepper's next step over a log's passes) with the same offset map
    and strategy. Its pass and log are read instead of running the pass again; a frame of another time or
    cleanable range is refused (``ValueError``).
    """
    ltc = log_to_clean(log, now_ms=now_ms)
    chosen = strategy or strategy_for(log.config)
    if next_frame is None:
        result, after = _run_pass(log, ltc, now_ms, offset_map, chosen)
    else:
        result, after = _pass_of(next_frame, ltc, now_ms)
    aborted = aborted_batches(log)
    context = _Context(
        log,
        ltc,
        now_ms,
        result,
        after,
        {} if result is None else result.offset_map.entries(),
        winning_ranks(log, chosen, aborted=aborted),
        chosen,
        uncleanable_reason(log, ltc, now_ms),
        "" if result is None or ltc.eligible else eligibility(ltc, next_eligible_ms(log, now_ms=now_ms), now_ms),
    )
    outcomes = [context.outcome(batch, record, batch.base_offset in aborted) for batch, record in log.records()]
    return NextPass(ltc, result, tuple(outcomes))


def winning_ranks(log: PartitionLog, strategy: Strategy, *, aborted: set[int] | None = None) -> dict[bytes, Any]:
    """Key -> highest rank of its data records under ``strategy`` (for offsets: the latest offset).

    ``aborted`` are base offsets of aborted batches (default: read from the log), whose records never win.
    """
    aborted = aborted_batches(log) if aborted is None else aborted
    winners: dict[bytes, Any] = {}
    by_offset = strategy.ranks_by_offset
    for batch in log.batches():
        if batch.is_control or batch.base_offset in aborted:
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
    """Data records of ``log`` whose key has a higher-ranked record in the log (those a pass over both removes);
    aborted data neither counts nor supersedes (a pass drops it whatever its key).

    ``strategy`` defaults to the topic's ``compaction.strategy``; the count ignores the cleanable range.
    """
    chosen = strategy or strategy_for(log.config)
    aborted = aborted_batches(log)
    winners = winning_ranks(log, chosen, aborted=aborted)
    rank = _offset_rank if chosen.ranks_by_offset else chosen.rank
    return sum(
        1
        for batch, record in log.records()
        if not batch.is_control
        and batch.base_offset not in aborted
        and record.key is not None
        and rank(batch, record) < winners[record.key]
    )


def _offset_rank(_batch: RecordBatch, record: Record) -> int:
    return record.offset


def _run_pass(
    log: PartitionLog, ltc: LogToClean, now_ms: int, offset_map: OffsetMapSpec | None, strategy: Strategy
) -> tuple[PassResult | None, dict[int, RecordBatch]]:
    """The pass on a copy, and offset -> batch of every record after it; no pass on an empty cleanable range."""
    if ltc.first_dirty_offset >= ltc.first_uncleanable_offset:
        return None, {r.offset: b for b, r in log.records()}
    work = copy_log(log)
    manager = CleanerManager(log.broker, strategies={log.topic: strategy})
    result = manager.clean_log(work, now_ms=now_ms, offset_map=offset_map, force=True)
    return result, {r.offset: b for b, r in work.records()}


def _pass_of(frame: Frame, ltc: LogToClean, now_ms: int) -> tuple[PassResult, dict[int, RecordBatch]]:
    """The pass that made ``frame``, checked to be the next pass over ``ltc`` at ``now_ms``, and offset -> batch of
    every record after it."""
    result = frame.passes[0] if len(frame.passes) == 1 else None
    if (
        result is None
        or frame.now_ms != now_ms
        or (result.first_dirty_offset, result.first_uncleanable_offset)
        != (ltc.first_dirty_offset, ltc.first_uncleanable_offset)
    ):
        message = (
            f"frame {frame.index} ({frame.label}) is not the next pass at {now_ms} over "
            f"[{ltc.first_dirty_offset}, {ltc.first_uncleanable_offset})"
        )
        raise ValueError(message)
    return result, {r.offset: b for b, r in frame.log.records()}


def transaction_states(log: PartitionLog) -> dict[int, str]:
    """Base offset -> ``"committed"``, ``"aborted"`` or ``"open"`` for transactional data batches, and
    ``"COMMIT"``/``"ABORT"`` for markers: aborted as the cleaner reads the transaction index (spec 7.3),
    committed when a later COMMIT marker of the same producer follows, open otherwise."""
    aborted = aborted_batches(log)
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


def aborted_batches(log: PartitionLog) -> set[int]:
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
    """What the pass did, read back: its range, its offset map's entries and the log after it."""

    log: PartitionLog
    ltc: LogToClean
    now_ms: int
    result: PassResult | None
    after: dict[int, RecordBatch]
    """Offset -> the batch holding it after the pass, for every record the pass keeps."""
    entries: dict[bytes, Any]
    """The pass's offset map at its end: key -> rank of the entry (for offsets: the offset)."""
    newest: dict[bytes, Any]
    """Key -> rank of its highest-ranked data record in the whole log (aborted data left out)."""
    strategy: Strategy
    uncleanable: str
    waits: str
    """Why the pass does not run now though its range is not empty (the log is not eligible), else empty."""

    @property
    def end_offset(self) -> int:
        return self.ltc.first_dirty_offset if self.result is None else self.result.end_offset

    def outcome(self, batch: RecordBatch, record: Record, aborted: bool) -> RecordOutcome:
        kind = _kind(batch, record, aborted)
        if kind is RecordKind.MARKER:
            outcome, reason = self._marker(batch, record)
            superseded_by = None
        else:
            outcome, reason, superseded_by = self._judge(batch, record, kind)
        if outcome is Outcome.REMOVED and self.waits:
            reason = f"{reason}; the pass waits: {self.waits}"
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
            superseded_by,
            marker,
        )

    def _rank(self, batch: RecordBatch, record: Record) -> Any:
        return record.offset if self.strategy.ranks_by_offset else self.strategy.rank(batch, record)

    def _reached(self, offset: int) -> bool:
        """Every pass recopies the log from its start up to its end offset (``cleanSegments`` from segment 0)."""
        return self.result is not None and offset < self.result.end_offset

    def _judge(self, batch: RecordBatch, record: Record, kind: RecordKind) -> tuple[Outcome, str, int | None]:
        key, offset = record.key, record.offset
        rank = self._rank(batch, record)
        entry = None if key is None else self.entries.get(key)
        beaten = entry is not None and rank < entry
        newer = None if key is None or key not in self.newest or rank >= self.newest[key] else self.newest[key]
        if offset not in self.after:
            removed = self._removed_because(batch, kind, key, entry if beaten else None)
            return Outcome.REMOVED, removed, _offset_of(entry) if beaten and kind is not RecordKind.ABORTED else None
        if not self._reached(offset):
            if kind is RecordKind.TOMBSTONE and newer is None:
                outcome, reason = self._horizon(batch, offset, "")
                return outcome, reason, None
            if newer is not None or kind is RecordKind.ABORTED or key is None:
                return Outcome.BEYOND, self._unreached(offset), None if newer is None else _offset_of(newer)
            return Outcome.KEPT, "the latest record of its key", None
        if beaten:
            return Outcome.NEWER_BEYOND, self._kept_beaten(offset, _offset_of(entry)), _offset_of(entry)
        if newer is not None:
            newer_offset = _offset_of(newer)
            return Outcome.NEWER_BEYOND, self._unmapped(newer_offset), newer_offset
        if kind is RecordKind.TOMBSTONE:
            outcome, reason = self._horizon(batch, offset, "")
            return outcome, reason, None
        return Outcome.KEPT, "the latest record of its key", None

    def _removed_because(self, batch: RecordBatch, kind: RecordKind, key: bytes | None, entry: Any) -> str:
        if kind is RecordKind.ABORTED:
            return "data of an aborted transaction: no consumer may read it, the pass drops it"
        if key is None:
            return "a record without a key: a compacted topic keeps none"
        if entry is not None:
            return f"superseded by offset {_offset_of(entry)}, its key's entry in the pass's offset map"
        horizon = batch.delete_horizon_ms
        when = "" if horizon is None else f" ({format_instant_ms(horizon)})"
        return f"a tombstone whose delete horizon{when} has passed"

    def _kept_beaten(self, offset: int, entry_offset: int) -> str:
        """A record the pass reads and keeps though its key's final entry outranks it (KIP-280 strategies only)."""
        if self.strategy.retains_log_end_record and offset == self.log.log_end_offset - 1:
            return (
                f"its key's entry in the offset map is offset {entry_offset}, "
                "but KIP-280 keeps the record at the log end offset - 1"
            )
        return (
            f"its key's entry in the offset map became offset {entry_offset} only after the pass read it "
            "(KIP-280: a clean record that outranks the mapped one replaces its entry)"
        )

    def _unmapped(self, newer: int) -> str:
        """Why the pass's offset map does not hold the record that supersedes one it reads."""
        if self._reached(newer):
            fd = self.ltc.first_dirty_offset
            where = f"below the cleaner point {fd}, in the log tail: the pass maps only [{fd}, {self.end_offset})"
        else:
            where = self._unreached(newer)
        return f"its newer record, offset {newer}, is not in the pass's offset map: {where}"

    def _unreached(self, offset: int) -> str:
        """Why no pass reaches ``offset`` now: none runs, or it lies at or past where the pass stops."""
        none, active, uncleanable, stopped = self._unreached_reasons
        if self.result is None:
            return none
        if offset >= self.log.active_segment.base_offset:
            return active
        return uncleanable if offset >= self.ltc.first_uncleanable_offset else stopped

    @cached_property
    def _unreached_reasons(self) -> tuple[str, str, str, str]:
        """:meth:`_unreached`'s four answers, worded once (most records of a big log get one of them)."""
        fu = self.ltc.first_uncleanable_offset
        return (
            f"nothing is cleanable, so no pass runs: the log head is uncleanable from {fu}: {self.uncleanable}",
            "in the active segment, never cleaned (it rolls only when records are appended)",
            f"at or above the first uncleanable offset {fu}: {self.uncleanable}",
            f"at or above offset {self.end_offset}, where the pass stops: its offset map is full",
        )

    def _horizon(self, batch: RecordBatch, offset: int, what: str) -> tuple[Outcome, str]:
        """A kept tombstone (``what`` empty) or marker (``what`` names it): its delete horizon, or what blocks it."""
        prefix = f"{what}: " if what else ""
        reached = self._reached(offset)
        if not self.log.broker.version.has_batch_delete_horizon:
            return (
                Outcome.WAITING,
                f"{prefix}kept while its segment is newer than the log tail's last modification "
                "minus delete.retention.ms (before Kafka 3.1)",
            )
        horizon = batch.delete_horizon_ms
        stamped = self.after[offset].delete_horizon_ms
        if horizon is None and stamped is not None:
            retention = format_duration_ms(self.log.config.delete_retention_ms)
            if self.waits:
                return (
                    Outcome.WAITING,
                    f"{prefix}the pass stamps its delete horizon: pass time + delete.retention.ms ({retention}); "
                    f"the pass waits: {self.waits}",
                )
            return (
                Outcome.WAITING,
                f"{prefix}the pass stamps its delete horizon: {format_instant_ms(stamped)} "
                f"(pass time + delete.retention.ms, {retention})",
            )
        if horizon is not None and horizon > self.now_ms:
            wait = format_duration_ms(horizon - self.now_ms, max_units=2)
            return Outcome.WAITING, f"{prefix}delete horizon {format_instant_ms(horizon)}, {wait} from now"
        if reached and what:  # a marker the pass reads and neither stamps nor removes
            return (
                Outcome.KEPT,
                f"{prefix}its transaction had data when the pass read it; "
                "the first pass that finds none stamps its delete horizon",
            )
        if reached:  # the only tombstone past its horizon a pass reads and keeps (spec 14)
            return Outcome.KEPT, "KIP-280 keeps the record at the log end offset - 1"
        if horizon is None:
            blocked = f"{prefix}not stamped yet: {self._unreached(offset)}"
            return (Outcome.KEPT if what else Outcome.WAITING), blocked
        return Outcome.DUE, f"{prefix}delete horizon {format_instant_ms(horizon)} has passed; {self._unreached(offset)}"

    def _marker(self, batch: RecordBatch, record: Record) -> tuple[Outcome, str]:
        what = f"{_marker_name(record)} marker of producer {batch.producer_id}"
        if record.offset not in self.after:
            return Outcome.REMOVED, f"{what}: no data of its transaction is left and its delete horizon has passed"
        return self._horizon(batch, record.offset, what)


def _offset_of(rank: Any) -> int:
    """Ranks end with the offset (see ``Strategy``)."""
    return int(rank[-1]) if isinstance(rank, tuple) else int(rank)


def _kind(batch: RecordBatch, record: Record, aborted: bool) -> RecordKind:
    if batch.is_control:
        return RecordKind.MARKER
    if aborted:
        return RecordKind.ABORTED
    return RecordKind.TOMBSTONE if record.key is not None and record.value is None else RecordKind.DATA


def _marker_name(record: Record) -> str:
    kind = control_record_type(record)
    return kind.name if isinstance(kind, ControlRecordType) else "control"
