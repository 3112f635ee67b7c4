"""``kcompact dump``: segments, batches and records of a partition directory or one segment file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kcompact_nb.cli import main
from kcompact_nb.cli._text import show_bytes
from kcompact_nb.io import write_partition_dir
from tests.cli.conftest import kcompact
from tests.conftest import compacted_log, rec
from tests.io.kafka_bytes import kafka_batch, simple_batches, tree_digest, write_segments
from tests.io.kafka_bytes import rec as kafka_rec

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "kafka"


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
    assert "  POSITION  OFFSETS  COUNT  SIZE  MAX TIMESTAMP             PRODUCER  FLAGS  CODEC" in lines
    assert "  0         0        1      80    1970-01-01T00:00:01.000Z  2/e0/s0   txn    none" in lines
    assert "    | 0       1970-01-01T00:00:01.000Z  k0   0123456789" in lines
    assert any("(control)  COMMIT marker (coordinator epoch 0)" in line for line in lines)
    assert any("txn,control" in line and "2/e0 " in line for line in lines)
    assert any("k1   null (tombstone)" in line for line in lines)
    assert any("xxxxxxxx… (100 B)" in line for line in lines)
    assert "3 batches, 3 records, largest timestamp 1970-01-01T00:00:01.002Z" in lines
    assert "1 batch, 2 records, largest timestamp 1970-01-01T00:00:01.021Z" in lines  # not "1 batches"
    assert tree_digest(part) == before


def test_dump_single_segment_without_records(tmp_path, capsys):
    part = sample_dir(tmp_path)
    assert main(["dump", "--no-records", str(part / "00000000000000000000.log")]) == 0
    out = capsys.readouterr().out
    assert "| " not in out and "KEY" not in out
    assert out.count("\n  0 ") + out.count("\n  80 ") + out.count("\n  160 ") == 3


def test_invalid_data_is_shown_up_to_the_first_invalid_batch_and_later_segments_are_named(tmp_path):
    part = write_segments(
        tmp_path / "t-0",
        {0: [*simple_batches(range(2)), b"\x00" * 30], 2: simple_batches([2]), 3: simple_batches([3])},
    )
    before = tree_digest(part)
    done = kcompact("dump", part)
    assert done.returncode == 1 and done.stderr == ""
    assert "2 batches, 2 records" in done.stdout
    assert (
        "INVALID DATA at byte position 160: batch length 0 is below the minimum 49 of a v2 batch; 30 bytes not shown"
        in done.stdout
    )
    assert done.stdout.endswith(
        "\n2 later segments not shown: Kafka's log recovery deletes the segments after invalid data: "
        "00000000000000000002.log, 00000000000000000003.log\n"
    )
    assert "Segment 00000000000000000002.log" not in done.stdout
    assert tree_digest(part) == before


def test_dump_flags(tmp_path, capsys):
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
    assert "log-append-time,delete-horizon=1970-01-01T00:00:00.099Z" in out and "  61  " in out and "empty" in out


def test_bad_paths_are_invalid_input_named_as_such(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    logs = write_partition_dir(compacted_log(), tmp_path / "logs").parent
    cases = [
        (
            [tmp_path / "t-0" / "00000000000000000000.log"],
            f"partition directory or file {tmp_path / 't-0' / '00000000000000000000.log'} does not exist",
        ),
        ([tmp_path / "missing-dir"], f"partition directory or file {tmp_path / 'missing-dir'} does not exist"),
        (
            [tmp_path / "notes.txt"],
            f"{tmp_path / 'notes.txt'}: not a segment file: expected a name like 00000000000000000000.log",
        ),
        ([logs], f"{logs} is a log dir, not a partition folder: dump one of its partitions (e.g. {logs / 't-0'})"),
        (
            ["--json", logs / "t-0" / "00000000000000000000.log"],
            f"--json writes a partition folder's state; give the folder holding it ({logs / 't-0'})",
        ),
        (["--now-ms", "-5", "--json", logs / "t-0"], "argument --now-ms: -5 is before 1970-01-01T00:00:00Z"),
        (["--max-value-chars", "0", logs / "t-0"], "argument --max-value-chars: 0 is below 1"),
    ]
    before = tree_digest(tmp_path)
    for args, message in cases:
        done = kcompact("dump", *args)
        assert done.returncode == 2, (args, done.stderr)
        assert message in done.stderr and "byte position" not in done.stderr, done.stderr
    assert tree_digest(tmp_path) == before


def test_an_empty_partition_folder_is_one_empty_active_segment_everywhere(tmp_path):
    """LogLoader creates the active segment of an empty partition at its log start offset."""
    (tmp_path / "t-0").mkdir()
    (tmp_path / "log-start-offset-checkpoint").write_text("0\n1\nt 0 7\n")
    before = tree_digest(tmp_path)
    text = kcompact("dump", tmp_path / "t-0")
    assert text.returncode == 0
    assert text.stdout.splitlines()[:3] == [
        f"Partition t-0: 1 segment, 0 bytes ({tmp_path / 't-0'})",
        "",
        "Segment 00000000000000000007.log: base offset 7, 0 bytes; no file: Kafka creates this empty active segment "
        "when it loads the partition",
    ]
    state = json.loads(kcompact("dump", tmp_path / "t-0", "--json", "--now-ms", "0").stdout)
    assert [s["base_offset"] for s in state["segments"]] == [7]
    inspected = kcompact("inspect", tmp_path, "--now-ms", "0")
    assert "t-0: 1 segment, 0 bytes, no records (next offset 7)" in inspected.stdout
    assert tree_digest(tmp_path) == before


def test_a_missing_codec_package_shows_the_batches_before_it_and_exits_3(tmp_path):
    part = write_segments(
        tmp_path / "t-0",
        {0: [*simple_batches(range(2)), kafka_batch([kafka_rec(0, 1, b"z", b"zz" * 40)], base_offset=2, codec="zstd")]},
    )
    blocker = tmp_path / "no-zstandard" / "zstandard"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('zstandard is blocked for this test')\n")
    before = tree_digest(part)
    done = kcompact("dump", part, env={"PYTHONPATH": str(blocker.parent)})
    assert done.returncode == 3
    assert "  80        1        1      80" in done.stdout and "2 batches, 2 records" in done.stdout
    assert "STOPPED at byte position 160: a zstd-compressed batch needs the Python package 'zstandard'" in done.stdout
    assert done.stderr.startswith(
        f"kcompact dump: {part / '00000000000000000000.log'}: batch at byte position 160 is zstd-compressed"
    )
    assert tree_digest(part) == before


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


def test_dump_json_is_the_partition_state_with_the_log_dir_checkpoint():
    stage = SAMPLES / "tombstone-lifecycle" / "1-first-pass"
    done = kcompact("dump", stage / "tomb-0", "--json", "--now-ms", "0")
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout)
    assert (state["checkpoint"], state["log_end_offset"], state["dirtiness"]["first_dirty_offset"]) == (3, 4, 3)
    records = [r for s in state["segments"] for b in s["batches"] for r in b["records"]]
    assert [(r["offset"], r["key"], r["value"]) for r in records] == [(1, "b", "1"), (2, "a", None), (3, "c", "roll1")]
    stamped = [b for s in state["segments"] for b in s["batches"] if b["delete_horizon_ms"] is not None]
    assert [b["base_offset"] for b in stamped] == [2]
