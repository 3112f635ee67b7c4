"""The layout figure of a big partition from offset buckets computed while streaming its segment files (issue #19,
point 4): used by ``python -m bench stream`` (its ``buckets`` rows)."""

from __future__ import annotations

import time
from pathlib import Path

from bench._workload import PASS_NOW_MS
from kcompact_nb.io import ReadOptions, read_partition_dir


def streamed_figure(folder: Path, bucket_count: int = 200) -> str:
    """Read ``folder`` on disk, tally its offset buckets segment file by segment file, draw the layout figure.

    Returns a note with the seconds of each step (the figure's own is what must stay under 2 s).
    """
    from kcompact_nb.core import offset_buckets
    from kcompact_nb.viz import layout_figure

    start = time.perf_counter()
    scanned = read_partition_dir(folder, ReadOptions(on_disk_from_bytes=0))
    scanned_at = time.perf_counter()
    rows = offset_buckets(scanned.log, bucket_count=bucket_count)
    tallied = time.perf_counter()
    figure = layout_figure(scanned.log, now_ms=PASS_NOW_MS, buckets=rows)
    figure.to_json()
    drawn = time.perf_counter()
    return (
        f"scan {scanned_at - start:.1f} s, buckets {tallied - scanned_at:.1f} s, "
        f"figure {drawn - tallied:.2f} s ({len(rows)} buckets, {sum(r.records for r in rows):,} records)"
    )
