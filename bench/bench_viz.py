"""Benchmarks of figures and widgets (issue #29's targets: a stepper step on 10k records <= 100 ms median, and
the first step that shows the offset map no slower; a 1M-record partition's layout figure in <= 2 s and < 2 MB
of JSON)."""

from __future__ import annotations

import os
import random
import time
from functools import cache
from typing import Any

from bench._runner import Measurement, benchmark
from bench.bench_cleaner import million_record_log
from kcompact_nb import NewRecord, OffsetMapSpec, PartitionLog, TopicConfig

STEP_RUNS = 15


def ten_thousand_record_log() -> PartitionLog:
    """10,000 records (1,000 batches of 10), 2,000 keys, 50-byte values, 64 KiB segments, then a roll."""
    rng = random.Random(7)
    log = PartitionLog(
        "bench", config=TopicConfig.from_properties({"cleanup.policy": "compact", "segment.bytes": 64 * 1024})
    )
    for b in range(1_000):
        log.append([NewRecord(b"key-%04d" % rng.randrange(2_000), b"v" * 50, timestamp=b) for _ in range(10)], now_ms=b)
    log.roll(now_ms=1_000)
    return log


@cache
def _stepper_log() -> PartitionLog:
    return ten_thousand_record_log()


@benchmark("viz: stepper step (one pass + redraw), 10k records", repeat=STEP_RUNS, target="<= 100 ms median")
def stepper_step() -> Measurement:
    """One click on "Next": the next partial pass (a 400-slot offset map), the layout and offset map redrawn."""
    from kcompact_nb.widgets import CompactionStepper

    stepper = CompactionStepper(_stepper_log(), offset_map=OffsetMapSpec(slots=400))
    stepper.next_button.click()  # the first click also warms plotly's validators
    return _timed_click(stepper)


@benchmark(
    "viz: stepper's first step showing the offset map, 10k records", repeat=STEP_RUNS, target="<= a step's median"
)
def stepper_first_map_step() -> Measurement:
    """The first click on "Next" of a new stepper: the step that first shows the offset map of a pass."""
    from kcompact_nb.widgets import CompactionStepper

    return _timed_click(CompactionStepper(_stepper_log(), offset_map=OffsetMapSpec(slots=400)))


def _timed_click(stepper: Any) -> Measurement:
    """One click on "Next", its wall time measured, its CPU time in the note (the machine's other load does not
    count there), the stepper's widgets closed after (ipywidgets keeps every open widget, and their objects would
    make each later run's garbage collections longer)."""
    import ipywidgets

    start, cpu = time.perf_counter(), time.process_time()
    stepper.next_button.click()
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    ipywidgets.Widget.close_all()
    return Measurement(seconds, records=10_000, note=f"CPU {cpu_seconds:.3f} s, load {os.getloadavg()[0]:.1f}")


@cache
def _million() -> PartitionLog:
    return million_record_log("offset")


@benchmark("viz: layout figure of a 1M-record partition (bucketed)", repeat=3, target="<= 2 s, < 2 MB JSON")
def million_record_layout() -> Measurement:
    """``layout_figure`` on the partition itself: 200 offset buckets computed by the core, then drawn."""
    from kcompact_nb.viz import layout_figure

    log = _million()
    start = time.perf_counter()
    fig = layout_figure(log, now_ms=20_000)
    elapsed = time.perf_counter() - start
    size = len(fig.to_json())
    return Measurement(elapsed, records=1_000_000, note=f"figure JSON {size / 1_000_000:.3f} MB")
