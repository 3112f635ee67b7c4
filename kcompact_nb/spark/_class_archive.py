"""The driver JVM's class-data-sharing archive: Spark's classes recorded once, mapped by every later local session.

A local session's JVM spends seconds loading and verifying Spark's classes before its first query answers.
:mod:`~kcompact_nb.spark._class_recording` (``make classes``) records the classes a small notebook-like workload
loads into the package's cache folder; :func:`~kcompact_nb.spark.spark_session` hands that archive to every later
local session's driver (:func:`with_class_archive`). The archive is named after the Java runtime and Spark's jars, so
another Java or Spark records its own; a JVM that cannot use one starts as it would without it, silently.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyspark

from kcompact_nb.io import cache_dir
from kcompact_nb.spark._java import java_tool

QUIET_OPTIONS = "-Xlog:cds=off -Xlog:cds+dynamic=off"
"""No warning when an archive does not fit this JVM (it then loads classes itself), nor for each class a recording
skips (signed jars, generated classes)."""
_ARCHIVE_FLAGS = ("-XX:SharedArchiveFile", "-XX:ArchiveClassesAtExit")


def class_archive_path() -> Path | None:
    """Where the archive of this Java runtime and this pyspark's jars lives (None without Java)."""
    found = java_tool("java")
    if found is None:
        return None
    java = Path(found).resolve()
    jars = sorted(path.name for path in (Path(pyspark.__file__).parent / "jars").glob("*.jar"))
    digest = hashlib.sha256("\n".join([str(java), str(java.stat().st_mtime_ns), *jars]).encode()).hexdigest()
    return cache_dir() / "spark-classes" / f"pyspark-{pyspark.__version__}-{digest[:16]}.jsa"


def existing_class_archive() -> Path | None:
    """The recorded archive for this Java and Spark, None when none was recorded."""
    path = class_archive_path()
    return path if path is not None and path.is_file() else None


def with_class_archive(java_options: str, archive: Path) -> str:
    """``java_options`` (a driver's ``spark.driver.extraJavaOptions``) mapping ``archive``, unless they name an
    archive of their own."""
    if any(flag in java_options for flag in _ARCHIVE_FLAGS):
        return java_options
    return f"{java_options} -XX:SharedArchiveFile={archive} {QUIET_OPTIONS}".strip()
