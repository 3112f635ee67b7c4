"""A forecast as tables people read: sizes in KiB/MiB/GiB, durations in d/h/min, Kafka's metric names.

Each table is a list of rows (dicts, columns in order), for ``kcompact forecast`` to print and notebooks to show;
the numbers are the :class:`Forecast`'s, rounded only for reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy

from kcompact_nb.core.forecasting._results import Forecast, PartitionTimeline
from kcompact_nb.core.model import format_bytes, format_duration_ms, format_instant_ms

QUANTILES = (0.5, 0.9, 0.99)


def _size(size_bytes: float) -> str:
    return format_bytes(int(round(size_bytes)), exact=False)


def _share(ratio: float) -> str:
    return f"{ratio:.0%}" if ratio == ratio else "-"


def _duration(ms: float) -> str:
    return format_duration_ms(int(round(ms)), max_units=2) if ms == ms else "-"


def _time_weighted_mean(timeline: PartitionTimeline, values: numpy.ndarray) -> float:
    times, first = numpy.unique(timeline.times_ms, return_index=True)
    if len(times) < 2:
        return float(values[-1]) if len(values) else 0.0
    return float(numpy.average(values[first][:-1], weights=numpy.diff(times)))


def partition_table(fc: Forecast) -> list[dict[str, Any]]:
    """Per partition: size on disk (mean and largest), live data, passes, time between passes, dirty bytes a pass
    cleaned in the horizon's first and second half, and whether that backlog grows."""
    keeping = {k.name: k for k in fc.keeping_up()}
    rows = []
    for timeline in fc.timelines:
        up = keeping[timeline.name]
        rows.append(
            {
                "partition": timeline.name,
                "size on disk (mean)": _size(_time_weighted_mean(timeline, timeline.size_bytes)),
                "size on disk (largest)": _size(float(timeline.size_bytes.max(initial=0))),
                "live data (end)": _size(float(timeline.live_bytes[-1]) if len(timeline.live_bytes) else 0.0),
                "passes": up.passes,
                "between passes": _duration(up.mean_interval_ms),
                "dirty ratio at passes (1st half)": _share(up.first_ratio),
                "dirty ratio at passes (2nd half)": _share(up.last_ratio),
                "dirty per pass (2nd half)": _size(up.last_dirty_bytes),
                "cleaner": up.verdict,
            }
        )
    return rows


def thread_table(fc: Forecast) -> list[dict[str, Any]]:
    """Per cleaner thread: passes, time spent cleaning, busy fraction overall and in its busiest day."""
    day = 86_400_000
    busy = fc.busy_fraction()
    by_day = fc.busy_fraction(min(day, fc.horizon_ms))
    rows = []
    for thread in range(fc.threads):
        mine = [p for p in fc.passes if p.thread == thread]
        rows.append(
            {
                "thread": thread,
                "passes": len(mine),
                "time cleaning": _duration(sum(p.duration_ms for p in mine)),
                "busy": f"{busy[thread]:.1%}",
                "busiest day": f"{by_day[thread].max(initial=0):.1%}",
                "longest pass": _duration(max((p.duration_ms for p in mine), default=0)),
            }
        )
    return rows


def metrics_table(fc: Forecast) -> list[dict[str, Any]]:
    """Kafka's cleaner gauges: as they read at the end, and their largest reading over the horizon."""
    return [{"metric": name, "at the end": end, "largest": most} for name, (end, most) in fc.metrics_summary().items()]


def lifetimes_table(fc: Forecast) -> list[dict[str, Any]]:
    """Per topic and kind: how long removed tombstones and superseded records stayed on disk (quantiles)."""
    rows = []
    for topic, lives in fc.lifetimes.items():
        for tombstones, kind in ((True, "tombstones"), (False, "superseded records")):
            removed, weights = lives.removed(tombstones=tombstones)
            quantiles = [float(v) for v in lives.quantiles(QUANTILES, tombstones=tombstones)]
            row: dict[str, Any] = {"topic": topic, "records": kind, "removed (traced)": len(removed)}
            for q, value in zip(QUANTILES, quantiles or [float("nan")] * len(QUANTILES), strict=True):
                row[f"p{int(q * 100)}"] = _duration(value)
            rows.append(row)
    return rows


def passes_table(fc: Forecast, *, limit: int = 10) -> list[dict[str, Any]]:
    """The first ``limit`` passes: when, which partition and thread, how long, over what, what they did."""
    rows = []
    for p in fc.passes[:limit]:
        rows.append(
            {
                "start": format_instant_ms(fc.start_ms + p.start_ms),
                "partition": p.name,
                "thread": p.thread,
                "took": _duration(p.duration_ms),
                "dirty ratio": f"{p.cleanable_ratio:.1%}",
                "dirty section": f"[{p.first_dirty_offset:,}, {p.end_offset:,})",
                "before": _size(p.size_before_bytes),
                "after": _size(p.size_after_bytes),
                "dedupe buffer needed": _size(fc.buffer_needed_bytes(p)),
            }
        )
    return rows


def forecast_summary(fc: Forecast) -> list[tuple[str, str]]:
    """The forecast in a few lines: (what, value) pairs."""
    total_size = sum(float(t.size_bytes[-1]) for t in fc.timelines if len(t.size_bytes))
    total_live = sum(float(t.live_bytes[-1]) for t in fc.timelines if len(t.live_bytes))
    busy = fc.busy_fraction()
    verdicts = {k.name: k.verdict for k in fc.keeping_up()}
    growing = [name for name, verdict in verdicts.items() if verdict == "falls behind"]
    unknown = [name for name, verdict in verdicts.items() if verdict == "too few passes to tell"]
    per_thread = fc.broker.log_cleaner_dedupe_buffer_size // max(fc.threads, 1)
    rows = [
        ("horizon", f"{_duration(fc.horizon_ms)} from {format_instant_ms(fc.start_ms)}"),
        ("run", f"{fc.mode}" + (f", following 1 key in {round(1 / fc.key_fraction):,}" if fc.key_fraction < 1 else "")),
        ("records produced (expected)", f"{sum(fc.expected_records.values()):,.0f}"),
        ("cleaner passes", f"{len(fc.passes):,}"),
        ("size on disk at the end", f"{_size(total_size)} (live data {_size(total_live)})"),
        (_saved_label(fc), _saved(sum(fc.produced_bytes.values()), total_size)),
        ("cleaner threads busy", ", ".join(f"{b:.1%}" for b in busy)),
        ("keeps up", _keeps_up(growing, unknown)),
        (
            "dedupe buffer a pass needs",
            f"{_size(fc.dedupe_buffer_needed_bytes())} per thread (has {_size(per_thread)})",
        ),
    ]
    return rows


def _keeps_up(growing: list[str], unknown: list[str]) -> str:
    if growing:
        return "no: falls behind on " + ", ".join(growing)
    if unknown:
        return "too few passes to tell on " + ", ".join(unknown) + " (a longer horizon tells)"
    return "yes"


def _saved_label(fc: Forecast) -> str:
    """What saves the disk: compaction, and retention too where a topic's ``cleanup.policy`` deletes."""
    deletes = any(fc.topic_config(name).delete for name in fc.model.topics)
    return "disk compaction and retention save" if deletes else "disk compaction saves"


def _saved(produced: float, size: float) -> str:
    saved = max(produced - size, 0.0)
    return (
        f"{_size(saved)} ({saved / produced:.0%} of the {_size(produced)} produced)" if produced else "nothing produced"
    )


def what_if_table(forecasts: Mapping[str, Forecast]) -> list[dict[str, Any]]:
    """Two (or more) forecasts side by side: a row per line of the summary, a column per forecast."""
    summaries = {label: forecast_summary(fc) for label, fc in forecasts.items()}
    first = next(iter(summaries.values()), [])
    # the same lines in the same order (one may name what saves the disk otherwise)
    return [
        {"": what, **{label: summary[i][1] for label, summary in summaries.items()}}
        for i, (what, _) in enumerate(first)
    ]


def table_text(rows: list[dict[str, Any]], *, indent: str = "  ") -> str:
    """Rows as an aligned text table: upper-case headings, two spaces between columns."""
    if not rows:
        return indent + "(none)"
    columns = list(rows[0])
    cells = [[c.upper() for c in columns]] + [[str(row[c]) for c in columns] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    return "\n".join(
        indent + "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip() for line in cells
    )
