"""Runner and result document for steps that need no cleaner (docs/scenario-format.md, Result document)."""

from __future__ import annotations

import json

import pytest

from kcompact_nb.cli import main
from kcompact_nb.scenario import ScenarioError, ScenarioRunner, parse_scenario, run_scenario
from tests.scenario.conftest import scenario, without_dirtiness

TXN = {"producer_id": 7, "producer_epoch": 0, "transactional": True}


def _run(*steps, **top):
    return run_scenario(parse_scenario(scenario(*steps, **top)))


def test_step_results_snapshots_and_final_states():
    result = _run(
        {"op": "append", "records": [{"key": "k", "value": "v", "timestamp": 5, "headers": [["h", {"long": 1}]]}]},
        {"op": "append", "records": [{"key": {"base64": "/w=="}, "value": None}], **TXN},
        {"op": "snapshot", "label": "open-txn"},
        {"op": "end_txn", "producer_id": 7, "producer_epoch": 0, "commit": False, "timestamp": 9},
        {"op": "advance", "ms": 10},
        {"op": "roll"},
        {"op": "set_checkpoint", "offset": 1},
        start_ms=3,
    )
    assert result["format"] == "kcompact-scenario-result/1" and result["passed"] is True
    assert [(s["index"], s["op"], s["result"]) for s in result["steps"]] == [
        (0, "append", {"topic": "t", "partition": 0, "first_offset": 0, "last_offset": 0, "rolled": False}),
        (1, "append", {"topic": "t", "partition": 0, "first_offset": 1, "last_offset": 1, "rolled": False}),
        (2, "snapshot", {"label": "open-txn"}),
        (3, "end_txn", {"topic": "t", "partition": 0, "first_offset": 2, "last_offset": 2, "rolled": False}),
        (4, "advance", {"now_ms": 13}),
        (5, "roll", {"topic": "t", "partition": 0, "base_offset": 3}),
        (6, "set_checkpoint", {"topic": "t", "partition": 0, "checkpoint": 1}),
    ]
    snap = without_dirtiness(result["snapshots"]["open-txn"])["t-0"]
    assert (snap["log_end_offset"], snap["high_watermark"], snap["last_stable_offset"], snap["checkpoint"]) == (
        2,
        2,
        1,
        None,
    )
    final = without_dirtiness(result["final"])["t-0"]
    assert {
        k: final[k]
        for k in ("log_start_offset", "log_end_offset", "high_watermark", "last_stable_offset", "checkpoint")
    } == {
        "log_start_offset": 0,
        "log_end_offset": 3,
        "high_watermark": 3,
        "last_stable_offset": 3,
        "checkpoint": 1,
    }
    first, active = final["segments"]
    assert (active["base_offset"], active["size_bytes"], active["batches"]) == (3, 0, [])
    assert first["aborted_transactions"] == [
        {"producer_id": 7, "first_offset": 1, "last_offset": 2, "last_stable_offset": 3}
    ]
    # Header values are encoded like keys: a string when the bytes are valid UTF-8.
    assert [b["records"] for b in first["batches"][:2]] == [
        [{"offset": 0, "timestamp": 5, "key": "k", "value": "v", "headers": [["h", "\x00" * 7 + "\x01"]]}],
        [{"offset": 1, "timestamp": 3, "key": {"base64": "/w=="}, "value": None, "headers": []}],
    ]
    marker = first["batches"][2]
    assert (marker["control"], marker["transactional"], marker["size_bytes"], marker["max_timestamp"]) == (
        True,
        True,
        78,
        9,
    )
    assert first["size_bytes"] == sum(b["size_bytes"] for b in first["batches"])


def test_expect_failures_name_the_assertion_and_show_both_values():
    result = _run(
        {
            "op": "append",
            "records": [{"key": "a", "value": "1"}, {"key": "a", "value": None}, {"key": "b", "value": "2"}],
        },
        {
            "op": "expect",
            "retained_offsets": [0, 1, 2],
            "retained_keys": ["a", "b"],
            "live_state": {"b": "2"},
            "log_end_offset": 3,
        },
        {"op": "expect", "live_state": {"a": "1"}, "checkpoint": 0, "log_size_bytes": 1},
    )
    assert result["steps"][1]["result"] == {"passed": True, "failures": []}
    failures = result["steps"][2]["result"]["failures"]
    assert result["passed"] is False
    assert [(f["assertion"], f["expected"], f["actual"]) for f in failures] == [
        ("live_state", {"a": "1"}, {"b": "2"}),
        ("checkpoint", 0, None),
        ("log_size_bytes", 1, 61 + 9 + 8 + 9),  # batch header + a/1, a/tombstone, b/2 (spec 2.5)
    ]


def test_live_state_is_read_committed_and_follows_kip280_strategies():
    """Spec 14: under a KIP-280 strategy a consumer keeps the highest version per key."""
    topics = {
        "o": {},
        "h": {"config": {"compaction.strategy": "header", "compaction.strategy.header": "v"}},
    }
    records = [
        {"key": "k", "value": "new", "headers": [["v", {"long": 2}]]},
        {"key": "k", "value": "old", "headers": [["v", {"long": 1}], ["v", "not-8-bytes"]]},
    ]
    result = _run(
        *({"op": "append", "topic": t, "records": records} for t in topics),
        {"op": "append", "topic": "o", "records": [{"key": "k", "value": "aborted"}], **TXN},
        {"op": "end_txn", "topic": "o", "producer_id": 7, "producer_epoch": 0, "commit": False},
        {"op": "expect", "topic": "o", "live_state": {"k": "old"}},
        {"op": "expect", "topic": "h", "live_state": {"k": "old"}},
        topics=topics,
    )
    # In h the last "v" header of offset 1 is not 8 bytes, so offset 1 has no version and offset 0 wins.
    assert [s["result"]["passed"] for s in result["steps"][4:]] == [True, False]
    assert result["steps"][5]["result"]["failures"][0]["actual"] == {"k": "new"}


def test_runner_steps_one_at_a_time_and_reports_model_errors_with_the_step_path():
    runner = ScenarioRunner(
        parse_scenario(
            scenario(
                {"op": "append", "records": [{"key": "k", "value": "v", "offset": 4}]},
                {"op": "append", "records": [{"key": "k", "value": "v", "offset": 2}]},
            )
        )
    )
    assert runner.step()["result"]["last_offset"] == 4
    assert runner.sim.log().log_end_offset == 5
    with pytest.raises(ScenarioError, match="below the log end offset") as info:
        runner.step()
    assert info.value.path == "steps[1]"


def test_set_config_and_offsets_steps_change_the_simulation():
    runner = ScenarioRunner(
        parse_scenario(
            scenario(
                {"op": "append", "records": [{"key": "k", "value": "v"}, {"key": "j", "value": "w"}]},
                {"op": "set_config", "topic": "t", "config": {"internal.segment.bytes": 100}},
                {"op": "set_config", "config": {"log.cleaner.backoff.ms": 1}},
                {"op": "set_high_watermark", "offset": 1},
                {"op": "set_log_start_offset", "offset": 1},
                {"op": "mark_uncleanable"},
            )
        )
    )
    runner.run()
    log = runner.sim.log()
    assert (log.config.effective_segment_bytes, log.broker.log_cleaner_backoff_ms) == (100, 1)
    assert (log.high_watermark, log.log_start_offset, runner.sim.uncleanable) == (1, 1, {"t-0"})
    assert runner.step_results[4]["result"] == {"topic": "t", "partition": 0, "log_start_offset": 1}


def test_cli_exit_codes_and_output(tmp_path, capsys):
    passing = tmp_path / "pass.json"
    passing.write_text(
        json.dumps(
            scenario(
                {"op": "append", "records": [{"key": "k", "value": "v"}]}, {"op": "expect", "retained_offsets": [0]}
            )
        )
    )
    failing = tmp_path / "fail.json"
    failing.write_text(json.dumps(scenario({"op": "expect", "retained_offsets": [0]})))
    invalid = tmp_path / "invalid.json"
    invalid.write_text(json.dumps(scenario({"op": "append", "records": [{"key": None, "value": "v"}]})))
    out = tmp_path / "out.json"
    assert main(["scenario", "run", str(passing), "--output", str(out)]) == 0
    assert json.loads(out.read_text())["steps"][1]["result"] == {"passed": True, "failures": []}
    assert main(["scenario", "run", str(failing)]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["passed"] is False
    assert "expect retained_offsets on t-0: expected [0], got []" in captured.err
    assert main(["scenario", "run", str(invalid)]) == 2
    assert "steps[0].records[0].key: Compacted topic cannot accept message without key" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{")
    assert main(["scenario", "run", str(tmp_path / "bad.json")]) == 2
