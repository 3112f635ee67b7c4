"""``kcompact conformance`` end to end on a real broker (two small categories, one Kafka version)."""

from __future__ import annotations

import json

import pytest

from kcompact_nb.cli import main

from .conftest import require_java_and_maven


@pytest.mark.fidelity
def test_conformance_command_prints_the_summary_and_writes_it(tmp_path, capsys):
    require_java_and_maven()
    summary = tmp_path / "summary.json"
    status = main(["conformance", "--versions", "4.4.0", "--categories", "keyless,max-lag", "--out",
                   str(tmp_path / "out"), "--summary-json", str(summary)])  # fmt: skip
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert out == [
        "6 workloads, 6 passes, 0 mismatches against Apache Kafka 4.4.0",
        "  4.4.0: keyless 3, max-lag 3",
        "  4.4.0: 6 of 6 workloads leave .log files identical to Kafka's, byte for byte",
    ]
    written = json.loads(summary.read_text())["4.4.0"]
    assert (written["line"], written["log_files_identical"]) == (out[0], 6)
    assert sorted(p.name for p in (tmp_path / "out" / "4.4.0").iterdir())[0] == "seed700-keyless-30records"


def test_conformance_command_rejects_unknown_categories(capsys):
    assert main(["conformance", "--categories", "nope"]) == 2
    assert "unknown workload categories ['nope']" in capsys.readouterr().err


def test_conformance_versions_all_is_every_release_line():
    from kcompact_nb.broker import MATRIX_RELEASES
    from kcompact_nb.cli._conformance import _versions

    assert _versions("all") == list(MATRIX_RELEASES) and _versions("3.7.2, 4.4.0") == ["3.7.2", "4.4.0"]
    assert _versions(None) == ["4.4.0", "3.9.2"]


def test_a_workload_a_release_does_not_know_is_skipped_there():
    from kcompact_nb.fidelity import catalog

    (levels,) = [w for w in catalog(["compression"]) if w.kept.get("compression.gzip.level")]
    assert levels.refusal_on("3.7.2").startswith("Unknown topic config name: compression.gzip.level")
    assert levels.refusal_on("3.8.0") is None
