"""One measurement in a fresh process, so peak RSS is that run's own: ``python -m bench._measure KIND DIR``.

KIND is ``core`` (the partition dir read whole as ``kcompact clean`` reads it, its files' bytes held in memory, then
our cleaner's full pass over them, writing the cleaned segments as Kafka's pass writes them), ``decoded`` (the same
with every batch decoded at load, as a notebook reads a partition, the cleaned segments written after), ``stream``
(the same pass streamed over the segment files: headers scanned, then the pass reading the files and writing each
cleaned group, in bounded memory), ``pandas`` (load (key, offset) pairs, then latest offset per key) or ``spark``
(load with Spark on ``local[2]``, then its full compaction). Prints one JSON object: load, compute and write seconds
(absent when nothing is written apart), records, bytes, records kept, peak RSS in MiB and a note.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench._runner import peak_rss_mib
from bench._workload import PASS_NOW_MS
from kcompact_nb.io import ReadOptions, read_partition_dir

BENCH_BROKER_OVERRIDES = {
    "log.cleaner.dedupe.buffer.size": str(128 * 1024 * 1024),
    "log.cleaner.io.max.bytes.per.second": "1.7976931348623157E308",
}
"""A dedupe buffer big enough for one pass over 5M records (500k keys), and no I/O throttle."""
BENCH_TOPIC_OVERRIDES = {"segment.index.bytes": "10485760"}
"""Kafka's default index size, as the broker's topic has it (the fidelity topics' 4 KiB index fills up at 512
entries: a pass writing a bigger segment would fail as Kafka's does)."""


def cleanable_segment_bytes(folder: Path) -> int:
    """Bytes of every segment file but the active (last) one."""
    return sum(p.stat().st_size for p in sorted(folder.glob("*.log"))[:-1])


def measure_core(folder: Path) -> dict[str, Any]:
    """Read whole as ``kcompact clean`` reads a partition under ``--stream-from``: its files' bytes held in memory, one
    read each, their batch headers scanned (the broker's log loading: the "load"), then one full pass of our cleaner
    as the broker would run it, over those bytes, writing each cleaned group's ``.log`` file as it fills it (the
    "pass", its writes included, as Kafka's)."""
    return _pass_over(folder, hold_bytes=True)


def measure_stream(folder: Path) -> dict[str, Any]:
    """The pass streamed over the files, as ``kcompact clean`` runs it on a big partition: the partition read on disk
    (its batch headers, the broker's log loading: the "load"), then the pass, which reads the files a read buffer at a
    time and writes each cleaned group (the "pass", its reads and writes included, as Kafka's)."""
    return _pass_over(folder, on_disk_from_bytes=0)


def _pass_over(folder: Path, **read: Any) -> dict[str, Any]:
    """The partition read as ``read`` says, then the broker's pass, its cleaned groups written into a scratch folder."""
    import tempfile

    from kcompact_nb.core import CleanerManager
    from kcompact_nb.fidelity import broker_settings, topic_settings

    broker = broker_settings("4.4.0", BENCH_BROKER_OVERRIDES)
    with tempfile.TemporaryDirectory(prefix="kcompact-bench-cleaned-") as out:
        start = time.perf_counter()
        options = ReadOptions(
            config=topic_settings(BENCH_TOPIC_OVERRIDES, broker=broker), broker=broker, cleaned_into=Path(out),
            progress=False, **read,
        )  # fmt: skip
        log = read_partition_dir(folder, options).log
        loaded = time.perf_counter()
        result = CleanerManager(broker).clean_log(log, now_ms=PASS_NOW_MS, force=True)
        done = time.perf_counter()
    assert result is not None
    stats = result.stats
    return _row(loaded - start, done - loaded, stats.messages_read, stats.bytes_read, stats.messages_written)


def measure_decoded(folder: Path) -> dict[str, Any]:
    """Read whole with every batch decoded (``read_partition_dir``'s default: what a notebook holds to look at the
    batches), one full pass of our cleaner over them, then each cleaned segment's ``.log`` file written (batches kept
    whole copied as their bytes)."""
    import tempfile

    from kcompact_nb.core import clean_pass, log_to_clean, segment_file_name
    from kcompact_nb.fidelity import broker_settings, topic_settings
    from kcompact_nb.io import write_segment_file

    broker = broker_settings("4.4.0", BENCH_BROKER_OVERRIDES)
    start = time.perf_counter()
    topic = topic_settings(BENCH_TOPIC_OVERRIDES, broker=broker)
    log = read_partition_dir(folder, ReadOptions(config=topic, broker=broker)).log
    loaded = time.perf_counter()
    ltc = log_to_clean(log, now_ms=PASS_NOW_MS)
    result = clean_pass(log, now_ms=PASS_NOW_MS, first_dirty_offset=ltc.first_dirty_offset,
                        first_uncleanable_offset=ltc.first_uncleanable_offset)  # fmt: skip
    done = time.perf_counter()
    cleaned = {group[0] for group in result.groups}
    with tempfile.TemporaryDirectory(prefix="kcompact-bench-cleaned-") as out:
        for segment in log.segments:
            if segment.base_offset in cleaned:
                write_segment_file(segment, Path(out) / segment_file_name(segment.base_offset))
        written = time.perf_counter()
    stats = result.stats
    row = _row(loaded - start, done - loaded, stats.messages_read, stats.bytes_read, stats.messages_written)
    return {**row, "write_s": written - done}


def measure_pandas(folder: Path) -> dict[str, Any]:
    """The naive baseline: latest offset per key, ignoring segments, tombstone horizons and transactions."""
    import pandas as pd

    from kcompact_nb.io import iter_segment_batches

    start = time.perf_counter()
    keys, offsets = [], []
    for path in sorted(folder.glob("*.log"))[:-1]:  # the active segment is not cleanable by anyone
        for batch in iter_segment_batches(path):
            for record in batch.records:
                keys.append(record.key)
                offsets.append(record.offset)
    frame = pd.DataFrame({"key": keys, "offset": offsets})
    loaded = time.perf_counter()
    latest = frame.groupby("key", sort=False)["offset"].max()
    done = time.perf_counter()
    return _row(loaded - start, done - loaded, len(frame), cleanable_segment_bytes(folder), len(latest))


def measure_spark(folder: Path) -> dict[str, Any]:
    """(d) Spark on ``local[2]``: decode the partition (cached) and its cleanable range, then the core's pass over it
    in a Spark task (:func:`kcompact_nb.spark.compact`).

    The compaction runs twice in the session and the second is timed: the first compiles and generates code
    (its time is in the note). Peak RSS adds the peaks of the driver, the JVM and the Python workers.
    """
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    from kcompact_nb.core import BrokerConfig
    from kcompact_nb.spark import compact, dirtiness, load_checkpoints, load_log_dir, load_segments, spark_session

    spark = spark_session("local[2]", shuffle_partitions=8, config={"spark.driver.memory": "6g"})
    root, topic = folder.parent, folder.name.rpartition("-")[0]
    start = time.perf_counter()
    records = load_log_dir(spark, root, topics=[topic]).persist(StorageLevel.MEMORY_AND_DISK)
    records.count()
    segments, checkpoints = load_segments(spark, root, topics=[topic]), load_checkpoints(spark, root)
    ranges = dirtiness(segments, checkpoints, records, now_ms=PASS_NOW_MS).cache()
    end = ranges.first()["first_uncleanable_offset"]
    broker = BrokerConfig.from_properties(BENCH_BROKER_OVERRIDES)
    log_dir: dict[str, Any] = {"segments": segments, "checkpoints": checkpoints, "broker": broker}
    loaded = time.perf_counter()

    def compaction() -> float:
        began = time.perf_counter()
        compact(records, now_ms=PASS_NOW_MS, **log_dir).write.format("noop").mode("overwrite").save()
        return time.perf_counter() - began

    first, seconds = compaction(), compaction()
    in_range = F.col("offset") < end
    kept = compact(records, now_ms=PASS_NOW_MS, **log_dir).filter(in_range).count()
    read = records.filter(in_range).count()
    peak = _process_tree_peak_rss_mib()
    spark.stop()
    note = f"first (cold) compaction {first:.1f} s; RSS: driver + JVM + Python workers"
    return _row(loaded - start, seconds, read, cleanable_segment_bytes(folder), kept, peak, note)


def _process_tree_peak_rss_mib() -> float:
    """The sum of ``VmHWM`` over this process and its descendants (Linux ``/proc``)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    tree, frontier = {os.getpid()}, [os.getpid()]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in tree]
        tree.update(children)
        frontier += children
    return sum(_vm_hwm_kib(pid) for pid in tree) / 1024


def _vm_hwm_kib(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    lines = [line for line in status.splitlines() if line.startswith("VmHWM:")]
    return int(lines[0].split()[1]) if lines else 0


def _row(
    load_s: float, compute_s: float, records: int, nbytes: int, kept: int, peak: float | None = None, note: str = ""
) -> dict[str, Any]:
    return {"load_s": load_s, "compute_s": compute_s, "records": records, "bytes": nbytes, "kept": kept,
            "peak_rss_mib": peak_rss_mib() if peak is None else peak, "note": note}  # fmt: skip


MEASURES: dict[str, Callable[[Path], dict[str, Any]]] = {
    "core": measure_core,
    "decoded": measure_decoded,
    "stream": measure_stream,
    "pandas": measure_pandas,
    "spark": measure_spark,
}


if __name__ == "__main__":
    kind, folder = sys.argv[1], Path(sys.argv[2])
    print(json.dumps(MEASURES[kind](folder)))
