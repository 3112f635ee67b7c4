"""``python -m bench startup [--runs N] [--output PATH]``: the command line's start-up, each run a fresh process.

Issue #41's targets: ``kcompact --version`` and ``kcompact --help`` done within 0.3 s, and the first line of ``kcompact
inspect`` on a sample log dir within 0.5 s. Each command runs as the console script runs it (the launcher's ``main``
in a new interpreter, this checkout's package first on the path), once untimed (its byte code cached, its files in
the page cache), then ``--runs`` times: median and max. ``--version`` and ``--help`` are timed to the process's exit;
``inspect`` to its first line read from a terminal (a pseudo-terminal: stdout line-buffered, as a person sees it).
The rows also go to ``bench/RESULTS.md``'s section "Command-line start-up" (``--output``), with the machine and its
load average.
"""

from __future__ import annotations

import argparse
import datetime
import os
import pty
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench._machine import describe
from bench._results import markdown_table, replace_section
from bench._runner import REGISTRY, Benchmark, Measurement, format_table, run_all

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "RESULTS.md"
SECTION = "Command-line start-up"
RUNS = 11
SAMPLE = Path("data") / "samples" / "kafka" / "compaction-basic" / "before"
INSPECT = ("inspect", str(SAMPLE), "--config", "segment.ms=100")
CONSOLE_SCRIPT = "import sys; from kcompact_launcher import main; sys.argv[0] = 'kcompact'; sys.exit(main())"
"""What the ``kcompact`` console script runs (``pyproject.toml``'s ``[project.scripts]``)."""


def kcompact_command(args: Sequence[str]) -> list[str]:
    """``kcompact ARGS`` as the console script runs it, with this interpreter."""
    return [sys.executable, "-c", CONSOLE_SCRIPT, *args]


def _environment() -> dict[str, str]:
    """This checkout's package and launcher first on the path, whatever the interpreter has installed, and Python
    free to cache byte code (as an installed package has it: without, every run compiles every module it loads)."""
    paths = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    inherited = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    return {**inherited, "PYTHONPATH": os.pathsep.join(filter(None, paths))}


def seconds_to_exit(args: Sequence[str]) -> float:
    """Seconds from starting ``kcompact ARGS`` to its exit (status 0, else ``CalledProcessError``)."""
    start = time.perf_counter()
    quiet = subprocess.DEVNULL
    subprocess.run(kcompact_command(args), cwd=ROOT, env=_environment(), stdout=quiet, stderr=quiet, check=True)
    return time.perf_counter() - start


def seconds_to_first_line(args: Sequence[str]) -> float:
    """Seconds from starting ``kcompact ARGS`` to the end of the first line it writes to its terminal (its stdout: a
    pseudo-terminal); the rest is read to its exit (status 0, else ``CalledProcessError``)."""
    leader, terminal = pty.openpty()
    start = time.perf_counter()
    command = kcompact_command(args)
    child = subprocess.Popen(command, cwd=ROOT, env=_environment(), stdout=terminal, stderr=subprocess.DEVNULL)
    os.close(terminal)
    seen, first_line_s = b"", None
    try:
        while chunk := _read(leader):
            seen += chunk
            if first_line_s is None and b"\n" in seen:
                first_line_s = time.perf_counter() - start
    finally:
        os.close(leader)
    if child.wait() != 0 or first_line_s is None:
        raise subprocess.CalledProcessError(child.returncode, command, seen)
    return first_line_s


def _read(leader: int) -> bytes:
    """The next bytes of the terminal's output; nothing once the child closed it (Linux answers EIO then)."""
    try:
        return os.read(leader, 65536)
    except OSError:
        return b""


def _fresh_processes(time_one: Callable[[], float], runs: int) -> Measurement:
    time_one()  # untimed: byte code cached, files in the page cache
    times = [time_one() for _ in range(runs)]
    note = f"max {max(times):.3f} s over {runs} fresh processes after one untimed; load {os.getloadavg()[0]:.1f}"
    return Measurement(statistics.median(times), note=note)


def startup_benchmarks(runs: int = RUNS) -> list[Benchmark]:
    """The command line's start-up: ``--version``, ``--help``, and ``inspect`` on a sample to its first line."""
    inspect_name = f"startup: kcompact {' '.join(INSPECT)}, to its first line"
    return [
        Benchmark(f"startup: kcompact {option}", _timing(seconds_to_exit, [option], runs), 1, "<= 0.3 s median")
        for option in ("--version", "--help")
    ] + [Benchmark(inspect_name, _timing(seconds_to_first_line, list(INSPECT), runs), 1, "<= 0.5 s median")]


def _timing(time_one: Callable[[Sequence[str]], float], args: list[str], runs: int) -> Callable[[], Measurement]:
    return lambda: _fresh_processes(lambda: time_one(args), runs)


REGISTRY.extend(startup_benchmarks())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench startup", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=RUNS, help=f"fresh processes per command (default {RUNS})")
    parser.add_argument("--output", type=Path, default=RESULTS, help="the RESULTS.md to write the rows to")
    args = parser.parse_args(argv)
    machine, load = describe(), os.getloadavg()[0]
    print(f"machine: {machine}; load average {load:.1f} at the start", flush=True)
    rows = run_all(startup_benchmarks(args.runs))
    print(format_table(rows))
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    intro = (
        f"By `python -m bench startup` on {when}. Machine: {machine}. Load average {load:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end. Issue #41's targets: `--version` and `--help` done within 0.3 s, "
        "the first line of `inspect` within 0.5 s (median of fresh processes; `inspect`'s line read from a terminal)."
    )
    text = args.output.read_text(encoding="utf-8") if args.output.exists() else "# Benchmark results\n"
    args.output.write_text(replace_section(text, SECTION, [intro, "", *markdown_table(rows)]), encoding="utf-8")
    return 0
