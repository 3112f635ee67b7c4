"""The conformance report and its mismatch reproductions, on a bundled broker-written pass (no broker needed)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from kcompact_nb.fidelity import (
    ConformanceReport,
    DifferentialResult,
    RoundResult,
    broker_settings,
    catalog,
    load_stage,
    partition_file_differences,
    pass_time_ms,
    save_reproductions,
    topic_settings,
)
from kcompact_nb.io import TimeIndexFile, read_index_file
from kcompact_nb.io.files import TimestampOffset, encode_index_file
from kcompact_nb.scenario import run_scenario
from kcompact_nb.scenario._views import retained_offsets

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "samples" / "kafka" / "compaction-basic"


def sample_round(tmp_path: Path, mismatches: list[str]) -> DifferentialResult:
    """Kafka 4.4.0's compaction-basic pass dressed as round 0 of a one-phase workload on topic ``basic``."""
    folder = tmp_path / "4.4.0" / "basic" / "round-0"
    for stage in ("before", "after"):
        shutil.copytree(SAMPLE / stage, folder / stage)
    broker, topic = broker_settings("4.4.0"), topic_settings()
    before, after = (load_stage(folder / s, topic=topic, broker=broker) for s in ("before", "after"))
    (workload,) = [w for w in catalog(["keys"]) if w.seed == 104]
    result = DifferentialResult(workload, "4.4.0", tmp_path / "4.4.0" / "basic", "basic")
    result.rounds.append(RoundResult(0, folder, [pass_time_ms(before, after)], 1, mismatches))
    return result


def test_a_mismatch_is_saved_as_a_scenario_that_reproduces_kafkas_result(tmp_path):
    result = sample_round(tmp_path, ["segment 0: simulator ... Kafka ..."])
    (path,) = save_reproductions([result])
    scenario = json.loads(path.read_text())
    assert [s["op"] for s in scenario["steps"]] == [
        "load_log_dir", "set_time", "set_config", "clean", "advance", "clean", "advance", "expect",
    ]  # fmt: skip
    after = load_stage(path.parent / "after", topic=topic_settings(), broker=broker_settings("4.4.0"))
    expect = scenario["steps"][-1]
    consumed = [json.loads(line)["offset"] for line in (SAMPLE / "after" / "records.jsonl").read_text().splitlines()]
    assert expect["retained_offsets"] == retained_offsets(after) == consumed  # what a consumer read from Kafka
    assert expect["checkpoint"] == 31
    assert scenario["broker"]["kafka.version"] == "4.4.0"
    outcome = run_scenario(path)  # the simulator agrees with Kafka on this pass
    assert outcome["passed"], outcome["steps"][-1]


def test_report_prints_one_summary_line_per_version_and_every_mismatch(tmp_path):
    clean = sample_round(tmp_path / "a", [])
    broken = sample_round(tmp_path / "b", ["checkpoint: simulator 5, Kafka 31"])
    report = ConformanceReport((clean, broken))
    assert report.summary_line("4.4.0") == "2 workloads, 2 passes, 1 mismatches against Apache Kafka 4.4.0"
    text = report.render().splitlines()
    assert text[:3] == [
        report.summary_line("4.4.0"), "  4.4.0: keys 2",
        "  4.4.0: 2 of 2 workloads leave .log files identical to Kafka's, byte for byte",
    ]  # fmt: skip
    assert text[3] == "MISMATCH seed104-uniform-5keys-40records round 0 on Kafka 4.4.0"
    assert text[4].startswith("  reproduce: kcompact scenario run ") and text[4].endswith("round-0/scenario.json")
    assert text[5] == "  checkpoint: simulator 5, Kafka 31"
    assert not report.passed and ConformanceReport((clean,)).passed


def test_summary_is_json_ready_for_notebooks(tmp_path):
    report = ConformanceReport((sample_round(tmp_path, []),))
    assert json.loads(json.dumps(report.summary())) == {
        "4.4.0": {"workloads": 1, "passes": 1, "mismatches": 0, "log_files_identical": 1,
                  "line": "1 workloads, 1 passes, 0 mismatches against Apache Kafka 4.4.0"},
    }  # fmt: skip


def test_log_files_are_compared_byte_for_byte_and_counted(tmp_path):
    """The simulator's written ``.log`` files against Kafka's: missing, extra and changed files are named."""
    ours, kafka = tmp_path / "ours", tmp_path / "kafka"
    shutil.copytree(SAMPLE / "after" / "basic-0", kafka)
    shutil.copytree(kafka, ours)
    assert partition_file_differences(ours, kafka) == []
    data = bytearray((ours / "00000000000000000000.log").read_bytes())
    data[100] ^= 1
    (ours / "00000000000000000000.log").write_bytes(bytes(data))
    (ours / "00000000000000000031.log").rename(ours / "00000000000000000030.log")
    assert partition_file_differences(ours, kafka) == [
        "segment file 00000000000000000000.log: simulator 440 bytes, Kafka 440 bytes, first difference at byte 100",
        "segment file 00000000000000000030.log: only the simulator has it",
        "segment file 00000000000000000031.log: only Kafka has it",
    ]
    differing = sample_round(tmp_path / "b", partition_file_differences(ours, kafka))
    report = ConformanceReport((sample_round(tmp_path / "a", []), differing))
    assert report.log_files_identical("4.4.0") == 1 and not differing.log_files_identical


def test_every_file_of_the_partition_is_compared_except_the_active_segments_indexes(tmp_path):
    """Indexes (named with both entry counts), snapshots, the leader-epoch checkpoint and a failed pass's ``.cleaned``
    files against Kafka's; the active segment's indexes (preallocated, still growing) are left out."""
    ours, kafka = tmp_path / "ours", tmp_path / "kafka"
    shutil.copytree(SAMPLE / "after" / "basic-0", kafka)
    shutil.copytree(kafka, ours)
    assert partition_file_differences(ours, kafka) == []
    timeindex = ours / "00000000000000000000.timeindex"
    (entry,) = read_index_file(timeindex).entries
    timeindex.write_bytes(encode_index_file(TimeIndexFile(0, (TimestampOffset(entry.timestamp - 1, 0), entry))))
    (ours / "00000000000000000031.index").write_bytes(b"")
    (ours / "00000000000000000000.index").unlink()
    (ours / "leader-epoch-checkpoint").write_text("0\n1\n0 40\n")
    (kafka / "00000000000000000000.log.cleaned").write_bytes(b"")
    assert partition_file_differences(ours, kafka) == [
        "index file 00000000000000000000.index: only Kafka has it",
        "partition file 00000000000000000000.log.cleaned: only Kafka has it",
        "index file 00000000000000000000.timeindex: simulator 24 bytes, Kafka 12 bytes (2 entries vs 1), "
        "first difference at byte 7",
        "partition file leader-epoch-checkpoint: simulator 9 bytes, Kafka 8 bytes, first difference at byte 6",
    ]
