"""The scenario ops, in one table: each op's fields (those the JSON Schema lists), how its step is validated, and
what it runs on a :class:`Simulation`.

``tests/scenario/test_schema.py`` checks ``scenario.schema.json`` against :data:`OPS`: the same ops, each with the
same required and optional fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kcompact_nb.core import Simulation
from kcompact_nb.scenario import _execute, _steps
from kcompact_nb.scenario._context import ParseContext
from kcompact_nb.scenario._errors import ScenarioError
from kcompact_nb.scenario._fields import check_object, join
from kcompact_nb.scenario._model import Step

TARGET = ("topic", "partition")
EXPECT_FIELDS = (
    "retained_offsets",
    "retained_keys",
    "live_state",
    "segment_base_offsets",
    "segment_sizes_bytes",
    "batch_last_offsets",
    "log_start_offset",
    "log_end_offset",
    "checkpoint",
    "cleanable_ratio",
    "tolerance",
    "log_size_bytes",
)
Runner = Callable[[Simulation, Mapping[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Op:
    """One scenario op: its fields besides ``op``, its validation into a step's arguments, what it runs."""

    required: tuple[str, ...]
    optional: tuple[str, ...]
    parse: _steps.Parser
    run: Runner


OPS: dict[str, Op] = {
    "append": Op(
        ("records",),
        (*TARGET, "producer_id", "producer_epoch", "base_sequence", "transactional", "timestamp_type", "compression"),
        _steps.append,
        _execute.append,
    ),
    "load_log_dir": Op(("path",), TARGET, _steps.load_log_dir, _execute.load_log_dir),
    "write_log_dir": Op(("path",), (*TARGET, "overwrite"), _steps.write_log_dir, _execute.write_log_dir),
    "end_txn": Op(
        ("producer_id", "producer_epoch", "commit"),
        (*TARGET, "coordinator_epoch", "timestamp", "offset"),
        _steps.end_txn,
        _execute.end_txn,
    ),
    "roll": Op((), (*TARGET, "base_offset"), _steps.roll, _execute.roll),
    "advance": Op(("ms",), (), _steps.advance, _execute.advance),
    "set_time": Op(("now_ms",), (), _steps.set_time, _execute.set_time),
    "clean": Op(
        (),
        (*TARGET, "first_dirty_offset", "first_uncleanable_offset", "offset_map", "now_ms", "force"),
        _steps.clean,
        _execute.clean,
    ),
    "run_cleaner": Op(("until_ms",), (), _steps.run_cleaner, _execute.run_cleaner),
    "produce": Op(("for_ms",), (), _steps.produce, _execute.produce),
    "set_config": Op(("config",), ("topic",), _steps.set_config, _execute.set_config),
    "set_checkpoint": Op(("offset",), TARGET, _steps.offset_step(), _execute.set_checkpoint),
    "set_high_watermark": Op(("offset",), TARGET, _steps.offset_step(nullable=True), _execute.set_high_watermark),
    "delete_records": Op(("offset",), TARGET, _steps.delete_records, _execute.delete_records),
    "set_log_start_offset": Op(("offset",), TARGET, _steps.offset_step(), _execute.set_log_start_offset),
    "mark_uncleanable": Op((), TARGET, _steps.target, _execute.mark_uncleanable),
    "snapshot": Op(("label",), (), _steps.snapshot, _execute.snapshot),
    "expect": Op((), (*TARGET, *EXPECT_FIELDS), _steps.expect, _execute.expect),
}


def parse_step(raw: Any, index: int, context: ParseContext) -> Step:
    """Validate ``steps[index]`` against the state validation has reached so far."""
    path = f"steps[{index}]"
    if not isinstance(raw, dict) or not isinstance(raw.get("op"), str):
        raise ScenarioError(join(path, "op"), "each step is an object with an 'op' string")
    op = OPS.get(raw["op"])
    if op is None:
        raise ScenarioError(join(path, "op"), f"unknown op {raw['op']!r} (known: {', '.join(sorted(OPS))})")
    fields = check_object(raw, path, required=("op", *op.required), optional=op.optional)
    return Step(index, raw["op"], op.parse(fields, path, context))


def execute(sim: Simulation, step: Step) -> dict[str, Any]:
    """Run one validated step on ``sim``; returns the step's ``result`` object."""
    return OPS[step.op].run(sim, step.args)
