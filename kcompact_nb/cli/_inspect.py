"""``kcompact inspect LOG_DIR``: every partition of a broker log dir as the cleaner sees it, and why."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from kcompact_nb.cli._command import Command
from kcompact_nb.cli._defaults import progress_setting, wall_clock_ms
from kcompact_nb.cli._exit import ExitCode
from kcompact_nb.cli._text import plural
from kcompact_nb.core import KcompactError, TopicConfig, explain
from kcompact_nb.io import read_log_dir


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log_dir", type=Path, help="a broker log dir (the folder holding <topic>-<partition>/)")
    parser.add_argument(
        "--config", action="append", default=[], metavar="NAME=VALUE", help="a topic config, e.g. segment.ms=100"
    )
    parser.add_argument("--now-ms", type=int, default=None, metavar="MS", help="the time to judge at (default: now)")


def _run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the explanation of every partition; 2 on unreadable input or a bad ``--config``."""
    config = TopicConfig.from_properties({"cleanup.policy": "compact", **config_properties(args.config)})
    now_ms = wall_clock_ms() if args.now_ms is None else args.now_ms
    inspect_log_dir(args.log_dir, out, config=config, now_ms=now_ms, progress=progress_setting())
    return ExitCode.OK


def inspect_log_dir(
    path: Path, out: TextIO, *, config: TopicConfig, now_ms: int, progress: bool | None = None
) -> None:
    """Write one explanation per partition of the log dir at ``path``."""
    loaded = read_log_dir(path, config=config, progress=progress)
    out.write(f"Log dir {path}: {plural(len(loaded.partitions), 'partition')}\n")
    for name, skipped in loaded.skipped:
        out.write(f"  skipped {name}: {skipped}\n")
    for name in sorted(loaded.partitions):
        partition = loaded.partitions[name]
        log = partition.log
        out.write(
            f"\n{name}: {plural(len(log.segments), 'segment')}, {log.size_bytes:,} bytes, "
            f"offsets [{log.log_start_offset}, {log.log_end_offset})\n"
        )
        out.write(str(explain(log, now_ms=now_ms)) + "\n")
        for file, what in partition.leftovers:
            out.write(f"  leftover {file}: {what}\n")


def config_properties(items: list[str]) -> dict[str, str]:
    """``--config NAME=VALUE`` options as a dict (the last value of a name wins)."""
    properties = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise KcompactError(f"--config {item!r}: expected NAME=VALUE")
        properties[name.strip()] = value.strip()
    return properties


INSPECT = Command(
    name="inspect",
    help="explain every partition of a Kafka log dir: sizes, clean/dirty split, eligibility, tombstones",
    description=(
        "Read a broker log dir (its partition folders and checkpoint files, never modified) and explain "
        "each partition as Kafka's cleaner would see it. Log dirs do not store topic configs: give the "
        "ones that matter with --config (default: cleanup.policy=compact and Kafka's defaults)."
    ),
    add_arguments=_add_arguments,
    run=_run,
)
