"""The broker's cleaner threads and their manager (``LogCleaner``, ``LogCleanerManager``; spec 3-5, 9, 11).

Logs are given in the order the broker created them: among logs with the same dirty ratio the first
in the broker's log pool iteration order wins, as in Kafka (:mod:`kcompact_nb.core.cleaner._log_pool`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace

from kcompact_nb.core.cleaner._clean_pass import PassResult, clean_pass, offset_table_for
from kcompact_nb.core.cleaner._cleaner_loop import CleanerLoop
from kcompact_nb.core.cleaner._cleaner_stats import CleanerSpeed
from kcompact_nb.core.cleaner._decisions import LogStartMove, PassDecisions, RetentionDeletion
from kcompact_nb.core.cleaner._failure import CleanerFailure, record_failure
from kcompact_nb.core.cleaner._first_true import FAR_FUTURE_MS, first_true
from kcompact_nb.core.cleaner._iteration import Iteration, PartitionSelection, Selection
from kcompact_nb.core.cleaner._log_pool import log_pool_order
from kcompact_nb.core.cleaner._log_to_clean import LogToClean, log_to_clean, log_to_clean_over_time
from kcompact_nb.core.cleaner._offset_map import BoundedOffsetMap, ExactOffsetMap, OffsetMap
from kcompact_nb.core.cleaner._offset_table import OffsetTable
from kcompact_nb.core.cleaner._retention import delete_old_segments, retention_deletions
from kcompact_nb.core.cleaner._strategies import Strategy, strategy_for
from kcompact_nb.core.model import BrokerConfig, PartitionLog, Segment
from kcompact_nb.record import KafkaModelError, KcompactError


@dataclass(frozen=True)
class OffsetMapSpec:
    """An explicit offset map for one pass: ``slots`` (with ``load_factor``), ``memory_bytes``, or ``exact``."""

    slots: int | None = None
    load_factor: float = 0.9
    memory_bytes: int | None = None
    exact: bool = False

    def build(self, entry_bytes: int, *, streaming: bool = False, table: OffsetTable | None = None) -> OffsetMap:
        """The map, sized for entries of ``entry_bytes``; ``streaming`` for passes over segment files, keeping its
        entries in ``table`` when given."""
        if self.exact:
            return ExactOffsetMap(streaming=streaming, table=table)
        if self.slots is not None:
            return BoundedOffsetMap(self.slots, self.load_factor, entry_bytes, streaming=streaming, table=table)
        if self.memory_bytes is not None:
            return BoundedOffsetMap.from_memory(
                self.memory_bytes,
                load_factor=self.load_factor,
                entry_bytes=entry_bytes,
                streaming=streaming,
                table=table,
            )
        raise KafkaModelError("an offset map spec needs slots, memory_bytes or exact=True")


def _built(spec: OffsetMapSpec, strategy: Strategy, log: PartitionLog) -> OffsetMap:
    storage = log.storage
    return spec.build(strategy.entry_bytes, streaming=storage.streams, table=offset_table_for(storage, strategy))


@dataclass
class CleanerManager:
    """Selects, cleans and retains compacted logs the way a broker's cleaner threads do."""

    broker: BrokerConfig
    uncleanable: set[str] = field(default_factory=set)
    failures: list[CleanerFailure] = field(default_factory=list)
    strategies: dict[str, Strategy] = field(default_factory=dict)
    """Per-topic user-defined strategies; other topics use their ``compaction.strategy``."""
    started_ms: int = 0
    """When the broker started: producer expiry checks run every interval after it."""
    decisions: list[Iteration] | None = None
    """When a list, every iteration records what it decided into it (:class:`Iteration`; passes record each record's
    and batch's fate); a pass :meth:`clean_log` runs is recorded as an iteration of its own, without retention."""
    record_fates: bool = True
    """Whether the passes :attr:`decisions` records hold each record's and batch's fate (``False``: the iterations,
    results and stats only, for a forward run read by its counts: a pass then takes the loops that record nothing)."""
    offset_maps: dict[str, OffsetMapSpec] = field(default_factory=dict)
    """Per-partition offset maps (by partition name) in place of the broker's, for what-if runs (not Kafka's)."""
    stopped_threads: int = 0
    """Cleaner threads an exception ended (Kafka 2.0, before partitions could be marked uncleanable)."""
    speed: CleanerSpeed | None = None
    """How fast this machine's cleaner works (not Kafka's: a pass then takes time unthrottled too, spec 11)."""
    map_spec: OffsetMapSpec | None = None
    """The offset map of every pass, instead of a thread's share of ``log.cleaner.dedupe.buffer.size`` (a
    forecast that samples keys scales it)."""
    log_start_moves: list[LogStartMove] = field(default_factory=list)
    """Every move of a log start offset this broker made (retention here; DeleteRecords by the simulation)."""
    dirtiest_ratio: float = 0.0
    """The highest cleanable ratio the last selection considered (Kafka's ``max-dirty-percent`` is 100 times it)."""
    max_compaction_delay_ms: int = 0
    """The largest compaction delay the last selection that chose a log considered (``PreCleanStats``)."""
    _last_expiry_check_ms: int = -1

    def _pass_decisions(self) -> PassDecisions | None:
        return PassDecisions() if self.decisions is not None and self.record_fates else None

    def copy(self, *, recording: bool = False) -> CleanerManager:
        """A manager in this one's state (broker, uncleanable partitions, failures, strategies, offset maps,
        producer-expiry schedule) whose later changes are its own; ``recording`` starts an empty decision record
        (for running the cleaner forward on copies of the logs)."""
        decisions = [] if recording else None if self.decisions is None else list(self.decisions)
        return replace(
            self,
            uncleanable=set(self.uncleanable),
            failures=list(self.failures),
            strategies=dict(self.strategies),
            decisions=decisions,
            offset_maps=dict(self.offset_maps),
            log_start_moves=list(self.log_start_moves),
        )

    def grab_filthiest_log(
        self, logs: Sequence[PartitionLog], *, now_ms: int, in_progress: Collection[str] = ()
    ) -> tuple[LogToClean | None, list[LogToClean]]:
        """The eligible log with the highest ratio, and every considered log (``grabFilthiestCompactedLog``).

        ``logs`` are every log of the broker in the order it created them; they are considered in
        its log pool's iteration order and the first of equally dirty logs wins (``Stream.max``).
        Logs in ``in_progress`` (being cleaned by another thread) are skipped. Invalid checkpoints
        of considered logs are rewritten to the log start offset (spec 4.1).
        """
        best, considered, _ = self._select(logs, now_ms, in_progress)
        return best, considered

    def _select(
        self, logs: Sequence[PartitionLog], now_ms: int, in_progress: Collection[str]
    ) -> tuple[LogToClean | None, list[LogToClean], list[PartitionSelection]]:
        """:meth:`grab_filthiest_log`, with how it treated each log of ``logs`` (in the log pool's order)."""
        considered = []
        selections: list[PartitionSelection] = []
        pool = [logs[i] for i in log_pool_order([(lg.topic, lg.partition) for lg in logs])]
        for log in pool:
            skipped = self._skipped(log, in_progress)
            if skipped is not None:
                selections.append(PartitionSelection(log.name, skipped))
                continue
            ltc = log_to_clean(log, now_ms=now_ms)
            if ltc.checkpoint_reset is not None:
                log.cleaner_checkpoint = ltc.first_dirty_offset
            if ltc.total_bytes > 0:
                considered.append(ltc)
            selections.append(PartitionSelection(log.name, _selection(ltc), ltc))
        eligible = [ltc for ltc in considered if ltc.eligible]
        best = max(eligible, key=lambda ltc: ltc.cleanable_ratio, default=None)
        self.dirtiest_ratio = max((ltc.cleanable_ratio for ltc in considered), default=0.0)
        if best is not None:
            self.max_compaction_delay_ms = max((ltc.compaction_delay_ms for ltc in considered), default=0)
            selections = [_chosen_or_not(s, best.name) for s in selections]
        return best, considered, selections

    def _skipped(self, log: PartitionLog, in_progress: Collection[str]) -> Selection | None:
        if not log.config.compact:
            return Selection.NOT_COMPACTED
        if log.name in self.uncleanable:
            return Selection.UNCLEANABLE
        return Selection.IN_PROGRESS if log.name in in_progress else None

    def clean_once(
        self, logs: Sequence[PartitionLog], *, now_ms: int, in_progress: Collection[str] = (), thread_id: int = 0
    ) -> PassResult | None:
        """One cleaner-thread iteration: clean the filthiest eligible log, then compacted-log retention.

        ``logs`` as for :meth:`grab_filthiest_log`; logs in ``in_progress`` are neither cleaned nor retained. A pass
        that throws marks its log uncleanable and ends the iteration before retention (``None``). With
        :attr:`decisions` set, the iteration is recorded there.
        """
        if not self.broker.log_cleaner_enable or self.stopped_threads >= self.broker.log_cleaner_threads:
            return None
        iteration = Iteration(now_ms, thread_id)
        iteration.expired_producers = self._expire_producers(logs, now_ms)
        best, considered, selections = self._select(logs, now_ms, in_progress)
        iteration.partitions = tuple(selections)
        result = None
        if best is not None:
            log = next(lg for lg in logs if lg.name == best.name)
            failed = len(self.failures)
            result = self._clean_or_mark_uncleanable(log, best, considered, now_ms, thread_id)
            if len(self.failures) > failed:  # the exception leaves cleanFilthiestLog before its retention step
                iteration.failure = self.failures[-1]
                self._note(iteration)
                return None
        iteration.result = result
        deleted: list[RetentionDeletion] = []
        for log in self._compacted(logs):
            if log.name not in in_progress:
                start = log.log_start_offset
                gone = delete_old_segments(log, now_ms=now_ms if result is None else result.end_ms)
                if gone and log.log_start_offset > start:
                    at, cause = gone[-1].at_ms, gone[-1].reason.value
                    self.log_start_moves.append(LogStartMove(log.name, at, start, log.log_start_offset, cause))
                deleted += gone
        iteration.retention = tuple(deleted)
        self._note(iteration)
        return result

    def would_work(self, logs: Sequence[PartitionLog], *, now_ms: int, in_progress: Collection[str] = ()) -> bool:
        """Whether an iteration at ``now_ms`` would clean a log, delete a segment or expire a producer; no log is
        modified.

        Without appends this only turns from False to True as time passes (logs age into eligibility and
        retention, producers into expiry), which lets :meth:`run` skip the iterations in between
        (:func:`first_true` over :meth:`work_over_time`).
        """
        return self.work_over_time(logs, in_progress=in_progress)(now_ms)

    def work_over_time(
        self, logs: Sequence[PartitionLog], *, in_progress: Collection[str] = ()
    ) -> Callable[[int], bool]:
        """:meth:`would_work` at any time, each log's cleanable range read once (:func:`log_to_clean_over_time`): for
        searches over time on logs not modified meanwhile."""
        if not self.broker.log_cleaner_enable:
            return lambda _now_ms: False
        expiration_ms = self.broker.producer_id_expiration_ms
        candidates = [
            (log, log_to_clean_over_time(log)) for log in self._compacted(logs) if log.name not in in_progress
        ]

        def at(now_ms: int) -> bool:
            check_ms = self._expiry_check_due(now_ms)
            if check_ms is not None and any(
                lg.producer_state.expired_producers(check_ms, expiration_ms) for lg in logs
            ):
                return True
            return any(
                cleanable(now_ms).eligible or retention_deletions(log, now_ms=now_ms) for log, cleanable in candidates
            )

        return at

    def clean_log(
        self,
        log: PartitionLog,
        *,
        now_ms: int,
        first_dirty_offset: int | None = None,
        first_uncleanable_offset: int | None = None,
        offset_map: OffsetMapSpec | None = None,
        force: bool = False,
        mark_uncleanable: bool = False,
    ) -> PassResult | None:
        """One pass on ``log``; bounds not given are the broker's. None when not eligible and not forced.

        A pass that throws raises its exception, or with ``mark_uncleanable`` leaves ``log`` as Kafka's cleaner
        thread does (recorded in :attr:`failures`, the partition uncleanable) and returns None.
        """
        ltc = log_to_clean(log, now_ms=now_ms)
        if ltc.checkpoint_reset is not None:
            log.cleaner_checkpoint = ltc.first_dirty_offset
        if not force and (not ltc.eligible or log.name in self.uncleanable or not log.config.compact):
            return None
        strategy = self.strategy_of(log)
        offset_map = offset_map or self.offset_maps.get(log.name)
        first_dirty_offset = ltc.first_dirty_offset if first_dirty_offset is None else first_dirty_offset
        before = list(log.segments)
        try:
            result = clean_pass(
                log,
                now_ms=now_ms,
                first_dirty_offset=first_dirty_offset,
                first_uncleanable_offset=ltc.first_uncleanable_offset
                if first_uncleanable_offset is None
                else first_uncleanable_offset,
                offset_map=self._offset_map(offset_map, strategy, log),
                strategy=strategy,
                cleanable_ratio=ltc.cleanable_ratio,
                broker=self.broker,
                speed=self.speed,
                decisions=self._pass_decisions(),
            )
        except KcompactError as error:
            if not mark_uncleanable:
                raise
            failure = self._fail(log, error, now_ms=now_ms, first_dirty_offset=first_dirty_offset, before=before)
            self._note(Iteration(now_ms, partitions=(PartitionSelection(log.name, Selection.CHOSEN, ltc),),
                                 failure=failure))  # fmt: skip
            return None
        self._note(Iteration(now_ms, partitions=(PartitionSelection(log.name, Selection.CHOSEN, ltc),), result=result))
        return result

    def _fail(
        self, log: PartitionLog, error: KcompactError, *, now_ms: int, first_dirty_offset: int, before: list[Segment]
    ) -> CleanerFailure:
        """Leave ``log`` as Kafka's thread leaves a pass that threw: recorded, marked uncleanable (from 2.1; in 2.0
        the thread stops)."""
        failure = record_failure(log, error, at_ms=now_ms, first_dirty_offset=first_dirty_offset, before=before,
                                 version=self.broker.version)  # fmt: skip
        self.failures.append(failure)
        if failure.thread_stopped:
            self.stopped_threads += 1
        else:
            self.uncleanable.add(log.name)
        return failure

    def run(
        self, logs: Sequence[PartitionLog], *, from_ms: int, until_ms: int, skip_idle: bool = False
    ) -> list[PassResult]:
        """The background loop from ``from_ms`` until ``until_ms``: passes back to back, else back off.

        Each of ``log.cleaner.threads`` threads loops on its own, starting at ``from_ms``; a pass occupies its
        thread for its simulated duration (throttled I/O, spec 11) and is applied at its start time. A
        :class:`CleanerLoop` runs the same loop resumably. With ``skip_idle`` (nothing is appended meanwhile), an
        idle thread sleeps through the back-off wakes before the engine could find anything to do
        (:meth:`quiet_until`): the same passes and decisions, only the idle iterations are not recorded one by one.
        """
        loop = CleanerLoop(self, from_ms, quiet_until=self.quiet_until(logs) if skip_idle else None)
        loop.on_idle = self._note_idle
        return loop.run_until(logs, until_ms)

    def quiet_until(self, logs: Sequence[PartitionLog]) -> Callable[[int], int]:
        """For a time ``t``, the first instant at or after it at which an iteration would clean or delete something
        if nothing is appended (:meth:`would_work`, asked at chosen instants; far in the future when never)."""

        def first_work_ms(t: int) -> int:
            found = first_true(self.work_over_time(logs), start=t)
            return FAR_FUTURE_MS if found is None else found

        return first_work_ms

    def _note_idle(self, thread_id: int, next_ms: int) -> None:
        """Record when an idle thread looks again, on its last iteration."""
        for iteration in reversed(self.decisions or []):
            if iteration.thread == thread_id:
                iteration.idle_until_ms = next_ms
                return

    def strategy_of(self, log: PartitionLog) -> Strategy:
        """The topic's user-defined strategy, else the one its ``compaction.strategy`` names."""
        return self.strategies.get(log.topic) or strategy_for(log.config)

    def _note(self, iteration: Iteration) -> None:
        if self.decisions is not None:
            self.decisions.append(iteration)

    def _compacted(self, logs: Sequence[PartitionLog]) -> list[PartitionLog]:
        return [lg for lg in logs if lg.config.compact and lg.name not in self.uncleanable]

    def _offset_map(self, spec: OffsetMapSpec | None, strategy: Strategy, log: PartitionLog) -> OffsetMap | None:
        spec = spec or self.map_spec
        return None if spec is None else _built(spec, strategy, log)

    def _clean_or_mark_uncleanable(
        self, log: PartitionLog, best: LogToClean, considered: list[LogToClean], now_ms: int, thread_id: int
    ) -> PassResult | None:
        before = list(log.segments)
        try:
            strategy = self.strategy_of(log)
            result = clean_pass(
                log,
                now_ms=now_ms,
                first_dirty_offset=best.first_dirty_offset,
                first_uncleanable_offset=best.first_uncleanable_offset,
                offset_map=self._offset_map(self.offset_maps.get(log.name), strategy, log),
                strategy=strategy,
                cleanable_ratio=best.cleanable_ratio,
                broker=self.broker,
                thread_id=thread_id,
                speed=self.speed,
                decisions=self._pass_decisions(),
            )
        except KcompactError as error:
            self._fail(log, error, now_ms=now_ms, first_dirty_offset=best.first_dirty_offset, before=before)
            return None
        delayed = [ltc for ltc in considered if ltc.compaction_delay_ms > 0]
        if not delayed:
            return result
        cleanable = sum(1 for ltc in considered if ltc.eligible)
        extra = (
            f"\tCleanable partitions: {cleanable}, Delayed partitions: {len(delayed)}, "
            f"max delay: {max(ltc.compaction_delay_ms for ltc in delayed)}\n"
        )
        return _with_log_line(result, result.log_line + extra)

    def _expire_producers(self, logs: Sequence[PartitionLog], now_ms: int) -> tuple[tuple[str, int], ...]:
        """Producer expiry, checked every ``producer.id.expiration.check.interval.ms`` after the broker started
        (``PeriodicProducerExpirationCheck``: first run one interval after start); applied at the latest
        check time not later than ``now_ms``."""
        check_ms = self._expiry_check_due(now_ms)
        if check_ms is None:
            return ()
        expired = [
            (log.name, pid)
            for log in logs
            for pid in log.producer_state.remove_expired_producers(check_ms, self.broker.producer_id_expiration_ms)
        ]
        self._last_expiry_check_ms = check_ms
        return tuple(expired)

    def _expiry_check_due(self, now_ms: int) -> int | None:
        """The latest producer-expiry check time not later than ``now_ms`` not yet applied, if any."""
        interval = self.broker.producer_id_expiration_check_interval_ms
        if now_ms < self.started_ms + interval:
            return None
        check_ms = self.started_ms + (now_ms - self.started_ms) // interval * interval
        return None if check_ms <= self._last_expiry_check_ms else check_ms


def _selection(ltc: LogToClean) -> Selection:
    if ltc.total_bytes == 0:
        return Selection.EMPTY
    return Selection.LESS_FILTHY if ltc.eligible else Selection.NOT_ELIGIBLE


def _chosen_or_not(selection: PartitionSelection, best: str) -> PartitionSelection:
    if selection.name == best:
        return selection._replace(selection=Selection.CHOSEN)
    if selection.selection is Selection.LESS_FILTHY:
        return selection._replace(chosen=best)
    return selection


def _with_log_line(result: PassResult, line: str) -> PassResult:
    return replace(result, log_line=line)
