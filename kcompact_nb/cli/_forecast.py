"""``kcompact forecast FILE [--days N]``: run a broker's cleaner forward under a scenario file's produce model.

Prints what people ask before a compacted topic exists: its size on disk against its live data, how often each
partition is cleaned and whether the cleaner keeps up, how busy the threads are, Kafka's cleaner metrics as they
would read, how long removed records stay, the first passes; ``--what-if`` runs a second forecast under other
configs or another load and prints both side by side (docs/forecast.md).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from kcompact_nb.cli._command import Command
from kcompact_nb.cli._exit import ExitCode
from kcompact_nb.cli._paths import existing_file
from kcompact_nb.core import (
    BrokerConfig,
    Forecast,
    KcompactError,
    TopicConfig,
    forecast,
    forecast_summary,
    lifetimes_table,
    metrics_table,
    partition_table,
    passes_table,
    table_text,
    thread_table,
    what_if_table,
)
from kcompact_nb.scenario import Scenario, ScenarioError, load_scenario

DAY_MS = 86_400_000
MODES = ("auto", "exact", "folded")


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="scenario file with a produce section (its broker, topics, start_ms)")
    horizon = parser.add_mutually_exclusive_group()
    horizon.add_argument("--days", type=float, help="how far to run the cleaner forward (default 7)")
    horizon.add_argument("--hours", type=float, help="how far to run the cleaner forward, in hours")
    parser.add_argument("--mode", choices=MODES, default="auto", help="exact, folded, or auto (default)")
    parser.add_argument(
        "--what-if",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a second forecast with this broker property, topic config (TOPIC:NAME=VALUE for one topic) or "
        "rate=FACTOR (every topic's records/s times FACTOR); repeat to change several",
    )
    parser.add_argument("--passes", type=int, default=10, help="how many of the first passes to list (default 10)")
    parser.add_argument("--json", action="store_true", help="print the forecast as JSON (kcompact-forecast/1)")


def _run(args: argparse.Namespace, out: TextIO) -> int:
    existing_file(args.file, "scenario file")
    try:
        scenario = load_scenario(args.file)
    except ScenarioError as error:
        raise KcompactError(f"invalid scenario {args.file}: {str(error).removeprefix(f'{args.file}: ')}") from None
    if scenario.produce is None:
        raise KcompactError(f"{args.file} has no produce section: kcompact forecast runs a produce model")
    days = args.days if args.days is not None else (args.hours / 24 if args.hours is not None else 7.0)
    if not 0 < days <= 366:
        raise KcompactError(f"--days {days:g}: expected more than 0 and at most 366")
    setup = _setup(scenario)
    changed = _what_if(scenario, setup, args.what_if) if args.what_if else None  # refused before any forecast runs
    base = _forecast(scenario, setup, days, args.mode)
    other = None if changed is None else _forecast(scenario, changed, days, args.mode)
    if args.json:
        out.write(json.dumps(_document(base, other, args.what_if), indent=2) + "\n")
    else:
        _print(out, base, other, args.what_if, args.passes)
    return ExitCode.OK


def _setup(scenario: Scenario) -> dict[str, Any]:
    topics = {
        name: {"partitions": spec.partitions, "config": dict(spec.config)} for name, spec in scenario.topics.items()
    }
    return {"broker": dict(scenario.broker), "topics": topics, "rate": 1.0}


def _forecast(scenario: Scenario, setup: dict[str, Any], days: float, mode: str) -> Forecast:
    assert scenario.produce is not None
    model = scenario.produce if setup["rate"] == 1.0 else scenario.produce.with_rates_times(setup["rate"])
    return forecast(
        model, days=days, broker=setup["broker"], topics=setup["topics"], start_ms=scenario.start_ms, mode=mode
    )


def _what_if(scenario: Scenario, setup: dict[str, Any], items: list[str]) -> dict[str, Any]:
    """The setup with each ``NAME=VALUE`` applied, checked as Kafka checks it."""
    changed = {"broker": dict(setup["broker"]), "topics": json.loads(json.dumps(setup["topics"])), "rate": 1.0}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise KcompactError(f"--what-if {item!r}: expected NAME=VALUE, TOPIC:NAME=VALUE or rate=FACTOR")
        name, value = name.strip(), value.strip()
        if name == "rate":
            changed["rate"] = _factor(item, value)
            continue
        topic, _, config = name.rpartition(":") if ":" in name else ("", "", name)
        if config in BrokerConfig.property_names() and not topic:
            changed["broker"][config] = value
        elif config in TopicConfig.property_names():
            for target in [topic] if topic else list(changed["topics"]):
                if target not in changed["topics"]:
                    raise KcompactError(f"--what-if {item!r}: no topic {target!r} in {scenario.name!r}")
                changed["topics"][target]["config"][config] = value
        else:
            raise KcompactError(f"--what-if {item!r}: {config!r} is neither a broker property nor a topic config")
    _validate(changed)
    return changed


def _factor(item: str, value: str) -> float:
    try:
        factor = float(value.removeprefix("x"))
    except ValueError:
        raise KcompactError(f"--what-if {item!r}: rate=FACTOR takes a number, e.g. rate=2") from None
    if not 0 <= factor <= 1000:
        raise KcompactError(f"--what-if {item!r}: the factor must lie in [0, 1000]")
    return factor


def _validate(setup: dict[str, Any]) -> None:
    broker = BrokerConfig.from_properties(setup["broker"])
    for spec in setup["topics"].values():
        TopicConfig.from_properties({"cleanup.policy": "compact", **spec["config"]}, broker=broker)


def _print(out: TextIO, base: Forecast, other: Forecast | None, what_if: list[str], passes: int) -> None:
    lines = [f"{label}: {value}" for label, value in forecast_summary(base)]
    sections = [
        ("partitions", partition_table(base)),
        ("cleaner threads", thread_table(base)),
        ("Kafka's cleaner metrics, as they would read", metrics_table(base)),
        ("how long removed records stay on disk", lifetimes_table(base)),
        (f"the first {passes} passes", passes_table(base, limit=passes)),
    ]
    if other is not None:
        sections.insert(0, ("what if " + ", ".join(what_if), what_if_table({"as is": base, "what if": other})))
    for heading, rows in sections:
        lines += ["", heading + ":", table_text(rows)]
    lines += ["", "notes:"] + [f"  - {note}" for note in base.notes]
    out.write("\n".join(lines) + "\n")


def _document(base: Forecast, other: Forecast | None, what_if: list[str]) -> dict[str, Any]:
    document: dict[str, Any] = {"format": "kcompact-forecast/1", **_forecast_document(base)}
    if other is not None:
        document["what_if"] = {"changes": what_if, **_forecast_document(other)}
    return document


def _forecast_document(fc: Forecast) -> dict[str, Any]:
    return {
        "start_ms": fc.start_ms,
        "horizon_ms": fc.horizon_ms,
        "mode": fc.mode,
        "key_fraction": fc.key_fraction,
        "summary": dict(forecast_summary(fc)),
        "produced_bytes": dict(fc.produced_bytes),
        "partitions": partition_table(fc),
        "threads": thread_table(fc),
        "metrics": {name: {"end": end, "largest": most} for name, (end, most) in fc.metrics_summary().items()},
        "passes": [
            {
                "partition": p.name,
                "thread": p.thread,
                "start_ms": p.start_ms,
                "end_ms": p.end_ms,
                "first_dirty_offset": p.first_dirty_offset,
                "first_uncleanable_offset": p.first_uncleanable_offset,
                "end_offset": p.end_offset,
                "cleanable_ratio": p.cleanable_ratio,
                "size_before_bytes": p.size_before_bytes,
                "size_after_bytes": p.size_after_bytes,
                "bytes_read": p.bytes_read,
                "bytes_written": p.bytes_written,
                "map_entries": p.map_entries,
                "map_full": p.map_full,
                "dirty_keys": p.dirty_keys,
                "dedupe_buffer_needed_bytes": fc.buffer_needed_bytes(p),
            }
            for p in fc.passes
        ],
        "notes": fc.notes,
    }


COMMAND = Command(
    name="forecast",
    description="Run a broker's cleaner forward over days or weeks under a scenario file's produce model, and "
    "print sizes, passes, threads, Kafka's cleaner metrics and record lifetimes (docs/forecast.md).",
    add_arguments=_add_arguments,
    run=_run,
)
