"""The ``kcompact`` command line (also ``python -m kcompact_nb``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from kcompact_nb import __version__
from kcompact_nb._conformance_cli import add_conformance_command
from kcompact_nb.io._dump_cli import add_dump_command
from kcompact_nb.io._inspect_cli import add_inspect_command
from kcompact_nb.scenario._cli import add_scenario_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kcompact", description="See, predict and test Kafka log compaction.")
    parser.add_argument("--version", action="version", version=f"kcompact_nb {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_scenario_command(subparsers)
    add_dump_command(subparsers)
    add_inspect_command(subparsers)
    add_conformance_command(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    handler = getattr(args, "handler", None)
    return int(handler(args)) if handler is not None else 0
