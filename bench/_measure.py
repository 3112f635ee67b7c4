"""One measurement in a fresh process, so peak RSS is that run's own: ``python -m bench._measure KIND DIR``.

KIND is ``core`` (load the partition dir, then our cleaner's full pass) or ``pandas`` (load (key, offset)
pairs, then latest offset per key). Prints one JSON object: load and compute seconds, records, bytes,
records kept and peak RSS in MiB.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench._runner import peak_rss_mib
from bench._workload import PASS_NOW_MS

BENCH_BROKER_OVERRIDES = {
    "log.cleaner.dedupe.buffer.size": str(128 * 1024 * 1024),
    "log.cleaner.io.max.bytes.per.second": "1.7976931348623157E308",
}
"""A dedupe buffer big enough for one pass over 5M records (500k keys), and no I/O throttle."""


def cleanable_segment_bytes(folder: Path) -> int:
    """Bytes of every segment file but the active (last) one."""
    return sum(p.stat().st_size for p in sorted(folder.glob("*.log"))[:-1])


def measure_core(folder: Path) -> dict[str, Any]:
    """Load with our reader, then one full pass of our cleaner as the broker would run it."""
    from kcompact_nb.core._cleaner import clean_pass
    from kcompact_nb.core._log_to_clean import log_to_clean
    from kcompact_nb.fidelity import broker_settings, topic_settings
    from kcompact_nb.io import read_partition_dir

    broker = broker_settings("4.4.0", BENCH_BROKER_OVERRIDES)
    start = time.perf_counter()
    log = read_partition_dir(folder, config=topic_settings(broker=broker), broker=broker, keep_raw=False).log
    loaded = time.perf_counter()
    ltc = log_to_clean(log, now_ms=PASS_NOW_MS)
    result = clean_pass(log, now_ms=PASS_NOW_MS, first_dirty_offset=ltc.first_dirty_offset,
                        first_uncleanable_offset=ltc.first_uncleanable_offset)  # fmt: skip
    done = time.perf_counter()
    stats = result.stats
    return _row(loaded - start, done - loaded, stats.messages_read, stats.bytes_read, stats.messages_written)


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


def _row(load_s: float, compute_s: float, records: int, nbytes: int, kept: int) -> dict[str, Any]:
    return {"load_s": load_s, "compute_s": compute_s, "records": records, "bytes": nbytes, "kept": kept,
            "peak_rss_mib": peak_rss_mib()}  # fmt: skip


MEASURES: dict[str, Callable[[Path], dict[str, Any]]] = {"core": measure_core, "pandas": measure_pandas}


if __name__ == "__main__":
    kind, folder = sys.argv[1], Path(sys.argv[2])
    print(json.dumps(MEASURES[kind](folder)))
