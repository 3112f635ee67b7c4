"""Resolve a Kafka broker's runtime classpath from Maven Central, once per version."""

from __future__ import annotations

from pathlib import Path

from kcompact_nb.maven import jars_dir, recipe, resolve_dependencies

from ._errors import BrokerError

#: Newest releases of the two Kafka lines the project runs against.
DEFAULT_VERSION = "4.4.0"
KAFKA_3_VERSION = "3.9.2"

#: The newest patch of every release line the broker layer runs (KRaft, 3.3 on), from Maven Central's
#: kafka-clients metadata in November 2026: what ``kcompact conformance --versions all`` runs.
KRAFT_RELEASES = (
    "3.3.2", "3.4.1", "3.5.2", "3.6.2", "3.7.2", "3.8.1", "3.9.2", "4.0.2", "4.1.2", "4.2.2", "4.3.1", "4.4.0",
)  # fmt: skip

#: Releases whose POMs name a ``kafka-tools-api`` that Maven Central does not have: use this one instead.
_TOOLS_API_SUBSTITUTES = {"4.4.0": "4.3.1"}
#: The first release whose jars include a ``kafka-tools-api`` module on Maven Central.
_FIRST_TOOLS_API = (3, 5)
#: The oldest release the broker layer runs: KRaft without ZooKeeper is production-ready from 3.3 (KIP-833).
OLDEST_KRAFT_RELEASE = (3, 3)


def release_line(version: str) -> tuple[int, int]:
    """``(major, minor)`` of a Kafka release the broker layer runs (3.3 or newer), e.g. ``(3, 7)`` for ``"3.7.2"``."""
    parts = version.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts) or tuple(map(int, parts[:2])) < OLDEST_KRAFT_RELEASE:
        raise BrokerError(
            f"unsupported Kafka version {version!r}: the broker layer runs KRaft releases from 3.3.0 on, "
            "e.g. '4.4.0', '3.9.2' or '3.3.2'"
        )
    return int(parts[0]), int(parts[1])


def kafka_major(version: str) -> int:
    """Major version number of a Kafka release string such as ``"4.4.0"`` (3.3 or newer)."""
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
    properties = {"kafka.version": version}
    if release_line(version) >= _FIRST_TOOLS_API:
        properties["kafka.tools.api.version"] = _TOOLS_API_SUBSTITUTES.get(version, version)
    profile = "kafka4" if kafka_major(version) >= 4 else "kafka3"
    target = resolve_dependencies(
        recipe("kafka-broker"), _folder(version), properties=properties, profile=profile, timeout_s=timeout_s
    )
    if not (target / f"kafka_2.13-{version}.jar").exists():
        raise BrokerError(f"Maven finished but {target} has no kafka_2.13-{version}.jar")
    return target
