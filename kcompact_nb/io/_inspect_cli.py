"""``kcompact inspect LOG_DIR``: every partition of a broker log dir as the cleaner sees it, and why."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TextIO

from kcompact_nb.core import KcompactError, TopicConfig, explain
from kcompact_nb.io._log_reader import read_log_dir


def add_inspect_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``inspect`` on the ``kcompact`` command line."""
    parser = subparsers.add_parser(
        "inspect",
        help="explain every partition of a Kafka log dir: sizes, clean/dirty split, eligibility, tombstones",
        description=(
            "Read a broker log dir (its partition folders and checkpoint files, never modified) and explain "
            "each partition as Kafka's cleaner would see it. Log dirs do not store topic configs: give the "
            "ones that matter with --config (default: cleanup.policy=compact and Kafka's defaults)."
        ),
    )
    parser.add_argument("log_dir", type=Path, help="a broker log dir (the folder holding <topic>-<partition>/)")
    parser.add_argument(
        "--config", action="append", default=[], metavar="NAME=VALUE", help="a topic config, e.g. segment.ms=100"
    )
    parser.add_argument("--now-ms", type=int, default=None, metavar="MS", help="the time to judge at (default: now)")
    parser.set_defaults(handler=run_inspect)


def run_inspect(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Print the explanation of every partition; 2 on unreadable input or a bad ``--config``."""
    out = out or sys.stdout
    try:
        config = TopicConfig.from_properties({"cleanup.policy": "compact", **_properties(args.config)})
        inspect_log_dir(args.log_dir, out, config=config, now_ms=args.now_ms)
    except KcompactError as error:
        print(f"kcompact inspect: {error}", file=sys.stderr)
        return 2
    return 0


def inspect_log_dir(path: Path, out: TextIO, *, config: TopicConfig, now_ms: int | None = None) -> None:
    """Write one explanation per partition of the log dir at ``path``."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    loaded = read_log_dir(path, config=config)
    out.write(f"Log dir {path}: {len(loaded.partitions)} partitions\n")
    for name, skipped in loaded.skipped:
        out.write(f"  skipped {name}: {skipped}\n")
    for name in sorted(loaded.partitions):
        partition = loaded.partitions[name]
        log = partition.log
        out.write(f"\n{name}: {len(log.segments)} segments, {log.size_bytes:,} bytes, offsets [{log.log_start_offset}, {log.log_end_offset})\n")
        out.write(str(explain(log, now_ms=now)) + "\n")
        for file, what in partition.leftovers:
            out.write(f"  leftover {file}: {what}\n")


def _properties(items: list[str]) -> dict[str, str]:
    properties = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise KcompactError(f"--config {item!r}: expected NAME=VALUE")
        properties[name.strip()] = value.strip()
    return properties
