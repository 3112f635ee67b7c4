"""Resolve a Kafka broker's runtime classpath from Maven Central, once per version."""

from __future__ import annotations

from pathlib import Path

from kcompact_nb.maven import jars_dir, recipe, resolve_dependencies

from ._errors import BrokerError

#: Newest releases of the two Kafka lines the project runs against.
DEFAULT_VERSION = "4.4.0"
KAFKA_3_VERSION = "3.9.2"

#: The newest patch of every release line the broker layer runs in KRaft mode (3.3 on), from Maven Central's
#: kafka-clients metadata in November 2026.
KRAFT_RELEASES = (
    "3.3.2", "3.4.1", "3.5.2", "3.6.2", "3.7.2", "3.8.1", "3.9.2", "4.0.2", "4.1.2", "4.2.2", "4.3.1", "4.4.0",
)  # fmt: skip
#: The newest patch of every release line before 3.3, which the broker layer runs in ZooKeeper mode.
ZOOKEEPER_RELEASES = (
    "2.0.1", "2.1.1", "2.2.2", "2.3.1", "2.4.1", "2.5.1", "2.6.3", "2.7.2", "2.8.2", "3.0.2", "3.1.2", "3.2.3",
)  # fmt: skip
#: Every release line from 2.0 to 4.4 (newest patch each): what ``kcompact conformance --versions all`` runs.
MATRIX_RELEASES = ZOOKEEPER_RELEASES + KRAFT_RELEASES

#: Releases whose POMs name a ``kafka-tools-api`` that Maven Central does not have: use this one instead.
_TOOLS_API_SUBSTITUTES = {"4.4.0": "4.3.1"}
#: The first release whose jars include a ``kafka-tools-api`` module on Maven Central.
_FIRST_TOOLS_API = (3, 5)
#: The first release published for Scala 2.13 (``kafka_2.13``); older ones are ``kafka_2.12`` only.
_FIRST_SCALA_2_13 = (2, 4)
#: Before 2.5 Kafka ships ZooKeeper 3.4.13-3.5.7, whose client cannot connect on Java 14 and later
#: (ZOOKEEPER-3779: it parses ``InetSocketAddress.toString()``, whose format Java 14 changed): those releases
#: get ZooKeeper 3.5.9 (Kafka 2.6-2.8's) instead, client and server. The broker's own jars are the release's.
_ZOOKEEPER_SUBSTITUTE = "3.5.9"
_FIRST_JAVA_14_ZOOKEEPER = (2, 5)
#: The first release the broker layer runs in KRaft mode (production-ready from 3.3, KIP-833); older ones run
#: with a ZooKeeper started from the same jars.
FIRST_KRAFT_RELEASE = (3, 3)
_OLDEST_RELEASE = (2, 0)
_NEWEST_RELEASE = (4, 4)


def release_line(version: str) -> tuple[int, int]:
    """``(major, minor)`` of a Kafka release the broker layer runs (2.0 to 4.4), e.g. ``(3, 7)`` for ``"3.7.2"``."""
    parts = version.split(".")
    line = tuple(map(int, parts[:2])) if len(parts) == 3 and all(p.isdigit() for p in parts) else None
    if line is None or not _OLDEST_RELEASE <= line <= _NEWEST_RELEASE:
        raise BrokerError(
            f"unsupported Kafka version {version!r}: the broker layer runs releases 2.0.0 to 4.4.x "
            "(ZooKeeper mode before 3.3, KRaft from 3.3), e.g. '4.4.0', '3.9.2' or '2.8.2'"
        )
    return line[0], line[1]


def uses_kraft(version: str) -> bool:
    """True when the broker layer runs ``version`` in KRaft mode (3.3 on), False for ZooKeeper mode."""
    return release_line(version) >= FIRST_KRAFT_RELEASE


def kafka_major(version: str) -> int:
    """Major version number of a Kafka release string such as ``"4.4.0"`` (2.0 or newer)."""
    return release_line(version)[0]


def classpath_dir(version: str) -> Path:
    """Where the jars of ``version`` live: ``kafka-broker-<version>/`` in :func:`kcompact_nb.maven.jars_dir`."""
    return jars_dir() / _folder(version)


def _folder(version: str) -> str:
    return f"kafka-broker-{version}"


def resolve_classpath(version: str = DEFAULT_VERSION, *, timeout_s: float = 900.0) -> Path:
    """Return the folder of broker jars for ``version``, resolving it with Maven when missing.

    Runs the ``kafka-broker`` recipe with its ``kafka4`` (Log4j 2) or ``kafka3`` (reload4j) profile (see
    :func:`kcompact_nb.maven.resolve_dependencies`: once per version, into the user cache folder).
    """
    profile = "kafka4" if kafka_major(version) >= 4 else "kafka3"
    target = resolve_dependencies(
        recipe("kafka-broker"), _folder(version), properties=_recipe_properties(version), profile=profile,
        timeout_s=timeout_s,
    )  # fmt: skip
    jar = f"{_artifact(version)}-{version}.jar"
    if not (target / jar).exists():
        raise BrokerError(f"Maven finished but {target} has no {jar}")
    return target


def _artifact(version: str) -> str:
    return "kafka_2.13" if release_line(version) >= _FIRST_SCALA_2_13 else "kafka_2.12"


def _recipe_properties(version: str) -> dict[str, str]:
    """The ``kafka-broker`` recipe's properties for ``version``: artifact, and the substitutes it needs."""
    line = release_line(version)
    properties = {"kafka.version": version, "kafka.artifact": _artifact(version)}
    if line >= _FIRST_TOOLS_API:
        properties["kafka.tools.api.version"] = _TOOLS_API_SUBSTITUTES.get(version, version)
    if line < _FIRST_JAVA_14_ZOOKEEPER:
        properties["zookeeper.version"] = _ZOOKEEPER_SUBSTITUTE
    return properties
