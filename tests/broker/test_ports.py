"""Ports chosen free and taken before a JVM binds them (another test worker's broker, started at the same moment): the
start chooses new ones, and never takes the process that holds a port for its own broker or ZooKeeper."""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from kcompact_nb.broker import DEFAULT_VERSION, KafkaBroker, admin_client, create_topic
from kcompact_nb.broker import _broker as broker_module
from kcompact_nb.broker._process import free_port, listens

from .conftest import require_java_and_maven

OLDEST = "2.0.1"
"""A ZooKeeper-mode release: its ZooKeeper chooses a port too."""


def test_listens_names_the_process_holding_a_listening_socket() -> None:
    with socket.socket() as bound, socket.socket(socket.AF_INET6) as dual_stack:
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
        assert listens(os.getpid(), port) is False  # bound, not listening
        bound.listen()
        dual_stack.bind(("::", 0))  # as a JVM binds: /proc/net/tcp6
        dual_stack.listen()
        other = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        assert (listens(os.getpid(), port), listens(os.getpid(), dual_stack.getsockname()[1])) == (True, True)
        assert listens(int(other.stdout), port) is False  # a process that ended


def _taken_first(*taken: int) -> Iterator[int]:
    """The ports ``taken``, then ports free a moment ago."""
    return itertools.chain(taken, iter(free_port, None))


@pytest.mark.parametrize("kafka_broker", [DEFAULT_VERSION], indirect=True, scope="session")
@pytest.mark.parametrize("version", [DEFAULT_VERSION, OLDEST])
def test_a_start_whose_ports_another_broker_took_chooses_new_ones(
    kafka_broker: KafkaBroker, version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first two ports chosen (KRaft: the listener's and the controller's; ZooKeeper mode: the listener's and
    ZooKeeper's) are taken: the first by another running broker, whose metadata answers there, the second by a
    plain listening socket. The new broker is ready only once its own JVMs serve, on ports chosen again."""
    require_java_and_maven()
    calls = []
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        ports = _taken_first(kafka_broker.port, held.getsockname()[1])
        monkeypatch.setattr(broker_module, "free_port", lambda: calls.append(1) or next(ports))
        broker = KafkaBroker(version).start()
    try:
        assert broker.port != kafka_broker.port and len(calls) == 4  # a second start, with ports of its own
        assert broker.pid is not None and listens(broker.pid, broker.port)
        create_topic(broker, "ports-own-topic")
        with admin_client(kafka_broker) as other:
            assert "ports-own-topic" not in other.list_topics()
    finally:
        broker.stop()
