"""Small random partitions produced through the core's :class:`Simulation`, for the tests that hold Spark's engine
tasks (``compact``, ``dirtiness``) to what the same Simulation says and does.

A partition is a list of steps, one millisecond apart: appends (tombstones among them), committed and aborted
transactions, one transaction left open (its producer never ends it: the last stable offset stays before it),
and rolls; then one more record and a roll, so every step's records sit outside the active segment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st
from pyspark.sql import DataFrame, SparkSession

from kcompact_nb import NewRecord, PartitionLog, Simulation

KEYS = [b"a", b"b", b"c", b"d"]
record = st.builds(NewRecord, st.sampled_from(KEYS), st.sampled_from([b"v", b"w", None]))
valued = record.filter(lambda r: r.value is not None)
step = st.one_of(
    st.tuples(st.just("append"), st.lists(record, min_size=1, max_size=3)),
    st.tuples(st.just("txn"), st.lists(valued, min_size=1, max_size=2), st.booleans()),
    st.tuples(st.just("open-txn"), st.lists(valued, min_size=1, max_size=2)),
    st.tuples(st.just("roll")),
)
steps = st.lists(step, min_size=1, max_size=14)
COMMITTING, OPEN = 7, 8
"""The producer ids of the transactions that end, and of the one left open."""


def simulate(topic: str, program: Sequence[tuple[Any, ...]], config: Mapping[str, Any] | None = None) -> Simulation:
    """A Simulation of partition ``topic``-0 (``cleanup.policy=compact``, ``delete.retention.ms=100`` unless
    ``config`` says otherwise) after ``program``, one step a millisecond from t = 1 ms, then a last record and a
    roll."""
    sim = Simulation(topics={topic: {"cleanup.policy": "compact", "delete.retention.ms": 100, **(config or {})}})
    for item in program:
        sim.advance(1)
        if item[0] == "append":
            sim.append(topic, item[1])
        elif item[0] in ("txn", "open-txn"):
            producer = COMMITTING if item[0] == "txn" else OPEN
            sim.append(topic, item[1], producer_id=producer, producer_epoch=0, transactional=True)
            if item[0] == "txn":
                sim.end_txn(topic, COMMITTING, 0, commit=item[2])
        elif sim.log(topic).active_segment.size_bytes:
            sim.roll(topic)
    sim.advance(1)
    sim.append(topic, [NewRecord(b"end", b"x")])
    sim.roll(topic)
    return sim


def checkpoints_of(spark: SparkSession, logs: Sequence[PartitionLog]) -> DataFrame:
    """``load_checkpoints``' rows for ``logs``."""
    rows = [(log.topic, log.partition, log.cleaner_checkpoint, log.log_start_offset) for log in logs]
    return spark.createDataFrame(rows, "topic string, partition int, cleaner_checkpoint long, log_start_offset long")


def segments_of(spark: SparkSession, logs: Sequence[PartitionLog]) -> DataFrame:
    """``load_segments``' rows for ``logs``: every segment, the empty active ones included (rows of records cannot
    show them), with its size and modification time."""
    rows = [
        (log.topic, log.partition, segment.base_offset, segment.size_bytes, segment.last_modified_ms)
        for log in logs
        for segment in log.segments
    ]
    schema = "topic string, partition int, segment_base_offset long, size_bytes long, last_modified_ms long"
    return spark.createDataFrame(rows, schema)
