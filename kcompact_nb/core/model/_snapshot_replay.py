"""Producer state as ``LogLoader`` loads it: the latest usable producer snapshot, then the batches after it (spec 8.5).

A broker keeps producer state in memory as it appends and writes it to ``NNN.snapshot`` when it rolls to segment
``NNN`` (and at the log end offset when it shuts down). Loading a partition (``ProducerStateManager.truncateAndReload``
and ``loadFromSnapshot``) takes the latest snapshot above the log start offset and at most the log end offset, and
replays the batches from its offset on. Replaying every batch from the start is not the same: a pass may have removed
what the broker's state still holds, such as an ABORT marker whose transaction's emptied last batch stays (before
KAFKA-8351), which a replay from the start finds still open.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from kcompact_nb.core.model._header_run import HeaderRun
from kcompact_nb.core.model._producer_state import ProducerStateEntry, ProducerStateManager
from kcompact_nb.core.model._run_replay import replay_run
from kcompact_nb.core.model._versions import KafkaVersion
from kcompact_nb.record import NO_PRODUCER_ID, RecordBatch


@dataclass(frozen=True)
class ProducerSnapshot:
    """A producer snapshot file's content: the producers a broker knew at ``offset`` (the file's name)."""

    offset: int
    producers: tuple[ProducerStateEntry, ...]


class SnapshotReplay:
    """Producer state from the latest usable snapshot of ``snapshots`` and the batches after it, fed in one read.

    The log end offset is known only once the log is read: each offset it is known to reach (:meth:`reached`) makes
    the snapshots at or below it usable, and only the producer batches from the latest of them on are kept.
    Snapshots at or below the log start offset (``log_start_offset``, raised to the first segment's base offset) are
    not used (``truncateAndReload`` deletes them).
    """

    def __init__(self, snapshots: Sequence[ProducerSnapshot], log_start_offset: int | None) -> None:
        self._waiting = sorted(snapshots, key=lambda s: s.offset)
        self._chosen: ProducerSnapshot | None = None
        self._log_start_offset = log_start_offset or 0
        self._started = False
        self._batches: list[RecordBatch | HeaderRun] = []

    def segment(self, base_offset: int) -> None:
        """A segment begins at ``base_offset`` (segments in offset order); the first one sets the log start offset."""
        if not self._started:
            self._log_start_offset = max(self._log_start_offset, base_offset)
            self._waiting = [s for s in self._waiting if s.offset > self._log_start_offset]
            self._started = True
        self.reached(base_offset)

    def reached(self, offset: int) -> None:
        """The log end offset is at least ``offset``: snapshots up to it are usable, the latest is taken."""
        if not self._waiting or self._waiting[0].offset > offset:
            return
        chosen = self._waiting.pop(0)
        while self._waiting and self._waiting[0].offset <= offset:
            chosen = self._waiting.pop(0)
        self._chosen = chosen
        self._batches = [kept for b in self._batches if (kept := _from(b, chosen.offset)) is not None]

    def add(self, batch: RecordBatch) -> None:
        """A batch read in offset order: kept when it carries a producer id and may follow the snapshot taken."""
        first = self._chosen or (self._waiting[0] if self._waiting else None)
        if first is None:
            return
        if batch.has_producer_id and batch.last_offset >= first.offset:
            self._batches.append(batch)
        self.reached(batch.last_offset + 1)

    def add_run(self, run: HeaderRun) -> None:
        """:meth:`add` of each of ``run``'s batches."""
        first = self._chosen or (self._waiting[0] if self._waiting else None)
        if first is None:
            return
        kept = _from(run.taken(run.producer_ids != NO_PRODUCER_ID), first.offset)
        if kept is not None:
            self._batches.append(kept)
        self.reached(run.last_offset + 1)

    def state(self, version: KafkaVersion, now_ms: int | None, expiration_ms: int) -> ProducerStateManager | None:
        """The loaded producer state, ``None`` when no snapshot is usable (the state is rebuilt from the batches).

        The snapshot's producers idle for ``expiration_ms`` at ``now_ms`` are not loaded, nor, before KAFKA-7190
        (2.4), those whose last data offset is below the log start offset (``isProducerRetained``).
        """
        if self._chosen is None:
            return None
        state = ProducerStateManager()
        for entry in self._chosen.producers:
            expired = (
                now_ms is not None
                and entry.current_txn_first_offset is None
                and now_ms - entry.last_timestamp >= expiration_ms
            )
            retained = version.retains_producers_below_log_start or entry.last_data_offset >= self._log_start_offset
            if retained and not expired:
                state.producers[entry.producer_id] = dataclasses.replace(entry)
        for batch in self._batches:
            if isinstance(batch, HeaderRun):
                replay_run(state, batch, None)
            else:
                state.replay(batch)
        return state


def _from(batches: RecordBatch | HeaderRun, offset: int) -> RecordBatch | HeaderRun | None:
    """The batch, or the run's batches, whose last offset is at least ``offset`` (None: none)."""
    if isinstance(batches, RecordBatch):
        return batches if batches.last_offset >= offset else None
    kept = batches.last_offsets >= offset
    return batches.taken(kept) if kept.any() else None
