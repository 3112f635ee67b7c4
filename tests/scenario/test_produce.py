"""A scenario's produce model: parsed with JSON paths in its errors, played by ``produce`` steps, in the schema."""

from __future__ import annotations

import jsonschema
import pytest

from kcompact_nb.core.forecasting import ProducedBatch, exact_events
from kcompact_nb.scenario import ScenarioError, load_scenario, parse_scenario, run_scenario, schema
from tests.scenario.conftest import SAMPLES, scenario

LOAD = {"records_per_second": 300, "keys": 500, "tombstone_share": 0.1, "producer": {"linger_ms": 20}}
TOPICS = {"t": {"partitions": 2, "config": {"internal.segment.bytes": 20_000}}}


def _doc(*steps: dict, load: dict | None = None) -> dict:
    produce = {"seed": 5, "topics": {"t": load or LOAD}}
    return scenario(*steps, topics=TOPICS, produce=produce, broker={"log.cleaner.backoff.ms": 500})


def test_produce_steps_append_the_models_stream_stretch_after_stretch():
    result = run_scenario(parse_scenario(_doc({"op": "produce", "for_ms": 4_000}, {"op": "produce", "for_ms": 6_000})))
    model = load_scenario_model()
    events = [e for chunk in exact_events(model, {"t": 2}, start_ms=0, horizon_ms=10_000) for e in chunk]
    batches = [e for e in events if isinstance(e, ProducedBatch)]
    first, second = (step["result"] for step in result["steps"])
    assert (first["batches"], second["batches"]) == (
        sum(b.append_ms <= 4_000 for b in batches),
        sum(4_000 < b.append_ms <= 10_000 for b in batches),
    )
    assert first["records"] + second["records"] == sum(len(b) for b in batches)
    assert second["now_ms"] == 10_000 and first["passes"]  # the cleaner ran while the model produced
    ends = [result["final"][name]["log_end_offset"] for name in ("t-0", "t-1")]
    assert sum(ends) == sum(len(b) for b in batches)


def load_scenario_model():
    return parse_scenario(_doc({"op": "produce", "for_ms": 1})).produce


def test_a_scenario_may_be_a_produce_model_alone():
    parsed = parse_scenario({"format": "kcompact-scenario/1", "topics": TOPICS, "produce": {"topics": {"t": LOAD}}})
    assert parsed.steps == () and parsed.produce is not None and parsed.produce.seed == 0


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (scenario({"op": "produce", "for_ms": 10}), "steps[0].op: a produce step plays the scenario's produce model"),
        (_doc(load={**LOAD, "tombstone_share": 1.5}), "produce.topics.t.tombstone_share: 1.5 is not allowed"),
        (_doc(load={**LOAD, "colour": "red"}), "produce.topics.t.colour: unknown field"),
        (_doc(load={**LOAD, "producer": {"compression": "brotli"}}), "produce.topics.t.producer.compression: 'brotli'"),
        (_doc({"op": "produce", "for_ms": 0}), "steps[0].for_ms: 0 is out of range"),
        (
            scenario(topics=TOPICS, produce={"topics": {"other": LOAD}}),
            "produce.topics.other: unknown field (allowed: t)",
        ),
    ],
)
def test_a_bad_produce_model_is_refused_naming_its_json_path(document, message):
    with pytest.raises(ScenarioError, match="^" + message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        parse_scenario(document)


def test_the_schema_holds_the_produce_model():
    validator = jsonschema.Draft202012Validator(schema())
    validator.validate(_doc({"op": "produce", "for_ms": 1000}))
    assert not validator.is_valid(_doc(load={**LOAD, "tombstone_share": 1.5}))
    assert not validator.is_valid(_doc({"op": "produce"}))
    sample = load_scenario(SAMPLES / "orders-forecast.json")
    assert sample.produce is not None and set(sample.produce.topics) == {"orders"}
