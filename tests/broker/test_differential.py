"""Differential fidelity (issue: proof of fidelity): seeded workloads through Kafka's cleaner and the simulator.

Each workload is produced with the cleaner held back (ratio 1.0), copied ("before"), cleaned once by the
broker ("after"), and compared with one simulated pass over "before": segments, batches, records,
checkpoint and the log line's byte and message counts must all agree.
"""

from __future__ import annotations

import pytest

from kcompact_nb.fidelity import broker_settings, generate_workload, load_stage, run_differential, topic_settings

from .conftest import require_java_and_maven

WORKLOADS = [
    generate_workload(seed, keys=keys, distribution=dist, records=records, idempotent=idem, batch_records=per_batch)
    for seed, keys, dist, records, idem, per_batch in [
        (1, 5, "uniform", 40, False, 1),
        (2, 10, "zipf", 60, False, 1),
        (3, 1, "uniform", 20, False, 1),
        (4, 30, "uniform", 60, False, 1),
        (5, 8, "zipf", 80, False, 1),
        (6, 6, "uniform", 40, True, 1),
        (7, 12, "zipf", 60, True, 1),
        (8, 10, "uniform", 60, False, 4),
        (9, 20, "zipf", 90, True, 3),
    ]
]


@pytest.mark.fidelity
@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_one_pass_agrees_with_kafka(kafka_broker, workload, tmp_path):
    require_java_and_maven()
    topic = f"diff-{workload.seed}"
    result = run_differential(kafka_broker, workload, tmp_path, topic=topic)
    assert result.mismatches == []
    before = load_stage(tmp_path / "before", topic=topic_settings(), broker=broker_settings(kafka_broker.version))
    data = [b for b in before.batches() if not b.is_control and b.records[0].key != b"trigger"]
    assert max(len(b.records) for b in data) == workload.batch_records  # batches really were multi-record
    assert all(b.has_producer_id == workload.idempotent for b in data)


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
