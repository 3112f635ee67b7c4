"""``kcompact conformance``'s argument checks.

Arguments that would run nothing, or fail only after long broker runs, are refused first.
"""

from __future__ import annotations

import pytest

from tests.cli.conftest import kcompact


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--repeat", "0"], "argument --repeat: 0 is below 1; give 1 or more"),
        (["--repeat", "many"], "argument --repeat: 'many' is not a whole number"),
        (["--versions", "9.9.9"], "kcompact conformance: Invalid value '9.9.9' for configuration kafka.version: not an "
                                  "Apache Kafka release line the simulator knows; known: 2.0-2.8, 3.0-3.9, 4.0-4.4"),
        (["--versions", "4.4"], "kcompact conformance: unsupported Kafka version '4.4': the broker layer runs "
                                "releases 2.0.0 to 4.4.x (ZooKeeper mode before 3.3, KRaft from 3.3)"),
        (["--versions", "4.4.0,2.8"], "kcompact conformance: unsupported Kafka version '2.8'"),
        (["--categories", "nope"], "unknown workload categories ['nope']"),
        (["--summary-json", "{tmp}/missing/summary.json"], "--summary-json {tmp}/missing/summary.json: the folder "
                                                           "{tmp}/missing does not exist"),
    ],
)  # fmt: skip
def test_bad_arguments_exit_2_before_any_broker_starts(args, message, tmp_path):
    done = kcompact("conformance", *(a.format(tmp=tmp_path) for a in args))
    assert done.returncode == 2 and done.stdout == ""
    assert message.format(tmp=tmp_path) in done.stderr
