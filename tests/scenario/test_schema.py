"""The shipped JSON Schema accepts every sample and rejects invalid documents."""

from __future__ import annotations

import json

import jsonschema
import pytest

from kcompact_nb.core.model._config import _BROKER_SYNONYMS, BrokerConfig, TopicConfig
from kcompact_nb.core.model._config_keys import config_keys
from kcompact_nb.scenario import load_scenario, schema, schema_path
from kcompact_nb.scenario._ops import OPS
from tests.scenario.conftest import SAMPLES, scenario

VALIDATOR = jsonschema.Draft202012Validator(schema())
SAMPLE_FILES = sorted(SAMPLES.glob("*.json"))


def test_schema_is_valid_draft_2020_12_and_is_package_data():
    jsonschema.Draft202012Validator.check_schema(schema())
    assert schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema_path().parent.name == "scenario"


def test_there_are_samples():
    assert {p.name for p in SAMPLE_FILES} >= {
        "fruit-prices.json",
        "tombstone-lifecycle.json",
        "partial-pass.json",
        "transaction-abort.json",
        "kip280-out-of-order.json",
    }


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.name)
def test_every_sample_validates_against_the_schema_and_the_parser(path):
    VALIDATOR.validate(json.loads(path.read_text()))
    assert load_scenario(path).steps


def test_schema_lists_every_op_and_config_name():
    defs = schema()["$defs"]
    assert set(defs["step"]["properties"]["op"]["enum"]) == set(OPS)
    assert set(defs["topic_config"]["propertyNames"]["enum"]) == set(config_keys(TopicConfig))
    assert set(defs["broker_config"]["propertyNames"]["enum"]) == set(config_keys(BrokerConfig)) | set(_BROKER_SYNONYMS)


def _op_fields(definition: dict) -> tuple[set[str], set[str]]:
    """An op's schema: the fields every variant requires and the fields any variant allows, ``op`` aside."""
    variants = definition.get("oneOf", [definition])
    assert all(v["additionalProperties"] is False for v in variants)
    required = set.intersection(*(set(v["required"]) for v in variants)) - {"op"}
    allowed = set().union(*(v["properties"] for v in variants)) - {"op"}
    return required, allowed


@pytest.mark.parametrize("name", sorted(OPS))
def test_each_op_has_the_schema_of_its_entry_in_the_op_table(name):
    """The schema routes the op to its definition, which requires and allows the fields the parser does."""
    step = schema()["$defs"]["step"]
    routes = {rule["if"]["properties"]["op"]["const"]: rule["then"]["$ref"] for rule in step["allOf"]}
    assert routes[name] == f"#/$defs/op_{name}"
    required, allowed = _op_fields(schema()["$defs"][f"op_{name}"])
    assert required == set(OPS[name].required)
    assert allowed == set(OPS[name].required) | set(OPS[name].optional)


@pytest.mark.parametrize(
    "document",
    [
        {"topics": {"t": {}}, "steps": []},
        {**scenario(), "extra": 1},
        scenario({"op": "compact"}),
        scenario({"op": "append"}),
        scenario({"op": "append", "records": [{"key": "k", "value": "v", "colour": 1}]}),
        scenario({"op": "append", "records": [{"key": "k", "value": {"long": 1}}]}),
        scenario({"op": "append", "records": [{"key": "k", "value": "v"}], "compression": "brotli"}),
        scenario({"op": "advance", "ms": -1}),
        scenario({"op": "clean", "offset_map": {"slots": 1, "memory_bytes": 24}}),
        scenario({"op": "expect"}),
        scenario({"op": "expect", "tolerance": 0.1}),
        scenario(topics={"t": {"config": {"segment.byts": 1}}}),
        scenario({"op": "set_config", "config": {"segment.bytes": 1}}),
    ],
)
def test_invalid_documents_fail_the_schema(document):
    assert list(VALIDATOR.iter_errors(document))


def test_header_long_values_are_accepted_by_the_schema():
    doc = scenario({"op": "append", "records": [{"key": "k", "value": "v", "headers": [["version", {"long": -5}]]}]})
    VALIDATOR.validate(doc)
