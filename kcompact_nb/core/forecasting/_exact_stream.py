"""Every record a produce model writes, drawn one by one and batched as its producer batches them.

Per topic and chunk of time: the number of records is Poisson with the rate curve's expected count, their times
follow the curve, each is a tombstone, an update or a new key (the key space grows), keys are drawn uniformly or
by Zipf's law over the keys that exist at that moment, value sizes uniformly. Records go to their key's
partition (murmur2), and a partition's records of one ``linger.ms`` slot form batches of at most ``batch.size``
bytes, appended at the slot's end. Transactions end on their commit interval's grid with a marker in every
partition they wrote. The same seed gives the same records.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy

from kcompact_nb.core.forecasting._events import Event, ProducedBatch, TxnMarker
from kcompact_nb.core.forecasting._keys import partitions_of, zipf_ids
from kcompact_nb.core.forecasting._produce_model import ProduceModel, ProduceModelError, TopicLoad
from kcompact_nb.core.forecasting._rate import RateCurve

CHUNK_RECORDS = 50_000
"""About how many records a topic's stream draws at a time."""
PRODUCER_ID_BASE = 1000
"""Producer ids the model's producers get: the first topic's 1000, the next 1001, ..."""
RECORD_FIXED_BYTES = 8
"""A record's bytes besides its key and value, about (length, attributes, deltas, lengths, header count)."""


def topic_rng(seed: int, topic: str, stream: int = 0) -> numpy.random.Generator:
    """The random generator of one topic's draws (stable whatever the other topics are)."""
    return numpy.random.default_rng([seed, zlib.crc32(topic.encode()), stream])


@dataclass
class TopicSource:
    """What every stream of one topic's records starts from: its load, partitions, rate curve, random generator and
    producer id."""

    name: str
    load: TopicLoad
    partitions: int
    curve: RateCurve
    rng: numpy.random.Generator
    producer_id: int


SourceFields = tuple[str, TopicLoad, int, RateCurve, numpy.random.Generator, int]


def topic_sources(
    model: ProduceModel, partitions: Mapping[str, int], *, start_ms: int, horizon_ms: int
) -> list[SourceFields]:
    """Each topic's :class:`TopicSource` fields, in the model's order (which numbers the producers)."""
    return [
        (
            name,
            load,
            partitions[name],
            RateCurve.of(load, start_ms=start_ms, horizon_ms=horizon_ms),
            topic_rng(model.seed, name),
            PRODUCER_ID_BASE + index,
        )
        for index, (name, load) in enumerate(model.topics.items())
    ]


@dataclass
class TopicStream(TopicSource):
    """The state of one topic's records as they are drawn: its key space and its producer's sequences."""

    key_count: int = field(init=False)
    sequences: numpy.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.key_count = self.load.keys
        self.sequences = numpy.zeros(self.partitions, dtype=numpy.int64)

    @property
    def grid_ms(self) -> int:
        """The producer's ``linger.ms``, or its transactions' commit interval (a multiple of it)."""
        txn = self.load.producer.transactions
        return self.load.producer.linger_ms if txn is None else txn.commit_interval_ms

    def chunk_ms(self) -> int:
        """About :data:`CHUNK_RECORDS` records' time."""
        return int(CHUNK_RECORDS / max(self.load.records_per_second / 1000, 1e-9))

    def events(self, start: int, end: int) -> list[Event]:
        """The batches (and markers) of records produced in ``[start, end)`` ms (whole slots and transactions)."""
        times, key_ids, lengths = self._records(start, end)
        return self._batches(times, key_ids, lengths, end) + self._markers(end, times, key_ids)

    def _records(self, start: int, end: int) -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        curve, rng, load = self.curve, self.rng, self.load
        low, high = curve.expected(numpy.array([start, end], dtype=float))
        count = int(rng.poisson(max(high - low, 0.0)))
        if count == 0:
            empty = numpy.zeros(0, dtype=numpy.int64)
            return empty, empty, empty
        uniforms = numpy.sort(rng.random(count))
        times = numpy.clip(numpy.floor(curve.time_of(low + uniforms * (high - low))), start, end - 1).astype(
            numpy.int64
        )
        kind = rng.random(count)
        tombstone = kind < load.tombstone_share
        insert = kind >= load.tombstone_share + load.updates
        key_ids = self._key_ids(insert)
        lengths = rng.integers(load.value_bytes.min_bytes, load.value_bytes.max_bytes + 1, count)
        lengths[tombstone] = -1
        return times, key_ids, lengths

    def _key_ids(self, insert: numpy.ndarray) -> numpy.ndarray:
        """Each record's key: a new key where ``insert``, else one of the keys existing at that moment."""
        sizes = self.key_count + numpy.cumsum(insert) - insert
        if self.load.key_distribution == "zipf":
            drawn = zipf_ids(self.rng, sizes, self.load.zipf_exponent)
        else:
            drawn = numpy.floor(self.rng.random(len(sizes)) * sizes).astype(numpy.int64)
        key_ids = numpy.where(insert, sizes, drawn)
        self.key_count += int(insert.sum())
        if self.key_count > 10**self.load.key_bytes:
            message = (
                f"topics.{self.name}.key_bytes: {self.load.key_bytes} digits cannot number the "
                f"{self.key_count:,} keys the growing key space reaches"
            )
            raise ProduceModelError(message)
        return key_ids

    def _batches(self, times: numpy.ndarray, key_ids: numpy.ndarray, lengths: numpy.ndarray, end: int) -> list[Event]:
        producer = self.load.producer
        partition = partitions_of(key_ids, width=self.load.key_bytes, partitions=self.partitions)
        approx = self.load.key_bytes + numpy.maximum(lengths, 0) + RECORD_FIXED_BYTES
        events: list[Event] = []
        for p in range(self.partitions):
            mine = numpy.flatnonzero(partition == p)
            if not len(mine):
                continue
            slots = times[mine] // producer.linger_ms
            for part in _split(slots, approx[mine], producer.batch_bytes):
                append_ms = min(int(slots[part[0]] + 1) * producer.linger_ms, end)
                events.append(self._batch(p, append_ms, mine[part], times, key_ids, lengths))
        return events

    def _batch(
        self,
        p: int,
        append_ms: int,
        rows: numpy.ndarray,
        times: numpy.ndarray,
        keys: numpy.ndarray,
        lengths: numpy.ndarray,
    ) -> ProducedBatch:
        producer = self.load.producer
        identified = producer.idempotent or producer.transactions is not None
        sequence = int(self.sequences[p])
        self.sequences[p] += len(rows)
        return ProducedBatch(
            self.name,
            p,
            append_ms,
            keys[rows],
            times[rows],
            lengths[rows],
            producer_id=self.producer_id if identified else -1,
            producer_epoch=0 if identified else -1,
            base_sequence=sequence if identified else -1,
            transactional=producer.transactions is not None,
            compression=producer.compression,
        )

    def _markers(self, end: int, times: numpy.ndarray, key_ids: numpy.ndarray) -> list[Event]:
        txn = self.load.producer.transactions
        if txn is None or not len(times):
            return []
        interval = txn.commit_interval_ms
        partition = partitions_of(key_ids, width=self.load.key_bytes, partitions=self.partitions)
        written = numpy.unique(numpy.stack([times // interval, partition]), axis=1)
        transactions = numpy.unique(written[0])
        aborted = self.rng.random(len(transactions)) < txn.abort_share
        index_of = dict(zip(transactions.tolist(), aborted.tolist(), strict=True))
        return [
            TxnMarker(
                self.name, int(p), min(int(i + 1) * interval, end), self.producer_id, 0, commit=not index_of[int(i)]
            )
            for i, p in written.T
        ]


def _split(slots: numpy.ndarray, sizes: numpy.ndarray, batch_bytes: int) -> Iterator[numpy.ndarray]:
    """Row indexes of each batch: a slot's records in order, a new batch whenever ``batch_bytes`` would be passed."""
    bounds = numpy.flatnonzero(numpy.diff(slots)) + 1
    for group in numpy.split(numpy.arange(len(slots)), bounds):
        total = numpy.cumsum(sizes[group])
        if total[-1] <= batch_bytes:
            yield group
            continue
        first, used = 0, 0
        for i in range(len(group)):
            if i > first and used + sizes[group[i]] > batch_bytes:
                yield group[first:i]
                first, used = i, 0
            used += sizes[group[i]]
        yield group[first:]


def exact_events(
    model: ProduceModel, partitions: Mapping[str, int], *, start_ms: int, horizon_ms: int
) -> Iterator[list[Event]]:
    """The model's batches and markers over ``horizon_ms``, a chunk of time at a time, each chunk in append order
    (ties: topics as declared, then partitions; a transaction's marker after its batches)."""
    streams = [
        TopicStream(*source) for source in topic_sources(model, partitions, start_ms=start_ms, horizon_ms=horizon_ms)
    ]
    grid = math.lcm(*(stream.grid_ms for stream in streams))
    step = max(grid, min(stream.chunk_ms() for stream in streams) // grid * grid)
    order = {stream.name: index for index, stream in enumerate(streams)}
    for start in range(0, horizon_ms, step):
        end = min(start + step, horizon_ms)
        events = [event for stream in streams for event in stream.events(start, end)]
        events.sort(key=lambda e: (e.append_ms, isinstance(e, TxnMarker), order[e.topic], e.partition))
        yield events
