"""A forecast held to a live Kafka 4.4.0 broker: the same produce model produced to it in real time (issue #42).

The broker runs with a short back-off and small segments (``internal.segment.bytes``), so a minute holds dozens of
passes. What is compared (docs/forecast.md, "Proven on a live broker"):

- the passes: as many, over the same partitions and dirty sections, each forecast pass starting within the
  cleaner's own scheduling slack of the broker's (one back-off, plus the thread's time on the pass before);
- where the cleaner's inputs are the same (a replay of the broker's passes at their times and over their dirty
  sections), what it leaves: every segment's base offset and size, every record kept, byte for byte;
- Kafka's cleaner gauges read over JMX against the replay's;
- pass durations: the machine's, fitted from the broker's passes (``calibrate_speed``) and reported, not asserted.
"""

from __future__ import annotations

import pytest

from kcompact_nb.broker import DEFAULT_VERSION, KafkaBroker
from kcompact_nb.core.forecasting import Burst, ProduceModel, ProducerModel, TopicLoad, ValueSizes
from kcompact_nb.fidelity import log_line_facts, run_forecast_proof
from tests.broker.conftest import require_java_and_maven

BROKER = {"log.cleaner.backoff.ms": "500", "log.cleaner.threads": "1", "log.cleaner.dedupe.buffer.size": "8388608"}
TOPICS = {
    "orders": {
        "partitions": 2,
        "config": {
            "cleanup.policy": "compact",
            "internal.segment.bytes": 30_000,
            "segment.ms": 604_800_000,
            "segment.index.bytes": 4096,
            "min.cleanable.dirty.ratio": 0.3,
            "min.compaction.lag.ms": 0,
            "delete.retention.ms": 15_000,
            "file.delete.delay.ms": 100,
        },
    }
}
HORIZON_MS = 40_000
QUIET_MS = 5_000
"""The model ends quiet, so that the broker's last passes (a back-off and a pass after the last roll) fall within the
horizon, as the forecast's do."""
MODEL = ProduceModel(
    {
        "orders": TopicLoad(
            records_per_second=150,
            bursts=(Burst(HORIZON_MS - QUIET_MS, QUIET_MS, 0.0),),
            keys=1_500,
            tombstone_share=0.05,
            value_bytes=ValueSizes(50, 150),
            producer=ProducerModel(linger_ms=50, idempotent=False),
        )
    },
    seed=42,
)


@pytest.fixture(scope="module")
def proof(tmp_path_factory):
    require_java_and_maven()
    with KafkaBroker(DEFAULT_VERSION, overrides=BROKER) as broker:
        yield run_forecast_proof(
            broker,
            MODEL,
            topics=TOPICS,
            broker_properties=BROKER,
            horizon_ms=HORIZON_MS,
            work_dir=tmp_path_factory.mktemp("forecast-proof"),
        )


def test_the_forecast_makes_the_brokers_passes_within_its_scheduling_slack(proof):
    assert len(proof.observed) >= 10
    matched = proof.matched()
    assert [f is not None for _, f in matched] == [True] * len(matched), [o.name for o, f in matched if f is None]
    assert len(proof.forecast.passes) == len(proof.observed)
    for observed, predicted in matched:
        difference = predicted.start_ms + proof.start_ms - observed.start_ms
        assert abs(difference) <= proof.slack_ms(observed), (observed, difference)


def test_where_the_cleaners_inputs_are_the_same_it_leaves_the_same_bytes(proof):
    assert proof.replay_segments == proof.broker_segments
    assert proof.replay_offsets == proof.broker_offsets
    for observed, replayed in zip(proof.observed, proof.replay, strict=True):
        # the dirty section, buffer utilization, sizes and messages read and written: every fact but times
        assert log_line_facts(observed.log_line) == log_line_facts(replayed.log_line)


def test_the_forecasts_sizes_are_the_brokers_but_for_tombstones_near_their_horizon(proof, record_property):
    """The forecast's passes clean the broker's dirty sections, a few hundred ms off the broker's times: a tombstone
    whose delete horizon falls in between may go one pass earlier or later (docs/forecast.md, "Proven on a live
    broker": 1% at most)."""
    errors = proof.size_errors()
    record_property("size_errors", errors)
    assert set(errors) == {"orders-0", "orders-1"}
    assert all(abs(error) <= 0.01 for error in errors.values()), errors


def test_kafkas_cleaner_gauges_read_as_the_replay_leaves_them_and_as_the_forecast_says(proof):
    for name, value in proof.replay_gauges.items():
        assert proof.gauges[name] == value, name
    # the forecast's reading after its last pass: what that pass's map held, nothing marked uncleanable, no log
    # past its max.compaction.lag.ms (the topic sets none)
    forecast = proof.forecast.metrics[-1].as_dict()
    for name in ("max-buffer-utilization-percent", "uncleanable-partitions-count", "max-compaction-delay-secs"):
        assert forecast[name] == proof.gauges[name], name


def test_pass_durations_are_the_machines_fitted_from_the_brokers_passes(proof, record_property):
    """A pass's wall-clock time is the machine's: the speed is fitted to the broker's own passes, so the thread's time
    cleaning is the broker's within 10% (docs/forecast.md); one pass's duration scatters far more, and is reported."""
    errors = proof.duration_errors()
    record_property("calibrated_speed", repr(proof.speed))
    record_property("duration_error_median", sorted(abs(e) for e in errors)[len(errors) // 2])
    assert len(errors) == len(proof.observed)
    assert abs(proof.busy_error()) <= 0.10, (proof.busy_error(), proof.speed)
