"""dirtiness: each partition as the core's cleaner sees it, one Spark task each, equal to what the core says and does.

Whole rows per partition: the cleanable range, clean and cleanable bytes, ratio and compaction delay are those the
core computes for the same partition (``Simulation.dirtiness``; ``log_to_clean`` on a log dir read on the driver), and
``eligible`` holds exactly when the cleaner's next iteration then cleans the partition. Over every sample stage (file
sizes of compressed batches included) and generated partitions with transactions (an open one holds the range back),
rolls, ``min``/``max.compaction.lag.ms``, dirty ratios and checkpoints, valid or not (spec 4-5).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyspark.sql import DataFrame

from kcompact_nb.core import CleanerManager, log_to_clean, log_to_clean_row
from kcompact_nb.fidelity import broker_settings, topic_settings
from kcompact_nb.io import ReadOptions, read_log_dir
from kcompact_nb.spark import dirtiness, logs_to_dataframe
from tests.spark.conftest import SAMPLE_STAGES, stage_topic
from tests.spark.simulated_partitions import checkpoints_of, segments_of, simulate, steps

BROKER, TOPIC = broker_settings("4.4.0"), topic_settings()
FAR_FUTURE_MS = 1 << 62


def dirtiness_rows(df: DataFrame) -> dict[tuple[str, int], dict[str, Any]]:
    return {(r["topic"], r["partition"]): r.asDict() for r in df.collect()}


@pytest.mark.parametrize("now_ms", [0, 1_767_225_660_000, FAR_FUTURE_MS], ids=["at-0", "a-minute-in", "far-future"])
def test_every_sample_stage_gives_the_cores_view(spark, samples_as_topics, now_ms):
    records, segments, checkpoints = samples_as_topics
    got = dirtiness_rows(dirtiness(segments, checkpoints, records, now_ms=now_ms, config=TOPIC, broker=BROKER))
    expected = {}
    for stage in SAMPLE_STAGES:
        (log,) = read_log_dir(stage, ReadOptions(config=TOPIC, broker=BROKER, now_ms=now_ms)).logs.values()
        view = log_to_clean_row(log_to_clean(log, now_ms=now_ms))
        cleaned = CleanerManager(BROKER).clean_once([log], now_ms=now_ms)
        expected[(stage_topic(stage), log.partition)] = {
            "topic": stage_topic(stage),
            "partition": log.partition,
            **view,
            "eligible": cleaned is not None,
        }
    assert got == expected


CONFIGS = st.fixed_dictionaries(
    {
        "min.compaction.lag.ms": st.sampled_from([0, 3, 50]),
        "max.compaction.lag.ms": st.sampled_from([9_223_372_036_854_775_807, 60]),
        "min.cleanable.dirty.ratio": st.sampled_from([0.01, 0.5, 0.9]),
    }
)
partition = st.tuples(steps, CONFIGS, st.integers(-1, 40))


@settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(st.lists(partition, min_size=10, max_size=10), st.integers(0, 80))
def test_generated_partitions_give_the_simulations_view_and_next_iteration(spark, partitions, later_ms):
    """Each partition in a Simulation of its own: ``dirtiness`` says what ``Simulation.dirtiness`` says, and
    ``eligible`` is whether ``Simulation.clean`` (one cleaner iteration) then runs a pass. A checkpoint of -1 is
    none; one past the log end offset is reset to the log start offset, as the cleaner resets it."""
    sims = []
    for n, (program, config, checkpoint) in enumerate(partitions):
        sim = simulate(f"g{n}", program, config)
        sim.set_checkpoint(None, None if checkpoint < 0 else checkpoint)
        sims.append(sim)
    now_ms = max(sim.now_ms for sim in sims) + later_ms
    logs = [sim.log() for sim in sims]
    configs = {log.topic: log.config for log in logs}
    records, segments, checkpoints = (
        logs_to_dataframe(spark, logs),
        segments_of(spark, logs),
        checkpoints_of(spark, logs),
    )
    got = dirtiness_rows(dirtiness(segments, checkpoints, records, now_ms=now_ms, topic_configs=configs))
    expected = {}
    for sim in sims:
        sim.set_time(now_ms)
        log = sim.log()
        view = log_to_clean_row(sim.dirtiness())
        row = {"topic": log.topic, "partition": log.partition, **view, "eligible": sim.clean() is not None}
        expected[(log.topic, log.partition)] = row
    assert got == expected
