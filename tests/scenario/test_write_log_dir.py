"""write_log_dir: the simulation's state written in Kafka's layout (issue 16 point 4)."""

from __future__ import annotations

import pytest

from kcompact_nb.io import read_checkpoint, read_index_file, read_log_dir
from kcompact_nb.io.files import TimestampOffset
from kcompact_nb.scenario import ScenarioError, parse_scenario, run_scenario
from tests.scenario.conftest import scenario

APPENDS = [
    {"op": "append", "topic": "t", "records": [{"key": f"k{i % 3}", "value": "0123456789", "timestamp": 0}]}
    for i in range(30)
]
TOPICS = {"t": {"config": {"internal.segment.bytes": 1000}}, "copy": {}}


def test_the_cleaned_state_is_written_then_loaded_back(tmp_path):
    """Spec 13.1's pass (segment 0 emptied, 12 keeps the last k0-k2), written, then read by load_log_dir."""
    doc = scenario(*APPENDS, {"op": "clean"}, {"op": "write_log_dir", "path": "out", "topic": "t"}, topics=TOPICS)
    result = run_scenario(parse_scenario(doc, base_dir=tmp_path))
    assert result["steps"][31]["result"] == {"path": str(tmp_path / "out"), "partitions": ["t-0"]}
    reload = scenario(
        {"op": "load_log_dir", "path": "out/t-0", "topic": "copy"},
        {"op": "expect", "topic": "copy", "retained_offsets": [21, 22, 23, *range(24, 30)],
         "segment_base_offsets": [0, 12, 24], "segment_sizes_bytes": [0, 240, 480], "checkpoint": 24,
         "log_end_offset": 30},
        topics=TOPICS,
    )  # fmt: skip
    reloaded = run_scenario(parse_scenario(reload, base_dir=tmp_path))
    assert reloaded["passed"], reloaded["steps"][1]
    folder = tmp_path / "out" / "t-0"
    assert sorted(p.name for p in folder.iterdir()) == [
        "00000000000000000000.index", "00000000000000000000.log", "00000000000000000000.timeindex",
        "00000000000000000012.index", "00000000000000000012.log", "00000000000000000012.timeindex",
        "00000000000000000024.index", "00000000000000000024.log", "00000000000000000024.timeindex",
        "00000000000000000030.snapshot",
    ]  # fmt: skip
    assert (folder / "00000000000000000012.log").stat().st_size == 240
    # every timestamp is 0: the time index holds the first batch reaching it (TimeIndex keeps the earliest offset)
    assert read_index_file(folder / "00000000000000000024.timeindex").entries == (TimestampOffset(0, 24),)
    assert read_checkpoint(tmp_path / "out" / "cleaner-offset-checkpoint") == {("t", 0): 24}


def test_without_a_target_every_partition_is_written(tmp_path):
    doc = scenario(*APPENDS[:3], {"op": "write_log_dir", "path": str(tmp_path / "all")}, topics=TOPICS)
    result = run_scenario(parse_scenario(doc))
    assert result["steps"][3]["result"]["partitions"] == ["copy-0", "t-0"]
    loaded = read_log_dir(tmp_path / "all")
    assert sorted(loaded.partitions) == ["copy-0", "t-0"]
    assert [r.offset for _, r in loaded.logs["t-0"].records()] == [0, 1, 2]
    empty = {p.name: p.stat().st_size for p in (tmp_path / "all" / "copy-0").iterdir()}
    assert empty == {
        "00000000000000000000.log": 0,
        "00000000000000000000.index": 0,
        "00000000000000000000.timeindex": 0,
    }


def test_a_non_empty_folder_is_refused_unless_overwrite_is_set(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    refused = scenario(*APPENDS[:3], {"op": "write_log_dir", "path": "out"}, topics=TOPICS)
    with pytest.raises(
        ScenarioError, match=r"steps\[3\]: write_log_dir failed: .*out: directory exists and is not empty"
    ):
        run_scenario(parse_scenario(refused, base_dir=tmp_path))
    allowed = scenario(*APPENDS[:3], {"op": "write_log_dir", "path": "out", "overwrite": True}, topics=TOPICS)
    run_scenario(parse_scenario(allowed, base_dir=tmp_path))
    assert (tmp_path / "out" / "notes.txt").read_text() == "mine" and (tmp_path / "out" / "t-0").is_dir()


def test_bad_write_log_dir_steps_are_invalid(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(ScenarioError, match=r"steps\[0\]\.path: .*file is a file, not a folder"):
        parse_scenario(scenario({"op": "write_log_dir", "path": "file"}), base_dir=tmp_path)
    with pytest.raises(ScenarioError, match=r"steps\[0\]\.overwrite"):
        parse_scenario(scenario({"op": "write_log_dir", "path": "out", "overwrite": "yes"}), base_dir=tmp_path)
