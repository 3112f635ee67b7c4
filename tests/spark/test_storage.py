"""Where loaders read: local paths (absolute before Spark sees them) and Hadoop URLs through the JVM source.

The JVM source lists log dirs and reads files through Hadoop's filesystem API (``LogDir.java``); sessions
without it list local paths in Python (``segment_tasks``). Both must see the same segments, checkpoints and
errors; ``file://`` URLs exercise the Hadoop route end to end (a real HDFS: test_hadoop_stores.py).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from kcompact_nb.spark import (
    RECORD_COLUMNS,
    StorageError,
    load_checkpoints,
    load_dump_log,
    load_jsonl,
    load_kcat,
    load_log_dir,
    load_parquet,
    load_segments,
)
from kcompact_nb.spark._storage import storage_location
from tests.io.kafka_bytes import kafka_batch, rec, tree_digest, write_segments
from tests.spark.conftest import SAMPLES, source_hidden

TXN = SAMPLES / "transactional" / "before"
ORDER = ["topic", "partition", "offset"]


def rows(df):
    return [tuple(r) for r in df.orderBy(*[c for c in ORDER if c in df.columns] or df.columns).collect()]


def batch(base: int, count: int = 2) -> bytes:
    return kafka_batch([rec(i, 1_000 + i, b"k%d" % i, b"v") for i in range(count)], base_offset=base)


@pytest.fixture
def odd_log_dir(tmp_path: Path) -> Path:
    """A log dir with what listings must keep (hidden partition dirs) and skip (anything else)."""
    root = tmp_path / "logs"
    write_segments(root / "__consumer_offsets-0", {0: [batch(0)]})
    write_segments(root / ".hidden-2", {0: [batch(0, 1)]})
    write_segments(root / "t-1", {0: [batch(0)], 5: [batch(5, 3)]})
    (root / "t-1" / "00000000000000000009.log").mkdir()  # a directory named like a segment
    (root / "t-1" / "abc.log").write_bytes(batch(0))
    (root / "t-1" / "0000000000000000000.log").write_bytes(batch(0))  # 19 digits
    write_segments(root / "t-3.0123abcd-delete", {0: [batch(0)]})
    write_segments(root / "notapartition", {0: [batch(0)]})
    write_segments(root / "t-99999999999", {0: [batch(0)]})  # beyond Kafka's 32-bit partition numbers
    (root / "t-4").write_bytes(b"a file named like a partition")
    (root / "cleaner-offset-checkpoint").write_text("0\n2\nt 1 5\n__consumer_offsets 0 2\n")
    return root


def test_local_paths_become_absolute_file_urls_and_urls_stay_as_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert storage_location("logs/../data x") == storage_location(tmp_path / "data x")
    assert (
        storage_location("data x").url == f"file:{tmp_path}/data x"
        and storage_location("data x").local == tmp_path / "data x"
    )
    for url in (f"file://{tmp_path}", f"file:{tmp_path}", f"file://localhost{tmp_path}"):
        assert storage_location(url).local == tmp_path and storage_location(url).url == url
    assert storage_location("hdfs://namenode:8020/kafka").local is None
    assert storage_location("file://otherhost/kafka").local is None  # another machine's disk
    assert storage_location(Path("s3a:/odd-name")).url == f"file:{tmp_path}/s3a:/odd-name"  # a Path is never a URL


def test_file_urls_and_relative_paths_load_as_local_paths_do(spark, monkeypatch):
    before = tree_digest(TXN)
    expected = [rows(load(spark, TXN)) for load in (load_log_dir, load_segments, load_checkpoints)]
    monkeypatch.chdir(SAMPLES)
    for path in (f"file://{TXN}", f"file:{TXN}/", "transactional/before", "./transactional/../transactional/before"):
        assert [rows(load(spark, path)) for load in (load_log_dir, load_segments, load_checkpoints)] == expected, path
    assert tree_digest(TXN) == before


def test_text_and_table_loaders_take_file_urls(spark, tmp_path):
    dump, jsonl = TXN / "dump.txt", TXN / "records.jsonl"
    hidden = tmp_path / "_dump.txt"  # Spark's own file sources would skip a name starting with _
    shutil.copy(dump, hidden)
    expected = rows(load_dump_log(spark, dump, topic="txn", partition=0))
    assert rows(load_dump_log(spark, f"file://{dump}", topic="txn", partition=0)) == expected
    both = rows(load_dump_log(spark, [f"file://{hidden}", dump], topic="txn", partition=0))
    assert sorted(both, key=repr) == sorted(expected * 2, key=repr)
    assert rows(load_jsonl(spark, f"file://{jsonl}")) == rows(load_jsonl(spark, jsonl))
    load_log_dir(spark, TXN).write.parquet(str(tmp_path / "t.parquet"))
    assert rows(load_parquet(spark, f"file://{tmp_path}/t.parquet")) == rows(load_log_dir(spark, TXN))
    (tmp_path / "k.json").write_text(
        '{"topic":"t","partition":1,"offset":5,"tstype":"create","ts":1000,"broker":1,"key":"a","payload":"1"}\n'
    )
    assert rows(load_kcat(spark, f"file://{tmp_path}/k.json", topic="t")) == rows(
        load_kcat(spark, tmp_path / "k.json", topic="t")
    )


def test_a_file_url_read_by_the_jvm_fails_as_the_local_file_does(spark, tmp_path):
    (tmp_path / "bad.txt").write_text("Dumping x.log\nStarting offset: 0\nthis is not a dump line\n")
    messages = []
    for path in (tmp_path / "bad.txt", f"file://{tmp_path}/bad.txt"):
        with pytest.raises(Exception) as caught:  # noqa: PT011 - Spark wraps the worker's DumpParseError
            load_dump_log(spark, path, topic="t", partition=0).count()
        messages.append(re.search(r"DumpParseError: (.+\(at line \d+\))", str(caught.value))[1])
    assert messages[0] == messages[1] and messages[0].startswith(f"{tmp_path}/bad.txt: ")


def test_jvm_and_python_listings_keep_and_skip_the_same_entries(spark, odd_log_dir):
    with_jvm = rows(load_segments(spark, odd_log_dir))
    assert [r[:3] for r in with_jvm] == [(".hidden", 2, 0), ("__consumer_offsets", 0, 0), ("t", 1, 0), ("t", 1, 5)]
    jvm_records = rows(load_log_dir(spark, odd_log_dir, decoder="jvm"))
    jvm_topics = rows(load_segments(spark, odd_log_dir, topics=["t", "__consumer_offsets"]))
    jvm_checkpoints = rows(load_checkpoints(spark, odd_log_dir))
    assert jvm_checkpoints == [("__consumer_offsets", 0, 2, None), ("t", 1, 5, None)]
    assert len(jvm_records) == 2 + 1 + 2 + 3
    with source_hidden(spark) as python:
        assert rows(load_segments(python, odd_log_dir)) == with_jvm
        assert rows(load_log_dir(python, odd_log_dir)) == jvm_records
        assert (
            rows(load_segments(python, odd_log_dir, topics=["t", "__consumer_offsets"])) == jvm_topics == with_jvm[1:]
        )
        assert rows(load_checkpoints(python, odd_log_dir)) == jvm_checkpoints


@pytest.mark.parametrize("case", ["missing", "file", "offset beyond 2^63-1", "bad checkpoint", "binary checkpoint"])
def test_jvm_and_python_listings_fail_alike(spark, tmp_path, case):
    root = tmp_path / "logs"
    if case == "file":
        root.write_text("not a folder")
    elif case == "offset beyond 2^63-1":
        write_segments(root / "t-0", {0: [batch(0)]})
        (root / "t-0" / "99999999999999999999.log").write_bytes(batch(0))
    elif case != "missing":
        write_segments(root / "t-0", {0: [batch(0)]})
        content = b"0\n2\nt 0 5\n" if case == "bad checkpoint" else b"0\n1\nt 0 \xff\n"
        (root / "cleaner-offset-checkpoint").write_bytes(content)
    loads = {
        "missing": [load_log_dir, load_segments, load_checkpoints],
        "file": [load_log_dir, load_segments, load_checkpoints],
    }.get(case, [load_checkpoints] if "checkpoint" in case else [load_log_dir, load_segments])
    for load in loads:
        errors = [failure(load, spark, root)]
        with source_hidden(spark) as python:
            errors.append(failure(load, python, root))
        assert errors[0] == errors[1], (load.__name__, errors)
    expected = {
        "missing": f"NotASegmentError: {root}: not a log directory: it does not exist",
        "file": f"NotASegmentError: {root}: not a log directory: it is a file",
        "offset beyond 2^63-1": f"NotASegmentError: {root}/t-0/99999999999999999999.log: the offset in the file name, "
        "99999999999999999999, is beyond 9223372036854775807, the largest offset (Long.MAX_VALUE)",
        "bad checkpoint": (
            f"CheckpointFormatError: {root}/cleaner-offset-checkpoint: expected 2 entries but found 1 (at line 3)"
        ),
        "binary checkpoint": (
            f"CheckpointFormatError: {root}/cleaner-offset-checkpoint: not a text checkpoint file (at byte position 8)"
        ),
    }[case]
    assert ": ".join(errors[0]) == expected


def failure(load, session, root) -> tuple[str, str]:
    with pytest.raises(Exception) as caught:  # noqa: PT011 - the io layer's errors, from either listing
        rows(load(session, root))
    return type(caught.value).__name__, str(caught.value)


def test_urls_need_the_jvm_source_and_say_so(spark, tmp_path):
    url = "hdfs://namenode:8020/kafka-logs"
    with pytest.raises(
        StorageError, match=r"^hdfs://namenode:8020/kafka-logs: decoder='python' opens segment files in Python workers"
    ):
        load_log_dir(spark, url, decoder="python")
    with source_hidden(spark) as python:
        for load in (load_log_dir, load_segments, load_checkpoints):
            with pytest.raises(
                StorageError,
                match="Hadoop filesystem URLs are read by the JVM segment-file source, and this session has no",
            ):
                load(python, url)
        with pytest.raises(StorageError, match=r"^hdfs://namenode:8020/kafka-logs: Hadoop filesystem URLs are read by"):
            load_kcat(python, [tmp_path / "k.json", url], topic="t")


def test_topics_with_commas_are_refused(spark):
    with pytest.raises(ValueError, match="topic names never contain ','"):
        load_log_dir(spark, TXN, topics=["a,b"])


def test_the_jvm_records_of_a_listing_have_the_record_schema(spark, odd_log_dir):
    df = load_log_dir(spark, f"file://{odd_log_dir}", topics=["__consumer_offsets"])
    assert df.columns == list(RECORD_COLUMNS)
    assert df.select("topic", "partition", "offset").agg(F.count("*")).first()[0] == 2
