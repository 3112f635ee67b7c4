"""Benchmarks of the core partition model."""

from __future__ import annotations

from bench._runner import Measurement, benchmark, timed
from kcompact_nb import NewRecord, PartitionLog, TopicConfig

VALUE = b"v" * 100


@benchmark("core: append 100k single-record batches (100 B values)")
def append_single_record_batches() -> Measurement:
    def work() -> tuple[int, int]:
        log = PartitionLog(
            "bench", config=TopicConfig.from_properties({"cleanup.policy": "compact", "segment.bytes": 1 << 20})
        )
        for i in range(100_000):
            log.append([NewRecord(b"key-%d" % (i % 10_000), VALUE, timestamp=i)], now_ms=i)
        return 100_000, log.size_bytes

    return timed(work)


@benchmark("core: append 20k batches of 50 records")
def append_batches_of_50() -> Measurement:
    def work() -> tuple[int, int]:
        log = PartitionLog("bench", config=TopicConfig.from_properties({"cleanup.policy": "compact"}))
        for b in range(20_000):
            records = [NewRecord(b"key-%d" % ((b * 50 + i) % 100_000), VALUE, timestamp=b) for i in range(50)]
            log.append(records, now_ms=b)
        return 1_000_000, log.size_bytes

    return timed(work)
