"""``kcompact scenario run FILE [--output OUT]``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kcompact_nb.scenario._errors import ScenarioError
from kcompact_nb.scenario._runner import run_scenario

EXIT_PASSED = 0
EXIT_FAILED = 1
EXIT_INVALID = 2


def add_scenario_command(subparsers: Any) -> None:
    """Register ``scenario run`` on the CLI's subparsers; the handler is ``args.handler``."""
    scenario = subparsers.add_parser("scenario", help="run scenario files (kcompact-scenario/1)")
    actions = scenario.add_subparsers(dest="scenario_command", metavar="ACTION", required=True)
    run = actions.add_parser("run", help="run a scenario and print or write its result document")
    run.add_argument("file", type=Path, help="scenario JSON file")
    run.add_argument("--output", "-o", type=Path, help="write the result document here instead of stdout")
    run.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Run ``args.file``: exit 0 when every expect passed, 1 when one failed, 2 when invalid."""
    try:
        result = run_scenario(args.file)
    except ScenarioError as exc:
        print(f"invalid scenario {args.file}: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except OSError as exc:
        print(f"cannot read scenario {args.file}: {exc}", file=sys.stderr)
        return EXIT_INVALID
    text = json.dumps(result, indent=2) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    if not result["passed"]:
        _report_failures(result)
    return EXIT_PASSED if result["passed"] else EXIT_FAILED


def _report_failures(result: dict[str, Any]) -> None:
    for step in result["steps"]:
        if step["op"] == "expect" and not step["result"]["passed"]:
            for failure in step["result"]["failures"]:
                print(
                    f"steps[{step['index']}] expect {failure['assertion']} on {failure['topic']}-{failure['partition']}: "
                    f"expected {failure['expected']!r}, got {failure['actual']!r}",
                    file=sys.stderr,
                )
