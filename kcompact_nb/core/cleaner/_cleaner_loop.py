"""The cleaner threads' loop over time (``LogCleaner.CleanerThread.doWork``, spec 3, 11), resumable.

Each of ``log.cleaner.threads`` threads repeats one iteration (:meth:`CleanerManager.clean_once`): a pass
occupies its thread (and its partition, which the other threads skip) for the pass's duration and starts the
next iteration when it ends; an iteration that cleaned nothing sleeps ``log.cleaner.backoff.ms``.

A :class:`CleanerLoop` keeps each thread's clock between calls, so a caller can append between them (the
cleaner keeps its back-off rhythm across the appends, as a broker's thread does). Not Kafka's, an acceleration:
a caller that knows when the logs may next change (:attr:`CleanerLoop.quiet_until`) lets an idle thread skip
the back-off wakes before then, each of which would find nothing; :meth:`CleanerLoop.changed` undoes the skip
when the logs change sooner. The wakes that remain, and what each finds, are the same.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kcompact_nb.core.cleaner._clean_pass import PassResult
from kcompact_nb.core.model import BrokerConfig, PartitionLog
from kcompact_nb.record import KafkaModelError

MAX_LOOP_ITERATIONS = 1_000_000


class CleanerIterations(Protocol):
    """What runs one iteration of a cleaner thread (:class:`CleanerManager`)."""

    broker: BrokerConfig

    def clean_once(
        self, logs: Sequence[PartitionLog], *, now_ms: int, in_progress: Collection[str] = (), thread_id: int = 0
    ) -> PassResult | None: ...


@dataclass
class CleanerThreadClock:
    """One cleaner thread: when it next runs an iteration, and the back-off rhythm it sleeps in."""

    thread_id: int
    next_ms: int
    idle_since_ms: int | None = None
    """When the thread last found nothing (its back-off wakes are ``idle_since_ms + k * backoff``); None while
    it works."""


@dataclass
class CleanerLoop:
    """The background loop of a broker's cleaner threads from ``from_ms`` on; each call runs it further.

    ``quiet_until``, when given, answers for a time ``t`` the earliest time at or after ``t`` when an iteration
    could find anything to do if nothing is appended (a log becoming eligible, retention due): idle threads
    sleep through the back-off wakes before it. Passes are applied at their start, as ``CleanerManager.run``.
    """

    manager: CleanerIterations
    from_ms: int
    quiet_until: Callable[[int], int] | None = None
    on_pass: Callable[[PassResult, int], None] | None = None
    """Called after each pass (and its iteration's retention) with the pass and its thread, before any other."""
    on_idle: Callable[[int, int], None] | None = None
    """Called when an iteration found nothing to do, with its thread and when that thread looks again."""
    threads: list[CleanerThreadClock] = field(init=False)
    busy_until: dict[str, int] = field(default_factory=dict, init=False)
    passes: list[PassResult] = field(default_factory=list, init=False)
    """Every pass the loop ran, in the order threads ran them."""
    pass_threads: list[int] = field(default_factory=list, init=False)
    """The thread that ran each of :attr:`passes`."""

    def __post_init__(self) -> None:
        count = self.manager.broker.log_cleaner_threads
        self.threads = [CleanerThreadClock(i, self.from_ms) for i in range(count)]

    def run_until(self, logs: Sequence[PartitionLog], until_ms: int) -> list[PassResult]:
        """Run every iteration that starts before ``until_ms``; returns the passes they made."""
        if not self.manager.broker.log_cleaner_enable:
            return []
        made: list[PassResult] = []
        for _ in range(MAX_LOOP_ITERATIONS):
            thread = min(self.threads, key=lambda t: (t.next_ms, t.thread_id))
            if thread.next_ms >= until_ms:
                return made
            self._iterate(logs, thread, made)
        raise KafkaModelError(f"the cleaner loop did not reach {until_ms} ms within {MAX_LOOP_ITERATIONS} iterations")

    def changed(self, at_ms: int) -> None:
        """The logs changed at ``at_ms`` (an append rolled a segment, a transaction ended, a config changed):
        idle threads wake at their first back-off wake at or after it, skipped or not."""
        backoff = self.manager.broker.log_cleaner_backoff_ms
        for thread in self.threads:
            if thread.idle_since_ms is not None and thread.next_ms > at_ms:
                thread.next_ms = max(_first_wake(thread.idle_since_ms, backoff, at_ms), thread.idle_since_ms + backoff)

    def _iterate(self, logs: Sequence[PartitionLog], thread: CleanerThreadClock, made: list[PassResult]) -> None:
        now = thread.next_ms
        busy = {name for name, until in self.busy_until.items() if until > now}
        result = self.manager.clean_once(logs, now_ms=now, in_progress=busy, thread_id=thread.thread_id)
        if result is None:
            self._sleep(thread, now)
            return
        made.append(result)
        self.passes.append(result)
        self.pass_threads.append(thread.thread_id)
        self.busy_until[result.name] = result.end_ms
        thread.next_ms, thread.idle_since_ms = max(result.end_ms, now), None
        if self.on_pass is not None:
            self.on_pass(result, thread.thread_id)

    def _sleep(self, thread: CleanerThreadClock, now: int) -> None:
        backoff = self.manager.broker.log_cleaner_backoff_ms
        if thread.idle_since_ms is None:
            thread.idle_since_ms = now
        thread.next_ms = now + backoff
        if self.quiet_until is not None:
            quiet = self.quiet_until(thread.next_ms)
            if quiet > thread.next_ms:
                thread.next_ms = _first_wake(thread.idle_since_ms, backoff, quiet)
        if self.on_idle is not None:
            self.on_idle(thread.thread_id, thread.next_ms)


def _first_wake(since_ms: int, backoff_ms: int, at_ms: int) -> int:
    """The first of ``since_ms + k * backoff_ms`` (k >= 1) at or after ``at_ms``."""
    if backoff_ms <= 0:
        return max(at_ms, since_ms)
    steps = max(1, -(-(at_ms - since_ms) // backoff_ms))
    return since_ms + steps * backoff_ms
