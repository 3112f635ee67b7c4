"""The hostile-input corpus: every case issue #40 (and the rounds before it) found, run as an operator runs them.

Each case ends in exit 0 with the right result or exit 2 with one line naming the problem; never a traceback
(the ``kcompact`` helper fails on one), never a hang (each run has a time limit), and the inputs are never
modified (hashed before and after).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import KCOMPACT

SAMPLE = Path(__file__).parents[2] / "data" / "samples" / "kafka" / "compaction-basic" / "before"
SCENARIO = Path(__file__).parents[2] / "data" / "samples" / "scenarios" / "fruit-prices.json"
LONG_MAX = 2**63 - 1


def run(*args: object, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``kcompact ARGS`` with a time limit: a hang fails the test instead of stalling the suite."""
    done = subprocess.run([str(KCOMPACT), *map(str, args)], capture_output=True, text=True, timeout=timeout)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    return done


def refused(done: subprocess.CompletedProcess[str], *words: str) -> str:
    """The one line of a refusal (exit 2), which holds every one of ``words``."""
    lines = done.stderr.strip().splitlines()
    assert (done.returncode, len(lines)) == (2, 1), done.stderr
    assert all(word in lines[0] for word in words), lines[0]
    return lines[0]


def digest(path: Path) -> str:
    """A hash of a file or of a folder's every name and byte (symbolic links by their target)."""
    h = hashlib.sha256()
    entries = sorted(path.rglob("*")) if path.is_dir() else [path]
    for entry in entries:
        h.update(str(entry.relative_to(path) if path.is_dir() else entry.name).encode())
        if entry.is_symlink():
            h.update(os.readlink(entry).encode())
        elif entry.is_file():
            h.update(entry.read_bytes())
    return h.hexdigest()


@pytest.fixture
def log_dir(tmp_path):
    copy = tmp_path / "logs"
    shutil.copytree(SAMPLE, copy)
    return copy


# --- configs bounded by their Kafka type -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "shown"),
    [
        ("delete.retention.ms=18446744073709551616", "delete.retention.ms: Not a number of type LONG"),
        ("segment.ms=9223372036854775808", "segment.ms: Not a number of type LONG"),
        ("log.cleaner.dedupe.buffer.size=99999999999999999999", "dedupe.buffer.size: Not a number of type LONG"),
        (f"max.compaction.lag.ms={2**70}", "max.compaction.lag.ms: Not a number of type LONG"),
        (f"log.cleaner.io.buffer.size={2**31}", "log.cleaner.io.buffer.size: Not a number of type INT"),
        (f"log.roll.hours={2**31}", "log.roll.hours: Not a number of type INT"),
        ("segment.bytes=1_073_741_824", "segment.bytes: Not a number of type INT"),
    ],
)
def test_a_config_past_its_kafka_type_is_refused(log_dir, tmp_path, setting, shown):
    before = digest(log_dir)
    refused(run("clean", log_dir, "--out", tmp_path / "out", "--at", 0, "--config", setting), shown)
    refused(run("inspect", log_dir, "--now-ms", 0, "--config", setting), shown)
    assert digest(log_dir) == before and not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "setting",
    [
        f"delete.retention.ms={LONG_MAX}",  # now + it wraps in Java's long (MemoryRecords.filterTo)
        f"segment.ms={LONG_MAX}",
        f"retention.bytes={-LONG_MAX - 1}",
        "log.cleaner.io.max.bytes.per.second=1e-300",  # Kafka's %.1f of the pass's seconds, every digit
        f"log.roll.hours={2**31 - 1}",
    ],
)
def test_a_config_at_its_kafka_types_bound_is_cleaned_with(log_dir, tmp_path, setting):
    done = run("clean", log_dir, "--out", tmp_path / "out", "--at", "2030-01-01T00:00:00Z", "--config", setting)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "basic-0").is_dir()


def test_a_byte_order_mark_before_a_config_file_is_not_its_first_settings_name(log_dir, tmp_path):
    config = tmp_path / "bom.properties"
    config.write_bytes(b"\xef\xbb\xbfsegment.ms=100\n")
    done = run("inspect", log_dir, "--now-ms", 0, "--config-file", config, "--json")
    assert done.returncode == 0 and "ignored" not in done.stderr, done.stderr
    assert '"segment.ms": 100' in done.stdout


# --- scenario files ---------------------------------------------------------------------------------------------


def test_a_scenario_nested_past_what_json_reads_is_refused(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    refused(run("scenario", "run", deep), "nested too deeply")


def test_nan_in_a_scenario_is_not_json(tmp_path):
    text = SCENARIO.read_text().replace('"start_ms": 0', '"start_ms": NaN', 1)
    assert "NaN" in text
    (tmp_path / "nan.json").write_text(text)
    refused(run("scenario", "run", tmp_path / "nan.json"), "NaN is not a JSON value")


def test_a_scenario_with_a_byte_order_mark_runs(tmp_path):
    (tmp_path / "bom.json").write_bytes(b"\xef\xbb\xbf" + SCENARIO.read_bytes())
    assert run("scenario", "run", tmp_path / "bom.json").returncode == 0


@pytest.mark.parametrize("link", ["same", "symlink", "hardlink"])
def test_a_scenarios_output_that_is_its_input_is_refused(tmp_path, link):
    scenario = tmp_path / "s.json"
    shutil.copy(SCENARIO, scenario)
    output = {"same": scenario, "symlink": tmp_path / "link.json", "hardlink": tmp_path / "hard.json"}[link]
    if link == "symlink":
        output.symlink_to(scenario)
    elif link == "hardlink":
        os.link(scenario, output)
    refused(run("scenario", "run", scenario, "--output", output), "--output", "input")
    assert scenario.read_bytes() == SCENARIO.read_bytes()


def test_a_clean_output_inside_its_input_is_refused_before_any_work(log_dir):
    before = digest(log_dir)
    refused(run("clean", log_dir, "--out", log_dir / "cleaned", "--at", 0), "--out", "input")
    assert digest(log_dir) == before


# --- staged output ----------------------------------------------------------------------------------------------


def test_a_preallocated_active_segment_is_inspected_and_copied_with_its_hole(log_dir, tmp_path):
    active = sorted((log_dir / "basic-0").glob("*.log"))[-1]
    with open(active, "r+b") as handle:
        handle.truncate(64 * 1024 * 1024)  # log.preallocate: the active segment's zero tail, a hole on disk
    before = digest(log_dir)
    inspected = run("inspect", log_dir, "--now-ms", 0)
    assert inspected.returncode == 0, inspected.stdout + inspected.stderr
    assert "no pass reads it" in inspected.stdout
    out = tmp_path / "out"
    assert run("clean", log_dir, "--out", out, "--at", 0).returncode == 0
    copied = out / "basic-0" / active.name
    assert copied.stat().st_size == 64 * 1024 * 1024 and copied.stat().st_blocks * 512 < 1024 * 1024
    assert digest(log_dir) == before


def test_a_broken_checkpoint_file_is_not_sent_to_recover(log_dir):
    (log_dir / "cleaner-offset-checkpoint").write_text("garbage\n")
    line = refused(run("inspect", log_dir, "--now-ms", 0), "cleaner-offset-checkpoint")
    assert "--recover" not in line


@pytest.mark.parametrize("shape", ["long name", "symlink to an empty folder"])
def test_a_valid_out_is_written(log_dir, tmp_path, shape):
    if shape == "long name":
        out = tmp_path / ("o" * 250)
    else:
        (tmp_path / "empty").mkdir()
        out = tmp_path / "link"
        out.symlink_to(tmp_path / "empty")
    done = run("clean", log_dir, "--out", out, "--at", 0)
    assert done.returncode == 0, done.stderr
    assert (out / "basic-0").is_dir()


# --- files that are not regular files ---------------------------------------------------------------------------


def _odd_file(path: Path, kind: str) -> Path:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "loop":
        path.symlink_to(path)
    elif kind == "dangling":
        path.symlink_to(path.with_name("nowhere"))
    return path


@pytest.mark.parametrize("kind", ["fifo", "folder", "loop", "dangling"])
def test_a_file_named_like_a_segment_that_is_not_a_file(log_dir, tmp_path, kind):
    odd = _odd_file(log_dir / "basic-0" / "00000000000000000100.log", kind)
    before = digest(log_dir)
    refused(run("dump", odd, timeout=60), str(odd))
    dumped = run("dump", log_dir / "basic-0", timeout=60)
    assert f"Note: ignored {odd}" in dumped.stdout
    inspected = run("inspect", log_dir, "--now-ms", 0, timeout=60)
    assert (inspected.returncode, f"note: ignored {odd}" in inspected.stdout) == (0, True)
    assert run("clean", log_dir, "--out", tmp_path / "out", "--at", 0, timeout=60).returncode == 0
    assert digest(log_dir) == before


@pytest.mark.parametrize("kind", ["fifo", "loop", "device"])
def test_a_named_input_that_is_not_a_file_is_refused_without_waiting(log_dir, tmp_path, kind):
    odd = Path("/dev/zero") if kind == "device" else _odd_file(tmp_path / "odd", kind)
    what = {"fifo": "FIFO", "loop": "loops", "device": "character device"}[kind]
    refused(run("kcat", odd, timeout=60), what)
    refused(run("scenario", "run", odd, timeout=60), what)
    refused(run("inspect", log_dir, "--config-file", odd, timeout=60), what)
    refused(run("clean", log_dir, "--out", tmp_path / "out", "--config-file", odd, timeout=60), what)


def test_a_symlink_loop_is_not_called_missing(tmp_path):
    loop = _odd_file(tmp_path / "loop", "loop")
    line = refused(run("inspect", loop), "loops")
    assert "does not exist" not in line


def test_process_substitution_is_read(log_dir):
    """``--config-file <(echo segment.ms=100)``: the shell's pipe is read as a file."""
    done = subprocess.run(
        ["bash", "-c", f'"{KCOMPACT}" inspect "{log_dir}" --now-ms 0 --json --config-file <(echo segment.ms=100)'],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert '"segment.ms": 100' in done.stdout


def test_a_sparse_four_gib_index_is_dumped_without_reading_it_whole(log_dir):
    index = sorted((log_dir / "basic-0").glob("*.index"))[0]
    with open(index, "r+b") as handle:
        handle.truncate(4 * 1024**3)  # preallocated, a hole on disk
    done = run("dump", index)
    assert done.returncode == 0, done.stderr
    assert "4,294,967,296 bytes (preallocated" in done.stdout


def test_a_scenario_config_past_its_kafka_type_names_its_path(tmp_path):
    text = SCENARIO.read_text()
    document = json.loads(text)
    topic = next(iter(document["topics"]))
    document["topics"][topic].setdefault("config", {})["segment.ms"] = 2**70
    (tmp_path / "s.json").write_text(json.dumps(document))
    refused(run("scenario", "run", tmp_path / "s.json"), '["segment.ms"]', "Not a number of type LONG")


# --- kcat output ------------------------------------------------------------------------------------------------


def test_an_empty_kcat_output_says_it_may_be_cut(tmp_path):
    (tmp_path / "empty.txt").write_bytes(b"")
    done = run("kcat", tmp_path / "empty.txt", "-f", r"%o\t%s\n", "-p", "0")
    assert done.returncode == 0 and "it may be cut" in done.stdout, done.stdout + done.stderr


def test_kcat_output_taken_through_a_terminal_is_refused_with_its_cause(tmp_path):
    (tmp_path / "tty.txt").write_bytes(b"0\tv\r\n1\tw\r\n")
    refused(run("kcat", tmp_path / "tty.txt", "-f", r"%o\t%s\n", "-p", "0"), "pseudo-terminal")
