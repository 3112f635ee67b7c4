"""The command line as a whole: the registry, the entry points, one exit-status convention, clocks and environment."""

from __future__ import annotations

import argparse
import ast
import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path
from typing import TextIO

import pytest

from kcompact_nb import KcompactError
from kcompact_nb.cli import ExitCode, build_parser, run_command
from kcompact_nb.cli._command import Command
from kcompact_nb.cli._defaults import progress_setting
from kcompact_nb.cli._registry import COMMANDS
from kcompact_nb.io import MissingCodecError, write_partition_dir
from kcompact_nb.record import _native_kernels as native_kernels
from tests.cli.conftest import KCOMPACT, kcompact
from tests.conftest import compacted_log, rec
from tests.io.kafka_bytes import tree_digest

ROOT = Path(__file__).resolve().parents[2]


def test_every_registered_command_is_on_the_parser_once():
    names = [c.name for c in COMMANDS]
    assert names == ["scenario", "dump", "inspect", "clean", "forecast", "kcat", "conformance"]
    subparsers = next(a for a in build_parser()._actions if a.dest == "command")
    assert list(subparsers.choices) == names  # type: ignore[union-attr]


def test_the_installed_script_and_python_dash_m_are_the_same_program():
    script = kcompact("--help")
    module = subprocess.run([sys.executable, "-m", "kcompact_nb", "--help"], capture_output=True, text=True)
    assert KCOMPACT.is_file() and script.returncode == module.returncode == 0
    assert script.stdout == module.stdout.replace("__main__.py", "kcompact")
    assert "Exit status: 0 ok, 1 a check failed, 2 invalid input or usage" in script.stdout
    assert kcompact("--version").stdout.startswith("kcompact_nb ")


def imported_modules(*args: str) -> set[str]:
    """The modules ``python -X importtime ARGS`` imports (those it tries and fails to import too)."""
    done = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True, check=True)
    lines = [line.split("|")[-1] for line in done.stderr.splitlines() if line.startswith("import time:")]
    return {name.strip() for name in lines[1:]}  # the first line is the header


@pytest.mark.parametrize("option", ["--version", "--help"])
def test_version_and_help_load_only_the_command_lines_own_modules(option):
    """Issue #41: ``kcompact --version`` and ``--help`` import the launcher, the package's face and the command
    line's registry, parser and exit statuses, and otherwise only the standard library: no layer, no command's
    module, no installed package (kafka-python, numpy, crc32c, ...), whatever the interpreter loads by itself."""
    loaded = imported_modules(str(KCOMPACT), option) - imported_modules("-c", "pass")
    ours = {name for name in loaded if name.split(".")[0] in ("kcompact_nb", "kcompact_launcher")}
    cli = {"kcompact_nb.cli", "kcompact_nb.cli._command", "kcompact_nb.cli._exit", "kcompact_nb.cli._main"}
    assert ours == {"kcompact_launcher", "kcompact_nb", "kcompact_nb.cli._registry", *cli}
    installed = set(importlib.metadata.packages_distributions())
    assert (
        sorted(name for name in loaded if name.split(".")[0] in installed - {"kcompact_nb", "kcompact_launcher"}) == []
    )
    assert len(loaded) < 100, sorted(loaded)  # 64 today, the standard library's argparse, dataclasses, re, ...


def test_inspect_loads_neither_the_forecasting_nor_the_crc32c_package():
    """Issue #41 (the first line of ``kcompact inspect`` within 0.5 s): reading a log dir and judging its partitions
    needs no forecast, and its CRC-32C checks (batches, producer snapshots) run in the C kernel, so neither
    ``kcompact_nb.core.forecasting`` nor the ``crc32c`` package (whose import reads its metadata) is imported."""
    if native_kernels.NATIVE is None:
        pytest.skip("the C kernels were not built (no C compiler at install): the crc32c package computes CRCs")
    sample = Path(__file__).resolve().parents[2] / "data" / "samples" / "kafka" / "compaction-basic" / "before"
    loaded = imported_modules(str(KCOMPACT), "inspect", str(sample), "--config", "segment.ms=100")
    assert "kcompact_nb.core.cleaner" in loaded and "kcompact_nb.io.files._index_files" in loaded  # it read the dir
    assert not {name for name in loaded if name.startswith(("kcompact_nb.core.forecasting", "crc32c"))}


def test_usage_errors_exit_2_with_argparse_message():
    bare = kcompact()
    assert bare.returncode == ExitCode.INVALID and "usage: kcompact" in bare.stderr
    unknown = kcompact("compress")
    assert unknown.returncode == ExitCode.INVALID and "invalid choice: 'compress'" in unknown.stderr
    missing = kcompact("dump")
    assert missing.returncode == ExitCode.INVALID and "the following arguments are required: path" in missing.stderr


def failing_command(error: BaseException) -> Command:
    def run(args: argparse.Namespace, out: TextIO) -> int:
        raise error

    return Command("fake", "description", lambda parser: None, run)


@pytest.mark.parametrize(
    ("error", "status", "message"),
    [
        (KeyboardInterrupt(), ExitCode.INTERRUPTED, "kcompact fake: interrupted\n"),
        (PermissionError(13, "Permission denied", "/var/lib/kafka"), ExitCode.INVALID,
         "kcompact fake: /var/lib/kafka: Permission denied\n"),
        (FileNotFoundError(2, "No such file or directory", "/x.log"), ExitCode.INVALID,
         "kcompact fake: /x.log does not exist\n"),
        (KcompactError("bad input"), ExitCode.INVALID, "kcompact fake: bad input\n"),
        (MissingCodecError("/s.log", 61, "zstd", "zstandard"), ExitCode.UNAVAILABLE,
         "kcompact fake: /s.log: batch at byte position 61 is zstd-compressed; install the Python package 'zstandard' "
         "to decode it (pip install zstandard)\n"),
    ],
)  # fmt: skip
def test_what_a_command_raises_becomes_a_message_and_an_exit_status(error, status, message, capsys):
    assert run_command(failing_command(error), argparse.Namespace()) == status
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", message)


def test_the_readme_documents_every_exit_status():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Exit status", 1)[1].split("\n#", 1)[0]
    documented = {int(code) for code in re.findall(r"^\| (\d+) \|", section, flags=re.MULTILINE)}
    assert documented == {int(code) for code in ExitCode}


def test_a_closed_pipe_ends_the_command_quietly(tmp_path):
    log = compacted_log()
    for i in range(3_000):
        log.append([rec(f"key-{i}", "value " * 10, timestamp=i)], now_ms=i)
    part = write_partition_dir(log, tmp_path)
    before = tree_digest(part)
    reader = subprocess.Popen([str(KCOMPACT), "dump", str(part)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert reader.stdout is not None and reader.stderr is not None
    first = reader.stdout.read(100)  # like `| head -c 100`: read a little, then go away
    reader.stdout.close()
    err = reader.stderr.read().decode()
    assert reader.wait() == ExitCode.BROKEN_PIPE == 141
    assert first.startswith(b"Partition t-0: ") and err == ""
    assert tree_digest(part) == before


def test_progress_comes_from_the_environment_only_in_the_cli(tmp_path):
    assert progress_setting({}) is None
    assert progress_setting({"KCOMPACT_PROGRESS": "0"}) is False
    assert progress_setting({"KCOMPACT_PROGRESS": "no"}) is False
    assert progress_setting({"KCOMPACT_PROGRESS": "1"}) is True
    log = compacted_log()
    log.append([rec("k")], now_ms=0)
    write_partition_dir(log, tmp_path / "logs")
    shown = kcompact("inspect", tmp_path / "logs", "--now-ms", "0", env={"KCOMPACT_PROGRESS": "1"})
    hidden = kcompact("inspect", tmp_path / "logs", "--now-ms", "0", env={"KCOMPACT_PROGRESS": "0"})
    assert shown.returncode == hidden.returncode == 0
    assert "100%" in shown.stderr and hidden.stderr == ""


CLOCK_OR_ENVIRONMENT = {("time", "time"), ("time", "time_ns"), ("datetime", "now"), ("datetime", "utcnow"),
                        ("date", "today"), ("os", "environ"), ("os", "getenv")}  # fmt: skip


OUTSIDE_THE_CLI = {
    "kcompact_nb/fidelity/_checkpoint_ticks.py": "the wall clock, against which a real broker's recovery-point "
    "checkpoint runs are timed",
    "kcompact_nb/fidelity/_differential.py": "the wall clock, which a real broker's cleaner and producers read",
    "kcompact_nb/fidelity/_forecast_proof.py": "the wall clock, which a real broker's cleaner reads and its producer "
    "is paced by",
    "kcompact_nb/maven/_resolve.py": "$KCOMPACT_MAVEN_DIR and $XDG_CACHE_HOME: where downloaded jars go",
    "kcompact_nb/record/_cache_dir.py": "$KCOMPACT_CACHE_DIR and $XDG_CACHE_HOME: where built libraries and jars go",
    "kcompact_nb/spark/_java.py": "$JAVA_HOME: the JDK that builds the JVM source and runs Spark's driver",
    "kcompact_nb/spark/_session.py": "$SPARK_REMOTE and $MASTER, where a deployment says Spark runs (and the "
    "worker Python and local IP an embedded session sets)",
}
"""The modules below the CLI that read the clock or the environment, each for what only it can know
(docs/architecture.md, Layers); every other one takes ``now_ms`` and switches as parameters."""


def _clock_or_environment_reads(path: Path) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and (node.value.id, node.attr) in CLOCK_OR_ENVIRONMENT
    ]


def test_below_the_cli_only_the_listed_modules_read_the_clock_or_the_environment():
    """docs/architecture.md: the layers below the CLI take ``now_ms`` and switches as parameters."""
    readers = {
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "kcompact_nb").rglob("*.py"))
        if "cli" not in path.relative_to(ROOT / "kcompact_nb").parts[:1] and _clock_or_environment_reads(path)
    }
    assert readers == set(OUTSIDE_THE_CLI)


def test_the_clock_scan_finds_a_clock_read():
    tree = ast.parse("import time\nnow = time.time()\n")
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
             and (n.value.id, n.attr) in CLOCK_OR_ENVIRONMENT]  # fmt: skip
    assert len(found) == 1
