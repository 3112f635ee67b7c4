"""The seeded differential workloads, one generator per category of the fidelity issue.

:func:`catalog` is what CI runs (every category, at least 50 workloads); :func:`catalog` with
``scale > 1`` multiplies the seeds per category for a longer, nightly-style run.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator

from kcompact_nb.core import NewRecord
from kcompact_nb.fidelity._workload import HOLD, STEP_MS, Phase, Produce, Round, Workload, keyed_records

HOUR_MS = 3_600_000
SMALL_DEDUPE_BUFFER_BYTES = 1_100_000
"""Just over Kafka's 1 MiB minimum per cleaner thread: 45,833 slots, 41,249 keys per pass at load factor 0.9."""


def _values(rng: random.Random, count: int, tombstone_ratio: float) -> list[bytes | None]:
    """Values of 1-40 bytes, or ``None`` (a tombstone) with probability ``tombstone_ratio``."""
    return [
        None if rng.random() < tombstone_ratio else bytes(rng.choice(b"abcdefgh") for _ in range(rng.randint(1, 40)))
        for _ in range(count)
    ]


def _keys(rng: random.Random, keys: int, count: int, distribution: str) -> list[int]:
    weights = [1.0 / (k + 1) ** 1.1 for k in range(keys)] if distribution == "zipf" else None
    return rng.choices(range(keys), weights=weights, k=count)


def _keyed_step(
    rng: random.Random, *, keys: int, count: int, distribution: str = "uniform", tombstone_ratio: float = 0.1,
    producer: str = "plain", batch_records: int = 1, start_ms: int = 0,
) -> Produce:  # fmt: skip
    records = keyed_records(
        _keys(rng, keys, count, distribution), _values(rng, count, tombstone_ratio), start_ms=start_ms
    )
    return Produce(records, producer, batch_records)


def generate_workload(
    seed: int,
    *,
    records: int = 60,
    keys: int = 10,
    distribution: str = "uniform",
    tombstone_ratio: float = 0.1,
    idempotent: bool = False,
    batch_records: int = 1,
    rounds: int = 1,
    category: str | None = None,
) -> Workload:
    """Keyed records (uniform or Zipf(1.1) keys, 1-40-byte values, some tombstones), one pass per round."""
    rng = random.Random(seed)
    producer = "idempotent" if idempotent else "plain"
    made = tuple(
        Round((_keyed_step(rng, keys=keys, count=records, distribution=distribution, tombstone_ratio=tombstone_ratio,
                           producer=producer, batch_records=batch_records),))
        for _ in range(rounds)
    )  # fmt: skip
    shape = f"{distribution}-{keys}keys-{records}records" + (f"-x{rounds}" if rounds > 1 else "")
    extras = ("-idempotent" if idempotent else "") + (f"-batches{batch_records}" if batch_records > 1 else "")
    category = category or ("multi-pass" if rounds > 1 else "idempotent" if idempotent else "keys")
    return Workload(f"seed{seed}-{shape}{extras}", category, seed, made)


def transactions_workload(seed: int, *, transactions: int = 4, keys: int = 8, rounds: int = 1) -> Workload:
    """Plain records, then committed and aborted transactions over the same keys (markers, aborted data)."""
    rng = random.Random(seed)
    made = []
    for _ in range(rounds):
        steps = [_keyed_step(rng, keys=keys, count=6, batch_records=2)]
        for t in range(transactions):
            outcome = "abort" if rng.random() < 0.4 else "commit"
            count = rng.randint(1, 5)
            steps.append(_keyed_step(rng, keys=keys, count=count, producer=outcome, start_ms=(t + 1) * 200))
        made.append(Round(tuple(steps)))
    suffix = f"-x{rounds}" if rounds > 1 else ""
    return Workload(f"seed{seed}-transactions-{transactions}txns-{keys}keys{suffix}", "transactions", seed, tuple(made))


def keyless_workload(seed: int, *, records: int = 40, keys: int = 6) -> Workload:
    """Keyless and keyed records written while the topic was ``delete``, then switched to ``compact``.

    The cleaner drops keyless records and counts them as invalid (spec 7.4).
    """
    rng = random.Random(seed)
    keyed = _keyed_step(rng, keys=keys, count=records, tombstone_ratio=0.05, batch_records=2).records
    mixed = tuple(NewRecord(None, r.value or b"v", timestamp=r.timestamp) if rng.random() < 0.3 else r for r in keyed)
    create = {"cleanup.policy": "delete", "retention.ms": "-1"}
    return Workload(f"seed{seed}-keyless-{records}records", "keyless", seed, (Round((Produce(mixed, "plain", 2),)),),
                    create=create)  # fmt: skip


def rule_b_workload(seed: int, *, keys: int = 6, records: int = 20, keyless: int = 3) -> Workload:
    """Keyed records, then a batch of ``keyless`` keyless records just before the trigger: a complete pass empties
    the batch that ends its cleaned range, which rule B keeps on 3.9.2-4.3 only (spec 7.3 rule B, KAFKA-17076).

    Written while the topic was ``delete`` (a compacted topic refuses keyless records), then switched to ``compact``.
    """
    rng = random.Random(seed)
    keyed = _keyed_step(rng, keys=keys, count=records, tombstone_ratio=0.1, batch_records=2)
    last = keyed.records[-1].timestamp or 0
    tail = tuple(NewRecord(None, b"keyless-%d" % i, timestamp=last + STEP_MS) for i in range(keyless))
    create = {"cleanup.policy": "delete", "retention.ms": "-1"}
    return Workload(f"seed{seed}-rule-b-{keys}keys-{keyless}keyless-last", "rule-b", seed,
                    (Round((keyed, Produce(tail, "plain", keyless))),), create=create)  # fmt: skip


def segment_bytes_workload(seed: int, *, config: str, limit_bytes: int = 1024, keys: int = 12) -> Workload:
    """Segments rolled by size (``config`` is ``segment.bytes``, refused below 1 MiB from 4.1, or from 4.1 its
    ``internal.segment.bytes``; KIP-1030), so passes group several cleaned segments into one (spec 8.1)."""
    rng = random.Random(seed)
    made = []
    for _ in range(2):
        order = _keys(rng, keys, 60, "uniform")
        # 1 ms apart: the 100 ms segment.ms never rolls inside a round, the size does
        records = keyed_records(order, _values(rng, len(order), 0.2), step_ms=1)
        made.append(Round((Produce(records, "plain", 2),)))
    name = f"seed{seed}-{config.replace('.', '-')}-{limit_bytes}-{keys}keys-x2"
    return Workload(name, "segment-bytes", seed, tuple(made), kept={config: str(limit_bytes)})


def _old_and_recent(rng: random.Random, keys: int, count: int) -> tuple[Produce, Produce]:
    """Records three hours before the recent ones (rolled apart by ``segment.ms``)."""
    old = _keyed_step(rng, keys=keys, count=count, batch_records=2)
    recent = _keyed_step(rng, keys=keys, count=count // 2, batch_records=2, start_ms=3 * HOUR_MS)
    return old, recent


def min_lag_workload(seed: int, *, keys: int = 8, records: int = 30) -> Workload:
    """``min.compaction.lag.ms`` of one hour: only the segments older than that are cleaned (spec 4.2)."""
    rng = random.Random(seed)
    old, recent = _old_and_recent(rng, keys, records)
    phase = Phase({"min.compaction.lag.ms": str(HOUR_MS)}, until_step=1)
    return Workload(f"seed{seed}-min-lag-{keys}keys", "min-lag", seed, (Round((old, recent), (phase,)),), clock="wall")


def max_lag_workload(seed: int, *, keys: int = 8, records: int = 40) -> Workload:
    """Ratio held at 1.0 but ``max.compaction.lag.ms`` overdue: the log is cleaned anyway (KIP-354, spec 5)."""
    rng = random.Random(seed)
    step = _keyed_step(rng, keys=keys, count=records, batch_records=2)
    phase = Phase({**HOLD, "max.compaction.lag.ms": "60000"})
    return Workload(f"seed{seed}-max-lag-{keys}keys", "max-lag", seed, (Round((step,), (phase,)),))


def compact_delete_workload(seed: int, *, keys: int = 8, records: int = 30) -> Workload:
    """``compact,delete``: retention removes the three-hour-old segments, then the cleaner compacts the rest.

    Retention runs first, with the cleaner still held, so the order of the two is the same on both sides.
    """
    rng = random.Random(seed)
    old, recent = _old_and_recent(rng, keys, records)
    policy = {"cleanup.policy": "compact,delete", "retention.ms": str(2 * HOUR_MS)}
    phases = (Phase({**HOLD, **policy}, wait="log_start", until_step=1), Phase(policy))
    create = {"cleanup.policy": "compact,delete", "retention.ms": "-1"}
    return Workload(f"seed{seed}-compact-delete-{keys}keys", "compact-delete", seed, (Round((old, recent), phases),),
                    create=create, clock="wall")  # fmt: skip


def partial_pass_workload(seed: int, *, keys: int = 45_000, updates: int = 5_000) -> Workload:
    """More distinct dirty keys than a just-over-1-MiB dedupe buffer holds: passes stop on a full map (spec 6.4)."""
    rng = random.Random(seed)
    order = list(range(keys))
    rng.shuffle(order)
    order += rng.choices(range(keys), k=updates)
    values = _values(rng, len(order), 0.02)
    step = Produce(keyed_records(order, values, step_ms=1), "plain", 500)
    return Workload(f"seed{seed}-partial-{keys}keys", "partial", seed, (Round((step,)),),
                    broker={"log.cleaner.dedupe.buffer.size": str(SMALL_DEDUPE_BUFFER_BYTES)})  # fmt: skip


def _compressible_values(rng: random.Random, count: int, tombstone_ratio: float) -> list[bytes | None]:
    """Values of about 40-200 bytes with repeated text, or tombstones: every codec shrinks a batch of them
    (kafka-python, the workloads' producer, sends a batch uncompressed when its codec would make it bigger)."""
    return [
        None if rng.random() < tombstone_ratio
        else b"price=%d;currency=EUR;" % rng.randint(1, 9_999)
        + b"note=" + rng.choice([b"ab", b"xyz", b"kafka"]) * rng.randint(5, 30)
        for _ in range(count)
    ]  # fmt: skip


def compression_workload(
    seed: int, *, codecs: tuple[str, ...], keys: int = 10, records: int = 60, batch_records: int = 5,
    tombstone_ratio: float = 0.15, rounds: int = 2, producer: str = "plain", kept: dict[str, str] | None = None,
) -> Workload:  # fmt: skip
    """Compressed batches: each round produces one step per codec in ``codecs`` (the producer compresses),
    ``batch_records`` per batch; ``kept`` topic configs (broker-side ``compression.type`` and levels) hold
    throughout. Passes rewrite partly kept batches with their codec and keep whole ones byte for byte."""
    rng = random.Random(seed)
    made = []
    for _ in range(rounds):
        steps = []
        for index, codec in enumerate(codecs):
            values = _compressible_values(rng, records, tombstone_ratio)
            step = keyed_records(_keys(rng, keys, records, "uniform"), values, start_ms=index * records * 20)
            steps.append(Produce(step, producer, batch_records, codec))
        made.append(Round(tuple(steps)))
    broker_side = "" if not kept else "-topic-" + "-".join(v for v in kept.values())
    shape = f"{'_'.join(codecs)}{broker_side}-{keys}keys-{records}records-batches{batch_records}-x{rounds}"
    extra = "" if producer == "plain" else f"-{producer}"
    return Workload(f"seed{seed}-compressed-{shape}{extra}", "compression", seed, tuple(made), kept=kept or {})


def transactional_compression_workload(seed: int, *, codec: str, transactions: int = 4, keys: int = 8) -> Workload:
    """Committed and aborted transactions whose batches the producer compresses, around plain compressed ones."""
    rng = random.Random(seed)
    made = []
    for _ in range(2):
        plain = keyed_records(_keys(rng, keys, 12, "uniform"), _compressible_values(rng, 12, 0.1))
        steps = [Produce(plain, "plain", 3, codec)]
        for t in range(transactions):
            outcome = "abort" if t % 3 == 1 else "commit"
            count = rng.randint(2, 6)
            records = keyed_records(
                _keys(rng, keys, count, "uniform"), _compressible_values(rng, count, 0.1), start_ms=(t + 1) * 200
            )
            steps.append(Produce(records, outcome, 1, codec))
        made.append(Round(tuple(steps)))
    return Workload(
        f"seed{seed}-compressed-{codec}-transactions-{transactions}txns-x2", "compression", seed, tuple(made)
    )


def _compression_category(offset: int) -> Iterator[Workload]:
    seed = offset + 1200
    for i, codec in enumerate(("gzip", "snappy", "lz4", "zstd")):  # each codec, from the producer
        yield compression_workload(seed + i, codecs=(codec,), batch_records=4 + i)
    for i, kept in enumerate(
        (
            {"compression.type": "zstd"},
            {"compression.type": "lz4", "compression.lz4.level": "12"},
            {"compression.type": "gzip", "compression.gzip.level": "1"},
        )
    ):  # broker-side
        yield compression_workload(seed + 4 + i, codecs=("none",), batch_records=4, kept=kept)
    yield compression_workload(seed + 7, codecs=("gzip", "snappy", "lz4", "zstd", "none"), records=30, batch_records=3)
    yield compression_workload(seed + 8, codecs=("lz4",), keys=200, records=150, batch_records=10)  # mostly whole
    yield compression_workload(seed + 9, codecs=("snappy",), tombstone_ratio=0.6, rounds=3)  # horizons stamped, met
    yield compression_workload(seed + 10, codecs=("zstd",), batch_records=3, producer="idempotent")
    yield transactional_compression_workload(seed + 11, codec="gzip")
    # batches over one lz4 (64 KiB) and several snappy (32 KiB) blocks
    yield compression_workload(seed + 12, codecs=("lz4", "snappy"), keys=400, records=6000, batch_records=3000,
                               rounds=1)  # fmt: skip


def index_full_workload(
    seed: int, *, index_bytes: int = 64, keys: int = 20, records: int = 30, batch_records: int = 1,
    spacing_ms: int = 50, producer: str = "plain", rounds: int = 2, io_buffer_bytes: int | None = None,
) -> Workload:  # fmt: skip
    """``segment.index.bytes`` of ``index_bytes`` and ``index.interval.bytes=1``: every batch after a segment's first
    gets an index entry, ``segment.ms`` (100) rolls every 2-3 batches, and ``groupSegmentsBySize`` merges segments
    by their index sizes on disk. From KAFKA-806 (3.9.1, 4.0.1) a cleaned group gets an entry per batch it keeps,
    more than its sources had: its time index fills, the pass throws and the partition is marked uncleanable (spec
    8.4), never cleaned in the rounds after. Before, a cleaned segment gets an entry per read buffer
    (``io_buffer_bytes``, ``log.cleaner.io.buffer.size``), and the next round's groups follow those smaller indexes.
    """
    rng = random.Random(seed)
    made = []
    for _ in range(rounds):
        order = _keys(rng, keys, records, "uniform")
        step = Produce(keyed_records(order, _values(rng, records, 0.1), step_ms=spacing_ms), producer, batch_records)
        made.append(Round((step,), (Phase(), Phase())))  # the second release shows a marked partition stays so
    broker = {} if io_buffer_bytes is None else {"log.cleaner.io.buffer.size": str(io_buffer_bytes)}
    kept = {"segment.index.bytes": str(index_bytes), "index.interval.bytes": "1"}
    name = f"seed{seed}-index-{index_bytes}-bytes-{records}records-batches{batch_records}-{producer}-x{rounds}"
    name += f"-io-buffer-{io_buffer_bytes}" if io_buffer_bytes else ""
    return Workload(name, "index-full", seed, tuple(made), kept=kept, broker=broker)


def aborted_over_rounds_workload(seed: int, *, keys: int = 6, rounds: int = 3) -> Workload:
    """An aborted transaction among plain records, then rounds of plain records: its data is removed in the first
    pass and its marker's segment cleaned again in the next, whose ``.txnindex`` keeps the entry as stored (its
    first offset among the batches then in the log), not as the batches left would rebuild it (spec 8.4).

    Stamped by the wall clock (``clock="wall"``): the abort marker carries the broker's clock, so records and
    triggers of later rounds stamped on a fixed day would fall before it and never roll a segment.
    """
    rng = random.Random(seed)
    first = (
        _keyed_step(rng, keys=keys, count=4, batch_records=2),
        _keyed_step(rng, keys=keys, count=3, producer="abort", start_ms=200),
        _keyed_step(rng, keys=keys, count=4, batch_records=2, start_ms=400),
    )
    later = [Round((_keyed_step(rng, keys=keys, count=6, batch_records=2),)) for _ in range(rounds - 1)]
    return Workload(f"seed{seed}-aborted-over-{rounds}-rounds-{keys}keys", "transactions", seed,
                    (Round(first), *later), clock="wall")  # fmt: skip


def decompressed_bound_workload(seed: int, *, keys: int = 8, records: int = 24, clean_first: bool = False) -> Workload:
    """gzip batches of four records, one of them a 300-byte value under a key of its own, then the cleaner released
    with ``max.decompressed.message.bytes`` of 100 (Kafka 4.2.2-4.2.x and 4.4.0 on, apache/kafka#23429): reading
    that record throws ``InvalidRecordException``, the partition is marked uncleanable (spec 8.4). With
    ``clean_first`` a round is cleaned under no bound first, so the record is read from the clean section by
    ``filterTo`` (the group's ``.log.cleaned`` left behind), not from the dirty one by ``buildOffsetMapForSegment``.
    """
    rng = random.Random(seed)

    def step(big: bool) -> Produce:
        order = _keys(rng, keys, records, "uniform")
        values: list[bytes | None] = [b"v%d" % rng.randint(0, 99) for _ in order]
        made = keyed_records(order, values)
        if big:  # a record no later one supersedes, in the middle of the round
            middle = made[records // 2]
            made = (*made[: records // 2], NewRecord(b"big", b"x" * 300, timestamp=middle.timestamp),
                    *made[records // 2 + 1 :])  # fmt: skip
        return Produce(made, "plain", 4, "gzip")

    bound = Phase({"max.decompressed.message.bytes": "100"})
    rounds = (
        (Round((step(True),)), Round((step(False),), (bound,))) if clean_first else (Round((step(True),), (bound,)),)
    )
    where = "clean" if clean_first else "dirty"
    return Workload(f"seed{seed}-decompressed-bound-{where}-{keys}keys", "decompressed-bound", seed, rounds)


def capped_roll_workload(seed: int, *, keys: int = 8, records: int = 24, spacing_ms: int = 20_000) -> Workload:
    """Records ahead of the wall clock (``clock="ahead"``) 20 s apart under ``segment.ms`` of a day and
    ``max.compaction.lag.ms`` of a minute: KIP-354 caps time rolls by the lag (2.3 on), so segments roll every
    3-4 records; then a pass, whose log line counts the partitions the lag delays (none: the records are young)."""
    rng = random.Random(seed)
    step = Produce(keyed_records(_keys(rng, keys, records, "uniform"), _values(rng, records, 0.1), step_ms=spacing_ms))
    kept = {"segment.ms": str(24 * HOUR_MS), "max.compaction.lag.ms": "60000"}
    return Workload(f"seed{seed}-capped-rolls-{keys}keys", "rolls", seed, (Round((step,)),), kept=kept, clock="ahead")


def index_roll_workload(seed: int, *, index_bytes: int, keys: int = 10, records: int = 14) -> Workload:
    """Segments rolled because an index is full (``segment.index.bytes`` of ``index_bytes``, an entry per batch):
    the time index is full one entry early, its last slot kept for the roll's entry (``TimeIndex.isFull``)."""
    rng = random.Random(seed)
    order = _keys(rng, keys, records, "uniform")
    step = Produce(keyed_records(order, _values(rng, records, 0.1), step_ms=1))
    kept = {"segment.index.bytes": str(index_bytes), "index.interval.bytes": "0", "segment.ms": str(24 * HOUR_MS)}
    return Workload(f"seed{seed}-index-rolls-{index_bytes}-bytes", "rolls", seed, (Round((step,)),), kept=kept)


def _keys_category(offset: int) -> Iterator[Workload]:
    shapes = [(1, 20), (2, 30), (5, 40), (10, 60), (30, 60), (100, 150), (1_000, 1_500), (10_000, 12_000)]
    for i, (keys, records) in enumerate(shapes):
        for j, distribution in enumerate(("uniform", "zipf")):
            batch = 1 if records <= 60 else 100
            yield generate_workload(offset + 100 + 2 * i + j, keys=keys, records=records, distribution=distribution,
                                    batch_records=batch, category="keys")  # fmt: skip


def _batches_category(offset: int) -> Iterator[Workload]:
    for i, per_batch in enumerate((2, 3, 4, 7, 10, 25)):
        yield generate_workload(offset + 200 + i, keys=12, records=80, distribution=("zipf", "uniform")[i % 2],
                                batch_records=per_batch, tombstone_ratio=0.2, category="batches")  # fmt: skip


def _idempotent_category(offset: int) -> Iterator[Workload]:
    for i, per_batch in enumerate((1, 1, 2, 3, 5, 8)):
        yield generate_workload(offset + 300 + i, keys=6 + 3 * i, records=60, distribution=("uniform", "zipf")[i % 2],
                                idempotent=True, batch_records=per_batch)  # fmt: skip


def _tombstones_category(offset: int) -> Iterator[Workload]:
    for i, ratio in enumerate((0.3, 0.5, 0.8, 1.0)):
        yield generate_workload(offset + 400 + i, keys=8, records=50, tombstone_ratio=ratio, batch_records=1 + i,
                                rounds=2, category="tombstones")  # fmt: skip


def _multi_pass_category(offset: int) -> Iterator[Workload]:
    for i, (keys, per_batch, rounds) in enumerate([(5, 1, 2), (10, 3, 3), (40, 5, 2), (200, 20, 3)]):
        yield generate_workload(offset + 500 + i, keys=keys, records=max(40, keys), batch_records=per_batch,
                                rounds=rounds, idempotent=i % 2 == 1)  # fmt: skip


CATEGORIES: dict[str, Callable[[int], Iterable[Workload]]] = {
    "keys": _keys_category,
    "batches": _batches_category,
    "idempotent": _idempotent_category,
    "tombstones": _tombstones_category,
    "multi-pass": _multi_pass_category,
    "transactions": lambda o: (
        *(transactions_workload(o + 600 + i, transactions=3 + i, rounds=1 + i % 2) for i in range(6)),
        aborted_over_rounds_workload(o + 606),
    ),
    "keyless": lambda o: (keyless_workload(o + 700 + i, records=30 + 10 * i) for i in range(3)),
    "min-lag": lambda o: (min_lag_workload(o + 800 + i, keys=4 + 4 * i) for i in range(3)),
    "max-lag": lambda o: (max_lag_workload(o + 900 + i, keys=4 + 4 * i) for i in range(3)),
    "compact-delete": lambda o: (compact_delete_workload(o + 1000 + i, keys=4 + 4 * i) for i in range(3)),
    "partial": lambda o: (partial_pass_workload(o + 1100 + i) for i in range(2)),
    "compression": _compression_category,
    "rule-b": lambda o: (rule_b_workload(o + 1300 + i, keys=4 + 4 * i, keyless=1 + 2 * i) for i in range(2)),
    "index-full": lambda o: (
        index_full_workload(o + 1500, index_bytes=64, keys=60),
        index_full_workload(o + 1501, index_bytes=40, batch_records=2, producer="idempotent", records=40),
        index_full_workload(o + 1502, index_bytes=40, io_buffer_bytes=1024, records=40),
    ),
    "decompressed-bound": lambda o: (
        decompressed_bound_workload(o + 1700),
        decompressed_bound_workload(o + 1701, clean_first=True),
    ),
    "rolls": lambda o: (
        capped_roll_workload(o + 1600),
        index_roll_workload(o + 1601, index_bytes=24),
        index_roll_workload(o + 1602, index_bytes=64, records=15),  # the trigger starts a segment
    ),
    "segment-bytes": lambda o: (
        segment_bytes_workload(o + 1400 + i, config=config)
        for i, config in enumerate(("segment.bytes", "internal.segment.bytes"))
    ),
}


def catalog(categories: list[str] | None = None, *, repeat: int = 1) -> list[Workload]:
    """The workloads of the named categories (all when ``None``) in a stable order; ``repeat`` sets of seeds."""
    unknown = sorted(set(categories or []) - set(CATEGORIES))
    if unknown:
        raise ValueError(f"unknown workload categories {unknown}; known: {sorted(CATEGORIES)}")
    names = categories or list(CATEGORIES)
    return [w for r in range(repeat) for name in names for w in CATEGORIES[name](r * 10_000)]
