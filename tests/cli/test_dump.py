"""``kcompact dump``: segments, batches and records of a partition directory or one segment file."""

from __future__ import annotations

import subprocess
import sys

from kcompact_nb.cli import main
from kcompact_nb.io import write_partition_dir
from kcompact_nb.cli._text import show_bytes
from tests.conftest import compacted_log, rec
from tests.io.kafka_bytes import kafka_batch, simple_batches, tree_digest, write_segments
from tests.io.kafka_bytes import rec as kafka_rec


def sample_dir(tmp_path):
    log = compacted_log(segment_bytes=250)
    for i in range(4):
        log.append(
            [rec(f"k{i % 2}", timestamp=1_000 + i)],
            now_ms=i,
            producer_id=2,
            producer_epoch=0,
            base_sequence=i,
            transactional=True,
        )
    log.append_end_txn_marker(2, 0, commit=True, now_ms=20, timestamp=1_010)
    log.append([rec("k1", None, timestamp=1_020), rec("big", "x" * 100, timestamp=1_021)], now_ms=30)
    return write_partition_dir(log, tmp_path)


def test_dump_partition_directory_with_records(tmp_path, capsys):
    part = sample_dir(tmp_path)
    before = tree_digest(part)
    assert main(["dump", str(part)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"Partition t-0: 3 segments, 580 bytes ({part})"
    assert "Segment 00000000000000000000.log: base offset 0, 240 bytes" in lines
    assert "  POSITION  OFFSETS  COUNT  SIZE  MAX TIMESTAMP  PRODUCER  FLAGS  CODEC" in lines
    assert "  0         0        1      80    1000           2/e0/s0   txn    none" in lines
    assert "    | 0       1000       k0   0123456789" in lines
    assert any("(control)  COMMIT marker (coordinator epoch 0)" in line for line in lines)
    assert any("txn,control" in line and "2/e0 " in line for line in lines)
    assert any("k1   null (tombstone)" in line for line in lines)
    assert any("xxxxxxxx… (100 B)" in line for line in lines)
    assert "3 batches, 3 records, largest timestamp 1970-01-01T00:00:01.002Z" in lines
    assert tree_digest(part) == before


def test_dump_single_segment_without_records(tmp_path, capsys):
    part = sample_dir(tmp_path)
    assert main(["dump", "--no-records", str(part / "00000000000000000000.log")]) == 0
    out = capsys.readouterr().out
    assert "| " not in out and "KEY" not in out
    assert out.count("\n  0 ") + out.count("\n  80 ") + out.count("\n  160 ") == 3


def test_dump_shows_the_valid_prefix_of_corrupt_data_and_fails(tmp_path, capsys):
    part = write_segments(tmp_path / "t-0", {0: [*simple_batches(range(2)), b"\x00" * 30]})
    assert main(["dump", str(part)]) == 1
    out = capsys.readouterr().out
    assert "2 batches, 2 records" in out
    assert "INVALID DATA at byte position 160: 30 trailing bytes are too few" not in out
    assert "INVALID DATA at byte position 160" in out and "30 bytes not shown" in out


def test_dump_flags_and_bad_paths(tmp_path, capsys):
    part = write_segments(
        tmp_path / "t-0",
        {
            0: [
                kafka_batch([kafka_rec(0, 5, b"k", None)], base_offset=0, delete_horizon=99, log_append_time=7),
                kafka_batch([], base_offset=1, last_offset_delta=2),
            ]
        },
    )
    assert main(["dump", str(part)]) == 0
    out = capsys.readouterr().out
    assert "log-append-time,delete-horizon=99" in out and "  61  " in out and "empty" in out
    assert main(["dump", str(tmp_path / "nothing-here.txt")]) == 2
    assert "kcompact dump:" in capsys.readouterr().err


def test_show_bytes():
    assert show_bytes(None) == "null"
    assert show_bytes(b"plain") == "plain"
    assert show_bytes(b"\x00\xff") == "0x00ff (2 B)"
    assert show_bytes(b"a" * 50, 10) == "aaaaaaaaa… (50 B)"


def test_dump_through_python_dash_m(tmp_path):
    part = sample_dir(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "kcompact_nb", "dump", "--no-records", str(part)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.startswith("Partition t-0: 3 segments")
