"""Configs by release: the properties and values a ``kafka.version`` does not know, and older defaults (spec 15).

Kafka's ``LogConfig.validateNames`` refuses a topic config its release does not define
(``Unknown topic config name: <name>``); a broker ignores an unknown ``server.properties`` entry with a
warning, which the simulator refuses instead, so that it never imitates a setting the release would not
apply. Each entry names the release and the Kafka change that brought the property or value. Where an
older release had another default (``max.message.bytes`` before 2.5, producer expiry before 3.4), a
property nothing sets takes that release's default.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kcompact_nb.core.model._config_keys import MIB
from kcompact_nb.core.model._errors import ConfigError
from kcompact_nb.core.model._versions import KafkaVersion


@dataclass(frozen=True)
class ReleaseChange:
    """A property (or one of its values, or its minimum) that Kafka ``release`` introduced with ``change``, and
    the patch releases of older lines it was backported to (``backports``: each from that patch on, in its line)."""

    name: str
    release: KafkaVersion
    change: str
    backports: tuple[KafkaVersion, ...] = ()

    def known_in(self, version: KafkaVersion) -> bool:
        """Whether Kafka ``version`` has the change."""
        return version >= self.release or any(
            (version.major, version.minor) == (b.major, b.minor) and version >= b for b in self.backports
        )

    def describe(self, version: KafkaVersion) -> str:
        also = "".join(f", {b}-{b.major}.{b.minor}.x" for b in self.backports)
        return f"Kafka {self.release}{also} introduced it ({self.change}); kafka.version is {version}"


_KIP_390 = "KIP-390, compression levels"
_KIP_354 = "KIP-354, max.compaction.lag.ms"
_KIP_854 = "KIP-854, producer id expiry separate from transactional.id.expiration.ms"
_DECOMPRESSED = ReleaseChange(
    "max.decompressed.message.bytes", KafkaVersion(4, 4), "apache/kafka#23429, bounded decompressed records",
    backports=(KafkaVersion(4, 2, 2),),
)  # fmt: skip
"""Seen in the releases' jars: 4.2.2 and 4.4.0 define it, 4.3.1, 4.1.2, 4.0.2 and 3.9.2 do not."""

TOPIC_CONFIGS_ADDED = (
    ReleaseChange("max.compaction.lag.ms", KafkaVersion(2, 3), _KIP_354),
    ReleaseChange("compression.gzip.level", KafkaVersion(3, 8), _KIP_390),
    ReleaseChange("compression.lz4.level", KafkaVersion(3, 8), _KIP_390),
    ReleaseChange("compression.zstd.level", KafkaVersion(3, 8), _KIP_390),
    ReleaseChange("internal.segment.bytes", KafkaVersion(4, 1), "KAFKA-19080, apache/kafka#19371"),
    _DECOMPRESSED,
)
"""Topic configs of the simulator that some accepted releases do not define."""

BROKER_CONFIGS_ADDED = (
    ReleaseChange("log.cleaner.max.compaction.lag.ms", KafkaVersion(2, 3), _KIP_354),
    ReleaseChange("compression.gzip.level", KafkaVersion(3, 8), _KIP_390),
    ReleaseChange("compression.lz4.level", KafkaVersion(3, 8), _KIP_390),
    ReleaseChange("compression.zstd.level", KafkaVersion(3, 8), _KIP_390),
    ReleaseChange("producer.id.expiration.ms", KafkaVersion(3, 4), _KIP_854),
    ReleaseChange("producer.id.expiration.check.interval.ms", KafkaVersion(3, 4), _KIP_854),
    _DECOMPRESSED,
)
"""Broker configs (and topic-default synonyms) of the simulator that some accepted releases do not define."""

ZSTD_CODEC = ReleaseChange("compression.type=zstd", KafkaVersion(2, 1), "KIP-110, zstd compression")
_CODECS_BEFORE_ZSTD = "uncompressed, snappy, lz4, gzip, producer"
"""``BrokerCompressionCodec.brokerCompressionOptions`` of Kafka 2.0, in its order."""

TOPIC_SEGMENT_MINIMUM = ReleaseChange("segment.bytes >= 1 MiB", KafkaVersion(4, 1), "KAFKA-19080, KIP-1030")
"""Kafka 4.0 raised only the broker's minimum; the topic config's ``atLeast(14)`` became 1 MiB in 4.1."""
BROKER_SEGMENT_MINIMUM = ReleaseChange("log.segment.bytes >= 1 MiB", KafkaVersion(4, 0), "KAFKA-16368, KIP-1030")


@dataclass(frozen=True)
class OlderDefault:
    """The default ``value`` of a config field before Kafka ``until`` changed it with ``change``."""

    field: str
    value: Any
    until: KafkaVersion
    change: str


BROKER_DEFAULTS_BEFORE = (OlderDefault("producer_id_expiration_ms", 604_800_000, KafkaVersion(3, 4), "KIP-854"),)
"""Before 3.4 producer ids expired after ``transactional.id.expiration.ms`` (7 days), checked every 10 minutes."""
TOPIC_DEFAULTS_BEFORE = (OlderDefault("max_message_bytes", 1_000_012, KafkaVersion(2, 5), "KAFKA-4203"),)
"""Before 2.5 ``message.max.bytes`` (so ``max.message.bytes``) defaulted to 1,000,000 + 12 bytes of log overhead."""


def older_defaults(table: tuple[OlderDefault, ...], version: KafkaVersion) -> dict[str, Any]:
    """Field -> default of the fields whose default ``version`` predates."""
    return {d.field: d.value for d in table if version < d.until}


def _unknown(names: Iterable[str], table: tuple[ReleaseChange, ...], version: KafkaVersion) -> ReleaseChange | None:
    given = set(names)
    return next((c for c in table if c.name in given and not c.known_in(version)), None)


def check_topic_names(names: Iterable[str], version: KafkaVersion) -> None:
    """Refuse a topic config ``version`` does not define, with Kafka's ``LogConfig.validateNames`` message."""
    change = _unknown(names, TOPIC_CONFIGS_ADDED, version)
    if change is not None:
        raise ConfigError(f"Unknown topic config name: {change.name} ({change.describe(version)})")


def check_broker_names(names: Iterable[str], version: KafkaVersion) -> None:
    """Refuse a broker config ``version`` does not define (its broker would ignore it, with a warning)."""
    change = _unknown(names, BROKER_CONFIGS_ADDED, version)
    if change is not None:
        message = (
            f"Unknown broker config name: {change.name} ({change.describe(version)}): a {version} broker ignores it "
            f"(\"The configuration '{change.name}' was supplied but isn't a known config.\")"
        )
        raise ConfigError(message)


def check_compression_type(name: str, value: str, version: KafkaVersion) -> None:
    """Refuse ``zstd`` before Kafka 2.1 with the ``ValidString`` message of the release."""
    if value == "zstd" and version < ZSTD_CODEC.release:
        message = (
            f"Invalid value zstd for configuration {name}: String must be one of: {_CODECS_BEFORE_ZSTD} "
            f"({ZSTD_CODEC.describe(version)})"
        )
        raise ConfigError(message)


def check_segment_bytes(name: str, value: int, version: KafkaVersion) -> None:
    """Refuse segments below 1 MiB as the release does: ``log.segment.bytes`` from 4.0, ``segment.bytes`` from 4.1."""
    change = BROKER_SEGMENT_MINIMUM if name == "log.segment.bytes" else TOPIC_SEGMENT_MINIMUM
    if value < MIB and version >= change.release:
        hint = "Use internal.segment.bytes for smaller segments, or" if name == "segment.bytes" else "Use"
        message = (
            f"Invalid value {value} for configuration {name}: Value must be at least 1048576 from Kafka "
            f"{change.release.major}.{change.release.minor} on ({change.change}; kafka.version is {version}). "
            f"{hint} a kafka.version below {change.release.major}.{change.release.minor}"
        )
        raise ConfigError(message)
