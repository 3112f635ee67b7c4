"""The codec libraries each Kafka release ships, from its kafka-clients POM, and the native library inside each.

A compressed batch's bytes depend on the library that compressed them, so the encoder needs, per
``kafka.version``, the release of libzstd (inside zstd-jni), of lz4 (inside lz4-java) and of snappy
(inside snappy-java). ``KAFKA_CLIENTS_CODECS`` lists every release where one of the three changed, read
from the ``kafka-clients`` POM on Maven Central (3.7.2 and later) or ``gradle/dependencies.gradle`` at
the release tag (earlier ones); a release uses the last row at or below it. docs/cleaner-rules.md
("Codec libraries by release") says which of them the project reproduces.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple, Protocol


class Release(NamedTuple):
    """A Kafka release number as the table keeps it; a :class:`KafkaRelease`, ordered as a tuple."""

    major: int
    minor: int
    patch: int


class KafkaRelease(Protocol):
    """A Kafka release number (core's ``KafkaVersion`` is one): which release's clients wrote a batch's bytes."""

    @property
    def major(self) -> int: ...

    @property
    def minor(self) -> int: ...

    @property
    def patch(self) -> int: ...

    def __hash__(self) -> int: ...


class ClientsCodecs(NamedTuple):
    """The codec artifacts of one kafka-clients release (None: the release has no zstd, before 2.1)."""

    zstd_jni: str | None
    lz4_java: str
    snappy_java: str


KAFKA_CLIENTS_CODECS: tuple[tuple[Release, ClientsCodecs], ...] = (
    (Release(2, 0, 0), ClientsCodecs(None, "1.4.1", "1.1.7.1")),
    (Release(2, 1, 0), ClientsCodecs("1.3.5-4", "1.5.0", "1.1.7.2")),
    (Release(2, 1, 1), ClientsCodecs("1.3.7-1", "1.5.0", "1.1.7.2")),
    (Release(2, 2, 0), ClientsCodecs("1.3.8-1", "1.5.0", "1.1.7.2")),
    (Release(2, 3, 0), ClientsCodecs("1.4.0-1", "1.6.0", "1.1.7.3")),
    (Release(2, 4, 0), ClientsCodecs("1.4.3-1", "1.6.0", "1.1.7.3")),
    (Release(2, 5, 0), ClientsCodecs("1.4.4-7", "1.7.1", "1.1.7.3")),
    (Release(2, 7, 0), ClientsCodecs("1.4.5-6", "1.7.1", "1.1.7.7")),
    (Release(2, 8, 0), ClientsCodecs("1.4.9-1", "1.7.1", "1.1.8.1")),
    (Release(3, 0, 0), ClientsCodecs("1.5.0-2", "1.7.1", "1.1.8.1")),
    (Release(3, 1, 0), ClientsCodecs("1.5.0-4", "1.8.0", "1.1.8.4")),
    (Release(3, 2, 0), ClientsCodecs("1.5.2-1", "1.8.0", "1.1.8.4")),
    (Release(3, 5, 0), ClientsCodecs("1.5.5-1", "1.8.0", "1.1.10.0")),
    (Release(3, 5, 1), ClientsCodecs("1.5.5-1", "1.8.0", "1.1.10.1")),
    (Release(3, 5, 2), ClientsCodecs("1.5.5-1", "1.8.0", "1.1.10.5")),
    (Release(3, 6, 0), ClientsCodecs("1.5.5-1", "1.8.0", "1.1.10.4")),
    (Release(3, 6, 1), ClientsCodecs("1.5.5-1", "1.8.0", "1.1.10.5")),
    (Release(3, 7, 0), ClientsCodecs("1.5.5-6", "1.8.0", "1.1.10.5")),
    (Release(3, 7, 1), ClientsCodecs("1.5.6-3", "1.8.0", "1.1.10.5")),
    (Release(3, 7, 2), ClientsCodecs("1.5.6-4", "1.8.0", "1.1.10.5")),
    (Release(3, 8, 0), ClientsCodecs("1.5.6-3", "1.8.0", "1.1.10.5")),
    (Release(3, 8, 1), ClientsCodecs("1.5.6-4", "1.8.0", "1.1.10.5")),
    (Release(3, 9, 2), ClientsCodecs("1.5.6-4", "1.10.1", "1.1.10.5")),
    (Release(4, 0, 0), ClientsCodecs("1.5.6-6", "1.8.0", "1.1.10.5")),
    (Release(4, 0, 2), ClientsCodecs("1.5.6-6", "1.10.1", "1.1.10.5")),
    (Release(4, 1, 0), ClientsCodecs("1.5.6-10", "1.8.0", "1.1.10.7")),
    (Release(4, 1, 2), ClientsCodecs("1.5.6-10", "1.10.1", "1.1.10.7")),
    (Release(4, 2, 0), ClientsCodecs("1.5.6-10", "1.10.1", "1.1.10.7")),
    (Release(4, 2, 2), ClientsCodecs("1.5.6-10", "1.11.2", "1.1.10.7")),
    (Release(4, 3, 0), ClientsCodecs("1.5.6-10", "1.10.2", "1.1.10.7")),
    (Release(4, 4, 0), ClientsCodecs("1.5.7-17", "1.11.2", "1.1.10.7")),
)
"""(first release, its codec artifacts): each release where zstd-jni, lz4-java or snappy-java changed."""

_LZ4_IN_LZ4_JAVA = {"1.4": (1, 8), "1.5": (1, 8), "1.6": (1, 9), "1.7": (1, 9), "1.8": (1, 9)}
"""lz4-java's bundled lz4 (major, minor), per its changelog: 1.8.x up to lz4-java 1.5, 1.9.x in 1.6-1.8, 1.10 after."""


NEWEST_RELEASE: Release = KAFKA_CLIENTS_CODECS[-1][0]
"""The newest Kafka release the table knows, whose bytes :func:`~kcompact_nb.record.encode_batch` writes by default."""


def release_of(version: KafkaRelease) -> Release:
    """``version`` as (major, minor, patch)."""
    return Release(version.major, version.minor, version.patch)


def clients_codecs(version: KafkaRelease) -> ClientsCodecs:
    """The codec artifacts kafka-clients ``version`` depends on (the releases below are each looked up once per
    version: a pass asks for every batch it rewrites)."""
    release = release_of(version)
    found = KAFKA_CLIENTS_CODECS[0][1]
    for first, codecs in KAFKA_CLIENTS_CODECS:
        if first > release:
            break
        found = codecs
    return found


@cache
def zstd_release(version: KafkaRelease) -> tuple[int, int, int] | None:
    """The libzstd release inside the zstd-jni of Kafka ``version`` (zstd-jni ``1.5.6-4`` holds 1.5.6);
    None before 2.1, which has no zstd."""
    jni = clients_codecs(version).zstd_jni
    if jni is None:
        return None
    major, minor, patch = jni.split("-")[0].split(".")
    return int(major), int(minor), int(patch)


@cache
def lz4_release(version: KafkaRelease) -> tuple[int, int]:
    """Major and minor release of the lz4 library inside the lz4-java of Kafka ``version``."""
    java = clients_codecs(version).lz4_java
    return _LZ4_IN_LZ4_JAVA.get(java.rsplit(".", 1)[0], (1, 10))


@cache
def snappy_release(version: KafkaRelease) -> tuple[int, int, int]:
    """The snappy release inside the snappy-java of Kafka ``version`` (snappy-java ``1.1.10.5`` holds 1.1.10)."""
    major, minor, patch, _ = clients_codecs(version).snappy_java.split(".")
    return int(major), int(minor), int(patch)


def version_number(release: tuple[int, int, int]) -> int:
    """A library ``release`` as its own version function tells it (``ZSTD_versionNumber``, ``LZ4_versionNumber``):
    major * 10000 + minor * 100 + patch."""
    return release[0] * 10000 + release[1] * 100 + release[2]
