"""One pass seen from outside: its offset map's entries and fill, and what it removed and rewrote (spec 6-8)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from kcompact_nb.core.cleaner import BatchDecision, BatchFate, LogToClean, PassResult, offset_map_keys, strategy_for
from kcompact_nb.core.model import PartitionLog


class OffsetMapEntry(NamedTuple):
    """A key's entry at the end of the pass: its winning offset and, for KIP-280 strategies, its version."""

    key: bytes
    offset: int
    version: Any


@dataclass(frozen=True)
class OffsetMapView:
    """The offset map of a pass (``SkimpyOffsetMap``): entries by offset, capacity and where the pass stopped.

    ``capacity`` is ``int(slots * log.cleaner.io.buffer.load.factor)`` keys (``None`` for an
    unbounded map); ``utilization`` is Kafka's "Buffer utilization" (entries / slots).
    ``missed_keys`` are keys of the cleanable range at or after ``end_offset`` that are not in the
    map: the keys a full map left for the next pass.
    """

    entries: tuple[OffsetMapEntry, ...]
    capacity: int | None
    slots: int | None
    utilization: float
    first_dirty_offset: int
    first_uncleanable_offset: int
    end_offset: int
    map_full: bool
    missed_keys: tuple[tuple[bytes, int], ...]
    load_factor: float | None = None
    """``log.cleaner.io.buffer.load.factor`` of a bounded map (``None`` for an unbounded one)."""
    entry_bytes: int | None = None
    """Bytes per slot: 24 for Kafka's offsets (a 16-byte MD5 of the key and an 8-byte offset), more for KIP-280."""


def offset_map_view(result: PassResult, after: PartitionLog) -> OffsetMapView:
    """The map of ``result``; ``after`` is the log after the pass (records at or after the end offset are untouched)."""
    offset_map = result.offset_map
    entries = tuple(sorted((_entry(k, rank) for k, rank in offset_map.entries().items()), key=lambda e: e.offset))
    return OffsetMapView(
        entries=entries,
        capacity=offset_map.max_entries,
        slots=getattr(offset_map, "slots", None),
        utilization=offset_map.utilization,
        first_dirty_offset=result.first_dirty_offset,
        first_uncleanable_offset=result.first_uncleanable_offset,
        end_offset=result.end_offset,
        map_full=result.map_full,
        missed_keys=_missed_keys(after, result, {e.key for e in entries}),
        load_factor=getattr(offset_map, "load_factor", None),
        entry_bytes=getattr(offset_map, "entry_bytes", None),
    )


def _entry(key: bytes, rank: Any) -> OffsetMapEntry:
    """Ranks end with the offset (see ``Strategy``); what precedes it is the cached version."""
    if isinstance(rank, tuple):
        return OffsetMapEntry(key, rank[-1], rank[:-1])
    return OffsetMapEntry(key, rank, None)


def _missed_keys(log: PartitionLog, result: PassResult, mapped: set[bytes]) -> tuple[tuple[bytes, int], ...]:
    """(key, first offset) of the keys ``buildOffsetMap`` would map in ``[end_offset, first_uncleanable_offset)``
    that the full map did not hold (the engine's own map building decides which records count: no markers, no
    aborted data)."""
    if result.end_offset >= result.first_uncleanable_offset:
        return ()
    left = offset_map_keys(
        log,
        start=result.end_offset,
        end=result.first_uncleanable_offset,
        strategy=strategy_for(log.config),
        now_ms=result.start_ms,
    )
    missed: dict[bytes, int] = {}
    for _batch, record in log.records():
        key = record.key
        if result.end_offset <= record.offset < result.first_uncleanable_offset and key in left and key not in mapped:
            missed.setdefault(key, record.offset)
    return tuple(missed.items())


@dataclass(frozen=True)
class PassDiff:
    """Before and after one pass: segments as (base offset, bytes), the groups, and the fate of batches, as the pass
    recorded them.

    ``rewritten_batches`` were rebuilt with fewer records or a new delete horizon; ``emptied_batches`` were kept as
    61-byte headers without records (spec 7.3 rules A and B); ``removed_batches`` vanished; ``grown_batches`` are
    (base offset, bytes before, bytes after, why) of rewritten batches that grew. Batches are named by base offset.
    ``estimated_segments`` are the base offsets of segments (before or after) whose size is an estimate (no exact
    codec here).
    """

    segments_before: tuple[tuple[int, int], ...]
    segments_after: tuple[tuple[int, int], ...]
    groups: tuple[tuple[int, ...], ...]
    removed_offsets: tuple[int, ...]
    rewritten_batches: tuple[int, ...]
    emptied_batches: tuple[int, ...]
    removed_batches: tuple[int, ...]
    log_end_offset: int
    estimated_segments: tuple[int, ...] = ()
    grown_batches: tuple[tuple[int, int, int, str], ...] = ()


def pass_diff(before: PartitionLog, after: PartitionLog, result: PassResult) -> PassDiff:
    """What ``result`` changed from ``before`` to ``after``, read from the decisions the pass recorded (a pass run by
    :func:`~kcompact_nb.core.pass_frames`, a scenario's frames or a :class:`CleanerManager` with ``decisions``)."""
    if result.decisions is None:
        raise ValueError(f"the pass over {result.name} at {result.start_ms} ms recorded no decisions to read")
    decisions = result.decisions
    batches = sorted(decisions.batches.values())

    def fated(*fates: BatchFate) -> tuple[int, ...]:
        return tuple(b.base_offset for b in batches if b.fate in fates)

    return PassDiff(
        segments_before=_segments(before),
        segments_after=_segments(after),
        groups=result.groups,
        removed_offsets=tuple(sorted(d.offset for d in decisions.records.values() if not d.kept)),
        rewritten_batches=fated(BatchFate.REWRITTEN),
        emptied_batches=fated(BatchFate.KEPT_EMPTY),
        removed_batches=fated(BatchFate.DELETED),
        log_end_offset=after.log_end_offset,
        estimated_segments=tuple(
            sorted({s.base_offset for log in (before, after) for s in log.segments if s.size_estimated})
        ),
        grown_batches=tuple(
            (b.base_offset, b.size_before, b.size_after, _grew_because(b))
            for b in batches
            if b.fate is BatchFate.REWRITTEN and b.size_after > b.size_before
        ),
    )


def _grew_because(batch: BatchDecision) -> str:
    """Why a rewritten batch is larger than it was (``MemoryRecords.filterTo`` rebuilds it)."""
    causes = []
    if batch.stamped_horizon_ms is not None:
        causes.append(
            "the pass stamped its delete horizon: the batch's base timestamp became the horizon, so each record's "
            "timestamp delta is a longer varint"
        )
    if batch.recompressed:
        causes.append("its kept records were compressed again at the codec's default level")
    return "; ".join(causes) or "its kept records were written again (record by record)"


def _segments(log: PartitionLog) -> tuple[tuple[int, int], ...]:
    return tuple((s.base_offset, s.size_bytes) for s in log.segments)


def filthiest(considered: Sequence[LogToClean]) -> LogToClean | None:
    """The eligible partition with the highest dirty ratio, the first of equals in the given order
    (``grabFilthiestCompactedLog``); ``None`` when none is eligible.

    ``CleanerManager.grab_filthiest_log`` returns its considered logs in the broker's log pool order,
    so this picks the log the broker picks.
    """
    eligible = [ltc for ltc in considered if ltc.eligible]
    return max(eligible, key=lambda ltc: ltc.cleanable_ratio, default=None)
