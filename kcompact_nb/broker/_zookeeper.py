"""The ZooKeeper a broker before 3.3 needs: a standalone server from the broker's own jars, on 127.0.0.1."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from ._errors import BrokerError, PortTaken
from ._process import serves, start_java, stop_process, tail

#: ``zookeeper.log`` in the run's ``logs/`` folder: the server's console output (log4j 1 configuration below).
ZOOKEEPER_LOG = "zookeeper.log"


def zookeeper_properties(*, port: int, data_dir: str) -> str:
    """``zookeeper.properties`` of a standalone server on 127.0.0.1:``port`` (no admin server: it takes 8080)."""
    settings = {
        "dataDir": data_dir,
        "clientPort": str(port),
        "clientPortAddress": "127.0.0.1",
        "maxClientCnxns": "0",
        "admin.enableServer": "false",
    }
    return "".join(f"{name}={value}\n" for name, value in settings.items())


def zookeeper_log4j_properties() -> str:
    """log4j 1 configuration: WARN and above to the console (the server's stdout, :data:`ZOOKEEPER_LOG`)."""
    return (
        "log4j.rootLogger=WARN, console\n"
        "log4j.appender.console=org.apache.log4j.ConsoleAppender\n"
        "log4j.appender.console.layout=org.apache.log4j.PatternLayout\n"
        "log4j.appender.console.layout.ConversionPattern=[%d] %p %m (%c)%n\n"
    )


def zookeeper_command(*, classpath: Path, run_dir: Path) -> list[str]:
    """``java ... ZooKeeperServerMain zookeeper.properties`` (the class ``zookeeper-server-start.sh`` reaches
    for a standalone configuration). reload4j has no ``org.apache.log4j.jmx``: ZooKeeper must not register
    log4j's MBeans (``zookeeper.jmx.log4j.disable``)."""
    return [
        "java", "-Xmx128m", "-Djava.awt.headless=true", "-Dzookeeper.jmx.log4j.disable=true",
        f"-Dlog4j.configuration=file:{run_dir / 'zookeeper-log4j.properties'}", "-cp", f"{classpath}/*",
        "org.apache.zookeeper.server.ZooKeeperServerMain", str(run_dir / "zookeeper.properties"),
    ]  # fmt: skip


class ZooKeeperServer:
    """A standalone ZooKeeper in a child JVM: ``start`` writes its files into ``run_dir`` and waits for its port."""

    def __init__(self, *, classpath: Path, run_dir: Path, port: int) -> None:
        self._classpath = classpath
        self._run_dir = run_dir
        self.port = port
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def connect(self) -> str:
        """The broker's ``zookeeper.connect``."""
        return f"127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self._run_dir / "logs" / ZOOKEEPER_LOG

    def is_running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self, timeout_s: float) -> None:
        """Start the server on a fresh ``zookeeper/`` data folder; raise :class:`BrokerError` if it does not
        listen within ``timeout_s``."""
        data_dir = self._run_dir / "zookeeper"
        data_dir.mkdir(parents=True, exist_ok=True)
        (self._run_dir / "zookeeper.properties").write_text(
            zookeeper_properties(port=self.port, data_dir=str(data_dir))
        )
        (self._run_dir / "zookeeper-log4j.properties").write_text(zookeeper_log4j_properties())
        self._process = start_java(zookeeper_command(classpath=self._classpath, run_dir=self._run_dir), self.log_path)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not self.is_running():
                log = tail(self.log_path)
                taken = "Address already in use" in log
                raise (PortTaken if taken else BrokerError)(f"ZooKeeper exited during startup:\n{log}")
            if serves(self._process.pid, self.port):
                return
            time.sleep(0.2)
        raise BrokerError(f"ZooKeeper not listening on {self.connect} after {timeout_s} s:\n{tail(self.log_path)}")

    def stop(self, timeout_s: float) -> None:
        """Stop the server (after its broker: a broker whose ZooKeeper is gone retries its controlled shutdown)."""
        process, self._process = self._process, None
        stop_process(process, timeout_s)
