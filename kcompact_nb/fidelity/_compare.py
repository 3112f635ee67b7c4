"""Compare a partition the simulator cleaned with the one a real broker cleaned."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kcompact_nb.broker import COMPACTED_TOPIC_CONFIGS, FAST_CLEANER_SETTINGS
from kcompact_nb.core import (
    INDEX_FILE_SUFFIX,
    TIME_INDEX_FILE_SUFFIX,
    BrokerConfig,
    CleanerManager,
    PartitionLog,
    RecordBatch,
    TopicConfig,
    compressed,
    stored_compression,
)
from kcompact_nb.fidelity._workload import HOLD, Workload
from kcompact_nb.io import (
    CLEANER_OFFSET_CHECKPOINT,
    batch_bytes,
    decode_txn_index,
    read_checkpoint,
    read_index_file,
    read_partition_dir,
    write_broker_log_dir,
)

_LOG_LINE_KEYS = ("dirty section", "Buffer utilization", "Start size", "End size", "size reduction")
LOG_FILE_MISMATCH = "segment file "
"""How a mismatch between the simulator's and Kafka's ``.log`` files starts."""
INDEX_FILE_MISMATCH = "index file "
"""How a mismatch between the simulator's and Kafka's ``.index`` or ``.timeindex`` files starts."""
MAX_PASSES_PER_PHASE = 100
"""A safety bound: a phase that keeps finding work beyond this is reported, not looped on."""


def broker_properties(version: str, overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """The test broker's cleaner settings (:data:`FAST_CLEANER_SETTINGS`) with ``overrides`` and ``kafka.version``."""
    cleaner = {k: v for k, v in FAST_CLEANER_SETTINGS.items() if k.startswith("log.cleaner.")}
    return {**cleaner, **(overrides or {}), "kafka.version": version}


def broker_settings(version: str, overrides: Mapping[str, str] | None = None) -> BrokerConfig:
    """The simulator's broker config matching :func:`broker_properties`."""
    return BrokerConfig.from_properties(broker_properties(version, overrides))


def topic_settings(overrides: Mapping[str, str] | None = None, *, broker: BrokerConfig | None = None) -> TopicConfig:
    """The compacted test topic's config (:data:`COMPACTED_TOPIC_CONFIGS`) with ``overrides``."""
    return TopicConfig.from_properties({**COMPACTED_TOPIC_CONFIGS, **(overrides or {})}, broker=broker)


def load_stage(stage: Path, *, topic: TopicConfig, broker: BrokerConfig) -> PartitionLog:
    """A one-partition log dir copied from a broker (partition folder + ``cleaner-offset-checkpoint``)."""
    (partition_dir,) = [p for p in stage.iterdir() if p.is_dir()]
    checkpoint = next(iter(read_checkpoint(stage / CLEANER_OFFSET_CHECKPOINT).values()), None)
    log = read_partition_dir(partition_dir, config=topic, broker=broker, cleaner_checkpoint=checkpoint).log
    if not broker.version.carries_transactions_across_segments:
        use_transaction_indexes(log, partition_dir)
    return log


def use_transaction_indexes(log: PartitionLog, partition_dir: Path) -> None:
    """Give each segment the aborted transactions of its ``.txnindex`` file (none without one).

    The reader rebuilds them from the ABORT markers, which is what the broker's indexes hold from 2.2.2 on;
    before (KAFKA-8351) a pass dropped the entry of a kept marker whose data sat in an earlier source segment,
    and the broker's next passes go by its files.
    """
    for segment in log.segments:
        path = partition_dir / f"{segment.base_offset:020d}.txnindex"
        entries = decode_txn_index(path.read_bytes(), segment.base_offset, path).entries if path.exists() else ()
        segment.aborted_transactions[:] = entries


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
    new = [
        b.delete_horizon_ms for b in after.batches() if b.delete_horizon_ms is not None and b.base_offset not in stamped
    ]
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
    """Human-readable mismatches between the simulator's log and Kafka's (empty when they agree): the
    checkpoint, the layout of segments, batches and records, then every batch's bytes."""
    found = []
    if simulated.cleaner_checkpoint != kafka.cleaner_checkpoint:
        found.append(f"checkpoint: simulator {simulated.cleaner_checkpoint}, Kafka {kafka.cleaner_checkpoint}")
    ours, theirs = layout(simulated), layout(kafka)
    for i in range(max(len(ours), len(theirs))):
        a = ours[i] if i < len(ours) else None
        b = theirs[i] if i < len(theirs) else None
        if a != b:
            found.append(f"segment {i}: simulator {a!r}\n           Kafka     {b!r}")
    return found or byte_differences(simulated, kafka)


def byte_differences(simulated: PartitionLog, kafka: PartitionLog) -> list[str]:
    """Batches whose bytes differ: the simulator's as it would write them (its codecs for rewritten compressed
    batches) against the bytes Kafka's cleaner wrote. Logs of the same layout only."""
    found = []
    for ours, theirs in zip(simulated.batches(), kafka.batches(), strict=True):
        mine, kafkas = batch_bytes(ours), batch_bytes(theirs)
        if mine != kafkas:
            found.append(
                f"batch [{ours.base_offset}, {ours.last_offset}] ({ours.compression}): simulator bytes "
                f"{_first_difference(mine, kafkas)}"
            )
    return found


def recompression_differences(before: PartitionLog) -> list[str]:
    """Data batches whose bytes the model's append would not reproduce, for a topic whose broker recompressed
    uncompressed produce requests (``LogValidator.buildRecordsAndAssignOffsets`` at the topic's level).

    Only batches at or past the cleaner checkpoint are as appended; earlier ones a pass has rewritten.
    """
    codec, level = stored_compression(before.config, "none")
    found = []
    for stored in before.batches():
        # markers are written uncompressed by the coordinator; below the checkpoint a pass has rewritten them
        if stored.is_control or stored.base_offset < (before.cleaner_checkpoint or 0):
            continue
        sent = RecordBatch.build(
            list(stored.records), base_offset=stored.base_offset, last_offset=stored.last_offset,
            producer_id=stored.producer_id, producer_epoch=stored.producer_epoch, base_sequence=stored.base_sequence,
            is_transactional=stored.is_transactional, partition_leader_epoch=stored.partition_leader_epoch,
            compression=codec,
        )  # fmt: skip
        model = compressed(sent, before.encoder, level=level, kafka_version=before.broker.version)
        if batch_bytes(model) != stored.raw:
            found.append(
                f"append of batch [{stored.base_offset}, {stored.last_offset}]: model's {codec} bytes "
                f"{_first_difference(batch_bytes(model), stored.raw or b'')}"
            )
    return found


def first_difference(ours: bytes, theirs: bytes) -> int:
    """The first byte position where two byte strings differ (the shorter length when one is a prefix)."""
    return next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), min(len(ours), len(theirs)))


def _first_difference(ours: bytes, theirs: bytes) -> str:
    return f"differ from Kafka's at byte {first_difference(ours, theirs)} ({len(ours)} vs {len(theirs)} bytes)"


def load_round(folder: Path, workload: Workload, *, version: str, stage: str) -> PartitionLog:
    """A round's "before" or "after" copy, under the configs the workload's records were produced with."""
    broker = broker_settings(version, workload.broker)
    configs = {**HOLD, **workload.create, **workload.kept}
    return load_stage(folder / stage, topic=topic_settings(configs, broker=broker), broker=broker)


def simulate_phases(
    log: PartitionLog,
    workload: Workload,
    *,
    round_index: int,
    phase_ms: Sequence[int],
    pass_ms: Mapping[int, int] | None = None,
) -> list[str]:
    """Run the simulated cleaner thread through the round's phases; returns the passes' log lines.

    Each phase sets the topic's configs at its release time and loops one cleaner iteration after
    another (passes back to back, each a millisecond after the previous) until nothing is eligible.
    ``pass_ms`` gives some passes (by their index in the round) a later time: Kafka's, when known.
    """
    return [line for line, _ in _run_phases(log, workload, round_index, phase_ms, pass_ms or {})]


def _run_phases(
    log: PartitionLog, workload: Workload, round_index: int, phase_ms: Sequence[int], pass_ms: Mapping[int, int]
) -> list[tuple[str, bool]]:
    """Each pass's log line and whether it stamped a delete horizon on a batch."""
    manager = CleanerManager(log.broker, started_ms=phase_ms[0])
    passes: list[tuple[str, bool]] = []
    for phase, released in zip(workload.rounds[round_index].phases, phase_ms, strict=True):
        log.config = topic_settings({**phase.configs, **workload.kept}, broker=log.broker)
        now = released
        for _ in range(MAX_PASSES_PER_PHASE):
            now = max(now, pass_ms.get(len(passes), now))
            stamped = _stamped_batches(log)
            result = manager.clean_once([log], now_ms=now)
            if result is None:
                break
            passes.append((result.log_line, bool(_stamped_batches(log) - stamped)))
            now = max(now, result.end_ms) + 1
    return passes


def _stamped_batches(log: PartitionLog) -> set[int]:
    return {b.base_offset for b in log.batches() if b.delete_horizon_ms is not None}


def kafka_pass_times(
    folder: Path, workload: Workload, *, round_index: int, version: str, phase_ms: Sequence[int]
) -> dict[int, int]:
    """Kafka's time for each simulated pass that stamps delete horizons, read from the horizons in Kafka's
    "after" copy (horizon - ``delete.retention.ms``): empty when the counts of such passes differ.

    Kafka stamps a batch with its pass's wall clock, which only the files tell; a simulated pass at
    another time writes other horizon bytes. The passes are found by a first run at the release times.
    """
    before = load_round(folder, workload, version=version, stage="before")
    after = load_round(folder, workload, version=version, stage="after")
    catch_up(before, after)
    earlier = _stamped_batches(before)
    horizons = sorted(
        {h for b in after.batches() if (h := b.delete_horizon_ms) is not None and b.base_offset not in earlier}
    )
    stamping = [i for i, (_, stamped) in enumerate(_run_phases(before, workload, round_index, phase_ms, {})) if stamped]
    if len(stamping) != len(horizons):
        return {}
    return {
        index: horizon - before.config.delete_retention_ms for index, horizon in zip(stamping, horizons, strict=True)
    }


def compare_round(
    folder: Path, workload: Workload, *, round_index: int, version: str, phase_ms: Sequence[int],
    kafka_messages: Sequence[str],
) -> list[str]:  # fmt: skip
    """Mismatches between the simulator's run over ``folder/before`` and Kafka's ``folder/after`` and log lines.

    The simulator's result is also written as the broker would leave it (``folder/predicted``) and its
    ``.log``, ``.index`` and ``.timeindex`` files compared with Kafka's byte for byte.
    """
    times = kafka_pass_times(folder, workload, round_index=round_index, version=version, phase_ms=phase_ms)
    before = load_round(folder, workload, version=version, stage="before")
    after = load_round(folder, workload, version=version, stage="after")
    catch_up(before, after)
    found = recompression_differences(before) if workload.recompressed_on_append else []
    lines = simulate_phases(before, workload, round_index=round_index, phase_ms=phase_ms, pass_ms=times)
    found += differences(before, after)
    predicted = write_broker_log_dir([before], folder / "predicted", source=folder / "before", overwrite=True)
    found += log_file_differences(predicted / before.name, folder / "after" / before.name)
    found += index_file_differences(predicted / before.name, folder / "after" / before.name)
    ours, theirs = [log_line_facts(line) for line in lines], [log_line_facts(m) for m in kafka_messages]
    if any(len(facts) != len(_LOG_LINE_KEYS) for facts in theirs):
        found.append(f"Kafka's cleaner log has an incomplete pass message: {theirs}")
    elif ours != theirs:
        found.append(f"log lines ({len(ours)} passes vs {len(theirs)}):\n  simulator {ours}\n  Kafka     {theirs}")
    return found


def log_file_differences(ours: Path, kafka: Path) -> list[str]:
    """The ``.log`` files of two partition folders compared byte for byte: missing, extra or different files."""
    mine = {p.name: p for p in ours.glob("*.log")}
    theirs = {p.name: p for p in kafka.glob("*.log")}
    found = []
    for name in sorted(set(mine) | set(theirs)):
        if name not in mine or name not in theirs:
            found.append(f"{LOG_FILE_MISMATCH}{name}: only {'Kafka' if name in theirs else 'the simulator'} has it")
            continue
        a, b = mine[name].read_bytes(), theirs[name].read_bytes()
        if a != b:
            sizes = f"simulator {len(a)} bytes, Kafka {len(b)} bytes"
            found.append(f"{LOG_FILE_MISMATCH}{name}: {sizes}, first difference at byte {first_difference(a, b)}")
    return found


def index_file_differences(ours: Path, kafka: Path) -> list[str]:
    """The ``.index`` and ``.timeindex`` files of two partition folders compared byte for byte, for the segments
    both have except Kafka's newest (the active segment: its indexes are preallocated and still growing)."""
    logs = sorted(p.name[:20] for p in kafka.glob("*.log"))
    found = []
    for stem in logs[:-1]:
        for suffix in (INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX):
            mine, theirs = ours / f"{stem}{suffix}", kafka / f"{stem}{suffix}"
            if not (mine.is_file() and theirs.is_file()):
                continue  # the .log comparison names a segment only one side has
            a, b = mine.read_bytes(), theirs.read_bytes()
            if a != b:
                counts = [len(read_index_file(path).entries) for path in (mine, theirs)]
                found.append(
                    f"{INDEX_FILE_MISMATCH}{mine.name}: simulator {counts[0]} entries, Kafka {counts[1]}, "
                    f"first difference at byte {first_difference(a, b)}"
                )
    return found


def cleaner_messages(cleaner_log: str, name: str) -> list[str]:
    """Every "cleaned log <name>" INFO message of a broker's cleaner log, oldest first (9 lines each)."""
    lines = cleaner_log.splitlines()
    starts = [i for i, line in enumerate(lines) if f"cleaned log {name} (dirty section" in line]
    return ["\n".join(lines[i : i + 9]) for i in starts]


def log_line_facts(message: str) -> list[str]:
    """The lines of a pass's log message that do not depend on elapsed time, whitespace trimmed."""
    facts = []
    for line in message.splitlines():
        for key in _LOG_LINE_KEYS:
            if key in line:
                facts.append(line[line.index("Log cleaner") :] if key == "dirty section" else line.strip())
    return facts
