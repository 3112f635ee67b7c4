"""Low-level helpers for the broker's JVMs: free ports, cluster ids, java command lines, their process groups,
log tails."""

from __future__ import annotations

import base64
import contextlib
import os
import signal
import socket
import subprocess
import uuid
from pathlib import Path

from ._classpath import kafka_major


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def new_cluster_id() -> str:
    """A KRaft cluster id: 16 random bytes, base64url without padding, not starting with ``-`` (``Uuid``)."""
    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not cluster_id.startswith("-"):
            return cluster_id


def java_command(version: str, *, classpath: Path, run_dir: Path, heap_mb: int) -> list[str]:
    """``java`` with heap, ``kafka.logs.dir`` and the version's logging flag (no main class yet)."""
    if kafka_major(version) >= 4:
        log_flag = f"-Dlog4j2.configurationFile={run_dir / 'log4j2.properties'}"
    else:
        log_flag = f"-Dlog4j.configuration=file:{run_dir / 'log4j.properties'}"
    return [
        "java", f"-Xmx{heap_mb}m", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Djava.awt.headless=true",
        f"-Dkafka.logs.dir={run_dir / 'logs'}", log_flag, "-cp", f"{classpath}/*",
    ]  # fmt: skip


def tail(path: Path, lines: int = 30) -> str:
    """The last ``lines`` lines of a text file, or a note when it does not exist."""
    if not path.exists():
        return f"({path} does not exist)"
    text = path.read_text(errors="replace").splitlines()
    return "\n".join(text[-lines:])


def start_java(command: list[str], log_path: Path) -> subprocess.Popen[bytes]:
    """Start ``command`` as the leader of a new process group, its stdout and stderr into ``log_path``."""
    with open(log_path, "wb") as out:
        return subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )


def stop_process(process: subprocess.Popen[bytes] | None, timeout_s: float) -> None:
    """SIGTERM the process group :func:`start_java` made (an orderly shutdown), SIGKILL after ``timeout_s``."""
    if process is None or process.poll() is not None:
        return
    _signal_group(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _signal_group(process.pid, signal.SIGKILL)
        process.wait(timeout=timeout_s)


def port_open(port: int) -> bool:
    """True when something accepts TCP connections on 127.0.0.1:``port``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


def listens(pid: int, port: int) -> bool | None:
    """Whether process ``pid`` holds a socket listening on TCP ``port``, read from ``/proc`` (None where it cannot
    tell): a port chosen free may be taken by another process before the JVM binds it, and then answers for it."""
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not all(table.exists() for table in tables):
        return None
    listening = set()
    for table in tables:
        for line in table.read_text().splitlines()[1:]:
            fields = line.split()  # sl, local_address (hex ip:hex port), rem_address, st (0A: LISTEN), ..., inode
            if fields[1].endswith(f":{port:04X}") and fields[3] == "0A":
                listening.add(f"socket:[{fields[9]}]")
    try:
        descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False  # the process is gone
    for descriptor in descriptors:
        with contextlib.suppress(OSError):  # closed meanwhile
            if os.readlink(descriptor) in listening:
                return True
    return False


def serves(pid: int, port: int) -> bool:
    """Whether process ``pid`` itself accepts TCP connections on 127.0.0.1:``port``, not another process that took the
    port before it bound it (where ``/proc`` cannot tell, whether the port accepts them)."""
    return port_open(port) and listens(pid, port) is not False


def _signal_group(pid: int, sig: signal.Signals) -> None:
    # start_new_session made the JVM the leader of its own process group (pgid == pid).
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, sig)
