"""Seeded workloads for differential runs: keyed records, tombstones, time-driven segment rolls."""

from __future__ import annotations

import random
from dataclasses import dataclass

from kcompact_nb.core import NewRecord

BASE_TS_MS = 1_767_225_600_000
"""2026-01-01T00:00:00Z: fixed CreateTime timestamps make ``segment.ms`` rolls repeatable."""
STEP_MS = 20
"""Record timestamps advance by this much; with ``segment.ms=100`` a segment holds 6 records."""


@dataclass(frozen=True)
class Workload:
    """Records to produce one per batch, then a trigger record that rolls the last segment."""

    seed: int
    distribution: str
    keys: int
    records: tuple[NewRecord, ...]
    idempotent: bool = False
    """Produce with an idempotent producer (batches carry a producer id; rule A keeps its last batch)."""
    batch_records: int = 1
    """Records per produced batch (one produce request each)."""

    def batches(self) -> list[tuple[NewRecord, ...]]:
        """The records grouped into the batches they are produced as."""
        n = self.batch_records
        return [self.records[i : i + n] for i in range(0, len(self.records), n)]

    @property
    def trigger(self) -> NewRecord:
        """A record far later in time: it rolls the active segment, making every earlier one cleanable."""
        last = self.records[-1].timestamp or BASE_TS_MS
        return NewRecord(b"trigger", b"roll", timestamp=last + 10 * STEP_MS * 100)

    @property
    def name(self) -> str:
        producer = "-idempotent" if self.idempotent else ""
        batches = f"-batches{self.batch_records}" if self.batch_records > 1 else ""
        return f"seed{self.seed}-{self.distribution}-{self.keys}keys-{len(self.records)}records{producer}{batches}"


def generate_workload(
    seed: int,
    *,
    records: int = 60,
    keys: int = 10,
    distribution: str = "uniform",
    tombstone_ratio: float = 0.1,
    idempotent: bool = False,
    batch_records: int = 1,
) -> Workload:
    """A reproducible workload: keys drawn uniformly or Zipf(1.1), values 1-40 bytes, some tombstones."""
    rng = random.Random(seed)
    weights = [1.0 / (k + 1) ** 1.1 for k in range(keys)] if distribution == "zipf" else [1.0] * keys
    drawn = rng.choices(range(keys), weights=weights, k=records)
    produced = tuple(
        NewRecord(
            b"key-%d" % k,
            None if rng.random() < tombstone_ratio else bytes(rng.choice(b"abcdefgh") for _ in range(rng.randint(1, 40))),
            timestamp=BASE_TS_MS + i * STEP_MS,
        )
        for i, k in enumerate(drawn)
    )
    return Workload(seed, distribution, keys, produced, idempotent, batch_records)
