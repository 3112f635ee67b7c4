"""Read back the conformance summary ``kcompact conformance --summary-json`` writes (for notebooks)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from kcompact_nb.core import KcompactError


def conformance_summary(path: str | os.PathLike[str]) -> list[str]:
    """The summary lines of a ``--summary-json`` file, one per Kafka version, in the file's order.

    Each line reads ``N workloads, M passes, K mismatches against Apache Kafka <version>``
    (:meth:`ConformanceReport.summary_line`). Raises :class:`KcompactError` naming the file
    when it is missing, not JSON, or an entry has no ``line``.
    """
    file = Path(path)
    try:
        summary = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise KcompactError(f"cannot read the conformance summary {file}: {error}") from error
    if not isinstance(summary, dict):
        raise KcompactError(f"{file}: expected a JSON object keyed by Kafka version, got {type(summary).__name__}")
    lacking = [version for version, entry in summary.items() if not isinstance(entry, dict) or "line" not in entry]
    if lacking:
        raise KcompactError(f"{file}: entries without a 'line': {lacking}")
    return [str(entry["line"]) for entry in summary.values()]
