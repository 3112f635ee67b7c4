"""The ``produce`` section of a scenario: a produce model in JSON, checked into a :class:`ProduceModel`.

Each topic's load names a topic declared in ``topics``; its fields are :class:`TopicLoad`'s (docs/scenario-format.md,
"The produce model"). Errors name the JSON path (``produce.topics.orders.tombstone_share: ...``).
"""

from __future__ import annotations

from typing import Any

from kcompact_nb.core import (
    Burst,
    DailyCycle,
    ProduceModel,
    ProduceModelError,
    ProducerModel,
    TopicLoad,
    Transactions,
    ValueSizes,
)
from kcompact_nb.scenario._context import ParseContext
from kcompact_nb.scenario._errors import ScenarioError
from kcompact_nb.scenario._fields import check_bool, check_int, check_list, check_number, check_object, check_str, join

LOAD_FIELDS = (
    "records_per_second",
    "keys",
    "key_distribution",
    "zipf_exponent",
    "tombstone_share",
    "update_share",
    "key_bytes",
    "value_bytes",
    "value_compressibility",
    "daily_cycle",
    "bursts",
    "producer",
)
PRODUCER_FIELDS = ("linger_ms", "batch_bytes", "idempotent", "transactions", "compression")
INF = float("inf")


def parse_produce(raw: Any, context: ParseContext) -> ProduceModel:
    """``produce`` (``{"seed": n, "topics": {name: load}}``) as a :class:`ProduceModel`."""
    path = "produce"
    doc = check_object(raw, path, required=("topics",), optional=("seed",))
    seed = check_int(doc.get("seed", 0), join(path, "seed"), minimum=0)
    topics_path = join(path, "topics")
    raw_topics = check_object(doc["topics"], topics_path, optional=tuple(context.topics))
    if not raw_topics:
        raise ScenarioError(topics_path, "give at least one topic's load")
    loads = {name: _load(value, join(topics_path, name)) for name, value in raw_topics.items()}
    try:
        return ProduceModel(loads, seed=seed)
    except ProduceModelError as error:
        where, _, message = str(error).partition(": ")
        raise ScenarioError(join(path, where), message) from None


def _load(raw: Any, path: str) -> TopicLoad:
    doc = check_object(raw, path, required=("records_per_second", "keys"), optional=LOAD_FIELDS)
    fields: dict[str, Any] = {
        "records_per_second": check_number(
            doc["records_per_second"], join(path, "records_per_second"), low=0, high=INF
        ),
        "keys": check_int(doc["keys"], join(path, "keys"), minimum=1),
    }
    for name in ("zipf_exponent", "tombstone_share", "update_share", "value_compressibility"):
        if name in doc:
            fields[name] = check_number(doc[name], join(path, name), low=0, high=INF)
    if "key_distribution" in doc:
        fields["key_distribution"] = check_str(doc["key_distribution"], join(path, "key_distribution"))
    if "key_bytes" in doc:
        fields["key_bytes"] = check_int(doc["key_bytes"], join(path, "key_bytes"), minimum=1)
    if "value_bytes" in doc:
        fields["value_bytes"] = _value_bytes(doc["value_bytes"], join(path, "value_bytes"))
    if "daily_cycle" in doc:
        cycle = check_object(
            doc["daily_cycle"], join(path, "daily_cycle"), required=("amplitude",), optional=("peak_hour_utc",)
        )
        fields["daily_cycle"] = DailyCycle(
            check_number(cycle["amplitude"], join(path, "daily_cycle.amplitude"), low=0, high=INF),
            check_number(cycle.get("peak_hour_utc", 12), join(path, "daily_cycle.peak_hour_utc"), low=0, high=INF),
        )
    if "bursts" in doc:
        bursts = check_list(doc["bursts"], join(path, "bursts"))
        fields["bursts"] = tuple(_burst(b, join(join(path, "bursts"), i)) for i, b in enumerate(bursts))
    if "producer" in doc:
        fields["producer"] = _producer(doc["producer"], join(path, "producer"))
    return TopicLoad(**fields)


def _value_bytes(raw: Any, path: str) -> ValueSizes:
    if isinstance(raw, int) and not isinstance(raw, bool):
        size = check_int(raw, path, minimum=0)
        return ValueSizes(size, size)
    sizes = check_object(raw, path, required=("min_bytes", "max_bytes"))
    return ValueSizes(
        check_int(sizes["min_bytes"], join(path, "min_bytes"), minimum=0),
        check_int(sizes["max_bytes"], join(path, "max_bytes"), minimum=0),
    )


def _burst(raw: Any, path: str) -> Burst:
    burst = check_object(raw, path, required=("start_ms", "duration_ms", "factor"), optional=("every_ms",))
    every = burst.get("every_ms")
    return Burst(
        check_int(burst["start_ms"], join(path, "start_ms"), minimum=0),
        check_int(burst["duration_ms"], join(path, "duration_ms"), minimum=1),
        check_number(burst["factor"], join(path, "factor"), low=0, high=INF),
        None if every is None else check_int(every, join(path, "every_ms"), minimum=1),
    )


def _producer(raw: Any, path: str) -> ProducerModel:
    doc = check_object(raw, path, optional=PRODUCER_FIELDS)
    fields: dict[str, Any] = {}
    for name in ("linger_ms", "batch_bytes"):
        if name in doc:
            fields[name] = check_int(doc[name], join(path, name), minimum=1)
    if "idempotent" in doc:
        fields["idempotent"] = check_bool(doc["idempotent"], join(path, "idempotent"))
    if "compression" in doc:
        fields["compression"] = check_str(doc["compression"], join(path, "compression"))
    if doc.get("transactions") is not None:
        txn_path = join(path, "transactions")
        txn = check_object(doc["transactions"], txn_path, optional=("commit_interval_ms", "abort_share"))
        fields["transactions"] = Transactions(
            check_int(txn.get("commit_interval_ms", 100), join(txn_path, "commit_interval_ms"), minimum=1),
            check_number(txn.get("abort_share", 0.0), join(txn_path, "abort_share"), low=0, high=INF),
        )
    return ProducerModel(**fields)
