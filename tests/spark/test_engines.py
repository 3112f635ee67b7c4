"""The loaders, analytics and notebooks 05 and 06 on real engines, with results equal to ``local[2]``.

Engines (tests/spark/engines.py, started once for this module and stopped at its end): a standalone
master and worker on 127.0.0.1, and a Spark Connect server on that master with the JVM segment-file
source's and the Kafka connector's jars. Programs reach them as users' programs do, through ``$MASTER``
or ``$SPARK_REMOTE`` (the notebooks call ``spark_session("local[2]")`` unchanged). The executors' Python
lacks kcompact_nb, so the Python decoders only work because the package ships itself to them. The workload
also reads the samples' copies on a real HDFS (tests/spark/hdfs.py), so executors in other JVMs open hdfs:// URLs.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kcompact_nb.spark import kafka_connector_jars, segment_source_jars
from tests.broker.conftest import require_java_and_maven
from tests.spark.engine_workload import workload
from tests.spark.engines import (
    EngineProcess,
    Standalone,
    engine_env,
    executor_python,
    live_group_members,
    start_connect_server,
    start_standalone,
)

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ["notebooks/06-spark-and-dataframes.ipynb", "notebooks/05-real-data.ipynb"]
"""Run through $SPARK_REMOTE, on the standalone cluster's executors (Connect's): so on both engines. The workload
test runs every loader and analytic through $MASTER too; 07, at scale, runs its jobs on local[2] in the notebook
suite, and its loaders and analytics are the workload's."""
ENGINES = ["standalone", "connect"]
RUN_TIMEOUT_S = 900


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("engines")


@pytest.fixture(scope="module")
def env(scratch: Path) -> dict[str, str]:
    """The environment of engines and of the programs using them, without any $MASTER/$SPARK_REMOTE of ours."""
    require_java_and_maven()
    python = executor_python(scratch)
    probe = (
        "import pyarrow, numpy, pandas, crc32c, kafka\n"
        "try:\n import kcompact_nb\nexcept ImportError:\n print('without kcompact_nb')"
    )
    assert (
        subprocess.run([python, "-c", probe], capture_output=True, text=True, cwd=scratch, check=True).stdout
        == "without kcompact_nb\n"
    )
    environment = engine_env(scratch, python)
    for name in ("MASTER", "SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED", "SPARK_LOCAL_REMOTE"):
        environment.pop(name, None)
    return environment


@pytest.fixture(scope="module")
def standalone(scratch: Path, env: dict[str, str]) -> Iterator[Standalone]:
    cluster = start_standalone(scratch, env)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def connect_url(scratch: Path, env: dict[str, str], standalone: Standalone) -> Iterator[str]:
    jars = list(dict.fromkeys([*segment_source_jars(), *kafka_connector_jars()]))
    url, server = start_connect_server(scratch, env, standalone.url, jars)
    try:
        yield url
    finally:
        server.stop()


@pytest.fixture(scope="module")
def local_results(spark, hdfs, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[object, ...]]]:
    return workload(spark, tmp_path_factory.mktemp("local-workload"), hdfs.url)


def engine_variables(engine: str, request: pytest.FixtureRequest) -> dict[str, str]:
    if engine == "standalone":
        return {"MASTER": request.getfixturevalue("standalone").url}
    return {"SPARK_REMOTE": request.getfixturevalue("connect_url")}


def run(command: list[str], env: dict[str, str], what: str) -> None:
    result = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False
    )
    assert result.returncode == 0, (
        f"{what} failed (exit {result.returncode}):\n{result.stdout[-6000:]}\n{result.stderr[-6000:]}"
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_loaders_and_analytics_give_the_local_results(engine, request, env, scratch, hdfs, local_results):
    out = scratch / f"{engine}-results.pickle"
    command = [sys.executable, "-m", "tests.spark.engine_workload", str(out), hdfs.url]
    run(command, {**env, **engine_variables(engine, request)}, f"the workload on {engine}")
    got = pickle.loads(out.read_bytes())
    connect, master = got.pop("where")[0]
    assert (connect, master) == (
        (True, None) if engine == "connect" else (False, request.getfixturevalue("standalone").url)
    )
    assert got["engine"] == [(True,)]  # the JVM segment-file source was found there
    assert sorted(got) == sorted(local_results)
    for name, rows in local_results.items():
        assert got[name] == rows, name


def test_notebooks_run_unchanged_with_the_stored_outputs(request, env):
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *NOTEBOOKS]
    run(command, {**env, **engine_variables("connect", request)}, f"nbval of {', '.join(NOTEBOOKS)} on Spark Connect")


def test_engine_processes_stop_with_their_executors(scratch, env):
    """What the fixtures rely on: stopping a process group ends the JVM and everything it started."""
    sleeper = EngineProcess(
        "sleeper", subprocess.Popen(["bash", "-c", "sleep 300 & sleep 300"], start_new_session=True), scratch / "none"
    )
    sleeper.stop()
    assert sleeper.process.poll() is not None
    assert live_group_members(sleeper.process.pid) == []
