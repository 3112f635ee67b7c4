"""Each scenario op's validation: its fields checked and converted into a step's arguments.

One function per op, named after it; :mod:`kcompact_nb.scenario._ops` tables them with each op's fields and
what it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from kcompact_nb.core import COMPRESSION_CODECS, INT_MAX, NewRecord
from kcompact_nb.scenario._bytes import decode_bytes
from kcompact_nb.scenario._configs import broker_config, topic_config
from kcompact_nb.scenario._context import ParseContext
from kcompact_nb.scenario._errors import ScenarioError
from kcompact_nb.scenario._expect import parse_assertions
from kcompact_nb.scenario._fields import (
    check_bool,
    check_int,
    check_list,
    check_number,
    check_object,
    check_optional_int,
    check_str,
    join,
)

SHORT_MAX = 2**15 - 1
Parser = Callable[[dict[str, Any], str, ParseContext], dict[str, Any]]


def target(raw: Mapping[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    topic, partition = context.target(raw, path)
    return {"topic": topic, "partition": partition}


# -- producing ----------------------------------------------------------------------------


def append(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    args = target(raw, path, context)
    producer_id = check_int(raw.get("producer_id", -1), join(path, "producer_id"), minimum=-1)
    args["producer_id"] = producer_id
    args["producer_epoch"] = check_int(
        raw.get("producer_epoch", -1), join(path, "producer_epoch"), minimum=-1, maximum=SHORT_MAX
    )
    args["base_sequence"] = check_int(
        raw.get("base_sequence", -1), join(path, "base_sequence"), minimum=-1, maximum=INT_MAX
    )
    args["transactional"] = check_bool(raw.get("transactional", False), join(path, "transactional"))
    if args["transactional"] and producer_id < 0:
        raise ScenarioError(join(path, "producer_id"), "a transactional append needs a producer_id >= 0")
    args["timestamp_type"] = check_str(
        raw.get("timestamp_type", "CreateTime"), join(path, "timestamp_type"), choices=("CreateTime", "LogAppendTime")
    )
    compression = check_str(raw.get("compression", "none"), join(path, "compression"))
    if compression not in COMPRESSION_CODECS:
        raise ScenarioError(
            join(path, "compression"), f"{compression!r}: expected one of {', '.join(COMPRESSION_CODECS)}"
        )
    args["compression"] = compression
    compacted = context.topics[args["topic"]].compact
    records = check_list(raw["records"], join(path, "records"), non_empty=True)
    args["records"] = tuple(_record(r, join(join(path, "records"), i), compacted) for i, r in enumerate(records))
    _check_offsets([r.offset for r in args["records"]], join(path, "records"))
    return args


def _record(raw: Any, path: str, compacted: bool) -> NewRecord:
    record = check_object(raw, path, required=("key", "value"), optional=("timestamp", "headers", "offset"))
    key = decode_bytes(record["key"], join(path, "key"))
    if key is None and compacted:
        raise ScenarioError(
            join(path, "key"), "Compacted topic cannot accept message without key (Kafka's INVALID_RECORD)"
        )
    value = decode_bytes(record["value"], join(path, "value"))
    timestamp = check_optional_int(record.get("timestamp"), join(path, "timestamp"), minimum=-1)
    offset = check_optional_int(record.get("offset"), join(path, "offset"), minimum=0)
    headers = tuple(
        _header(h, join(join(path, "headers"), i))
        for i, h in enumerate(check_list(record.get("headers", []), join(path, "headers")))
    )
    return NewRecord(key, value, timestamp, headers, offset)


def _header(raw: Any, path: str) -> tuple[str, bytes | None]:
    if not isinstance(raw, list) or len(raw) != 2:
        raise ScenarioError(path, "a header is [name, value]")
    name = raw[0]
    if not isinstance(name, str):
        raise ScenarioError(join(path, 0), "a header name is a string")
    return name, decode_bytes(raw[1], join(path, 1), allow_long=True)


def _check_offsets(offsets: list[int | None], path: str) -> None:
    given = [o is not None for o in offsets]
    if any(given) and not all(given):
        first_missing = given.index(False)
        raise ScenarioError(
            join(join(path, first_missing), "offset"), "give an offset on every record of the append or on none"
        )
    for i in range(1, len(offsets) if all(given) else 0):
        if offsets[i] <= offsets[i - 1]:  # type: ignore[operator]
            raise ScenarioError(
                join(join(path, i), "offset"), f"offsets must strictly increase ({offsets[i]} after {offsets[i - 1]})"
            )


def end_txn(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    args = target(raw, path, context)
    args["producer_id"] = check_int(raw["producer_id"], join(path, "producer_id"), minimum=0)
    args["producer_epoch"] = check_int(
        raw["producer_epoch"], join(path, "producer_epoch"), minimum=0, maximum=SHORT_MAX
    )
    args["commit"] = check_bool(raw["commit"], join(path, "commit"))
    args["coordinator_epoch"] = check_int(
        raw.get("coordinator_epoch", 0), join(path, "coordinator_epoch"), minimum=0, maximum=INT_MAX
    )
    args["timestamp"] = check_optional_int(raw.get("timestamp"), join(path, "timestamp"), minimum=-1)
    args["offset"] = check_optional_int(raw.get("offset"), join(path, "offset"), minimum=0)
    return args


def roll(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    args = target(raw, path, context)
    args["base_offset"] = check_optional_int(raw.get("base_offset"), join(path, "base_offset"), minimum=0)
    return args


def load_log_dir(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    text = check_str(raw["path"], join(path, "path"))
    directory = Path(text) if context.base_dir is None else context.base_dir / text
    if not directory.is_dir():
        raise ScenarioError(join(path, "path"), f"{directory} is not a directory")
    dir_topic, _, dir_partition = directory.name.rpartition("-")
    defaults: dict[str, Any] = {}
    if dir_topic in context.topics and "topic" not in raw:
        defaults["topic"] = dir_topic
    if dir_partition.isdigit() and "partition" not in raw:
        defaults["partition"] = int(dir_partition)
    args = target({**defaults, **raw}, path, context)
    args["path"] = directory
    return args


def write_log_dir(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    """Every partition, or the one named by ``topic``/``partition``; a relative path is the scenario folder's."""
    text = check_str(raw["path"], join(path, "path"))
    if not text:
        raise ScenarioError(join(path, "path"), "give the folder to write the log dir to")
    directory = Path(text) if context.base_dir is None else context.base_dir / text
    if directory.exists() and not directory.is_dir():
        raise ScenarioError(join(path, "path"), f"{directory} is a file, not a folder")
    targeted = "topic" in raw or "partition" in raw
    args: dict[str, Any] = target(raw, path, context) if targeted else {"topic": None, "partition": None}
    args["path"] = directory
    args["overwrite"] = check_bool(raw.get("overwrite", False), join(path, "overwrite"))
    return args


# -- clock ---------------------------------------------------------------------------------


def advance(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    ms = check_int(raw["ms"], join(path, "ms"), minimum=0)
    context.now_ms += ms
    return {"ms": ms}


def set_time(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    now_ms = check_int(raw["now_ms"], join(path, "now_ms"), minimum=context.now_ms)
    context.now_ms = now_ms
    return {"now_ms": now_ms}


# -- cleaning ------------------------------------------------------------------------------


def clean(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    if len(raw) == 1:
        return {"targeted": False}
    args = target(raw, path, context)
    args["targeted"] = True
    args["first_dirty_offset"] = check_optional_int(
        raw.get("first_dirty_offset"), join(path, "first_dirty_offset"), minimum=0
    )
    args["first_uncleanable_offset"] = check_optional_int(
        raw.get("first_uncleanable_offset"), join(path, "first_uncleanable_offset"), minimum=0
    )
    args["now_ms"] = check_optional_int(raw.get("now_ms"), join(path, "now_ms"), minimum=0)
    args["force"] = check_bool(raw.get("force", False), join(path, "force"))
    args["offset_map"] = (
        None if raw.get("offset_map") is None else _offset_map(raw["offset_map"], join(path, "offset_map"))
    )
    return args


def _offset_map(raw: Any, path: str) -> dict[str, Any]:
    spec = check_object(raw, path, optional=("slots", "load_factor", "memory_bytes"))
    if ("slots" in spec) == ("memory_bytes" in spec):
        raise ScenarioError(path, 'give exactly one of {"slots": N} or {"memory_bytes": N}')
    args: dict[str, Any] = {
        "load_factor": check_number(
            spec.get("load_factor", 0.9), join(path, "load_factor"), low=0, high=1, low_open=True
        )
    }
    if "slots" in spec:
        args["slots"] = check_int(spec["slots"], join(path, "slots"), minimum=1, maximum=INT_MAX)
    else:
        args["memory_bytes"] = check_int(spec["memory_bytes"], join(path, "memory_bytes"), minimum=1, maximum=INT_MAX)
    return args


def produce(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    if context.produce is None:
        raise ScenarioError(join(path, "op"), "a produce step plays the scenario's produce model: declare produce")
    for_ms = check_int(raw["for_ms"], join(path, "for_ms"), minimum=1)
    start = context.now_ms
    context.now_ms = start + for_ms
    return {"from_ms": start, "until_ms": context.now_ms}


def run_cleaner(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    until_ms = check_int(raw["until_ms"], join(path, "until_ms"), minimum=context.now_ms)
    context.now_ms = until_ms
    return {"until_ms": until_ms}


# -- configs and offsets -------------------------------------------------------------------


def set_config(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    config_path = join(path, "config")
    changes = check_object(
        raw["config"], config_path, optional=tuple(raw["config"]) if isinstance(raw["config"], dict) else ()
    )
    if "topic" not in raw:
        context.broker_properties.update(changes)
        context.broker = broker_config(context.broker_properties, config_path)
        for topic, overrides in context.topic_properties.items():
            context.topics[topic] = topic_config(overrides, config_path, broker=context.broker)
        return {"topic": None, "config": dict(changes)}
    topic, _ = context.target({"topic": raw["topic"]}, path)
    overrides = {**context.topic_properties[topic], **changes}
    context.topics[topic] = topic_config(overrides, config_path, broker=context.broker)
    context.topic_properties[topic] = overrides
    return {"topic": topic, "config": dict(changes)}


def offset_step(*, nullable: bool = False) -> Parser:
    def parse(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
        args = target(raw, path, context)
        check = check_optional_int if nullable else check_int
        args["offset"] = check(raw["offset"], join(path, "offset"), minimum=0)
        return args

    return parse


def delete_records(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    args = offset_step()(raw, path, context)
    if not context.topics[args["topic"]].delete:
        message = "DeleteRecords needs 'delete' in the topic's cleanup.policy (Kafka's PolicyViolationException)"
        raise ScenarioError(join(path, "op"), message)
    return args


def snapshot(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    label = check_str(raw["label"], join(path, "label"))
    if label in context.labels:
        raise ScenarioError(join(path, "label"), f"snapshot label {label!r} is already used")
    context.labels.add(label)
    return {"label": label}


def expect(raw: dict[str, Any], path: str, context: ParseContext) -> dict[str, Any]:
    args = target(raw, path, context)
    args["assertions"] = parse_assertions(raw, path)
    return args
