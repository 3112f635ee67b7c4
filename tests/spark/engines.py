"""Real Spark engines on 127.0.0.1 for the engine tests, started from pyspark's own scripts.

* A standalone master and one worker (``bin/spark-class ...deploy.master.Master`` / ``...deploy.worker.Worker``,
  what ``start-master.sh`` and ``start-worker.sh`` run; pip's pyspark ships ``spark-class`` but not those two).
* A Spark Connect server on that master (``sbin/start-connect-server.sh --wait``), started with the JVM
  segment-file source's and the Kafka connector's jars.

Every process gets its own process group, so stopping one stops what it started (the worker's executors);
logs and work folders live under one scratch folder. The executors run :func:`executor_python`: an
interpreter with kcompact_nb's dependencies but not kcompact_nb, so only the zip the package ships reaches them.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pyspark

SPARK_HOME = Path(pyspark.__file__).resolve().parent
START_TIMEOUT_S = 180.0
APP_CORES = 2
"""Task slots per application: the Connect server's and one classic application's run side by side on the
worker, which offers slots for both (more than the machine's cores: slots, not CPUs)."""
EXECUTOR_MEMORY = "1g"
WORKER_CORES = 2 * APP_CORES
WORKER_MEMORY = "2g"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class EngineProcess:
    """One engine JVM (and whatever it starts), its log file, and how to wait for it and stop it."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path

    def wait_for(self, pattern: str, timeout_s: float = START_TIMEOUT_S) -> re.Match[str]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            match = re.search(pattern, self.log.read_text(errors="replace"))
            if match:
                return match
            if self.process.poll() is not None:
                break
            time.sleep(0.5)
        tail = self.log.read_text(errors="replace")[-3000:]
        raise RuntimeError(
            f"{self.name} did not log {pattern!r} within {timeout_s:.0f} s (exit {self.process.poll()}):\n{tail}"
        )

    def stop(self) -> None:
        """SIGTERM to the process group (Spark's shutdown hooks stop executors), SIGKILL after 20 s."""
        for sig, wait_s in ((signal.SIGTERM, 20.0), (signal.SIGKILL, 10.0)):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                return
            try:
                self.process.wait(timeout=wait_s)
            except subprocess.TimeoutExpired:
                continue
            deadline = time.monotonic() + wait_s
            while live_group_members(self.process.pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            if not live_group_members(self.process.pid):
                return


def live_group_members(pgid: int) -> list[int]:
    """The processes of group ``pgid`` that still run: zombies, which init reaps in its own time, do not count."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()  # after "pid (comm)": state, ppid, pgrp, ...
        except (OSError, IndexError):
            continue  # the process ended while being read
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def engine_env(scratch: Path, python: Path) -> dict[str, str]:
    """What every engine process and driver gets: loopback, logs in ``scratch``, the executors' Python."""
    conf_dir = scratch / "conf"
    conf_dir.mkdir(exist_ok=True)
    # How an operator caps applications sharing a small worker: spark-defaults.conf in $SPARK_CONF_DIR.
    (conf_dir / "spark-defaults.conf").write_text(
        f"spark.cores.max {APP_CORES}\nspark.executor.memory {EXECUTOR_MEMORY}\n"
    )
    return {
        **os.environ,
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_CONF_DIR": str(conf_dir),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_LOG_DIR": str(scratch / "logs"),
        "SPARK_PID_DIR": str(scratch / "pids"),
        "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",  # no REST server on its fixed port 6066
        "PYSPARK_PYTHON": str(python),
    }


def start(name: str, command: list[str], env: dict[str, str], scratch: Path) -> EngineProcess:
    log = scratch / f"{name}.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=scratch, start_new_session=True
        )
    return EngineProcess(name, process, log)


@dataclass
class Standalone:
    """A master and a worker; ``url`` is ``spark://127.0.0.1:<port>``."""

    url: str
    processes: list[EngineProcess] = field(default_factory=list)

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.stop()


def start_standalone(scratch: Path, env: dict[str, str]) -> Standalone:
    spark_class = str(SPARK_HOME / "bin" / "spark-class")
    env = {**env, "SPARK_DAEMON_MEMORY": "256m"}  # the master's and worker's heaps (not the Connect server's)
    port = free_port()
    cluster = Standalone(f"spark://127.0.0.1:{port}")
    try:
        master = start(
            "master",
            [
                spark_class,
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--webui-port",
                str(free_port()),
            ],
            env,
            scratch,
        )
        cluster.processes.append(master)
        master.wait_for(r"I have been elected leader")
        worker_args = [
            "--host",
            "127.0.0.1",
            "--cores",
            str(WORKER_CORES),
            "--memory",
            WORKER_MEMORY,
            "--webui-port",
            str(free_port()),
            "--work-dir",
            str(scratch / "work"),
        ]
        worker = start(
            "worker", [spark_class, "org.apache.spark.deploy.worker.Worker", cluster.url, *worker_args], env, scratch
        )
        cluster.processes.append(worker)
        master.wait_for(r"Registering worker 127\.0\.0\.1:\d+ with")
    except BaseException:
        cluster.stop()
        raise
    return cluster


def start_connect_server(
    scratch: Path, env: dict[str, str], master_url: str, jars: list[Path]
) -> tuple[str, EngineProcess]:
    """A Spark Connect server on ``master_url`` with ``jars``; returns its ``sc://`` URL and process."""
    port = free_port()
    conf = {
        "spark.connect.grpc.binding.address": "127.0.0.1",
        "spark.connect.grpc.binding.port": str(port),
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": "false",
    }
    command = [
        str(SPARK_HOME / "sbin" / "start-connect-server.sh"),
        "--wait",
        "--master",
        master_url,
        "--driver-memory",
        "1g",
    ]
    command += ["--jars", ",".join(map(str, jars))]
    for key, value in conf.items():
        command += ["--conf", f"{key}={value}"]
    server = start("connect-server", command, env, scratch)
    try:
        server.wait_for(r"Spark Connect server started at")
    except BaseException:
        server.stop()
        raise
    return f"sc://127.0.0.1:{port}", server


def executor_python(scratch: Path) -> Path:
    """A virtual environment that sees this one's packages (a .pth line) but not its editable kcompact_nb."""
    venv = scratch / "executor-python"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    packages = next(p for p in map(Path, sys.path) if p.name == "site-packages" and (p / "pyspark").is_dir())
    (site / "kcompact-deps.pth").write_text(f"{packages}\n")
    return venv / "bin" / "python"
