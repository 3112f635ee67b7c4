"""The cleaner run forward on copies of logs, with nothing appended: the one way a view learns a future time.

Not Kafka's: the project's way to answer "when" questions exactly. :func:`run_forward` copies the logs and runs the
broker's cleaner loop (:meth:`CleanerManager.run`: selection, passes, retention, back-off, producer expiry) from
``now_ms`` until nothing more can happen without new appends, recording every decision. Every time a view states
("the cleaner cleans it at", "this tombstone goes at") is then read from that record, so it is the engine's by
construction: the first instant at which the engine does it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from kcompact_nb.core.cleaner import (
    FAR_FUTURE_MS,
    BatchFate,
    CleanerManager,
    Iteration,
    LogToClean,
    OffsetMapSpec,
    RecordDecision,
    RetentionDeletion,
    Strategy,
    first_true,
    log_to_clean_over_time,
)
from kcompact_nb.core.model import BrokerConfig, PartitionLog, copy_log


class RecordFate(NamedTuple):
    """When and how one record leaves its log if nothing more is appended; ``at_ms`` ``None``: it stays.

    ``decision`` is the pass's decision when a pass removed it, ``deletion`` the segment retention deleted when
    retention did; ``iteration`` is the cleaner iteration that did it.
    """

    offset: int
    at_ms: int | None
    iteration: Iteration | None = None
    decision: RecordDecision | None = None
    deletion: RetentionDeletion | None = None

    @property
    def removed_at_ms(self) -> int:
        """``at_ms`` of a record that goes (``ValueError`` for one that stays)."""
        if self.at_ms is None:
            raise ValueError(f"offset {self.offset} stays: it has no time")
        return self.at_ms


@dataclass(frozen=True)
class Future:
    """The cleaner's iterations from ``now_ms`` on, with nothing appended (those that cleaned or deleted something),
    and the logs they left. ``settled``: nothing more happens without appends (``False`` when ``until_ms`` came first).
    """

    now_ms: int
    iterations: tuple[Iteration, ...]
    logs: Mapping[str, PartitionLog]
    settled: bool
    uncleanable: frozenset[str] = frozenset()
    """The partitions marked uncleanable at the end (a pass of theirs threw, now or before)."""
    _fates: dict[str, dict[int, RecordFate]] = field(default_factory=dict, repr=False, compare=False)

    def passes(self, name: str) -> list[Iteration]:
        """The iterations that cleaned partition ``name``, in order."""
        return [it for it in self.iterations if it.result is not None and it.result.name == name]

    def next_pass(self, name: str) -> Iteration | None:
        """The first iteration that cleans partition ``name`` (``None``: no pass runs without appends)."""
        return next(iter(self.passes(name)), None)

    def failure(self, name: str) -> Iteration | None:
        """The first iteration whose pass over partition ``name`` failed (Kafka then marks it uncleanable)."""
        return next((it for it in self.iterations if it.failure is not None and it.chosen == name), None)

    def fate(self, name: str, offset: int) -> RecordFate:
        """When the record at ``offset`` of partition ``name`` leaves the log, and what removes it."""
        return self.fates(name).get(offset) or RecordFate(offset, None)

    def fates(self, name: str) -> dict[int, RecordFate]:
        """Offset -> fate of every record of partition ``name`` that leaves the log (those absent stay)."""
        fates = self._fates.get(name)
        if fates is None:
            fates = self._fates[name] = self._fates_of(name)
        return fates

    def batch_deleted_at(self, name: str, base_offset: int) -> int | None:
        """The first instant a pass over partition ``name`` deletes the batch at ``base_offset`` (``None``: never), as
        the passes recorded it; retention's deletions of whole segments are the records' fates."""
        for iteration in self.passes(name):
            decisions = None if iteration.result is None else iteration.result.decisions
            decision = None if decisions is None else decisions.batches.get(base_offset)
            if decision is not None and decision.fate is BatchFate.DELETED:
                return iteration.at_ms
        return None

    def _fates_of(self, name: str) -> dict[int, RecordFate]:
        fates: dict[int, RecordFate] = {}
        for iteration in self.iterations:
            result = iteration.result
            if result is not None and result.name == name and result.decisions is not None:
                for decision in result.decisions.records.values():
                    if not decision.kept and decision.offset not in fates:
                        fates[decision.offset] = RecordFate(decision.offset, iteration.at_ms, iteration, decision)
            for deletion in iteration.retention:
                if deletion.name == name:
                    for offset in range(deletion.base_offset, deletion.next_offset):
                        fates.setdefault(offset, RecordFate(offset, deletion.at_ms, iteration, deletion=deletion))
        return fates


def run_forward(
    logs: Sequence[PartitionLog],
    *,
    now_ms: int,
    broker: BrokerConfig | None = None,
    cleaner: CleanerManager | None = None,
    strategies: Mapping[str, Strategy] | None = None,
    offset_maps: Mapping[str, OffsetMapSpec] | None = None,
    until_ms: int = FAR_FUTURE_MS,
    fates: bool = True,
) -> Future:
    """Run the broker's cleaner loop from ``now_ms`` on copies of ``logs`` (in the order the broker created them).

    The cleaner is ``cleaner``'s (its broker, strategies, uncleanable partitions, producer-expiry schedule) or a
    fresh one for ``broker`` (default: the first log's) whose threads look first at ``now_ms``. ``strategies`` and
    ``offset_maps`` (by topic and by partition name) replace the topics' for a what-if. The logs are not modified.
    ``fates=False`` records the passes (results, stats) without each record's and batch's fate, for a reader of
    counts only: the passes then run as ``kcompact clean`` runs them, without recording loops.
    """
    copies = [copy_log(log) for log in logs]
    manager = _manager_for(copies, broker, cleaner, now_ms)
    manager.strategies.update(strategies or {})
    manager.offset_maps.update(offset_maps or {})
    manager.record_fates = fates
    manager.run(copies, from_ms=now_ms, until_ms=until_ms, skip_idle=True)
    decisions = manager.decisions or []
    busy = tuple(it for it in decisions if it.result is not None or it.retention or it.failure is not None)
    settled = not manager.would_work(copies, now_ms=FAR_FUTURE_MS) or until_ms >= FAR_FUTURE_MS
    return Future(now_ms, busy, {log.name: log for log in copies}, settled, frozenset(manager.uncleanable))


def _manager_for(
    logs: Sequence[PartitionLog], broker: BrokerConfig | None, cleaner: CleanerManager | None, now_ms: int
) -> CleanerManager:
    if cleaner is not None:
        return cleaner.copy(recording=True)
    chosen = broker or (logs[0].broker if logs else BrokerConfig())
    return CleanerManager(chosen, started_ms=now_ms, decisions=[])


def next_eligible_ms(log: PartitionLog, *, now_ms: int) -> int | None:
    """The first instant at or after ``now_ms`` at which the cleaner finds ``log`` eligible if nothing more is
    appended (``None``: never): the engine's own test (:attr:`LogToClean.eligible`) asked at chosen instants."""
    cleanable = log_to_clean_over_time(log)
    return first_true(lambda t: cleanable(t).eligible, start=now_ms)


def overdue_at_ms(log: PartitionLog, *, now_ms: int) -> int | None:
    """The first instant at or after ``now_ms`` at which ``log``'s dirty segments are overdue per
    ``max.compaction.lag.ms`` if nothing more is appended (``None``: never), as the engine computes it."""
    return first_overdue_ms(log_to_clean_over_time(log), now_ms=now_ms)


def first_overdue_ms(cleanable: Callable[[int], LogToClean], *, now_ms: int) -> int | None:
    """:func:`overdue_at_ms` of the log whose cleanable range over time (``log_to_clean_over_time``) is ``cleanable``:
    for a caller that asks it of the same log at an instant too."""
    return first_true(lambda t: cleanable(t).needs_compaction_now, start=now_ms)
