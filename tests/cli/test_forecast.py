"""``kcompact forecast``: a scenario file's produce model run forward, printed as tables or JSON; a what-if."""

from __future__ import annotations

import json

from kcompact_nb.core.forecasting import forecast
from kcompact_nb.scenario import load_scenario
from tests.cli.conftest import kcompact
from tests.io.kafka_bytes import tree_digest

MODEL = {
    "format": "kcompact-scenario/1",
    "broker": {"log.cleaner.backoff.ms": 2000},
    "topics": {"t": {"partitions": 2, "config": {"internal.segment.bytes": 50000}}},
    "produce": {"seed": 3, "topics": {"t": {"records_per_second": 100, "keys": 2000, "producer": {"linger_ms": 200}}}},
}


def _file(tmp_path, document=MODEL, name="model.json"):
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


def test_the_forecast_prints_what_people_ask(tmp_path):
    done = kcompact("forecast", _file(tmp_path), "--hours", "0.25", "--passes", "3")
    assert done.returncode == 0, done.stderr
    headings = (
        "keeps up: yes",
        "disk compaction saves:",
        "partitions:",
        "cleaner threads:",
        "Kafka's cleaner metrics, as they would read:",
        "max-dirty-percent",
        "how long removed records stay on disk:",
        "the first 3 passes:",
        "notes:",
    )
    for heading in headings:
        assert heading in done.stdout, heading


def test_the_json_forecast_is_the_forecast(tmp_path):
    path = _file(tmp_path)
    done = kcompact("forecast", path, "--hours", "0.25", "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    scenario = load_scenario(path)
    topics = {
        name: {"partitions": spec.partitions, "config": dict(spec.config)} for name, spec in scenario.topics.items()
    }
    expected = forecast(scenario.produce, days=0.25 / 24, broker=scenario.broker, topics=topics)
    assert document["format"] == "kcompact-forecast/1" and document["mode"] == "exact"
    assert document["produced_bytes"] == expected.produced_bytes
    assert [(p["partition"], p["start_ms"], p["end_offset"], p["dirty_keys"]) for p in document["passes"]] == [
        (p.name, p.start_ms, p.end_offset, p.dirty_keys) for p in expected.passes
    ]
    assert [p["dedupe_buffer_needed_bytes"] for p in document["passes"]] == list(
        map(expected.buffer_needed_bytes, expected.passes)
    )
    assert document["metrics"]["max-dirty-percent"] == dict(
        zip(("end", "largest"), expected.metrics_summary()["max-dirty-percent"], strict=True)
    )


def test_a_what_if_runs_a_second_forecast_beside_the_first(tmp_path):
    done = kcompact("forecast", _file(tmp_path), "--hours", "0.25", "--json", "--what-if", "rate=2",
                    "--what-if", "t:min.cleanable.dirty.ratio=0.2", "--what-if", "log.cleaner.threads=2")  # fmt: skip
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    changed = document["what_if"]
    assert changed["changes"] == ["rate=2", "t:min.cleanable.dirty.ratio=0.2", "log.cleaner.threads=2"]
    base, other = (float(d["summary"]["records produced (expected)"].replace(",", "")) for d in (document, changed))
    assert other == 2 * base
    assert len(changed["threads"]) == 2 and len(document["threads"]) == 1


def test_bad_input_exits_2_with_a_message_and_writes_nothing(tmp_path):
    no_model = {key: value for key, value in MODEL.items() if key != "produce"}
    cases = [
        (
            [_file(tmp_path, no_model, "no-model.json")],
            "has no produce section: kcompact forecast runs a produce model",
        ),
        ([_file(tmp_path), "--days", "0"], "--days 0: expected more than 0 and at most 366"),
        ([_file(tmp_path), "--what-if", "colour=red"], "'colour' is neither a broker property nor a topic config"),
        ([_file(tmp_path), "--what-if", "u:segment.ms=5"], "no topic 'u'"),
        ([_file(tmp_path), "--what-if", "min.cleanable.dirty.ratio=2"], "min.cleanable.dirty.ratio"),
        ([_file(tmp_path), "--what-if", "rate=fast"], "rate=FACTOR takes a number"),
        ([tmp_path / "nope.json"], "does not exist"),
    ]
    for args, message in cases:
        before = tree_digest(tmp_path)
        done = kcompact("forecast", *args)
        assert done.returncode == 2 and done.stdout == "", (args, done)
        assert message in done.stderr, (args, done.stderr)
        assert tree_digest(tmp_path) == before
