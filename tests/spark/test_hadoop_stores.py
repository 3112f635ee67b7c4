"""The loaders on a real HDFS (tests/spark/hdfs.py): ``hdfs://`` URLs give the rows of the local copies.

The session fixture ``hdfs`` runs Hadoop's MiniDFSCluster on 127.0.0.1 and puts the bundled log dirs in it
with ``hdfs dfs -put -p`` (modification times kept, so segment listings match to the millisecond). Every
loader that takes URLs reads them through the JVM segment-file source's Hadoop filesystem calls: log dirs
listed and checkpoints read on the driver, segments and text files opened in the executors.

Not tested: ``s3a://``. Hadoop's S3A client is not in the pyspark wheel (``hadoop-aws`` needs the AWS SDK v2
bundle, about 500 MiB), and no S3-compatible server runs here; S3A goes through the same filesystem calls.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from kcompact_nb.io import NotASegmentError
from kcompact_nb.spark import (
    StorageError,
    load_checkpoints,
    load_dump_log,
    load_jsonl,
    load_kcat,
    load_log_dir,
    load_segments,
)
from tests.spark.conftest import KCAT_FILES, SAMPLE_STAGES, SAMPLES, stage_topic
from tests.spark.engine_workload import collected
from tests.spark.engines import free_port
from tests.spark.hdfs import MiniHdfs


def on_hdfs(hdfs: MiniHdfs, local: Path) -> str:
    """The URL of a bundled file or folder in the cluster's copy, ``hdfs://127.0.0.1:<port>/kafka/...``."""
    return f"{hdfs.url}/kafka/{local.relative_to(SAMPLES).as_posix()}"


def per_stage(
    spark: SparkSession, load: Callable[..., DataFrame], where: Callable[[Path], str | Path], **options: object
) -> DataFrame:
    """Every sample stage loaded from ``where(stage)``, one topic per stage (as conftest's samples_as_topics)."""
    frames = [
        load(spark, where(stage), **options).withColumn("topic", F.lit(stage_topic(stage))) for stage in SAMPLE_STAGES
    ]
    return reduce(DataFrame.unionByName, frames)


def test_log_dirs_on_hdfs_load_as_their_local_copies(spark, hdfs, samples_as_topics):
    local = [collected(df) for df in samples_as_topics]
    assert all(local) and len(local[0]) > 100  # records, segments and checkpoints of 17 stages
    on_cluster = [
        per_stage(spark, load, lambda stage: on_hdfs(hdfs, stage))
        for load in (load_log_dir, load_segments, load_checkpoints)
    ]
    assert [collected(df) for df in on_cluster] == local


def test_a_topic_filter_verify_crc_and_the_jvm_decoder_apply_on_hdfs(spark, hdfs):
    stage = SAMPLES / "transactional" / "before"
    for options in ({"topics": ["txn"]}, {"topics": ["other"]}, {"verify_crc": False}, {"decoder": "jvm"}):
        assert collected(load_log_dir(spark, on_hdfs(hdfs, stage), **options)) == collected(
            load_log_dir(spark, stage, **options)
        ), options
    assert collected(load_segments(spark, on_hdfs(hdfs, stage), topics=["other"])) == []


TEXT_STAGES = [
    SAMPLES / name for name in ("transactional/before", "compressed-topic/before", "tombstone-lifecycle/1-first-pass")
]
"""Dumps with transaction markers, compressed batches and tombstones (each file is one task in a Python worker)."""


def test_dumps_on_hdfs_load_as_their_local_copies(spark, hdfs):
    dumps = [stage / "dump.txt" for stage in TEXT_STAGES]
    local = collected(load_dump_log(spark, dumps, topic="dump", partition=0))
    assert len(local) > 30
    assert collected(load_dump_log(spark, [on_hdfs(hdfs, dump) for dump in dumps], topic="dump", partition=0)) == local
    mixed = [dumps[0], *(on_hdfs(hdfs, dump) for dump in dumps[1:])]  # any URL: the JVM source reads them all
    assert collected(load_dump_log(spark, mixed, topic="dump", partition=0)) == local


def test_kcat_output_and_jsonl_on_hdfs_load_as_their_local_copies(spark, hdfs, tmp_path):
    for name, (content, kcat_format, print_nulls) in KCAT_FILES.items():
        (tmp_path / name).write_bytes(content)
        options = {"topic": "t", "kcat_format": kcat_format, "print_nulls": print_nulls}
        expected = collected(load_kcat(spark, tmp_path / name, **options))
        assert expected and collected(load_kcat(spark, f"{hdfs.url}/kcat/{name}", **options)) == expected, name
    jsonl = TEXT_STAGES[0] / "records.jsonl"
    assert collected(load_jsonl(spark, on_hdfs(hdfs, jsonl))) == collected(load_jsonl(spark, jsonl))


def test_a_missing_log_dir_on_hdfs_fails_as_a_missing_local_one(spark, hdfs, tmp_path):
    cases = {
        "it does not exist": (f"{hdfs.url}/kafka/no-such-dir", tmp_path / "no-such-dir"),
        "it is a file": (on_hdfs(hdfs, SAMPLE_STAGES[0] / "dump.txt"), SAMPLE_STAGES[0] / "dump.txt"),
    }
    for reason, (url, local) in cases.items():
        for load in (load_log_dir, load_segments, load_checkpoints):
            assert failure(load, spark, url) == f"{url}: not a log directory: {reason}", load.__name__
            assert failure(load, spark, local) == f"{local}: not a log directory: {reason}", load.__name__


def failure(load: Callable[..., DataFrame], spark: SparkSession, where: str | Path) -> str:
    with pytest.raises(NotASegmentError) as caught:
        load(spark, where).collect()
    return str(caught.value)


def test_a_missing_text_file_behind_a_url_is_named_before_any_task_runs(spark, hdfs, tmp_path):
    """Not left to the task reading it.

    That task's failure, feeding the Python worker, reads 'Python worker exited unexpectedly'.
    """
    on_cluster, on_disk = f"{hdfs.url}/kcat/no-such-file.json", tmp_path / "no-such-file.json"
    for url, name in ((on_cluster, on_cluster), (f"file://{on_disk}", str(on_disk))):  # errors name local files by path
        with pytest.raises(FileNotFoundError) as caught:
            load_kcat(spark, [f"{hdfs.url}/kcat/json.out", url], topic="t")
        assert (caught.value.filename, str(caught.value)) == (name, f"[Errno 2] No such file or directory: '{name}'")
    with pytest.raises(IsADirectoryError, match=rf"^\[Errno 21\] Is a directory: '{hdfs.url}/kafka'$"):
        load_dump_log(spark, f"{hdfs.url}/kafka", topic="t", partition=0)


def test_hdfs_urls_need_the_jvm_decoder_and_a_namenode_that_answers(spark, hdfs):
    stage = on_hdfs(hdfs, SAMPLE_STAGES[0])
    with pytest.raises(
        StorageError, match=rf"^{stage}: decoder='python' opens segment files in Python workers, so only local paths"
    ):
        load_log_dir(spark, stage, decoder="python")
    nobody = f"hdfs://127.0.0.1:{free_port()}/kafka"
    with pytest.raises(
        Exception,
        match=r"to [\w.-]+:\d+ failed on connection exception: java\.net\.ConnectException: Connection refused",
    ):  # noqa: PT011 - Hadoop's own error, through Py4J
        load_segments(spark, nobody)
