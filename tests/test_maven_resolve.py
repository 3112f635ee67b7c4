"""Resolving a recipe's jars from several processes at once (kcompact_nb.maven.resolve_dependencies).

Maven itself is replaced by a script on ``PATH`` that logs when it starts and ends and writes a jar where it is
told: what is tested is the project's side (one Maven at a time on the shared repository, a folder completed by
another process reused, a resolution cut short done again), not Maven.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FAKE_MVN = """#!/bin/sh
for arg in "$@"; do case "$arg" in -DoutputDirectory=*) out="${arg#-DoutputDirectory=}";; esac; done
echo "start $out" >> "$MVN_LOG"
sleep 0.5
mkdir -p "$out" && echo jar > "$out/lib.jar"
echo "end $out" >> "$MVN_LOG"
"""

RESOLVE = """
import sys
from pathlib import Path
from kcompact_nb.maven import resolve_dependencies
print(resolve_dependencies(Path(sys.argv[1]), sys.argv[2]))
"""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    mvn = bin_dir / "mvn"
    mvn.write_text(FAKE_MVN)
    mvn.chmod(0o755)
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "KCOMPACT_MAVEN_DIR": str(tmp_path / "maven"),
        "MVN_LOG": str(tmp_path / "mvn.log"),
    }


def resolve_at_once(env: dict[str, str], tmp_path: Path, names: list[str]) -> list[str]:
    """Start one process per name, all at once; the folders they print."""
    pom = tmp_path / "pom.xml"
    pom.write_text("<project/>")
    processes = [
        subprocess.Popen([sys.executable, "-c", RESOLVE, str(pom), name], env=env, stdout=subprocess.PIPE, text=True)
        for name in names
    ]
    outputs = [process.communicate(timeout=60)[0].strip() for process in processes]
    assert [process.returncode for process in processes] == [0] * len(names)
    return outputs


def test_processes_resolving_at_once_take_turns_and_reuse_a_completed_folder(env, tmp_path):
    maven = Path(env["KCOMPACT_MAVEN_DIR"])
    outputs = resolve_at_once(env, tmp_path, ["kafka-a", "kafka-b", "kafka-a", "kafka-b"])
    assert outputs == [str(maven / name) for name in ["kafka-a", "kafka-b", "kafka-a", "kafka-b"]]
    log = Path(env["MVN_LOG"]).read_text().splitlines()
    # each folder resolved once, and never two Mavens at the same time: every start is followed by its own end
    assert sorted(log) == sorted(
        f"{event} {maven / name}" for event in ("start", "end") for name in ("kafka-a", "kafka-b")
    )
    assert [line.split()[0] for line in log] == ["start", "end", "start", "end"]
    assert all(log[i].split()[1] == log[i + 1].split()[1] for i in (0, 2))
    assert all((maven / name / "lib.jar").read_text() == "jar\n" for name in ("kafka-a", "kafka-b"))


def test_a_resolution_cut_short_is_done_again(env, tmp_path):
    maven = Path(env["KCOMPACT_MAVEN_DIR"])
    (maven / "kafka-a").mkdir(parents=True)  # a folder without the marker of a complete copy
    assert resolve_at_once(env, tmp_path, ["kafka-a"]) == [str(maven / "kafka-a")]
    assert Path(env["MVN_LOG"]).read_text().splitlines() == [f"start {maven / 'kafka-a'}", f"end {maven / 'kafka-a'}"]
    assert resolve_at_once(env, tmp_path, ["kafka-a"]) == [str(maven / "kafka-a")]
    assert len(Path(env["MVN_LOG"]).read_text().splitlines()) == 2  # the second call reused the complete folder
