"""ZooKeeper mode (releases 2.0-3.2): what the broker layer writes and runs, and which versions it refuses.

Pure functions, no JVM: the real ZooKeeper-mode brokers run in ``test_zookeeper_broker.py`` and in the matrix
(``kcompact conformance --versions all``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kcompact_nb.broker import BrokerError, release_line, uses_kraft
from kcompact_nb.broker._classpath import _recipe_properties
from kcompact_nb.broker._server_config import server_properties
from kcompact_nb.broker._zookeeper import zookeeper_command, zookeeper_properties


def _parsed(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines())


def test_a_zookeeper_mode_broker_is_broker_1_on_loopback_without_kraft_settings():
    zk = _parsed(server_properties(port=9092, log_dir="/d", release=(2, 8), zookeeper_connect="127.0.0.1:2181"))
    kraft = _parsed(server_properties(port=9092, log_dir="/d", release=(3, 8), controller_port=9093))
    assert {k: zk[k] for k in ("broker.id", "zookeeper.connect", "listeners", "advertised.listeners", "log.dirs")} == {
        "broker.id": "1",
        "zookeeper.connect": "127.0.0.1:2181",
        "listeners": "PLAINTEXT://127.0.0.1:9092",
        "advertised.listeners": "PLAINTEXT://127.0.0.1:9092",
        "log.dirs": "/d",
    }
    kraft_only = {"process.roles", "node.id", "controller.listener.names", "controller.quorum.voters"}
    assert kraft_only <= set(kraft) and not kraft_only & set(zk)
    assert "zookeeper.connect" not in kraft
    # everything else (single-node replication, the fast cleaner) is the same in both modes
    shared = set(zk) - {"broker.id", "zookeeper.connect", "listeners", "advertised.listeners"}
    assert {k: zk[k] for k in shared} == {k: kraft[k] for k in shared}


def test_server_properties_needs_a_quorum():
    with pytest.raises(ValueError, match="controller_port .* or zookeeper_connect"):
        server_properties(port=9092, log_dir="/d", release=(2, 8))


def test_zookeeper_runs_standalone_on_loopback_from_the_brokers_jars(tmp_path: Path):
    settings = _parsed(zookeeper_properties(port=2181, data_dir=str(tmp_path / "zk")))
    assert settings == {
        "dataDir": str(tmp_path / "zk"),
        "clientPort": "2181",
        "clientPortAddress": "127.0.0.1",
        "maxClientCnxns": "0",
        "admin.enableServer": "false",
    }
    command = zookeeper_command(classpath=tmp_path / "jars", run_dir=tmp_path)
    assert command[0] == "java" and command[-2:] == [
        "org.apache.zookeeper.server.ZooKeeperServerMain",
        str(tmp_path / "zookeeper.properties"),
    ]
    assert {"-Dzookeeper.jmx.log4j.disable=true", f"{tmp_path / 'jars'}/*"} <= set(command)


@pytest.mark.parametrize(
    ("version", "artifact", "zookeeper"),
    [("2.0.1", "kafka_2.12", "3.5.9"), ("2.3.1", "kafka_2.12", "3.5.9"), ("2.4.1", "kafka_2.13", "3.5.9"),
     ("2.5.1", "kafka_2.13", None), ("3.2.3", "kafka_2.13", None)],
)  # fmt: skip
def test_old_releases_get_their_scala_artifact_and_a_zookeeper_client_that_runs_on_java_17(
    version: str, artifact: str, zookeeper: str | None
):
    properties = _recipe_properties(version)
    assert (properties["kafka.version"], properties["kafka.artifact"]) == (version, artifact)
    assert properties.get("zookeeper.version") == zookeeper
    assert "kafka.tools.api.version" not in properties  # the module exists from 3.5


@pytest.mark.parametrize(("version", "kraft"), [("2.0.1", False), ("3.2.3", False), ("3.3.0", True), ("4.4.0", True)])
def test_kraft_from_3_3_zookeeper_mode_before(version: str, kraft: bool):
    assert uses_kraft(version) is kraft


@pytest.mark.parametrize("version", ["1.1.1", "0.10.2.0", "4.5.0", "5.0.0", "2.8", "2.8.x"])
def test_versions_outside_2_0_to_4_4_are_refused_by_the_broker_layer(version: str):
    with pytest.raises(BrokerError, match=r"runs releases 2\.0\.0 to 4\.4\.x .*'2\.8\.2'"):
        release_line(version)
