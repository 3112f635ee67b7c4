"""How far a folded forecast is from the exact one, measured (issue #42, docs/forecast.md "How exact").

Usage: ``python tools/forecast_error.py [--seeds 3]``. Runs each load of :data:`LOADS` exactly and folded with the
same seeds, and a bigger load folded with every key followed and with a sample of them, and prints, per load and
quantity, the folded run's relative error against the exact run's (the mean and the largest over the seeds) as a
Markdown table. Not a benchmark: it measures accuracy, not time.
"""

from __future__ import annotations

import argparse
import sys

import numpy

from kcompact_nb import ProduceModel, ProducerModel, TopicLoad, ValueSizes, forecast

SEGMENT = {"internal.segment.bytes": 250_000, "delete.retention.ms": 300_000}
LOADS = {
    "2,000 keys, 120 records/s, 5 records a batch": (
        TopicLoad(
            records_per_second=120,
            keys=2_000,
            tombstone_share=0.05,
            value_bytes=ValueSizes(80, 120),
            producer=ProducerModel(linger_ms=40),
        ),
        1,
    ),  # fmt: skip
    "300 keys (hot), 200 records/s": (
        TopicLoad(records_per_second=200, keys=300, tombstone_share=0.02, producer=ProducerModel(linger_ms=20)),
        1,
    ),
    "20,000 keys (cold), 200 records/s, 2 partitions": (
        TopicLoad(records_per_second=200, keys=20_000, tombstone_share=0.02, producer=ProducerModel(linger_ms=50)),
        2,
    ),
    "Zipf 10,000 keys, 200 records/s, growing": (
        TopicLoad(
            records_per_second=200,
            keys=10_000,
            key_distribution="zipf",
            tombstone_share=0.02,
            update_share=0.95,
            producer=ProducerModel(linger_ms=50),
        ),
        1,
    ),  # fmt: skip
}
HORIZON_MS = 1_800_000
QUANTITIES = ("size on disk (mean)", "live data (mean)", "passes", "bytes a pass keeps", "dirty bytes a pass reads")


def _mean_over_time(times: numpy.ndarray, values: numpy.ndarray) -> float:
    unique, first = numpy.unique(times, return_index=True)
    return float(numpy.average(values[first][:-1], weights=numpy.diff(unique)))


def quantities(fc) -> dict[str, float]:
    """The compared quantities of a forecast, summed over its partitions."""
    size = sum(_mean_over_time(t.times_ms, t.size_bytes) for t in fc.timelines)
    live = sum(_mean_over_time(t.times_ms, t.live_bytes) for t in fc.timelines)
    kept = numpy.mean([p.bytes_written for p in fc.passes]) if fc.passes else 0.0
    dirty = numpy.mean([p.dirty_bytes for p in fc.passes]) if fc.passes else 0.0
    return dict(zip(QUANTITIES, (size, live, float(len(fc.passes)), float(kept), float(dirty)), strict=True))


def errors(load: TopicLoad, partitions: int, seeds: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {q: [] for q in QUANTITIES}
    for seed in range(1, seeds + 1):
        model = ProduceModel({"t": load}, seed=seed)
        topics = {"t": {"partitions": partitions, "config": SEGMENT}}
        runs = {
            mode: quantities(
                forecast(
                    model,
                    horizon_ms=HORIZON_MS,
                    topics=topics,
                    mode=mode,
                    speed=None,
                    broker={"log.cleaner.backoff.ms": 5_000},
                )
            )  # fmt: skip
            for mode in ("exact", "folded")
        }
        for q in QUANTITIES:
            out[q].append((runs["folded"][q] - runs["exact"][q]) / runs["exact"][q])
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)
    print("| load | " + " | ".join(QUANTITIES) + " |")
    print("|---|" + "---|" * len(QUANTITIES))
    for name, (load, partitions) in LOADS.items():
        measured = errors(load, partitions, args.seeds)
        cells = [f"{numpy.mean(v):+.1%} (±{max(abs(x) for x in v):.1%})" for v in measured.values()]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
