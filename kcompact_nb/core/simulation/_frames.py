"""Frames: copies of one partition after each step (a pass, an append, a roll, time), computed on demand.

Steppers and what-if plots move back and forth over frames; each frame's log is a copy that
later steps never change. Copies share the immutable batches, so a frame costs O(segments +
batches), not O(records).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from kcompact_nb.core.cleaner import CleanerFailure, CleanerManager, Iteration, OffsetMapSpec, PassResult, Strategy
from kcompact_nb.core.model import PartitionLog, copy_log


@dataclass(frozen=True)
class Frame:
    """One partition at ``now_ms`` after step ``index`` (0: the start), with the passes that step ran on it."""

    index: int
    label: str
    now_ms: int
    log: PartitionLog
    passes: tuple[PassResult, ...] = ()
    iterations: tuple[Iteration, ...] = ()
    """The cleaner iterations the step ran, with what they decided (its passes' records and batches, retention)."""
    failure: CleanerFailure | None = None
    """The pass of this step that threw, and what it left (the partition is then marked uncleanable)."""


class Timeline:
    """Frames computed from ``frames`` as they are first asked for, then kept (moving back is free)."""

    def __init__(self, frames: Iterable[Frame]) -> None:
        self._source: Iterator[Frame] = iter(frames)
        self._frames: list[Frame] = []
        self.exhausted = False

    def __len__(self) -> int:
        """Frames computed so far."""
        return len(self._frames)

    @property
    def frames(self) -> tuple[Frame, ...]:
        return tuple(self._frames)

    def frame(self, index: int) -> Frame:
        """Frame ``index``, computing the frames up to it; ``IndexError`` past the last one."""
        while index >= len(self._frames) and self.extend():
            pass
        return self._frames[index]

    def extend(self) -> bool:
        """Compute one more frame; False when there is none."""
        if self.exhausted:
            return False
        nxt = next(self._source, None)
        if nxt is None:
            self.exhausted = True
            return False
        self._frames.append(nxt)
        return True

    def compute_all(self, *, limit: int = 10_000) -> tuple[Frame, ...]:
        """Every frame (at most ``limit``)."""
        while len(self._frames) < limit and self.extend():
            pass
        return self.frames


def pass_frames(
    log: PartitionLog,
    *,
    now_ms: int,
    offset_map: OffsetMapSpec | None = None,
    strategy: Strategy | None = None,
    max_passes: int = 1_000,
) -> Iterator[Frame]:
    """The start frame, then one frame per cleaner pass at ``now_ms`` while the log stays eligible.

    Each pass is the broker's (``LogCleanerManager`` bounds, ``min.cleanable.dirty.ratio``); a
    small ``offset_map`` gives partial passes (spec 6.3). A pass that throws ends the frames with the log as
    Kafka's cleaner thread leaves it, marked uncleanable (spec 8.4). ``log`` itself is never modified.
    """
    current = copy_log(log)
    yield Frame(0, "start", now_ms, current)
    decisions: list[Iteration] = []
    manager = CleanerManager(log.broker, strategies={log.topic: strategy} if strategy else {}, decisions=decisions)
    for index in range(1, max_passes + 1):
        nxt = copy_log(current)
        result = manager.clean_log(nxt, now_ms=now_ms, offset_map=offset_map, mark_uncleanable=True)
        if result is None:
            if manager.failures:  # the pass threw: the log as Kafka leaves it, never cleaned again
                failure = manager.failures[-1]
                yield Frame(index, failed_pass_label(index, failure), now_ms, nxt, (), (decisions[-1],), failure)
            return
        yield Frame(index, pass_label(index, result), now_ms, nxt, (result,), (decisions[-1],))
        current = nxt


def failed_pass_label(index: int, failure: CleanerFailure) -> str:
    """``pass 2 threw java.lang.IllegalArgumentException: ...; marked uncleanable``, in Kafka's words."""
    marked = "the cleaner thread stopped" if failure.thread_stopped else "marked uncleanable"
    return f"pass {index} threw {failure.error}; {marked}"


def pass_label(index: int, result: PassResult) -> str:
    """``pass 2: [fd, end) of [fd, fu), N -> M messages`` (plus "map full" for a partial pass)."""
    stats = result.stats
    partial = ", offset map full" if result.map_full else ""
    return (
        f"pass {index}: cleaned [{result.first_dirty_offset}, {result.end_offset}) of "
        f"[{result.first_dirty_offset}, {result.first_uncleanable_offset}), "
        f"{stats.messages_read} -> {stats.messages_written} messages{partial}"
    )
