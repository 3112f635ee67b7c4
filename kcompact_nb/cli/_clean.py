"""``kcompact clean LOG_DIR --out DIR``: write what the broker's next cleaner iteration would leave."""

from __future__ import annotations

import argparse
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from kcompact_nb.cli._arguments import add_stream_from
from kcompact_nb.cli._command import Command
from kcompact_nb.cli._defaults import progress_setting, wall_clock_ms
from kcompact_nb.cli._exit import ExitCode
from kcompact_nb.cli._paths import existing_dir, existing_file
from kcompact_nb.cli._text import iso_time, plural
from kcompact_nb.cli._topic_configs import ConfigSettings, add_config_arguments, read_config_file, resolve
from kcompact_nb.core import BrokerConfig, KcompactError, PassResult, Simulation
from kcompact_nb.io import SegmentFiles, read_log_dir, write_broker_log_dir


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "log_dir", type=Path, help="a broker log dir (the folder holding <topic>-<partition>/); never modified"
    )
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="where to write the log dir the iteration leaves"
    )
    parser.add_argument("--overwrite", action="store_true", help="write into --out even when it is not empty")
    parser.add_argument(
        "--at", default=None, metavar="TIME",
        help="when the iteration runs: an ISO-8601 time (UTC unless it says otherwise) or epoch ms (default: now)",
    )  # fmt: skip
    parser.add_argument(
        "--config", action="append", default=[], metavar="[TOPIC:]NAME=VALUE",
        help="a topic config for every topic (segment.ms=100) or for one (orders:segment.ms=100), or a broker "
        "cleaner config (log.cleaner.threads=2); repeatable",
    )  # fmt: skip
    parser.add_argument(
        "--config-file", type=Path, metavar="FILE",
        help="broker properties, TOPIC:NAME=VALUE lines and kafka-configs.sh --describe output, as for inspect",
    )  # fmt: skip
    parser.add_argument(
        "--kafka-version", default=None, metavar="V", help="the Kafka release to imitate (default: 4.4.0)"
    )
    add_stream_from(parser)


def _run(args: argparse.Namespace, out: TextIO) -> int:
    """Read the log dir, run one cleaner iteration at ``--at``, write the result to ``--out``."""
    source = existing_dir(args.log_dir, "log dir")
    _check_output(args.out, overwrite=args.overwrite)
    at_ms = wall_clock_ms() if args.at is None else parse_time_ms(args.at)
    settings = config_settings(args.config, args.config_file, args.kafka_version)
    configs = resolve(settings)  # validates every level; the simulation declares each topic from the same properties
    sim = Simulation(configs.broker, start_ms=at_ms)
    loaded = read_log_dir(
        source, config=configs.default, topic_configs=configs.per_topic, broker=configs.broker, now_ms=at_ms,
        progress=progress_setting(), scan_from_bytes=args.stream_from,
    )  # fmt: skip
    scratch = args.out.resolve().parent
    scratch.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{args.out.name}.kcompact-cleaned-", dir=scratch) as cleaned:
        streamed: dict[str, SegmentFiles] = {}
        for name in _listing_order(source, loaded.partitions):
            partition = loaded.partitions[name]
            log = partition.log
            sim.add_log(log, config={**settings.every_topic, **settings.per_topic.get(log.topic, {})})
            if partition.files is not None:  # a big partition: its pass streams the files, writes cleaned groups
                (Path(cleaned) / name).mkdir()
                streamed[log.name] = SegmentFiles(partition.files, out=Path(cleaned) / name)
        sim.cleaner.storages.update(streamed)
        starts = {log.name: log.log_start_offset for log in sim.partitions()}
        result = sim.clean()
        written = {name: files.written for name, files in streamed.items()}
        logs = sim.partitions_in_creation_order()
        write_broker_log_dir(logs, args.out, source=source, overwrite=args.overwrite, written=written)
    _report(out, sim, result, starts, at_ms=at_ms)
    out.write(f"Wrote {args.out}\n")
    return ExitCode.OK


def _check_output(path: Path, *, overwrite: bool) -> None:
    if path.exists() and not path.is_dir():
        raise KcompactError(f"--out {path} is a file; give a folder")
    if path.is_dir() and any(path.iterdir()) and not overwrite:
        advice = "give an empty or new folder, or add --overwrite to write into it"
        raise KcompactError(f"--out {path} is not empty; {advice}")


def parse_time_ms(text: str) -> int:
    """``--at``: epoch milliseconds, or an ISO-8601 date and time (UTC when it has no offset)."""
    value = text.strip()
    if value.lstrip("-").isdigit():
        return int(value)
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise KcompactError(
            f"--at {text!r}: expected epoch milliseconds (1767225600000) or an ISO-8601 time (2026-01-01T00:00:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return round(moment.timestamp() * 1000)


def config_settings(items: list[str], config_file: Path | None, kafka_version: str | None) -> ConfigSettings:
    """The settings of ``--config-file``, then ``--config``, then ``--kafka-version``.

    A ``--config`` item named like a broker property goes to the broker, any other to the topics.
    """
    settings = read_config_file(existing_file(config_file, "--config-file")) if config_file else ConfigSettings()
    broker_names = BrokerConfig.property_names()
    for item in items:
        name, sep, value = item.partition("=")
        if sep and name.strip() in broker_names:
            settings.broker[name.strip()] = value.strip()
        else:
            add_config_arguments(settings, [item])
    if kafka_version is not None:
        settings.broker["kafka.version"] = kafka_version
    return settings


def _listing_order(source: Path, partitions: dict[str, Any]) -> list[str]:
    """Partition folders in the order the directory lists them (``File.listFiles``, which the broker
    loads them in; it decides the log pool order, and so which of equally dirty logs goes first)."""
    listed = [name for name in os.listdir(source) if name in partitions]
    return listed + sorted(set(partitions) - set(listed))


def _report(out: TextIO, sim: Simulation, result: PassResult | None, starts: dict[str, int], *, at_ms: int) -> None:
    logs = sim.partitions()
    out.write(f"{plural(len(logs), 'partition')}; the cleaner's next iteration at {iso_time(at_ms)} ({at_ms} ms):\n")
    if result is None:
        out.write("  no partition is eligible for cleaning\n")
    else:
        merged = [group for group in result.groups if len(group) > 1]
        out.write(f"  cleaned {result.name}:\n    {_indented(result.log_line.strip())}\n")
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


CLEAN = Command(
    name="clean",
    help="write what the broker's next cleaner iteration would leave of a Kafka log dir",
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
