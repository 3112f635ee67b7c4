"""Scenario validation: every error names its JSON path, and nothing runs (docs/scenario-format.md)."""

from __future__ import annotations

import struct

import pytest

from kcompact_nb.core import json_bytes
from kcompact_nb.scenario import ScenarioError, parse_scenario
from kcompact_nb.scenario._bytes import decode_bytes
from tests.scenario.conftest import scenario

APPEND = {"op": "append", "records": [{"key": "k", "value": "v"}]}


@pytest.mark.parametrize(
    ("document", "path", "message"),
    [
        ({**scenario(), "format": "kcompact-scenario/2"}, "format", "expected 'kcompact-scenario/1'"),
        ({**scenario(), "extra": 1}, "extra", "unknown field"),
        (scenario(topics={}), "topics", "at least one topic"),
        (scenario(topics={"bad name": {}}), 'topics["bad name"]', "topic name"),
        (
            scenario(topics={"t": {"config": {"segment.byts": 1}}}),
            'topics.t.config["segment.byts"]',
            "Unknown configuration",
        ),
        (
            scenario(topics={"t": {"config": {"min.cleanable.dirty.ratio": 1.5}}}),
            'topics.t.config["min.cleanable.dirty.ratio"]',
            r"must be in \[0, 1\]",
        ),
        (scenario(broker={"log.cleaner.threads": -1}), 'broker["log.cleaner.threads"]', "at least"),
        (scenario({"op": "compact"}), "steps[0].op", "unknown op 'compact'"),
        (scenario({"op": "append"}), "steps[0].records", "missing required field"),
        (scenario({**APPEND, "colour": "red"}), "steps[0].colour", "unknown field"),
        (
            scenario(APPEND, {"op": "append", "records": [{"key": None, "value": "v"}]}),
            "steps[1].records[0].key",
            "without key",
        ),
        (
            scenario({"op": "append", "records": [{"key": {"hex": "00"}, "value": "v"}]}),
            "steps[0].records[0].key",
            "base64",
        ),
        (
            scenario({"op": "append", "records": [{"key": {"base64": "!!"}, "value": "v"}]}),
            "steps[0].records[0].key.base64",
            "invalid base64",
        ),
        (
            scenario({"op": "append", "records": [{"key": "k", "value": {"long": 1}}]}),
            "steps[0].records[0].value",
            "expected",
        ),
        (
            scenario({"op": "append", "records": [{"key": "k", "value": "v", "headers": [["h", {"long": 2**63}]]}]}),
            "steps[0].records[0].headers[0][1].long",
            "64-bit",
        ),
        (
            scenario({"op": "append", "records": [{"key": "k", "value": "v", "timestamp": -2}]}),
            "steps[0].records[0].timestamp",
            "out of range",
        ),
        (
            scenario(
                {"op": "append", "records": [{"key": "k", "value": "v", "offset": 3}, {"key": "k", "value": "v"}]}
            ),
            "steps[0].records[1].offset",
            "every record",
        ),
        (
            scenario(
                {
                    "op": "append",
                    "records": [{"key": "k", "value": "v", "offset": 3}, {"key": "k", "value": "v", "offset": 3}],
                }
            ),
            "steps[0].records[1].offset",
            "strictly increase",
        ),
        (scenario({**APPEND, "transactional": True}), "steps[0].producer_id", "transactional"),
        (scenario({**APPEND, "compression": "brotli"}), "steps[0].compression", "'brotli': expected one of none, gzip"),
        (scenario({**APPEND, "partition": 1}), "steps[0].partition", "out of range"),
        (scenario({**APPEND, "topic": "u"}), "steps[0].topic", "not declared"),
        (scenario(APPEND, topics={"t": {}, "u": {}}), "steps[0].topic", "several topics"),
        (scenario({"op": "advance", "ms": 10}, {"op": "set_time", "now_ms": 5}), "steps[1].now_ms", "out of range"),
        (
            scenario({"op": "set_time", "now_ms": 50}, {"op": "run_cleaner", "until_ms": 40}),
            "steps[1].until_ms",
            "out of range",
        ),
        (
            scenario(
                {"op": "set_config", "topic": "t", "config": {"min.compaction.lag.ms": 10, "max.compaction.lag.ms": 5}}
            ),
            "steps[0].config",
            "must not exceed",
        ),
        (
            scenario({"op": "set_config", "config": {"segment.bytes": 5}}),
            'steps[0].config["segment.bytes"]',
            "Unknown configuration",
        ),
        (scenario({"op": "delete_records", "offset": 1}), "steps[0].op", "cleanup.policy"),
        (
            scenario({"op": "clean", "offset_map": {"slots": 3, "memory_bytes": 72}}),
            "steps[0].offset_map",
            "exactly one",
        ),
        (
            scenario({"op": "clean", "offset_map": {"slots": 3, "load_factor": 0}}),
            "steps[0].offset_map.load_factor",
            "out of range",
        ),
        (
            scenario({"op": "snapshot", "label": "a"}, {"op": "snapshot", "label": "a"}),
            "steps[1].label",
            "already used",
        ),
        (scenario({"op": "expect"}), "steps[0]", "at least one assertion"),
        (scenario({"op": "expect", "tolerance": 0.1}), "steps[0].tolerance", "cleanable_ratio"),
        (scenario({"op": "expect", "retained_offsets": [0, "1"]}), "steps[0].retained_offsets[1]", "integer"),
        (scenario({"op": "expect", "live_state": {"k": None}}), "steps[0].live_state.k", "live keys only"),
        (scenario({"op": "set_high_watermark"}), "steps[0].offset", "missing"),
        (scenario({"op": "load_log_dir", "path": "no/such/t-0"}), "steps[0].path", "not a directory"),
    ],
)
def test_invalid_scenarios_name_the_json_path(document, path, message):
    with pytest.raises(ScenarioError, match=message) as info:
        parse_scenario(document)
    assert info.value.path == path
    assert str(info.value).startswith(f"{path}: ")


def test_a_valid_scenario_with_every_op_parses():
    doc = scenario(
        APPEND,
        {
            "op": "append",
            "records": [{"key": "k", "value": "v", "offset": 5}],
            "producer_id": 7,
            "producer_epoch": 0,
            "transactional": True,
        },
        {"op": "end_txn", "producer_id": 7, "producer_epoch": 0, "commit": False},
        {"op": "roll", "base_offset": 9},
        {"op": "advance", "ms": 5},
        {"op": "set_time", "now_ms": 10},
        {"op": "clean"},
        {"op": "clean", "offset_map": {"memory_bytes": 240}, "force": True, "now_ms": 3},
        {"op": "run_cleaner", "until_ms": 100},
        {"op": "set_config", "config": {"log.cleaner.backoff.ms": 5}},
        {"op": "set_config", "topic": "t", "config": {"cleanup.policy": "compact,delete"}},
        {"op": "delete_records", "offset": 1},
        {"op": "set_checkpoint", "offset": 1000},
        {"op": "set_high_watermark", "offset": None},
        {"op": "set_log_start_offset", "offset": 1},
        {"op": "mark_uncleanable"},
        {"op": "snapshot", "label": "s"},
        {"op": "expect", "retained_offsets": [0], "cleanable_ratio": 0.5, "tolerance": 0.01, "checkpoint": None},
        start_ms=0,
        name="all ops",
    )
    parsed = parse_scenario(doc)
    assert [s.op for s in parsed.steps] == [s["op"] for s in doc["steps"]]
    assert parsed.steps[6].args == {"targeted": False}
    assert parsed.steps[7].args["offset_map"] == {"memory_bytes": 240, "load_factor": 0.9}
    assert parsed.steps[1].args["records"][0].offset == 5
    assert parsed.steps[0].args["topic"] == "t" and parsed.steps[0].args["partition"] == 0
    assert parsed.steps[9].args == {"topic": None, "config": {"log.cleaner.backoff.ms": 5}}


def test_a_keyless_record_is_fine_on_a_delete_topic():
    doc = scenario(
        {"op": "append", "records": [{"key": None, "value": "v"}]},
        topics={"t": {"config": {"cleanup.policy": "delete"}}},
    )
    assert parse_scenario(doc).steps[0].args["records"][0].key is None


def test_bytes_encodings_round_trip():
    assert decode_bytes("grape", "p") == b"grape"
    assert decode_bytes(None, "p") is None
    assert decode_bytes({"base64": "/wA="}, "p") == b"\xff\x00"
    assert decode_bytes({"long": -2}, "p", allow_long=True) == struct.pack(">q", -2)
    assert json_bytes(b"\xff\x00") == {"base64": "/wA="}
    assert json_bytes("prix €".encode()) == "prix €"
    assert json_bytes(None) is None
