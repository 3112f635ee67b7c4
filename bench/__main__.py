"""``python -m bench [SUBSTRING ...]``: run the benchmarks whose names contain any SUBSTRING (all by default).

``python -m bench stream [--sizes 1M,5M,50M]``: the streamed pass and figure over big partitions (issue #19).

``python -m bench notebooks [SUBSTRING ...]``: every notebook's Run All, timed, with the machine and its load.

``python -m bench clicks``: the widgets' clicks and edits to their figures redrawn, in JupyterLab in a browser.

``python -m bench startup [--runs N]``: ``kcompact``'s start-up in fresh processes, written to ``bench/RESULTS.md``.

``python -m bench side-by-side [--sizes ...]``: issue #9's comparison with Kafka's own cleaner, written to
``bench/RESULTS.md`` (needs Java 17 and Maven for the broker); ``--codecs none,gzip,snappy,lz4,zstd`` adds a
compressed partition per codec (issue #29), ``--codecs-only`` measures those alone and replaces their section.
"""

from __future__ import annotations

import sys

import bench.bench_cleaner  # noqa: F401  (importing registers the benchmarks)
import bench.bench_core  # noqa: F401
import bench.bench_forecast  # noqa: F401
import bench.bench_io  # noqa: F401
import bench.bench_scenarios  # noqa: F401
import bench.bench_spark  # noqa: F401
import bench.bench_spark_topic  # noqa: F401
import bench.bench_startup  # noqa: F401
import bench.bench_viz  # noqa: F401
from bench._machine import describe
from bench._runner import REGISTRY, format_table, run_all


def main(argv: list[str]) -> int:
    if argv[:1] == ["stream"]:
        from bench.bench_stream import main as stream

        return stream(argv[1:])
    if argv[:1] == ["notebooks"]:
        from bench.bench_notebooks import main as notebooks

        return notebooks(argv[1:])
    if argv[:1] == ["clicks"]:
        from bench.bench_clicks import main as clicks

        return clicks(argv[1:])
    if argv[:1] == ["startup"]:
        from bench.bench_startup import main as startup

        return startup(argv[1:])
    if argv[:1] == ["side-by-side"]:
        from bench.side_by_side import main as side_by_side

        return side_by_side(argv[1:])
    selected = [b for b in REGISTRY if not argv or any(s in b.name for s in argv)]
    print(f"machine: {describe()}")
    print(format_table(run_all(selected)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
