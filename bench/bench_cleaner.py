"""Benchmarks of one full cleaner pass (issue targets: 1M records in at most 2 s and 1.5 GB resident)."""

from __future__ import annotations

import random

from bench._runner import Measurement, benchmark, timed
from kcompact_nb import NewRecord, PartitionLog, TopicConfig
from kcompact_nb.core import clean_pass, log_to_clean

VALUE = b"v" * 100


def million_record_log(strategy: str) -> PartitionLog:
    """1,000,000 records, 100,000 keys, 100-byte values, batches of 50, 5 % tombstones, then a roll."""
    rng = random.Random(42)
    config = TopicConfig.from_properties({"cleanup.policy": "compact", "compaction.strategy": strategy})
    log = PartitionLog("bench", config=config)
    for b in range(20_000):
        batch = [
            NewRecord(b"key-%06d" % rng.randrange(100_000), None if rng.random() < 0.05 else VALUE, timestamp=b)
            for _ in range(50)
        ]
        log.append(batch, now_ms=b)
    log.roll(now_ms=20_000)
    return log


def full_pass(strategy: str) -> Measurement:
    log = million_record_log(strategy)
    size = log.size_bytes

    def work() -> tuple[int, int]:
        ltc = log_to_clean(log, now_ms=20_000)
        clean_pass(
            log,
            now_ms=20_000,
            first_dirty_offset=ltc.first_dirty_offset,
            first_uncleanable_offset=ltc.first_uncleanable_offset,
        )
        return 1_000_000, size

    return timed(work)


@benchmark("cleaner: full pass, 1M records (offset strategy)", repeat=3, target="<= 2 s, <= 1.5 GB RSS")
def full_pass_offset() -> Measurement:
    return full_pass("offset")


@benchmark("cleaner: full pass, 1M records (timestamp strategy)", repeat=3)
def full_pass_timestamp() -> Measurement:
    return full_pass("timestamp")
