"""``python -m bench side-by-side``: issue #9's and #19's comparison, written to ``bench/RESULTS.md``.

(a) our core cleaner on the partition read whole as ``kcompact clean`` reads it (its files' bytes held in memory:
load, then the pass writing the cleaned segments), (a0) the same with every batch decoded at load (a notebook's
read), (a') the same pass streamed over the segment files in bounded memory (headers scanned, then the pass reading
the files and writing each cleaned group), (b) the real Kafka broker's cleaner (its pass reads and writes its own
files), (c) a pandas "latest offset per key" baseline and (d) Spark compaction on ``local[2]`` on the identical log
at each size; (b), (a), (a0) and (a') on a compressed partition per codec (``--codecs``: JSON-like values in
producer batches compressed as Kafka's clients compress them, issue #29); scaling of (a) and (d); the streamed pass
over big partitions (up to 50M records, with the layout figure drawn from streamed buckets); a whole topic's passes
in Spark tasks on two cores and on one; interactivity and loading tables from the registered benchmarks. Each
measurement of (a), (a0), (a'), (c) and (d) runs in its own process so its peak RSS is its own.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from bench._kafka_side import kafka_pass, start_broker
from bench._machine import describe
from bench._results import (
    MIB,
    Report,
    Row,
    human_count,
    markdown_table,
    median_row,
    render_results,
    replace_section,
    side_by_side_rows,
)
from bench._runner import REGISTRY, run_all
from bench._workload import VALUE_KINDS, Workload, write_partition_dir
from bench.bench_stream import streamed_rows
from kcompact_nb.broker import KafkaBroker

KAFKA = "(b) Kafka 4.4.0 cleaner"
CORE = "(a) kcompact core pass, read whole"
DECODED = "(a0) kcompact core pass, every batch decoded at load"
STREAMED = "(a') kcompact streamed pass"
PANDAS = "(c) pandas latest offset per key"
SPARK = "(d) Spark compaction, local[2]"
CONTENDERS = {"core": CORE, "decoded": DECODED, "stream": STREAMED, "pandas": PANDAS, "spark": SPARK}
"""Each measured contender's ``bench._measure`` kind."""
RESULTS = Path(__file__).parent / "RESULTS.md"
STREAM_TABLE = "Streamed passes over big partitions"
CODEC_TABLE = "Compressed partitions: one full cleaning pass, per codec"


def measure(kind: str, folder: Path) -> Row:
    """Run ``bench._measure`` in a child process (its own peak RSS)."""
    command = [sys.executable, "-m", "bench._measure", kind, str(folder)]
    out = subprocess.run(command, capture_output=True, text=True, check=True, env=_child_env()).stdout
    data = json.loads(out.splitlines()[-1])
    contender = CONTENDERS[kind]
    note = "; ".join(filter(None, [f"{data['kept']:,} records kept", data["note"]]))
    return Row(
        contender, data["records"], data["bytes"], data["compute_s"], data["load_s"], data["peak_rss_mib"], note=note,
        write_s=data.get("write_s"),
    )  # fmt: skip


def _child_env() -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[1])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}


# -- the runs ---------------------------------------------------------------------------------------------
def side_by_side(sizes: Sequence[int], repeat: Callable[[int], int], work: Path) -> list[Row]:
    """(a)-(d) at each size; (b)'s runs each produce a fresh topic, the first run's copy serves the others."""
    rows: list[Row] = []
    broker = start_broker()
    try:
        for size in sizes:
            rows += _one_size(broker, Workload(size), repeat(size), work / human_count(size))
    finally:
        broker.stop()
    return rows


def compressed(
    codecs: Sequence[str],
    sizes: Sequence[int],
    repeat: Callable[[int], int],
    work: Path,
    values: Sequence[str] = ("text",),
) -> list[dict[str, str]]:
    """(b), (a), (a0) and (a') on a partition per kind of values, size and codec: the table's rows, the codec and the
    values first (``text``: JSON-like records, ``bytes``: random bytes no codec shrinks)."""
    rows: list[dict[str, str]] = []
    broker = start_broker()
    try:
        for size in sizes:
            for kind in values:
                for codec in codecs:
                    workload = Workload(size, codec=codec, values=kind)
                    folder = work / f"{codec}-{kind}-{human_count(size)}"
                    measured = _one_size(broker, workload, repeat(size), folder, kinds=("core", "decoded", "stream"))
                    rows += [{"codec": codec, "values": kind, **row} for row in side_by_side_rows(measured, KAFKA)]
    finally:
        broker.stop()
    return rows


def _one_size(
    broker: KafkaBroker, workload: Workload, runs: int, folder: Path, kinds: Sequence[str] = tuple(CONTENDERS)
) -> list[Row]:
    name = f"bench-{workload.codec}-{workload.values}-{workload.records}"  # a topic per workload: one broker runs all
    passes = [kafka_pass(broker, workload, f"{name}-{i}", folder if i == 0 else None) for i in range(runs)]
    copied = folder / f"{name}-0-0"
    kafka_runs = [
        Row(KAFKA, p.messages_read, round(p.mb_read * MIB), p.seconds, note=f"{p.messages_written:,} records kept")
        for p in passes
    ]
    # our contenders by turns: the machine's state right after the broker's passes (the broker still running, its page
    # cache) and any drift fall on each of them alike, not on whichever runs first
    ours = [[measure(kind, copied) for kind in kinds] for _ in range(runs)]
    rows = [median_row(KAFKA, kafka_runs)]
    rows += [median_row(CONTENDERS[kind], [turn[k] for turn in ours]) for k, kind in enumerate(kinds)]
    shutil.rmtree(folder, ignore_errors=True)
    return rows


def scaling(sizes: Sequence[int], work: Path) -> list[Row]:
    """(a) and (d) at each size on a partition dir written in the broker's layout."""
    rows = []
    for size in sizes:
        folder = write_partition_dir(Workload(size), work / f"scale-{human_count(size)}")
        rows += [measure("core", folder), measure("spark", folder)]
        shutil.rmtree(folder.parent, ignore_errors=True)
    return rows


def registered(prefixes: Sequence[str]) -> list[dict[str, str]]:
    return run_all([b for b in REGISTRY if b.name.startswith(tuple(prefixes))])


def loading() -> list[dict[str, str]]:
    """The io reader's benchmarks (one core), then segment-file decoding by the reader and by Spark on two cores."""
    return registered(["io:", "spark: decode"])


def load_conditions() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} (1 / 5 / 15 min) when the run ended"


def parse_sizes(text: str) -> list[int]:
    """ "100k,1M,5M" -> [100000, 1000000, 5000000]."""
    scale = {"k": 1_000, "M": 1_000_000}
    return [int(float(t[:-1]) * scale[t[-1]]) if t[-1] in scale else int(t) for t in text.split(",") if t]


def parse_values(text: str) -> list[str]:
    """``--values``: kinds of :attr:`Workload.values`, comma-separated; ``both`` is ``text,bytes``."""
    values = ["text", "bytes"] if text == "both" else [kind for kind in text.split(",") if kind]
    if unknown := [kind for kind in values if kind not in VALUE_KINDS]:
        raise ValueError(f"unknown kind {', '.join(unknown)} (one of {', '.join(VALUE_KINDS)}, or both)")
    return values


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench side-by-side")
    parser.add_argument("--sizes", default="100k,1M,5M", help="side-by-side sizes (records)")
    parser.add_argument("--scaling", default="1M,2M,4M,8M", help="scaling sizes (records); empty to skip")
    parser.add_argument("--stream-sizes", default="1M,5M,50M", help="streamed pass sizes (records); empty to skip")
    parser.add_argument(
        "--codecs", default="", help="codecs of the compressed partitions, e.g. none,gzip,snappy,lz4,zstd"
    )
    parser.add_argument("--codec-sizes", default="1M", help="compressed partition sizes (records)")
    parser.add_argument(
        "--values",
        default="text",
        help="the compressed partitions' values: text (JSON-like), bytes (random), repeated, a list, or both",
    )
    parser.add_argument(
        "--codecs-only", action="store_true", help="measure the compressed partitions alone; keep the rest of --output"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per contender below 5M records")
    parser.add_argument("--repeat-large", type=int, default=1, help="runs per contender from 5M records")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    # SIGTERM becomes SystemExit so the finally blocks stop the broker and remove the temporary copies
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    command = "python -m bench side-by-side" + (" " + " ".join(argv) if argv else "")
    runs = lambda n: args.repeat if n < 5_000_000 else args.repeat_large  # noqa: E731
    codecs = [c for c in args.codecs.split(",") if c]
    try:
        values = parse_values(args.values)
    except ValueError as error:
        parser.error(f"--values: {error}")
    if args.codecs_only:
        with tempfile.TemporaryDirectory(prefix="kcompact-side-by-side-") as tmp:
            rows = compressed(codecs, parse_sizes(args.codec_sizes), runs, Path(tmp), values)
        note = f"Measured by `{command}`. Machine: {describe()}. Conditions: {load_conditions()}."
        args.output.write_text(replace_section(args.output.read_text(), CODEC_TABLE, [note, "", *markdown_table(rows)]))
        print(args.output.read_text())
        return 0
    report = Report(describe(), "", command)
    with tempfile.TemporaryDirectory(prefix="kcompact-side-by-side-") as tmp:
        report.side_by_side = side_by_side(parse_sizes(args.sizes), runs, Path(tmp))
        if codecs:
            report.tables[CODEC_TABLE] = compressed(codecs, parse_sizes(args.codec_sizes), runs, Path(tmp), values)
        report.scaling = scaling(parse_sizes(args.scaling), Path(tmp))
        stream_sizes = parse_sizes(args.stream_sizes)
        if stream_sizes:
            report.tables[STREAM_TABLE] = streamed_rows(stream_sizes, Path(tmp))
    report.tables["Spark: a whole topic's passes in tasks"] = registered(["spark-topic:"])
    report.tables["Interactivity"] = registered(["viz:", "scenario:"])
    report.tables["Loading (segment-file decode)"] = loading()
    report.conditions = load_conditions()
    args.output.write_text(render_results(report, reference=KAFKA))
    print(args.output.read_text())
    return 0
