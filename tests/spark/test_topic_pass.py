"""topic_passes: the core's cleaner run forward over every partition of a log dir, one Spark task each.

Every row is compared with the core on the driver (``read_log_dir``, ``log_to_clean``, the cleaner run forward with
every record's and batch's decision recorded, and the order successive ``grabFilthiestCompactedLog`` calls take the
partitions: ``CleanerManager.grab_filthiest_log`` with the partitions already taken in progress, spec 5), for every
bundled sample stage and a generated topic of several partitions; and with Kafka's own pass on the samples. The tasks
read the pass's counters (``CleanerStats``), the driver the pass's recorded decisions: the two must agree.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from functools import reduce
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kcompact_nb.core import (
    BrokerConfig,
    CleanerManager,
    KcompactError,
    PartitionLog,
    Record,
    RecordBatch,
    SegmentData,
    TopicConfig,
    build_partition_log,
    dedupe_buffer_sizing,
    log_to_clean,
    run_forward,
)
from kcompact_nb.fidelity import broker_settings, load_stage, pass_time_ms, topic_settings
from kcompact_nb.io import NotASegmentError, ReadOptions, read_log_dir, write_broker_log_dir
from kcompact_nb.spark import (
    TOPIC_PASS_COLUMNS,
    BridgeLimitError,
    StorageError,
    topic_pass_summary,
    topic_passes,
)
from tests.spark.conftest import SAMPLE_STAGES, stage_topic

BASE_TS_MS = 1_767_225_600_000
NOW_MS = BASE_TS_MS + 3_600_000
SMALL_BUFFER = BrokerConfig(log_cleaner_dedupe_buffer_size=1_100_000)
"""45,833 slots of 24 bytes, 41,249 keys per pass (spec 6.1): the smallest buffers Kafka accepts are above 1 MiB."""
BIG_PARTITION_KEYS = 90_000


def core_on_driver(
    root: Path,
    *,
    now_ms: int,
    config: TopicConfig | None = None,
    topic_configs: Mapping[str, TopicConfig] | None = None,
    broker: BrokerConfig | None = None,
    uncleanable: frozenset[str] = frozenset(),
) -> dict[tuple[str, int], dict[str, Any]]:
    """What the core says of every partition of ``root``, computed on the driver, in topic_passes' columns."""
    broker = broker or BrokerConfig()
    options = ReadOptions(config=config, topic_configs=topic_configs or {}, broker=broker, now_ms=now_ms)
    loaded = read_log_dir(root, options)
    created = [loaded.partitions[name].log for name in os.listdir(root) if name in loaded.partitions]
    order = grab_order(created, broker=broker, uncleanable=uncleanable, now_ms=now_ms)
    rows = {}
    for log in created:
        rows[(log.topic, log.partition)] = one_partition(log, now_ms=now_ms, uncleanable=log.name in uncleanable)
        rows[(log.topic, log.partition)]["cleaning_order"] = order.get(log.name)
    return rows


def grab_order(
    logs: list[PartitionLog], *, broker: BrokerConfig, uncleanable: frozenset[str], now_ms: int
) -> dict[str, int]:
    """Partition name -> 1, 2, ...: what successive ``grabFilthiestCompactedLog`` calls at ``now_ms`` take, each
    with the partitions taken before it in progress (as other cleaner threads would hold them)."""
    manager = CleanerManager(broker, uncleanable=set(uncleanable))
    taken: list[str] = []
    while True:
        best, _ = manager.grab_filthiest_log(logs, now_ms=now_ms, in_progress=taken)
        if best is None:
            return {name: rank for rank, name in enumerate(taken, start=1)}
        taken.append(best.name)


def one_partition(log: PartitionLog, *, now_ms: int, uncleanable: bool) -> dict[str, Any]:
    ltc = log_to_clean(log, now_ms=now_ms)
    cleaner = CleanerManager(log.broker, uncleanable={log.name} if uncleanable else set(), started_ms=now_ms)
    future = run_forward([log], now_ms=now_ms, cleaner=cleaner)
    first = future.next_pass(log.name)
    decisions = None if first is None or first.result is None else first.result.decisions
    return {
        "topic": log.topic,
        "partition": log.partition,
        "size_bytes": sum(s.size_bytes for s in log.segments),
        "records": sum(1 for _ in log.records()),
        "first_dirty_offset": ltc.first_dirty_offset,
        "first_uncleanable_offset": ltc.first_uncleanable_offset,
        "clean_bytes": ltc.clean_bytes,
        "cleanable_bytes": ltc.cleanable_bytes,
        "total_bytes": ltc.total_bytes,
        "cleanable_ratio": ltc.cleanable_ratio,
        "compaction_delay_ms": ltc.compaction_delay_ms,
        "compacted": log.config.compact,
        "uncleanable": uncleanable,
        "eligible": ltc.eligible and log.config.compact and not uncleanable,
        "next_pass_ms": None if first is None else first.at_ms,
        "end_offset": None if first is None else first.result.end_offset,
        "map_full": first is not None and first.result.map_full,
        "removed_records": 0 if decisions is None else sum(not d.kept for d in decisions.records.values()),
        "bytes_freed": 0
        if decisions is None
        else sum(b.size_before - b.size_after for b in decisions.batches.values()),
        "keys_per_pass": dedupe_buffer_sizing(
            0,
            load_factor=log.broker.log_cleaner_io_buffer_load_factor,
            dedupe_buffer_size=log.broker.log_cleaner_dedupe_buffer_size,
            threads=log.broker.log_cleaner_threads,
        ).keys_per_pass,
        "passes_until_settled": len(future.passes(log.name)),
        "settled_records": sum(1 for _ in future.logs[log.name].records()),
    }


def spark_rows(df: DataFrame) -> dict[tuple[str, int], dict[str, Any]]:
    assert tuple(df.columns) == TOPIC_PASS_COLUMNS
    return {(r["topic"], r["partition"]): r.asDict() for r in df.collect()}


def without_position(rows: dict[tuple[str, int], dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    """The rows without ``log_pool_position``, which the driver's reference has no public way to name."""
    return {key: {k: v for k, v in row.items() if k != "log_pool_position"} for key, row in rows.items()}


def test_every_sample_stage_gives_the_cores_result(spark):
    broker, topic = broker_settings("4.4.0"), topic_settings()
    frames = [
        topic_passes(spark, stage, now_ms=NOW_MS, options=ReadOptions(config=topic, broker=broker)).withColumn(
            "topic", F.lit(stage_topic(stage))
        )
        for stage in SAMPLE_STAGES
    ]
    got = spark_rows(reduce(DataFrame.unionByName, frames).select(*TOPIC_PASS_COLUMNS))
    expected = {}
    for stage in SAMPLE_STAGES:
        ((_, partition), row), *others = core_on_driver(stage, now_ms=NOW_MS, config=topic, broker=broker).items()
        assert others == []
        expected[(stage_topic(stage), partition)] = {**row, "topic": stage_topic(stage)}
    assert without_position(got) == expected
    assert {row["log_pool_position"] for row in got.values()} == {0}
    assert len(got) == len(SAMPLE_STAGES)


@pytest.mark.parametrize("sample", ["compaction-basic", "compressed-topic", "transactional", "idempotent-producer"])
def test_the_next_pass_frees_what_kafkas_pass_freed(spark, sample):
    """Kafka 4.4.0's own pass over the "before" stage left the "after" stage: the engine's next pass runs at that
    time and removes the same records and bytes (the tombstone's batch is rewritten with its delete horizon as base
    timestamp, so the pass time matters)."""
    broker, topic = broker_settings("4.4.0"), topic_settings()
    before, after = (load_stage(SAMPLE_STAGES_BY_NAME[sample, s], topic=topic, broker=broker) for s in STAGES)
    now_ms = pass_time_ms(before, after)
    stage = SAMPLE_STAGES_BY_NAME[sample, "before"]
    (row,) = topic_passes(spark, stage, now_ms=now_ms, options=ReadOptions(config=topic, broker=broker)).collect()
    kafka_size = sum(s.size_bytes for s in after.segments)
    assert (row["next_pass_ms"], row["end_offset"]) == (now_ms, after.cleaner_checkpoint)
    assert row["records"] - row["removed_records"] == sum(1 for _ in after.records())
    assert row["bytes_freed"] == row["size_bytes"] - kafka_size > 0


STAGES = ("before", "after")
SAMPLE_STAGES_BY_NAME = {(stage.parent.name, stage.name): stage for stage in SAMPLE_STAGES}


def records_segment(base: int, keys: list[bytes], *, batch_records: int = 500) -> SegmentData:
    records = [Record(base + i, BASE_TS_MS, key, b"v" * 20) for i, key in enumerate(keys)]
    batches = [RecordBatch.build(records[i : i + batch_records]) for i in range(0, len(records), batch_records)]
    return SegmentData(base, batches)


def partition_log(topic: str, partition: int, segment_keys: list[list[bytes]], checkpoint: int | None) -> PartitionLog:
    """Segments of ``segment_keys``, then an active segment holding one trigger record; all at BASE_TS_MS."""
    segments, base = [], 0
    for keys in [*segment_keys, [b"trigger"]]:
        segments.append(records_segment(base, keys))
        base += len(keys)
    return build_partition_log(topic, partition, segments, cleaner_checkpoint=checkpoint)


def keys(n: int, *, prefix: str = "k") -> list[bytes]:
    return [f"{prefix}{i:06d}".encode() for i in range(n)]


@pytest.fixture(scope="module")
def generated_log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Topic ``orders``: p0, p1 and p5 never cleaned (dirty ratio 1.0: a three-way tie), p2 cleaned up to its
    second of three segments (2/3), p3 up to its third (1/3, not above 0.5), p4 marked uncleanable by the test;
    p5 has 90,000 distinct keys, three passes' worth with :data:`SMALL_BUFFER`. Topic ``events`` (delete policy);
    topic ``lagged`` (``min.compaction.lag.ms``: :data:`LAG_MS`), not cleanable yet at :data:`NOW_MS`."""
    hundred = keys(100)
    layouts = {
        ("orders", 0): ([hundred, hundred], None),
        ("orders", 1): ([hundred, hundred], None),
        ("orders", 2): ([hundred, hundred, hundred], 100),
        ("orders", 3): ([hundred, hundred, hundred], 200),
        ("orders", 4): ([hundred, hundred], None),
        ("orders", 5): ([keys(30_000, prefix=f"b{n}-") for n in range(3)], None),
        ("events", 0): ([hundred, hundred], None),
        ("lagged", 0): ([hundred, hundred], None),
    }
    logs = [partition_log(t, p, seg_keys, checkpoint) for (t, p), (seg_keys, checkpoint) in layouts.items()]
    return write_broker_log_dir(logs, tmp_path_factory.mktemp("generated") / "log-dir")


LAG_MS = 7_205_000
"""Two hours and five seconds: the segments of ``lagged`` (all at BASE_TS_MS) turn cleanable at BASE_TS_MS + LAG_MS,
not on one of the cleaner thread's looks (every ``log.cleaner.backoff.ms``, 15 s, from NOW_MS)."""
GENERATED_CONFIGS = {
    "events": TopicConfig(cleanup_policy=("delete",)),
    "lagged": TopicConfig(cleanup_policy=("compact",), min_compaction_lag_ms=LAG_MS),
}


def test_a_generated_topic_gives_the_cores_result_and_cleaning_order(spark, generated_log_dir):
    options: dict[str, Any] = {"topic_configs": GENERATED_CONFIGS, "broker": SMALL_BUFFER}
    passes = topic_passes(
        spark, generated_log_dir, now_ms=NOW_MS, options=ReadOptions(**options), uncleanable={"orders-4"}
    )
    got = spark_rows(passes)
    expected = core_on_driver(generated_log_dir, now_ms=NOW_MS, uncleanable=frozenset({"orders-4"}), **options)
    assert without_position(got) == expected
    on_disk = ReadOptions(**options, on_disk_from_bytes=0)  # every task reads its partition on disk, passes streamed
    streamed = spark_rows(
        topic_passes(spark, generated_log_dir, now_ms=NOW_MS, options=on_disk, uncleanable={"orders-4"})
    )
    assert streamed == got
    ranked = sorted((row["cleaning_order"], name) for name, row in got.items() if row["cleaning_order"] is not None)
    assert [name for _, name in ranked][-1] == ("orders", 2)  # 2/3 after the three partitions at 1.0
    assert {name for _, name in ranked} == {("orders", 0), ("orders", 1), ("orders", 2), ("orders", 5)}
    ties = sorted((got[name]["log_pool_position"], name) for name in [("orders", 0), ("orders", 1), ("orders", 5)])
    assert [name for _, name in ties] == [name for _, name in ranked][:3]  # equal ratios: log pool order decides
    assert {row["next_pass_ms"] for name, row in got.items() if name in names(ranked)} == {NOW_MS}
    big = got[("orders", 5)]
    assert (big["keys_per_pass"], big["map_full"], big["end_offset"], big["removed_records"]) == (
        41_249,
        True,
        41_249,
        0,
    )
    # the first pass maps 41,249 keys and stops; the second maps as many; then 7,502 of 90,000 dirty records are a
    # ratio under min.cleanable.dirty.ratio 0.5, and without appends no third pass comes (the engine's, not forced)
    assert (big["passes_until_settled"], big["settled_records"], big["bytes_freed"]) == (2, 90_001, 0)
    duplicated = got[("orders", 0)]
    assert (duplicated["passes_until_settled"], duplicated["removed_records"], duplicated["end_offset"]) == (
        1,
        100,
        200,
    )
    assert duplicated["bytes_freed"] * 2 == duplicated["cleanable_bytes"]  # the older of two equal segments
    assert (got[("orders", 3)]["eligible"], got[("orders", 3)]["next_pass_ms"]) == (False, None)  # 1/3 stays 1/3
    assert (got[("orders", 4)]["uncleanable"], got[("orders", 4)]["next_pass_ms"]) == (True, None)
    events = got[("events", 0)]
    assert (events["compacted"], events["next_pass_ms"], events["passes_until_settled"], events["bytes_freed"]) == (
        False,
        None,
        0,
        0,
    )
    lagged = got[("lagged", 0)]
    # cleanable at BASE_TS_MS + LAG_MS (the segments' largest timestamp + min.compaction.lag.ms); the cleaner thread,
    # idle since NOW_MS, looks every 15 s (log.cleaner.backoff.ms) and finds it eligible at its 241st look
    assert (lagged["eligible"], lagged["next_pass_ms"], lagged["removed_records"]) == (
        False,
        NOW_MS + 241 * 15_000,
        100,
    )
    assert lagged["next_pass_ms"] - 15_000 < BASE_TS_MS + LAG_MS <= lagged["next_pass_ms"]
    assert [(r["topic"], r["partition"]) for r in passes.collect()][:4] == names(ranked)


def names(ranked: list[tuple[int, tuple[str, int]]]) -> list[tuple[str, int]]:
    return [name for _, name in ranked]


CODECS = ("gzip", "snappy", "lz4", "zstd")


def test_a_topic_of_compressed_partitions_a_codec_each_gives_the_cores_result(spark, tmp_path):
    """Issue #29: every task decompresses its own partition (here in parallel on local[2]) as the core does."""
    logs = []
    for partition, codec in enumerate(CODECS):
        segments, base = [], 0
        for seg_keys in (keys(300), keys(300)[::2], [b"trigger"]):
            plain = records_segment(base, seg_keys, batch_records=50)
            segments.append(
                SegmentData(base, [replace(b, compression=codec, size_estimated=True) for b in plain.batches])
            )
            base += len(seg_keys)
        logs.append(build_partition_log("zipped", partition, segments))
    root = write_broker_log_dir(logs, tmp_path / "log-dir")
    loaded = read_log_dir(root, ReadOptions(now_ms=NOW_MS))
    assert {next(p.log.batches()).compression for p in loaded.partitions.values()} == set(CODECS)
    got = spark_rows(topic_passes(spark, root, now_ms=NOW_MS))
    assert without_position(got) == core_on_driver(root, now_ms=NOW_MS)
    assert all(row["bytes_freed"] > 0 and row["records"] - row["removed_records"] == 301 for row in got.values())


def test_the_summary_adds_columns_for_people_and_is_bounded(spark, generated_log_dir):
    only_orders = ReadOptions(topics={"orders"}, broker=SMALL_BUFFER)
    passes = topic_passes(
        spark, generated_log_dir, now_ms=NOW_MS, options=only_orders, uncleanable={"orders-4"}
    ).cache()
    summary = topic_pass_summary(passes)
    people = ["dirty ratio", "size", "cleanable", "overdue by", "next pass", "removes", "frees"]
    assert list(summary.columns) == [*TOPIC_PASS_COLUMNS, *people]
    first = summary.iloc[0]
    assert (first["cleaning_order"], first["dirty ratio"], first["overdue by"]) == (1, "100.0%", "")
    assert (first["next pass"], first["removes"]) == ("2026-01-01T01:00:00Z", "100 of 201 records")
    assert list(summary["cleaning_order"].isna()) == [False] * 4 + [True] * 2
    assert list(summary["partition"])[-2:] == [3, 4]  # not eligible: by topic and partition after the ranked ones
    big = summary[summary["partition"] == 5].iloc[0]
    assert big["size"].endswith("MiB") and (big["removes"], big["frees"]) == ("0 of 90,001 records", "0 B")
    assert list(summary[summary["partition"] == 3]["next pass"]) == ["none without appends"]
    with pytest.raises(BridgeLimitError, match="more than 3 partitions; topic_pass_summary collects at most limit=3"):
        topic_pass_summary(passes, limit=3)
    passes.unpersist()


def test_bad_input_is_named_before_any_job(spark, tmp_path, generated_log_dir):
    with pytest.raises(StorageError, match="hdfs://nn/kafka: topic_passes reads partition directories"):
        topic_passes(spark, "hdfs://nn/kafka", now_ms=NOW_MS)
    with pytest.raises(NotASegmentError, match="not a log directory: it does not exist"):
        topic_passes(spark, tmp_path / "missing", now_ms=NOW_MS)
    with pytest.raises(KcompactError, match=r"uncleanable names partitions that .* does not hold: orders-9, orders0"):
        topic_passes(spark, generated_log_dir, now_ms=NOW_MS, uncleanable={"orders-1", "orders-9", "orders0"})
