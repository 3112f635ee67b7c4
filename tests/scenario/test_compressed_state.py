"""Every batch field in the partition state, for compressed and LogAppendTime batches (docs/scenario-format.md)."""

from __future__ import annotations

import json

from crc32c import crc32c

from kcompact_nb.cli import main
from kcompact_nb.core import partition_row
from kcompact_nb.io import read_partition_dir, write_partition_dir
from kcompact_nb.scenario import ScenarioRunner, parse_scenario, run_scenario
from tests.scenario.conftest import ROOT, SAMPLES, scenario


def final_batches(result: dict) -> list[dict]:
    return [b for state in result["final"].values() for s in state["segments"] for b in s["batches"]]


def test_a_compressed_topic_states_codec_attributes_crc_and_base_timestamp():
    result = run_scenario(parse_scenario(json.loads((SAMPLES / "compressed-topic.json").read_text())))
    fields = (
        "base_offset",
        "size_bytes",
        "size_estimated",
        "compression",
        "timestamp_type",
        "attributes",
        "base_timestamp",
        "delete_horizon_ms",
    )
    assert [tuple(b[f] for f in fields) for b in final_batches(result)] == [
        (0, 88, False, "zstd", "CreateTime", 4, 0, None),  # attributes: codec 4
        (3, 91, False, "zstd", "CreateTime", 0x44, 60_000, 60_000),  # codec 4 + bit 6: baseTimestamp holds the horizon
        (5, 90, False, "zstd", "CreateTime", 4, 60_000, None),
    ]
    assert [s["size_estimated"] for s in result["final"]["prices-0"]["segments"]] == [False, False]


def test_crc_is_the_crc32c_of_the_bytes_written(tmp_path):
    runner = ScenarioRunner(parse_scenario(json.loads((SAMPLES / "compressed-topic.json").read_text())))
    batches = final_batches(runner.run())
    write_partition_dir(runner.sim.log("prices"), tmp_path)
    data, position = (tmp_path / "prices-0" / "00000000000000000000.log").read_bytes(), 0
    for batch in batches:  # the stored crc covers attributes..end (DefaultRecordBatch.computeChecksum)
        raw = data[position : position + batch["size_bytes"]]
        assert int.from_bytes(raw[17:21], "big") == batch["crc"] == crc32c(raw[21:])
        assert int.from_bytes(raw[21:23], "big") == batch["attributes"]
        position += batch["size_bytes"]
    assert position == len(data)


def test_log_append_time_records_give_stored_and_read_timestamps():
    topics = {"t": {"config": {"message.timestamp.type": "LogAppendTime"}}}
    result = run_scenario(parse_scenario(scenario(
        {"op": "append", "records": [{"key": "k", "value": "v", "timestamp": 5},
                                     {"key": "j", "value": "w", "timestamp": 7}]},
        topics=topics, start_ms=1_000,
    )))  # fmt: skip
    (batch,) = final_batches(result)
    assert (batch["timestamp_type"], batch["max_timestamp"], batch["attributes"]) == ("LogAppendTime", 1_000, 8)
    # stored: the producer's timestamps; read: the batch's max timestamp (DefaultRecordBatch's record iterator)
    assert [(r["timestamp"], r["read_timestamp"]) for r in batch["records"]] == [(5, 1_000), (7, 1_000)]


def test_create_time_records_have_no_read_timestamp():
    result = run_scenario(
        parse_scenario(scenario({"op": "append", "records": [{"key": "k", "value": "v", "timestamp": 5}]}))
    )
    (batch,) = final_batches(result)
    assert batch["records"] == [{"offset": 0, "timestamp": 5, "key": "k", "value": "v", "headers": []}]


def test_dump_json_takes_attributes_and_crc_from_the_kafka_bytes(tmp_path, capsys):
    partition = ROOT / "data" / "samples" / "kafka" / "compaction-basic" / "after" / "basic-0"
    assert main(["dump", str(partition), "--json", "--now-ms", "0"]) == 0
    state = json.loads(capsys.readouterr().out)
    loaded = read_partition_dir(partition)
    expected = [(b.raw[21:23], b.raw[17:21]) for b in loaded.log.batches()]
    dumped = [b for s in state["segments"] for b in s["batches"]]
    assert [(b["attributes"].to_bytes(2, "big"), b["crc"].to_bytes(4, "big")) for b in dumped] == expected
    assert all(b["compression"] == "none" and b["partition_leader_epoch"] == 0 for b in dumped)
    assert partition_row(loaded.log, now_ms=0)["segments"] == state["segments"]
