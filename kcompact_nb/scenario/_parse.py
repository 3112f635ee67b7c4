"""Parsing and validation of ``kcompact-scenario/1`` documents (see ``docs/scenario-format.md``).

Everything is checked before anything runs: fields, ops, configs (with Kafka's own config
checks), topics and partitions, the clock never going backwards, keyless records on compacted
topics. Errors are :class:`ScenarioError` with the JSON path of the offending item.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kcompact_nb.core import KcompactError
from kcompact_nb.io import read_input
from kcompact_nb.scenario._configs import broker_config, key_path, topic_config
from kcompact_nb.scenario._context import ParseContext
from kcompact_nb.scenario._errors import ScenarioError
from kcompact_nb.scenario._fields import check_int, check_list, check_object, check_str, join
from kcompact_nb.scenario._model import FORMAT, Scenario, Step, TopicSpec
from kcompact_nb.scenario._ops import parse_step
from kcompact_nb.scenario._produce import parse_produce

MAX_SCENARIO_BYTES = 256 * 1024**2
"""The largest scenario file read (256 MiB)."""
_TOPIC_NAME = re.compile(r"^[A-Za-z0-9._-]{1,249}$")


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file; relative paths in it resolve against its folder.

    The file is UTF-8 JSON (a byte order mark before it is dropped) of at most :data:`MAX_SCENARIO_BYTES`; ``NaN``
    and ``Infinity``, which Python's reader would take, are not JSON and are refused, as is nesting deeper than
    Python's reader goes.
    """
    file = Path(path)
    try:
        data = read_input(file, "scenario file", limit=MAX_SCENARIO_BYTES)
    except KcompactError as error:
        raise ScenarioError("", str(error)) from None
    try:
        document = json.loads(data.decode("utf-8").removeprefix("\ufeff"), parse_constant=_not_json_constant)
    except json.JSONDecodeError as exc:
        raise ScenarioError("", f"{file}: not valid JSON ({exc})") from None
    except _NotJsonConstant as exc:
        raise ScenarioError("", f"{file}: not valid JSON ({exc} is not a JSON value; give a number)") from None
    except UnicodeDecodeError as exc:
        where = f"byte 0x{exc.object[exc.start]:02x} at position {exc.start}"
        raise ScenarioError("", f"{file}: not UTF-8 text ({where}); a scenario file is JSON in UTF-8") from None
    except RecursionError:
        message = f"{file}: arrays and objects nested too deeply (a scenario nests a few levels; Python's reader stops"
        raise ScenarioError("", f"{message} at about {sys.getrecursionlimit():,})") from None
    return parse_scenario(document, base_dir=file.resolve().parent)


class _NotJsonConstant(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity``: Python's reader takes them, JSON has no such values."""


def _not_json_constant(name: str) -> Any:
    raise _NotJsonConstant(name)


def parse_scenario(document: Any, *, base_dir: str | Path | None = None) -> Scenario:
    """Validate a scenario document (already decoded from JSON) into a :class:`Scenario`."""
    doc = check_object(
        document,
        "",
        required=("format", "topics"),
        optional=("name", "description", "start_ms", "broker", "produce", "steps"),
    )
    if doc["format"] != FORMAT:
        raise ScenarioError("format", f"expected {FORMAT!r}, got {doc['format']!r}")
    name = check_str(doc.get("name", "scenario"), "name")
    description = doc.get("description", "")
    if not isinstance(description, str):
        raise ScenarioError("description", "expected a string")
    start_ms = check_int(doc.get("start_ms", 0), "start_ms", minimum=0)
    context = _context(doc, start_ms, None if base_dir is None else Path(base_dir))
    if "produce" in doc:
        context.produce = parse_produce(doc["produce"], context)
    raw_steps = check_list(doc.get("steps", []), "steps")
    steps = tuple(parse_step(raw, index, context) for index, raw in enumerate(raw_steps))
    topics = {t: TopicSpec(context.partitions[t], dict(doc["topics"][t].get("config", {}))) for t in context.topics}
    broker = dict(doc.get("broker", {}))
    steps = _with_produce_horizon(steps, start_ms, context)
    return Scenario(name, description, start_ms, broker, topics, steps, context.base_dir, context.produce)


def _with_produce_horizon(steps: tuple[Step, ...], start_ms: int, context: ParseContext) -> tuple[Step, ...]:
    """``produce`` steps with the model and how far every step together draws it (one stream for all)."""
    ends = [step.args["until_ms"] for step in steps if step.op == "produce"]
    if not ends:
        return steps
    shared = {"model": context.produce, "start_ms": start_ms, "horizon_ms": max(ends) - start_ms}
    return tuple(Step(s.index, s.op, {**s.args, **shared}) if s.op == "produce" else s for s in steps)


def _context(doc: Mapping[str, Any], start_ms: int, base_dir: Path | None) -> ParseContext:
    broker_properties = dict(doc.get("broker", {})) if isinstance(doc.get("broker", {}), dict) else doc["broker"]
    broker = broker_config(broker_properties, "broker")
    context = ParseContext(dict(broker_properties), broker, {}, {}, {}, start_ms, base_dir)
    topics = check_object(
        doc["topics"], "topics", optional=tuple(doc["topics"]) if isinstance(doc["topics"], dict) else ()
    )
    if not topics:
        raise ScenarioError("topics", "declare at least one topic")
    for name, spec in topics.items():
        _declare_topic(context, name, spec, key_path("topics", name))
    return context


def _declare_topic(context: ParseContext, name: str, spec: Any, path: str) -> None:
    if not _TOPIC_NAME.match(name):
        raise ScenarioError(path, "a topic name is 1-249 characters from [a-zA-Z0-9._-] (Kafka's Topic.validate)")
    spec = check_object(spec, path, optional=("partitions", "config"))
    partitions = check_int(spec.get("partitions", 1), join(path, "partitions"), minimum=1, maximum=10_000)
    raw_config = spec.get("config", {})
    check_object(raw_config, join(path, "config"), optional=tuple(raw_config) if isinstance(raw_config, dict) else ())
    overrides = {"cleanup.policy": "compact", **raw_config}
    context.topics[name] = topic_config(overrides, join(path, "config"), broker=context.broker)
    context.topic_properties[name] = overrides
    context.partitions[name] = partitions
