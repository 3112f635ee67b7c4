"""Older KRaft release lines on real brokers: 3.3, 3.5 and 3.7 start, refuse what they do not know, and clean
one compacted partition exactly as the simulator predicts (byte for byte), each with one quick workload.

3.3 and 3.4 have no kafka-tools-api module, 3.3-3.8 refuse a controller listener in advertised.listeners,
and kafka-python cannot parse 3.3-3.5's DescribeCluster v0 (the broker layer handles all three). The full
matrix is ``kcompact conformance --versions all`` (docs/cleaner-rules.md 15).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kcompact_nb.broker import KRAFT_RELEASES, MATRIX_RELEASES, KafkaBroker, release_line, uses_kraft
from kcompact_nb.core.model._versions import KNOWN_RELEASE_LINES
from kcompact_nb.fidelity import catalog, run_differential

from .conftest import require_java_and_maven
from .test_configs_by_release import check_release

#: One workload per release: uncompressed on 3.3 (its snappy and libzstd are not reproduced), snappy on 3.5
#: (snappy-java 1.1.10 from 3.5), zstd on 3.7 (zstd-jni 1.5.6-4, libzstd 1.5.6, in 3.7.2).
WORKLOADS = {
    "3.3.2": "seed700-keyless-30records",
    "3.5.2": "seed1201-compressed-snappy-10keys-60records-batches5-x2",
    "3.7.2": "seed1203-compressed-zstd-10keys-60records-batches7-x2",
}


@pytest.fixture(scope="module", params=tuple(WORKLOADS), ids=lambda v: f"kafka-{v}")
def old_broker(request: pytest.FixtureRequest) -> Iterator[KafkaBroker]:
    require_java_and_maven()
    with KafkaBroker(request.param) as broker:
        yield broker


def test_an_old_release_refuses_the_configs_it_does_not_know(old_broker: KafkaBroker) -> None:
    """Issue 30's two refused workloads: compression levels arrived in 3.8 (KIP-390)."""
    levels = ["compression.gzip.level", "compression.lz4.level", "compression.zstd.level"]
    assert check_release(old_broker) == [*levels, "internal.segment.bytes"]


def test_an_old_release_cleans_as_predicted(old_broker: KafkaBroker, tmp_path) -> None:
    (workload,) = [w for w in catalog() if w.name == WORKLOADS[old_broker.version]]
    result = run_differential(old_broker, workload, tmp_path, topic="release-line")
    assert result.passes > 0
    assert result.mismatches == []
    assert result.log_files_identical


def test_the_matrix_covers_every_line_the_simulator_accepts_kraft_from_3_3() -> None:
    lines = {(major, minor) for major, minors in KNOWN_RELEASE_LINES.items() for minor in minors}
    assert [release_line(v) for v in MATRIX_RELEASES] == sorted(lines)
    assert [v for v in MATRIX_RELEASES if uses_kraft(v)] == list(KRAFT_RELEASES)
    assert all(release_line(v) >= (3, 3) for v in KRAFT_RELEASES)
