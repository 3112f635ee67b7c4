"""Spark's Kafka source jars (``spark-sql-kafka-0-10_2.13``) resolved once with Maven (real-kafka.md 5.1-5.2).

Spark's own route, ``spark.jars.packages`` through Ivy, needs the connector *and* its
``spark-token-provider-kafka-0-10_2.13`` at exactly the pyspark version on Maven Central. Central
lacks some of these releases (no 4.3.0 connector, no token provider after 4.0.0), and Ivy cannot
mix versions, so the jars are resolved with Maven (the ``spark-kafka`` recipe, the fallback of
real-kafka.md 5.2) and passed as ``spark.jars``. :data:`CONNECTOR_SUBSTITUTES` names the versions
used where the matching ones are missing; jars the pyspark wheel already ships are left out.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from kcompact_nb.maven import recipe, resolve_dependencies

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


def connector_versions(pyspark_version: str) -> ConnectorVersions:
    """The connector versions used for ``pyspark_version``: the same release unless substituted."""
    return CONNECTOR_SUBSTITUTES.get(pyspark_version, ConnectorVersions(pyspark_version, pyspark_version))


def kafka_connector_jars(pyspark_version: str | None = None, *, timeout_s: float = 600.0) -> list[Path]:
    """The connector's jars for ``pyspark_version`` (default: the installed one), resolving them when missing.

    Runs the ``spark-kafka`` Maven recipe once per version into the user cache folder
    (:func:`kcompact_nb.maven.resolve_dependencies`); needs ``mvn`` on ``PATH`` the first time.
    """
    version = pyspark_version or _installed_pyspark()
    versions = connector_versions(version)
    properties = {"spark.kafka.version": versions.connector, "spark.token.provider.version": versions.token_provider}
    target = resolve_dependencies(
        recipe("spark-kafka"), f"spark-kafka-{version}", properties=properties, timeout_s=timeout_s
    )
    bundled = _bundled_artifacts()
    jars = sorted(target.glob("*.jar"))
    return [jar for jar in jars if _artifact(jar.name) not in bundled]


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
