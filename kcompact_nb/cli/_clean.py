"""``kcompact clean LOG_DIR --out DIR``: write what the broker's next cleaner iteration would leave."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from kcompact_nb.cli._arguments import add_config_options, add_stream_from, instant_ms
from kcompact_nb.cli._command import Command
from kcompact_nb.cli._defaults import progress_setting, wall_clock_ms
from kcompact_nb.cli._exit import ExitCode
from kcompact_nb.cli._paths import log_dir_argument, not_an_input, output_folder
from kcompact_nb.cli._text import iso_time, plural
from kcompact_nb.cli._topic_configs import config_settings
from kcompact_nb.core import KcompactError, PassResult, Simulation, log_line_note
from kcompact_nb.io import clean_log_dir, resolve_configs


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "log_dir", type=Path, help="a broker log dir (the folder holding <topic>-<partition>/); never modified"
    )
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DIR",
        help="where to write the log dir the iteration leaves: written beside it first, then renamed into place, so "
        "that it is complete or untouched",
    )  # fmt: skip
    parser.add_argument("--overwrite", action="store_true", help="write into --out even when it is not empty")
    parser.add_argument(
        "--at", type=instant_ms, default=None, metavar="TIME",
        help="when the iteration runs: an ISO-8601 time (UTC unless it says otherwise) or epoch ms (default: now)",
    )  # fmt: skip
    add_config_options(parser)
    add_stream_from(parser)


def _run(args: argparse.Namespace, out: TextIO) -> int:
    """Read the log dir, run one cleaner iteration at ``--at``, write the result to ``--out``."""
    source = log_dir_argument(args.log_dir, "clean")
    _check_output(args.out, overwrite=args.overwrite)
    not_an_input(args.out, [source, *([args.config_file] if args.config_file else [])], "--out")
    at_ms = wall_clock_ms() if args.at is None else args.at
    settings = config_settings(args.config, args.config_file, args.kafka_version)
    configs = resolve_configs(settings)
    notices: list[str] = []
    cleaning = clean_log_dir(
        source, args.out, now_ms=at_ms, broker=configs.broker, config=configs.default, topic_configs=configs.per_topic,
        overwrite=args.overwrite, on_disk_from_bytes=args.stream_from, hold_bytes=True, progress=progress_setting(),
        on_stale=lambda stale: notices.append(_stale_notice(stale)),
    )  # fmt: skip
    for notice in notices:
        print(f"kcompact clean: {notice}", file=sys.stderr)
    _report(out, cleaning.simulation, cleaning.result, cleaning.start_offsets, at_ms=at_ms)
    out.write(f"Wrote {args.out}\n")
    return ExitCode.OK


def _stale_notice(stale: Path) -> str:
    return f"removed {stale}, the unfinished output of an earlier run that was killed"


def _check_output(path: Path, *, overwrite: bool) -> None:
    output_folder(path, "--out")
    if path.is_dir() and any(path.iterdir()) and not overwrite:
        advice = "give an empty or new folder, or add --overwrite to write into it"
        raise KcompactError(f"--out {path} is not empty; {advice}")


def _report(out: TextIO, sim: Simulation, result: PassResult | None, starts: Mapping[str, int], *, at_ms: int) -> None:
    logs = sim.partitions()
    out.write(f"{plural(len(logs), 'partition')}; the cleaner's next iteration at {iso_time(at_ms)} ({at_ms} ms):\n")
    for failure in sim.cleaner.failures:
        out.write(f"  {failure.describe()}\n  Kafka logs: {failure.kafka_log_line}\n")
    if result is None:
        off = sim.broker.cleaner_off_reason
        out.write(f"  no pass: {off}\n" if off else "  no partition is eligible for cleaning\n")
    else:
        merged = [group for group in result.groups if len(group) > 1]
        out.write(f"  cleaned {result.name}:\n    {_indented(result.log_line.strip())}\n")
        note = log_line_note(result.log_line)
        if note is not None:
            out.write(f"    ({note})\n")
        for group in merged:
            out.write(f"  segments {', '.join(map(str, group))} -> one segment at offset {group[0]}\n")
        for segment in sim.log(result.topic, result.partition).segments:
            if segment.size_estimated:
                why = (
                    f"no installed codec writes its compressed batches exactly as Kafka {sim.broker.kafka_version} does"
                )
                out.write(f"  segment {segment.base_offset}: size {segment.size_bytes} bytes is an estimate ({why})\n")
    for log in logs:
        if log.log_start_offset > starts[log.name]:
            moved = f"from {starts[log.name]} to {log.log_start_offset}"
            out.write(f"  retention moved the log start offset of {log.name} {moved}\n")


def _indented(text: str) -> str:
    """Kafka's multi-line INFO message, each line indented by four spaces instead of its tab."""
    return "\n    ".join(line.strip() for line in text.splitlines())


COMMAND = Command(
    name="clean",
    description=(
        "Read a broker log dir (never modified), run one iteration of Kafka's log cleaner at --at as the "
        "broker would (the filthiest eligible partition, then compacted-log retention) and write the log "
        "dir it leaves to --out in Kafka's layout: cleaned segments with their offset, time and transaction "
        "indexes, merged-away segments and their producer snapshots removed, the cleaner checkpoint "
        "updated, every other file copied. Log dirs do not store topic configs: give the ones that matter "
        "with --config (default: cleanup.policy=compact and Kafka's defaults)."
    ),
    add_arguments=_add_arguments,
    run=_run,
)
