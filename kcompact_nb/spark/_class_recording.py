"""Recording Spark's class archive (:mod:`~kcompact_nb.spark._class_archive`): ``make classes``.

A child Python runs a small notebook-like workload in a session whose driver JVM runs with
``-XX:ArchiveClassesAtExit``; the JVM writes the classes it loaded as it exits, to a file of its own, which becomes
the archive only when that JVM exited cleanly (a cut-off archive would crash the JVMs that map it).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pyspark.sql import functions as F

from kcompact_nb.spark._analytics import exact_counts
from kcompact_nb.spark._buckets import offset_buckets
from kcompact_nb.spark._class_archive import QUIET_OPTIONS, class_archive_path
from kcompact_nb.spark._compact import compact
from kcompact_nb.spark._dirtiness import dirtiness
from kcompact_nb.spark._display import table
from kcompact_nb.spark._latest import live_state
from kcompact_nb.spark._session import LEAN_SETTINGS, spark_session
from kcompact_nb.spark._synthetic import synthetic_topic

_RECORDING_SECONDS = 600


def record_class_archive() -> Path | None:
    """Record the archive unless it exists: its path, None without Java. Raises
    :class:`subprocess.CalledProcessError` (or ``TimeoutExpired``) when the workload fails."""
    target = class_archive_path()
    if target is None or target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}")
    workload = "import sys; from kcompact_nb.spark._class_recording import run_workload; run_workload(sys.argv[1])"
    try:
        subprocess.run([sys.executable, "-c", workload, str(partial)], check=True, timeout=_RECORDING_SECONDS)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def run_workload(partial: str) -> None:
    """What a notebook does with Spark, small, in a session whose JVM writes the classes it loaded to ``partial``."""
    lean_options = LEAN_SETTINGS["spark.driver.extraJavaOptions"]
    options = {"spark.driver.extraJavaOptions": f"{lean_options} -XX:ArchiveClassesAtExit={partial} {QUIET_OPTIONS}"}
    spark = spark_session("local[2]", shuffle_partitions=2, lean=True, config=options)
    topic = synthetic_topic(spark, partitions=2, records=2_000, keys=200, segment_records=200, earlier_partitions=1)
    topic.records.groupBy("partition").agg(F.count("*"), F.max("offset")).collect()
    ranges = dirtiness(topic.segments, topic.checkpoints, topic.records, now_ms=topic.now_ms).cache()
    table(ranges)
    kept = compact(topic.records, now_ms=topic.now_ms, segments=topic.segments, checkpoints=topic.checkpoints)
    table(offset_buckets(kept.filter("partition = 0"), bucket_offsets=100), limit=50, order_by=["start_offset"])
    table(exact_counts(topic.records))
    live_state(topic.records).agg(F.count("*"), F.count_distinct("key")).first()
    gateway = spark.sparkContext._gateway.proc  # type: ignore[union-attr]
    spark.stop()
    gateway.stdin.close()  # Spark's gateway JVM exits at the end of its input, writing the archive as it exits
    if gateway.wait(timeout=_RECORDING_SECONDS) != 0 or not Path(partial).is_file():
        raise SystemExit(f"the JVM did not write its class archive ({partial})")


def main() -> int:
    """Record the archive and say where it is; a failed recording leaves sessions as they were (exit 0)."""
    try:
        archive = record_class_archive()
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        print(f"Spark's class archive was not recorded ({error}); sessions load Spark's classes themselves")
        return 0
    print(f"Spark's class archive: {archive}" if archive else "no Java: Spark's class archive was not recorded")
    return 0
