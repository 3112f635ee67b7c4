"""Broker-written samples through our reader and writer: a byte-identical round trip."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from kcompact_nb.io import read_partition_dir, write_partition_dir

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
