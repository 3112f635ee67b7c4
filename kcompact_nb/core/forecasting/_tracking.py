"""What the forecast follows beside the logs: the live data's size, and the lifetimes of records a pass removes.

*Live data* is what a fully compacted partition must keep: each key's latest record unless it is a tombstone,
counted as its record bytes (no batch headers). It is known from what was produced, not from the log.

*Lifetimes* follow traced records from their write until the pass that removes them: tombstones and the other
records at a sampling rate each (every tombstone, up to a cap), each standing for as many records as its rate
says. A record can only go once something supersedes it (a later record of its key) or, for a tombstone, once
it is written; only such records are looked for after each pass, in the log itself.

Both work a chunk of events at a time (numpy over all its records), so a batch's own cost stays small.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy

from kcompact_nb.core.forecasting._events import Event, ProducedBatch
from kcompact_nb.core.model import PartitionLog
from kcompact_nb.record import record_sizes_of_lengths

TRACED_TARGET = 20_000
"""About how many records the lifetimes follow."""


def _columns(batches: Sequence[ProducedBatch]) -> tuple[numpy.ndarray, ...]:
    """Every record of ``batches`` but folded ones: batch index, key id, value length, position in its batch."""
    counts = numpy.array([len(b) for b in batches], dtype=numpy.int64)
    index = numpy.repeat(numpy.arange(len(batches)), counts)
    keys = numpy.concatenate([b.key_ids for b in batches])
    lengths = numpy.concatenate([b.drawn_lengths for b in batches])
    position = numpy.arange(len(keys)) - numpy.repeat(numpy.cumsum(counts) - counts, counts)
    folded = numpy.array([b.folded for b in batches], dtype=numpy.int64)
    keep = position != folded[index]
    return index[keep], keys[keep], lengths[keep], position[keep]


@dataclass
class LiveData:
    """Each key's latest record of one topic, and the live bytes and keys of each partition."""

    key_width: int
    partitions: int
    ratio: float = 1.0
    """Stored value bytes per drawn value byte (the topic codec's ratio)."""
    sizes: numpy.ndarray = field(default_factory=lambda: numpy.zeros(1024, dtype=numpy.int64))
    """The latest record's bytes of each key id; 0 for none or a tombstone."""
    live_bytes: numpy.ndarray = field(init=False)
    live_keys: numpy.ndarray = field(init=False)
    _deltas: dict[int, tuple[int, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.live_bytes = numpy.zeros(self.partitions, dtype=numpy.int64)
        self.live_keys = numpy.zeros(self.partitions, dtype=numpy.int64)

    def prepare(self, batches: Sequence[ProducedBatch]) -> None:
        """Work out what each of ``batches`` (in append order) changes; :meth:`record` applies it."""
        if not batches:
            return
        index, keys, lengths, _ = _columns(batches)
        if not len(keys):
            return
        self._grow(int(keys.max()) + 1)
        zeros = numpy.zeros(len(keys), dtype=numpy.int64)
        stored = numpy.where(lengths < 0, -1, numpy.round(lengths * self.ratio)).astype(numpy.int64)
        sizes = numpy.where(lengths < 0, 0, record_sizes_of_lengths(zeros, zeros, zeros + self.key_width, stored))
        order = numpy.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        same = numpy.concatenate(([False], sorted_keys[1:] == sorted_keys[:-1]))
        previous = numpy.where(same, numpy.roll(sizes[order], 1), self.sizes[sorted_keys])
        before = numpy.empty_like(previous)
        before[order] = previous
        last = numpy.concatenate((sorted_keys[1:] != sorted_keys[:-1], [True]))
        self.sizes[sorted_keys[last]] = sizes[order][last]
        byte_delta = numpy.bincount(index, weights=sizes - before, minlength=len(batches))
        key_delta = numpy.bincount(index, weights=(sizes > 0).astype(int) - (before > 0), minlength=len(batches))
        for i, batch in enumerate(batches):
            self._deltas[id(batch)] = (int(byte_delta[i]), int(key_delta[i]))

    def record(self, batch: ProducedBatch) -> None:
        """Apply what :meth:`prepare` worked out for ``batch``, now that it is appended."""
        change = self._deltas.pop(id(batch), None)
        if change is not None:
            self.live_bytes[batch.partition] += change[0]
            self.live_keys[batch.partition] += change[1]

    def _grow(self, needed: int) -> None:
        if needed > len(self.sizes):
            grown = numpy.zeros(max(needed, 2 * len(self.sizes)), dtype=numpy.int64)
            grown[: len(self.sizes)] = self.sizes
            self.sizes = grown


@dataclass
class Lifetimes:
    """Traced records of one topic: when each was written and, once a pass removed it, when."""

    rate: float
    """The share of non-tombstone records traced (each stands for ``1 / rate`` records)."""
    tombstone_rate: float
    rng: numpy.random.Generator
    tombstone_share: float = 0.0
    """The share of tombstones among the records a folded record stands for."""
    written_ms: list[int] = field(default_factory=list)
    removed_ms: list[int] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)
    tombstone: list[bool] = field(default_factory=list)
    _new: dict[int, list[tuple[int, int, int, bool]]] = field(default_factory=dict)
    """id(batch) -> (position, key id, trace index, may go now) of the batch's traced records."""
    _supersedes: dict[int, list[int]] = field(default_factory=dict)
    """id(batch) -> key ids whose traced latest value the batch supersedes."""
    _pending: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    """Partition -> (offset, trace index) of traced records that may go."""
    _latest: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    """(partition, key id) -> (offset, trace index) of a traced latest value, not yet superseded."""
    _traced_keys: set[tuple[int, int]] = field(default_factory=set)

    def prepare(self, events: Sequence[Event]) -> None:
        """Choose the traced records of a chunk's batches, and which traced values each batch supersedes."""
        batches = [e for e in events if isinstance(e, ProducedBatch)]
        if not batches:
            return
        counts = [len(b) for b in batches]
        lengths = numpy.concatenate([b.value_lengths for b in batches])
        rates = numpy.where(lengths < 0, self.tombstone_rate, self.rate)
        starts = numpy.cumsum(counts) - counts
        for b, start in zip(batches, starts.tolist(), strict=True):
            if b.folded >= 0:
                rates[start + b.folded] = 1.0  # a folded record stands for many: always traced, with their weight
        chosen = numpy.flatnonzero(self.rng.random(len(lengths)) < rates)
        owner = numpy.searchsorted(starts, chosen, side="right") - 1
        for i, o in zip(chosen.tolist(), owner.tolist(), strict=True):
            batch, position = batches[o], i - int(starts[o])
            if position == batch.folded:
                self._trace(batch, position, 1 / (1 - self.tombstone_share), tombstone=False)
                if self.tombstone_share:
                    self._trace(batch, position, 1 / self.tombstone_share, tombstone=True)
            else:
                self._trace(batch, position, float(rates[i]))
        for b in batches:
            hits = [k for k in b.key_ids.tolist() if (b.partition, k) in self._traced_keys]
            if hits:
                self._supersedes[id(b)] = hits

    def _trace(self, batch: ProducedBatch, position: int, rate: float, *, tombstone: bool | None = None) -> None:
        """Trace one record (standing for ``1 / rate`` of its kind); a folded record is traced once for the
        tombstones it stands for and once for the other records, ``tombstone`` saying which."""
        trace = len(self.written_ms)
        tomb = bool(batch.value_lengths[position] < 0) if tombstone is None else tombstone
        weight = 1.0 if batch.weights is None else float(batch.weights[position])
        self.written_ms.append(int(batch.timestamps[position]))
        self.removed_ms.append(-1)
        self.tombstone.append(tomb)
        self.weights.append(weight / rate)
        key = int(batch.key_ids[position])
        self._new.setdefault(id(batch), []).append((position, key, trace, tomb or position == batch.folded))
        self._traced_keys.add((batch.partition, key))

    def record(self, batch: ProducedBatch, first_offset: int, shift: int = 0) -> None:
        """The batch is appended (its first record at ``first_offset``, or its own offsets moved up by ``shift``):
        its traced records, and the traced values it supersedes."""
        p = batch.partition
        pending = self._pending.setdefault(p, [])
        for key in self._supersedes.pop(id(batch), ()):
            superseded = self._latest.pop((p, key), None)
            if superseded is not None:
                pending.append(superseded)
        for position, key, trace, may_go in self._new.pop(id(batch), ()):
            offset = first_offset + position if batch.offsets is None else int(batch.offsets[position]) + shift
            if may_go:
                pending.append((offset, trace))
            else:
                self._latest[(p, key)] = (offset, trace)

    def after_pass(self, log: PartitionLog, partition: int, end_offset: int, at_ms: int) -> None:
        """Mark the pending traced records of ``partition`` below ``end_offset`` that ``log`` no longer holds."""
        pending = self._pending.get(partition)
        if not pending:
            return
        bases = [segment.base_offset for segment in log.segments]
        still = []
        for offset, trace in pending:
            if offset >= end_offset or _holds(log, bases, offset):
                still.append((offset, trace))
            else:
                self.removed_ms[trace] = at_ms
        self._pending[partition] = still


def _holds(log: PartitionLog, bases: list[int], offset: int) -> bool:
    """Whether ``log`` still stores the record at ``offset``."""
    if offset < log.log_start_offset:
        return False
    segment = log.segments[max(0, bisect_right(bases, offset) - 1)]
    batches = segment.batches
    index = bisect_right(batches, offset, key=lambda b: b.base_offset) - 1
    if index < 0 or batches[index].last_offset < offset:
        return False
    records = batches[index].records
    offsets = getattr(records, "offsets", None)
    if offsets is None:
        return any(record.offset == offset for record in records)
    position = bisect_right(offsets, offset) - 1
    return position >= 0 and offsets[position] == offset
