"""The layout figure of a big partition read on disk, drawn from offset buckets tallied while streaming its segment
files (issues #19 and #38): used by ``python -m bench stream`` (its ``buckets`` rows)."""

from __future__ import annotations

import time
from pathlib import Path

from bench._workload import PASS_NOW_MS
from kcompact_nb.io import ReadOptions, read_partition_dir


def streamed_figure(folder: Path, bucket_count: int = 200) -> str:
    """Read ``folder`` on disk (scanned: batches left in their files) and draw its layout figure with one
    ``layout_figure`` call, which tallies its offset buckets reading each segment file once (issue #38).

    Returns a note with the seconds of each step.
    """
    from kcompact_nb.viz import layout_figure

    start = time.perf_counter()
    scanned = read_partition_dir(folder, ReadOptions(on_disk_from_bytes=0))
    scanned_at = time.perf_counter()
    figure = layout_figure(scanned.log, now_ms=PASS_NOW_MS, bucket_count=bucket_count)
    size = len(figure.to_json())
    drawn = time.perf_counter()
    return (
        f"scan {scanned_at - start:.1f} s, layout_figure {drawn - scanned_at:.1f} s on the scanned partition "
        f"({bucket_count} buckets, {size / 1e6:.2f} MB of figure JSON)"
    )
