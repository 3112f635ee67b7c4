"""Compare a partition the simulator cleaned with the one a real broker cleaned."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from kcompact_nb.broker import COMPACTED_TOPIC_CONFIGS, FAST_CLEANER_SETTINGS
from kcompact_nb.core import (
    CLEANED_FILE_SUFFIX,
    INDEX_FILE_SUFFIX,
    LOG_FILE_SUFFIX,
    SEGMENT_FILE_OF_ANY_KIND,
    TIME_INDEX_FILE_SUFFIX,
    TXN_INDEX_FILE_SUFFIX,
    BrokerConfig,
    CleanerFailure,
    CleanerManager,
    PartitionLog,
    RecordBatch,
    TopicConfig,
    compressed,
    format_instant_ms,
    rebuild_producer_state,
    stored_compression,
)
from kcompact_nb.fidelity._checkpoint_ticks import checkpoint_orders
from kcompact_nb.fidelity._workload import HOLD, Workload
from kcompact_nb.io import (
    CLEANER_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    ReadOptions,
    SegmentFileReader,
    batch_bytes,
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
OTHER_FILE_MISMATCH = "partition file "
"""How a mismatch between the simulator's and Kafka's other files of a partition folder starts."""
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
    return read_partition_dir(
        partition_dir, ReadOptions(config=topic, broker=broker), cleaner_checkpoint=checkpoint
    ).log


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
    uncleanable: bool = False,
    checkpoints: Sequence[int] = (),
    recovery_point: int | None = None,
) -> list[str]:
    """Run the simulated cleaner thread through the round's phases; returns the passes' log lines.

    Each phase sets the topic's configs at its release time and loops one cleaner iteration after
    another (passes back to back, each a millisecond after the previous) until nothing is eligible.
    ``pass_ms`` gives some passes (by their index in the round) a later time: Kafka's, when known. ``uncleanable``:
    an earlier round's pass threw, and the broker never cleans the partition again. ``checkpoints``: the broker's
    recovery-point checkpoint ran once after each of these numbers of passes, with ``recovery_point`` (None: the
    active segment's base offset;
    :meth:`~kcompact_nb.core.PartitionLog.delete_snapshots_after_recovery_point_checkpoint`).
    """
    phases = _run_phases(log, workload, round_index, phase_ms, pass_ms or {}, uncleanable=uncleanable,
                         checkpoints=checkpoints, recovery_point=recovery_point)  # fmt: skip
    return [line for line, _ in phases]


def _run_phases(
    log: PartitionLog,
    workload: Workload,
    round_index: int,
    phase_ms: Sequence[int],
    pass_ms: Mapping[int, int],
    *,
    uncleanable: bool = False,
    checkpoints: Sequence[int] = (),
    recovery_point: int | None = None,
) -> list[tuple[str, bool]]:
    """Each pass's log line (a pass that threw: its uncleanable message) and whether it stamped a delete horizon;
    ``checkpoints`` and ``recovery_point``: :func:`simulate_phases`'."""
    manager = CleanerManager(log.broker, started_ms=phase_ms[0])
    if uncleanable:
        manager.uncleanable.add(log.name)
    passes: list[tuple[str, bool]] = []
    waiting = sorted(checkpoints)
    for phase, released in zip(workload.rounds[round_index].phases, phase_ms, strict=True):
        log.config = topic_settings({**phase.configs, **workload.kept}, broker=log.broker)
        now = released
        for _ in range(MAX_PASSES_PER_PHASE):
            _checkpoint_after(log, waiting, len(passes), recovery_point)
            now = max(now, pass_ms.get(len(passes), now))
            stamped, failed = _stamped_batches(log), len(manager.failures)
            result = manager.clean_once([log], now_ms=now)
            if result is None:
                # the groups a failed pass swapped in stamped their horizons at its time
                changed = bool(_stamped_batches(log) - stamped)
                passes += [(uncleanable_message(failure), changed) for failure in manager.failures[failed:]]
                break
            passes.append((result.log_line, bool(_stamped_batches(log) - stamped)))
            now = max(now, result.end_ms) + 1
    _checkpoint_after(log, waiting, max(waiting, default=0), recovery_point)  # the runs after the last pass
    return passes


def _checkpoint_after(log: PartitionLog, waiting: list[int], passes: int, recovery_point: int | None) -> None:
    """Run the broker's recovery-point checkpoints due once ``passes`` passes ran (removed from ``waiting``)."""
    while waiting and waiting[0] <= passes:
        waiting.pop(0)
        log.delete_snapshots_after_recovery_point_checkpoint(recovery_point)


def _stamped_batches(log: PartitionLog) -> set[int]:
    """Batches with a delete horizon, in the log and in the segment a pass that threw was filling."""
    left = (b for segment in log.left_cleaned for b in segment.batches)
    return {b.base_offset for b in (*log.batches(), *left) if b.delete_horizon_ms is not None}


def kafka_pass_times(
    folder: Path,
    workload: Workload,
    *,
    round_index: int,
    version: str,
    phase_ms: Sequence[int],
    uncleanable: bool = False,
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
    left = [  # a pass that threw stamped the batches of the segment it was filling too
        batch
        for path in sorted((folder / "after" / after.name).glob(f"*{LOG_FILE_SUFFIX}{CLEANED_FILE_SUFFIX}"))
        for batch in SegmentFileReader(path, base_offset=int(path.name[:20]))
    ]
    horizons = sorted(
        {
            h
            for b in (*after.batches(), *left)
            if (h := b.delete_horizon_ms) is not None and b.base_offset not in earlier
        }
    )
    passes = _run_phases(before, workload, round_index, phase_ms, {}, uncleanable=uncleanable)
    stamping = [i for i, (_, stamped) in enumerate(passes) if stamped]
    if len(stamping) != len(horizons):
        return {}
    return {
        index: horizon - before.config.delete_retention_ms for index, horizon in zip(stamping, horizons, strict=True)
    }


def append_differences(folder: Path, workload: Workload, *, version: str) -> list[str]:
    """The segments the model's appends make of the batches Kafka appended in a round produced from an empty log
    (rolls by size, time, full indexes and ``max.compaction.lag.ms``), against Kafka's "before" copy: every
    segment's ``.log``, ``.index``, ``.timeindex`` and ``.txnindex`` file byte for byte (the active segment's
    indexes aside), written to ``folder/appended``."""
    kafka = load_round(folder, workload, version=version, stage="before")
    model = PartitionLog(kafka.topic, kafka.partition, config=kafka.config, broker=kafka.broker)
    for batch in kafka.batches():
        model.append_batch(batch, now_ms=batch.max_timestamp)
    rebuild_producer_state(model)  # the transaction indexes of the markers appended
    appended = write_broker_log_dir([model], folder / "appended", overwrite=True) / model.name
    for path in appended.iterdir():
        if not SEGMENT_FILE_OF_ANY_KIND.match(path.name):
            path.unlink()  # the producer snapshot of a clean shutdown, not of a running broker
    theirs = folder / "appended-kafka"
    shutil.rmtree(theirs, ignore_errors=True)
    shutil.copytree(folder / "before" / model.name, theirs,
                    ignore=lambda _, names: [n for n in names if not SEGMENT_FILE_OF_ANY_KIND.match(n)])  # fmt: skip
    return [f"appended {line}" for line in partition_file_differences(appended, theirs)]


def compare_round(
    folder: Path, workload: Workload, *, round_index: int, version: str, phase_ms: Sequence[int],
    kafka_messages: Sequence[str], uncleanable: bool = False, checkpoint_ms: Sequence[int] = (),
) -> list[str]:  # fmt: skip
    """Mismatches between the simulator's run over ``folder/before`` and Kafka's ``folder/after`` and log lines;
    ``uncleanable``: the partition was marked uncleanable in an earlier round; ``checkpoint_ms``: when the broker's
    recovery-point checkpoint ran during the round.

    The simulator's result is also written as the broker would leave it (``folder/predicted``) and every file of
    its partition folder compared with Kafka's byte for byte (:func:`partition_file_differences`). The checkpoint
    runs take the recovery point the "after" copy holds (the last run's), and come after the passes logged before
    them; a run just before a pass's message may have come after its swap (:func:`checkpoint_orders`): that order
    is tried when the first one differs.
    """
    recovery_point = next(iter(read_checkpoint(folder / "after" / RECOVERY_POINT_CHECKPOINT).values()), None)
    times = kafka_pass_times(folder, workload, round_index=round_index, version=version, phase_ms=phase_ms,
                             uncleanable=uncleanable)  # fmt: skip
    compare = partial(_compare_simulated, folder, workload, round_index=round_index, version=version,
                      phase_ms=phase_ms, pass_ms=times, kafka_messages=kafka_messages, uncleanable=uncleanable,
                      recovery_point=recovery_point)  # fmt: skip
    first, *others = orders = checkpoint_orders(kafka_messages, checkpoint_ms)
    found = compare(checkpoints=first)
    if found and any(not compare(checkpoints=other) for other in others):
        return []
    if found and others:
        compare(checkpoints=first)  # folder/predicted as the first order leaves it
    if found and checkpoint_ms:
        runs = ", ".join(format_instant_ms(ms) for ms in checkpoint_ms)
        logged = ", ".join(message[1:24] for message in kafka_messages)
        found.append(f"the broker's recovery-point checkpoint wrote recovery point {recovery_point} at {runs}; "
                     f"the passes logged at {logged}; passes before each run tried: {orders}")  # fmt: skip
    return found


def _compare_simulated(
    folder: Path, workload: Workload, *, round_index: int, version: str, phase_ms: Sequence[int],
    pass_ms: Mapping[int, int], kafka_messages: Sequence[str], uncleanable: bool, recovery_point: int | None,
    checkpoints: Sequence[int],
) -> list[str]:  # fmt: skip
    """:func:`compare_round` with the checkpoint runs after these numbers of passes (``pass_ms``: Kafka's pass
    times, :func:`kafka_pass_times`)."""
    before = load_round(folder, workload, version=version, stage="before")
    after = load_round(folder, workload, version=version, stage="after")
    catch_up(before, after)
    found = recompression_differences(before) if workload.recompressed_on_append else []
    if round_index == 0 and not workload.recompressed_on_append:
        found += append_differences(folder, workload, version=version)
    lines = simulate_phases(before, workload, round_index=round_index, phase_ms=phase_ms, pass_ms=pass_ms,
                            uncleanable=uncleanable, checkpoints=checkpoints,
                            recovery_point=recovery_point)  # fmt: skip
    found += differences(before, after)
    predicted = write_broker_log_dir([before], folder / "predicted", source=folder / "before", overwrite=True)
    found += partition_file_differences(predicted / before.name, folder / "after" / before.name)
    ours, theirs = [log_line_facts(line) for line in lines], [log_line_facts(m) for m in kafka_messages]
    if any(len(_required(facts)) != len(_LOG_LINE_KEYS) for facts in theirs):
        found.append(f"Kafka's cleaner log has an incomplete pass message: {theirs}")
    elif ours != theirs:
        found.append(f"log lines ({len(ours)} passes vs {len(theirs)}):\n  simulator {ours}\n  Kafka     {theirs}")
    return found


def partition_file_differences(ours: Path, kafka: Path) -> list[str]:
    """Every file of two partition folders compared byte for byte: segments, indexes, ``.txnindex``, producer
    snapshots, ``leader-epoch-checkpoint``, ``partition.metadata`` and a failed pass's ``.cleaned`` files; missing,
    extra or different files. Kafka's active segment's ``.index`` and ``.timeindex`` are left out: a running broker
    keeps them preallocated and growing."""
    mine = {p.name: p for p in ours.iterdir() if p.is_file()}
    theirs = {p.name: p for p in kafka.iterdir() if p.is_file()}
    logs = sorted(name for name in theirs if name.endswith(LOG_FILE_SUFFIX))
    growing = {f"{logs[-1][:20]}{suffix}" for suffix in (INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX)} if logs else set()
    found = []
    for name in sorted((set(mine) | set(theirs)) - growing):
        if name not in mine or name not in theirs:
            side = "Kafka" if name in theirs else "the simulator"
            found.append(f"{_mismatch_prefix(name)}{name}: only {side} has it")
            continue
        a, b = mine[name].read_bytes(), theirs[name].read_bytes()
        if a != b:
            found.append(f"{_mismatch_prefix(name)}{name}: {_file_sizes(mine[name], theirs[name], a, b)}, "
                         f"first difference at byte {first_difference(a, b)}")  # fmt: skip
    return found


def _mismatch_prefix(name: str) -> str:
    if name.endswith(LOG_FILE_SUFFIX):
        return LOG_FILE_MISMATCH
    if name.endswith((INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX)):
        return INDEX_FILE_MISMATCH
    return OTHER_FILE_MISMATCH


def _file_sizes(mine: Path, theirs: Path, a: bytes, b: bytes) -> str:
    """Sizes, and entry counts of index files."""
    sizes = f"simulator {len(a)} bytes, Kafka {len(b)} bytes"
    if mine.suffix in (INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX, TXN_INDEX_FILE_SUFFIX):
        counts = [len(read_index_file(path).entries) for path in (mine, theirs)]
        sizes += f" ({counts[0]} entries vs {counts[1]})"
    return sizes


def cleaner_messages(cleaner_log: str, name: str) -> list[str]:
    """Every "cleaned log <name>" INFO message of a broker's cleaner log (9 lines each) and every "Marking its
    partition (<name>) as uncleanable" WARN with its stack trace, oldest first; each from the line with its log
    record's ``[time]`` (the INFO message begins on the line after it: Kafka formats it from "%n\\tLog cleaner...")."""
    lines = cleaner_log.splitlines()
    messages = []
    for i, line in enumerate(lines):
        if f"cleaned log {name} (dirty section" in line:
            # KIP-354's line follows as a log record of its own
            delayed = next((j for j in range(i + 8, min(i + 11, len(lines))) if _DELAYED in lines[j]), i + 8)
            stamped = i - 1 if not line.startswith("[") and i > 0 and lines[i - 1].startswith("[") else i
            messages.append("\n".join(lines[stamped : delayed + 1]))
        elif _UNCLEANABLE.format(name) in line:
            end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("[")), len(lines))
            messages.append("\n".join(lines[i:end]))
    return messages


_UNCLEANABLE = "Marking its partition ({}) as uncleanable"


def marks_uncleanable(message: str) -> bool:
    """The message is the broker's (or the simulator's) "Marking its partition ... as uncleanable" WARN."""
    return "as uncleanable" in message.splitlines()[0]


def uncleanable_message(failure: CleanerFailure) -> str:
    """The simulator's failure as the broker logs it: the WARN line, then the exception that caused it."""
    return f"Unexpected exception thrown when cleaning log {failure.name}. {_UNCLEANABLE.format(failure.name)}\n" + (
        f"Caused by: {failure.error}"
    )


def _uncleanable_facts(message: str) -> list[str]:
    """The partition marked uncleanable and the exception at the root of the WARN's stack trace."""
    lines = message.splitlines()
    name = lines[0][lines[0].index("Marking its partition (") + 23 : lines[0].index(") as uncleanable")]
    causes = [line.removeprefix("Caused by: ") for line in lines[1:] if line.startswith("Caused by: ")]
    cause = causes[-1] if causes else (lines[1] if len(lines) > 1 else "")
    return [f"{name} marked uncleanable", cause.strip()]


def _required(facts: list[str]) -> list[str]:
    """The facts every pass's message has (none for a pass that threw, nor KIP-354's optional line)."""
    if facts and facts[0].endswith("marked uncleanable"):
        return [""] * len(_LOG_LINE_KEYS)
    return [fact for fact in facts if not fact.startswith(_DELAYED)]


def log_line_facts(message: str) -> list[str]:
    """The lines of a pass's log message that do not depend on elapsed time, whitespace trimmed; for a pass that
    threw, the partition marked uncleanable and the exception."""
    if marks_uncleanable(message):
        return _uncleanable_facts(message)
    facts = []
    for line in message.splitlines():
        for key in _LOG_LINE_KEYS:
            if key in line:
                facts.append(line[line.index("Log cleaner") :] if key == "dirty section" else line.strip())
        if _DELAYED in line:  # KIP-354's line; its max delay counts the milliseconds the pass started late
            facts.append(line[line.index(_DELAYED) :].split(", max delay")[0])
    return facts


_DELAYED = "Cleanable partitions:"
