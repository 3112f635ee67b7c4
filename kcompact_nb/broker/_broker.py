"""A real single-node Kafka broker in a child JVM on 127.0.0.1: KRaft combined mode from 3.3, before 3.3 a broker
with a ZooKeeper of its own (a second JVM from the same jars)."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from kcompact_nb.maven import require_tools

from ._classpath import DEFAULT_VERSION, release_line, resolve_classpath, uses_kraft
from ._errors import BrokerError, PortTaken
from ._process import free_port, java_command, new_cluster_id, serves, start_java, stop_process, tail
from ._server_config import log4j2_properties, log4j_properties, server_properties
from ._zookeeper import ZOOKEEPER_LOG, ZooKeeperServer

if TYPE_CHECKING:
    from kafka.admin import KafkaAdminClient

_RUNNING: set[KafkaBroker] = set()
_START_ATTEMPTS = 3
"""Starts tried when the broker could not bind a port chosen free: it was free a moment before, and another process
(another test worker's broker) may take it meanwhile."""


class KafkaBroker:
    """A real Apache Kafka broker of ``version``, started from Maven-resolved jars.

    Each start uses a fresh run folder (``work_dir`` or a temporary one) holding ``server.properties``,
    the log configuration, ``data/`` (the one log dir) and ``logs/`` (``server.log``, ``log-cleaner.log``,
    ``stdout.log``). Releases before 3.3 run in ZooKeeper mode: a standalone ZooKeeper from the same jars
    starts first (``zookeeper/``, ``logs/zookeeper.log``) and stops last. ``stop()`` ends exactly the JVMs it
    started. Use as a context manager::

        with KafkaBroker("4.4.0") as broker:
            print(broker.bootstrap_servers)

    Parameters
    ----------
    version : Kafka release (``kafka_2.13``, before 2.4 ``kafka_2.12``, on Maven Central), 2.0.0 to 4.4.x,
        e.g. ``"4.4.0"``, ``"3.9.2"`` or ``"2.8.2"``.
    work_dir : run folder; a temporary folder (removed by ``stop``) when omitted.
    overrides : extra ``server.properties`` entries (Kafka broker property names).
    startup_timeout_s : seconds to wait for the broker to answer a metadata request.
    heap_mb : maximum JVM heap in MiB.
    """

    def __init__(
        self,
        version: str = DEFAULT_VERSION,
        *,
        work_dir: Path | None = None,
        overrides: Mapping[str, str] | None = None,
        startup_timeout_s: float = 120.0,
        heap_mb: int = 512,
    ) -> None:
        release_line(version)
        self.version = version
        self._given_dir = work_dir
        self._overrides = dict(overrides or {})
        self._startup_timeout_s = startup_timeout_s
        self._heap_mb = heap_mb
        self._process: subprocess.Popen[bytes] | None = None
        self._zookeeper: ZooKeeperServer | None = None
        self._run_dir: Path | None = None
        self.port = 0
        self._ports: set[int] = set()
        """The ports chosen for the current start (the listener's and, in KRaft mode, the controller's)."""

    # -- properties -------------------------------------------------------------------------------
    @property
    def bootstrap_servers(self) -> str:
        """``127.0.0.1:<port>`` of the PLAINTEXT listener."""
        return f"127.0.0.1:{self.port}"

    @property
    def run_dir(self) -> Path:
        """The run folder of the current start."""
        if self._run_dir is None:
            raise BrokerError("the broker has not been started")
        return self._run_dir

    @property
    def log_dir(self) -> Path:
        """The broker's single ``log.dirs`` entry (partition folders, ``cleaner-offset-checkpoint``)."""
        return self.run_dir / "data"

    @property
    def logs_dir(self) -> Path:
        """Folder of ``server.log``, ``log-cleaner.log`` and ``stdout.log``."""
        return self.run_dir / "logs"

    @property
    def pid(self) -> int | None:
        """Process id of the broker JVM, or None when not started."""
        return None if self._process is None else self._process.pid

    def is_running(self) -> bool:
        """True while the JVM this object started is alive."""
        return self._process is not None and self._process.poll() is None

    def cleaner_log(self) -> str:
        """Everything the cleaner loggers wrote so far (``logs/log-cleaner.log``)."""
        path = self.logs_dir / "log-cleaner.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def log_tail(self, lines: int = 30) -> str:
        """The last lines of ``server.log`` and ``stdout.log`` (and ZooKeeper's log), for error messages."""
        names = ["server.log", "stdout.log"] + ([ZOOKEEPER_LOG] if self._zookeeper is not None else [])
        return "\n".join(f"--- {name} ---\n{tail(self.logs_dir / name, lines)}" for name in names)

    # -- lifecycle --------------------------------------------------------------------------------
    def start(self) -> KafkaBroker:
        """Resolve jars if needed, prepare a fresh log dir (KRaft: formatted; ZooKeeper mode: its ZooKeeper
        started), start the broker JVM and wait until it serves."""
        if self.is_running():
            raise BrokerError(f"broker {self.version} is already running (pid {self.pid})")
        require_tools(f"a real Kafka {self.version} broker", ("java",))
        classpath = resolve_classpath(self.version)
        try:
            for attempts_left in reversed(range(_START_ATTEMPTS)):
                try:
                    self._launch(classpath)
                    break
                except PortTaken:
                    if not attempts_left:
                        raise
                    self._stop_processes(timeout_s=30.0)
                    self._remove_run_dir()
        except BrokerError as error:
            self._stop_processes(timeout_s=30.0)  # the run folder stays, with every log, for the one who looks
            raise BrokerError(f"{error}\n(run folder kept: {self._run_dir})") from error
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self, timeout_s: float = 30.0) -> None:
        """SIGTERM the broker's process group (orderly shutdown), SIGKILL after ``timeout_s``; then its ZooKeeper.
        A temporary run folder is removed."""
        self._stop_processes(timeout_s)
        self._remove_run_dir()

    def __enter__(self) -> KafkaBroker:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    # -- helpers ----------------------------------------------------------------------------------
    def _launch(self, classpath: Path) -> None:
        """One start: a fresh run folder and ports, the storage formatted (KRaft), the JVM started and answering."""
        _RUNNING.add(self)
        self._prepare_run_dir(classpath)
        base = java_command(self.version, classpath=classpath, run_dir=self.run_dir, heap_mb=self._heap_mb)
        if self._zookeeper is None:
            self._format_storage(base)
        command = [*base, "kafka.Kafka", str(self.run_dir / "server.properties")]
        self._process = start_java(command, self.logs_dir / "stdout.log")
        self._wait_ready()

    def _remove_run_dir(self) -> None:
        """Remove the run folder when it is a temporary one."""
        if self._given_dir is None and self._run_dir is not None:
            shutil.rmtree(self._run_dir, ignore_errors=True)
            self._run_dir = None

    def _stop_processes(self, timeout_s: float) -> None:
        # the broker first: one whose ZooKeeper is gone retries its controlled shutdown until killed
        process, self._process = self._process, None
        zookeeper, self._zookeeper = self._zookeeper, None
        _RUNNING.discard(self)
        try:
            stop_process(process, timeout_s)
        finally:
            if zookeeper is not None:
                zookeeper.stop(timeout_s)

    def _prepare_run_dir(self, classpath: Path) -> None:
        if self._given_dir is None:
            self._run_dir = Path(tempfile.mkdtemp(prefix=f"kcompact-kafka-{self.version}-"))
        else:
            self._run_dir = self._given_dir
            shutil.rmtree(self._run_dir / "data", ignore_errors=True)
            shutil.rmtree(self._run_dir / "zookeeper", ignore_errors=True)
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self._ports = {self.port}
        if uses_kraft(self.version):
            quorum: dict[str, Any] = {"controller_port": free_port()}
            self._ports.add(quorum["controller_port"])
        else:
            self._zookeeper = ZooKeeperServer(classpath=classpath, run_dir=self.run_dir, port=free_port())
            self._zookeeper.start(timeout_s=self._startup_timeout_s)
            quorum = {"zookeeper_connect": self._zookeeper.connect}
        text = server_properties(
            port=self.port, log_dir=str(self.log_dir), release=release_line(self.version), overrides=self._overrides,
            **quorum,
        )  # fmt: skip
        (self.run_dir / "server.properties").write_text(text)
        (self.run_dir / "log4j2.properties").write_text(log4j2_properties())
        (self.run_dir / "log4j.properties").write_text(log4j_properties())

    def _serves(self) -> bool:
        """Whether this start's JVM answers on its port (not another process that took the port before it)."""
        ours = self._process is not None and serves(self._process.pid, self.port)
        return ours and _answers_metadata(self.bootstrap_servers)

    def _port_was_taken(self) -> bool:
        """Whether ``server.log`` says the broker failed to bind one of this start's ports."""
        log = self.logs_dir / "server.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        return any(f"failed to bind to 127.0.0.1:{port}:" in text for port in self._ports)

    def _format_storage(self, base: list[str]) -> None:
        command = [*base, "kafka.tools.StorageTool", "format", "-t", new_cluster_id()]
        command += ["-c", str(self.run_dir / "server.properties")]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        if result.returncode != 0:
            raise BrokerError(
                f"kafka-storage format failed (exit {result.returncode}):\n{result.stdout}{result.stderr}"
            )

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self._startup_timeout_s
        while time.monotonic() < deadline:
            if not self.is_running():
                message = f"Kafka {self.version} exited during startup:\n{self.log_tail()}"
                raise PortTaken(message) if self._port_was_taken() else BrokerError(message)
            if self._serves():
                return
            time.sleep(0.5)
        raise BrokerError(f"Kafka {self.version} not ready after {self._startup_timeout_s} s:\n{self.log_tail()}")


def _answers_metadata(bootstrap_servers: str) -> bool:
    from kafka.admin import KafkaAdminClient
    from kafka.errors import KafkaError

    try:
        admin = KafkaAdminClient(bootstrap_servers=bootstrap_servers, request_timeout_ms=3000)
    except (KafkaError, OSError):
        return False
    try:
        return bool(admin.describe_cluster().get("brokers"))
    except KeyError:  # kafka-python cannot parse DescribeCluster v0 (3.3-3.5: no endpoint_type): ask Metadata
        return _lists_topics(admin)
    except (KafkaError, OSError):
        return False
    finally:
        admin.close()


def _lists_topics(admin: KafkaAdminClient) -> bool:
    from kafka.errors import KafkaError

    try:
        admin.list_topics()
    except (KafkaError, OSError):
        return False
    return True


@atexit.register
def _stop_all() -> None:
    for broker in list(_RUNNING):
        broker.stop(timeout_s=10.0)
