"""Error types of the core model; the base classes are the record format's (:mod:`kcompact_nb.record`)."""

from __future__ import annotations

from kcompact_nb.record import KafkaModelError, KcompactError


class InvalidRecordError(KafkaModelError):
    """A produce that Kafka rejects with ``INVALID_RECORD`` (``LogValidator``)."""


class IndexFullError(KafkaModelError):
    """An entry appended to a full offset or time index (``OffsetIndex.append``, ``TimeIndex.maybeAppend``).

    ``index`` is ``"offset"`` or ``"time"``, ``entries`` the entries the index held; the message is Kafka's.
    """

    def __init__(self, index: str, entries: int) -> None:
        self.index = index
        self.entries = entries
        kind = "time index" if index == "time" else "index"
        super().__init__(f"Attempt to append to a full {kind} (size = {entries}).")


class ConfigError(KcompactError, ValueError):
    """A config value outside what Kafka's ``ConfigDef`` accepts."""


class UnitError(KcompactError, ValueError):
    """Text that does not read as a duration, a time or a size (``parse_duration_ms`` and friends)."""
