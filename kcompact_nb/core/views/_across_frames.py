"""What frames show over time: each record's lifetime (appended, stamped, removed) and the dirty ratio.

Both walk every frame, so they cost O(frames x records): meant for scenario-sized logs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from kcompact_nb.core.cleaner import log_to_clean, strategy_for
from kcompact_nb.core.model import LONG_MAX, PartitionLog
from kcompact_nb.core.simulation import Frame
from kcompact_nb.core.views._next_pass import aborted_batches, superseded_count
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
    """Lifetimes of the data records seen in ``frames`` (only ``key``'s, or only tombstones, when asked), by offset."""
    lives: dict[int, RecordLifetime] = {}
    seen: dict[int, _Seen] = {}
    for frame in frames:
        present = set()
        strategy = strategy_for(frame.log.config)
        aborted = aborted_batches(frame.log)
        for batch, record in _data_records(frame.log):
            if (key is not None and record.key != key) or (tombstones and not record.is_tombstone):
                continue
            present.add(record.offset)
            life = lives.get(record.offset) or _appeared(frame, record)
            lives[record.offset] = _stamped(life, frame, batch)
            seen[record.offset] = _Seen(strategy.rank(batch, record), batch.base_offset in aborted)
        gone = [offset for offset, life in lives.items() if life.removed_frame is None and offset not in present]
        maps = [result.offset_map.entries() for result in frame.passes] if gone else []
        for offset in gone:
            removed_ms = _removal_ms(frame, maps, lives[offset], seen[offset])
            lives[offset] = replace(lives[offset], removed_frame=frame.index, removed_ms=removed_ms)
    return [lives[o] for o in sorted(lives)]


class _Seen(NamedTuple):
    """A record as last seen: its rank under the topic's strategy, and whether its transaction was aborted."""

    rank: Any
    aborted: bool


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


def _removal_ms(frame: Frame, maps: list[dict[bytes, Any]], life: RecordLifetime, seen: _Seen) -> int:
    """Start of the frame's pass that removed the record, else the frame's time (retention, not a pass).

    ``maps`` are the offset-map entries of the frame's passes, in order. A pass reaching the record (below
    its end offset; every pass recopies the log from its start) removes it when its offset map's entry for
    the key outranks it, when it is aborted or keyless data, or when it is a tombstone past its delete
    horizon; a tombstone not stamped yet is stamped by the first pass that keeps it.
    """
    horizon = life.horizon_ms
    for result, entries in zip(frame.passes, maps, strict=True):
        if result.end_offset <= life.offset:
            continue
        entry = None if life.key is None else entries.get(life.key)
        if seen.aborted or life.key is None or (entry is not None and seen.rank < entry):
            return result.start_ms
        if life.is_tombstone:
            if horizon is not None and result.start_ms >= horizon:
                return result.start_ms
            if horizon is None:
                horizon = result.start_ms + frame.log.config.delete_retention_ms
    return frame.now_ms


class DirtinessPoint(NamedTuple):
    """The cleaner's view of a partition at one frame (spec 4-5), for plots over simulated time.

    ``deadline_ms`` is when the oldest dirty segment becomes overdue per ``max.compaction.lag.ms``
    (its first batch timestamp plus the lag; the active segment included, since it rolls by then
    on the next append); ``None`` when the lag is unset or nothing is dirty.
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
    for frame in frames:
        log = frame.log
        ltc = log_to_clean(log, now_ms=frame.now_ms)
        active = log.active_segment.base_offset
        duplicates = superseded_count(log)
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
                compaction_deadline_ms(log, ltc.first_dirty_offset),
            )
        )
        previous_active = active
    return points


def compaction_deadline_ms(log: PartitionLog, first_dirty_offset: int) -> int | None:
    """Earliest first-batch timestamp plus ``max.compaction.lag.ms`` (KIP-354).

    The earliest is taken over the segments from ``first_dirty_offset`` on.
    """
    lag = log.config.max_compaction_lag_ms
    if lag >= LONG_MAX:
        return None
    stamps = [
        s.first_batch_timestamp
        for s in log.segments
        if s.last_offset is not None and s.last_offset >= first_dirty_offset
    ]
    stamps = [t for t in stamps if 0 <= t < LONG_MAX]
    return min(stamps) + lag if stamps else None
