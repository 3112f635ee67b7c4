"""What the next pass does to each stored record, and why, read from the engine: the one vocabulary of record fates.

This view runs the broker's cleaner forward on a copy of the log (:func:`~kcompact_nb.core.run_forward`, nothing
appended) and reads back what it decided: the next pass's decision for each record it read (the rule, and the
offset-map entry that superseded a removed record), the segments retention deleted first, and for every record the
first instant any later iteration removes it. A record the pass does not read is explained from the pass's range
(where it stops, and which bound makes the log head uncleanable). Figures, the stepper, :func:`log_table` and
:func:`explain`'s tombstone lines all speak of records in its :class:`Outcome` terms. The log itself is never modified.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from kcompact_nb.core.cleaner import (
    FAR_FUTURE_MS,
    CleanedTransactionMetadata,
    Iteration,
    LogToClean,
    OffsetMapSpec,
    PassDecisions,
    PassResult,
    RecordDecision,
    RecordRule,
    RetentionDeletion,
    RetentionReason,
    Strategy,
    UncleanableBound,
    log_to_clean,
    rank_offset,
    strategy_for,
)
from kcompact_nb.core.model import PartitionLog, format_bytes, format_duration_ms, format_instant_ms
from kcompact_nb.core.simulation import Future, RecordFate, Simulation, next_eligible_ms, run_forward
from kcompact_nb.core.views._eligibility import eligibility
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
    """What the next pass does to a record, or retention before it (the value: a line for people).

    Every pass recopies the log from its start up to where it stops (``cleanSegments`` over the segments
    below its end offset), so a record the pass keeps is either the one its key's offset-map entry names,
    or one the pass reaches but does not remove (a newer record outside its map), or one it does not reach
    (no pass runs, or the record lies at or past where the pass stops).
    """

    REMOVED = "removed by the next pass"
    DELETED = "deleted by retention"
    """Retention (``compact,delete``'s ``retention.ms`` and ``retention.bytes``, or the log start offset) deletes the
    record's segment before the next pass, or with no pass to come."""
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
        """A few words for a table column: ``removed``, ``deleted``, ``kept``, ``superseded, kept``, ``not reached``,
        ``awaiting horizon``, ``past horizon``."""
        return _SHORT[self]


_SHORT = {
    Outcome.REMOVED: "removed",
    Outcome.DELETED: "deleted",
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
    goes_at_ms: int | None = None
    """The first instant a cleaner iteration removes the record if nothing more is appended (``None``: it stays)."""
    goes: str = ""
    """How it goes then (the pass and its rule, or retention), or that it stays."""


@dataclass(frozen=True)
class NextPass:
    """The next pass the cleaner runs on a log if nothing more is appended, read from the engine run forward.

    ``iteration`` is the cleaner iteration that runs it (``None``: no pass runs without appends), ``future`` every
    iteration from now on (:func:`~kcompact_nb.core.run_forward`), and ``records`` each stored record's fate.
    ``log_to_clean`` is the log as the cleaner sees it now.
    """

    log_to_clean: LogToClean
    iteration: Iteration | None
    records: tuple[RecordOutcome, ...]
    future: Future | None = None

    @property
    def result(self) -> PassResult | None:
        """The pass (``None``: none runs without appends)."""
        return None if self.iteration is None else self.iteration.result

    @property
    def at_ms(self) -> int | None:
        """When the pass runs: the first instant the engine runs it (``None``: never without appends)."""
        return None if self.iteration is None else self.iteration.at_ms

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
    simulation: Simulation | None = None,
    future: Future | None = None,
) -> NextPass:
    """Every stored record of ``log`` with its :class:`Outcome` under the next pass, and when it leaves the log.

    The cleaner runs forward from ``now_ms`` on a copy with nothing appended (:func:`run_forward`: a cleaner thread
    that looks at ``now_ms``, backs off ``log.cleaner.backoff.ms`` while nothing is eligible, then runs
    ``Cleaner.doClean``, then retention); the next pass is the first it runs on ``log``, now or later. A record's
    outcome is what that pass decided for it (or that retention deleted it first, or that the pass does not reach it),
    its ``goes_at_ms`` the first instant any later iteration removes it. ``offset_map`` replaces the broker's dedupe
    buffer, ``strategy`` the topic's ``compaction.strategy`` (KIP-280 strategies are not Kafka's). ``simulation`` is
    the broker the log belongs to: its cleaner (producer expiry's schedule, uncleanable partitions, what-if offset
    maps) then runs forward over all its logs, so another partition may be cleaned first. ``future`` is a run already
    made with them.
    """
    return next_pass_over(
        LogBatches.read(log),
        now_ms=now_ms,
        offset_map=offset_map,
        strategy=strategy,
        simulation=simulation,
        future=future,
    )


@dataclass(frozen=True)
class LogBatches:
    """A log's batches read once, in offset order, with the base offsets of its aborted data batches: what the views
    of every record walk instead of reading the log again (a log in its files is read from them once)."""

    log: PartitionLog
    batches: tuple[RecordBatch, ...]
    aborted: frozenset[int]

    @classmethod
    def read(cls, log: PartitionLog) -> LogBatches:
        return cls.holding(log, tuple(log.batches()))

    @classmethod
    def holding(cls, log: PartitionLog, batches: tuple[RecordBatch, ...]) -> LogBatches:
        """``log`` with its batches read already (``batches``, all of them in offset order)."""
        return cls(log, batches, frozenset(_aborted_in(log, batches)))

    def records(self) -> Iterator[tuple[RecordBatch, Record]]:
        """Every (batch, record) pair in offset order, control records included (``PartitionLog.records``)."""
        for batch in self.batches:
            for record in batch.records:
                yield batch, record


def next_pass_over(
    read: LogBatches,
    *,
    now_ms: int,
    offset_map: OffsetMapSpec | None = None,
    strategy: Strategy | None = None,
    simulation: Simulation | None = None,
    future: Future | None = None,
) -> NextPass:
    """:func:`next_pass` of ``read.log``, whose batches ``read`` holds (they are not read again)."""
    log = read.log
    cleaner = None if simulation is None else simulation.cleaner
    chosen = strategy or (cleaner.strategy_of(log) if cleaner is not None else strategy_for(log.config))
    if future is None:
        future = run_forward(
            [log] if simulation is None else simulation.partitions_in_creation_order(),
            now_ms=now_ms,
            cleaner=cleaner,
            strategies=None if strategy is None else {log.topic: strategy},
            offset_maps=None if offset_map is None else {log.name: offset_map},
        )
    ltc = log_to_clean(log, now_ms=now_ms)
    upcoming = future.next_pass(log.name)
    aborted = read.aborted
    context = _Context(
        log,
        ltc,
        now_ms,
        future,
        upcoming,
        winning_ranks(read.batches, chosen, aborted),
        chosen,
        next_eligible_ms(log, now_ms=now_ms),
    )
    outcomes = [context.outcome(batch, record, batch.base_offset in aborted) for batch, record in read.records()]
    return NextPass(ltc, upcoming, tuple(outcomes), future)


def winning_ranks(batches: Iterable[RecordBatch], strategy: Strategy, aborted: Collection[int]) -> dict[bytes, Any]:
    """Key -> highest rank of its data records in ``batches`` under ``strategy`` (for offsets: the latest offset);
    records of aborted batches (``aborted``: their base offsets) never win."""
    winners: dict[bytes, Any] = {}
    by_offset = strategy.ranks_by_offset
    for batch in batches:
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
    return superseded_count_in(LogBatches.read(log), strategy or strategy_for(log.config))


def superseded_count_in(read: LogBatches, chosen: Strategy) -> int:
    """:func:`superseded_count` of ``read.log`` under ``chosen``, its batches read in ``read``."""
    aborted = read.aborted
    winners = winning_ranks(read.batches, chosen, aborted)
    rank = _offset_rank if chosen.ranks_by_offset else chosen.rank
    return sum(
        1
        for batch, record in read.records()
        if not batch.is_control
        and batch.base_offset not in aborted
        and record.key is not None
        and rank(batch, record) < winners[record.key]
    )


def _offset_rank(_batch: RecordBatch, record: Record) -> int:
    return record.offset


def transaction_states(log: PartitionLog) -> dict[int, str]:
    """Base offset -> ``"committed"``, ``"aborted"`` or ``"open"`` for transactional data batches, and
    ``"COMMIT"``/``"ABORT"`` for markers: aborted as the cleaner reads the transaction index (spec 7.3),
    committed when a later COMMIT marker of the same producer follows, open otherwise."""
    return transaction_states_in(LogBatches.read(log))


def transaction_states_in(read: LogBatches) -> dict[int, str]:
    """:func:`transaction_states` of ``read.log``, whose batches ``read`` holds."""
    aborted = read.aborted
    states: dict[int, str] = {}
    waiting: dict[int, list[int]] = {}
    for batch in read.batches:
        if batch.is_control:
            marker = _marker_name(batch.records[0]) if batch.records else "control"
            states[batch.base_offset] = marker
            for base in waiting.pop(batch.producer_id, []):
                states[base] = "aborted" if base in aborted else ("committed" if marker == "COMMIT" else "aborted")
        elif batch.is_transactional:
            states[batch.base_offset] = "aborted" if batch.base_offset in aborted else "open"
            waiting.setdefault(batch.producer_id, []).append(batch.base_offset)
    return states


def _aborted_in(log: PartitionLog, batches: Iterable[RecordBatch]) -> set[int]:
    """Base offsets of ``log``'s data batches (``batches``) in aborted transactions, read as the cleaner reads them
    (spec 7.3)."""
    entries = [entry for segment in log.segments for entry in segment.aborted_transactions]
    if not entries:
        return set()  # no aborted transaction in the log: the walk would find none (most logs; skipped for speed)
    txn = CleanedTransactionMetadata()
    txn.add_aborted_transactions(entries)
    aborted = set()
    for batch in batches:
        if batch.is_control:
            txn.on_control_batch_read(batch)
        elif txn.on_batch_read(batch):
            aborted.add(batch.base_offset)
    return aborted


@dataclass(frozen=True)
class _Context:
    """The engine run forward, read back for one log: the next pass's decisions and every later fate."""

    log: PartitionLog
    ltc: LogToClean
    now_ms: int
    future: Future
    upcoming: Iteration | None
    newest: dict[bytes, Any]
    """Key -> rank of its highest-ranked data record in the whole log (aborted data left out)."""
    strategy: Strategy
    eligible_at_ms: int | None

    @cached_property
    def result(self) -> PassResult | None:
        return None if self.upcoming is None else self.upcoming.result

    @cached_property
    def decisions(self) -> PassDecisions:
        return PassDecisions() if self.result is None or self.result.decisions is None else self.result.decisions

    @cached_property
    def entries(self) -> dict[bytes, Any]:
        """The pass's offset map at its end: key -> rank of the entry (for offsets: the offset)."""
        return {} if self.result is None else self.result.offset_map.entries()

    @cached_property
    def pass_ltc(self) -> LogToClean:
        """The log as the cleaner saw it when it chose it for the pass (the log now when no pass runs)."""
        chosen = None if self.upcoming is None else self.upcoming.of(self.log.name)
        return self.ltc if chosen is None or chosen.log_to_clean is None else chosen.log_to_clean

    @cached_property
    def upcoming_index(self) -> int:
        iterations = self.future.iterations
        return len(iterations) if self.upcoming is None else iterations.index(self.upcoming)

    @property
    def end_offset(self) -> int:
        return self.ltc.first_dirty_offset if self.result is None else self.result.end_offset

    def outcome(self, batch: RecordBatch, record: Record, aborted: bool) -> RecordOutcome:
        kind = _kind(batch, record, aborted)
        fate = self.fates.get(record.offset) or RecordFate(record.offset, None)
        superseded_by = None
        if fate.deletion is not None and self._before_next_pass(fate):
            outcome, reason = Outcome.DELETED, _deleted_because(fate.deletion, self.log)
        elif kind is RecordKind.MARKER:
            outcome, reason = self._marker(batch, record)
        else:
            outcome, reason, superseded_by = self._judge(batch, record, kind)
        if outcome is Outcome.REMOVED and self.waits:
            reason = f"{reason}; {self.waits}"
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
            fate.at_ms,
            self._goes(fate),
        )

    @cached_property
    def fates(self) -> dict[int, RecordFate]:
        return self.future.fates(self.log.name)

    def _goes(self, fate: RecordFate) -> str:
        """When and how the record leaves the log if nothing more is appended, in a few words (worded once for each
        pass or deletion: most records share one)."""
        if fate.at_ms is None:
            return "stays while nothing is appended"
        cause = fate.deletion or (None if fate.decision is None else fate.decision.rule)
        said = self._said.get((fate.at_ms, cause))
        if said is None:
            said = self._said[(fate.at_ms, cause)] = _goes(fate, self.log)
        return said

    @cached_property
    def _said(self) -> dict[tuple[int, Any], str]:
        return {}

    def _before_next_pass(self, fate: RecordFate) -> bool:
        return fate.iteration is not None and self.future.iterations.index(fate.iteration) <= self.upcoming_index

    @cached_property
    def waits(self) -> str:
        """Why the next pass is later than now, else empty."""
        at = None if self.upcoming is None else self.upcoming.at_ms
        if at is None or at == self.now_ms:
            return ""
        when = f"the pass runs at {format_instant_ms(at)}, {format_duration_ms(at - self.now_ms, max_units=2)} from now"
        if self.eligible_at_ms is not None and self.eligible_at_ms < at:
            return (
                f"{when}: eligible at {format_instant_ms(self.eligible_at_ms)}, the cleaner thread looks again "
                f"log.cleaner.backoff.ms after it last looked"
            )
        return f"{when}: {eligibility(self.ltc, self.eligible_at_ms, self.now_ms)}"

    def _rank(self, batch: RecordBatch, record: Record) -> Any:
        return record.offset if self.strategy.ranks_by_offset else self.strategy.rank(batch, record)

    def _judge(self, batch: RecordBatch, record: Record, kind: RecordKind) -> tuple[Outcome, str, int | None]:
        key, offset = record.key, record.offset
        decision = self.decisions.records.get(offset)
        if decision is not None and not decision.kept:
            return Outcome.REMOVED, self._removed_because(batch, decision), decision.entry_offset
        rank = self._rank(batch, record)
        newer = None if key is None or key not in self.newest or rank >= self.newest[key] else self.newest[key]
        if decision is None or decision.rule is RecordRule.UNREAD_BY_MAP:
            if kind is RecordKind.TOMBSTONE and newer is None:
                outcome, reason = self._horizon(batch, offset, "")
                return outcome, reason, None
            if newer is not None or kind is RecordKind.ABORTED or key is None:
                return Outcome.BEYOND, self._unreached(offset), None if newer is None else rank_offset(newer)
            return Outcome.KEPT, "the latest record of its key", None
        entry = None if key is None else self.entries.get(key)
        if entry is not None and rank < entry:
            return Outcome.NEWER_BEYOND, self._kept_beaten(offset, rank_offset(entry)), rank_offset(entry)
        if newer is not None:
            newer_offset = rank_offset(newer)
            return Outcome.NEWER_BEYOND, self._unmapped(newer_offset), newer_offset
        if kind is RecordKind.TOMBSTONE:
            outcome, reason = self._horizon(batch, offset, "")
            return outcome, reason, None
        return Outcome.KEPT, "the latest record of its key", None

    def _removed_because(self, batch: RecordBatch, decision: RecordDecision) -> str:
        rule = decision.rule
        if rule is RecordRule.ABORTED:
            return "data of an aborted transaction: no consumer may read it, the pass drops it"
        if rule is RecordRule.KEYLESS:
            return "a record without a key: a compacted topic keeps none"
        if rule is RecordRule.SUPERSEDED:
            return f"superseded by offset {decision.entry_offset}, its key's entry in the pass's offset map"
        if rule is RecordRule.LEGACY_TOMBSTONE_EXPIRED:
            return (
                "a tombstone whose segment is older than the log tail's last modification minus delete.retention.ms "
                "(before Kafka 3.1)"
            )
        horizon = batch.delete_horizon_ms
        when = "" if horizon is None else f" ({format_instant_ms(horizon)})"
        return f"a tombstone whose delete horizon{when} has passed"

    def _kept_beaten(self, offset: int, entry_offset: int) -> str:
        """A record the pass reads and keeps though its key's final entry outranks it (KIP-280 strategies only)."""
        if self.decisions.records[offset].rule is RecordRule.LOG_END:
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
        decision = self.decisions.records.get(newer)
        if decision is not None and decision.rule is not RecordRule.UNREAD_BY_MAP:
            fd = self.pass_ltc.first_dirty_offset
            where = f"below the cleaner point {fd}, in the log tail: the pass maps only [{fd}, {self.end_offset})"
        else:
            where = self._unreached(newer)
        return f"its newer record, offset {newer}, is not in the pass's offset map: {where}"

    def _unreached(self, offset: int) -> str:
        """Why the next pass does not reach ``offset``: none runs, or it lies at or past where the pass stops."""
        none, active, uncleanable, stopped = self._unreached_reasons
        if self.result is None:
            return none
        if offset >= self.pass_ltc.first_uncleanable_offset:
            return active if self.pass_ltc.uncleanable_bound is UncleanableBound.ACTIVE_SEGMENT else uncleanable
        return stopped

    @cached_property
    def _unreached_reasons(self) -> tuple[str, str, str, str]:
        """:meth:`_unreached`'s four answers, worded once (most records of a big log get one of them)."""
        ltc = self.pass_ltc
        fu = ltc.first_uncleanable_offset
        return (
            _never_reason(self.log, self.future),
            "in the active segment, never cleaned (it rolls only when records are appended)",
            f"at or above the first uncleanable offset {fu}: {uncleanable_reason(ltc)}",
            f"at or above offset {self.end_offset}, where the pass stops: its offset map is full",
        )

    def _horizon(self, batch: RecordBatch, offset: int, what: str) -> tuple[Outcome, str]:
        """A kept tombstone (``what`` empty) or marker (``what`` names it): its delete horizon, or what blocks it."""
        prefix = f"{what}: " if what else ""
        decision = self.decisions.records.get(offset)
        reached = decision is not None and decision.rule is not RecordRule.UNREAD_BY_MAP
        if not self.log.broker.version.has_batch_delete_horizon:
            return (
                Outcome.WAITING,
                f"{prefix}kept while its segment is newer than the log tail's last modification "
                "minus delete.retention.ms (before Kafka 3.1)",
            )
        horizon = batch.delete_horizon_ms
        stamped = self.decisions.batches.get(batch.base_offset)
        stamped_ms = None if stamped is None else stamped.stamped_horizon_ms
        if horizon is None and stamped_ms is not None:
            retention = format_duration_ms(self.log.config.delete_retention_ms)
            waits = f"; {self.waits}" if self.waits else ""
            return (
                Outcome.WAITING,
                f"{prefix}the pass stamps its delete horizon: {format_instant_ms(stamped_ms)} "
                f"(pass time + delete.retention.ms, {retention}){waits}",
            )
        pass_ms = self.now_ms if self.upcoming is None else self.upcoming.at_ms
        if horizon is not None and horizon > pass_ms:
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
        decision = self.decisions.records.get(record.offset)
        if decision is not None and not decision.kept:
            reason = f"{what}: no data of its transaction is left and its delete horizon has passed"
            return Outcome.REMOVED, reason
        return self._horizon(batch, record.offset, what)


def _never_reason(log: PartitionLog, future: Future) -> str:
    """Why no pass runs on ``log`` from now on while nothing is appended, from the engine: the pass that fails, or the
    log as the cleaner would see it at a far future instant."""
    failed = future.failure(log.name)
    if failed is not None and failed.failure is not None:
        when = format_instant_ms(failed.at_ms)
        return f"its pass at {when} throws ({failed.failure.error}) and Kafka marks the partition uncleanable"
    if log.name in future.uncleanable:
        return "the partition is marked uncleanable: Kafka's cleaner skips it until the broker restarts"
    never = log_to_clean(log, now_ms=FAR_FUTURE_MS)
    if never.cleanable_bytes == 0:
        fu = never.first_uncleanable_offset
        return (
            f"nothing is cleanable, so no pass runs: the log head is uncleanable from {fu}: {uncleanable_reason(never)}"
        )
    return (
        f"no pass runs: the dirty ratio stays at or below min.cleanable.dirty.ratio "
        f"{never.min_cleanable_dirty_ratio:g} while nothing is appended"
    )


def _deleted_because(deletion: RetentionDeletion, log: PartitionLog) -> str:
    """Why retention deletes a record's segment, and when."""
    when = f"deleted by retention at {format_instant_ms(deletion.at_ms)} with its segment {deletion.base_offset}"
    if deletion.reason is RetentionReason.LOG_START_OFFSET:
        return f"{when}: the segment lies below the log start offset"
    if deletion.reason is RetentionReason.RETENTION_BYTES:
        return f"{when}: the partition is larger than retention.bytes ({format_bytes(log.config.retention_bytes)})"
    return (
        f"{when}: its newest record ({format_instant_ms(deletion.largest_timestamp)}) is older than retention.ms "
        f"({format_duration_ms(log.config.retention_ms, max_units=2)})"
    )


def _goes(fate: RecordFate, log: PartitionLog) -> str:
    """When and how the record leaves the log, in a few words (a fate with a time)."""
    if fate.deletion is not None:
        return _deleted_because(fate.deletion, log)
    rule = "" if fate.decision is None else fate.decision.rule.text
    return f"removed by the pass at {format_instant_ms(fate.removed_at_ms)}: {rule}"


def _kind(batch: RecordBatch, record: Record, aborted: bool) -> RecordKind:
    if batch.is_control:
        return RecordKind.MARKER
    if aborted:
        return RecordKind.ABORTED
    return RecordKind.TOMBSTONE if record.key is not None and record.value is None else RecordKind.DATA


def _marker_name(record: Record) -> str:
    kind = control_record_type(record)
    return kind.name if isinstance(kind, ControlRecordType) else "control"
