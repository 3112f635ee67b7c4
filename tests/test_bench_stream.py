"""``python -m bench stream``: sizes read as people write them, and a small run end to end (fresh processes)."""

from __future__ import annotations

from pathlib import Path

from bench._workload import Workload, write_segmented_partition_dir
from bench.bench_stream import main, parse_size


def test_sizes_read_as_people_write_them() -> None:
    assert [parse_size(s) for s in ("1M", "50m", "500k", "2000", "1.5M")] == [
        1_000_000,
        50_000_000,
        500_000,
        2000,
        1_500_000,
    ]


def test_the_workload_rolls_segments_as_a_broker_does(tmp_path: Path) -> None:
    folder = write_segmented_partition_dir(Workload(3000), tmp_path, segment_bytes=100_000)
    sizes = [p.stat().st_size for p in sorted(folder.glob("*.log"))]
    assert len(sizes) == 5 and all(size <= 100_000 for size in sizes) and sizes[-1] == 79  # 4 rolls, then the trigger
    assert sum(sizes[:-1]) == sum(len(b) for b in Workload(3000).encoded_batches())


def test_a_small_run_measures_every_mode_and_writes_markdown(tmp_path: Path, capsys) -> None:
    output = tmp_path / "RESULTS-stream.md"
    assert main(["--sizes", "3k", "--work", str(tmp_path), "--output", str(output)]) == 0
    table = output.read_text()
    for mode in ("stream", "buckets", "memory"):
        assert f"| {mode} | 3,000 |" in table
    assert table.count("| 300 records kept") == 2  # streamed and in memory: every one of the 300 keys' last record
    assert "s on the scanned partition (200 buckets, " in table  # one layout_figure call on the log read on disk
    assert [p.name for p in tmp_path.iterdir()] == ["RESULTS-stream.md"]  # the generated partition is gone


def test_a_kept_partition_is_written_once_and_reused(tmp_path: Path, capsys) -> None:
    keep, output = tmp_path / "keep", tmp_path / "RESULTS-stream.md"
    keep.mkdir()
    argv = [
        "--sizes",
        "2k",
        "--work",
        str(tmp_path),
        "--keep",
        str(keep),
        "--modes",
        "buckets",
        "--output",
        str(output),
    ]
    mtimes = []
    for _ in range(2):
        assert main(argv) == 0
        mtimes.append({p.name: p.stat().st_mtime_ns for p in (keep / "2000" / "bench-0").iterdir()})
    assert mtimes[0] == mtimes[1] and len(mtimes[0]) == 2  # the workload's segment and the trigger's
    table = output.read_text()
    assert "| buckets | 2,000 |" in table and "| stream |" not in table and "| memory |" not in table
    assert capsys.readouterr().out.count("2,000 records written") == 1
