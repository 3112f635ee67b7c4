"""The JVM segment-file source: Kafka's own record decoding (kafka-clients) inside Spark's executors.

``jvm/*.java`` is a small Spark data source (``kcompact.spark.SegmentFileSource``): one input partition
per segment file, framed and checked as :class:`kcompact_nb.io.SegmentFileReader` does (same checks, same
reasons), records decoded by kafka-clients' ``DefaultRecordBatch``. Rows never cross into Python, which is
what makes it several times faster than decoding in Python workers.

The source also lists log dirs and reads files through Hadoop's filesystem API, so log dirs on
``hdfs://``, ``s3a://``... load like local ones.

It is compiled once per pyspark and kafka-clients version with ``javac`` against pyspark's jars and the
kafka-clients jar that comes with Spark's Kafka connector (:func:`kafka_connector_jars`), into
``$KCOMPACT_CACHE_DIR`` (default ``~/.cache/kcompact_nb``). :func:`spark_session` adds the result to
``spark.jars``; a Spark Connect server gets them with ``--jars``. Sessions without it decode local
segment files in Python workers instead.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import subprocess
import tempfile
import weakref
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession

from kcompact_nb.core import KcompactError
from kcompact_nb.io import NotASegmentError, cache_dir
from kcompact_nb.spark._connector import kafka_connector_jars
from kcompact_nb.spark._java import java_tool

SEGMENT_SOURCE_CLASS = "kcompact.spark.SegmentFileSource"
SOURCE_JAR_PREFIX = "kcompact-segment-source-"
_JAVA_SOURCES = Path(__file__).resolve().parent / "jvm"
_KAFKA_CLIENTS = "kafka-clients-"


class SegmentSourceError(KcompactError, RuntimeError):
    """The JVM segment-file source cannot be built or is not in the session."""


@cache
def segment_source_jars() -> tuple[Path, ...]:
    """The source's jar and the kafka-clients jar it needs, building the former the first time.

    Raises :class:`SegmentSourceError` when ``javac`` is missing or compilation fails, and
    :class:`~kcompact_nb.maven.MavenError` or :class:`~kcompact_nb.maven.ToolMissingError` when Maven cannot
    resolve kafka-clients.
    """
    clients = [jar for jar in kafka_connector_jars() if jar.name.startswith(_KAFKA_CLIENTS)]
    if len(clients) != 1:
        raise SegmentSourceError(f"expected one kafka-clients jar among the Kafka connector's jars, found {clients}")
    classpath = [str(_pyspark_jars() / "*"), str(clients[0])]
    sources = sorted(_JAVA_SOURCES.glob("*.java"))
    jar = cache_dir() / f"{SOURCE_JAR_PREFIX}{_fingerprint(sources, classpath)}.jar"
    if not jar.exists():
        _build(sources, classpath, jar)
    return jar, clients[0]


def _fingerprint(sources: list[Path], classpath: list[str]) -> str:
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update("\0".join(Path(entry).name for entry in classpath).encode())
    digest.update(_pyspark_version().encode())
    return digest.hexdigest()[:16]


def _build(sources: list[Path], classpath: list[str], jar: Path) -> None:
    javac = _javac()
    jar.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=jar.parent) as work:
        classes = Path(work) / "classes"
        command = [
            javac,
            "--release",
            "17",
            "-nowarn",
            "-cp",
            os.pathsep.join(classpath),
            "-d",
            str(classes),
            *map(str, sources),
        ]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise SegmentSourceError(
                f"javac could not compile the segment-file source (exit {result.returncode}):\n{result.stderr[-3000:]}"
            )
        staged = Path(work) / jar.name
        with zipfile.ZipFile(staged, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(classes.rglob("*.class")):
                archive.write(path, path.relative_to(classes).as_posix())
        os.replace(staged, jar)  # atomic: concurrent builders leave one whole jar


def _javac() -> str:
    javac = java_tool("javac")
    if javac is None:
        raise SegmentSourceError(
            "no 'javac' (a JDK 17 or newer) on PATH or in $JAVA_HOME/bin: it is needed once to build the segment-file "
            "source"
        )
    return javac


def _pyspark_jars() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def _pyspark_version() -> str:
    import pyspark

    return str(pyspark.__version__)


_PROBED: weakref.WeakKeyDictionary[SparkSession, bool] = weakref.WeakKeyDictionary()
_NOT_FOUND = "DATA_SOURCE_NOT_FOUND"
_SEGMENTS_COLUMNS = ["topic", "partition", "segment_base_offset", "size_bytes", "last_modified_ms"]


def is_connect(spark: SparkSession) -> bool:
    """Whether ``spark`` is a Spark Connect client session (no JVM of its own in this process)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def in_session(spark: SparkSession) -> bool:
    """Whether ``spark`` can load the source: the class resolves in its driver (``spark.jars`` of a classic session,
    ``--jars`` of a Spark Connect server) and is the one built from this package's Java sources.

    Probed once per session by reading the source's schema (no data, no job); a source from another version of
    the package raises :class:`SegmentSourceError`.
    """
    known = _PROBED.get(spark)
    if known is None:
        known = _PROBED[spark] = _probe(spark)
    return known


def _probe(spark: SparkSession) -> bool:
    try:
        columns = spark.read.format(SEGMENT_SOURCE_CLASS).option("kind", "segments").load().columns
    except Exception as error:  # classic: Py4JJavaError; Spark Connect: SparkClassNotFoundException
        if _NOT_FOUND in str(error):
            return False
        raise
    if columns != _SEGMENTS_COLUMNS:
        raise SegmentSourceError(
            f"the session's {SEGMENT_SOURCE_CLASS} comes from another version of kcompact_nb (it lists segments as "
            f"{columns}); restart it with the jars kcompact_nb.spark.segment_source_jars() gives"
        )
    return True


def missing_source_reason(spark: SparkSession) -> str:
    """Why ``spark`` has no source and how to give it one (Spark Connect servers get it at start)."""
    if is_connect(spark):
        return (
            f"the Spark Connect server has no JVM segment-file source (class {SEGMENT_SOURCE_CLASS}): start it with "
            "--jars and the two jars kcompact_nb.spark.segment_source_jars() gives (README 'Running on a cluster')"
        )
    return (
        "this session has no JVM segment-file source: start it with kcompact_nb.spark.spark_session "
        "(segment_source=True, the default), "
        "or add the jars kcompact_nb.spark.segment_source_jars() gives to spark.jars"
    )


_IO_ERROR = re.compile(r"NotASegmentError: (?P<file>[^\n]+?): (?P<reason>[^\n]+)")
_FILE_ERROR = re.compile(r"(?P<kind>FileNotFoundError|IsADirectoryError): (?P<file>[^\n]+)")
_FILE_ERRNOS = {"FileNotFoundError": errno.ENOENT, "IsADirectoryError": errno.EISDIR}


def read_source(spark: SparkSession, kind: str, **options: str) -> DataFrame:
    """The source's ``kind`` (records, segments, checkpoints, files) with ``options``; see ``SegmentFileSource.java``.

    Log dirs are listed when a classic session loads the source (a Spark Connect session: at its first action);
    a log dir that does not exist raises the io layer's :class:`NotASegmentError` as the Python listing does.
    """
    with io_errors():
        return spark.read.format(SEGMENT_SOURCE_CLASS).options(kind=kind, **options).load()


@contextmanager
def io_errors() -> Iterator[None]:
    """Raise the source's listing errors, which Spark wraps in its own exceptions, as :class:`NotASegmentError`
    (a log dir) or as ``open()`` raises them (a text file that is missing or a directory)."""
    try:
        yield
    except KcompactError:
        raise
    except Exception as error:
        match = _IO_ERROR.search(str(error))
        if match is not None:
            raise NotASegmentError(match["file"], None, match["reason"].strip()) from None
        missing = _FILE_ERROR.search(str(error))
        if missing is None:
            raise
        code = _FILE_ERRNOS[
            missing["kind"]
        ]  # OSError(code, ...) is FileNotFoundError or IsADirectoryError, as open() raises
        raise OSError(code, os.strerror(code), missing["file"].strip()) from None
