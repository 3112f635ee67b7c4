"""A produce model: what producers write to each topic over time, in a few lines (not Kafka's: the forecast's input).

Per topic: a record rate (constant, a daily cycle, bursts), a key space (uniform or Zipf, growing when not every
record updates an existing key), tombstone and update shares, key and value sizes, and the producer (batching by
``linger.ms`` and ``batch.size``, idempotence, transactions, compression). A seed makes every draw reproducible.
Times are milliseconds from the forecast's start; sizes are bytes. Every check names the field, the value and the
range allowed (:class:`ProduceModelError`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from kcompact_nb.record import COMPRESSION_CODECS, KcompactError

DAY_MS = 86_400_000
KEY_DISTRIBUTIONS = ("uniform", "zipf")


class ProduceModelError(KcompactError, ValueError):
    """A produce model value outside its range; the message starts with the field's dotted path."""


def _check(ok: bool, path: str, value: object, allowed: str) -> None:
    if not ok:
        message = f"{path}: {value!r} is not allowed; expected {allowed}"
        raise ProduceModelError(message)


@dataclass(frozen=True)
class DailyCycle:
    """A rate that swings once a day between ``1 - amplitude`` and ``1 + amplitude`` times its mean, peaking at
    ``peak_hour_utc`` (a cosine; the mean over a day is the topic's ``records_per_second``)."""

    amplitude: float
    peak_hour_utc: float = 12.0

    def validate(self, path: str) -> None:
        _check(0 <= self.amplitude <= 1, f"{path}.amplitude", self.amplitude, "a number in [0, 1]")
        _check(0 <= self.peak_hour_utc < 24, f"{path}.peak_hour_utc", self.peak_hour_utc, "an hour in [0, 24)")


@dataclass(frozen=True)
class Burst:
    """The rate times ``factor`` from ``start_ms`` for ``duration_ms``, repeated every ``every_ms`` when given."""

    start_ms: int
    duration_ms: int
    factor: float
    every_ms: int | None = None

    def validate(self, path: str) -> None:
        _check(self.start_ms >= 0, f"{path}.start_ms", self.start_ms, "0 or more (ms from the start)")
        _check(self.duration_ms > 0, f"{path}.duration_ms", self.duration_ms, "more than 0 ms")
        _check(self.factor >= 0, f"{path}.factor", self.factor, "0 or more")
        if self.every_ms is not None:
            _check(self.every_ms > self.duration_ms, f"{path}.every_ms", self.every_ms, "more than duration_ms")


@dataclass(frozen=True)
class ValueSizes:
    """Value sizes drawn uniformly from ``[min_bytes, max_bytes]`` (one size when equal)."""

    min_bytes: int
    max_bytes: int

    @property
    def mean_bytes(self) -> float:
        return (self.min_bytes + self.max_bytes) / 2

    def validate(self, path: str) -> None:
        _check(self.min_bytes >= 0, f"{path}.min_bytes", self.min_bytes, "0 or more bytes")
        _check(self.max_bytes >= self.min_bytes, f"{path}.max_bytes", self.max_bytes, "at least min_bytes")
        _check(self.max_bytes <= 1 << 20, f"{path}.max_bytes", self.max_bytes, "at most 1 MiB")


@dataclass(frozen=True)
class Transactions:
    """A transactional producer: one transaction per ``commit_interval_ms`` (Kafka Streams' ``commit.interval.ms``
    under exactly-once), ended by a marker in every partition it wrote; ``abort_share`` of them abort."""

    commit_interval_ms: int = 100
    abort_share: float = 0.0

    def validate(self, path: str) -> None:
        _check(self.commit_interval_ms > 0, f"{path}.commit_interval_ms", self.commit_interval_ms, "more than 0 ms")
        _check(0 <= self.abort_share <= 1, f"{path}.abort_share", self.abort_share, "a share in [0, 1]")


@dataclass(frozen=True)
class ProducerModel:
    """How the topic's producer batches and sends: the producer configs that shape the log.

    Records of one partition are batched per ``linger_ms`` slot (a grid from the start), a slot's records split
    into batches of at most ``batch_bytes`` (``batch.size``); a batch is appended at its slot's end. Not the Java
    producer's exact timing (it lingers from a batch's first record), the same batches in number and size.
    ``idempotent`` (Kafka's default since 3.0) gives batches a producer id and sequence numbers.
    """

    linger_ms: int = 5
    batch_bytes: int = 16_384
    idempotent: bool = True
    transactions: Transactions | None = None
    compression: str = "none"

    def validate(self, path: str) -> None:
        _check(self.linger_ms > 0, f"{path}.linger_ms", self.linger_ms, "more than 0 ms")
        _check(self.batch_bytes > 0, f"{path}.batch_bytes", self.batch_bytes, "more than 0 bytes")
        _check(
            self.compression in COMPRESSION_CODECS,
            f"{path}.compression",
            self.compression,
            "/".join(COMPRESSION_CODECS),
        )
        if self.transactions is not None:
            self.transactions.validate(f"{path}.transactions")
            interval = self.transactions.commit_interval_ms
            _check(
                interval % self.linger_ms == 0,
                f"{path}.transactions.commit_interval_ms",
                interval,
                f"a multiple of linger_ms ({self.linger_ms})",
            )


@dataclass(frozen=True)
class TopicLoad:
    """What producers write to one topic (spread over its partitions by key, as Kafka's default partitioner does).

    Each record is a tombstone (``tombstone_share``) of an existing key, an update (``update_share``, by default
    every record that is not a tombstone) of an existing key, or else the first record of a new key, which then
    joins the key space: a growing key space. Existing keys are drawn uniformly or by Zipf's law
    (``zipf_exponent``; key 0 hottest, new keys coldest). The key space starts with ``keys`` keys; keys are
    ``key_bytes`` ASCII digits. ``value_compressibility`` of each value's bytes repeat (the rest are random), which
    is what a codec saves.
    """

    records_per_second: float
    keys: int
    key_distribution: str = "uniform"
    zipf_exponent: float = 1.0
    tombstone_share: float = 0.0
    update_share: float | None = None
    key_bytes: int = 16
    value_bytes: ValueSizes = field(default_factory=lambda: ValueSizes(100, 100))
    value_compressibility: float = 0.5
    daily_cycle: DailyCycle | None = None
    bursts: tuple[Burst, ...] = ()
    producer: ProducerModel = field(default_factory=ProducerModel)

    @property
    def updates(self) -> float:
        """The share of records that update an existing key."""
        return 1.0 - self.tombstone_share if self.update_share is None else self.update_share

    @property
    def inserts(self) -> float:
        """The share of records that write a new key (the key space's growth)."""
        return max(0.0, 1.0 - self.tombstone_share - self.updates)

    def validate(self, path: str) -> None:
        """Raise :class:`ProduceModelError` naming the first field out of range (``path`` prefixes its name)."""
        _check(self.records_per_second >= 0, f"{path}.records_per_second", self.records_per_second, "0 or more")
        _check(self.keys >= 1, f"{path}.keys", self.keys, "at least 1 key")
        _check(
            self.key_distribution in KEY_DISTRIBUTIONS,
            f"{path}.key_distribution",
            self.key_distribution,
            " or ".join(KEY_DISTRIBUTIONS),
        )
        _check(0 < self.zipf_exponent <= 5, f"{path}.zipf_exponent", self.zipf_exponent, "a number in (0, 5]")
        _check(0 <= self.tombstone_share <= 1, f"{path}.tombstone_share", self.tombstone_share, "a share in [0, 1]")
        if self.update_share is not None:
            allowed = f"a share in [0, {1 - self.tombstone_share:g}] (1 - tombstone_share)"
            ok = 0 <= self.update_share <= 1 - self.tombstone_share + 1e-12
            _check(ok, f"{path}.update_share", self.update_share, allowed)
        _check(1 <= self.key_bytes <= 64, f"{path}.key_bytes", self.key_bytes, "1 to 64 bytes")
        _check(self.keys <= 10**self.key_bytes, f"{path}.keys", self.keys, f"at most 10^{self.key_bytes} (key_bytes)")
        self.value_bytes.validate(f"{path}.value_bytes")
        ok = 0 <= self.value_compressibility <= 1
        _check(ok, f"{path}.value_compressibility", self.value_compressibility, "a share in [0, 1]")
        if self.daily_cycle is not None:
            self.daily_cycle.validate(f"{path}.daily_cycle")
        for i, burst in enumerate(self.bursts):
            burst.validate(f"{path}.bursts[{i}]")
        self.producer.validate(f"{path}.producer")


@dataclass(frozen=True)
class ProduceModel:
    """What producers write to each topic, and the seed of every draw (the same seed, the same forecast)."""

    topics: Mapping[str, TopicLoad]
    seed: int = 0

    def __post_init__(self) -> None:
        _check(bool(self.topics), "topics", dict(self.topics), "at least one topic")
        _check(0 <= self.seed < 2**63, "seed", self.seed, "an integer in [0, 2^63)")
        for name, load in self.topics.items():
            load.validate(f"topics.{name}")

    def with_rates_times(self, factor: float) -> ProduceModel:
        """The same model with every topic's rate times ``factor`` (a what-if of another load)."""
        _check(factor >= 0, "rate factor", factor, "0 or more")
        loads = {
            name: replace(load, records_per_second=load.records_per_second * factor)
            for name, load in self.topics.items()
        }
        return ProduceModel(loads, seed=self.seed)
