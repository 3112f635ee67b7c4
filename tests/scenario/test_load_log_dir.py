"""load_log_dir: a real Kafka partition directory as the partition's state."""

from __future__ import annotations

from kcompact_nb import NewRecord, PartitionLog, TopicConfig, io
from kcompact_nb.scenario import parse_scenario, run_scenario
from tests.scenario.conftest import scenario


def _write_log_dir(tmp_path):
    log = PartitionLog("orders", 0, config=TopicConfig.from_properties({"cleanup.policy": "compact"}))
    for i in range(5):
        log.append([NewRecord(f"k{i % 2}".encode(), b"v")], now_ms=0)
    log.roll(now_ms=0)
    log.append([NewRecord(b"k0", b"w")], now_ms=0)
    io.write_partition_dir(log, tmp_path)
    (tmp_path / "cleaner-offset-checkpoint").write_text("0\n1\norders 0 3\n")
    return log


def test_load_log_dir_installs_segments_and_checkpoint(tmp_path):
    written = _write_log_dir(tmp_path)
    doc = scenario(
        {"op": "load_log_dir", "path": "orders-0"},
        {
            "op": "expect",
            "retained_offsets": [0, 1, 2, 3, 4, 5],
            "segment_base_offsets": [0, 5],
            "checkpoint": 3,
            "log_end_offset": 6,
            "log_size_bytes": written.size_bytes,
        },
        topics={"orders": {}},
    )
    result = run_scenario(parse_scenario(doc, base_dir=tmp_path))
    assert result["steps"][0]["result"]["topic"] == "orders"
    assert result["passed"], result["steps"][1]
