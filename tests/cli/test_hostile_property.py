"""Any command line an operator can type, on files of every kind, ends well (issue #40).

Hypothesis generates command lines: ``inspect``, ``clean``, ``dump``, ``kcat`` and ``scenario run`` over paths of
every file kind (a log dir, a regular file, an empty one, a folder, a FIFO, a device, a symbolic link that loops
or points nowhere, a missing path), configs at and past the bounds of their Kafka type, and outputs that are,
hold or lie inside an input. Each runs as an operator runs it, in a subprocess with a time limit, and must end in
exit 0 with its result, or exit 2 with one line saying why; never a traceback, never a hang, and no input is
ever modified.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kcompact_nb.core import BrokerConfig, TopicConfig
from kcompact_nb.core.model._config_keys import INT, LONG, config_keys
from tests.cli.conftest import KCOMPACT
from tests.cli.test_hostile_input import SAMPLE, SCENARIO, digest

TIME_LIMIT_S = 90
"""A run that takes longer is a hang (a normal run here takes a few seconds, more on a loaded machine)."""

_NUMBER_KEYS = [
    (name, key.kafka_type)
    for cls in (TopicConfig, BrokerConfig)
    for name, (_, key) in config_keys(cls).items()
    if key.kafka_type in (INT, LONG)
]
KINDS = ["log dir", "config", "scenario", "kcat", "empty", "folder", "fifo", "device", "loop", "dangling", "missing"]


@dataclass(frozen=True)
class Workspace:
    """The inputs of one example, each a path of a given kind."""

    root: Path

    def path(self, kind: str) -> Path:
        return {
            "log dir": self.root / "logs",
            "config": self.root / "server.properties",
            "scenario": self.root / "scenario.json",
            "kcat": self.root / "kcat.txt",
            "empty": self.root / "empty",
            "folder": self.root / "folder",
            "fifo": self.root / "fifo",
            "device": Path("/dev/zero"),
            "loop": self.root / "loop",
            "dangling": self.root / "dangling",
            "missing": self.root / "missing",
        }[kind]


def _workspace(root: Path) -> Workspace:
    space = Workspace(root)
    shutil.copytree(SAMPLE, space.path("log dir"))
    space.path("config").write_bytes(b"\xef\xbb\xbfsegment.ms=100\nlog.cleaner.threads=1\n")
    shutil.copy(SCENARIO, space.path("scenario"))
    space.path("kcat").write_bytes(b"0\tk\tv\n1\tk\tw\n")
    space.path("empty").write_bytes(b"")
    space.path("folder").mkdir()
    os.mkfifo(space.path("fifo"))
    space.path("loop").symlink_to(space.path("loop"))
    space.path("dangling").symlink_to(root / "nowhere")
    return space


def _config_values(kafka_type) -> st.SearchStrategy[str]:
    bounds = [kafka_type.low, kafka_type.high, kafka_type.low - 1, kafka_type.high + 1, 0, 1, -1]
    return st.sampled_from(bounds).map(str) | st.sampled_from(["1_0", " 7 ", "1e3", "", "x", "\ufeff5"])


configs = st.lists(st.sampled_from(_NUMBER_KEYS).flatmap(lambda k: _config_values(k[1]).map(lambda v: f"{k[0]}={v}")),
                   max_size=2)  # fmt: skip
outputs = st.sampled_from(["new", "log dir", "inside log dir", "config", "scenario", "folder", "long name"])


@st.composite
def command_lines(draw: st.DrawFn) -> tuple[str, list[str | tuple[str, str]]]:
    """A command and its arguments; ``(role, kind)`` stands for a path of that kind, resolved per example."""
    command = draw(st.sampled_from(["inspect", "clean", "dump", "kcat", "scenario"]))
    right = {"inspect": "log dir", "clean": "log dir", "dump": "partition", "kcat": "kcat", "scenario": "scenario"}
    kind = ("path", draw(st.just(right[command]) | st.sampled_from(KINDS)))  # half the time the file it reads
    args: list[str | tuple[str, str]]
    if command in ("inspect", "clean"):
        args = [command, kind, "--now-ms" if command == "inspect" else "--at", "0"]
        for setting in draw(st.just([]) | configs):
            args += ["--config", setting]
        if draw(st.booleans()):
            args += ["--config-file", ("path", draw(st.sampled_from(KINDS)))]
        if command == "clean":
            args += ["--out", ("out", draw(st.just("new") | outputs))]
    elif command == "dump":
        args = ["dump", kind]
    elif command == "kcat":
        args = ["kcat", kind, *(["-f", r"%o\t%k\t%s\n", "-p", "0"] if draw(st.booleans()) else [])]
    else:
        args = ["scenario", "run", kind, *(["--output", ("out", draw(outputs))] if draw(st.booleans()) else [])]
    return command, args


def _resolved(space: Workspace, arg: str | tuple[str, str]) -> str:
    if isinstance(arg, str):
        return arg
    role, kind = arg
    if kind == "partition":
        return str(space.path("log dir") / "basic-0")
    if role == "path":
        return str(space.path(kind))
    named = {
        "new": space.root / "out",
        "inside log dir": space.path("log dir") / "out",
        "long name": space.root / ("o" * 240),
    }
    return str(named.get(kind, space.path(kind) if kind in KINDS else space.root / "out"))


@settings(
    max_examples=int(os.environ.get("KCOMPACT_HOSTILE_EXAMPLES", "30")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(command_lines())
def test_a_command_line_ends_in_its_result_or_one_line_never_a_traceback_a_hang_or_a_changed_input(line):
    command, raw = line
    with tempfile.TemporaryDirectory() as folder:
        space = _workspace(Path(folder))
        args = [_resolved(space, arg) for arg in raw]
        inputs = [Path(_resolved(space, arg)) for arg in raw if isinstance(arg, tuple) and arg[0] == "path"]
        before = {path: digest(path) for path in inputs}
        done = subprocess.run([str(KCOMPACT), *args], capture_output=True, text=True, timeout=TIME_LIMIT_S)
        event(f"{command}: exit {done.returncode}")
        assert "Traceback" not in done.stderr + done.stdout, done.stderr
        assert {path: digest(path) for path in inputs} == before, f"an input changed: {args}"
        if done.returncode == 2:
            lines = done.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("kcompact"), done.stderr
            return
        assert done.returncode == 0, (args, done.returncode, done.stderr)
        _assert_result(command, args, done.stdout)


def _assert_result(command: str, args: list[str], stdout: str) -> None:
    """What a successful run of ``command`` shows or writes."""
    if command == "inspect":
        assert stdout.startswith("Log dir ") and "basic-0" in stdout
    elif command == "clean":
        out = Path(args[args.index("--out") + 1])
        assert stdout.rstrip().endswith(f"Wrote {out}") and (out / "basic-0").is_dir()
        assert sorted(p.name for p in (out / "basic-0").glob("*.log"))  # a partition with its segments
    elif command == "dump":
        assert stdout.startswith(("Partition basic-0", "Segment ", "Dumping ")) or "offset" in stdout
    elif command == "kcat":
        assert stdout.startswith("kcat output ")
    else:
        assert '"passed"' in stdout or "--output" in args
