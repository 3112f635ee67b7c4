"""``kcompact scenario run FILE [--output OUT]``: run a scenario file and print or write its result document."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from kcompact_nb.cli._command import Command
from kcompact_nb.cli._exit import ExitCode
from kcompact_nb.cli._paths import existing_file, not_an_input, output_file
from kcompact_nb.core import KcompactError
from kcompact_nb.scenario import ScenarioError, run_scenario


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="scenario_command", metavar="ACTION", required=True)
    run = actions.add_parser("run", help="run a scenario and print or write its result document")
    run.add_argument("file", type=Path, help="scenario JSON file")
    run.add_argument("--output", "-o", type=Path, help="write the result document here instead of stdout")


def _run(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``args.file``: 0 when every expect passed, 1 when one failed, 2 when the file is invalid."""
    existing_file(args.file, "scenario file")
    if args.output is not None:
        output_file(args.output, "--output")
        not_an_input(args.output, [args.file], "--output")
    try:
        result = run_scenario(args.file)
    except ScenarioError as error:
        detail = str(error).removeprefix(f"{args.file}: ")
        raise KcompactError(f"invalid scenario {args.file}: {detail}") from None
    text = json.dumps(result, indent=2) + "\n"
    if args.output is None:
        out.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    if not result["passed"]:
        _report_failures(result)
    return ExitCode.OK if result["passed"] else ExitCode.FAILED


def _report_failures(result: dict[str, Any]) -> None:
    for step in result["steps"]:
        if step["op"] == "expect" and not step["result"]["passed"]:
            for failure in step["result"]["failures"]:
                print(
                    f"steps[{step['index']}] expect {failure['assertion']} "
                    f"on {failure['topic']}-{failure['partition']}: "
                    f"expected {failure['expected']!r}, got {failure['actual']!r}",
                    file=sys.stderr,
                )


COMMAND = Command(
    name="scenario",
    description="Run a kcompact-scenario/1 file on the simulator and print its result document.",
    add_arguments=_add_arguments,
    run=_run,
)
