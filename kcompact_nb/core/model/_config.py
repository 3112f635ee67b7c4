"""Topic and broker configs: frozen, validated, named after Kafka's properties (spec 1, 14)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from kcompact_nb.core.model._config_keys import (
    DOUBLE_MAX,
    INT,
    INT_MAX,
    LONG_MAX,
    MIB,
    Check,
    at_least,
    between,
    coerce_as,
    config_keys,
    fields_from_properties,
    kafka_key,
    one_of,
    properties_of,
    validate_fields,
)
from kcompact_nb.core.model._errors import ConfigError
from kcompact_nb.core.model._release_configs import (
    BROKER_DEFAULTS_BEFORE,
    TOPIC_DEFAULTS_BEFORE,
    check_broker_names,
    check_compression_type,
    check_segment_bytes,
    check_topic_names,
    older_defaults,
)
from kcompact_nb.core.model._versions import DEFAULT_KAFKA_VERSION, KafkaVersion

HOUR_MS = 3_600_000
MAX_DECOMPRESSED_BYTES = 2_147_483_639
"""``max.decompressed.message.bytes``' default and maximum: the largest array a JVM allocates, no limit in effect."""
MINUTE_MS = 60_000
_POLICY = one_of("compact", "delete")
COMPACTION_STRATEGIES = ("offset", "timestamp", "header")
"""The values of ``compaction.strategy``.

Kafka's ``offset``, and KIP-280's (never released) ``timestamp`` and ``header``.
"""


@dataclass(frozen=True)
class TopicConfig:
    """Topic-level configs that shape compaction (``LogConfig``), with Kafka's defaults.

    Field names are Kafka's property names snake_cased; :meth:`from_properties` takes the
    dotted names. ``compaction_strategy`` and ``compaction_strategy_header`` are KIP-280's
    (never released by Apache Kafka; only ``offset`` is Kafka's behaviour).
    """

    cleanup_policy: tuple[str, ...] = kafka_key(
        "cleanup.policy", ("delete",), tuple, _POLICY, (("log.cleanup.policy", 1),)
    )
    min_cleanable_dirty_ratio: float = kafka_key(
        "min.cleanable.dirty.ratio", 0.5, float, between(0, 1), (("log.cleaner.min.cleanable.ratio", 1),)
    )
    delete_retention_ms: int = kafka_key(
        "delete.retention.ms", 86_400_000, int, at_least(0), (("log.cleaner.delete.retention.ms", 1),)
    )
    min_compaction_lag_ms: int = kafka_key(
        "min.compaction.lag.ms", 0, int, at_least(0), (("log.cleaner.min.compaction.lag.ms", 1),)
    )
    max_compaction_lag_ms: int = kafka_key(
        "max.compaction.lag.ms", LONG_MAX, int, at_least(1), (("log.cleaner.max.compaction.lag.ms", 1),)
    )
    segment_bytes: int = kafka_key(
        "segment.bytes", 1_073_741_824, INT, between(14, INT_MAX), (("log.segment.bytes", 1),)
    )
    segment_ms: int = kafka_key(
        "segment.ms", 604_800_000, int, at_least(1), (("log.roll.ms", 1), ("log.roll.hours", HOUR_MS))
    )
    segment_jitter_ms: int = kafka_key(
        "segment.jitter.ms", 0, int, at_least(0), (("log.roll.jitter.ms", 1), ("log.roll.jitter.hours", HOUR_MS))
    )
    segment_index_bytes: int = kafka_key(
        "segment.index.bytes", 10_485_760, INT, between(4, INT_MAX), (("log.index.size.max.bytes", 1),)
    )
    index_interval_bytes: int = kafka_key(
        "index.interval.bytes", 4096, INT, between(0, INT_MAX), (("log.index.interval.bytes", 1),)
    )
    max_message_bytes: int = kafka_key(
        "max.message.bytes", 1_048_588, INT, between(0, INT_MAX), (("message.max.bytes", 1),)
    )
    max_decompressed_message_bytes: int = kafka_key(
        "max.decompressed.message.bytes",
        MAX_DECOMPRESSED_BYTES,
        INT,
        between(1, MAX_DECOMPRESSED_BYTES),
        (("max.decompressed.message.bytes", 1),),
    )
    """The largest decompressed body of one record of a compressed batch that the cleaner reads (Kafka 4.2.2-4.2.x
    and 4.4.0 on, apache/kafka#23429; spec 8.4): a larger one makes a pass throw ``InvalidRecordException``."""
    retention_ms: int = kafka_key(
        "retention.ms",
        604_800_000,
        int,
        at_least(-1),
        (("log.retention.ms", 1), ("log.retention.minutes", MINUTE_MS), ("log.retention.hours", HOUR_MS)),
    )
    retention_bytes: int = kafka_key("retention.bytes", -1, int, None, (("log.retention.bytes", 1),))
    file_delete_delay_ms: int = kafka_key(
        "file.delete.delay.ms", 60_000, int, at_least(0), (("log.segment.delete.delay.ms", 1),)
    )
    message_timestamp_type: str = kafka_key(
        "message.timestamp.type",
        "CreateTime",
        str,
        one_of("CreateTime", "LogAppendTime"),
        (("log.message.timestamp.type", 1),),
    )
    compression_type: str = kafka_key(
        "compression.type",
        "producer",
        str,
        one_of("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"),
        (("compression.type", 1),),
    )
    """The codec the broker stores batches with: ``producer`` keeps the producer's (``LogValidator``)."""
    compression_gzip_level: int = kafka_key(
        "compression.gzip.level",
        -1,
        INT,
        Check(lambda v: v == -1 or 1 <= v <= 9, "Value must be -1 or in [1, 9]"),
        (("compression.gzip.level", 1),),
    )
    compression_lz4_level: int = kafka_key(
        "compression.lz4.level", 9, INT, between(1, 17), (("compression.lz4.level", 1),)
    )
    compression_zstd_level: int = kafka_key(
        "compression.zstd.level", 3, INT, between(-131072, 22), (("compression.zstd.level", 1),)
    )
    preallocate: bool = kafka_key("preallocate", False, bool, None, (("log.preallocate", 1),))
    compaction_strategy: str = kafka_key(
        "compaction.strategy",
        "offset",
        str,
        one_of(*COMPACTION_STRATEGIES),
        (("log.cleaner.compaction.strategy", 1),),
    )
    compaction_strategy_header: str = kafka_key(
        "compaction.strategy.header", "", str, None, (("log.cleaner.compaction.strategy.header", 1),)
    )
    internal_segment_bytes: int = kafka_key(
        "internal.segment.bytes",
        -1,
        INT,
        Check(lambda v: v == -1 or 14 <= v <= INT_MAX, "Value must be -1 (unset) or in [14, 2147483647]"),
    )
    """Kafka 4.x's internal override of ``segment.bytes`` (no 1 MiB minimum); -1 when unset."""

    def __post_init__(self) -> None:
        validate_fields(self)
        if self.min_compaction_lag_ms > self.max_compaction_lag_ms:
            message = (
                f"Invalid value {self.min_compaction_lag_ms} for configuration min.compaction.lag.ms: "
                f"it must not exceed max.compaction.lag.ms ({self.max_compaction_lag_ms})"
            )
            raise ConfigError(message)
        if self.compaction_strategy == "header" and not self.compaction_strategy_header:
            message = (
                "Invalid value '' for configuration compaction.strategy.header: "
                "a header name is required when compaction.strategy is 'header' (KIP-280)"
            )
            raise ConfigError(message)

    @property
    def compact(self) -> bool:
        """``compact`` is in ``cleanup.policy``: the cleaner considers this log."""
        return "compact" in self.cleanup_policy

    @property
    def delete(self) -> bool:
        """``delete`` is in ``cleanup.policy``: time and size retention apply."""
        return "delete" in self.cleanup_policy

    @property
    def effective_segment_bytes(self) -> int:
        """``internal.segment.bytes`` when set, else ``segment.bytes`` (``LogConfig.segmentSize``)."""
        return self.internal_segment_bytes if self.internal_segment_bytes != -1 else self.segment_bytes

    @property
    def record_body_bound(self) -> int | None:
        """``max.decompressed.message.bytes`` when set below its default (no bound otherwise, spec 8.4)."""
        bound = self.max_decompressed_message_bytes
        return None if bound >= MAX_DECOMPRESSED_BYTES else bound

    @property
    def max_segment_ms(self) -> int:
        """Time-roll limit: ``min(segment.ms, max.compaction.lag.ms)`` when compacted (``LogConfig.maxSegmentMs``)."""
        if self.compact:
            return min(self.segment_ms, self.max_compaction_lag_ms)
        return self.segment_ms

    @classmethod
    def from_properties(
        cls, properties: Mapping[str, Any] | None = None, *, broker: BrokerConfig | None = None
    ) -> TopicConfig:
        """A topic config from Kafka property names, over the broker's defaults when given.

        With a broker, its ``kafka.version`` rules apply too (``_release_configs``): a property the release
        does not define is refused as Kafka refuses it (``Unknown topic config name``), ``zstd`` before 2.1,
        and from 4.1 a ``segment.bytes`` below 1 MiB (``internal.segment.bytes`` gives smaller segments, as
        in Kafka's tests).
        """
        properties = properties or {}
        merged = {**older_defaults(TOPIC_DEFAULTS_BEFORE, broker.version), **broker.topic_defaults} if broker else {}
        merged.update(fields_from_properties(cls, properties, extra_ok=frozenset()))
        config = cls(**merged)
        if broker is not None:
            check_topic_names(properties, broker.version)
            check_compression_type("compression.type", config.compression_type, broker.version)
            check_segment_bytes("segment.bytes", config.segment_bytes, broker.version)
        return config

    @classmethod
    def property_names(cls) -> frozenset[str]:
        """The Kafka property names :meth:`from_properties` accepts."""
        return frozenset(config_keys(cls))

    def with_properties(self, properties: Mapping[str, Any]) -> TopicConfig:
        """A copy with some properties changed (Kafka's ``alterConfigs``)."""
        changes = fields_from_properties(type(self), properties, extra_ok=frozenset())
        current = {f.name: getattr(self, f.name) for f in fields(self)}
        return type(self)(**{**current, **changes})

    def to_properties(self) -> dict[str, Any]:
        return properties_of(self)


def _broker_synonyms() -> dict[str, tuple[str, str, int]]:
    """Broker property -> (topic property, TopicConfig field, unit factor)."""
    synonyms: dict[str, tuple[str, str, int]] = {}
    for name, (f, key) in config_keys(TopicConfig).items():
        for broker_name, factor in key.synonyms:
            synonyms[broker_name] = (name, f.name, factor)
    return synonyms


_BROKER_SYNONYMS = _broker_synonyms()
_BROKER_NAME_OF_FIELD = {field_name: broker for broker, (_, field_name, _) in reversed(list(_BROKER_SYNONYMS.items()))}
"""TopicConfig field -> its first-listed broker synonym (``log.roll.ms`` for ``segment_ms``)."""


@dataclass(frozen=True)
class BrokerConfig:
    """Broker-wide cleaner configs (``CleanerConfig``) and topic defaults given by broker synonyms.

    ``kafka_version`` (property ``kafka.version``) selects the release whose cleaner is imitated;
    it is not a Kafka property.
    """

    log_cleaner_enable: bool = kafka_key("log.cleaner.enable", True, bool)
    log_cleaner_threads: int = kafka_key("log.cleaner.threads", 1, INT, at_least(0))
    log_cleaner_dedupe_buffer_size: int = kafka_key("log.cleaner.dedupe.buffer.size", 134_217_728, int, at_least(0))
    log_cleaner_io_buffer_load_factor: float = kafka_key(
        "log.cleaner.io.buffer.load.factor", 0.9, float, Check(lambda v: 0 < v <= 1, "Value must be in (0, 1]")
    )
    log_cleaner_io_buffer_size: int = kafka_key("log.cleaner.io.buffer.size", 524_288, INT, at_least(0))
    log_cleaner_io_max_bytes_per_second: float = kafka_key(
        "log.cleaner.io.max.bytes.per.second", DOUBLE_MAX, float, Check(lambda v: v > 0, "Value must be above 0")
    )
    log_cleaner_backoff_ms: int = kafka_key("log.cleaner.backoff.ms", 15_000, int, at_least(0))
    producer_id_expiration_ms: int = kafka_key("producer.id.expiration.ms", 86_400_000, INT, at_least(1))
    producer_id_expiration_check_interval_ms: int = kafka_key(
        "producer.id.expiration.check.interval.ms", 600_000, INT, at_least(1)
    )
    kafka_version: str = kafka_key("kafka.version", DEFAULT_KAFKA_VERSION, str)
    topic_defaults: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __getstate__(self) -> dict[str, Any]:
        """Pickled with ``topic_defaults`` as a plain dict (a read-only view does not pickle): a forecast run in
        another process comes back whole."""
        return {**self.__dict__, "topic_defaults": dict(self.topic_defaults)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update({**state, "topic_defaults": MappingProxyType(state["topic_defaults"])})

    def __post_init__(self) -> None:
        validate_fields(self)
        KafkaVersion.parse(self.kafka_version)
        object.__setattr__(self, "topic_defaults", MappingProxyType(dict(self.topic_defaults)))
        TopicConfig(**self.topic_defaults)
        self._apply_older_defaults()
        self._check_release()
        if self.log_cleaner_threads == 0:  # ConfigDef allows it (atLeast(0)); the check below cannot divide by it
            message = (
                "Invalid value 0 for configuration log.cleaner.threads: Kafka's broker does not start with it "
                "(KafkaConfig.validateValues divides log.cleaner.dedupe.buffer.size by it: "
                "java.lang.ArithmeticException: / by zero)"
            )
            raise ConfigError(message)
        threads = self.log_cleaner_threads
        if self.log_cleaner_dedupe_buffer_size / threads <= MIB:
            message = (
                f"Invalid value {self.log_cleaner_dedupe_buffer_size} for configuration "
                f"log.cleaner.dedupe.buffer.size: it must exceed 1 MiB (1048576) per cleaner thread "
                f"({threads} threads)"
            )
            raise ConfigError(message)

    def _apply_older_defaults(self) -> None:
        """A field left at its default takes the default of ``kafka.version`` where that release's differs."""
        for name, value in older_defaults(BROKER_DEFAULTS_BEFORE, self.version).items():
            if getattr(self, name) == BrokerConfig.__dataclass_fields__[name].default:
                object.__setattr__(self, name, value)

    def _check_release(self) -> None:
        """Refuse what ``kafka.version`` does not know: properties set away from their default (the dataclass's
        or the release's), and values."""
        version = self.version
        release_defaults = older_defaults(BROKER_DEFAULTS_BEFORE, version)
        changed = [
            key.name
            for (f, key) in config_keys(BrokerConfig).values()
            if getattr(self, f.name) not in (f.default, release_defaults.get(f.name, f.default))
        ]
        changed += [_BROKER_NAME_OF_FIELD[name] for name in self.topic_defaults if name in _BROKER_NAME_OF_FIELD]
        check_broker_names(changed, version)
        if "compression_type" in self.topic_defaults:
            check_compression_type("compression.type", self.topic_defaults["compression_type"], version)
        if "segment_bytes" in self.topic_defaults:
            check_segment_bytes("log.segment.bytes", self.topic_defaults["segment_bytes"], version)

    @property
    def cleaner_off_reason(self) -> str | None:
        """Why no cleaner runs (``None`` when one does), in Kafka's property names."""
        return None if self.log_cleaner_enable else "log.cleaner.enable=false: the broker creates no log cleaner"

    @property
    def version(self) -> KafkaVersion:
        return _parsed_version(self.kafka_version)

    @classmethod
    def from_properties(cls, properties: Mapping[str, Any] | None = None) -> BrokerConfig:
        """A broker config from Kafka property names; topic-default synonyms (``log.segment.bytes``...) allowed."""
        properties = dict(properties or {})
        kwargs = fields_from_properties(cls, properties, extra_ok=frozenset(_BROKER_SYNONYMS))
        kwargs["topic_defaults"] = _topic_defaults(properties)
        return cls(**kwargs)

    @classmethod
    def property_names(cls) -> frozenset[str]:
        """The property names :meth:`from_properties` accepts: broker configs and topic-default synonyms."""
        return frozenset(config_keys(cls)) | frozenset(_BROKER_SYNONYMS)

    def with_properties(self, properties: Mapping[str, Any]) -> BrokerConfig:
        current = {**self.to_properties(), **_topic_properties_as_broker(self.topic_defaults)}
        return BrokerConfig.from_properties({**current, **properties})

    def to_properties(self) -> dict[str, Any]:
        return properties_of(self)


@functools.lru_cache(maxsize=64)
def _parsed_version(text: str) -> KafkaVersion:
    return KafkaVersion.parse(text)


def _topic_defaults(properties: Mapping[str, Any]) -> dict[str, Any]:
    """TopicConfig field values from broker synonyms; the first synonym listed for a key wins."""
    defaults: dict[str, Any] = {}
    keys = config_keys(TopicConfig)
    for broker_name, (topic_name, field_name, factor) in reversed(list(_BROKER_SYNONYMS.items())):
        if broker_name in properties:
            # a synonym in hours or minutes is an INT in Kafka (log.roll.hours), the others have the topic key's type
            kafka_type = INT if factor != 1 else keys[topic_name][1].kafka_type
            converted = coerce_as(broker_name, kafka_type, properties[broker_name])
            if factor != 1 and converted != -1:
                converted *= factor
            defaults[field_name] = converted
    return defaults


def _topic_properties_as_broker(defaults: Mapping[str, Any]) -> dict[str, Any]:
    """Broker synonym properties (unit factor 1) that reproduce ``defaults``."""
    by_field = {field_name: broker for broker, (_, field_name, factor) in _BROKER_SYNONYMS.items() if factor == 1}
    return {by_field[name]: value for name, value in defaults.items()}
