"""Why a partition is (not) cleaned: a plain-language account of its ranges, eligibility, what the cleaner does next
and when (the engine run forward), and its tombstones."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

from kcompact_nb.core.cleaner import (
    FAR_FUTURE_MS,
    LogStartMove,
    LogToClean,
    PartitionSelection,
    RetentionDeletion,
    Selection,
    log_to_clean,
)
from kcompact_nb.core.model import PartitionLog, format_bytes, format_duration_ms, format_instant_ms
from kcompact_nb.core.simulation import Simulation, next_eligible_ms
from kcompact_nb.core.views._eligibility import eligibility
from kcompact_nb.core.views._next_pass import NextPass, Outcome, RecordOutcome, next_pass
from kcompact_nb.core.views._uncleanable import UnreadableBatch, uncleanable_reason, unreadable_batch_outcome
from kcompact_nb.record import RecordBatch, record_keys, record_offsets, record_values

_GONE = (Outcome.REMOVED, Outcome.DELETED)
"""Outcomes whose reason already says when the record goes."""


@dataclass(frozen=True)
class TombstoneFate:
    """When one tombstone may go: ``horizon_ms`` once a pass has stamped its batch (spec 7.4).

    ``fate`` is what the next pass does to it (:func:`next_pass`, the engine run forward from ``judged_ms``), when the
    log holds its batches; :meth:`describe` at that time says exactly what :func:`next_pass` says (its outcome and
    reason, and when the tombstone goes).
    """

    offset: int
    key: bytes
    horizon_ms: int | None
    fate: RecordOutcome | None = None
    judged_ms: int | None = None

    def describe(self, now_ms: int) -> str:
        """One line: the next pass's outcome and reason at ``judged_ms`` and when it goes; at another time (or
        without a pass to read), what the delete horizon alone says, which holds whatever pass comes."""
        head = f"tombstone {self.key.decode('utf-8', 'replace')!r} at offset {self.offset}"
        if self.fate is not None and now_ms == self.judged_ms:
            outcome = self.fate.outcome.value.removeprefix("tombstone ")
            goes = "" if self.fate.outcome in _GONE else f"; {self.fate.goes}"
            return f"{head}: {outcome}: {self.fate.reason}{goes}"
        if self.horizon_ms is None:
            return (
                f"{head}: not stamped yet; the first pass that reaches and keeps it stamps its delete horizon "
                "(pass time + delete.retention.ms)"
            )
        horizon = format_instant_ms(self.horizon_ms)
        if self.horizon_ms <= now_ms:
            return f"{head}: delete horizon {horizon} has passed: the first pass that reaches it removes it"
        wait = format_duration_ms(self.horizon_ms - now_ms, max_units=2)
        return (
            f"{head}: delete horizon {horizon}, {wait} from now: passes before then keep it unless a newer record "
            "of its key supersedes it"
        )


@dataclass(frozen=True)
class Explanation:
    """The cleaner's view of one partition at ``now_ms``, and what the engine run forward does next.

    ``eligible_at_ms`` is the first instant the cleaner finds it eligible with nothing appended, ``next_pass_ms`` the
    first instant a cleaner thread that looks at ``now_ms`` (then every ``log.cleaner.backoff.ms``) cleans it, and
    ``retention`` the segments retention deletes before then (or at all, when no pass runs). Both come from the
    engine run forward (``None`` when the log's batches were streamed instead: no pass is run then).
    """

    now_ms: int
    log_to_clean: LogToClean
    eligible_at_ms: int | None
    tombstones: tuple[TombstoneFate, ...]
    codecs: tuple[tuple[str, int], ...] = ()
    """(codec, batch count) of the compressed batches, most frequent first."""
    estimated_batches: int = 0
    """Batches whose size is an estimate (no exact encoder for their codec here)."""
    unreadable_batch: str | None = None
    """What a batch the cleaner cannot read does to the partition (:func:`unreadable_batch_outcome`), if it has one."""
    never: LogToClean | None = None
    """The log as the cleaner would see it at a far future instant with nothing appended."""
    next_pass_ms: int | None = None
    pass_failure: str | None = None
    """Why the next pass fails (the partition is then marked uncleanable), when it does."""
    retention: tuple[RetentionDeletion, ...] = ()
    failed: str | None = None
    """What a pass that already threw left, when the partition is marked uncleanable (a simulation's)."""
    log_start_moves: tuple[LogStartMove, ...] = ()
    """How the log start offset came where it is (a simulation's retention and DeleteRecords)."""
    cleaned_first: tuple[tuple[int, PartitionSelection, PartitionSelection], ...] = ()
    """(time, the partition chosen, this one) for each iteration before the next pass that found this partition
    eligible but chose a filthier one."""

    @property
    def uncleanable_reason(self) -> str:
        """Which bound makes the log head uncleanable from the first uncleanable offset."""
        return uncleanable_reason(self.log_to_clean)

    @property
    def dirty_ratio(self) -> str:
        """``dirty ratio 0.4762 vs min.cleanable.dirty.ratio 0.5``."""
        ltc = self.log_to_clean
        return f"dirty ratio {ltc.cleanable_ratio:.4f} vs min.cleanable.dirty.ratio {ltc.min_cleanable_dirty_ratio:g}"

    @property
    def eligibility(self) -> str:
        """Whether the cleaner may pick this partition now, and if not, when (or why never)."""
        return eligibility(self.log_to_clean, self.eligible_at_ms, self.now_ms, never=self.never)

    def lines(self) -> list[str]:
        ltc = self.log_to_clean
        fd, fu = ltc.first_dirty_offset, ltc.first_uncleanable_offset
        lines = [
            f"{ltc.name} at {format_instant_ms(self.now_ms)}:",
            f"  log tail (cleaned): offsets below the cleaner point {fd:,}, "
            f"{format_bytes(ltc.clean_bytes, exact=False)}",
            f"  log head, cleanable: [{fd:,}, {fu:,}), {format_bytes(ltc.cleanable_bytes, exact=False)}",
            f"  log head, uncleanable from {fu:,}: {self.uncleanable_reason}",
            "  " + self.dirty_ratio,
            "  " + self.eligibility,
        ]
        if self.failed is not None:
            lines.append(f"  {self.failed}")
        for move in self.log_start_moves:
            lines.append(
                f"  the log start offset moved from {move.before:,} to {move.after:,} at "
                f"{format_instant_ms(move.at_ms)}: {move.cause}"
            )
        lines += ["  " + line for line in self._future_lines()]
        if self.unreadable_batch:
            lines.append(f"  {self.unreadable_batch}")
        if ltc.checkpoint_reset:
            lines.append(f"  checkpoint reset: {ltc.checkpoint_reset}")
        if ltc.checkpoint_warning:
            lines.append(f"  Kafka's cleaner logs: WARN {ltc.checkpoint_warning}")
        lines += ["  " + t.describe(self.now_ms) for t in self.tombstones]
        lines += ["  " + line for line in self._compression_lines()]
        return lines

    def _future_lines(self) -> list[str]:
        lines = []
        at = self.next_pass_ms
        if self.pass_failure is not None:
            lines.append(f"the next pass fails: {self.pass_failure}")
        elif at is not None and at != self.now_ms:
            wait = format_duration_ms(at - self.now_ms, max_units=2)
            lines.append(
                f"the cleaner cleans it at {format_instant_ms(at)} (in {wait}): a cleaner thread that looks now "
                "looks again every log.cleaner.backoff.ms while nothing is eligible"
            )
        for at_ms, chosen, this in self.cleaned_first:
            mine = "" if this.log_to_clean is None else f" {this.log_to_clean.cleanable_ratio:.4f}"
            theirs = "" if chosen.log_to_clean is None else f" {chosen.log_to_clean.cleanable_ratio:.4f}"
            lines.append(
                f"at {format_instant_ms(at_ms)} the cleaner chooses {chosen.name} first: its dirty ratio{theirs} is "
                f"above this partition's{mine} (the filthiest eligible log goes first)"
            )
        for deletion in self.retention:
            when = format_instant_ms(deletion.at_ms)
            lines.append(
                f"retention deletes segment {deletion.base_offset} (offsets {deletion.base_offset:,}-"
                f"{deletion.next_offset - 1:,}) at {when}: {deletion.reason.value}"
            )
        return lines

    def _compression_lines(self) -> list[str]:
        lines = []
        if self.codecs:
            counts = ", ".join(f"{count} {codec}" for codec, count in self.codecs)
            lines.append(
                f"compressed batches: {counts}; a pass rewrites a partly kept one with its codec at the "
                "codec's default level (MemoryRecords.filterTo)"
            )
        if self.estimated_batches:
            n = self.estimated_batches
            lines.append(
                f"sizes estimated: {n} {'batch was' if n == 1 else 'batches were'} sized without Kafka's codec output "
                "(no installed codec library compresses them as this Kafka release does), so the sizes and ratios "
                "above are estimates"
            )
        return lines

    def __str__(self) -> str:
        return "\n".join(self.lines())


def explain(
    log: PartitionLog,
    *,
    now_ms: int,
    batches: Iterable[RecordBatch] | None = None,
    unreadable_batch: UnreadableBatch | None = None,
    simulation: Simulation | None = None,
) -> Explanation:
    """Explain ``log`` at ``now_ms``: ranges and why, eligibility, when the cleaner cleans it, tombstones.

    ``batches`` are the log's batches when its segments do not hold them (a partition scanned from its
    segment files: :func:`kcompact_nb.io.partition_batches` streams them); they are read once, in order.
    Without them, the cleaner is run forward on a copy (:func:`next_pass`) and each tombstone's line is its outcome,
    reason and time; with them no pass is run (the log may not fit in memory) and the lines say what the delete
    horizons alone say. ``unreadable_batch`` is a batch of the log's files the cleaner cannot read: whether a pass
    meets it. ``simulation`` is the broker the log belongs to (see :func:`next_pass`).
    """
    ltc = log_to_clean(log, now_ms=now_ms)
    tombstones: list[TombstoneFate] = []
    codecs: Counter[str] = Counter()
    estimated = 0
    for batch in log.batches() if batches is None else batches:
        if batch.compression != "none":
            codecs[batch.compression] += 1
        estimated += batch.size_estimated
        if batch.is_control:
            continue
        records = batch.records
        for offset, key, value in zip(
            record_offsets(records), record_keys(records), record_values(records), strict=True
        ):
            if value is None and key is not None:
                tombstones.append(TombstoneFate(offset, key, batch.delete_horizon_ms))
    eligible_at = next_eligible_ms(log, now_ms=now_ms)
    explanation = Explanation(
        now_ms,
        ltc,
        eligible_at,
        tuple(tombstones),
        codecs=tuple(codecs.most_common()),
        estimated_batches=estimated,
        unreadable_batch=None if unreadable_batch is None else unreadable_batch_outcome(ltc, unreadable_batch),
        never=log_to_clean(log, now_ms=FAR_FUTURE_MS) if eligible_at is None else None,
    )
    if simulation is not None:
        moves = tuple(m for m in simulation.cleaner.log_start_moves if m.name == log.name)
        explanation = replace(explanation, failed=_past_failure(simulation, log.name), log_start_moves=moves)
    if batches is not None:
        return explanation
    upcoming = next_pass(log, now_ms=now_ms, simulation=simulation)
    fates = {r.offset: r for r in upcoming.records}
    return replace(
        explanation,
        tombstones=tuple(replace(t, fate=fates.get(t.offset), judged_ms=now_ms) for t in tombstones),
        next_pass_ms=upcoming.at_ms,
        pass_failure=_failure(upcoming, log.name),
        retention=_retention_before(upcoming, log.name),
        cleaned_first=_cleaned_first(upcoming, log.name),
    )


def _past_failure(simulation: Simulation, name: str) -> str | None:
    """The pass of ``name`` that threw, if the broker marked it uncleanable, in Kafka's words."""
    if name not in simulation.cleaner.uncleanable:
        return None
    failure = next((f for f in reversed(simulation.cleaner.failures) if f.name == name), None)
    if failure is None:
        return "marked uncleanable: Kafka's cleaner skips it until the broker restarts"
    left = f"; left on disk: {', '.join(failure.left_cleaned)}" if failure.left_cleaned else ""
    return (
        f'marked uncleanable at {format_instant_ms(failure.at_ms)}: Kafka logged "{failure.kafka_log_line}"; its '
        f"checkpoint stays at {failure.checkpoint} and the cleaner skips it until the broker restarts{left}"
    )


def _failure(upcoming: NextPass, name: str) -> str | None:
    """What the pass that throws does, in Kafka's words, when it comes before any pass that succeeds."""
    failed = None if upcoming.future is None else upcoming.future.failure(name)
    if failed is None or failed.failure is None or (upcoming.at_ms is not None and upcoming.at_ms < failed.at_ms):
        return None
    failure = failed.failure
    kept = (
        f", the groups swapped in before it stay ({', '.join(map(str, failure.swapped_in))})"
        if failure.swapped_in
        else ""
    )
    left = f", left on disk: {', '.join(failure.left_cleaned)}" if failure.left_cleaned else ""
    return (
        f'at {format_instant_ms(failed.at_ms)} the pass throws. Kafka logs "{failure.kafka_log_line}"; the '
        f"checkpoint stays at {failure.checkpoint}{kept}{left}"
    )


def _cleaned_first(upcoming: NextPass, name: str) -> tuple[tuple[int, PartitionSelection, PartitionSelection], ...]:
    """The iterations before the next pass that found partition ``name`` eligible and chose another, filthier one."""
    found = []
    for iteration in () if upcoming.future is None else upcoming.future.iterations:
        if iteration is upcoming.iteration:
            break
        this, chosen_name = iteration.of(name), iteration.chosen
        chosen = None if chosen_name is None else iteration.of(chosen_name)
        if this is not None and chosen is not None and this.selection is Selection.LESS_FILTHY:
            found.append((iteration.at_ms, chosen, this))
    return tuple(found)


def _retention_before(upcoming: NextPass, name: str) -> tuple[RetentionDeletion, ...]:
    """Retention's deletions of ``name`` in the iterations up to the next pass (all of them when none runs)."""
    if upcoming.future is None:
        return ()
    deletions = []
    for iteration in upcoming.future.iterations:
        deletions += [d for d in iteration.retention if d.name == name]
        if iteration is upcoming.iteration:
            break
    return tuple(deletions)
