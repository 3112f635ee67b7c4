"""A real HDFS on 127.0.0.1 for the tests that read ``hdfs://`` URLs: Hadoop's own single-JVM test cluster.

Hadoop's ``MiniDFSCluster`` (one NameNode and one DataNode, from ``hadoop-client-minicluster`` on Maven
Central at the Hadoop version the pyspark wheel bundles; ``tools/hdfs-minicluster/pom.xml``), started by
Hadoop's ``org.apache.hadoop.test.MiniDFSClusterManager``, which writes the NameNode's port to a JSON file.
The wheel's own ``hadoop-client-api``/``-runtime`` jars complete the classpath, so the cluster and Spark run
the same Hadoop classes. Files go in as a data engineer puts them: ``hdfs dfs -put -p`` (Hadoop's
``FsShell``, keeping modification times), with a client configuration in a ``HADOOP_CONF_DIR``-style folder.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from kcompact_nb.maven import resolve_dependencies
from tests.spark.engines import SPARK_HOME, EngineProcess, start

TOOLS = Path(__file__).resolve().parents[2] / "tools" / "hdfs-minicluster"
START_TIMEOUT_S = 120.0
MAVEN_TIMEOUT_S = 600.0
PUT_TIMEOUT_S = 300.0
WHEEL_JARS = (
    "hadoop-client-api",
    "hadoop-client-runtime",
    "slf4j-api",
    "log4j-api",
    "log4j-core",
    "log4j-slf4j2-impl",
    "jcl-over-slf4j",
)
"""The jars of the pyspark wheel the cluster runs with: Hadoop's client classes and one logging stack."""
QUICK_JVM = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
"""Short-lived test JVMs start in about half the time with the client compiler only and the serial collector."""


def hadoop_version() -> str:
    """The Hadoop release the pyspark wheel bundles (its ``hadoop-client-api-<version>.jar``)."""
    names = [jar.name for jar in (SPARK_HOME / "jars").glob("hadoop-client-api-*.jar")]
    match = re.fullmatch(r"hadoop-client-api-(.+)\.jar", names[0]) if len(names) == 1 else None
    if match is None:
        raise RuntimeError(f"expected one hadoop-client-api jar in {SPARK_HOME / 'jars'}, found {names}")
    return match[1]


def classpath(version: str) -> str:
    """The cluster's classpath: the minicluster jars (resolved with Maven once per version) and the wheel's."""
    target = resolve_dependencies(
        TOOLS / "pom.xml", f"hdfs-minicluster-{version}", properties={"hadoop.version": version},
        timeout_s=MAVEN_TIMEOUT_S,
    )  # fmt: skip
    wheel = [jar for name in WHEEL_JARS for jar in (SPARK_HOME / "jars").glob(f"{name}-[0-9]*.jar")]
    return ":".join(map(str, [*sorted(target.glob("*.jar")), *wheel]))


@dataclass
class MiniHdfs:
    """A running cluster: ``url`` is ``hdfs://127.0.0.1:<port>``; ``conf`` holds its client configuration."""

    url: str
    process: EngineProcess
    conf: Path
    classpath: str

    def put(self, *local: Path, remote: str = "/") -> None:
        """``hdfs dfs -put -p -t 4 LOCAL... REMOTE``: copies keeping modification times, four files at a time."""
        command = [
            "java",
            *QUICK_JVM,
            "-cp",
            f"{self.conf}:{self.classpath}",
            "org.apache.hadoop.fs.FsShell",
            "-put",
            "-p",
            "-t",
            "4",
        ]
        result = subprocess.run(
            [*command, *map(str, local), remote], capture_output=True, text=True, timeout=PUT_TIMEOUT_S, check=False
        )
        if result.returncode != 0:
            raise RuntimeError(f"hdfs dfs -put {' '.join(map(str, local))} {remote} failed:\n{result.stderr[-3000:]}")

    def stop(self) -> None:
        self.process.stop()


def start_hdfs(scratch: Path) -> MiniHdfs:
    """One NameNode and one DataNode on 127.0.0.1 (ports chosen by Hadoop), storing blocks under ``scratch``."""
    jars = classpath(hadoop_version())
    details = scratch / "namenode.json"
    command = [
        "java", *QUICK_JVM, "-Xmx384m", f"-Dtest.build.data={scratch / 'data'}", "-cp", jars,
        "org.apache.hadoop.test.MiniDFSClusterManager", "-format", "-datanodes", "1", "-writeDetails", str(details),
    ]  # fmt: skip
    process = start("hdfs", command, dict(os.environ), scratch)
    try:
        port = _namenode_port(process, details)
    except BaseException:
        process.stop()
        raise
    url = f"hdfs://127.0.0.1:{port}"
    return MiniHdfs(url, process, _client_conf(scratch / "conf", url), jars)


def _namenode_port(process: EngineProcess, details: Path) -> int:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and process.process.poll() is None:
        if details.exists() and details.stat().st_size:
            return int(json.loads(details.read_text())["namenode_port"])
        time.sleep(0.2)
    log = process.log.read_text(errors="replace")[-3000:]
    raise RuntimeError(
        f"the HDFS test cluster did not start within {START_TIMEOUT_S:.0f} s (exit {process.process.poll()}):\n{log}"
    )


def _client_conf(folder: Path, url: str) -> Path:
    """core-site.xml naming the cluster; hdfs-site.xml with one replica (one DataNode) and a short wait for it.

    A file is closed once the DataNode has reported its block (``DFSOutputStream.completeFile`` polls,
    starting at ``dfs.client.block.write.locateFollowingBlock.initial.delay.ms``, 400 ms by default).
    """
    folder.mkdir(exist_ok=True)
    sites = {
        "core-site.xml": {"fs.defaultFS": url},
        "hdfs-site.xml": {"dfs.replication": "1", "dfs.client.block.write.locateFollowingBlock.initial.delay.ms": "10"},
    }
    for name, properties in sites.items():
        entries = "".join(
            f"<property><name>{key}</name><value>{value}</value></property>" for key, value in properties.items()
        )
        (folder / name).write_text(f'<?xml version="1.0"?>\n<configuration>{entries}</configuration>\n')
    return folder
