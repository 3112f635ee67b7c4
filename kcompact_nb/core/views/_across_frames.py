"""What frames show over time: each record's lifetime (appended, stamped, removed) and the dirty ratio.

Both walk every frame, so they cost O(frames x records): meant for scenario-sized logs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from kcompact_nb.core.cleaner import FAR_FUTURE_MS, log_to_clean_over_time, strategy_for
from kcompact_nb.core.model import AbortedTxn, PartitionLog, TopicConfig
from kcompact_nb.core.simulation import Frame, first_overdue_ms
from kcompact_nb.core.views._next_pass import LogBatches, superseded_count_in
from kcompact_nb.record import Record, RecordBatch


@dataclass(frozen=True)
class RecordLifetime:
    """One data record across frames: when it appeared, was stamped and was removed (``None``: not yet).

    ``stamped_ms`` is the pass time that set its batch's delete horizon (``horizon_ms`` minus
    ``delete.retention.ms``, spec 7.4); ``removed_ms`` the time of the pass (or step) it vanished in.
    """

    offset: int
    key: bytes | None
    value: bytes | None
    timestamp: int
    headers: tuple[tuple[str, bytes | None], ...]
    appeared_frame: int
    appeared_ms: int
    stamped_ms: int | None = None
    horizon_ms: int | None = None
    removed_frame: int | None = None
    removed_ms: int | None = None

    @property
    def is_tombstone(self) -> bool:
        return self.key is not None and self.value is None

    def survives(self, frame: int) -> bool:
        """Present in frame ``frame``."""
        return self.appeared_frame <= frame and (self.removed_frame is None or frame < self.removed_frame)


def record_lifetimes(
    frames: Sequence[Frame], *, key: bytes | None = None, tombstones: bool = False
) -> list[RecordLifetime]:
    """Lifetimes of the data records seen in ``frames`` (only ``key``'s, or only tombstones, when asked), by offset.

    A record's removal time is read from what the frame's cleaner iterations recorded: the start of the pass that
    removed it, or the time retention deleted its segment; else (a step that is not the cleaner's) the frame's time.
    """
    lives: dict[int, RecordLifetime] = {}
    for frame in frames:
        present = set()
        for batch, record in _data_records(frame.log):
            if (key is not None and record.key != key) or (tombstones and not record.is_tombstone):
                continue
            present.add(record.offset)
            life = lives.get(record.offset) or _appeared(frame, record)
            lives[record.offset] = _stamped(life, frame, batch)
        gone = [offset for offset, life in lives.items() if life.removed_frame is None and offset not in present]
        for offset in gone:
            removed_ms = _removal_ms(frame, offset)
            lives[offset] = replace(lives[offset], removed_frame=frame.index, removed_ms=removed_ms)
    return [lives[o] for o in sorted(lives)]


def _data_records(log: PartitionLog) -> list[tuple[RecordBatch, Record]]:
    return [(b, r) for b, r in log.records() if not b.is_control]


def _appeared(frame: Frame, record: Record) -> RecordLifetime:
    return RecordLifetime(
        record.offset, record.key, record.value, record.timestamp, record.headers, frame.index, frame.now_ms
    )


def _stamped(life: RecordLifetime, frame: Frame, batch: RecordBatch) -> RecordLifetime:
    if life.horizon_ms is not None or batch.delete_horizon_ms is None or not life.is_tombstone:
        return life
    horizon = batch.delete_horizon_ms
    return replace(life, horizon_ms=horizon, stamped_ms=horizon - frame.log.config.delete_retention_ms)


def _removal_ms(frame: Frame, offset: int) -> int:
    """When the frame's cleaner removed ``offset``, as its iterations recorded it (the frame's time otherwise)."""
    name = frame.log.name
    for iteration in frame.iterations:
        result = iteration.result
        decisions = None if result is None or result.name != name else result.decisions
        decision = None if decisions is None else decisions.records.get(offset)
        if decision is not None and not decision.kept:
            return iteration.at_ms
        for deletion in iteration.retention:
            if deletion.name == name and deletion.base_offset <= offset < deletion.next_offset:
                return deletion.at_ms
    return frame.now_ms


class DirtinessPoint(NamedTuple):
    """The cleaner's view of a partition at one frame (spec 4-5), for plots over simulated time.

    ``deadline_ms`` is the first instant the cleaner finds the log's dirty segments overdue per
    ``max.compaction.lag.ms`` with nothing more appended (the engine's own test, asked at chosen instants;
    the active segment counts once it rolls); ``None`` when that never happens.
    """

    frame: int
    now_ms: int
    cleanable_ratio: float
    min_cleanable_dirty_ratio: float
    eligible: bool
    first_dirty_offset: int
    first_uncleanable_offset: int
    duplicates: int
    rolled: bool
    pass_ms: tuple[int, ...]
    deadline_ms: int | None


def dirtiness_series(frames: Sequence[Frame]) -> list[DirtinessPoint]:
    """One :class:`DirtinessPoint` per frame; ``duplicates`` counts superseded records under the topic's strategy."""
    points = []
    previous_active: int | None = None
    counted = _Superseded()
    for frame in frames:
        log = frame.log
        cleanable = log_to_clean_over_time(log)  # read once for the frame's instant and the search over time
        ltc = cleanable(frame.now_ms)
        active = log.active_segment.base_offset
        duplicates = counted.of(log)
        points.append(
            DirtinessPoint(
                frame.index,
                frame.now_ms,
                ltc.cleanable_ratio,
                ltc.min_cleanable_dirty_ratio,
                ltc.eligible,
                ltc.first_dirty_offset,
                ltc.first_uncleanable_offset,
                duplicates,
                previous_active is not None and active > previous_active,
                tuple(p.start_ms for p in frame.passes),
                first_overdue_ms(cleanable, now_ms=-FAR_FUTURE_MS),
            )
        )
        previous_active = active
    return points


class _Superseded:
    """``superseded_count`` of frame after frame, counted again only when a frame's log holds other batches, other
    aborted transactions or another config than the frame's before (all the count reads): most steps (the clock, a
    pass that finds nothing eligible) change none of them."""

    def __init__(self) -> None:
        self._counted: _CountedFrom | None = None
        self._count = 0

    def of(self, log: PartitionLog) -> int:
        batches = tuple(log.batches())
        counted = _CountedFrom(batches, tuple(a for s in log.segments for a in s.aborted_transactions), log.config)
        if self._counted is None or not counted.same_as(self._counted):
            self._count = superseded_count_in(LogBatches.holding(log, batches), strategy_for(log.config))
        self._counted = counted
        return self._count


class _CountedFrom(NamedTuple):
    """What a superseded count reads of a log: its batches (immutable), its transaction indexes' aborted
    transactions (which batches are aborted) and its config (the strategy)."""

    batches: tuple[RecordBatch, ...]
    aborted: tuple[AbortedTxn, ...]
    config: TopicConfig

    def same_as(self, before: _CountedFrom) -> bool:
        """The same batch objects, aborted transactions and config."""
        return (
            len(self.batches) == len(before.batches)
            and all(a is b for a, b in zip(self.batches, before.batches, strict=True))
            and self.aborted == before.aborted
            and self.config == before.config
        )
