"""Every ``kcompact`` subcommand, in the order ``kcompact --help`` lists them.

A new command is one module defining a :class:`Command` and one line here. The list names each command's module
rather than importing it: ``kcompact --help`` and ``--version`` load none of them, and a run loads only its own
command's module (and through it the layers it uses).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from kcompact_nb.cli._command import Command


@dataclass(frozen=True)
class RegisteredCommand:
    """A subcommand as ``kcompact --help`` lists it; :meth:`load` imports the module that defines it."""

    name: str
    help: str
    module: str
    """The module of :mod:`kcompact_nb.cli` whose ``COMMAND`` this is."""

    def load(self) -> Command:
        """The command itself (importing its module, and the layers that module uses)."""
        command: Command = importlib.import_module(f"kcompact_nb.cli.{self.module}").COMMAND
        return command


COMMANDS: tuple[RegisteredCommand, ...] = (
    RegisteredCommand("scenario", "run scenario files (kcompact-scenario/1)", "_scenario"),
    RegisteredCommand(
        "dump",
        "show a partition directory's segments, batches and records, or one segment, index or snapshot file",
        "_dump",
    ),
    RegisteredCommand(
        "inspect",
        "explain every partition of a Kafka log dir: sizes, clean/dirty split, eligibility, tombstones",
        "_inspect",
    ),
    RegisteredCommand(
        "clean", "write what the broker's next cleaner iteration would leave of a Kafka log dir", "_clean"
    ),
    RegisteredCommand(
        "forecast", "run a broker's cleaner forward under a produce model (will the cleaner keep up?)", "_forecast"
    ),
    RegisteredCommand(
        "kcat", "read a file of kcat consumer output: records per partition and when compaction last ran", "_kcat"
    ),
    RegisteredCommand(
        "conformance",
        "compare the simulator with real Kafka brokers on seeded workloads (needs Java 17 and Maven)",
        "_conformance",
    ),
)
