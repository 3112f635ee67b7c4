"""Compressed batches byte for byte against Kafka's own ``MemoryRecordsBuilder`` (kafka-clients 4.4.0 and 3.9.2;
3.7.2, 3.5.2, 3.3.2 and 2.0.1 at the default levels, the only ones before KIP-390; every release line from 2.0 with
``KCOMPACT_ORACLE_VERSIONS=all``, as ``make matrix`` runs it).

``kafka_oracle/BatchOracle.java`` rebuilds each batch of a file as the cleaner does
(``MemoryRecords.buildRetainedRecordsInto``: the batch's fields, its records, its last offset) with a codec
and level; the project's encoder must give the same bytes wherever it claims exactness, and never claim it
where it cannot (zstd hangs on the libzstd release, snappy on the snappy release: see
``kcompact_nb.record._codec_releases``; lz4's HC levels 1-2 hang on the lz4 release too, and both lz4 1.9 and 1.10
are reproduced once ``make codecs`` built lz4 1.10). ``kafka_oracle/BatchOracleBefore38.java`` is the same
rebuild with the API of kafka-clients before 3.8 (a ``CompressionType``, no levels).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from kcompact_nb.broker import DEFAULT_VERSION, KAFKA_3_VERSION, MATRIX_RELEASES, resolve_classpath
from kcompact_nb.core import KafkaVersion, Record, RecordBatch
from kcompact_nb.core.cleaner._filter_to import rebuild_batch
from kcompact_nb.io import iter_segment_batches
from kcompact_nb.record import LIBLZ4_RELEASE, _native_kernels, encode_batch, liblz4_built
from kcompact_nb.record._batch_encoder import KafkaBatchEncoder
from kcompact_nb.record._codec_releases import lz4_release, snappy_release, zstd_release
from kcompact_nb.record._compression import _zstd_bindings
from tests.broker.conftest import require_java_and_maven

ORACLE_SOURCE = Path(__file__).parent / "kafka_oracle" / "BatchOracle.java"
ORACLE_BEFORE_38_SOURCE = ORACLE_SOURCE.with_name("BatchOracleBefore38.java")
#: kafka-clients releases compared: the two CI brokers, and older lines with other codec libraries (libzstd 1.5.5 and
#: 1.5.2, snappy 1.1.8 and 1.1.7); every release line with ``KCOMPACT_ORACLE_VERSIONS=all`` (a nightly-style run).
ORACLE_VERSIONS = (
    MATRIX_RELEASES
    if os.environ.get("KCOMPACT_ORACLE_VERSIONS") == "all"
    else (DEFAULT_VERSION, KAFKA_3_VERSION, "3.7.2", "3.5.2", "3.3.2", "2.0.1")
)
CASES = [
    ("gzip", None), ("snappy", None), ("lz4", None), ("zstd", None),
    ("gzip", 1), ("gzip", 9), ("lz4", 1), ("lz4", 2), ("lz4", 3), ("lz4", 12), ("lz4", 17),
    ("zstd", -5), ("zstd", 1), ("zstd", 10), ("zstd", 19),
]  # fmt: skip


def _has_levels(version: str) -> bool:
    """Compression levels are configs from Kafka 3.8 on (KIP-390): older kafka-clients compress at defaults only."""
    return KafkaVersion.parse(version) >= KafkaVersion(3, 8)


ORACLE_CASES = [
    pytest.param(version, codec, level, id=f"kafka-{version}-{codec}-{'default' if level is None else level}")
    for version in ORACLE_VERSIONS
    for codec, level in CASES
    if (level is None or _has_levels(version)) and (codec != "zstd" or zstd_release(KafkaVersion.parse(version)))
]
"""Every (release, codec, level) a release can be asked for: no level before 3.8, no zstd before 2.1 (KIP-110)."""


@pytest.fixture(scope="module")
def oracle(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[str]]:
    """The Kafka version and the ``java`` command line that runs BatchOracle against its kafka-clients."""
    require_java_and_maven()
    if shutil.which("javac") is None:
        pytest.skip("the Kafka compression oracle is compiled with javac (a JDK 17), which is not on PATH")
    version = request.param
    classpath = f"{resolve_classpath(version)}/*"
    build = tmp_path_factory.mktemp(f"oracle-{version}")
    if not _has_levels(version):
        subprocess.run(["javac", "-cp", classpath, "-d", str(build), str(ORACLE_BEFORE_38_SOURCE)], check=True)
        return version, ["java", "-cp", f"{classpath}:{build}", "BatchOracleBefore38"]
    release = KafkaVersion.parse(version)  # the record classes moved to .internal in 4.3, the buffer stream in 4.4
    source = (
        ORACLE_SOURCE.read_text()
        .replace(
            "RECORDS_PACKAGE",
            "org.apache.kafka.common.record.internal"
            if release >= KafkaVersion(4, 3)
            else "org.apache.kafka.common.record",
        )
        .replace(
            "BUFFER_STREAM_CLASS",
            "org.apache.kafka.common.utils.internals.ByteBufferOutputStream"
            if release >= KafkaVersion(4, 4)
            else "org.apache.kafka.common.utils.ByteBufferOutputStream",
        )
    )
    (build / "BatchOracle.java").write_text(source)
    subprocess.run(["javac", "-cp", classpath, "-d", str(build), str(build / "BatchOracle.java")], check=True)
    return version, ["java", "-cp", f"{classpath}:{build}", "BatchOracle"]


def sample_batches(seed: int) -> list[RecordBatch]:
    """Batches of every shape the encoders branch on: 1 to 3,000 records (one block to several), text-like,
    random and repetitive values, null keys and values, headers, LogAppendTime, delete horizons, producers."""
    rng = random.Random(seed)
    words = [
        bytes(rng.choice(b'abcdefghijklmnop0123456789-_:{}"') for _ in range(rng.randint(2, 14))) for _ in range(80)
    ]
    values = {
        "text": lambda: b" ".join(rng.choice(words) for _ in range(rng.randint(0, 60))),
        "random": lambda: rng.randbytes(rng.randint(0, 400)),
        "runs": lambda: bytes([rng.randrange(4)]) * rng.randint(0, 300),
    }
    batches, offset = [], 0
    for index in range(36):
        kind = ("text", "random", "runs")[index % 3]
        count = rng.choice([1, 2, 5, 20, 100, 400, 1500, 3000])
        stamp = 1_767_225_600_000 + rng.randint(0, 10**6)
        records = [
            Record(
                offset + i,
                stamp + rng.randint(-5, 500),
                None if rng.random() < 0.05 else f"key-{rng.randint(0, 50)}".encode(),
                None if rng.random() < 0.05 else values[kind](),
                (("h", b"v"),) if rng.random() < 0.1 else (),
            )
            for i in range(count)
        ]
        producer = {"producer_id": 1000, "producer_epoch": 2, "base_sequence": 7, "is_transactional": index % 2 == 0}
        batch = RecordBatch.build(
            records,
            last_offset=offset + count - 1 + rng.choice([0, 0, 3]),
            delete_horizon_ms=stamp + 86_400_000 if index % 5 == 0 else None,
            log_append_time_ms=stamp + 999 if index % 4 == 1 else None,
            partition_leader_epoch=index % 3,
            **(producer if index % 3 == 2 else {}),
        )
        batches.append(batch)
        offset = batch.last_offset + 1
    return batches


def kafka_rebuilt(command: list[str], source: Path, target: Path, codec: str, level: int | None) -> list[bytes]:
    """Kafka's rebuilt batches, one bytes object each."""
    subprocess.run(
        [*command, str(source), str(target), codec, *([] if level is None else [str(level)])],
        check=True,
        capture_output=True,
    )
    data, batches, position = target.read_bytes(), [], 0
    while position < len(data):
        size = int.from_bytes(data[position + 8 : position + 12], "big") + 12
        batches.append(data[position : position + size])
        position += size
    return batches


@pytest.mark.parametrize(("oracle", "codec", "level"), ORACLE_CASES, indirect=["oracle"])
def test_compressed_batches_equal_kafkas_wherever_claimed_exact(oracle, tmp_path, codec, level):
    version, command = oracle
    if codec == "lz4" and level in (1, 2) and lz4_release(KafkaVersion.parse(version)) == LIBLZ4_RELEASE[:2]:
        assert liblz4_built(), f"Kafka {version}'s lz4 {'.'.join(map(str, LIBLZ4_RELEASE))} is not built: make codecs"
    source = tmp_path / "00000000000000000000.log"
    source.write_bytes(b"".join(encode_batch(b) for b in sample_batches(seed=16)))
    expected = kafka_rebuilt(command, source, tmp_path / "kafka.log", codec, level)
    in_c, in_python = read_on_both_kernels(tmp_path / "kafka.log")  # Kafka's framing read back
    assert in_c == in_python
    assert without_timestamps(in_c) == without_timestamps(records_of(source))  # LogAppendTime rebuilds stamp records
    encoder = KafkaBatchEncoder()
    exact = mismatched = 0
    horizons = KafkaVersion.parse(version) >= KafkaVersion(3, 1)  # KIP-534: no delete horizon in batches before
    for batch, kafka_bytes in zip(iter_segment_batches(source), expected, strict=True):
        horizon = batch.delete_horizon_ms if horizons else None
        ours = rebuild_batch(batch, list(batch.records), delete_horizon_ms=horizon)
        encoded = encoder.encode(
            replace(ours, compression=codec), level=level, kafka_version=KafkaVersion.parse(version)
        )
        if not encoded.estimated:
            exact += 1
            assert encoded.data == kafka_bytes, (
                f"batch at {batch.base_offset}: {len(encoded.data)} vs {len(kafka_bytes)} bytes"
            )
        else:
            mismatched += encoded.data != kafka_bytes
    assert exact == len(expected) or may_be_estimated(codec, level, KafkaVersion.parse(version))
    assert exact == len(expected) or mismatched > 0  # an estimate that always matched would be a wrong claim


@pytest.mark.parametrize("oracle", ORACLE_VERSIONS, indirect=True, ids=lambda v: f"kafka-{v}")
def test_snappy_batches_equal_kafkas_from_the_python_compressor_too(oracle, tmp_path, monkeypatch):
    """snappy runs in C where the kernels were built (the test above); its Python twin gives Kafka's bytes too."""
    monkeypatch.setattr(_native_kernels, "NATIVE", None)
    test_compressed_batches_equal_kafkas_wherever_claimed_exact(oracle, tmp_path, "snappy", None)


def records_of(path: Path) -> list[list[tuple[object, ...]]]:
    """Every record of every batch of a segment file, as fields."""
    return [[(r.offset, r.timestamp, r.key, r.value, r.headers) for r in b.records] for b in iter_segment_batches(path)]


def without_timestamps(batches: list[list[tuple[object, ...]]]) -> list[list[tuple[object, ...]]]:
    return [[(offset, *rest) for offset, _, *rest in records] for records in batches]


def read_on_both_kernels(path: Path) -> list[list[list[tuple[object, ...]]]]:
    """:func:`records_of` read with the C kernels (compressed batches decompressed in C where they were built) and
    with their Python twins (the codecs' Python packages)."""
    built = _native_kernels.NATIVE
    try:
        readings = [records_of(path)]
        _native_kernels.NATIVE = None
        return [*readings, records_of(path)]
    finally:
        _native_kernels.NATIVE = built


def may_be_estimated(codec: str, level: int | None, version: KafkaVersion) -> bool:
    """Where the installed native library is not the release Kafka bundles: zstd before ``make codecs``, snappy.

    lz4's HC levels 1-2 never are: lz4 1.9 is the ``lz4`` binding's, lz4 1.10 the one ``make codecs`` builds (the
    test fails, saying so, where it was not built)."""
    if codec == "snappy":
        return snappy_release(version) != (1, 1, 10)
    if codec == "zstd":
        return all(release != zstd_release(version) for release, _ in _zstd_bindings())
    return False
