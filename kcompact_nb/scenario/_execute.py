"""What each scenario op does to a :class:`Simulation`, and the result it reports.

One function per op, named after it (tabled in :mod:`kcompact_nb.scenario._ops`); the result document's parts they
share, a pass's result and the partitions' states, are core's rows (``pass_result_row``, ``partition_row``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kcompact_nb.core import AppendInfo, OffsetMapSpec, Simulation, partition_row, pass_result_row, play_model
from kcompact_nb.io import (
    CLEANER_OFFSET_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    parse_partition_dir_name,
    read_checkpoint,
    read_partition_dir,
    write_broker_log_dir,
)
from kcompact_nb.scenario._expect import check_assertions


def _where(args: Mapping[str, Any]) -> dict[str, Any]:
    return {"topic": args["topic"], "partition": args["partition"]}


def _appended(info: AppendInfo) -> dict[str, Any]:
    return {
        "topic": info.topic,
        "partition": info.partition,
        "first_offset": info.first_offset,
        "last_offset": info.last_offset,
        "rolled": info.rolled,
    }


def append(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    info = sim.append(
        args["topic"],
        args["records"],
        partition=args["partition"],
        producer_id=args["producer_id"],
        producer_epoch=args["producer_epoch"],
        base_sequence=args["base_sequence"],
        transactional=args["transactional"],
        timestamp_type=args["timestamp_type"],
        compression=args["compression"],
    )
    return _appended(info)


def end_txn(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    info = sim.end_txn(
        args["topic"],
        args["producer_id"],
        args["producer_epoch"],
        commit=args["commit"],
        partition=args["partition"],
        coordinator_epoch=args["coordinator_epoch"],
        timestamp=args["timestamp"],
        offset=args["offset"],
    )
    return _appended(info)


def roll(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    segment = sim.roll(args["topic"], partition=args["partition"], base_offset=args["base_offset"])
    return {**_where(args), "base_offset": segment.base_offset}


def load_log_dir(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    """A real partition directory, with the parent log dir's log start and cleaner checkpoints."""
    path: Path = args["path"]
    topic, partition = args["topic"], args["partition"]
    key = parse_partition_dir_name(path)
    loaded = read_partition_dir(
        path,
        config=sim.topics[topic],
        broker=sim.broker,
        log_start_offset=read_checkpoint(path.parent / LOG_START_OFFSET_CHECKPOINT).get(key),
        cleaner_checkpoint=read_checkpoint(path.parent / CLEANER_OFFSET_CHECKPOINT).get(key),
    )
    log = loaded.log
    log.topic, log.partition = topic, partition
    sim.replace_log(log)
    return {
        **_where(args),
        "log_start_offset": log.log_start_offset,
        "log_end_offset": log.log_end_offset,
        "segments": len(log.segments),
        "checkpoint": log.cleaner_checkpoint,
    }


def write_log_dir(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    """The simulation's partitions in Kafka's layout, every file from the model (``io.write_broker_log_dir``)."""
    logs = sim.partitions() if args["topic"] is None else [sim.log(args["topic"], args["partition"])]
    root = write_broker_log_dir(logs, args["path"], overwrite=args["overwrite"])
    return {"path": str(root), "partitions": [log.name for log in logs]}


def clean(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    if not args["targeted"]:
        return pass_result_row(sim.clean())
    spec = None
    if args["offset_map"] is not None:
        spec = OffsetMapSpec(**args["offset_map"])
    result = sim.clean_log(
        args["topic"],
        partition=args["partition"],
        first_dirty_offset=args["first_dirty_offset"],
        first_uncleanable_offset=args["first_uncleanable_offset"],
        offset_map=spec,
        now_ms=args["now_ms"],
        force=args["force"],
    )
    return pass_result_row(result)


def produce(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    played = play_model(
        sim,
        args["model"],
        start_ms=args["start_ms"],
        from_ms=args["from_ms"],
        until_ms=args["until_ms"],
        horizon_ms=args["horizon_ms"],
    )
    return {
        "batches": played.batches,
        "records": played.records,
        "markers": played.markers,
        "passes": [pass_result_row(p) for p in played.passes],
        "now_ms": sim.now_ms,
    }


def run_cleaner(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    passes = sim.run_cleaner(args["until_ms"])
    return {"passes": [pass_result_row(p) for p in passes], "now_ms": sim.now_ms}


def set_config(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    sim.set_config(args["config"], topic=args["topic"])
    return {"topic": args["topic"], "config": dict(args["config"])}


def set_checkpoint(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    sim.set_checkpoint(args["topic"], args["offset"], partition=args["partition"])
    return {**_where(args), "checkpoint": args["offset"]}


def set_high_watermark(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    sim.set_high_watermark(args["topic"], args["offset"], partition=args["partition"])
    return {**_where(args), "high_watermark": sim.log(args["topic"], args["partition"]).high_watermark}


def delete_records(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    start = sim.delete_records(args["topic"], args["offset"], partition=args["partition"])
    return {**_where(args), "log_start_offset": start}


def set_log_start_offset(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    start = sim.set_log_start_offset(args["topic"], args["offset"], partition=args["partition"])
    return {**_where(args), "log_start_offset": start}


def mark_uncleanable(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    sim.mark_uncleanable(args["topic"], partition=args["partition"])
    return _where(args)


def expect(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    log = sim.log(args["topic"], args["partition"])
    failures = check_assertions(log, args["assertions"], now_ms=sim.now_ms)
    for failure in failures:
        failure.update(_where(args))
    return {"passed": not failures, "failures": failures}


def advance(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    return {"now_ms": sim.advance(args["ms"])}


def set_time(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    return {"now_ms": sim.set_time(args["now_ms"])}


def snapshot(sim: Simulation, args: Mapping[str, Any]) -> dict[str, Any]:
    return {"label": sim.snapshot(args["label"]).label}


def states(sim: Simulation) -> dict[str, Any]:
    """``{"topic-partition": partition state}`` of every partition at the current time."""
    return {log.name: partition_row(log, now_ms=sim.now_ms) for log in sim.partitions()}
