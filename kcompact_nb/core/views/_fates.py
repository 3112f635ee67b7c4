"""What the next full pass would do to each record: kept, superseded, or a tombstone waiting or due.

A classification for pictures and explanations, not a pass: it ignores the cleanable range
(records above the first uncleanable offset are classified as if they were cleanable) and the
offset map's capacity. Ranks come from the topic's strategy, so the KIP-280 strategies (never
Kafka's behaviour) classify by version.
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

from kcompact_nb.core.cleaner import Strategy, strategy_for
from kcompact_nb.core.model import PartitionLog, Record, RecordBatch


class RecordFate(str, enum.Enum):
    """A record's fate under a full pass at ``now_ms`` (spec 7.4)."""

    KEPT = "kept"
    """The winning record of its key (or KIP-280's retained log-end record)."""
    SUPERSEDED = "superseded"
    """A higher-ranked record of the same key exists: a pass over it removes it."""
    TOMBSTONE = "tombstone"
    """A winning tombstone whose batch's delete horizon has passed: the next pass removes it."""
    AWAITING_HORIZON = "awaiting horizon"
    """A winning tombstone not yet stamped, or stamped with a horizon after ``now_ms``."""
    CONTROL = "control"
    """A transaction marker (its own rules, spec 7.3)."""


class ClassifiedRecord(NamedTuple):
    """One stored record with its batch's base offset and its fate."""

    offset: int
    timestamp: int
    key: bytes | None
    batch_base_offset: int
    fate: RecordFate


def record_fates(log: PartitionLog, *, now_ms: int, strategy: Strategy | None = None) -> list[ClassifiedRecord]:
    """Every stored record of ``log`` in offset order with its :class:`RecordFate` at ``now_ms``.

    ``strategy`` defaults to the topic's ``compaction.strategy``; keyless records count as kept.
    """
    classifier = _Classifier(log, strategy or strategy_for(log.config), now_ms)
    classified: list[ClassifiedRecord] = []
    for batch in log.batches():
        classified.extend(classifier.classify(batch))
    return classified


def winning_ranks(log: PartitionLog, strategy: Strategy) -> dict[bytes, Any]:
    """Key -> highest rank of its data records under ``strategy`` (for offsets: the latest offset)."""
    winners: dict[bytes, Any] = {}
    by_offset = strategy.name == "offset"
    for batch in log.batches():
        if batch.is_control:
            continue
        for record in batch.records:
            if record.key is None:
                continue
            rank = record.offset if by_offset else strategy.rank(batch, record)
            current = winners.get(record.key)
            if current is None or rank > current:
                winners[record.key] = rank
    return winners


class _Classifier:
    """The winners of one log under one strategy, and the rules of spec 7.4 applied to a record."""

    def __init__(self, log: PartitionLog, strategy: Strategy, now_ms: int) -> None:
        self.strategy = strategy
        self.winners = winning_ranks(log, strategy)
        self.now_ms = now_ms
        self.log_end_record = log.log_end_offset - 1 if strategy.retains_log_end_record else None
        self._rank = _offset_rank if strategy.name == "offset" else strategy.rank

    def classify(self, batch: RecordBatch) -> list[ClassifiedRecord]:
        """The batch's records with their fates; one loop per batch, the hot path of large logs."""
        base = batch.base_offset
        if batch.is_control:
            return [ClassifiedRecord(r.offset, r.timestamp, r.key, base, RecordFate.CONTROL) for r in batch.records]
        horizon = batch.delete_horizon_ms
        deleted = RecordFate.TOMBSTONE if horizon is not None and horizon <= self.now_ms else RecordFate.AWAITING_HORIZON
        rank, winners, log_end = self._rank, self.winners, self.log_end_record
        out = []
        for r in batch.records:
            if r.key is None or r.offset == log_end:
                fate = RecordFate.KEPT
            elif rank(batch, r) < winners[r.key]:
                fate = RecordFate.SUPERSEDED
            else:
                fate = RecordFate.KEPT if r.value is not None else deleted
            out.append(ClassifiedRecord(r.offset, r.timestamp, r.key, base, fate))
        return out


def _offset_rank(_batch: RecordBatch, record: Record) -> int:
    return record.offset
