"""Where a session runs and with which settings; the shared session has the determinism settings and listens
on loopback only."""

from __future__ import annotations

import ipaddress
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kcompact_nb.spark import (
    DETERMINISM_SETTINGS,
    LEAN_SETTINGS,
    LOOPBACK_SETTINGS,
    connector_versions,
    load_log_dir,
    session_settings,
    spark_session,
)
from kcompact_nb.spark._class_archive import existing_class_archive
from tests.spark.conftest import SAMPLES


def test_embedded_local_by_default():
    settings = session_settings(environ={})
    assert (settings.master, settings.remote) == ("local[*]", None)
    assert {k: settings.conf[k] for k in DETERMINISM_SETTINGS} == {
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
    }
    assert settings.conf["spark.sql.shuffle.partitions"] == "4"


def test_master_precedence_remote_env_then_master_env_then_parameters_then_config():
    env = {"MASTER": "spark://cluster:7077"}
    assert session_settings(environ=env).master == "spark://cluster:7077"
    # a notebook's local[2] runs where the deployment says (pyspark refuses a master with $SPARK_REMOTE set)
    assert session_settings("local[2]", environ=env).master == "spark://cluster:7077"
    assert session_settings("local[2]", remote="sc://other:15002", environ={}).master == "local[2]"
    assert session_settings(remote="sc://other:15002", environ={}).remote == "sc://other:15002"
    assert session_settings(environ={}, config={"spark.master": "yarn"}).master == "yarn"
    remote = session_settings(
        "local[2]", environ={"SPARK_REMOTE": "sc://host:15002", **env}, config={"spark.master": "yarn"}
    )
    assert (remote.master, remote.remote) == (None, "sc://host:15002")
    assert "spark.ui.enabled" not in remote.conf and "spark.master" not in remote.conf
    assert remote.conf["spark.sql.session.timeZone"] == "UTC"


def test_local_and_loopback_masters_bind_the_driver_to_loopback():
    for master in ("local[2]", "local[*]", "spark://127.0.0.1:7077", "spark://localhost:7077,127.0.0.1:7078"):
        conf = session_settings(master, environ={}).conf
        assert {k: conf[k] for k in LOOPBACK_SETTINGS} == {
            "spark.driver.bindAddress": "127.0.0.1",
            "spark.driver.host": "127.0.0.1",
        }
    for master in ("spark://cluster:7077", "spark://127.0.0.1:7077,cluster:7077", "yarn"):
        assert not set(LOOPBACK_SETTINGS) & set(session_settings(master, environ={}).conf)
    multi_host = session_settings("local[2]", environ={}, config={"spark.driver.host": "10.0.0.5"}).conf
    assert multi_host["spark.driver.host"] == "10.0.0.5" and multi_host["spark.driver.bindAddress"] == "127.0.0.1"


def test_a_lean_local_session_starts_quickly_for_small_data_and_config_still_wins():
    """Issue #39: the notebooks' sessions (local[2], small data) with the quick compiler, serial GC, no whole-stage
    code generation and no adaptive execution; a cluster's driver keeps Spark's defaults."""
    lean = session_settings("local[2]", environ={}, lean=True).conf
    assert {k: lean[k] for k in LEAN_SETTINGS} == {
        "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
        "spark.sql.codegen.wholeStage": "false",
        "spark.sql.adaptive.enabled": "false",
    }
    assert not set(LEAN_SETTINGS) & set(session_settings("local[2]", environ={}).conf)
    assert not set(LEAN_SETTINGS) & set(session_settings("spark://cluster:7077", environ={}, lean=True).conf)
    tuned = session_settings("local[2]", environ={}, lean=True, config={"spark.sql.adaptive.enabled": "true"}).conf
    assert tuned["spark.sql.adaptive.enabled"] == "true" and tuned["spark.sql.codegen.wholeStage"] == "false"


def test_a_local_driver_maps_the_recorded_class_archive_unless_its_options_name_one(tmp_path):
    """Spark's classes recorded once (kcompact_nb/spark/_class_archive.py) are mapped by local drivers, after the lean
    options; a cluster's driver runs elsewhere, and Java options that name an archive of their own win."""
    archive = tmp_path / "spark.jsa"
    quiet = "-Xlog:cds=off -Xlog:cds+dynamic=off"
    lean = session_settings("local[2]", environ={}, lean=True, class_archive=archive).conf
    assert lean["spark.driver.extraJavaOptions"] == (
        f"-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:SharedArchiveFile={archive} {quiet}"
    )
    plain = session_settings("local[*]", environ={}, class_archive=archive).conf
    assert plain["spark.driver.extraJavaOptions"] == f"-XX:SharedArchiveFile={archive} {quiet}"
    cluster = session_settings("spark://cluster:7077", environ={}, class_archive=archive).conf
    assert "spark.driver.extraJavaOptions" not in cluster
    own = {"spark.driver.extraJavaOptions": "-XX:ArchiveClassesAtExit=/tmp/mine.jsa"}
    assert session_settings("local[2]", environ={}, config=own, class_archive=archive).conf == {
        **session_settings("local[2]", environ={}, config=own).conf
    }
    assert "spark.driver.extraJavaOptions" not in session_settings("local[2]", environ={}).conf


def test_the_shared_session_maps_the_class_archive_make_records(spark):
    """``make test`` records the archive first (``make classes``); the running driver JVM was given it."""
    archive = existing_class_archive()
    if archive is None:
        pytest.skip("no Spark class archive recorded for this Java and Spark: run `make classes`")
    bean = spark._jvm.java.lang.management.ManagementFactory.getPlatformMXBean(
        spark._jvm.java.lang.Class.forName("com.sun.management.HotSpotDiagnosticMXBean")
    )
    assert bean.getVMOption("SharedArchiveFile").getValue() == str(archive)


def test_connector_versions_match_pyspark_unless_missing_from_central():
    assert connector_versions("4.0.0") == ("4.0.0", "4.0.0")
    assert connector_versions("4.3.0") == ("4.2.0", "4.0.0")


def test_shared_session_settings(spark):
    conf = spark.conf
    assert (conf.get("spark.sql.session.timeZone"), conf.get("spark.sql.shuffle.partitions")) == ("UTC", "2")
    assert spark.sparkContext.master == "local[2]"
    jars = spark.sparkContext.getConf().get("spark.jars", "")
    assert "spark-sql-kafka-0-10_2.13" in jars and "spark-token-provider-kafka-0-10_2.13" in jars


def test_asking_an_active_session_for_another_master_warns(spark):
    with pytest.warns(
        UserWarning, match=r"a session on local\[2\] is already running, so master 'local\[1\]' was not applied"
    ):
        again = spark_session("local[1]", kafka=True, shuffle_partitions=2, app_name="kcompact-tests")
    assert again is spark and again.sparkContext.master == "local[2]"


def listening_addresses(pid: int) -> list[tuple[str, int]]:
    """(address, port) of every TCP socket process ``pid`` listens on, from /proc/<pid>/fd and /proc/net/tcp{,6}."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and inode in inodes:  # 0A: TCP_LISTEN
                address, port = local.split(":")
                found.append((str(_proc_address(address)), int(port, 16)))
    return found


def _proc_address(hex_address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """/proc/net/tcp* addresses: 32-bit words in host (little-endian) byte order."""
    raw = b"".join(bytes.fromhex(hex_address[i : i + 8])[::-1] for i in range(0, len(hex_address), 8))
    return ipaddress.ip_address(raw)


def _is_loopback(address: str) -> bool:
    parsed = ipaddress.ip_address(address)
    mapped = getattr(parsed, "ipv4_mapped", None)
    return parsed.is_loopback or (mapped is not None and mapped.is_loopback)


def test_the_embedded_session_listens_on_loopback_only(spark):
    load_log_dir(spark, SAMPLES / "transactional" / "before", decoder="python").count()  # Python workers started too
    pid = spark._jvm.java.lang.ProcessHandle.current().pid()
    listening = listening_addresses(pid)
    ports = {port for _, port in listening}
    conf = spark.sparkContext.getConf()
    assert int(conf.get("spark.driver.port")) in ports  # the driver's RPC endpoint is among them
    block_managers = {info.port() for info in spark._jsc.sc().statusTracker().getExecutorInfos()}
    assert block_managers and block_managers <= ports  # and its block manager's
    assert [a for a in listening if not _is_loopback(a[0])] == []
    assert conf.get("spark.driver.host") == "127.0.0.1"


def test_an_embedded_session_starts_without_the_loopback_host_name_warning(tmp_path):
    """Spark warns at start-up when the host name resolves to a loopback address (and picks a network
    interface's address); an embedded session sets ``SPARK_LOCAL_IP`` to loopback first (issue #31)."""
    code = (
        "from kcompact_nb.spark import spark_session; "
        "print(spark_session('local[1]', segment_source=False).range(2).count())"
    )
    env = {k: v for k, v in os.environ.items() if k != "SPARK_LOCAL_IP"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "2", done.stderr
    assert "resolves to a loopback address" not in done.stderr
