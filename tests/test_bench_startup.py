"""``python -m bench startup``: the command line's start-up timed in fresh processes, its rows written to RESULTS.md."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bench.bench_startup import SECTION, main, seconds_to_first_line


def test_a_run_times_each_command_and_writes_its_section_keeping_the_others(tmp_path: Path, capsys) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text(f"# Benchmark results\n\n## {SECTION}\n\nolder rows\n\n## Forecasts\n\nkept\n", encoding="utf-8")
    assert main(["--runs", "1", "--output", str(results)]) == 0
    text = results.read_text(encoding="utf-8")
    assert "older rows" not in text and text.endswith("## Forecasts\n\nkept\n")
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("| startup: ")]
    assert [row[0] for row in rows] == [
        "| startup: kcompact --version",
        "| startup: kcompact --help",
        "| startup: kcompact inspect data/samples/kafka/compaction-basic/before --config segment.ms=100, to its "
        "first line",
    ]
    assert all(float(row[1]) > 0 and "over 1 fresh processes" in row[-1] for row in rows)
    assert "startup: kcompact --help" in capsys.readouterr().out


def test_a_command_that_fails_is_not_timed() -> None:
    with pytest.raises(subprocess.CalledProcessError) as failed:
        seconds_to_first_line(["inspect", "no/such/log/dir"])
    assert failed.value.returncode == 2  # kcompact's status for unreadable input
