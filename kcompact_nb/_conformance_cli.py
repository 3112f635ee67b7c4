"""``kcompact conformance``: run the differential workloads on real brokers and print the report.

Kept outside ``kcompact_nb.fidelity`` so that building the CLI parser imports neither it nor kafka-python.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kcompact_nb.fidelity._report import ConformanceReport
    from kcompact_nb.fidelity._workload import Workload

EXIT_CONFORMS = 0
EXIT_MISMATCH = 1
EXIT_CANNOT_RUN = 2


def add_conformance_command(subparsers: Any) -> None:
    """Register ``conformance`` on the CLI's subparsers; the handler is ``args.handler``."""
    command = subparsers.add_parser(
        "conformance",
        help="compare the simulator with real Kafka brokers on seeded workloads (needs Java 17 and Maven)",
        description="Runs every differential workload on each Kafka version, prints 'N workloads, M passes, "
        "K mismatches against Apache Kafka <version>' per version, and saves each mismatch as a scenario "
        "file that `kcompact scenario run` reproduces.",
    )
    command.add_argument("--versions", default=None, help="comma-separated Kafka versions (default: 4.4.0,3.9.2)")
    command.add_argument("--categories", default=None, help="comma-separated workload categories (default: all)")
    command.add_argument("--repeat", type=int, default=1, help="sets of seeds per category (default 1)")
    command.add_argument("--out", type=Path, default=None, help="folder for copies and reproductions (default: temporary)")
    command.add_argument("--summary-json", type=Path, default=None,
                         help="also write the summary lines as JSON (what notebooks display)")  # fmt: skip
    command.set_defaults(handler=conformance_command)


def conformance_command(args: argparse.Namespace) -> int:
    """Exit 0 when every workload agrees, 1 on any mismatch, 2 when brokers cannot run or arguments are bad."""
    from kcompact_nb.broker import DEFAULT_VERSION, KAFKA_3_VERSION, missing_tools
    from kcompact_nb.fidelity._catalog import catalog

    try:
        workloads = catalog(_split(args.categories), repeat=args.repeat)
    except ValueError as error:
        print(f"kcompact conformance: {error}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    missing = missing_tools()
    if missing:
        print(f"conformance needs {' and '.join(missing)} on PATH (Java 17+, Maven 3)", file=sys.stderr)
        return EXIT_CANNOT_RUN
    versions = _split(args.versions) or [DEFAULT_VERSION, KAFKA_3_VERSION]
    out = args.out or Path(tempfile.mkdtemp(prefix="kcompact-conformance-"))
    report = run_conformance(workloads, versions, out)
    print(report.render())
    print(f"copies and reproductions: {out}", file=sys.stderr)
    if args.summary_json is not None:
        args.summary_json.write_text(json.dumps(report.summary(), indent=2) + "\n", encoding="utf-8")
    return EXIT_CONFORMS if report.passed else EXIT_MISMATCH


def run_conformance(workloads: list[Workload], versions: list[str], out: Path) -> ConformanceReport:
    """Every workload on a fresh broker of each version; mismatching rounds get a scenario file."""
    from tqdm.auto import tqdm  # type: ignore[import-untyped]

    from kcompact_nb.broker import KafkaBroker
    from kcompact_nb.fidelity._differential import run_differential
    from kcompact_nb.fidelity._report import ConformanceReport, save_reproductions

    results = []
    for version in versions:
        with KafkaBroker(version) as broker:
            for workload in tqdm(workloads, desc=f"Kafka {version}", unit="workload", file=sys.stderr):
                folder = out / version / workload.name
                results.append(run_differential(broker, workload, folder, topic=f"diff-{workload.name}"))
    save_reproductions(results)
    return ConformanceReport(tuple(results))


def _split(text: str | None) -> list[str] | None:
    return [part.strip() for part in text.split(",") if part.strip()] if text else None
