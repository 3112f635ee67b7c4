"""Python workers in the executors: the package shipped to them, and checked once per session.

``decoder="python"``, :func:`load_dump_log` and :func:`load_kcat` decode in Python workers, which import
kcompact_nb. A local master's workers run the driver's interpreter (:func:`spark_session` sets
``PYSPARK_PYTHON``). A cluster's run the executors' own Python (``PYSPARK_PYTHON`` of the driver, or of a
Spark Connect server), which must have kcompact_nb's dependencies (numpy, pyarrow, pandas, crc32c,
kafka-python): the package itself is shipped as a zip through Spark (``SparkContext.addPyFile``, or
``SparkSession.addArtifacts(pyfile=True)`` on Spark Connect), and one small job then imports it in a worker,
so a worker that cannot fails up front with an error naming its interpreter and what it lacks.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import weakref
import zipfile
from functools import cache
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import kcompact_nb
from kcompact_nb.core import KcompactError
from kcompact_nb.io import cache_dir
from kcompact_nb.spark._segment_source import is_connect

PACKAGE_DIR = Path(kcompact_nb.__file__).resolve().parent
WORKER_MODULES = ("kcompact_nb.spark._load_log_dir", "kcompact_nb.spark._load_tables")
"""What the Python decoders' tasks import in a worker."""

_READY: weakref.WeakKeyDictionary[SparkSession, bool] = weakref.WeakKeyDictionary()


class ExecutorPythonError(KcompactError, RuntimeError):
    """The executors' Python workers cannot run kcompact_nb's decoders."""


@cache
def package_zip() -> Path:
    """This package's files as a zip for ``addPyFile``, built once per content into :func:`cache_dir`."""
    files = sorted(p for p in PACKAGE_DIR.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0" + path.read_bytes())
    target = cache_dir() / f"kcompact_nb-{kcompact_nb.__version__}-{digest.hexdigest()[:16]}.zip"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent) as work:
            staged = Path(work) / target.name
            with zipfile.ZipFile(staged, "w", zipfile.ZIP_DEFLATED) as archive:
                for path in files:
                    archive.write(path, (Path(PACKAGE_DIR.name) / path.relative_to(PACKAGE_DIR)).as_posix())
            os.replace(staged, target)  # atomic: concurrent builders leave one whole zip
    return target


def prepare_python_workers(spark: SparkSession) -> None:
    """Ship the package to a cluster's executors and check that a worker imports it (once per session).

    Raises :class:`ExecutorPythonError` naming the worker's interpreter and the module it could not import.
    """
    if _READY.get(spark):
        return
    if is_connect(spark):
        spark.addArtifacts(str(package_zip()), pyfile=True)
    elif not (spark.sparkContext.master or "").startswith("local"):
        spark.sparkContext.addPyFile(str(package_zip()))
    problem = _worker_problem(spark)
    if problem:
        raise ExecutorPythonError(
            f"the executors' Python cannot run kcompact_nb's decoders: {problem}. Install kcompact_nb's dependencies "
            "(pip install kcompact_nb) into that Python, or point PYSPARK_PYTHON (of the driver, or of the Spark "
            "Connect server) at one that has them; decoder='jvm' needs no Python workers for log dirs"
        )
    _READY[spark] = True


def _worker_problem(spark: SparkSession) -> str:
    """What a Python worker reports: empty when it imports :data:`WORKER_MODULES` (a one-row job)."""
    modules = WORKER_MODULES

    def report() -> str:  # nested, so it is pickled by value: the worker may not import kcompact_nb at all
        import importlib
        import sys

        where = f"{sys.executable} (Python {sys.version.split()[0]})"
        for module in modules:
            try:
                importlib.import_module(module)
            except ImportError as error:
                return f"{where} cannot import {error.name or module}: {error}"
        return ""

    try:
        row = spark.range(1).select(F.udf(report, "string")().alias("problem")).first()
    except Exception as error:  # the worker did not start or did not get to run report()
        return f"{_worker_python(spark)} did not run a Spark Python worker ({_failure(error)})"
    return str(row["problem"]) if row is not None else ""


_FAILURES = (r"Cannot run program [^\n]*", r"\[PYTHON_VERSION_MISMATCH\][^\n]*", r"\w*(?:Import|NotFound)Error: [^\n]*")
"""The lines that say why, in what Spark reports of a worker that failed (a Java or a Python traceback)."""


def _failure(error: Exception) -> str:
    text = str(error)
    for pattern in _FAILURES:
        found = re.findall(pattern, text)
        if found:
            return str(found[-1]).strip()
    return next((line.strip() for line in text.splitlines() if line.strip()), type(error).__name__)


def _worker_python(spark: SparkSession) -> str:
    if is_connect(spark):
        return "the Spark Connect server's $PYSPARK_PYTHON"
    return str(spark.sparkContext.pythonExec)
