"""The Spark compaction keeps exactly the offsets the core cleaner keeps (exact offset map, one pass)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kcompact_nb import NewRecord, PartitionLog, TopicConfig
from kcompact_nb.io import read_log_dir
from kcompact_nb.spark import compact, dirtiness, logs_to_dataframe
from tests.conftest import offsets_in_log
from tests.spark.conftest import SAMPLE_STAGES, core_full_pass, stage_topic

FAR_FUTURE_MS = 1 << 62


def spark_offsets(df) -> dict[str, list[int]]:
    rows = df.select("topic", "offset").orderBy("topic", "offset").collect()
    out: dict[str, list[int]] = {}
    for row in rows:
        out.setdefault(row["topic"], []).append(row["offset"])
    return out


@pytest.mark.parametrize("now_ms", [0, FAR_FUTURE_MS], ids=["before-horizons", "after-horizons"])
def test_every_sample_stage_agrees_with_the_core_cleaner(spark, samples_as_topics, now_ms):
    expected: dict[str, list[int]] = {}
    for stage in SAMPLE_STAGES:
        (log,) = read_log_dir(stage).logs.values()
        core_full_pass(log, now_ms)
        expected[stage_topic(stage)] = offsets_in_log(log)
    records, segments, checkpoints = samples_as_topics
    ranges = dirtiness(segments, checkpoints, records, now_ms=now_ms)
    assert spark_offsets(compact(records, now_ms=now_ms, cleanable=ranges)) == expected


KEYS = [b"a", b"b", b"c", b"d"]
record = st.builds(NewRecord, st.sampled_from(KEYS), st.sampled_from([b"v", b"w", None]))
step = st.one_of(
    st.tuples(st.just("append"), st.lists(record, min_size=1, max_size=3)),
    st.tuples(
        st.just("txn"), st.lists(record.filter(lambda r: r.value is not None), min_size=1, max_size=2), st.booleans()
    ),
    st.tuples(st.just("roll")),
)


def build_log(topic: str, steps: list[tuple]) -> PartitionLog:
    config = TopicConfig.from_properties({"cleanup.policy": "compact", "delete.retention.ms": 100})
    log = PartitionLog(topic, config=config)
    for n, item in enumerate(steps):
        if item[0] == "append":
            log.append(item[1], now_ms=n)
        elif item[0] == "txn":
            log.append(item[1], now_ms=n, producer_id=7, producer_epoch=0, transactional=True)
            log.append_end_txn_marker(7, 0, commit=item[2], now_ms=n)
        elif log.active_segment.size_bytes:
            log.roll(now_ms=n)
    log.append([NewRecord(b"end", b"x")], now_ms=len(steps))
    log.roll(now_ms=len(steps))
    return log


def check_pass(spark, logs: list[PartitionLog], now_ms: int) -> None:
    before = logs_to_dataframe(spark, logs)  # rows are built now, before the core pass mutates the logs
    ranges = [(log.topic, log.partition, *core_full_pass(log, now_ms)) for log in logs]
    cleanable = spark.createDataFrame(
        ranges, "topic string, partition int, first_dirty_offset long, first_uncleanable_offset long"
    )
    assert spark_offsets(compact(before, now_ms=now_ms, cleanable=cleanable)) == {
        log.topic: offsets_in_log(log) for log in logs
    }


@settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(st.lists(st.lists(step, min_size=1, max_size=14), min_size=12, max_size=12))
def test_generated_logs_agree_over_two_passes(spark, programs):
    """Pass 1 keeps tombstones and stamps horizons; pass 2, past the horizons, removes them."""
    logs = [build_log(f"g{i}", steps) for i, steps in enumerate(programs)]
    check_pass(spark, logs, now_ms=1_000)
    check_pass(spark, logs, now_ms=2_000)
