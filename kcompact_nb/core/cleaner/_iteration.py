"""One cleaner-thread iteration as the cleaner recorded it: how it treated each partition, the pass, retention.

Not Kafka's record (see :mod:`~kcompact_nb.core.cleaner._decisions`): ``grabFilthiestCompactedLog`` per partition
(:class:`Selection`), then ``cleanLog``'s pass or its failure, then ``deleteOldSegments``. A
:class:`~kcompact_nb.core.cleaner.CleanerManager` with ``decisions`` set records every iteration here.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from kcompact_nb.core.cleaner._clean_pass import PassResult
from kcompact_nb.core.cleaner._decisions import RetentionDeletion
from kcompact_nb.core.cleaner._failure import CleanerFailure
from kcompact_nb.core.cleaner._log_to_clean import LogToClean


class Selection(enum.Enum):
    """What ``grabFilthiestCompactedLog`` made of one partition in one iteration (spec 5)."""

    CHOSEN = "chosen: the filthiest eligible partition"
    NOT_ELIGIBLE = "not eligible"
    LESS_FILTHY = "eligible, but another partition was filthier"
    IN_PROGRESS = "being cleaned by another cleaner thread"
    UNCLEANABLE = "marked uncleanable"
    NOT_COMPACTED = "cleanup.policy has no compact"
    EMPTY = "empty: nothing to clean"


class PartitionSelection(NamedTuple):
    """One partition in one iteration: how the selection treated it, its cleanable range (when computed) and, when
    another was chosen, which."""

    name: str
    selection: Selection
    log_to_clean: LogToClean | None = None
    chosen: str | None = None


@dataclass
class Iteration:
    """One cleaner-thread iteration (``CleanerThread.doWork``): the selection, the pass, retention, the back-off.

    ``idle_until_ms`` is when the thread looks again after an iteration that cleaned nothing
    (``log.cleaner.backoff.ms`` later, or later still when the engine knows nothing can happen before).
    """

    at_ms: int
    thread: int = 0
    partitions: tuple[PartitionSelection, ...] = ()
    result: PassResult | None = None
    failure: CleanerFailure | None = None
    """The pass that threw, and what it left (the partition is then marked uncleanable)."""
    retention: tuple[RetentionDeletion, ...] = ()
    expired_producers: tuple[tuple[str, int], ...] = ()
    idle_until_ms: int | None = None

    @property
    def chosen(self) -> str | None:
        """The partition the iteration cleaned (or whose pass failed), ``None`` when none was eligible."""
        return next((p.name for p in self.partitions if p.selection is Selection.CHOSEN), None)

    def of(self, name: str) -> PartitionSelection | None:
        """How the selection treated partition ``name`` (``None``: not among the broker's logs)."""
        return next((p for p in self.partitions if p.name == name), None)
