"""The produce model: defaults, shares, and every value out of range refused with its field, value and range."""

from __future__ import annotations

import pytest

from kcompact_nb.core.forecasting import (
    Burst,
    DailyCycle,
    ProduceModel,
    ProduceModelError,
    ProducerModel,
    TopicLoad,
    Transactions,
    ValueSizes,
)


def test_a_model_in_a_few_lines_with_kafkas_producer_defaults():
    model = ProduceModel({"orders": TopicLoad(records_per_second=1000, keys=1_000_000)}, seed=7)
    load = model.topics["orders"]
    assert (load.producer.linger_ms, load.producer.batch_bytes, load.producer.idempotent) == (5, 16_384, True)
    assert (load.updates, load.inserts) == (1.0, 0.0)  # a fixed key space: every record updates a key


def test_shares_make_a_growing_key_space():
    load = TopicLoad(records_per_second=10, keys=5, tombstone_share=0.1, update_share=0.6)
    assert (load.updates, round(load.inserts, 12)) == (0.6, 0.3)


@pytest.mark.parametrize(
    ("load", "message"),
    [
        (
            TopicLoad(records_per_second=-1, keys=1),
            "topics.t.records_per_second: -1 is not allowed; expected 0 or more",
        ),
        (TopicLoad(records_per_second=1, keys=0), "topics.t.keys: 0 is not allowed; expected at least 1 key"),
        (
            TopicLoad(records_per_second=1, keys=5, key_distribution="pareto"),
            "topics.t.key_distribution: 'pareto' is not allowed; expected uniform or zipf",
        ),
        (
            TopicLoad(records_per_second=1, keys=5, tombstone_share=0.5, update_share=0.6),
            "topics.t.update_share: 0.6 is not allowed; expected a share in [0, 0.5] (1 - tombstone_share)",
        ),
        (
            TopicLoad(records_per_second=1, keys=1000, key_bytes=2),
            "topics.t.keys: 1000 is not allowed; expected at most 10^2 (key_bytes)",
        ),
        (
            TopicLoad(records_per_second=1, keys=5, value_bytes=ValueSizes(10, 5)),
            "topics.t.value_bytes.max_bytes: 5 is not allowed; expected at least min_bytes",
        ),
        (
            TopicLoad(records_per_second=1, keys=5, daily_cycle=DailyCycle(1.5)),
            "topics.t.daily_cycle.amplitude: 1.5 is not allowed; expected a number in [0, 1]",
        ),
        (
            TopicLoad(records_per_second=1, keys=5, bursts=(Burst(0, 10, 2.0, every_ms=5),)),
            "topics.t.bursts[0].every_ms: 5 is not allowed; expected more than duration_ms",
        ),
        (
            TopicLoad(records_per_second=1, keys=5, producer=ProducerModel(compression="brotli")),
            "topics.t.producer.compression: 'brotli' is not allowed; expected none/gzip/snappy/lz4/zstd",
        ),
        (
            TopicLoad(records_per_second=1, keys=5, producer=ProducerModel(linger_ms=5, transactions=Transactions(12))),
            "topics.t.producer.transactions.commit_interval_ms: 12 is not allowed; "
            "expected a multiple of linger_ms (5)",
        ),
    ],
)
def test_values_out_of_range_are_refused_naming_the_field(load, message):
    with pytest.raises(ProduceModelError) as error:
        ProduceModel({"t": load})
    assert str(error.value) == message


def test_a_model_needs_a_topic_and_a_seed_in_range():
    with pytest.raises(ProduceModelError, match="^topics: {} is not allowed; expected at least one topic$"):
        ProduceModel({})
    with pytest.raises(ProduceModelError, match="^seed: -1 is not allowed"):
        ProduceModel({"t": TopicLoad(records_per_second=1, keys=1)}, seed=-1)
