"""What the cleaner decided and why: per record, batch, segment and partition, recorded only when asked.

Kafka's cleaner keeps no such record; this one is the project's (not Kafka's), so that every view reads what the
engine decided instead of working a rule out again. The rules named here are the engine's own branches:
``shouldRetainRecord`` per record (:class:`RecordRule`), ``checkBatchRetention`` and ``MemoryRecords.filterTo``
per batch (:class:`BatchFate`) and ``deleteOldSegments`` per segment (:class:`RetentionReason`); an iteration's
partitions are in :mod:`~kcompact_nb.core.cleaner._iteration`. A pass records into :class:`PassDecisions` when its
cleaner is given one (:func:`~kcompact_nb.core.cleaner.clean_pass`'s ``decisions``). Nothing is recorded, and
nothing costs, when nobody asks.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple


class RecordRule(enum.Enum):
    """Why a pass kept or removed one record it read (``shouldRetainRecord``, ``checkBatchRetention``; spec 7.3-7.4):
    ``kept`` says which, ``text`` why, in a few words."""

    SUPERSEDED = ("its key's entry in the offset map outranks it", False)
    TOMBSTONE_PAST_HORIZON = ("a tombstone whose delete horizon has passed", False)
    LEGACY_TOMBSTONE_EXPIRED = ("a tombstone in a segment older than the legacy delete horizon", False)
    KEYLESS = ("a record without a key", False)
    ABORTED = ("data of an aborted transaction", False)
    MARKER_DISCARDED = ("a transaction marker with no data left whose delete horizon has passed", False)
    LATEST = ("its key's entry in the offset map", True)
    NOT_MAPPED = ("its key has no entry in the offset map", True)
    UNREAD_BY_MAP = ("above the offset map's latest offset", True)
    OUTRANKS_ENTRY = ("it outranks its key's entry in the offset map (KIP-280)", True)
    LOG_END = ("the record at the log end offset - 1 (KIP-280)", True)
    TOMBSTONE_UNSTAMPED = ("a tombstone whose batch has no delete horizon yet", True)
    TOMBSTONE_BEFORE_HORIZON = ("a tombstone before its delete horizon", True)
    LEGACY_TOMBSTONE_RETAINED = ("a tombstone in a segment newer than the legacy delete horizon", True)
    MARKER = ("a transaction marker", True)

    def __init__(self, text: str, kept: bool) -> None:
        self.text = text
        self.kept = kept


class RecordDecision(NamedTuple):
    """One record a pass read: the rule that decided it and, when it was superseded, its key's entry."""

    offset: int
    rule: RecordRule
    entry_offset: int | None = None
    """The offset of the key's offset-map entry that outranked the record (``SUPERSEDED`` only)."""

    @property
    def kept(self) -> bool:
        return self.rule.kept


class BatchFate(enum.Enum):
    """What ``MemoryRecords.filterTo`` did with one batch the pass read."""

    KEPT_WHOLE = "kept as it was"
    REWRITTEN = "rewritten"
    KEPT_EMPTY = "kept empty"
    DELETED = "deleted"


class BatchDecision(NamedTuple):
    """One batch a pass read and what became of it (``checkBatchRetention``, ``filterTo``; spec 7.3).

    ``last_batch_of_producer`` is the producer id whose last batch this is (rule A: kept, empty if need be, while
    the producer is alive); ``ends_round`` says it ends the cleaning round (rule B). A rewritten batch carries its
    sizes before and after (it grows when a stamped delete horizon moves its base timestamp or its codec compresses
    the kept records less well), the delete horizon the pass stamped (``None``: none), and whether it was
    compressed again.
    """

    base_offset: int
    last_offset: int
    fate: BatchFate
    size_before: int
    size_after: int
    last_batch_of_producer: int | None = None
    ends_round: bool = False
    stamped_horizon_ms: int | None = None
    recompressed: bool = False
    is_control: bool = False


class PassStop(enum.Enum):
    """Where a pass stopped reading: the cleanable range's end, or earlier because its offset map filled."""

    RANGE_END = "the first uncleanable offset"
    MAP_FULL = "its offset map is full"


@dataclass
class PassDecisions:
    """Every decision of one pass: the records and batches it read, and where and why it stopped."""

    records: dict[int, RecordDecision] = field(default_factory=dict)
    batches: dict[int, BatchDecision] = field(default_factory=dict)
    stop: PassStop = PassStop.RANGE_END

    def record(self, decision: RecordDecision) -> None:
        self.records[decision.offset] = decision

    def record_all(self, decisions: Iterable[RecordDecision]) -> None:
        """:meth:`record` each of ``decisions`` (a whole batch's, at once)."""
        self.records.update((decision.offset, decision) for decision in decisions)

    def batch(self, decision: BatchDecision) -> None:
        self.batches[decision.base_offset] = decision


class RetentionReason(enum.Enum):
    """Why ``deleteOldSegments`` deleted a segment (spec 9)."""

    LOG_START_OFFSET = "below the log start offset"
    RETENTION_BYTES = "retention.bytes"
    RETENTION_MS = "retention.ms"


class RetentionDeletion(NamedTuple):
    """A segment retention deleted: its partition, offsets, the rule, the time and the log start offset after."""

    name: str
    base_offset: int
    next_offset: int
    reason: RetentionReason
    at_ms: int
    largest_timestamp: int


class LogStartMove(NamedTuple):
    """The log start offset of partition ``name`` moved from ``before`` to ``after`` at ``at_ms``: ``cause`` is
    ``"retention.ms"``, ``"retention.bytes"``, ``"DeleteRecords"`` or ``"log start offset set"``."""

    name: str
    at_ms: int
    before: int
    after: int
    cause: str
