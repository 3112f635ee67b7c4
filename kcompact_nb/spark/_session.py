"""A Spark session with the project's determinism settings (docs/architecture.md, Determinism).

Embedded ``local[*]`` by default, listening on loopback only; the standard environment variables
(``SPARK_REMOTE``, ``MASTER``) win over the code's ``master``, so a notebook written against a laptop
(``spark_session("local[2]")``) runs unchanged on a cluster or a Spark Connect server.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pyspark.sql import SparkSession

from kcompact_nb.maven import MavenError, ToolMissingError
from kcompact_nb.spark._class_archive import existing_class_archive, with_class_archive
from kcompact_nb.spark._connector import kafka_connector_jars
from kcompact_nb.spark._segment_source import SegmentSourceError, segment_source_jars

DEFAULT_APP_NAME = "kcompact_nb"

#: Settings every session gets; the static ones (UI, progress bar) are skipped on Spark Connect.
DETERMINISM_SETTINGS: dict[str, str] = {
    "spark.sql.session.timeZone": "UTC",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
}
_STATIC_SETTINGS = ("spark.ui.enabled", "spark.ui.showConsoleProgress", "spark.jars")
LOOPBACK = "127.0.0.1"
LOOPBACK_SETTINGS: dict[str, str] = {"spark.driver.bindAddress": LOOPBACK, "spark.driver.host": LOOPBACK}
"""Defaults for local masters (and masters on loopback): the driver's RPC and block manager ports listen on
loopback only, not on the machine's network addresses; ``config`` can override them."""
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
LEAN_SETTINGS: dict[str, str] = {
    "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.adaptive.enabled": "false",
}
"""``lean=True`` on a local master: small data and a quick start over peak speed. The driver's JVM compiles with
its quick compiler only and collects garbage on one thread, whole-stage code generation (compiling each query's
Java) and adaptive query execution (re-planning after each stage) are off. The notebooks' jobs take about half the
time of Spark's defaults (issue #39: 53 against 96 s for 06's and 07's main cells on a busy 2-core machine);
long jobs over big partitions run faster without it. ``config`` can override each."""


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
    lean: bool = False,
    class_archive: Path | None = None,
) -> SessionSettings:
    """Resolve the session's target and configuration without starting anything.

    Precedence: ``$SPARK_REMOTE`` (Spark Connect), then ``$MASTER``: where a deployment says to run wins
    over the code (pyspark itself refuses a master when ``$SPARK_REMOTE`` is set); then ``master``, then
    ``remote``, then ``spark.master`` in ``config``, then ``local[*]``. Local masters and ``spark://``
    masters on loopback get :data:`LOOPBACK_SETTINGS` (other masters: Spark's defaults, see README
    "Running on a cluster"). ``kafka=True`` adds the Kafka connector's jars and ``segment_source=True``
    the JVM segment-file source's (built the first time, see :func:`segment_source_jars`) to
    ``spark.jars``, after any given in ``config``; a Spark Connect server must have been started with
    them. A source that cannot be built is left out with a warning (``load_log_dir`` then decodes in
    Python workers). A local master's driver maps ``class_archive`` (Spark's classes recorded once, see
    :mod:`~kcompact_nb.spark._class_archive`) unless ``config``'s Java options name an archive.
    """
    env = os.environ if environ is None else environ
    conf = {**DETERMINISM_SETTINGS, "spark.sql.shuffle.partitions": str(shuffle_partitions), **(config or {})}
    remote = env.get("SPARK_REMOTE") or (None if env.get("MASTER") or master is not None else remote)
    if remote is not None:
        conf.pop("spark.master", None)
        return SessionSettings(None, remote, {k: v for k, v in conf.items() if k not in _STATIC_SETTINGS})
    master = env.get("MASTER") or master or conf.pop("spark.master", None) or "local[*]"
    conf.pop("spark.master", None)
    if _on_loopback(master):
        conf = {**LOOPBACK_SETTINGS, **conf}
    if lean and master.startswith("local"):
        conf = {**LEAN_SETTINGS, **conf}
    if class_archive is not None and master.startswith("local"):
        options = with_class_archive(conf.get("spark.driver.extraJavaOptions", ""), class_archive)
        conf["spark.driver.extraJavaOptions"] = options
    jars = [jar for jar in conf.get("spark.jars", "").split(",") if jar]
    if kafka:
        jars += map(str, kafka_connector_jars())
    if segment_source:
        jars += map(str, _segment_source_jars())
    if jars:
        conf["spark.jars"] = ",".join(dict.fromkeys(jars))
    return SessionSettings(master, None, conf)


def _on_loopback(master: str) -> bool:
    """``local``, ``local[N]``... or a standalone master whose every host is a loopback name."""
    if master.startswith("local"):
        return True
    hosts = [entry.rsplit(":", 1)[0] for entry in master.removeprefix("spark://").split(",")]
    return master.startswith("spark://") and all(host in _LOOPBACK_HOSTS for host in hosts)


def _segment_source_jars() -> tuple[Path, ...]:
    try:
        return segment_source_jars()
    except (SegmentSourceError, MavenError, ToolMissingError) as error:
        warnings.warn(
            f"segment files will be decoded in Python workers (slower): {error}", RuntimeWarning, stacklevel=3
        )
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
    lean: bool = False,
) -> SparkSession:
    """Get or create the session described by :func:`session_settings`, with quiet logs.

    Parameters
    ----------
    master : ``local[2]``, ``spark://host:7077``, ``yarn``...; ``$SPARK_REMOTE`` or ``$MASTER`` win over it.
    remote : a Spark Connect URL (``sc://host:15002``), used when neither variable nor ``master`` is set.
    kafka : add Spark's Kafka source (``spark-sql-kafka-0-10_2.13``); resolved with Maven the first time.
        Jars are fixed when the JVM starts, so ask for it in the first session of the process.
    segment_source : add the JVM segment-file source that ``load_log_dir`` uses (Kafka's own decoding in
        the executors); built with ``javac`` and Maven the first time.
    shuffle_partitions : ``spark.sql.shuffle.partitions`` (small keeps tests fast and orders stable).
    config : further Spark properties; they win over the defaults here.
    log_level : the JVM's log level (``SparkContext.setLogLevel``); not settable over Spark Connect.
    lean : on a local master, :data:`LEAN_SETTINGS` (a quick start over small data, as the notebooks want).

    A session already running in the process is returned as it is (its master and jars fixed); asking
    for another ``master`` then warns. A local master's Python workers run this interpreter; a cluster's
    run ``$PYSPARK_PYTHON`` (README "Running on a cluster").
    """
    settings = session_settings(
        master,
        remote=remote,
        kafka=kafka,
        segment_source=segment_source,
        shuffle_partitions=shuffle_partitions,
        config=config,
        lean=lean,
        class_archive=existing_class_archive(),
    )
    if (settings.master or "").startswith("local"):
        # Python workers of an embedded session run this interpreter (its packages), not ``python3`` on PATH.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if settings.master is not None and _on_loopback(settings.master):
        # The JVM otherwise warns that the host name resolves to a loopback address and picks a network
        # interface's address; the session listens on loopback anyway (LOOPBACK_SETTINGS).
        os.environ.setdefault("SPARK_LOCAL_IP", LOOPBACK)
    builder = SparkSession.builder.appName(app_name)
    builder = builder.remote(settings.remote) if settings.remote else builder.master(settings.master or "local[*]")
    for key, value in settings.conf.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    if settings.remote is None:
        session.sparkContext.setLogLevel(log_level)
        _warn_if_master_differs(session, settings.master if master is not None else None)
    return session


def _warn_if_master_differs(session: SparkSession, requested: str | None) -> None:
    """Warn when an explicit master differs from the running session's.

    Sessions are get-or-create: such a master is otherwise ignored silently.
    """
    running = session.sparkContext.master
    if requested is not None and running != requested:
        warnings.warn(
            f"a session on {running} is already running, so master {requested!r} was not applied; "
            "stop it first (spark.stop()) to start one on another master",
            UserWarning,
            stacklevel=3,
        )
