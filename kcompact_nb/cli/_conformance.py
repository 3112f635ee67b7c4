"""``kcompact conformance``: run the differential workloads on real brokers and print the report.

Building the parser imports neither ``kcompact_nb.fidelity`` nor kafka-python: they load when the command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from kcompact_nb.cli._arguments import positive_int
from kcompact_nb.cli._command import Command
from kcompact_nb.cli._exit import ExitCode
from kcompact_nb.cli._paths import output_file
from kcompact_nb.core import KafkaVersion, KcompactError
from kcompact_nb.maven import require_tools

if TYPE_CHECKING:
    from kcompact_nb.fidelity import ConformanceReport, Workload


def _add_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--versions",
        default=None,
        help="comma-separated Kafka versions (2.0.0 to 4.4.x; ZooKeeper mode before 3.3), or 'all': the newest "
        "patch of every release line from 2.0 (default: 4.4.0,3.9.2)",
    )
    command.add_argument("--categories", default=None, help="comma-separated workload categories (default: all)")
    command.add_argument("--repeat", type=positive_int, default=1, help="sets of seeds per category (default 1)")
    command.add_argument(
        "--out", type=Path, default=None, help="folder for copies and reproductions (default: temporary)"
    )
    command.add_argument("--summary-json", type=Path, default=None,
                         help="also write the summary lines as JSON (what notebooks display)")  # fmt: skip


def _run(args: argparse.Namespace, out: TextIO) -> int:
    """0 when every workload agrees, 1 on any mismatch, 2 for bad arguments, 3 without Java or Maven."""
    from kcompact_nb.broker import release_line
    from kcompact_nb.fidelity import catalog

    try:
        workloads = catalog(_split(args.categories), repeat=args.repeat)
        versions = _versions(args.versions)
        for version in versions:
            KafkaVersion.parse(version)
            release_line(version)
    except (ValueError, KcompactError) as error:
        print(f"kcompact conformance: {error}", file=sys.stderr)
        return ExitCode.INVALID
    if args.summary_json is not None:
        output_file(args.summary_json, "--summary-json")
    require_tools("conformance")
    folder = args.out or Path(tempfile.mkdtemp(prefix="kcompact-conformance-"))
    report = run_conformance(workloads, versions, folder)
    out.write(report.render() + "\n")
    print(f"copies and reproductions: {folder}", file=sys.stderr)
    if args.summary_json is not None:
        args.summary_json.write_text(json.dumps(report.summary(), indent=2) + "\n", encoding="utf-8")
    return ExitCode.OK if report.passed else ExitCode.FAILED


def run_conformance(workloads: list[Workload], versions: list[str], out: Path) -> ConformanceReport:
    """Every workload on a fresh broker of each version; mismatching rounds get a scenario file."""
    from tqdm.auto import tqdm

    from kcompact_nb.broker import KafkaBroker
    from kcompact_nb.fidelity import ConformanceReport, run_differential, save_reproductions

    results = []
    for version in versions:
        runnable = [w for w in workloads if w.refusal_on(version) is None]
        for workload in workloads:
            if workload not in runnable:
                print(f"Kafka {version}: skipped {workload.name}: {workload.refusal_on(version)}", file=sys.stderr)
        with KafkaBroker(version) as broker:
            for workload in tqdm(runnable, desc=f"Kafka {version}", unit="workload", file=sys.stderr):
                folder = out / version / workload.name
                results.append(run_differential(broker, workload, folder, topic=f"diff-{workload.name}"))
    save_reproductions(results)
    return ConformanceReport(tuple(results))


def _versions(text: str | None) -> list[str]:
    """The Kafka versions of ``--versions``: a list, ``all`` (:data:`MATRIX_RELEASES`), or the two CI brokers."""
    from kcompact_nb.broker import DEFAULT_VERSION, KAFKA_3_VERSION, MATRIX_RELEASES

    if text is not None and text.strip() == "all":
        return list(MATRIX_RELEASES)
    return _split(text) or [DEFAULT_VERSION, KAFKA_3_VERSION]


def _split(text: str | None) -> list[str] | None:
    return [part.strip() for part in text.split(",") if part.strip()] if text else None


COMMAND = Command(
    name="conformance",
    description="Runs every differential workload on each Kafka version, prints 'N workloads, M passes, "
    "K mismatches against Apache Kafka <version>' per version, and saves each mismatch as a scenario "
    "file that `kcompact scenario run` reproduces.",
    add_arguments=_add_arguments,
    run=_run,
)
