"""Broker-written samples through our writer and the CLI: byte-identical round trip, dump --json, inspect."""

from __future__ import annotations

import hashlib
import io as text_io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kcompact_nb import TopicConfig
from kcompact_nb.io import read_partition_dir, write_partition_dir
from kcompact_nb.cli._inspect import inspect_log_dir

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "kafka"
PARTITION_DIRS = sorted(p for p in SAMPLES.glob("*/*/*-0") if p.is_dir())


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*.log"))}


@pytest.mark.parametrize("partition_dir", PARTITION_DIRS, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_broker_written_partition_round_trips_byte_for_byte(partition_dir, tmp_path):
    before = digests(partition_dir)
    written = write_partition_dir(read_partition_dir(partition_dir).log, tmp_path)
    assert digests(written) == before
    assert digests(partition_dir) == before  # the reader left its input alone


def kcompact(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kcompact_nb", *args], capture_output=True, text=True)


def test_dump_json_is_the_partition_state_with_the_log_dir_checkpoint(tmp_path):
    stage = SAMPLES / "tombstone-lifecycle" / "1-first-pass"
    done = kcompact("dump", str(stage / "tomb-0"), "--json", "--now-ms", "0")
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout)
    assert (state["checkpoint"], state["log_end_offset"], state["dirtiness"]["first_dirty_offset"]) == (3, 4, 3)
    records = [r for s in state["segments"] for b in s["batches"] for r in b["records"]]
    assert [(r["offset"], r["key"], r["value"]) for r in records] == [(1, "b", "1"), (2, "a", None), (3, "c", "roll1")]
    stamped = [b for s in state["segments"] for b in s["batches"] if b["delete_horizon_ms"] is not None]
    assert [b["base_offset"] for b in stamped] == [2]


def test_inspect_explains_each_partition(tmp_path):
    out = text_io.StringIO()
    config = TopicConfig.from_properties({"cleanup.policy": "compact", "segment.ms": 100})
    inspect_log_dir(SAMPLES / "compaction-basic" / "before", out, config=config, now_ms=1_767_225_601_300)
    lines = out.getvalue().splitlines()
    assert lines[0].endswith(": 1 partition")
    assert "basic-0: 12 segments, 2,324 bytes, offsets [0, 32)" in lines
    assert "  cleanable: [0, 31) (2250 bytes)" in lines
    assert "  eligible now: its dirty ratio is above the minimum" in lines


def test_inspect_rejects_a_bad_config_and_a_missing_dir(tmp_path):
    bad = kcompact("inspect", str(tmp_path), "--config", "segment.ms")
    assert bad.returncode == 2 and "expected NAME=VALUE" in bad.stderr
    missing = kcompact("inspect", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "not a log directory" in missing.stderr
