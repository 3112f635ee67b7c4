"""Where a session runs and with which settings; the shared session has the determinism settings."""

from __future__ import annotations

import pytest

from kcompact_nb.spark import DETERMINISM_SETTINGS, connector_versions, session_settings, spark_session


def test_embedded_local_by_default():
    settings = session_settings(environ={})
    assert (settings.master, settings.remote) == ("local[*]", None)
    assert {k: settings.conf[k] for k in DETERMINISM_SETTINGS} == {
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
    }
    assert settings.conf["spark.sql.shuffle.partitions"] == "4"


def test_master_precedence_parameter_then_remote_env_then_master_env_then_config():
    env = {"MASTER": "spark://cluster:7077"}
    assert session_settings(environ=env).master == "spark://cluster:7077"
    assert session_settings("local[2]", environ=env).master == "local[2]"
    assert session_settings(environ={}, config={"spark.master": "yarn"}).master == "yarn"
    remote = session_settings(environ={"SPARK_REMOTE": "sc://host:15002", **env})
    assert (remote.master, remote.remote) == (None, "sc://host:15002")
    assert "spark.ui.enabled" not in remote.conf and remote.conf["spark.sql.session.timeZone"] == "UTC"
    assert session_settings("local[2]", environ={"SPARK_REMOTE": "sc://host:15002"}).remote is None


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
    with pytest.warns(UserWarning, match=r"a session on local\[2\] is already running, so master 'local\[1\]' was not applied"):
        again = spark_session("local[1]", kafka=True, shuffle_partitions=2, app_name="kcompact-tests")
    assert again is spark and again.sparkContext.master == "local[2]"
