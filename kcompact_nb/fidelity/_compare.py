"""Compare a partition the simulator cleaned with the one a real broker cleaned."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kcompact_nb.core import BrokerConfig, PartitionLog, TopicConfig
from kcompact_nb.core._cleaner_manager import CleanerManager
from kcompact_nb.io import CLEANER_OFFSET_CHECKPOINT, read_checkpoint, read_partition_dir


def load_stage(stage: Path, *, topic: TopicConfig, broker: BrokerConfig) -> PartitionLog:
    """A one-partition log dir copied from a broker (partition folder + ``cleaner-offset-checkpoint``)."""
    (partition_dir,) = [p for p in stage.iterdir() if p.is_dir()]
    checkpoint = next(iter(read_checkpoint(stage / CLEANER_OFFSET_CHECKPOINT).values()), None)
    return read_partition_dir(partition_dir, config=topic, broker=broker, cleaner_checkpoint=checkpoint).log


def layout(log: PartitionLog) -> list[Any]:
    """Segments, batches (offsets, size, producer fields, flags, horizon presence) and records."""
    return [
        (s.base_offset, s.size_bytes, [
            (b.base_offset, b.last_offset, b.size_bytes, b.producer_id, b.producer_epoch, b.is_transactional,
             b.is_control, b.delete_horizon_ms is not None, [(r.offset, r.key, r.value) for r in b.records])
            for b in s.batches
        ])
        for s in log.segments
    ]  # fmt: skip


def pass_time_ms(before: PartitionLog, after: PartitionLog) -> int:
    """When the broker's pass ran, as far as the files tell (topics use ``delete.retention.ms=0``).

    A horizon the pass stamped is its time; otherwise just after everything already in the log,
    earlier horizons included (a later pass ran later in wall time).
    """
    stamped = {b.base_offset: b.delete_horizon_ms for b in before.batches() if b.delete_horizon_ms is not None}
    new = [b.delete_horizon_ms for b in after.batches() if b.delete_horizon_ms is not None and b.base_offset not in stamped]
    if new:
        return int(new[0])
    return max([b.max_timestamp for b in before.batches()] + [int(h) for h in stamped.values()]) + 1


def catch_up(before: PartitionLog, after: PartitionLog) -> None:
    """Append what was produced between the two copies (batches past the earlier log end)."""
    for batch in list(after.batches()):
        if batch.base_offset >= before.log_end_offset:
            before.append_batch(batch, now_ms=batch.max_timestamp)


def simulate_broker_pass(before: PartitionLog, after: PartitionLog) -> tuple[PartitionLog, str | None]:
    """Run the simulator's cleaner iteration on ``before`` at the broker's pass time; returns it and the log line."""
    catch_up(before, after)
    now = pass_time_ms(before, after)
    # the test broker runs for minutes, less than one producer-expiry interval: no expiry check has run
    result = CleanerManager(before.broker, started_ms=now).clean_once([before], now_ms=now)
    return before, None if result is None else result.log_line


def differences(simulated: PartitionLog, kafka: PartitionLog) -> list[str]:
    """Human-readable mismatches between the simulator's log and Kafka's (empty when they agree)."""
    found = []
    if simulated.cleaner_checkpoint != kafka.cleaner_checkpoint:
        found.append(f"checkpoint: simulator {simulated.cleaner_checkpoint}, Kafka {kafka.cleaner_checkpoint}")
    ours, theirs = layout(simulated), layout(kafka)
    for i in range(max(len(ours), len(theirs))):
        a = ours[i] if i < len(ours) else None
        b = theirs[i] if i < len(theirs) else None
        if a != b:
            found.append(f"segment {i}: simulator {a!r}\n           Kafka     {b!r}")
    return found
