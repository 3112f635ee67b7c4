"""One Spark session for every Spark test (local[2], Kafka connector included), plus core references."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import reduce
from pathlib import Path

import pytest

pytest.importorskip("pyspark")

from pyspark.sql import DataFrame, SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

from kcompact_nb import PartitionLog  # noqa: E402
from kcompact_nb.core import (
    clean_pass,  # noqa: E402
    log_to_clean,  # noqa: E402
)
from kcompact_nb.core.cleaner._offset_map import ExactOffsetMap  # noqa: E402
from kcompact_nb.spark import (  # noqa: E402
    _segment_source,  # noqa: E402
    load_checkpoints,
    load_log_dir,
    load_segments,
    spark_session,
)
from tests.broker.conftest import require_java_and_maven  # noqa: E402
from tests.cli.test_kcat import JSON_OUTPUT, Z_FORMAT, Z_OUTPUT  # noqa: E402
from tests.spark.hdfs import MiniHdfs, start_hdfs  # noqa: E402

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "kafka"
SAMPLE_STAGES = sorted(p.parent for p in SAMPLES.glob("*/*/cleaner-offset-checkpoint"))


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """The shared session: local[2], 2 shuffle partitions, UTC, no UI, WARN logs, Kafka source jars."""
    require_java_and_maven()
    session = spark_session("local[2]", kafka=True, shuffle_partitions=2, app_name="kcompact-tests")
    yield session
    session.stop()


KCAT_FILES = {"json.out": (JSON_OUTPUT, None, False), "z.out": (Z_OUTPUT, Z_FORMAT, True)}
"""kcat output as Debian's kcat writes it (tests/cli/test_kcat.py): file name -> (bytes, ``-f`` format, ``-Z``)."""


@pytest.fixture(scope="session")
def hdfs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MiniHdfs]:
    """A real HDFS on 127.0.0.1 (tests/spark/hdfs.py) holding ``/kafka`` (the bundled log dirs, modification
    times kept) and ``/kcat`` (:data:`KCAT_FILES`)."""
    require_java_and_maven()
    scratch = tmp_path_factory.mktemp("hdfs")
    kcat = scratch / "kcat"
    kcat.mkdir()
    for name, (content, _, _) in KCAT_FILES.items():
        (kcat / name).write_bytes(content)
    cluster = start_hdfs(scratch)
    try:
        cluster.put(SAMPLES, kcat)
        yield cluster
    finally:
        cluster.stop()


@contextmanager
def source_hidden(spark: SparkSession) -> Iterator[SparkSession]:
    """``spark`` as a session without the JVM source while inside: the probe looks for a class no session has
    (a real DATA_SOURCE_NOT_FOUND from Spark), so loaders take their Python paths."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_segment_source, "SEGMENT_SOURCE_CLASS", "kcompact.spark.NoSuchSource")
        patch.setattr(_segment_source, "_PROBED", weakref.WeakKeyDictionary())
        yield spark


def stage_topic(stage: Path) -> str:
    """The topic a sample stage's one partition gets in :func:`samples_as_topics` (stages share topic names)."""
    return f"{stage.parent.name}/{stage.name}"


@pytest.fixture(scope="session")
def samples_as_topics(spark: SparkSession) -> Iterator[tuple[DataFrame, DataFrame, DataFrame]]:
    """Records (decoded once, cached), segments and checkpoints of every sample stage, one topic per stage."""

    def renamed(load: Callable[[SparkSession, Path], DataFrame]) -> DataFrame:
        frames = [load(spark, stage).withColumn("topic", F.lit(stage_topic(stage))) for stage in SAMPLE_STAGES]
        return reduce(DataFrame.unionByName, frames)

    records = renamed(load_log_dir).persist()
    yield records, renamed(load_segments), renamed(load_checkpoints)
    records.unpersist()


def core_full_pass(log: PartitionLog, now_ms: int) -> tuple[int, int]:
    """One pass of the core cleaner with an exact offset map; returns the range it cleaned."""
    ltc = log_to_clean(log, now_ms=now_ms)
    clean_pass(
        log,
        now_ms=now_ms,
        first_dirty_offset=ltc.first_dirty_offset,
        first_uncleanable_offset=ltc.first_uncleanable_offset,
        offset_map=ExactOffsetMap(),
    )
    return ltc.first_dirty_offset, ltc.first_uncleanable_offset
