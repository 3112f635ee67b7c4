"""Pure helpers of the side-by-side benchmark: Kafka's log line parsed, medians, the growth exponent, RESULTS.md."""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

MIB = 1_048_576
_PROCESSED = re.compile(r"([\d,.]+) MB of log processed in ([\d,.]+) seconds \(([\d,.]+|Infinity|NaN) MB/sec\)")
_SIZE = re.compile(r"(Start|End) size: ([\d,.]+) MB \(([\d,]+) messages\)")


def _number(text: str) -> float:
    """A Java ``%,.1f`` / ``%,d`` value (grouping commas)."""
    return float(text.replace(",", ""))


@dataclass(frozen=True)
class KafkaPass:
    """What the broker's "cleaned log" INFO message says about one pass (spec 10)."""

    seconds: float
    mb_per_s: float
    mb_read: float
    messages_read: int
    messages_written: int


def parse_kafka_pass(message: str) -> KafkaPass:
    """Parse the nine-line message of ``LogCleaner``'s ``recordStats``; raises ``ValueError`` if incomplete.

    Kafka prints the seconds with one decimal ("1.0 seconds"), too coarse for a one-second pass; they are
    derived from the MB read and the MB/sec instead (each printed to 0.1, so to about 0.1 % here).
    """
    processed = _PROCESSED.search(message)
    sizes = {m[1]: m for m in _SIZE.finditer(message)}
    if processed is None or set(sizes) != {"Start", "End"}:
        raise ValueError(f"not a complete cleaner pass message: {message!r}")
    seconds, mb_read = _number(processed[2]), _number(processed[1])
    rate = math.inf if processed[3] in ("Infinity", "NaN") else _number(processed[3])
    if 0 < rate < math.inf and mb_read > 0:
        seconds = mb_read / rate
    return KafkaPass(seconds, rate, mb_read, int(_number(sizes["Start"][3])), int(_number(sizes["End"][3])))


def growth_exponent(sizes: Sequence[float], values: Sequence[float]) -> float:
    """Least-squares slope of log(value) against log(size): 1.0 is linear growth."""
    if len(sizes) != len(values) or len(sizes) < 2:
        raise ValueError(f"need at least two (size, value) pairs, got {len(sizes)} sizes and {len(values)} values")
    xs, ys = [math.log(s) for s in sizes], [math.log(v) for v in values]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=False)) / sum((x - mx) ** 2 for x in xs)


@dataclass(frozen=True)
class Row:
    """One contender at one size: medians over its runs.

    ``seconds`` is the pass only; ``load_s`` (None when nothing is loaded apart: Kafka reads its own files)
    and ``write_s`` (None when the contender writes nothing, or writes within its pass, as Kafka does) add
    up with it to ``end_to_end_s``, from segment files on disk to the cleaned log.
    """

    contender: str
    records: int
    nbytes: int
    seconds: float
    load_s: float | None = None
    peak_rss_mib: float | None = None
    runs: int = 1
    note: str = ""
    write_s: float | None = None
    end_to_end_s: float | None = None
    """Its own median over runs; by default the sum of the three times."""

    @property
    def end_to_end(self) -> float:
        if self.end_to_end_s is not None:
            return self.end_to_end_s
        return self.seconds + (self.load_s or 0.0) + (self.write_s or 0.0)


@dataclass
class Report:
    """Everything RESULTS.md shows."""

    machine: str
    conditions: str
    command: str
    side_by_side: list[Row] = field(default_factory=list)
    scaling: list[Row] = field(default_factory=list)
    tables: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    """Further sections (interactivity, loading): runner rows under a heading."""


def median_row(contender: str, runs: Sequence[Row]) -> Row:
    """The median of several runs' pass, load, write and end-to-end times; the largest peak RSS."""
    first = runs[0]
    loads = [r.load_s for r in runs if r.load_s is not None]
    writes = [r.write_s for r in runs if r.write_s is not None]
    peaks = [r.peak_rss_mib for r in runs if r.peak_rss_mib is not None]
    return Row(
        contender, first.records, first.nbytes, statistics.median(r.seconds for r in runs),
        statistics.median(loads) if loads else None, max(peaks) if peaks else None, len(runs), first.note,
        statistics.median(writes) if writes else None, statistics.median(r.end_to_end for r in runs),
    )  # fmt: skip


def human_count(n: int) -> str:
    """1_000_000 -> "1M", 100_000 -> "100k"."""
    for unit, scale in (("M", 1_000_000), ("k", 1_000)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def markdown_table(rows: Sequence[dict[str, str]]) -> list[str]:
    if not rows:
        return ["(nothing measured)"]
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    return lines + ["| " + " | ".join(r[c] for c in columns) + " |" for r in rows]


def _optional(value: float | None, fmt: str) -> str:
    return "" if value is None else format(value, fmt)


def side_by_side_rows(rows: Sequence[Row], reference: str) -> list[dict[str, str]]:
    """Table rows: pass only and end to end (load and write included), each with its time ratio to ``reference``
    at the same size (whose end to end is its pass: it reads its own files), records/s and MB/s end to end."""
    kafka = {r.records: r.seconds for r in rows if r.contender == reference}
    return [
        {
            "records": human_count(r.records),
            "contender": r.contender,
            "pass only s (median)": f"{r.seconds:.3f}",
            "pass ratio to (b)": f"{r.seconds / kafka[r.records]:.2f}" if r.records in kafka else "",
            "load s": _optional(r.load_s, ".3f"),
            "write s": _optional(r.write_s, ".3f"),
            "end to end s (load included)": f"{r.end_to_end:.3f}",
            "end to end ratio to (b)": f"{r.end_to_end / kafka[r.records]:.2f}" if r.records in kafka else "",
            "records/s end to end": f"{r.records / r.end_to_end:,.0f}",
            "MB/s end to end": f"{r.nbytes / MIB / r.end_to_end:,.1f}",
            "peak RSS MiB": _optional(r.peak_rss_mib, ",.0f"),
            "runs": str(r.runs),
            "note": r.note,
        }
        for r in rows
    ]


def scaling_lines(rows: Sequence[Row]) -> list[str]:
    """The scaling table, then the growth exponent of time and of peak memory per contender."""
    table = [
        {"records": human_count(r.records), "contender": r.contender, "pass s": f"{r.seconds:.3f}",
         "peak RSS MiB": _optional(r.peak_rss_mib, ",.0f")}
        for r in rows
    ]  # fmt: skip
    lines = markdown_table(table)
    for contender in dict.fromkeys(r.contender for r in rows):
        mine = [r for r in rows if r.contender == contender]
        if len(mine) >= 2:
            time_k = growth_exponent([r.records for r in mine], [r.seconds for r in mine])
            lines.append(f"\n{contender}: time grows as n^{time_k:.2f}" + _memory_exponent(mine))
    return lines


def _memory_exponent(rows: Sequence[Row]) -> str:
    peaks = [r.peak_rss_mib for r in rows]
    if any(p is None for p in peaks):
        return ""
    return f", peak RSS as n^{growth_exponent([r.records for r in rows], [p or 0.0 for p in peaks]):.2f}"


def replace_section(text: str, title: str, lines: Sequence[str]) -> str:
    """``text`` (RESULTS.md) with the body of its section ``## title`` replaced by ``lines``, or the section added
    at the end when there is none; every other section is kept as it is."""
    heading = f"\n## {title}\n"
    section = "\n".join([heading, *lines]) + "\n"
    start = text.find(heading)
    if start < 0:
        return text.rstrip("\n") + "\n" + section
    end = text.find("\n## ", start + 1)
    return text[:start] + section + (text[end:] if end >= 0 else "")


def render_results(report: Report, *, reference: str) -> str:
    """``bench/RESULTS.md``: machine and conditions, the side-by-side table, scaling, further tables."""
    lines = [
        "# Benchmark results",
        "",
        f"Regenerated by `{report.command}`. Machine: {report.machine}. Conditions: {report.conditions}.",
        "",
        "## Side by side: one full cleaning pass over the identical log",
        "",
        *markdown_table(side_by_side_rows(report.side_by_side, reference)),
        "",
        "## Scaling",
        "",
        *scaling_lines(report.scaling),
    ]
    for title, rows in report.tables.items():
        lines += ["", f"## {title}", "", *markdown_table(rows)]
    return "\n".join(lines) + "\n"
