"""The conformance summary notebooks show: the bundled file's lines, and errors naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kcompact_nb import KcompactError
from kcompact_nb.fidelity import conformance_summary

BUNDLED = Path(__file__).resolve().parents[2] / "data" / "samples" / "conformance-summary.json"


def test_lines_in_file_order(tmp_path):
    path = tmp_path / "summary.json"
    entry = {"workloads": 2, "passes": 3, "mismatches": 0}
    path.write_text(json.dumps({"4.4.0": {**entry, "line": "a"}, "3.9.2": {**entry, "line": "b"}}))
    assert conformance_summary(path) == ["a", "b"]


def test_the_bundled_summary_reads():
    lines = conformance_summary(BUNDLED)
    assert lines and all(" mismatches against Apache Kafka " in line for line in lines)


@pytest.mark.parametrize("content", ["not json", "[]", '{"4.4.0": {"workloads": 1}}'])
def test_bad_files_are_named(tmp_path, content):
    path = tmp_path / "summary.json"
    path.write_text(content)
    with pytest.raises(KcompactError, match="summary.json"):
        conformance_summary(path)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(KcompactError, match="missing.json"):
        conformance_summary(tmp_path / "missing.json")


def test_the_bundled_release_matrix_covers_every_release_line():
    """data/samples/conformance-matrix.json: `kcompact conformance --versions all`, one line per release."""
    from kcompact_nb.broker import MATRIX_RELEASES

    matrix = BUNDLED.with_name("conformance-matrix.json")
    lines = conformance_summary(matrix)
    assert [line.rsplit(" ", 1)[1] for line in lines] == sorted(MATRIX_RELEASES, key=_release, reverse=True)


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))
