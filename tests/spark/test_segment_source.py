"""The JVM segment-file source (kafka-clients in the executors) against the Python decoder: rows and errors.

The Python decoder is itself pinned to the io reader (test_segment_columns.py); here every bundled sample,
every batch kind, each corruption the io reader names and fuzzed segments must give the same Arrow table,
or fail with the same error class, file, byte position and (outside the record decoder) reason.
"""

from __future__ import annotations

import os
import re
import struct
import tempfile
import zipfile
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.record.util import calc_crc32c

from kcompact_nb import KcompactError
from kcompact_nb.spark import RECORD_SCHEMA, load_log_dir, session_settings
from kcompact_nb.spark._file_tasks import ARROW_SCHEMA
from kcompact_nb.spark._load_log_dir import decode_segment, segment_tasks
from kcompact_nb.spark._segment_source import SOURCE_JAR_PREFIX, SegmentSourceError, in_session, segment_source_jars
from tests.io.kafka_bytes import as_gzip, every_batch_kind, kafka_batch, marker_batch, rec, tree_digest, write_segments
from tests.io.test_io_fuzz import SEGMENT, with_fixed_crc
from tests.spark.conftest import SAMPLES, source_hidden

ERROR = re.compile(r"(?P<kind>\w+Error): (?P<file>/\S+): (?P<reason>.+?) \(at byte position (?P<position>\d+)\)")
RECORD_DECODER = "cannot decode the "
"""Reasons from the record decoders (kafka-clients vs kafka-python) differ in wording; class, file and
position must still agree."""


def python_table(root: Path) -> pa.Table:
    batches = [batch for task in segment_tasks(root) for batch in decode_segment(task)]
    return pa.Table.from_batches(batches, schema=ARROW_SCHEMA)


def jvm_table(spark, root: Path) -> pa.Table:
    return load_log_dir(spark, root, decoder="jvm").toArrow().cast(ARROW_SCHEMA)


def python_error(root: Path) -> dict[str, str]:
    with pytest.raises(KcompactError) as caught:
        python_table(root)
    error = caught.value
    return {"kind": type(error).__name__, "file": error.file, "reason": error.reason, "position": str(error.position)}


def jvm_error(spark, root: Path) -> dict[str, str]:
    with pytest.raises(Exception) as caught:  # noqa: PT011 - Spark wraps the executor's IOException
        jvm_table(spark, root)
    match = ERROR.search(str(caught.value))
    assert match, str(caught.value)[:2000]
    return match.groupdict()


def assert_same_error(got: dict[str, str], expected: dict[str, str]) -> None:
    if expected["reason"].startswith(RECORD_DECODER):
        assert got["reason"].startswith(RECORD_DECODER), got
        got, expected = {**got, "reason": ""}, {**expected, "reason": ""}
    assert got == expected


@pytest.mark.parametrize("stage", sorted(p.parent for p in SAMPLES.glob("*/*/*-[0-9]*/")), ids=str)
def test_bundled_samples_decode_as_the_python_decoder_does(spark, stage):
    before = tree_digest(stage)
    assert jvm_table(spark, stage).equals(python_table(stage))
    assert tree_digest(stage) == before  # read-only: bytes and mtimes unchanged


def test_every_batch_kind_decodes_as_the_python_decoder_does(spark, tmp_path):
    second = kafka_batch([rec(i, 5, b"k%d" % i, b"v") for i in range(200)], base_offset=214)
    write_segments(tmp_path / "t-3", {0: every_batch_kind(), 214: [second]})
    got = jvm_table(spark, tmp_path)
    assert got.num_rows == 209 + 200
    assert got.equals(python_table(tmp_path))
    assert got.column("segment_base_offset").to_pylist() == [0] * 209 + [214] * 200


def with_crc(batch: bytearray) -> bytes:
    struct.pack_into(">I", batch, 17, calc_crc32c(memoryview(batch)[21:]))
    return bytes(batch)


def patched(batch: bytes, fmt: str, position: int, value: int, *, fix_crc: bool = True) -> bytes:
    out = bytearray(batch)
    struct.pack_into(fmt, out, position, value)
    return with_crc(out) if fix_crc else bytes(out)


ONE = kafka_batch([rec(0, 1, b"k", b"value")], base_offset=0)
TWO = kafka_batch([rec(0, 2, b"k", b"value"), rec(1, 3, b"j", b"value")], base_offset=1)
CORRUPTIONS = {
    "crc": [ONE, patched(TWO, ">b", 70, 0x21, fix_crc=False)],
    "trailing bytes": [ONE, TWO, b"\0" * 7],
    "truncated batch": [ONE, TWO[:-4]],
    "short length": [ONE, patched(TWO, ">i", 8, 30, fix_crc=False)],
    "legacy magic": [ONE, patched(TWO, ">b", 16, 1, fix_crc=False)],
    "not a segment": [b"this is a text file, not a segment file at all\n"],
    "offsets backwards": [TWO, patched(ONE, ">q", 0, 1, fix_crc=False)],
    "negative last delta": [ONE, patched(TWO, ">i", 23, -1)],
    "last offset at Long.MAX_VALUE": [ONE, patched(TWO, ">q", 0, 2**63 - 2, fix_crc=False)],
    "negative count": [ONE, patched(TWO, ">i", 57, -2)],
    "unknown codec": [ONE, patched(TWO, ">h", 21, 6)],
    "count above records": [ONE, patched(TWO, ">i", 57, 3)],
    "record length": [ONE, patched(TWO, ">b", 61, TWO[61] + 2)],
    "records out of order": [ONE, kafka_batch([rec(1, 2, b"k", b"v"), rec(0, 3, b"j", b"v")], base_offset=1)],
    "gzip garbage": [ONE, patched(kafka_batch([rec(0, 2, b"k", b"v" * 50)], base_offset=1, codec="gzip"), ">q", 64, 7)],
}


@pytest.mark.parametrize("case", CORRUPTIONS)
def test_corrupt_segments_fail_with_the_io_readers_error(spark, tmp_path, case):
    write_segments(tmp_path / "t-0", {0: CORRUPTIONS[case]})
    expected = python_error(tmp_path)
    assert_same_error(jvm_error(spark, tmp_path), expected)


def test_a_batch_reaching_the_next_segment_fails_naming_both_offsets(spark, tmp_path):
    write_segments(tmp_path / "t-0", {0: [ONE, TWO], 2: [marker_batch(2, 1, 0, commit=True, ts=5)]})
    expected = python_error(tmp_path)
    assert expected["reason"] == "batch last offset 2 reaches the next segment's base offset 2"
    assert_same_error(jvm_error(spark, tmp_path), expected)


@settings(
    max_examples=int(os.environ.get("KCOMPACT_FUZZ_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.lists(st.tuples(st.integers(0, len(SEGMENT) - 1), st.integers(0, 255)), min_size=1, max_size=4), st.booleans()
)
def test_mutated_segments_decode_or_fail_alike(spark, mutations, fix_crc):
    data = bytearray(SEGMENT)
    for position, value in mutations:
        data[position] = value
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_segments(root / "t-0", {0: [with_fixed_crc(bytes(data)) if fix_crc else bytes(data)]})
        try:
            expected = python_table(root)
        except KcompactError:
            assert_same_error(jvm_error(spark, root), python_error(root))
        else:
            assert jvm_table(spark, root).equals(expected)


def test_the_shared_session_decodes_in_the_jvm_and_any_session_can_use_python(spark, tmp_path):
    assert in_session(spark)
    write_segments(tmp_path / "t-0", {0: [ONE]})
    jvm = load_log_dir(spark, tmp_path)
    assert jvm.schema == RECORD_SCHEMA  # the Java source declares the same schema as kcompact_nb.spark
    assert "SegmentFileSource" in jvm._jdf.queryExecution().toString()
    assert "mapInArrow" in load_log_dir(spark, tmp_path, decoder="python")._jdf.queryExecution().toString().replace(
        "MapInArrow", "mapInArrow"
    )
    with pytest.raises(ValueError, match=r"decoder must be one of \('auto', 'jvm', 'python'\), not 'rust'"):
        load_log_dir(spark, tmp_path, decoder="rust")


def test_a_session_without_the_source_gets_python_or_a_clear_error(spark, tmp_path):
    write_segments(tmp_path / "t-0", {0: [ONE]})
    with source_hidden(spark) as without:
        assert not in_session(without)
        with pytest.raises(
            SegmentSourceError,
            match=r"^this session has no JVM segment-file source: start it with kcompact_nb.spark.spark_session",
        ):
            load_log_dir(without, tmp_path, decoder="jvm")
        auto = load_log_dir(without, tmp_path)
    assert "SegmentFileSource" not in auto._jdf.queryExecution().toString()
    assert auto.toArrow().cast(ARROW_SCHEMA).equals(python_table(tmp_path))


def test_session_settings_add_the_source_after_the_callers_jars():
    jars = session_settings(environ={}, config={"spark.jars": "/opt/mine.jar"}).conf["spark.jars"].split(",")
    assert jars == ["/opt/mine.jar", *map(str, segment_source_jars())]
    assert "spark.jars" not in session_settings(environ={}, segment_source=False).conf
    assert "spark.jars" not in session_settings(environ={"SPARK_REMOTE": "sc://host:15002"}).conf


def test_the_source_is_built_once_per_source_and_versions(tmp_path, monkeypatch):
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path))
    jar, clients = segment_source_jars.__wrapped__()
    assert (
        jar.parent == tmp_path and jar.name.startswith(SOURCE_JAR_PREFIX) and clients.name.startswith("kafka-clients-")
    )
    with zipfile.ZipFile(jar) as archive:
        assert {n for n in archive.namelist() if "$" not in n} == {
            f"kcompact/spark/{name}.class"
            for name in ("SegmentFileSource", "SegmentFile", "SegmentReader", "SegmentRows", "LogDir", "WholeFiles")
        }
    built = jar.stat().st_mtime_ns
    assert segment_source_jars.__wrapped__() == (jar, clients) and jar.stat().st_mtime_ns == built
    assert [p.name for p in tmp_path.iterdir()] == [jar.name]  # no leftovers of the build


def test_without_javac_the_build_names_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SegmentSourceError, match=r"no 'javac' \(a JDK 17 or newer\) on PATH or in \$JAVA_HOME/bin"):
        segment_source_jars.__wrapped__()


LENIENT = {
    # GZIPInputStream.readTrailer ignores what follows a member's trailer unless it is a gzip header
    "bytes after the gzip member": as_gzip(ONE, trailing=b"not gzip at all"),
    "concatenated gzip members": as_gzip(TWO, members=2),
    # DefaultRecord.readHeaders: Utils.utf8 reads invalid UTF-8 in a header key as U+FFFD
    "header key not UTF-8": with_crc(
        bytearray(
            kafka_batch([rec(0, 1, b"k", b"v", headers=[("\u00e9", b"x")])], base_offset=0).replace(
                "\u00e9".encode(), b"\xff\xa9"
            )
        )
    ),
}


@pytest.mark.parametrize("case", LENIENT)
def test_what_kafka_reads_leniently_both_decoders_read_alike(spark, tmp_path, case):
    write_segments(tmp_path / "t-0", {0: [LENIENT[case]]})
    expected = python_table(tmp_path)
    assert expected.num_rows >= 1
    assert jvm_table(spark, tmp_path).equals(expected)
