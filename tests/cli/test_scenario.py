"""``kcompact scenario run``: exit statuses and messages for what a newcomer gets wrong."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import kcompact
from tests.io.kafka_bytes import tree_digest

FRUIT = Path(__file__).resolve().parents[2] / "data" / "samples" / "scenarios" / "fruit-prices.json"


def test_a_passing_scenario_writes_its_result_where_asked(tmp_path):
    done = kcompact("scenario", "run", FRUIT, "--output", tmp_path / "result.json")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert json.loads((tmp_path / "result.json").read_text())["passed"] is True


def test_invalid_input_and_usage_exit_2_with_a_message(tmp_path):
    (tmp_path / "broken.json").write_text("{")
    cases = [
        (["run", tmp_path / "nope.json"], f"kcompact scenario: scenario file {tmp_path / 'nope.json'} does not exist"),
        (["run", tmp_path], f"kcompact scenario: scenario file {tmp_path} is a folder, not a file"),
        (["run", FRUIT, "--output", tmp_path / "missing" / "r.json"],
         f"kcompact scenario: --output {tmp_path / 'missing' / 'r.json'}: the folder {tmp_path / 'missing'} does not "
         "exist; create it first"),
        (["run", FRUIT, "--output", tmp_path], f"kcompact scenario: --output {tmp_path} is a folder; give a file name"),
        (["run", tmp_path / "broken.json"],
         f"kcompact scenario: invalid scenario {tmp_path / 'broken.json'}: not valid JSON"),
        (["walk", FRUIT], "argument ACTION: invalid choice: 'walk'"),
    ]  # fmt: skip
    before = tree_digest(tmp_path)
    for args, message in cases:
        done = kcompact("scenario", *args)
        assert done.returncode == 2 and done.stdout == "", (args, done)
        assert message in done.stderr, done.stderr
    assert tree_digest(tmp_path) == before
    assert not (tmp_path / "missing").exists()
