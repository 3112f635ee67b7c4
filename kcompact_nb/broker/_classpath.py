"""Resolve a Kafka broker's runtime classpath from Maven Central, once per version."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from ._errors import BrokerError

#: Newest releases of the two Kafka lines the project runs against.
DEFAULT_VERSION = "4.4.0"
KAFKA_3_VERSION = "3.9.2"

_TOOLS_DIR = Path(__file__).resolve().parents[2] / "tools" / "kafka-broker"
_COMPLETE_MARKER = ".complete"

#: Releases whose POMs name a ``kafka-tools-api`` that Maven Central does not have: use this one instead.
_TOOLS_API_SUBSTITUTES = {"4.4.0": "4.3.1"}


def tools_dir() -> Path:
    """The folder holding ``pom.xml`` (``$KCOMPACT_KAFKA_TOOLS`` overrides it)."""
    return Path(os.environ.get("KCOMPACT_KAFKA_TOOLS", str(_TOOLS_DIR)))


def kafka_major(version: str) -> int:
    """Major version number of a Kafka release string such as ``"4.4.0"``."""
    head = version.split(".", 1)[0]
    if not head.isdigit() or int(head) < 3:
        raise BrokerError(f"unsupported Kafka version {version!r}: expected 3.x or 4.x, e.g. '4.4.0' or '3.9.2'")
    return int(head)


def classpath_dir(version: str) -> Path:
    """Where the jars of ``version`` live: ``tools/kafka-broker/classpath/<version>/``."""
    return tools_dir() / "classpath" / version


def missing_tools() -> list[str]:
    """Names of the external programs (``java``, ``mvn``) that are not on ``PATH``."""
    return [tool for tool in ("java", "mvn") if shutil.which(tool) is None]


def resolve_classpath(version: str = DEFAULT_VERSION, *, timeout_s: float = 900.0) -> Path:
    """Return the folder of broker jars for ``version``, resolving it with Maven when missing.

    Runs ``mvn dependency:copy-dependencies`` with the ``kafka4`` (Log4j 2) or ``kafka3`` (reload4j)
    profile of ``tools/kafka-broker/pom.xml``; the local Maven repository is kept under
    ``classpath/.m2`` so the user's ``~/.m2`` stays untouched. A marker file records a complete copy.
    """
    target = classpath_dir(version)
    if (target / _COMPLETE_MARKER).exists():
        return target
    if shutil.which("mvn") is None:
        raise BrokerError("Maven ('mvn') is not on PATH; it is needed once to resolve the Kafka broker jars")
    command = _maven_command(version, target)
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, check=False)
    if result.returncode != 0:
        tail = (result.stdout + result.stderr)[-3000:]
        raise BrokerError(f"Maven could not resolve Kafka {version} (exit {result.returncode}):\n{tail}")
    _check_jars(version, target)
    (target / _COMPLETE_MARKER).write_text(version + "\n")
    return target


def _maven_command(version: str, target: Path) -> list[str]:
    profile = "kafka4" if kafka_major(version) >= 4 else "kafka3"
    return [
        "mvn", "-B", "-q", "-f", str(tools_dir() / "pom.xml"), "-P", profile,
        f"-Dkafka.version={version}",
        f"-Dkafka.tools.api.version={_TOOLS_API_SUBSTITUTES.get(version, version)}",
        f"-Dmaven.repo.local={tools_dir() / 'classpath' / '.m2'}",
        "dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={target}",
    ]  # fmt: skip


def _check_jars(version: str, target: Path) -> None:
    if not (target / f"kafka_2.13-{version}.jar").exists():
        raise BrokerError(f"Maven finished but {target} has no kafka_2.13-{version}.jar")
