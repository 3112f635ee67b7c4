"""The simulator against passes a real broker made: load Kafka's "before", run one pass, compare with Kafka's "after".

The samples (data/samples/README.md) were written by Kafka 4.4.0 (and 3.9.2 for one probe) with
``delete.retention.ms=0``, so a stamped delete horizon equals the broker's pass time: the simulated pass
runs at that time, which makes stamped batch sizes comparable too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kcompact_nb import BrokerConfig, PartitionLog, TopicConfig
from kcompact_nb.core._cleaner_manager import CleanerManager
from kcompact_nb.io import CLEANER_OFFSET_CHECKPOINT, read_checkpoint, read_partition_dir

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "kafka"
TOPIC = {
    "cleanup.policy": "compact",
    "segment.ms": 100,
    "min.compaction.lag.ms": 0,
    "delete.retention.ms": 0,
    "file.delete.delay.ms": 100,
    "segment.index.bytes": 4096,
    "min.cleanable.dirty.ratio": 0.01,
}
PASSES = [
    ("compaction-basic", "before", "after", "4.4.0"),
    ("tombstone-lifecycle", "0-produced", "1-first-pass", "4.4.0"),
    ("tombstone-lifecycle", "1-first-pass", "2-second-pass", "4.4.0"),
    ("transactional", "before", "after", "4.4.0"),
    ("idempotent-producer", "before", "after", "4.4.0"),
    ("rule-b-kafka-4.4.0", "before", "after", "4.4.0"),
]


def load(stage: Path, version: str) -> PartitionLog:
    broker = BrokerConfig.from_properties({"kafka.version": version, "log.cleaner.dedupe.buffer.size": 8_388_608})
    (partition_dir,) = [p for p in stage.iterdir() if p.is_dir()]
    checkpoints = read_checkpoint(stage / CLEANER_OFFSET_CHECKPOINT)
    checkpoint = next(iter(checkpoints.values()), None)
    loaded = read_partition_dir(partition_dir, config=TopicConfig.from_properties(TOPIC), broker=broker,
                                cleaner_checkpoint=checkpoint)
    return loaded.log


def layout(log: PartitionLog) -> list:
    return [
        (s.base_offset, s.size_bytes, [
            (b.base_offset, b.last_offset, b.size_bytes, b.producer_id, b.producer_epoch, b.is_transactional,
             b.is_control, b.delete_horizon_ms is not None, [(r.offset, r.key, r.value) for r in b.records])
            for b in s.batches
        ])
        for s in log.segments
    ]


def pass_time(after: PartitionLog, before: PartitionLog) -> int:
    """The broker's pass time: a horizon stamped by this pass (delete.retention.ms is 0); otherwise just after
    everything already in the log, earlier passes' horizons included (a later pass ran later in wall time)."""
    stamped_before = {b.base_offset: b.delete_horizon_ms for b in before.batches() if b.delete_horizon_ms is not None}
    new = [b.delete_horizon_ms for b in after.batches() if b.delete_horizon_ms is not None and b.base_offset not in stamped_before]
    if new:
        return new[0]
    return max([b.max_timestamp for b in before.batches()] + list(stamped_before.values())) + 1


def catch_up(before: PartitionLog, after: PartitionLog) -> None:
    """Append what was produced between the two copies (batches past the earlier log end), rolling as Kafka does."""
    for batch in list(after.batches()):
        if batch.base_offset >= before.log_end_offset:
            before.append_batch(batch, now_ms=batch.max_timestamp)


@pytest.mark.parametrize(("sample", "before_stage", "after_stage", "version"), PASSES, ids=lambda v: str(v))
def test_one_pass_matches_the_broker(sample, before_stage, after_stage, version):
    before = load(SAMPLES / sample / before_stage, version)
    after = load(SAMPLES / sample / after_stage, version)
    catch_up(before, after)
    result = CleanerManager(before.broker).clean_once([before], now_ms=pass_time(after, before))
    assert result is not None
    assert before.cleaner_checkpoint == after.cleaner_checkpoint
    assert layout(before) == layout(after)
