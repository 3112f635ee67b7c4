"""The folded stream: a produce model's records drawn by key, one segment at a time, superseded ones folded.

For loads too large to draw record by record (a month at 1,000 records/s is 2.6 billion records), each
partition's records are drawn a *window* at a time, a window being what one segment will hold (its bytes fill
``segment.bytes``, or its time reaches ``segment.ms``). Within a window:

- each followed key's record count is Poisson with its rate; the last record of each key (its *winner*: what a
  pass keeps of the window) is drawn exactly: its time, whether it is a tombstone, its value size;
- winners sit in batches as the producer batches records (``linger.ms`` slots, ``batch.size``), at the offsets
  and positions the window's records give them, so what a pass keeps is laid out as in the real log;
- every other record of the window (superseded within it) is *folded*: the stretches between winner batches
  become one batch holding one record whose value carries their bytes (headers included), keyed by the window's
  last winner, so the next folded record or that winner supersedes it and the first pass over the segment drops
  it, as it drops what it stands for;
- with many keys only every ``stride``-th key is followed and the broker is scaled down by that factor (segment
  bytes, dedupe buffer, throttle, speed); keys hot enough to have several records per window are not drawn one by
  one but folded at their expected rate, so a heavy key in or out of the sample does not swing the load.

See ``docs/forecast.md`` for what this keeps exact and the error measured against exact runs.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy

from kcompact_nb.core.forecasting._events import Event, ProducedBatch, TxnMarker
from kcompact_nb.core.forecasting._exact_stream import TopicSource, topic_sources
from kcompact_nb.core.forecasting._keys import harmonic, partitions_of
from kcompact_nb.core.forecasting._produce_model import ProduceModel, TopicLoad
from kcompact_nb.record import RECORD_BATCH_OVERHEAD, record_size_of_lengths, record_sizes_of_lengths

HOT_RECORDS = 8.0
"""A key expecting this many records in a window is *hot*: folded at its rate rather than drawn (sampled runs)."""
HEAD_RANKS = 1_000_000
"""Zipf ranks whose partitions are worked out, for the hot keys' share of each partition."""
MERGED_WINNERS = 64
"""Winners of about this many to a simulated batch (their real batches' headers ride on them)."""
TICKS = 32
"""A window's folded bytes are appended in this many steps, as the records they stand for arrive."""
CHUNK_EVENTS = 20_000
MARKERS_PER_PARTITION = 50_000
"""The most transaction markers a folded run writes to a partition; beyond, a marker stands for several."""


@dataclass(frozen=True)
class Folding:
    """A folded run's sampling: every ``stride``-th key from ``offset`` is followed, the broker scaled by 1/stride."""

    stride: int = 1
    offset: int = 0

    @property
    def fraction(self) -> float:
        return 1.0 / self.stride


@dataclass(frozen=True)
class SegmentLimits:
    """What ends a window: the (scaled) segment bytes and the longest a segment stays active (``maxSegmentMs``)."""

    segment_bytes: int
    segment_ms: int


@dataclass
class _Inserts:
    """The followed keys the growing key space adds, over the whole horizon: id, creation time, partition."""

    ids: numpy.ndarray
    times: numpy.ndarray
    partitions: numpy.ndarray


@dataclass(frozen=True)
class _Batches:
    """A window's winner batches, by column: slot, rows of the winners in it, records, winners' positions."""

    slot: numpy.ndarray
    first_row: numpy.ndarray
    end_row: numpy.ndarray
    size: numpy.ndarray
    positions: numpy.ndarray
    """Each winner's position in its batch (by row)."""


@dataclass(frozen=True)
class _Plan:
    """A window's offsets: each real batch's base offset, append time and simulated batch (by column), and each
    tick's stretch of unkept records (tick, first offset, last offset, append time)."""

    base: numpy.ndarray
    slot_end: numpy.ndarray
    group: numpy.ndarray
    folds: list[tuple[int, int, int, int]]
    unkept: numpy.ndarray
    """Each tick's records that are no winner (about): what its folded record stands for."""


@dataclass
class _Partition:
    """One partition's place in its stream: where its next window starts, its next offset, its sequence."""

    window_start: int = 0
    next_offset: int = 0
    sequence: int = 0
    done: bool = False


@dataclass
class FoldedTopic(TopicSource):
    """One topic's folded stream, a window of one partition at a time."""

    folding: Folding
    limits: SegmentLimits
    horizon_ms: int
    ratio: float = 1.0
    """Stored bytes per uncompressed byte of the topic's codec (1: uncompressed); values and folded bytes are
    scaled by it and the batches stored uncompressed."""
    keys: numpy.ndarray = field(init=False)
    key_partition: numpy.ndarray = field(init=False)
    inserts: _Inserts = field(init=False)
    state: list[_Partition] = field(init=False)
    shares: numpy.ndarray = field(init=False)
    head_prefix: numpy.ndarray = field(init=False)
    loser_bytes: float = field(init=False)

    def __post_init__(self) -> None:
        load, folding = self.load, self.folding
        self.keys = numpy.arange(folding.offset % folding.stride, load.keys, folding.stride, dtype=numpy.int64)
        self.key_partition = partitions_of(self.keys, width=load.key_bytes, partitions=self.partitions)
        self.inserts = self._draw_inserts()
        self.state = [_Partition() for _ in range(self.partitions)]
        self.shares, self.head_prefix = self._partition_weights()
        self.loser_bytes = _mean_record_size_of_lengths(load, self.ratio)

    # -- the key space -----------------------------------------------------------------------------
    def _draw_inserts(self) -> _Inserts:
        """Followed new keys: the i-th new key is created when ``i + u`` inserts are expected (u uniform)."""
        load, stride = self.load, self.folding.stride
        total = load.inserts * float(self.curve.expected(self.horizon_ms))
        first = (self.folding.offset - load.keys) % stride
        index = numpy.arange(first, int(total), stride, dtype=numpy.int64)
        times = self.curve.time_of((index + self.rng.random(len(index))) / load.inserts) if len(index) else index
        ids = load.keys + index
        parts = partitions_of(ids, width=load.key_bytes, partitions=self.partitions)
        return _Inserts(ids, numpy.asarray(times, dtype=float), parts)

    def _key_count(self, t_ms: float) -> float:
        return self.load.keys + self.load.inserts * float(self.curve.expected(t_ms))

    def _weights(self, ids: numpy.ndarray, size: float) -> numpy.ndarray:
        if self.load.key_distribution == "zipf":
            s = self.load.zipf_exponent
            return (ids.astype(float) + 1) ** -s / harmonic(int(size), s)
        return numpy.full(len(ids), 1.0 / size)

    def _partition_weights(self) -> tuple[numpy.ndarray, numpy.ndarray]:
        """Each partition's share of the initial keys' weight, and (Zipf) per-partition prefix sums of
        ``(rank + 1) ** -s`` over the first ranks (the hot keys' share)."""
        load, parts = self.load, self.partitions
        if parts == 1:
            shares = numpy.ones(1)
        elif load.keys <= HEAD_RANKS or load.key_distribution == "zipf":
            ids = numpy.arange(min(load.keys, HEAD_RANKS))
            weights = self._weights(ids, load.keys)
            owners = partitions_of(ids, width=load.key_bytes, partitions=parts)
            shares = numpy.bincount(owners, weights, parts).astype(float)
            shares += (1 - shares.sum()) / parts
        else:
            shares = numpy.full(parts, 1.0 / parts)
        prefix = numpy.zeros((parts, 1))
        if load.key_distribution == "zipf" and self.folding.stride > 1:
            ids = numpy.arange(min(load.keys, HEAD_RANKS))
            owner = partitions_of(ids, width=load.key_bytes, partitions=parts)
            raw = (ids + 1.0) ** -load.zipf_exponent
            prefix = numpy.zeros((parts, len(ids) + 1))
            for p in range(parts):
                prefix[p, 1:] = numpy.cumsum(numpy.where(owner == p, raw, 0.0))
        return shares, prefix

    # -- windows -------------------------------------------------------------------------------------
    def next_window(self, p: int) -> list[Event]:
        """The events of partition ``p``'s next window (empty once the horizon is reached)."""
        state = self.state[p]
        if state.done:
            return []
        start = state.window_start
        end, forced = self._window_end(p, start)
        state.window_start = end
        state.done = end >= self.horizon_ms
        return _Window(self, p, start, end, forced).events()

    def _window_end(self, p: int, start: int) -> tuple[int, int | None]:
        """Where the window ends, and the bytes it must then hold (None: what its records come to)."""
        slot = self.slot_ms
        per_record = self.loser_bytes + self._header_share(p, start)
        records = self.limits.segment_bytes / per_record * self.folding.stride / self.shares[p]
        base = float(self.curve.expected(start))
        by_size = float(self.curve.time_of(numpy.array([base + records]))[0])
        by_time = start + self.limits.segment_ms
        end = min(by_size, by_time, self.horizon_ms)
        end = max(start + slot, math.floor(end / slot) * slot)
        if end >= self.horizon_ms:
            return self.horizon_ms, None
        forced = self.limits.segment_bytes - (RECORD_BATCH_OVERHEAD - 1) if by_size < by_time else None
        return end, forced

    @property
    def marker_ms(self) -> int:
        """A sampled transaction's length: the commit interval times the stride (as many records as a real one),
        longer when needed to keep markers to :data:`MARKERS_PER_PARTITION` over the horizon."""
        txn = self.load.producer.transactions
        interval = (txn.commit_interval_ms if txn else self.load.producer.linger_ms) * self.folding.stride
        least = -(-self.horizon_ms // MARKERS_PER_PARTITION)
        return max(interval, -(-least // self.slot_ms) * self.slot_ms)

    @property
    def slot_ms(self) -> int:
        """A sampled partition's batch slot: ``linger.ms`` times the stride (a slot then holds as many records)."""
        return self.load.producer.linger_ms * self.folding.stride

    def records_per_slot(self, p: int, t_ms: numpy.ndarray) -> numpy.ndarray:
        """Expected records of partition ``p`` in one (sampled) slot at each of ``t_ms``: a real slot's count."""
        rate = self.curve.rate_per_second(numpy.asarray(t_ms, dtype=float)) / 1000
        return numpy.asarray(rate * self.shares[p] * self.load.producer.linger_ms)

    def batch_records(self) -> int:
        """The most records a batch holds (``batch.size`` over a record's mean bytes)."""
        return max(1, int(self.load.producer.batch_bytes // self.loser_bytes))

    def _header_share(self, p: int, t_ms: float) -> float:
        """A record's share of batch headers: 61 bytes over the mean records per batch."""
        per_slot = max(float(self.records_per_slot(p, numpy.array([t_ms]))[0]), 1e-9)
        return RECORD_BATCH_OVERHEAD * _batches_per_slot(per_slot, self.batch_records()) / per_slot


@dataclass
class _Window:
    """One window of one partition: its winners, their batches, and the folded batches between them."""

    topic: FoldedTopic
    p: int
    start: int
    end: int
    forced_bytes: int | None
    losers: float = 0.0
    """Records of the window that a later one of their key supersedes within it (sampled world)."""

    def events(self) -> list[Event]:
        winners = self._winners()
        if winners is None:
            return self._quiet()
        batches = self._winner_batches(winners)
        events = self._with_folded(batches, winners)
        events += self._markers(numpy.array([e.append_ms for e in events]))
        events.sort(key=lambda e: (e.append_ms, isinstance(e, TxnMarker)))
        return events

    def _markers(self, appended: numpy.ndarray) -> list[Event]:
        """A marker at the end of each (sampled) transaction that wrote to the partition: one per ``marker_ms``."""
        topic = self.topic
        txn = topic.load.producer.transactions
        if txn is None or not len(appended):
            return []
        every = topic.marker_ms
        ends = numpy.unique(numpy.minimum((numpy.maximum(appended - 1, 0) // every + 1) * every, self.end))
        aborted = topic.rng.random(len(ends)) < txn.abort_share
        return [
            TxnMarker(topic.name, self.p, int(t), topic.producer_id, 0, commit=not a)
            for t, a in zip(ends, aborted, strict=True)
        ]

    # -- winners -------------------------------------------------------------------------------------
    def _winners(self) -> dict[str, numpy.ndarray] | None:
        topic, load, rng = self.topic, self.topic.load, self.topic.rng
        mine = topic.key_partition == self.p
        ids, created = topic.keys[mine], numpy.full(int(mine.sum()), -1.0)
        grown = (topic.inserts.partitions == self.p) & (topic.inserts.times < self.end)
        ids = numpy.concatenate((ids, topic.inserts.ids[grown]))
        created = numpy.concatenate((created, topic.inserts.times[grown]))
        share = load.tombstone_share + load.updates
        begin = numpy.maximum(self.start, created)
        expected = topic.curve.expected(numpy.concatenate((begin, [self.end, self.start])))
        span = expected[-2] - expected[:-2]
        weights = topic._weights(ids, topic._key_count((self.start + self.end) / 2))
        mu = share * weights * numpy.maximum(span, 0.0)
        counts = rng.poisson(mu)
        new = created >= self.start
        total = counts + new
        hot = (mu >= HOT_RECORDS) if topic.folding.stride > 1 else numpy.zeros(len(ids), dtype=bool)
        self.losers = float(numpy.maximum(total[~hot] - 1, 0).sum()) + self._hot_records(expected[-2] - expected[-1])
        self.losers -= float((hot & (total > 0)).sum())
        self.losers = max(self.losers, 0.0)
        chosen = total > 0
        if not chosen.any():
            return None
        return self._last_records(
            ids[chosen], begin[chosen], expected[:-2][chosen], span[chosen], counts[chosen], share
        )

    def _hot_records(self, records: float) -> float:
        """Records of the partition's hot keys in the window, in the sampled world (their expected count)."""
        topic, load = self.topic, self.topic.load
        if topic.folding.stride == 1:
            return 0.0
        share = load.tombstone_share + load.updates
        size = topic._key_count((self.start + self.end) / 2)
        if load.key_distribution == "zipf":
            s = load.zipf_exponent
            # hot ranks: share * (k + 1) ** -s / H * records >= HOT_RECORDS
            bound = (HOT_RECORDS * harmonic(int(size), s) / max(share * records, 1e-12)) ** (-1 / s)
            ranks = int(min(max(bound, 0), topic.head_prefix.shape[1] - 1))
            hot_weight = topic.head_prefix[self.p, ranks] / harmonic(int(size), s)
        else:
            hot_weight = topic.shares[self.p] if share * records / size >= HOT_RECORDS else 0.0
        return float(share * records * hot_weight / topic.folding.stride)

    def _last_records(
        self,
        ids: numpy.ndarray,
        begin: numpy.ndarray,
        at_begin: numpy.ndarray,
        span: numpy.ndarray,
        counts: numpy.ndarray,
        share: float,
    ) -> dict[str, numpy.ndarray]:
        """Each winner's time (the last of its ``counts`` records, or its creation), kind and value size."""
        topic, load, rng = self.topic, self.topic.load, self.topic.rng
        u = rng.random(len(ids)) ** (1.0 / numpy.maximum(counts, 1))
        times = numpy.where(counts > 0, topic.curve.time_of(at_begin + u * span), begin)
        times = numpy.clip(times, self.start, self.end - 1e-3)
        tombstone = (counts > 0) & (rng.random(len(ids)) < load.tombstone_share / max(share, 1e-12))
        drawn = rng.integers(load.value_bytes.min_bytes, load.value_bytes.max_bytes + 1, len(ids))
        drawn[tombstone] = -1
        lengths = numpy.where(tombstone, -1, numpy.round(drawn * topic.ratio)).astype(numpy.int64)
        order = numpy.argsort(times, kind="stable")
        return {"ids": ids[order], "times": times[order], "lengths": lengths[order], "drawn": drawn[order]}

    # -- batches -------------------------------------------------------------------------------------
    def _winner_batches(self, winners: dict[str, numpy.ndarray]) -> _Batches:
        """Winners grouped by the batch they were produced in: its slot, its record count, their positions."""
        topic, rng = self.topic, self.topic.rng
        slot_ms, cap = topic.slot_ms, topic.batch_records()
        slots = numpy.floor(winners["times"] / slot_ms).astype(numpy.int64)
        groups, first, counts = numpy.unique(slots, return_index=True, return_counts=True)
        expected = numpy.maximum(topic.records_per_slot(self.p, (groups + 0.5) * slot_ms), 0.0)
        in_slot = numpy.maximum(counts, rng.poisson(expected))
        positions = numpy.empty(len(slots), dtype=numpy.int64)
        single = counts == 1
        positions[first[single]] = rng.integers(0, in_slot[single])
        for g in numpy.flatnonzero(~single).tolist():
            chosen = rng.choice(int(in_slot[g]), int(counts[g]), replace=False)
            positions[first[g] : first[g] + counts[g]] = numpy.sort(chosen)
        group = numpy.repeat(numpy.arange(len(groups)), counts)
        sub = positions // cap
        starts = numpy.flatnonzero(numpy.concatenate(([True], (group[1:] != group[:-1]) | (sub[1:] != sub[:-1]))))
        owner = group[starts]
        return _Batches(
            slot=groups[owner],
            first_row=starts,
            end_row=numpy.concatenate((starts[1:], [len(slots)])),
            size=numpy.minimum(cap, in_slot[owner] - sub[starts] * cap),
            positions=positions - sub * cap,
        )

    def _with_folded(self, batches: _Batches, winners: dict[str, numpy.ndarray]) -> list[Event]:
        """The window's events in offset order: at the start of each tick (1/:data:`TICKS` of the window) a folded
        batch standing for the tick's records that went unkept, and the real batches' winners at their offsets,
        up to :data:`MERGED_WINNERS` to a simulated batch, never across a tick."""
        topic = self.topic
        plan = self._plan(batches)
        stamps = self._stamps(batches, winners)
        real = self._real_sizes(batches, winners, stamps)
        folded_total = self._folded_bytes(len(plan.base), int(real.sum()) + RECORD_BATCH_OVERHEAD * len(plan.base))
        records = numpy.array([plan.unkept[tick] for tick, _, _, _ in plan.folds], dtype=float)
        allocation = _allocate(folded_total, records, topic.load.key_bytes)
        padded = real.copy()
        first_of_group = numpy.concatenate(([True], plan.group[1:] != plan.group[:-1]))
        # a real batch's header rides on its last winner; a simulated batch's own header stands for its first
        padded[(batches.end_row - 1)[~first_of_group]] += RECORD_BATCH_OVERHEAD
        values = self._values(plan, batches, winners, stamps, padded)
        chain_key = int(winners["ids"][-1])
        events: list[Event] = [
            self._folded_batch(first, last, at_ms, size, chain_key, plan.unkept[tick])
            for (tick, first, last, at_ms), size in zip(plan.folds, allocation, strict=True)
            if size is not None
        ]
        for g in range(int(plan.group[-1]) + 1):
            members = numpy.flatnonzero(plan.group == g)
            events.append(self._merged_batch(plan, members, batches, winners, stamps, values))
        events.sort(key=lambda e: (e.base_offset or 0) if isinstance(e, ProducedBatch) else 0)
        return events

    def _plan(self, batches: _Batches) -> _Plan:
        """Offsets and times of the window's records: each real batch where its slot's records begin (after any
        before it), each tick's stretch of unkept records from where the tick's records begin to the next real
        batch or tick, and the simulated batch each real batch goes to."""
        topic, state = self.topic, self.topic.state[self.p]
        slot_ms = topic.slot_ms
        tick_ms = max(slot_ms, (self.end - self.start) // TICKS)
        tick_times = numpy.arange(self.start, self.end, tick_ms)
        times = numpy.concatenate((tick_times, batches.slot * slot_ms))
        expected = topic.curve.expected(numpy.concatenate(([self.start], times)))
        share = topic.shares[self.p] / topic.folding.stride
        planned = (state.next_offset + numpy.floor((expected[1:] - expected[0]) * share)).astype(numpy.int64)
        ticks, real = planned[: len(tick_times)].tolist(), planned[len(tick_times) :].tolist()
        base = numpy.zeros(len(real), dtype=numpy.int64)
        group = numpy.zeros(len(real), dtype=numpy.int64)
        slot_end = numpy.minimum((batches.slot + 1) * slot_ms, topic.horizon_ms)
        folds: list[tuple[int, int, int, int]] = []
        free, tick, g, in_group, appended = state.next_offset, -1, -1, MERGED_WINNERS, self.start
        sizes, slots = batches.size.tolist(), batches.slot.tolist()
        counts = (batches.end_row - batches.first_row).tolist()
        pending = -1  # a tick whose stretch of unkept records is still to come (its start held a real batch)
        for i in range(len(real)):
            # the ticks that begin before this real batch's slot: each a stretch of unkept records up to the
            # next tick or this batch, or, when that is empty, at the tick's first gap between its real batches
            # (none follows the window's last winner)
            while tick + 1 < len(ticks) and tick_times[tick + 1] <= slots[i] * slot_ms:
                tick += 1
                first = max(free, ticks[tick])
                last = min(real[i], ticks[tick + 1] if tick + 1 < len(ticks) else real[i]) - 1
                pending = tick
                if last >= first:
                    # appended half way through its tick (the records it stands for arrive all along it), the
                    # window's first at its start (it rolls the segment), never after the batch that follows it
                    middle = int(tick_times[tick]) + (tick_ms // 2 if tick else 0)
                    folds.append((tick, first, last, max(appended, min(middle, int(slot_end[i])))))
                    free, pending = last + 1, -1
                in_group = MERGED_WINNERS
            if pending >= 0 and real[i] > free:
                folds.append((pending, free, real[i] - 1, appended))
                free, pending, in_group = real[i], -1, MERGED_WINNERS
            base[i] = max(real[i], free)
            free = base[i] + sizes[i]
            if in_group + counts[i] > MERGED_WINNERS:
                g, in_group = g + 1, 0
            group[i], in_group, appended = g, in_group + counts[i], int(slot_end[i])
        state.next_offset = int(free)
        kept = numpy.bincount(
            numpy.minimum((batches.slot * slot_ms - self.start) // tick_ms, len(ticks) - 1).clip(0),
            weights=batches.end_row - batches.first_row,
            minlength=len(ticks),
        )
        spans = numpy.diff(numpy.array([*ticks, free], dtype=float))
        return _Plan(base, slot_end, group, folds, numpy.maximum(spans - kept, 0.0))

    def _values(
        self,
        plan: _Plan,
        batches: _Batches,
        winners: dict[str, numpy.ndarray],
        stamps: numpy.ndarray,
        targets: numpy.ndarray,
    ) -> numpy.ndarray:
        """Each winner's value length in its simulated batch (deltas from the batch's first offset and first
        timestamp) that makes it ``targets`` bytes long."""
        counts = batches.end_row - batches.first_row
        groups = plan.group
        first_of_group = numpy.concatenate(([True], groups[1:] != groups[:-1]))
        head = numpy.flatnonzero(first_of_group)
        group_of_batch = numpy.cumsum(first_of_group) - 1
        batch_of_row = numpy.repeat(numpy.arange(len(counts)), counts)
        offsets = numpy.repeat(plan.base, counts) + batches.positions
        head_of_row = head[group_of_batch[batch_of_row]]
        first_offset = plan.base[head_of_row]
        first_stamp = stamps[batches.first_row[head_of_row]]
        key_bytes = self.topic.load.key_bytes
        return _value_lengths(targets, offsets - first_offset, stamps - first_stamp, key_bytes, winners["lengths"])

    def _real_sizes(self, batches: _Batches, winners: dict[str, numpy.ndarray], stamps: numpy.ndarray) -> numpy.ndarray:
        """Each winner's bytes in its real batch (deltas from that batch's first offset and first timestamp)."""
        topic = self.topic
        counts = batches.end_row - batches.first_row
        first_stamp = numpy.repeat((batches.slot + 1) * topic.slot_ms - topic.load.producer.linger_ms, counts)
        keys = numpy.full(len(stamps), topic.load.key_bytes)
        return numpy.asarray(record_sizes_of_lengths(batches.positions, stamps - first_stamp, keys, winners["lengths"]))

    def _folded_batch(self, first: int, last: int, at_ms: int, size: int, key: int, records: float) -> ProducedBatch:
        """One record at ``last`` in a batch spanning ``[first, last]``, ``size`` bytes with its batch's header:
        the ``records`` unkept records of a tick."""
        value = _value_length(size - RECORD_BATCH_OVERHEAD, last - first, self.topic.load.key_bytes)
        return ProducedBatch(
            self.topic.name,
            self.p,
            at_ms,
            numpy.array([key], dtype=numpy.int64),
            numpy.array([at_ms], dtype=numpy.int64),
            numpy.array([value], dtype=numpy.int64),
            offsets=numpy.array([last], dtype=numpy.int64),
            base_offset=first,
            last_offset=last,
            folded=0,
            weights=numpy.array([max(records, 1.0)]),
            model_lengths=numpy.zeros(1, dtype=numpy.int64),
            **self._producer_fields(last - first + 1),  # type: ignore[arg-type]
        )

    def _merged_batch(
        self,
        plan: _Plan,
        members: numpy.ndarray,
        batches: _Batches,
        winners: dict[str, numpy.ndarray],
        stamps: numpy.ndarray,
        values: numpy.ndarray,
    ) -> ProducedBatch:
        """One simulated batch holding the winners of real batches ``members``, each as long as it is in its real
        batch (with its batch's header, but for the first)."""
        rows = numpy.arange(int(batches.first_row[members[0]]), int(batches.end_row[members[-1]]))
        counts = batches.end_row[members] - batches.first_row[members]
        offsets = numpy.repeat(plan.base[members], counts) + batches.positions[rows]
        first = int(plan.base[members[0]])
        last = int(plan.base[members[-1]] + batches.size[members[-1]] - 1)
        return ProducedBatch(
            self.topic.name,
            self.p,
            int(plan.slot_end[members[-1]]),
            winners["ids"][rows],
            stamps[rows],
            values[rows],
            offsets=offsets,
            base_offset=first,
            last_offset=last,
            model_lengths=winners["drawn"][rows],
            **self._producer_fields(last - first + 1),  # type: ignore[arg-type]
        )

    def _stamps(self, batches: _Batches, winners: dict[str, numpy.ndarray]) -> numpy.ndarray:
        """Each winner's timestamp: its time within its sampled slot, squeezed into the slot's last ``linger.ms``
        (a real batch's records are that close)."""
        topic = self.topic
        slot = numpy.repeat(batches.slot, batches.end_row - batches.first_row)
        slot_start, slot_end = slot * topic.slot_ms, (slot + 1) * topic.slot_ms
        linger = topic.load.producer.linger_ms
        inside = (winners["times"] - slot_start) / topic.folding.stride
        stamps = numpy.floor(slot_end - linger + inside).astype(numpy.int64)
        return numpy.asarray(numpy.clip(stamps, slot_end - linger, slot_end - 1))

    def _folded_bytes(self, winner_batches: int, winner_bytes: int) -> float:
        """The bytes the folded records carry: what the window must hold beyond its winners' real batches."""
        if self.forced_bytes is not None:
            return max(0.0, self.forced_bytes - winner_bytes)
        topic = self.topic
        per_slot = max(float(topic.records_per_slot(self.p, numpy.array([(self.start + self.end) / 2]))[0]), 1e-9)
        slots = (self.end - self.start) / topic.slot_ms
        batches = slots * _batches_per_slot(per_slot, topic.batch_records())
        headers = max(batches - winner_batches, 0.0) * RECORD_BATCH_OVERHEAD
        return self.losers * topic.loser_bytes + headers

    def _producer_fields(self, records: int) -> dict[str, int | bool]:
        producer, state = self.topic.load.producer, self.topic.state[self.p]
        if not (producer.idempotent or producer.transactions is not None):
            return {}
        sequence = state.sequence
        state.sequence += records
        return {
            "producer_id": self.topic.producer_id,
            "producer_epoch": 0,
            "base_sequence": sequence,
            "transactional": producer.transactions is not None,
        }

    def _quiet(self) -> list[Event]:
        """A window none of the followed keys wrote to: nothing to append."""
        return []


def _allocate(total: float, gap_records: numpy.ndarray, key_bytes: int) -> list[int | None]:
    """``total`` bytes over the groups in proportion to their stretches' records; a share too small for a record
    passes on to the next group (the last group with records takes what is left)."""
    smallest = record_size_of_lengths(0, 0, key_bytes, 0)
    out: list[int | None] = [None] * len(gap_records)
    records = float(gap_records.sum())
    if total < smallest or records <= 0:
        return out
    carry = 0.0
    last = int(numpy.flatnonzero(gap_records > 0)[-1])
    for i, count in enumerate(gap_records.tolist()):
        if count <= 0:
            continue
        carry += total * count / records
        if carry >= smallest or i == last:
            out[i] = int(round(carry)) if carry >= smallest else None
            carry = 0.0
    return out


def _value_lengths(
    sizes: numpy.ndarray,
    offset_deltas: numpy.ndarray,
    time_deltas: numpy.ndarray,
    key_bytes: int,
    lengths: numpy.ndarray,
) -> numpy.ndarray:
    """The value lengths that make each record ``sizes`` bytes long at its deltas (or just under, where a varint's
    width makes that size impossible); tombstones (length -1) stay tombstones."""
    keys = numpy.full(len(sizes), key_bytes, dtype=numpy.int64)
    offset_deltas, time_deltas = offset_deltas.astype(numpy.int64), time_deltas.astype(numpy.int64)
    values = numpy.maximum(sizes - key_bytes - 12, 0).astype(numpy.int64)
    for _ in range(3):
        overhead = record_sizes_of_lengths(offset_deltas, time_deltas, keys, values) - values
        values = numpy.maximum(sizes - overhead, 0)
    over = record_sizes_of_lengths(offset_deltas, time_deltas, keys, values) > sizes
    while over.any():
        values[over & (values > 0)] -= 1
        over = (record_sizes_of_lengths(offset_deltas, time_deltas, keys, values) > sizes) & (values > 0)
    return numpy.where(lengths < 0, -1, values)


def _value_length(size: int, offset_delta: int, key_bytes: int) -> int:
    """One record's value length that makes it ``size`` bytes long at ``offset_delta`` (or just under)."""
    value = max(0, size - key_bytes - 20)
    while value > 0 and record_size_of_lengths(offset_delta, 0, key_bytes, value) > size:
        value -= 1
    while record_size_of_lengths(offset_delta, 0, key_bytes, value + 1) <= size:
        value += 1
    return value


def _batches_per_slot(per_slot: float, cap: int) -> float:
    """Expected batches of a slot with Poisson(``per_slot``) records, a batch holding at most ``cap``."""
    top = int(per_slot + 10 * math.sqrt(per_slot) + 20)
    counts = numpy.arange(top + 1)
    log_pmf = counts * math.log(max(per_slot, 1e-300)) - per_slot - _log_factorials(top)
    return float(numpy.sum(numpy.exp(log_pmf) * numpy.ceil(counts / cap)))


def _log_factorials(top: int) -> numpy.ndarray:
    return numpy.concatenate(([0.0], numpy.cumsum(numpy.log(numpy.arange(1, top + 1)))))


def _mean_record_size_of_lengths(load: TopicLoad, ratio: float) -> float:
    """A record's mean bytes (one-byte deltas), tombstones at their share, values scaled by ``ratio``."""
    sizes = numpy.linspace(load.value_bytes.min_bytes, load.value_bytes.max_bytes, 64)
    values = (sizes * ratio).round().astype(numpy.int64)
    ones = numpy.ones(len(values), dtype=numpy.int64)
    sizes = record_sizes_of_lengths(ones, ones, ones * load.key_bytes, values)
    tomb = record_size_of_lengths(1, 1, load.key_bytes, -1)
    return float(sizes.mean()) * (1 - load.tombstone_share) + tomb * load.tombstone_share


def folded_events(
    model: ProduceModel,
    partitions: Mapping[str, int],
    limits: Mapping[str, SegmentLimits],
    folding: Folding,
    *,
    start_ms: int,
    horizon_ms: int,
    ratios: Mapping[str, float] | None = None,
) -> Iterator[list[Event]]:
    """Every topic's folded windows, merged into append order, in chunks of about :data:`CHUNK_EVENTS` events."""
    topics = [
        FoldedTopic(*source, folding, limits[source[0]], horizon_ms, (ratios or {}).get(source[0], 1.0))
        for source in topic_sources(model, partitions, start_ms=start_ms, horizon_ms=horizon_ms)
    ]
    queues: dict[tuple[int, int], list[Event]] = {}
    heap: list[tuple[int, int, int, int]] = []
    for t, topic in enumerate(topics):
        for p in range(topic.partitions):
            _refill(topics, queues, heap, t, p)
    chunk: list[Event] = []
    while heap:
        _, _, t, p = heapq.heappop(heap)
        queue = queues[(t, p)]
        chunk.append(queue.pop())
        if queue:
            heapq.heappush(heap, (queue[-1].append_ms, _kind(queue[-1]), t, p))
        else:
            _refill(topics, queues, heap, t, p)
        if len(chunk) >= CHUNK_EVENTS:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _kind(event: Event) -> int:
    return 1 if isinstance(event, TxnMarker) else 0


def _refill(
    topics: list[FoldedTopic],
    queues: dict[tuple[int, int], list[Event]],
    heap: list[tuple[int, int, int, int]],
    t: int,
    p: int,
) -> None:
    """The partition's next non-empty window, reversed (popped from the end), onto the heap."""
    topic = topics[t]
    while not topic.state[p].done:
        events = topic.next_window(p)
        if events:
            queues[(t, p)] = events[::-1]
            heapq.heappush(heap, (events[0].append_ms, _kind(events[0]), t, p))
            return
