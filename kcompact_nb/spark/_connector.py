"""Spark's Kafka source jars (``spark-sql-kafka-0-10_2.13``) resolved once with Maven (real-kafka.md 5.1-5.2).

Spark's own route, ``spark.jars.packages`` through Ivy, needs the connector *and* its
``spark-token-provider-kafka-0-10_2.13`` at exactly the pyspark version on Maven Central. Central
lacks some of these releases (no 4.3.0 connector, no token provider after 4.0.0), and Ivy cannot
mix versions, so the jars are resolved with Maven (``tools/spark-kafka/pom.xml``, the fallback of
real-kafka.md 5.2) and passed as ``spark.jars``. :data:`CONNECTOR_SUBSTITUTES` names the versions
used where the matching ones are missing; jars the pyspark wheel already ships are left out.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

from kcompact_nb.core import KcompactError

_TOOLS_DIR = Path(__file__).resolve().parents[2] / "tools" / "spark-kafka"
_COMPLETE_MARKER = ".complete"
_VERSIONED_JAR = re.compile(r"^(?P<artifact>.+?)-\d[\w.+-]*\.jar$")


class ConnectorVersions(NamedTuple):
    """Versions of ``spark-sql-kafka-0-10_2.13`` and ``spark-token-provider-kafka-0-10_2.13``."""

    connector: str
    token_provider: str


CONNECTOR_SUBSTITUTES: dict[str, ConnectorVersions] = {
    "4.2.0": ConnectorVersions("4.2.0", "4.0.0"),
    "4.2.1": ConnectorVersions("4.2.0", "4.0.0"),
    "4.3.0": ConnectorVersions("4.2.0", "4.0.0"),
}
"""pyspark releases whose matching connector (or token provider) is missing from Maven Central.

Checked against Central: the newest connector there is 4.2.0 and the newest 4.x token provider
4.0.0. The 4.2.0 connector with the 4.0.0 token provider reads a live broker under pyspark 4.3.0
(tests/spark/test_load_kafka.py).
"""


class ConnectorError(KcompactError, RuntimeError):
    """The Kafka connector jars could not be resolved."""


def connector_versions(pyspark_version: str) -> ConnectorVersions:
    """The connector versions used for ``pyspark_version``: the same release unless substituted."""
    return CONNECTOR_SUBSTITUTES.get(pyspark_version, ConnectorVersions(pyspark_version, pyspark_version))


def tools_dir() -> Path:
    """The folder holding ``pom.xml`` (``$KCOMPACT_SPARK_KAFKA_TOOLS`` overrides it)."""
    return Path(os.environ.get("KCOMPACT_SPARK_KAFKA_TOOLS", str(_TOOLS_DIR)))


def kafka_connector_jars(pyspark_version: str | None = None, *, timeout_s: float = 600.0) -> list[Path]:
    """The connector's jars for ``pyspark_version`` (default: the installed one), resolving them when missing.

    Runs ``mvn dependency:copy-dependencies`` once into ``tools/spark-kafka/classpath/<version>/``
    with a project-local Maven repository (the user's ``~/.m2`` stays untouched); a marker file
    records a complete copy. Needs ``mvn`` on ``PATH`` the first time.
    """
    version = pyspark_version or _installed_pyspark()
    target = tools_dir() / "classpath" / version
    if not (target / _COMPLETE_MARKER).exists():
        _resolve(version, target, timeout_s)
    bundled = _bundled_artifacts()
    jars = sorted(target.glob("*.jar"))
    return [jar for jar in jars if _artifact(jar.name) not in bundled]


def _resolve(version: str, target: Path, timeout_s: float) -> None:
    if shutil.which("mvn") is None:
        raise ConnectorError("Maven ('mvn') is not on PATH; it is needed once to resolve Spark's Kafka connector")
    versions = connector_versions(version)
    command = [
        "mvn", "-B", "-q", "-f", str(tools_dir() / "pom.xml"),
        f"-Dspark.kafka.version={versions.connector}",
        f"-Dspark.token.provider.version={versions.token_provider}",
        f"-Dmaven.repo.local={tools_dir() / 'classpath' / '.m2'}",
        "dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={target}",
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, check=False)
    if result.returncode != 0:
        tail = (result.stdout + result.stderr)[-3000:]
        raise ConnectorError(
            f"Maven could not resolve Spark's Kafka connector {versions} (exit {result.returncode}):\n{tail}"
        )
    (target / _COMPLETE_MARKER).write_text(f"{versions.connector} {versions.token_provider}\n")


def _installed_pyspark() -> str:
    import pyspark

    return str(pyspark.__version__)


def _bundled_artifacts() -> set[str]:
    """Artifact names of the jars inside the pyspark wheel (never added twice)."""
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    return {_artifact(p.name) for p in jars.glob("*.jar")}


def _artifact(jar_name: str) -> str:
    match = _VERSIONED_JAR.match(jar_name)
    return match.group("artifact") if match else jar_name
