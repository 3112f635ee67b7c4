"""A Spark session with the project's determinism settings (DESIGN.md, Determinism).

Embedded ``local[*]`` by default; a master URL or a Spark Connect remote comes from a parameter
or the standard environment variables (``SPARK_REMOTE``, ``MASTER``), so a notebook written
against a laptop runs unchanged on a cluster.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pyspark.sql import SparkSession

from kcompact_nb.spark._connector import ConnectorError, kafka_connector_jars
from kcompact_nb.spark._segment_source import SegmentSourceError, segment_source_jars

DEFAULT_APP_NAME = "kcompact_nb"

#: Settings every session gets; the static ones (UI, progress bar) are skipped on Spark Connect.
DETERMINISM_SETTINGS: dict[str, str] = {
    "spark.sql.session.timeZone": "UTC",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
}
_STATIC_SETTINGS = ("spark.ui.enabled", "spark.ui.showConsoleProgress", "spark.jars")
PANDAS_SUPPORT_WARNING = "PySpark does not yet fully support pandas"
"""Start of pyspark's FutureWarning about the installed pandas, filtered by :func:`spark_session`."""


@dataclass(frozen=True)
class SessionSettings:
    """Where a session runs and with which configuration; ``remote`` is a Spark Connect URL or None."""

    master: str | None
    remote: str | None
    conf: dict[str, str] = field(default_factory=dict)


def session_settings(
    master: str | None = None,
    *,
    remote: str | None = None,
    kafka: bool = False,
    segment_source: bool = True,
    shuffle_partitions: int = 4,
    config: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> SessionSettings:
    """Resolve the session's target and configuration without starting anything.

    Precedence: ``master``, then ``remote``, then ``$SPARK_REMOTE`` (Spark Connect), then
    ``$MASTER``, then ``spark.master`` in ``config``, then ``local[*]``. ``kafka=True`` adds the
    Kafka connector's jars and ``segment_source=True`` the JVM segment-file source's (built the
    first time, see :func:`segment_source_jars`) to ``spark.jars``, after any given in ``config``;
    on Spark Connect the server must provide them. A source that cannot be built is left out with
    a warning (``load_log_dir`` then decodes in Python workers).
    """
    env = os.environ if environ is None else environ
    conf = {**DETERMINISM_SETTINGS, "spark.sql.shuffle.partitions": str(shuffle_partitions), **(config or {})}
    remote = remote if master is None else None
    remote = remote or (None if master is not None else env.get("SPARK_REMOTE"))
    if remote is not None:
        return SessionSettings(None, remote, {k: v for k, v in conf.items() if k not in _STATIC_SETTINGS})
    master = master or env.get("MASTER") or conf.pop("spark.master", None) or "local[*]"
    jars = [jar for jar in conf.get("spark.jars", "").split(",") if jar]
    if kafka:
        jars += map(str, kafka_connector_jars())
    if segment_source:
        jars += map(str, _segment_source_jars())
    if jars:
        conf["spark.jars"] = ",".join(dict.fromkeys(jars))
    return SessionSettings(master, None, conf)


def _segment_source_jars() -> tuple[Path, ...]:
    try:
        return segment_source_jars()
    except (SegmentSourceError, ConnectorError) as error:
        warnings.warn(f"segment files will be decoded in Python workers (slower): {error}", RuntimeWarning, stacklevel=3)
        return ()


def spark_session(
    master: str | None = None,
    *,
    remote: str | None = None,
    kafka: bool = False,
    segment_source: bool = True,
    app_name: str = DEFAULT_APP_NAME,
    shuffle_partitions: int = 4,
    config: Mapping[str, str] | None = None,
    log_level: str = "WARN",
) -> SparkSession:
    """Get or create the session described by :func:`session_settings`, with quiet logs.

    Parameters
    ----------
    master : ``local[2]``, ``spark://host:7077``, ``yarn``...; default ``$MASTER`` or ``local[*]``.
    remote : a Spark Connect URL (``sc://host:15002``); default ``$SPARK_REMOTE``.
    kafka : add Spark's Kafka source (``spark-sql-kafka-0-10_2.13``); resolved with Maven the first time.
        Jars are fixed when the JVM starts, so ask for it in the first session of the process.
    segment_source : add the JVM segment-file source that ``load_log_dir`` uses (Kafka's own decoding in
        the executors); built with ``javac`` and Maven the first time.
    shuffle_partitions : ``spark.sql.shuffle.partitions`` (small keeps tests fast and orders stable).
    config : further Spark properties; they win over the defaults here.
    log_level : the JVM's log level (``SparkContext.setLogLevel``); not settable over Spark Connect.

    A session already running in the process is returned as it is (its master and jars fixed); asking
    for another ``master`` then warns. pyspark's FutureWarning that it does not yet fully support the
    installed pandas is filtered for the process (that message only): pyspark repeats it on every
    ``toPandas``, so notebooks' tables would carry it; the project's tests run against the pandas
    installed here.
    """
    warnings.filterwarnings("ignore", message=PANDAS_SUPPORT_WARNING, category=FutureWarning)
    settings = session_settings(
        master, remote=remote, kafka=kafka, segment_source=segment_source, shuffle_partitions=shuffle_partitions, config=config
    )
    if (settings.master or "").startswith("local"):
        # Python workers of an embedded session run this interpreter (its packages), not ``python3`` on PATH.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app_name)
    builder = builder.remote(settings.remote) if settings.remote else builder.master(settings.master or "local[*]")
    for key, value in settings.conf.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    if settings.remote is None:
        session.sparkContext.setLogLevel(log_level)
        _warn_if_master_differs(session, master)
    return session


def _warn_if_master_differs(session: SparkSession, requested: str | None) -> None:
    """Sessions are get-or-create: an explicit master that differs from the running one is otherwise ignored silently."""
    running = session.sparkContext.master
    if requested is not None and running != requested:
        warnings.warn(
            f"a session on {running} is already running, so master {requested!r} was not applied; "
            "stop it first (spark.stop()) to start one on another master",
            UserWarning,
            stacklevel=3,
        )
