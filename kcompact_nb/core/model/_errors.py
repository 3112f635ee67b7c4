"""Error types of the core model; the base classes are the record format's (:mod:`kcompact_nb.record`)."""

from __future__ import annotations

from kcompact_nb.record import KafkaModelError, KcompactError


class InvalidRecordError(KafkaModelError):
    """A produce that Kafka rejects with ``INVALID_RECORD`` (``LogValidator``)."""


class ConfigError(KcompactError, ValueError):
    """A config value outside what Kafka's ``ConfigDef`` accepts."""


class UnitError(KcompactError, ValueError):
    """Text that does not read as a duration, a time or a size (``parse_duration_ms`` and friends)."""
