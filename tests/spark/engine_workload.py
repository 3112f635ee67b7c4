"""What the engine tests run on every engine: loaders, analytics and topic passes on the bundled samples, as row tuples.

Analytics the notebooks run (dirtiness, compact, counts, buckets...) are checked there, against the notebooks'
stored outputs; this covers every loader (both decoders, URLs, text files) and the analytics the notebooks skip.

The same function runs on the shared ``local[2]`` session and, as ``python -m tests.spark.engine_workload
OUT``, in a process whose ``$MASTER`` or ``$SPARK_REMOTE`` points at a standalone master or a Spark Connect
server (``spark_session("local[2]")`` then runs there); the test compares the pickled results. ``python -m
tests.spark.engine_workload OUT HDFS_URL`` adds the loaders on tests/spark/hdfs.py's cluster, read by the engine.
"""

from __future__ import annotations

import pickle
import sys
import tempfile
from functools import reduce
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import Row, TimestampType

from kcompact_nb import TopicConfig
from kcompact_nb.spark import (
    compact,
    dirtiness,
    duplicates,
    load_checkpoints,
    load_dump_log,
    load_jsonl,
    load_kcat,
    load_log_dir,
    load_segments,
    spark_session,
    to_partition_log,
    tombstones,
    topic_passes,
    with_transaction_flags,
)
from kcompact_nb.spark._segment_source import in_session, is_connect

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "kafka"
STAGES = [SAMPLES / name for name in ("transactional/before", "tombstone-lifecycle/1-first-pass")]
"""Transactions with markers, producer ids, tombstones (notebook 06 covers plain compaction-basic)."""
NOW_MS = 1_767_225_660_000
LOW_RATIO = TopicConfig.from_properties({"cleanup.policy": "compact", "min.cleanable.dirty.ratio": 0.01})
KCAT = (
    '{"topic":"t","partition":1,"offset":5,"tstype":"create","ts":1000,"broker":1,"headers":["h","x"],'
    '"key":"a","payload":"1"}\n'
    '{"topic":"t","partition":1,"offset":6,"tstype":"create","ts":2000,"broker":1,"key":"a","payload":null}\n'
)
Rows = list[tuple[Any, ...]]


def per_stage(spark: SparkSession, load: Any, **options: Any) -> DataFrame:
    """One topic per sample stage (stages share topic names), as tests/spark/conftest.py's samples_as_topics."""
    frames = [
        load(spark, stage, **options).withColumn("topic", F.lit(f"{stage.parent.name}/{stage.name}"))
        for stage in STAGES
    ]
    return reduce(DataFrame.unionByName, frames)


def workload(spark: SparkSession, scratch: Path, hdfs: str | None = None) -> dict[str, Rows]:
    """Every loader and analytic on the samples; Hadoop ``file://`` URLs, the Python decoder and text loaders too.

    ``hdfs``: the URL of tests/spark/hdfs.py's cluster, whose copies of the samples are then loaded as well.
    """
    records = per_stage(spark, load_log_dir).persist()
    segments, checkpoints = per_stage(spark, load_segments), per_stage(spark, load_checkpoints)
    ranges = dirtiness(segments, checkpoints, records, now_ms=NOW_MS, config=LOW_RATIO)
    cleaned = compact(records, now_ms=NOW_MS, segments=segments, checkpoints=checkpoints)
    (scratch / "k.json").write_text(KCAT)
    frames = {
        "records": records,
        "records, decoder='python'": load_log_dir(spark, STAGES[0], decoder="python"),
        "records, file:// URL": load_log_dir(spark, f"file://{STAGES[1]}"),
        "segments": segments,
        "checkpoints": checkpoints,
        "dump": load_dump_log(spark, [stage / "dump.txt" for stage in STAGES], topic="dump", partition=0),
        "dump, file:// URL": load_dump_log(spark, f"file://{STAGES[0]}/dump.txt", topic="dump", partition=0),
        "kcat": load_kcat(spark, scratch / "k.json", topic="t"),
        "jsonl": load_jsonl(spark, STAGES[0] / "records.jsonl"),
        "dirtiness": ranges,
        "compact": cleaned,
        "duplicates": duplicates(records),
        "tombstones": tombstones(records, cleaned=cleaned),
        "with_transaction_flags": with_transaction_flags(records),
        "topic_passes": topic_passes(spark, STAGES[1], now_ms=NOW_MS),
    }
    if hdfs is not None:
        frames |= on_hdfs(spark, hdfs)
    results = {name: collected(df) for name, df in frames.items()}
    bridged = to_partition_log(
        records.filter(F.col("topic") == "transactional/before"), topic="txn", partition=0, limit=1_000
    )
    results["to_partition_log"] = [(r.offset, r.key, r.value) for _, r in bridged.records()]
    results["engine"] = [(in_session(spark),)]
    records.unpersist()
    return results


def on_hdfs(spark: SparkSession, hdfs: str) -> dict[str, DataFrame]:
    """The URL loaders on the cluster's copies.

    ``/kafka`` holds SAMPLES, ``/kcat`` tests/spark/conftest.py's KCAT_FILES.
    """
    stage = f"{hdfs}/kafka/{STAGES[0].relative_to(SAMPLES).as_posix()}"
    return {
        "records, hdfs:// URL": load_log_dir(spark, stage),
        "segments, hdfs:// URL": load_segments(spark, stage),
        "checkpoints, hdfs:// URL": load_checkpoints(spark, stage),
        "dump, hdfs:// URL": load_dump_log(spark, f"{stage}/dump.txt", topic="dump", partition=0),
        "kcat, hdfs:// URL": load_kcat(spark, f"{hdfs}/kcat/json.out", topic="t"),
    }


def collected(df: DataFrame) -> Rows:
    """All rows as plain tuples in a fixed order; timestamps as epoch microseconds (no time zone involved)."""
    stamps = [f.name for f in df.schema.fields if isinstance(f.dataType, TimestampType)]
    plain = df.select(*[F.unix_micros(c).alias(c) if c in stamps else F.col(c) for c in df.columns])
    return sorted((plain_value(row) for row in plain.collect()), key=repr)


def plain_value(value: Any) -> Any:
    if isinstance(value, Row | tuple | list):
        return tuple(plain_value(v) for v in value)
    return bytes(value) if isinstance(value, bytearray) else value


def main(out: Path, hdfs: str | None) -> None:
    spark = spark_session("local[2]", shuffle_partitions=2)  # as the notebooks call it: the environment decides
    with tempfile.TemporaryDirectory() as scratch:
        results = workload(spark, Path(scratch), hdfs)
    results["where"] = [(is_connect(spark), None if is_connect(spark) else spark.sparkContext.master)]
    spark.stop()
    out.write_bytes(pickle.dumps(results))


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None)
