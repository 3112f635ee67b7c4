"""``kcompact inspect LOG_DIR``: every partition of a broker log dir as the cleaner sees it, and why."""

from __future__ import annotations

import argparse
import json
from io import StringIO
from pathlib import Path
from typing import Any, TextIO

from kcompact_nb.cli._arguments import add_config_options, add_stream_from, epoch_ms
from kcompact_nb.cli._command import Command
from kcompact_nb.cli._defaults import progress_setting, wall_clock_ms
from kcompact_nb.cli._exit import ExitCode
from kcompact_nb.cli._paths import log_dir_argument
from kcompact_nb.cli._text import iso_time, plural
from kcompact_nb.cli._topic_configs import config_settings, overrides
from kcompact_nb.core import (
    CleanerFailure,
    Explanation,
    KcompactError,
    PartitionLog,
    Simulation,
    UnreadableBatch,
    copy_log,
    explain,
    log_to_clean_row,
)
from kcompact_nb.io import (
    CheckpointFormatError,
    ConfigSettings,
    LoadedLogDir,
    LoadedPartition,
    LogDirChangedError,
    LogReadError,
    ReadOptions,
    ResolvedConfigs,
    read_consistently,
    read_log_dir,
    resolve_configs,
)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log_dir", type=Path, help="a broker log dir (the folder holding <topic>-<partition>/)")
    add_config_options(parser)
    parser.add_argument(
        "--now-ms", type=epoch_ms, default=None, metavar="MS", help="the time to judge at (default: now)"
    )
    parser.add_argument(
        "--recover", action="store_true",
        help="keep the valid prefix of corrupt segments, as Kafka's log recovery does, and say what it drops",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print one JSON document (exact values, times in ms)")
    add_stream_from(parser)


def _run(args: argparse.Namespace, out: TextIO) -> int:
    """Explain every partition; 1 when --recover dropped invalid data, a partition holds a batch the cleaner
    cannot read or the files of a pass that threw (its broker marked it uncleanable), 2 on unreadable input or a
    bad config."""
    log_dir = log_dir_argument(args.log_dir, "inspect")
    settings = config_settings(args.config, args.config_file, args.kafka_version)
    configs = resolve_configs(settings)
    now_ms = wall_clock_ms() if args.now_ms is None else args.now_ms
    options = ReadOptions(
        config=configs.default, topic_configs=configs.per_topic, broker=configs.broker, recover=args.recover,
        progress=progress_setting(), on_disk_from_bytes=None if args.recover else args.stream_from, hold_bytes=True,
        as_cleaner_reads=not args.recover, read_attempts=1,
    )  # fmt: skip

    def inspected() -> tuple[LoadedLogDir, str]:
        """The log dir read and explained, again from a fresh read while a running broker changes it meanwhile (a
        partition read on disk is read again by the explanations)."""
        loaded = read_log_dir(log_dir, options)
        text = StringIO()
        if args.json:
            json.dump(inspect_document(loaded, configs, settings, now_ms), text, indent=2)
            text.write("\n")
        else:
            write_inspection(loaded, text, configs=configs, now_ms=now_ms, ignored=settings.ignored)
        return loaded, text.getvalue()

    try:
        loaded, text = read_consistently(inspected, log_dir)
    except LogReadError as error:  # --recover keeps a segment's valid prefix; it reads checkpoint files the same way
        recoverable = not args.recover and not isinstance(error, (CheckpointFormatError, LogDirChangedError))
        hint = "; --recover shows what Kafka's log recovery would keep" if recoverable else ""
        raise KcompactError(f"{error}{hint}") from None
    out.write(text)
    broken = any(p.dropped or _read_by_a_pass(p) or p.failed_pass is not None for p in loaded.partitions.values())
    return ExitCode.FAILED if broken else ExitCode.OK


def _read_by_a_pass(partition: LoadedPartition) -> bool:
    """The partition holds a batch the cleaner cannot read outside its active segment, which no pass reads (a
    preallocated active segment's zero tail, ``log.preallocate``, is there until the broker trims it)."""
    corrupt = partition.corrupt
    return corrupt is not None and int(Path(corrupt.file).name[:20]) != partition.log.active_segment.base_offset


def write_inspection(
    loaded: LoadedLogDir, out: TextIO, *, configs: ResolvedConfigs, now_ms: int, ignored: list[str] | None = None
) -> None:
    """One explanation per partition of a log dir read with :func:`kcompact_nb.io.read_log_dir`."""
    partitions = plural(len(loaded.partitions), "partition")
    version = configs.broker.kafka_version
    out.write(f"Log dir {loaded.path}: {partitions}, judged at {iso_time(now_ms)} by Kafka {version}'s rules\n")
    if ignored:
        shown = ", ".join(ignored[:8]) + (f" and {len(ignored) - 8} more" if len(ignored) > 8 else "")
        out.write(f"  config file: ignored {plural(len(ignored), 'setting')} the cleaner does not use ({shown})\n")
    for name, skipped in loaded.skipped:
        out.write(f"  skipped {name}: {skipped}\n")
    for name in sorted(loaded.partitions):
        for line in partition_lines(loaded.partitions[name], now_ms):
            out.write(line + "\n")


def partition_lines(partition: LoadedPartition, now_ms: int) -> list[str]:
    """The heading, config, explanation and what was dropped or left over, for one partition."""
    log = partition.log
    lines = [
        "",
        f"{log.name}: {plural(len(log.segments), 'segment')}, {log.size_bytes:,} bytes, "
        f"offsets [{log.log_start_offset}, {log.log_end_offset})"
        if log.log_end_offset > log.log_start_offset
        else f"{log.name}: {plural(len(log.segments), 'segment')}, {log.size_bytes:,} bytes, no records "
        f"(next offset {log.log_end_offset})",
    ]
    changed = overrides(log.config)
    shown = ", ".join(f"{k}={_text(v)}" for k, v in changed.items())
    lines.append(f"  config (beyond Kafka's defaults): {shown}" if shown else "  config: Kafka's defaults")
    if not log.config.compact:
        lines.append(
            f"  not compacted (cleanup.policy={_text(log.config.cleanup_policy)}): the cleaner never cleans it"
        )
    else:
        lines += _explanation(partition, now_ms).lines()
    if partition.corrupt is not None:
        lines.append("  (after an unclean shutdown Kafka's log recovery truncates there instead: --recover shows it)")
    for dropped in partition.dropped:
        lines.append(f"  DROPPED by recovery: {dropped.bytes:,} bytes of {Path(dropped.file).name} from byte "
                     f"position {dropped.position:,}: {dropped.reason}")  # fmt: skip
    for file, what in partition.leftovers:
        lines.append(f"  leftover {Path(file).name}: {what}")
    lines += [f"  note: {note}" for note in partition.notes]
    return lines


def _explanation(partition: LoadedPartition, now_ms: int) -> Explanation:
    """The cleaner's view of the partition, with the batch it cannot read, if any (the pass that reads it fails),
    and the pass that threw, if its ``.cleaned`` files are in the folder (the broker marked the partition)."""
    corrupt = partition.corrupt
    unreadable = (
        None
        if corrupt is None
        else UnreadableBatch(int(Path(corrupt.file).name[:20]), corrupt.position or 0, corrupt.reason)
    )
    failure = partition.failed_pass
    log, simulation = partition.log, None
    if failure is not None:
        log, simulation = _marked_uncleanable(partition.log, failure)
    # what the horizons say, whether the partition was read whole or on disk: the same lines (no pass is run)
    return explain(log, now_ms=now_ms, unreadable_batch=unreadable, simulation=simulation, run_pass=False)


def _marked_uncleanable(log: PartitionLog, failure: CleanerFailure) -> tuple[PartitionLog, Simulation]:
    """A copy of ``log`` in a broker whose cleaner recorded ``failure`` and marked the partition (spec 8.4)."""
    copy = copy_log(log)
    simulation = Simulation(log.broker)
    simulation.add_log(copy, config=overrides(log.config))
    simulation.cleaner.failures.append(failure)
    simulation.mark_uncleanable(log.topic, partition=log.partition)
    return copy, simulation


def _text(value: object) -> str:
    return ",".join(value) if isinstance(value, tuple) else str(value)


def inspect_document(
    loaded: LoadedLogDir, configs: ResolvedConfigs, settings: ConfigSettings, now_ms: int
) -> dict[str, Any]:
    """The ``--json`` document: every partition with its config overrides and the cleaner's view in exact units."""
    return {
        "log_dir": str(loaded.path),
        "now_ms": now_ms,
        "kafka_version": configs.broker.kafka_version,
        "ignored_config_settings": settings.ignored,
        "skipped": [{"path": path, "reason": reason} for path, reason in loaded.skipped],
        "partitions": [_partition_document(loaded.partitions[name], now_ms) for name in sorted(loaded.partitions)],
    }


def _partition_document(partition: LoadedPartition, now_ms: int) -> dict[str, Any]:
    log = partition.log
    return {
        "name": log.name,
        "topic": log.topic,
        "partition": log.partition,
        "segments": len(log.segments),
        "size_bytes": log.size_bytes,
        "log_start_offset": log.log_start_offset,
        "log_end_offset": log.log_end_offset,
        "cleaner_checkpoint": log.cleaner_checkpoint,
        "config": {k: _text(v) if isinstance(v, tuple) else v for k, v in log.config.to_properties().items()},
        "compacted": log.config.compact,
        "cleaner": _explanation_document(_explanation(partition, now_ms)) if log.config.compact else None,
        "unreadable_batch": None if partition.corrupt is None else _unreadable_document(partition.corrupt),
        "dropped": [
            {"file": d.file, "position": d.position, "bytes": d.bytes, "reason": d.reason} for d in partition.dropped
        ],
        "leftovers": [{"file": file, "meaning": what} for file, what in partition.leftovers],
        "failed_pass": _failure_document(partition.failed_pass),
        "notes": list(partition.notes),
    }


def _failure_document(failure: CleanerFailure | None) -> dict[str, Any] | None:
    """The pass whose ``.cleaned`` files are in the folder: Kafka's log line, its exception, what it left."""
    if failure is None:
        return None
    return {
        "kafka_log_line": failure.kafka_log_line,
        "error": failure.error,
        "checkpoint": failure.checkpoint,
        "left_cleaned": list(failure.left_cleaned),
        "last_written_ms": failure.at_ms,
    }


def _unreadable_document(error: LogReadError) -> dict[str, Any]:
    return {"file": error.file, "position": error.position, "reason": error.reason}


def _explanation_document(explanation: Explanation) -> dict[str, Any]:
    ltc = explanation.log_to_clean
    return {
        **log_to_clean_row(ltc),
        "min_cleanable_dirty_ratio": ltc.min_cleanable_dirty_ratio,
        "eligible_at_ms": explanation.eligible_at_ms,
        "uncleanable_reason": explanation.uncleanable_reason,
        "unreadable_batch": explanation.unreadable_batch,
        "checkpoint_reset": ltc.checkpoint_reset,
        "checkpoint_warning": ltc.checkpoint_warning,
        "tombstones": [
            {"offset": t.offset, "key": t.key.decode("utf-8", "replace"), "horizon_ms": t.horizon_ms}
            for t in explanation.tombstones
        ],  # fmt: skip
    }


COMMAND = Command(
    name="inspect",
    description=(
        "Read a broker log dir (its partition folders and checkpoint files, never modified) and explain each "
        "partition as Kafka's cleaner would see it. Log dirs do not store configs: give the ones that matter "
        "with --config (every topic, or TOPIC:NAME=VALUE for one) or --config-file (the broker's "
        "server.properties lines, TOPIC:NAME=VALUE lines, and kafka-configs.sh --describe output pasted as is). "
        "cleanup.policy is compact unless set."
    ),
    add_arguments=_add_arguments,
    run=_run,
)
