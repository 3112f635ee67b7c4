"""Benchmarks of the Spark layer (issue #6).

* 10,000,000 records (1,000,000 keys, 10 partitions) as Parquet: load, live state and full compaction (the core's
  pass per partition in Spark tasks over the whole log, a map that never fills) on ``local[2]`` (target: under 90 s)
  and on ``local[1]`` (target: local[2] at least 1.6 times faster).
* Segment files decoded by Spark tasks on ``local[2]`` against the single-core reader (target: 1.7 times), with
  the JVM segment-file source (the default) and with the io reader in Python workers.

A master cannot change inside a session, so each master gets its own session. Its first run there
(JIT compilation, code generation, file listing) is reported in the note and not timed: on ``local[1]``
that warm-up also runs on the second core (the JVM's compiler threads), which would understate the
speed-up. ``python -m bench.bench_spark`` prints the two ratios as well. Generated data is deleted at exit.
"""

from __future__ import annotations

import os
import statistics
import struct
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

from kafka.record.default_records import DefaultRecordBatchBuilder  # type: ignore[import-untyped]
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from bench._runner import Measurement, benchmark, scratch_dir
from kcompact_nb.core import OffsetMapSpec
from kcompact_nb.io import SegmentFileReader
from kcompact_nb.spark import compact, live_state, load_log_dir, load_parquet, spark_session, whole_log_range

RECORDS = 10_000_000
KEYS = 1_000_000
PARTITIONS = 10
SEGMENT_FILES = 8
SEGMENT_RECORDS = 150_000
BASE_TS_MS = 1_767_225_600_000


SESSION_CONFIG = {
    "spark.driver.memory": "8g",
    "spark.sql.files.maxPartitionBytes": "16m",
    "spark.sql.adaptive.coalescePartitions.enabled": "false",
}
"""Even work for two task slots: 16 MB Parquet splits (the 8 files would make 3 scan tasks) and the
8 shuffle partitions kept as they are instead of coalesced into fewer, unequal ones."""


def _session(master: str) -> SparkSession:
    active = SparkSession.getActiveSession()
    if active is not None and active.sparkContext.master != master:
        active.stop()
    return spark_session(master, shuffle_partitions=8, config=SESSION_CONFIG)


@cache
def parquet_table() -> Path:
    """10M records written once: key ``id % KEYS``, partition ``key % 10``, dense offsets, 1 in 20 a tombstone."""
    path = scratch_dir("kcompact-bench-spark-") / "records.parquet"
    spark = _session("local[2]")
    ids = spark.range(RECORDS)
    key = F.col("id") % KEYS
    df = ids.select(
        F.encode(F.format_string("key-%07d", key), "UTF-8").alias("key"),
        F.when(F.col("id") % 20 == 19, F.lit(None))
        .otherwise(F.encode(F.format_string("value-%012d", F.col("id")), "UTF-8"))
        .alias("value"),
        F.lit("bench").alias("topic"),
        (key % PARTITIONS).cast("int").alias("partition"),
        (F.col("id") / PARTITIONS).cast("long").alias("offset"),
        F.timestamp_millis(F.lit(BASE_TS_MS) + F.col("id")).alias("timestamp"),
        F.lit(0).alias("timestampType"),
        F.lit(None).cast("array<struct<key:string,value:binary>>").alias("headers"),
        F.lit(40).alias("record_size_bytes"),
    )
    df.repartition(PARTITIONS, "partition").sortWithinPartitions("offset").write.parquet(str(path))
    spark.stop()  # each measured master starts in a fresh session, not in the one that wrote 10M rows
    return path


_first_run_s: dict[str, float] = {}
"""Seconds of the untimed first 10M run, per Spark application id."""


def _after_first_run(first_runs: dict[str, float], key: str, run: Callable[[], float]) -> tuple[float, float]:
    """Seconds of ``run``, and of the untimed first run for ``key`` (made now if there is none yet)."""
    if key not in first_runs:
        first_runs[key] = run()
    return run(), first_runs[key]


def _load_live_state_and_compact(spark: SparkSession) -> float:
    start = time.perf_counter()
    records = load_parquet(spark, parquet_table())
    live_state(records).write.format("noop").mode("overwrite").save()
    ranges, exact = whole_log_range(records), OffsetMapSpec(exact=True)  # the table has no segments: all of it
    kept = compact(records, now_ms=BASE_TS_MS, cleanable=ranges, offset_map=exact)
    kept.write.format("noop").mode("overwrite").save()
    return time.perf_counter() - start


def _live_state_and_compaction(master: str) -> Measurement:
    parquet_table()
    spark = _session(master)
    seconds, first = _after_first_run(
        _first_run_s, spark.sparkContext.applicationId, lambda: _load_live_state_and_compact(spark)
    )
    return Measurement(
        seconds, RECORDS, note=f"first run in a fresh session {first:.1f} s, load {os.getloadavg()[0]:.1f}"
    )


@benchmark("spark: 10M records, live state + full compaction, local[2]", repeat=3, target="< 90 s, first run too")
def ten_million_two_cores() -> Measurement:
    return _live_state_and_compaction("local[2]")


@benchmark("spark: 10M records, live state + full compaction, local[1]", repeat=3, target="local[2] >= 1.6x faster")
def ten_million_one_core() -> Measurement:
    return _live_state_and_compaction("local[1]")


@cache
def segment_log_dir() -> Path:
    """SEGMENT_FILES segment files of one partition, SEGMENT_RECORDS records each in batches of 50."""
    root = scratch_dir("kcompact-bench-segments-")
    partition = root / "bench-0"
    partition.mkdir()
    for n in range(SEGMENT_FILES):
        first = n * SEGMENT_RECORDS
        with open(partition / f"{first:020d}.log", "wb") as handle:
            for base in range(first, first + SEGMENT_RECORDS, 50):
                builder = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 30)
                for i in range(50):
                    builder.append(i, BASE_TS_MS + base + i, b"key-%d" % ((base + i) % 10_000), b"v" * 100, [])
                data = builder.build()
                struct.pack_into(">q", data, 0, base)
                handle.write(data)
    return root


def _segment_bytes() -> int:
    return sum(p.stat().st_size for p in segment_log_dir().glob("*/*.log"))


def _cpu_note(start_cpu_s: float) -> str:
    return f"CPU {time.process_time() - start_cpu_s:.1f} s, load {os.getloadavg()[0]:.1f}"


@benchmark("spark: decode segment files, single-core reader (no Spark)", repeat=3)
def decode_single_core() -> Measurement:
    """Both sides check every CRC and decode every record; files are in the page cache for both."""
    files = sorted(segment_log_dir().glob("*/*.log"))
    start, start_cpu = time.perf_counter(), time.process_time()
    count = sum(len(b.records) for f in files for b in SegmentFileReader(f, verify_crc=True, keep_raw=False))
    return Measurement(time.perf_counter() - start, count, _segment_bytes(), _cpu_note(start_cpu))


_first_decode_s: dict[str, float] = {}
"""Seconds of the untimed first decode per session and decoder (JIT compilation, Python workers starting)."""


def _decode_on_two_cores(decoder: str) -> Measurement:
    spark = _session("local[2]")
    records = load_log_dir(spark, segment_log_dir(), verify_crc=True, decoder=decoder)
    seconds, first = _after_first_run(
        _first_decode_s, f"{spark.sparkContext.applicationId}/{decoder}", lambda: _noop_seconds(records)
    )
    note = f"first run in the session {first:.1f} s, load {os.getloadavg()[0]:.1f}"
    return Measurement(seconds, SEGMENT_FILES * SEGMENT_RECORDS, _segment_bytes(), note)


def _noop_seconds(records: DataFrame) -> float:
    start = time.perf_counter()
    records.write.format("noop").mode("overwrite").save()
    return time.perf_counter() - start


@benchmark(
    "spark: decode segment files, load_log_dir on local[2] (JVM source)",
    repeat=3,
    target=">= 1.7x the single-core reader",
)
def decode_two_cores() -> Measurement:
    """The default decoder of a session from spark_session: kafka-clients in the executors."""
    return _decode_on_two_cores("jvm")


@benchmark("spark: decode segment files, load_log_dir decoder='python' on local[2]", repeat=3)
def decode_two_cores_python() -> Measurement:
    """The io reader in Python workers (sessions without the JVM source, Spark Connect)."""
    return _decode_on_two_cores("python")


def main() -> None:
    parquet_table()
    segment_log_dir()
    two = statistics.median(ten_million_two_cores().seconds for _ in range(3))
    one = statistics.median(ten_million_one_core().seconds for _ in range(3))
    single = statistics.median(decode_single_core().seconds for _ in range(3))
    jvm = statistics.median(decode_two_cores().seconds for _ in range(3))
    python = statistics.median(decode_two_cores_python().seconds for _ in range(3))
    print(
        f"10M live state + compaction, median of 3 after a first run: local[2] {two:.1f} s, local[1] {one:.1f} s, "
        f"speed-up {one / two:.2f}x"
    )
    print("first runs in fresh sessions: " + ", ".join(f"{s:.1f} s" for s in _first_run_s.values()))
    print(
        f"decode, median of 3: single-core reader {single:.2f} s, "
        f"Spark local[2] JVM source {jvm:.2f} s ({single / jvm:.2f}x), "
        f"Python workers {python:.2f} s ({single / python:.2f}x)"
    )


if __name__ == "__main__":
    main()
