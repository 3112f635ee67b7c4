"""Differential sanity: our segment reader and Kafka's own DumpLogSegments agree on every broker-written sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from kcompact_nb.io import parse_dump_log, read_partition_dir

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "kafka"
DUMPS = sorted(SAMPLES.rglob("dump.txt"))


def batch_fields(batch, missing=frozenset()):
    """What DumpLogSegments shows of a batch, less the fields a dump format could not carry."""
    fields = {
        "base_offset": batch.base_offset,
        "last_offset": batch.last_offset,
        "size_bytes": batch.size_bytes,
        "producer_id": batch.producer_id,
        "producer_epoch": batch.producer_epoch,
        "base_sequence": batch.base_sequence,
        "is_transactional": batch.is_transactional,
        "is_control": batch.is_control,
        "delete_horizon_ms": batch.delete_horizon_ms,
        "max_timestamp": batch.max_timestamp,
        "records": [(r.offset, r.key, r.value) for r in batch.records],
    }
    return {k: v for k, v in fields.items() if k not in missing}


def test_there_are_broker_written_samples():
    assert len(DUMPS) >= 8


@pytest.mark.parametrize("dump", DUMPS, ids=lambda p: str(p.parent.relative_to(SAMPLES)))
def test_reader_agrees_with_dump_log_segments(dump):
    parsed = parse_dump_log(dump.read_text())
    (partition_dir,) = [p for p in dump.parent.iterdir() if p.is_dir()]
    loaded = read_partition_dir(partition_dir)
    ours = [batch_fields(b, parsed.missing) for b in loaded.log.batches()]
    theirs = [batch_fields(b, parsed.missing) for b in parsed.batches()]
    assert ours == theirs
    assert [s.base_offset for s in loaded.log.segments] == [s.base_offset for s in parsed.segments]
