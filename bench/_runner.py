"""Benchmark registry and runner: each benchmark returns named measurements; the runner repeats and tabulates."""

from __future__ import annotations

import atexit
import resource
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Measurement:
    """One run: elapsed seconds plus the work done, for throughput columns."""

    seconds: float
    records: int = 0
    bytes: int = 0
    note: str = ""
    """Anything else measured (e.g. a figure's JSON size), shown in the table's last column."""


@dataclass(frozen=True)
class Benchmark:
    name: str
    run: Callable[[], Measurement]
    repeat: int = 3
    target: str = ""


REGISTRY: list[Benchmark] = []


def benchmark(
    name: str, *, repeat: int = 3, target: str = ""
) -> Callable[[Callable[[], Measurement]], Callable[[], Measurement]]:
    """Register ``fn`` as a benchmark called ``name``."""

    def register(fn: Callable[[], Measurement]) -> Callable[[], Measurement]:
        REGISTRY.append(Benchmark(name, fn, repeat, target))
        return fn

    return register


def timed(fn: Callable[[], tuple[int, int]]) -> Measurement:
    """Run ``fn`` (returning records and bytes processed) and time it."""
    start = time.perf_counter()
    records, nbytes = fn()
    return Measurement(time.perf_counter() - start, records, nbytes)


def scratch_dir(prefix: str) -> Path:
    """A temporary directory for generated benchmark data, removed when the process exits."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_all(selected: list[Benchmark]) -> list[dict[str, str]]:
    rows = []
    for bench in selected:
        runs = [bench.run() for _ in range(bench.repeat)]
        median = statistics.median(r.seconds for r in runs)
        sample = runs[0]
        rows.append(
            {
                "benchmark": bench.name,
                "median s": f"{median:.3f}",
                "records/s": f"{sample.records / median:,.0f}" if sample.records else "",
                "MB/s": f"{sample.bytes / median / 1_048_576:,.1f}" if sample.bytes else "",
                "peak RSS MiB": f"{peak_rss_mib():,.0f}",
                "target": bench.target,
                "note": sample.note,
            }
        )
    return rows


def format_table(rows: list[dict[str, str]]) -> str:
    if not rows:
        return "(no benchmarks selected)"
    columns = list(rows[0])
    widths = {c: max(len(c), *(len(r[c]) for r in rows)) for c in columns}
    lines = [" | ".join(c.ljust(widths[c]) for c in columns), "-+-".join("-" * widths[c] for c in columns)]
    lines += [" | ".join(r[c].ljust(widths[c]) for c in columns) for r in rows]
    return "\n".join(lines)
