"""Differential fidelity (issue: proof of fidelity): seeded workloads through Kafka's cleaner and the simulator.

Every workload of :func:`kcompact_nb.fidelity.catalog` (all categories: key distributions, multi-record
batches, idempotent and transactional producers, keyless records, tombstones over several passes,
min/max compaction lag, ``compact,delete`` retention, partial passes on a full offset map, compressed
batches of every codec, rule B's emptied last batch, segments rolled by size) runs on both Kafka lines. Each
round is produced with the cleaner held, copied, cleaned by the broker and compared with the simulator:
segments, batches, records, checkpoint, every batch's bytes, and every pass's log line.
"""

from __future__ import annotations

import pytest

from kcompact_nb.core import KafkaVersion, RuleB
from kcompact_nb.fidelity import DifferentialResult, RoundResult, catalog, load_round, run_differential

from .conftest import require_java_and_maven

WORKLOADS = catalog()


@pytest.mark.fidelity
@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_workload_agrees_with_kafka(kafka_broker, workload, tmp_path):
    require_java_and_maven()
    refusal = workload.refusal_on(kafka_broker.version)
    if refusal is not None:  # e.g. segment.bytes below 1 MiB from 4.1, internal.segment.bytes before 4.1
        pytest.skip(f"Kafka {kafka_broker.version} refuses it: {refusal}")
    result = run_differential(kafka_broker, workload, tmp_path, topic=f"diff-{workload.name}")
    assert result.mismatches == []
    assert result.passes >= len(workload.rounds)  # Kafka really cleaned in every round
    assert_category_happened(result)


def assert_category_happened(result: DifferentialResult) -> None:
    """The rule a category exists for really applied on the broker (so agreement is not vacuous)."""
    category, first = result.workload.category, result.rounds[0]
    before = load_round(first.folder, result.workload, version=result.version, stage="before")
    after = load_round(first.folder, result.workload, version=result.version, stage="after")
    trigger_offset = before.log_end_offset - 1
    if category == "keyless":
        assert any(r.key is None for b in before.batches() for r in b.records)
        assert not any(r.key is None for b in after.batches() for r in b.records)
    elif category == "min-lag":
        assert 0 < after.cleaner_checkpoint < trigger_offset  # the recent segments stayed dirty
    elif category == "compact-delete":
        assert after.log_start_offset > before.log_start_offset  # retention removed the old segments
    elif category == "partial":
        assert first.kafka_passes >= 2  # the first pass stopped on a full offset map
    elif category == "transactions":
        assert any(b.is_control for b in before.batches())
    elif category == "rule-b":
        # the emptied batch ending the cleaned range stays on 3.9.2-4.3 only (high watermark from 4.4)
        ending = [b for b in after.batches() if b.last_offset == trigger_offset - 1]
        kept = KafkaVersion.parse(result.version).rule_b is RuleB.FIRST_UNCLEANABLE_OFFSET
        assert [len(b.records) for b in ending] == ([0] if kept else [])
    elif category == "segment-bytes":
        assert len(before.segments) >= 4 and after.cleaner_checkpoint == trigger_offset  # rolled by size, cleaned
        last = result.rounds[-1]
        before_last, after_last = (
            load_round(last.folder, result.workload, version=result.version, stage=stage)
            for stage in ("before", "after")
        )
        assert len(after_last.segments) < len(before_last.segments)  # the later pass grouped cleaned segments
    elif category == "compression":
        assert after.cleaner_checkpoint == trigger_offset
        # in some round Kafka re-encoded compressed batches (filterTo), which the simulator matched byte for byte
        assert any(rewritten_compressed_batches(result, round_) for round_ in result.rounds)
    else:
        assert after.cleaner_checkpoint == trigger_offset


def rewritten_compressed_batches(result: DifferentialResult, round_: RoundResult) -> int:
    """Compressed batches of Kafka's "after" copy whose bytes differ from its "before" copy."""
    before = load_round(round_.folder, result.workload, version=result.version, stage="before")
    after = load_round(round_.folder, result.workload, version=result.version, stage="after")
    kept = {b.base_offset: b.raw for b in before.batches()}
    return sum(b.compression != "none" and b.raw != kept.get(b.base_offset) for b in after.batches())


def test_catalog_covers_every_category_with_at_least_50_workloads():
    categories = {w.category for w in WORKLOADS}
    assert categories == {
        "keys", "batches", "idempotent", "tombstones", "multi-pass", "transactions", "keyless", "min-lag",
        "max-lag", "compact-delete", "partial", "compression", "rule-b", "segment-bytes",
    }  # fmt: skip
    assert len(WORKLOADS) >= 50
    assert len({w.name for w in WORKLOADS}) == len(WORKLOADS)


def test_log_line_facts_keep_only_time_independent_lines():
    from kcompact_nb.fidelity import log_line_facts

    message = (
        "[2026-11-21 17:00:00,000] INFO \n\tLog cleaner thread 0 cleaned log t-0 (dirty section = [0, 7])\n"
        "\t0.0 MB of log processed in 0.1 seconds (0.0 MB/sec).\n"
        "\tIndexed 0.0 MB in 0.0 seconds (0.0 Mb/sec, 40.0% of total time)\n\tBuffer utilization: 0.0%\n"
        "\tCleaned 0.0 MB in 0.1 seconds (0.0 Mb/sec, 60.0% of total time)\n\tStart size: 0.0 MB (7 messages)\n"
        "\tEnd size: 0.0 MB (3 messages)\n\t57.1% size reduction (57.1% fewer messages)\n (kafka.log.LogCleaner)"
    )
    assert log_line_facts(message) == [
        "Log cleaner thread 0 cleaned log t-0 (dirty section = [0, 7])",
        "Buffer utilization: 0.0%",
        "Start size: 0.0 MB (7 messages)",
        "End size: 0.0 MB (3 messages)",
        "57.1% size reduction (57.1% fewer messages)",
    ]
