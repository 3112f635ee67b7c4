"""``kcompact clean --out``: the output folder is complete or untouched (issue #31, "All-or-nothing output").

The command is stopped at several points (SIGKILL, SIGTERM, Ctrl-C), made to fill a small disk, and given
inputs that used to end in a traceback or in a wrong folder; after each, ``--out`` is either absent, as it
was, or equal to what an uninterrupted run writes, and no unfinished copy stays beside it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kcompact_nb import NewRecord, PartitionLog, TopicConfig
from kcompact_nb.io.logdir import STAGING_MARK, write_log_dir
from tests.cli.conftest import KCOMPACT, kcompact
from tests.io.kafka_bytes import tree_digest

AT_MS = 1_767_225_600_000
PARTITIONS = 8
RECORDS = 40_000
"""Per partition (of 200-byte values): about 70 MB to write, so that signals land while the output is written."""


@pytest.fixture(scope="module")
def big_log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log dir of eight partitions with many superseded records, each over several segments."""
    root = tmp_path_factory.mktemp("big") / "src"
    config = TopicConfig.from_properties({"cleanup.policy": "compact", "segment.bytes": 1_048_576})
    logs = []
    for partition in range(PARTITIONS):
        log = PartitionLog("big", partition, config=config)
        for start in range(0, RECORDS, 500):
            batch = [NewRecord(f"k{i % 5000}".encode(), b"v" * 200, timestamp=0) for i in range(start, start + 500)]
            log.append(batch, now_ms=0)
        logs.append(log)
    return write_log_dir(logs, root)


def _contents(folder: Path) -> dict[str, bytes]:
    """Every file's bytes by its path under ``folder`` (checkpoint files get the time they were written)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _staging(parent: Path) -> list[Path]:
    return [p for p in parent.iterdir() if STAGING_MARK in p.name]


def _start_clean(source: Path, out: Path, *extra: str) -> subprocess.Popen[str]:
    args = [str(KCOMPACT), "clean", str(source), "--out", str(out), "--at", str(AT_MS), *extra]
    return _started(args)


def _started(args: list[str]) -> subprocess.Popen[str]:
    """The command started as from a terminal: Ctrl-C's SIGINT at its default, even when this test runs in the
    background (a shell starts background jobs with SIGINT ignored, and Python keeps an ignored SIGINT ignored)."""
    return subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _when_staging_appears(parent: Path, process: subprocess.Popen[str], delay_s: float) -> bool:
    """Wait for the run's first staging folder, then ``delay_s`` more; False when the run ended first."""
    deadline = time.monotonic() + 60
    while not _staging(parent) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(delay_s)
    return process.poll() is None


@pytest.fixture(scope="module")
def expected(big_log_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The digest of what an uninterrupted run writes."""
    out = tmp_path_factory.mktemp("expected") / "out"
    done = kcompact("clean", big_log_dir, "--out", out, "--at", str(AT_MS))
    assert done.returncode == 0, done.stderr
    return _contents(out)


def test_a_killed_run_leaves_no_output_or_a_complete_one_and_the_next_run_removes_its_copy(
    big_log_dir, expected, tmp_path
):
    """SIGKILL at several points of the work: ``--out`` is absent or complete, never partial."""
    caught = 0
    for number, delay_s in enumerate([0.0, 0.02, 0.04, 0.07, 0.3]):
        out = tmp_path / f"out{number}"
        process = _start_clean(big_log_dir, out)
        running = _when_staging_appears(tmp_path, process, delay_s)
        process.kill()
        process.communicate()
        assert not out.exists() or _contents(out) == expected
        caught += running and not out.exists()
        left = _staging(tmp_path)
        again = kcompact("clean", big_log_dir, "--out", out, "--at", str(AT_MS), "--overwrite")
        assert again.returncode == 0, again.stderr
        notice = "kcompact clean: removed {}, the unfinished output of an earlier run that was killed"
        assert sorted(again.stderr.splitlines()) == sorted(notice.format(stale) for stale in left)
        assert _staging(tmp_path) == []
        assert _contents(out) == expected
    assert caught >= 1, "every run ended before it could be killed: make the log dir bigger"


@pytest.mark.parametrize(("stop", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)])
def test_a_stopped_run_removes_its_unfinished_output_and_leaves_an_older_one(big_log_dir, tmp_path, stop, status):
    out = tmp_path / "out"
    out.mkdir()
    (out / "kept.txt").write_text("an older output")
    before = tree_digest(out)
    process = _start_clean(big_log_dir, out, "--overwrite")
    if not _when_staging_appears(tmp_path, process, 0.0):
        pytest.fail(f"the run ended before it could be stopped: {process.communicate()}")
    process.send_signal(stop)
    stdout, stderr = process.communicate(timeout=60)
    assert (process.returncode, "Traceback" in stderr) == (status, False), stderr
    assert stderr.strip().endswith(("interrupted", f"stopped by {signal.Signals(stop).name}"))
    assert tree_digest(out) == before
    assert _staging(tmp_path) == []


@pytest.mark.parametrize("delay_s", [0.0, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3])
def test_ctrl_c_while_the_command_starts_exits_quietly(tmp_path, delay_s):
    process = _started([str(KCOMPACT), "inspect", str(tmp_path)])
    _when_the_launcher_holds_sigint(process)
    time.sleep(delay_s)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    # 2: the command finished first (the folder is no log dir).
    assert process.returncode in (130, 2), stderr
    if process.returncode == 130:
        assert stderr in ("kcompact: interrupted\n", "kcompact inspect: interrupted\n")


def _when_the_launcher_holds_sigint(process: subprocess.Popen[str]) -> None:
    """Wait until the launcher's first instruction has blocked SIGINT (or the command has ended).

    Before it, the interpreter is starting: a Ctrl-C there is Python's own (a traceback from a frozen module),
    before any code of the package runs. The launcher keeps SIGINT blocked while the package loads, for tenths of
    a second, so polling every millisecond sees it (had the poll missed it, the command ends and exits 2).
    """
    status = Path(f"/proc/{process.pid}/status")
    while process.poll() is None:
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            blocked = next(line for line in status.read_text().splitlines() if line.startswith("SigBlk:"))
            if int(blocked.split()[1], 16) & (1 << (signal.SIGINT - 1)):
                return
        time.sleep(0.001)


@contextlib.contextmanager
def _small_disk(folder: Path, size: str) -> Iterator[Path]:
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs to fill needs root (CI and this project's machines run as root)")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"this machine refuses to mount a tmpfs: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


@pytest.mark.parametrize("stream_from", ["0", "1GiB"], ids=["streamed", "read-whole"])
def test_a_full_disk_names_the_destination_and_leaves_the_disk_as_it_was(big_log_dir, stream_from, tmp_path):
    """Streamed, the pass fills the scratch folder beside ``--out``; read whole, the writer fills its staging folder."""
    with _small_disk(tmp_path / "small", "256k") as disk:
        out = disk / "out"
        done = kcompact("clean", big_log_dir, "--out", out, "--at", str(AT_MS), "--stream-from", stream_from)
        assert done.returncode == 2
        assert done.stderr == f"kcompact clean: {out}: no space left on its device; nothing was written there\n"
        assert list(disk.iterdir()) == []


def test_clean_refuses_a_partition_folder_as_inspect_does(big_log_dir, tmp_path):
    partition = big_log_dir / "big-0"
    for command in (["clean", partition, "--out", tmp_path / "out"], ["inspect", partition]):
        done = kcompact(*command)
        assert done.returncode == 2
        assert f"{partition} is a partition folder, not a log dir: give its parent ({big_log_dir})" in done.stderr
    assert not (tmp_path / "out").exists()


def test_clean_refuses_an_out_whose_folder_does_not_exist(big_log_dir, tmp_path):
    out = tmp_path / "missing" / "out"
    done = kcompact("clean", big_log_dir, "--out", out)
    assert (done.returncode, done.stderr) == (
        2,
        f"kcompact clean: --out {out}: the folder {out.parent} does not exist; create it first\n",
    )


@pytest.mark.parametrize("command", ["inspect", "clean"])
def test_a_config_file_that_is_not_utf8_is_named(big_log_dir, tmp_path, command):
    config = tmp_path / "cluster.properties"
    config.write_bytes(b"segment.ms=100\nname=caf\xe9\n")
    extra = ["--out", str(tmp_path / "out")] if command == "clean" else []
    done = kcompact(command, big_log_dir, "--config-file", config, *extra)
    assert (done.returncode, done.stderr) == (
        2,
        f"kcompact {command}: --config-file {config} is not UTF-8 text (byte 0xe9 at position 23); save it as UTF-8\n",
    )


def test_a_scenario_file_that_is_not_utf8_is_named(tmp_path):
    scenario = tmp_path / "s.json"
    scenario.write_bytes(b'{"format": "caf\xe9"}')
    done = kcompact("scenario", "run", scenario)
    assert done.returncode == 2
    assert f"{scenario}: not UTF-8 text (byte 0xe9 at position 15)" in done.stderr


@pytest.mark.parametrize("how", [["--kafka-version", "3.9.2"], ["--config", "kafka.version=3.9.2"]])
def test_inspect_judges_by_the_release_given(big_log_dir, how):
    done = kcompact("inspect", big_log_dir, "--now-ms", str(AT_MS), *how)
    assert done.returncode == 0, done.stderr
    assert "by Kafka 3.9.2's rules" in done.stdout.splitlines()[0]
