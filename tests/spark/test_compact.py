"""compact: the core's own pass over every partition, one Spark task each, equal to the core on the driver.

Whole outcomes: per partition, every record the pass leaves with its batch and delete horizon, against the core run on
the driver over the same partition: over every bundled sample stage (``read_log_dir``, then
``CleanerManager.clean_log``), and small random partitions produced by a :class:`Simulation` (transactions committed,
aborted and open, tombstones, rolls) over two passes, against that Simulation's own pass; what-if ranges and maps; and
against Kafka's own pass on the samples a real broker cleaned.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kcompact_nb import NewRecord, OffsetMapSpec, PartitionLog, Simulation, TopicConfig
from kcompact_nb.core import CleanerManager
from kcompact_nb.fidelity import broker_settings, load_stage, pass_time_ms, topic_settings
from kcompact_nb.io import ReadOptions, read_log_dir
from kcompact_nb.spark import (
    compact,
    latest_per_key,
    load_checkpoints,
    load_log_dir,
    logs_to_dataframe,
    synthetic_topic,
    whole_log_range,
)
from kcompact_nb.spark._partition_facts import with_partition_facts
from tests.spark.conftest import SAMPLE_STAGES, SAMPLES, stage_topic
from tests.spark.simulated_partitions import checkpoints_of, segments_of, simulate, steps

FAR_FUTURE_MS = 1 << 62
BROKER, TOPIC = broker_settings("4.4.0"), topic_settings()


def kept_rows(df: DataFrame) -> dict[tuple[str, int], list[tuple[Any, ...]]]:
    """Per partition: (offset, batch base offset, delete horizon, marker?) of every record, in offset order."""
    rows = df.select("topic", "partition", "offset", "batch_base_offset", "delete_horizon_ms", "is_control").collect()
    out: dict[tuple[str, int], list[tuple[Any, ...]]] = {}
    for r in sorted(rows, key=lambda r: (r["topic"], r["partition"], r["offset"])):
        out.setdefault((r["topic"], r["partition"]), []).append(
            (r["offset"], r["batch_base_offset"], r["delete_horizon_ms"], r["is_control"])
        )
    return out


def offsets(df: DataFrame) -> dict[tuple[str, int], list[int]]:
    return {partition: [row[0] for row in rows] for partition, rows in kept_rows(df).items()}


def log_rows(log: PartitionLog) -> list[tuple[Any, ...]]:
    return [(r.offset, b.base_offset, b.delete_horizon_ms, b.is_control) for b, r in log.records()]


def core_pass(log: PartitionLog, now_ms: int, **bounds: Any) -> PartitionLog:
    """The core's pass on the driver, as compact runs it in a task (forced: whether or not the log is eligible)."""
    CleanerManager(log.broker).clean_log(log, now_ms=now_ms, force=True, **bounds)
    return log


@pytest.mark.parametrize("now_ms", [0, 1_767_225_660_000, FAR_FUTURE_MS], ids=["at-0", "a-minute-in", "far-future"])
def test_every_sample_stage_gives_the_cores_pass(spark, samples_as_topics, now_ms):
    records, segments, checkpoints = samples_as_topics
    options = {"segments": segments, "checkpoints": checkpoints, "config": TOPIC, "broker": BROKER}
    got = kept_rows(compact(records, now_ms=now_ms, **options))
    expected = {}
    for stage in SAMPLE_STAGES:
        (log,) = read_log_dir(stage, ReadOptions(config=TOPIC, broker=BROKER, now_ms=now_ms)).logs.values()
        expected[(stage_topic(stage), log.partition)] = log_rows(core_pass(log, now_ms))
    assert got == expected
    removed = sum(records.filter(F.col("topic") == topic).count() - len(rows) for (topic, _), rows in got.items())
    assert removed > 0


STAGES = ("before", "after")


@pytest.mark.parametrize("sample", ["compaction-basic", "compressed-topic", "transactional", "idempotent-producer"])
def test_the_pass_leaves_what_kafkas_pass_left(spark, sample):
    """Kafka 4.4.0's own pass over the "before" stage left the "after" stage: the same records, batches and stamped
    delete horizons (the pass time is read from the horizon Kafka stamped)."""
    before, after = (load_stage(SAMPLES / sample / s, topic=TOPIC, broker=BROKER) for s in STAGES)
    now_ms = pass_time_ms(before, after)
    stage = SAMPLES / sample / "before"
    records, checkpoints = load_log_dir(spark, stage), load_checkpoints(spark, stage)
    (got,) = kept_rows(compact(records, now_ms=now_ms, checkpoints=checkpoints, config=TOPIC, broker=BROKER)).values()
    assert got == log_rows(after)
    assert any(horizon is not None for _, _, horizon, _ in got) == any(b.delete_horizon_ms for b in after.batches())


def check_pass(spark, sims: list[Simulation], now_ms: int, **options: Any) -> DataFrame:
    """compact over the Simulations' partitions as rows equals each Simulation's own pass at ``now_ms`` (forced, as
    compact runs it), which then holds the partition after it."""
    logs = [sim.log() for sim in sims]
    before, segments, checkpoints = (
        logs_to_dataframe(spark, logs),
        segments_of(spark, logs),
        checkpoints_of(spark, logs),
    )
    configs = {log.topic: log.config for log in logs}
    got = compact(before, now_ms=now_ms, segments=segments, checkpoints=checkpoints, topic_configs=configs, **options)
    for sim in sims:
        sim.clean_log(now_ms=now_ms, offset_map=options.get("offset_map"), force=True)
    assert kept_rows(got) == {(sim.log().topic, 0): log_rows(sim.log()) for sim in sims}
    return got


@settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(st.lists(steps, min_size=12, max_size=12))
def test_generated_partitions_give_the_simulations_passes_twice(spark, programs):
    """Pass 1 keeps tombstones and markers and stamps horizons; pass 2, past the horizons, removes them. Open
    transactions hold the range back (the last stable offset); producers' empty batches are kept as the core keeps
    them. The partitions rebuilt from rows in each task leave what each Simulation's pass leaves, record by record."""
    sims = [simulate(f"g{i}", program) for i, program in enumerate(programs)]
    check_pass(spark, sims, now_ms=1_000)
    check_pass(spark, sims, now_ms=2_000)


def test_a_small_offset_map_stops_the_pass_where_it_fills_as_the_cores_does(spark):
    """Two slots of an explicit map (spec 6.3): the pass maps a and b, is full, and stops at offset 3, so b's older
    record at 2 stays although b is written again at 3, as do c's two records."""
    sim = Simulation(topics={"small-map": {"cleanup.policy": "compact"}})
    for key in [b"a", b"a", b"b", b"b", b"c", b"c", b"d"]:
        sim.advance(1)
        sim.append("small-map", [NewRecord(key, b"v%d" % sim.now_ms)])
        sim.roll("small-map")
    got = check_pass(spark, [sim], now_ms=100, offset_map=OffsetMapSpec(slots=2, load_factor=1.0))
    assert offsets(got) == {("small-map", 0): [1, 2, 3, 4, 5, 6]}


def test_records_with_and_without_headers_keep_them_through_the_pass(spark):
    """Records without headers (null in the record schema) reach the task as an empty list, which Spark's Arrow writer
    sends far faster than a null list of structs; the pass keeps each record's headers, none or several."""
    sim = Simulation(topics={"headers": {"cleanup.policy": "compact"}})
    for n, key in enumerate([b"a", b"a", b"c", b"b", b"b"]):
        sim.advance(1)
        headers = tuple((f"h{i}", b"%d" % n if i else None) for i in range(n % 3))
        sim.append("headers", [NewRecord(key, b"v%d" % n, headers=headers)])
        sim.roll("headers")
    log = sim.log()
    rows = with_partition_facts(logs_to_dataframe(spark, [log]), checkpoints=None, segments=None, what="test")
    sent = {r["offset"]: [tuple(h) for h in r["headers"]] for r in rows.select("offset", "headers").collect()}
    assert sent == {record.offset: [tuple(h) for h in record.headers] for _, record in log.records()}
    got = check_pass(spark, [sim], now_ms=100)
    kept = {r["offset"]: [tuple(h) for h in r["headers"] or ()] for r in got.select("offset", "headers").collect()}
    assert kept == {record.offset: [tuple(h) for h in record.headers] for _, record in sim.log().records()}
    assert kept == {1: [("h0", None)], 2: [("h0", None), ("h1", b"2")], 4: [("h0", None)]}


def test_a_topic_that_is_not_compacted_is_left_as_it_is(spark):
    log = PartitionLog("deleted", config=TopicConfig.from_properties({"cleanup.policy": "delete"}))
    for n in range(4):
        log.append([NewRecord(b"k", b"v")], now_ms=n)
        log.roll(now_ms=n)
    before = logs_to_dataframe(spark, [log])
    assert kept_rows(compact(before, now_ms=100, config=log.config)) == {("deleted", 0): log_rows(log)}


def test_the_whole_log_what_if_keeps_the_latest_record_per_key(spark):
    """Records without segments (a table) hold one active segment, which no pass cleans; with the whole log as the
    range (not Kafka's) and a map that never fills, the pass keeps exactly the latest record of each key, tombstones
    included (their horizons are stamped, not passed): what ``latest_per_key`` finds without the cleaner."""
    rows = [
        ("t", p, o, f"k{(o * 7 + p) % 5}".encode(), None if o % 6 == 5 else b"v") for p in range(3) for o in range(40)
    ]
    table = spark.createDataFrame(rows, "topic string, partition int, offset long, key binary, value binary")
    records = logs_to_dataframe(spark, []).unionByName(table, allowMissingColumns=True)
    records = records.withColumn("timestamp", F.timestamp_millis(F.col("offset") + 1_000)).fillna(0, ["timestampType"])
    assert offsets(compact(records, now_ms=10_000)) == offsets(records)
    exact = OffsetMapSpec(exact=True)
    whole = compact(records, now_ms=10_000, cleanable=whole_log_range(records), offset_map=exact)
    assert offsets(whole) == offsets(latest_per_key(records)) != offsets(records)
    horizons = {row[2] for rows in kept_rows(whole).values() for row in rows if row[0] % 6 == 5}
    assert horizons == {10_000 + TopicConfig().delete_retention_ms}


def test_the_synthetic_topics_cleaned_tail_is_what_the_cores_pass_keeps(spark):
    """The generator's log tail (the latest record of each key below the cleaner point, a shortcut) equals what the
    core's pass over ``[0, cleaner point)`` of the records as produced keeps, an exact map, no horizon passed."""
    options: dict[str, Any] = {"partitions": 3, "records": 6_000, "keys": 600, "segment_records": 500, "seed": 3}
    produced = synthetic_topic(spark, cleaned_fractions=[0.0, 0.0, 0.0], **options).records
    generated = synthetic_topic(spark, **options)
    ranges = generated.checkpoints.select(
        "topic",
        "partition",
        F.lit(0).alias("first_dirty_offset"),
        F.col("cleaner_checkpoint").alias("first_uncleanable_offset"),
    )
    cleaned = compact(produced, now_ms=generated.now_ms, cleanable=ranges, offset_map=OffsetMapSpec(exact=True))
    assert offsets(cleaned) == offsets(generated.records)
    assert generated.records.count() < produced.count()
