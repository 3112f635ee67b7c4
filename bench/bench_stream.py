"""``python -m bench stream [--sizes 1M,5M,50M] [--work DIR] [--keep DIR] [--modes stream,buckets,memory]
[--output FILE]``: the streamed pass over big partitions (issue #19, points 2 and 4).

For each size a partition of the side-by-side workload (100-byte values, keys = records / 10, 5 % tombstones,
batches of 100) is written in the broker's layout, rolled at Kafka's default ``segment.bytes`` (1 GiB), then
measured in a fresh process each (its own peak RSS):

- ``stream``: the partition read on disk, its pass with the broker's default 128 MiB dedupe buffer,
  writing the cleaned partition to disk (the pass's ``.log`` files, as ``kcompact clean`` writes them);
- ``memory`` (up to 5M records): the partition read whole, then the same pass (for the comparison);
- ``buckets``: offset-bucketed summaries computed while streaming, then the layout figure drawn from them.

Prints one table: seconds, records per second, microseconds per record, peak RSS; the machine and its load
(``--output`` also writes it as markdown, e.g. ``bench/RESULTS-stream.md``). Generated data is deleted afterwards,
unless ``--keep DIR`` names a folder to keep each size's partition in (``DIR/<records>/bench-0``), reused by later
runs (the 50M partition takes minutes to write); ``--modes`` measures only the modes listed.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._machine import describe
from bench._runner import format_table
from bench._workload import PASS_NOW_MS, Workload, write_segmented_partition_dir
from kcompact_nb.io import ReadOptions

IN_MEMORY_UP_TO = 5_000_000
"""Sizes the in-memory pass is measured at beside the streamed one (above, it needs more than the machine's RAM)."""


def parse_size(text: str) -> int:
    """``1M`` -> 1_000_000, ``500k`` -> 500_000, ``1000`` -> 1000."""
    text = text.strip().lower()
    factor = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("km")) * factor)


def child(mode: str, folder: Path, out: Path) -> dict[str, Any]:
    """One measurement in this process: ``mode`` over the partition ``folder`` (imports before the clock starts)."""
    from bench.bench_stream_figure import streamed_figure
    from kcompact_nb.core import CleanerManager
    from kcompact_nb.io import read_partition_dir, write_partition_dir

    start = time.perf_counter()
    cpu_before = _cpu_seconds()
    note = ""
    if mode == "stream":
        with tempfile.TemporaryDirectory(prefix="kcompact-bench-cleaned-", dir=out.parent) as cleaned:
            options = ReadOptions(on_disk_from_bytes=0, cleaned_into=Path(cleaned), progress=False)
            log = read_partition_dir(folder, options).log
            result = CleanerManager(log.broker).clean_log(log, now_ms=PASS_NOW_MS, force=True)
            assert result is not None
            write_partition_dir(log, out)
        stats = result.stats
        note = f"{stats.messages_written:,} records kept; map {stats.buffer_utilization:.0%} used"
    elif mode == "memory":
        log = read_partition_dir(folder, ReadOptions(now_ms=PASS_NOW_MS, progress=False)).log
        result = CleanerManager(log.broker).clean_log(log, now_ms=PASS_NOW_MS, force=True)
        assert result is not None
        write_partition_dir(log, out)
        note = f"{result.stats.messages_written:,} records kept"
    else:
        note = streamed_figure(folder)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "cpu_seconds": _cpu_seconds() - cpu_before,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "note": note,
    }


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(mode: str, folder: Path, out: Path) -> dict[str, Any]:
    """Run :func:`child` in a fresh Python process; its JSON line back."""
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "bench.bench_stream", "child", mode, str(folder), str(out)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-4000:]}")
    return dict(json.loads(done.stdout.splitlines()[-1]))


def main(argv: list[str]) -> int:
    if argv[:1] == ["child"]:
        print(json.dumps(child(argv[1], Path(argv[2]), Path(argv[3]))))
        return 0
    sizes = [parse_size(s) for s in _option(argv, "--sizes", "1M,5M").split(",")]
    work = Path(_option(argv, "--work", tempfile.gettempdir()))
    machine = f"{describe()}; load average {os.getloadavg()[0]:.1f} at start"
    print(f"machine: {machine}")
    modes = _option(argv, "--modes", "stream,buckets,memory").split(",")
    keep = _option(argv, "--keep", "")
    rows = streamed_rows(sizes, work, modes=modes, keep=Path(keep) if keep else None)
    print(format_table(rows))
    output = _option(argv, "--output", "")
    if output:
        Path(output).write_text(markdown(rows, machine), encoding="utf-8")
    return 0


def streamed_rows(
    sizes: list[int], work: Path, *, modes: list[str] | None = None, keep: Path | None = None
) -> list[dict[str, str]]:
    """Every mode at every size (a partition generated in ``work`` for each, deleted after, or kept in ``keep``), one
    fresh process each.

    ``vs first size`` compares each row's CPU time per record with the same mode's at the first size.
    """
    rows: list[dict[str, str]] = []
    first_cost: dict[str, float] = {}
    for size in sizes:
        scratch = Path(tempfile.mkdtemp(prefix=f"kcompact-stream-{size}-", dir=work))
        try:
            folder = partition_of(size, scratch if keep is None else keep)
            data_bytes = sum(p.stat().st_size for p in folder.glob("*.log"))
            wanted = [m for m in modes or ["stream", "buckets", "memory"] if m != "memory" or size <= IN_MEMORY_UP_TO]
            for mode in wanted:
                load = os.getloadavg()[0]
                data = measure(mode, folder, scratch / f"out-{mode}")
                shutil.rmtree(scratch / f"out-{mode}", ignore_errors=True)
                cost = data["cpu_seconds"] / size
                first_cost.setdefault(mode, cost)
                rows.append(_row(mode, size, data_bytes, data, load, cost / first_cost[mode]))
                print(rows[-1], flush=True)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return rows


def partition_of(size: int, folder: Path) -> Path:
    """The workload's partition of ``size`` records in ``folder/<size>/bench-0``, written unless it is there."""
    done = folder / str(size)
    if not (done / "bench-0").is_dir():
        started = time.perf_counter()
        partial = folder / f"{size}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        write_segmented_partition_dir(Workload(size), partial)
        partial.rename(done)
        print(f"{size:,} records written in {time.perf_counter() - started:.0f} s")
    logs = list((done / "bench-0").glob("*.log"))
    print(f"{size:,} records: {sum(p.stat().st_size for p in logs) / 2**30:.2f} GiB in {len(logs)} segments")
    return done / "bench-0"


def markdown(rows: list[dict[str, str]], machine: str) -> str:
    """The results as ``bench/RESULTS-stream.md`` shows them."""
    columns = list(rows[0]) if rows else []
    lines = [
        "# Streamed passes over big partitions (`python -m bench stream`)",
        "",
        f"Machine: {machine}. Each row is one run in a fresh process (its own peak RSS and CPU time); `load avg`",
        "is the machine's one-minute load average when the run started (other work shares the 2 cores, so wall",
        "seconds depend on it; CPU seconds, the process's own user + system time, much less).",
        "`stream`: the partition read on disk, its pass with Kafka's default 128 MiB dedupe buffer, the cleaned",
        "partition written to disk; `buckets`: offset buckets tallied while streaming, then the layout figure drawn",
        "from them (the figure's own seconds in the note); `memory`: the partition read whole, the same pass, written.",
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "|".join("---" for _ in columns) + "|",
        *("| " + " | ".join(row[c] for c in columns) + " |" for row in rows),
        "",
    ]
    return "\n".join(lines)


def _row(mode: str, size: int, data_bytes: int, data: dict[str, Any], load: float, ratio: float) -> dict[str, str]:
    seconds = data["seconds"]
    return {
        "mode": mode,
        "records": f"{size:,}",
        "GiB": f"{data_bytes / 2**30:.2f}",
        "seconds": f"{seconds:.1f}",
        "records/s": f"{size / seconds:,.0f}",
        "us/record": f"{seconds / size * 1e6:.2f}",
        "CPU s": f"{data['cpu_seconds']:.1f}",
        "CPU us/record": f"{data['cpu_seconds'] / size * 1e6:.2f}",
        "vs first size": f"{ratio:.2f}x",
        "peak RSS MiB": f"{data['peak_rss_mib']:,.0f}",
        "load avg": f"{load:.1f}",
        "note": data["note"],
    }


def _option(argv: list[str], name: str, default: str) -> str:
    return argv[argv.index(name) + 1] if name in argv and argv.index(name) + 1 < len(argv) else default


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
