"""The log cleaner's metrics as a running broker exposes them over JMX (``kafka.log:type=LogCleaner`` and
``kafka.log:type=LogCleanerManager``): the JDK's ``jcmd`` starts the JVM's JMX agent on a free port, and a small
Java client (``jmx/CleanerGauges.java``, run by the JDK's source launcher) reads every gauge."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ._broker import KafkaBroker
from ._errors import BrokerError
from ._process import free_port

_CLIENT = Path(__file__).with_name("jmx") / "CleanerGauges.java"
_AGENTS: dict[int, int] = {}
"""Broker JVM pid -> the port its JMX agent listens on (an agent starts once per JVM)."""


def cleaner_gauges(broker: KafkaBroker, *, timeout_s: float = 60.0) -> dict[str, float]:
    """Every gauge of the broker's cleaner by Kafka's metric name (``max-dirty-percent``,
    ``cleaner-recopy-percent``, ``uncleanable-partitions-count``, ...), as the broker reads them now. Needs the
    JDK's ``jcmd`` and ``java`` (17+)."""
    pid = broker.pid
    if pid is None:
        raise BrokerError("the broker is not running")
    port = _AGENTS.get(pid) or _start_agent(pid, timeout_s)
    done = subprocess.run(
        ["java", str(_CLIENT), f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=timeout_s, check=False
    )
    if done.returncode != 0:
        raise BrokerError(f"reading the cleaner's JMX gauges failed:\n{done.stderr[-2000:]}")
    gauges: dict[str, float] = {}
    for line in done.stdout.splitlines():
        name, _, value = line.partition("=")
        gauges[name] = float(value)
    return gauges


def _start_agent(pid: int, timeout_s: float) -> int:
    port = free_port()
    command = ["jcmd", str(pid), "ManagementAgent.start", f"jmxremote.port={port}", f"jmxremote.rmi.port={port}",
               "jmxremote.authenticate=false", "jmxremote.ssl=false", "jmxremote.host=127.0.0.1"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, check=False)
    if done.returncode != 0 or "Command executed successfully" not in done.stdout + done.stderr:
        raise BrokerError(f"jcmd could not start the broker's JMX agent:\n{done.stdout}{done.stderr}")
    _AGENTS[pid] = port
    return port
