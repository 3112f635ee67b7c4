"""Resolve a Kafka broker's runtime classpath from Maven Central, once per version."""

from __future__ import annotations

from pathlib import Path

from kcompact_nb.maven import jars_dir, recipe, resolve_dependencies

from ._errors import BrokerError

#: Newest releases of the two Kafka lines the project runs against.
DEFAULT_VERSION = "4.4.0"
KAFKA_3_VERSION = "3.9.2"

#: Releases whose POMs name a ``kafka-tools-api`` that Maven Central does not have: use this one instead.
_TOOLS_API_SUBSTITUTES = {"4.4.0": "4.3.1"}


def kafka_major(version: str) -> int:
    """Major version number of a Kafka release string such as ``"4.4.0"``."""
    head = version.split(".", 1)[0]
    if not head.isdigit() or int(head) < 3:
        raise BrokerError(f"unsupported Kafka version {version!r}: expected 3.x or 4.x, e.g. '4.4.0' or '3.9.2'")
    return int(head)


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
    properties = {"kafka.version": version, "kafka.tools.api.version": _TOOLS_API_SUBSTITUTES.get(version, version)}
    profile = "kafka4" if kafka_major(version) >= 4 else "kafka3"
    target = resolve_dependencies(
        recipe("kafka-broker"), _folder(version), properties=properties, profile=profile, timeout_s=timeout_s
    )
    if not (target / f"kafka_2.13-{version}.jar").exists():
        raise BrokerError(f"Maven finished but {target} has no kafka_2.13-{version}.jar")
    return target
