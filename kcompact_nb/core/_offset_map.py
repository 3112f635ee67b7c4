"""The cleaner's offset map (``OffsetMap`` / ``SkimpyOffsetMap``, spec 6.1-6.2).

Kafka keys the map by the MD5 of the key bytes; probing affects speed only, so a dict keyed by
the raw key bytes decides the same. An entry is 24 bytes (16-byte hash + 8-byte offset); with a
KIP-280 strategy it also caches the version, 32 bytes (spec 14).
"""

from __future__ import annotations

from typing import Any, Protocol

from kcompact_nb.core._config import BrokerConfig
from kcompact_nb.core._config_keys import INT_MAX
from kcompact_nb.core._errors import ConfigError

OFFSET_ENTRY_BYTES = 24
VERSIONED_ENTRY_BYTES = 32


class OffsetMap(Protocol):
    """Key -> rank of the winning record, with Kafka's capacity rule and ``latestOffset``."""

    latest_offset: int

    @property
    def size(self) -> int: ...

    @property
    def max_entries(self) -> int | None: ...

    @property
    def utilization(self) -> float: ...

    def is_full(self) -> bool: ...

    def put(self, key: bytes, rank: Any, offset: int) -> None: ...

    def get(self, key: bytes) -> Any: ...

    def promote(self, key: bytes, rank: Any) -> None: ...

    def entries(self) -> dict[bytes, Any]: ...

    def live_entries(self) -> dict[bytes, Any]: ...


class ExactOffsetMap:
    """An unbounded map: every pass indexes its whole dirty range (for tests and what-ifs)."""

    def __init__(self) -> None:
        self._entries: dict[bytes, Any] = {}
        self.latest_offset = -1

    @property
    def size(self) -> int:
        return len(self._entries)

    @property
    def max_entries(self) -> int | None:
        return None

    @property
    def utilization(self) -> float:
        """Unbounded: reported as 0.0."""
        return 0.0

    def is_full(self) -> bool:
        return False

    def put(self, key: bytes, rank: Any, offset: int) -> None:
        """Keep the highest rank for ``key`` (for offsets: the later one) and note ``offset`` as latest."""
        current = self._entries.get(key)
        if current is None or rank > current:
            self._entries[key] = rank
        self.latest_offset = offset

    def get(self, key: bytes) -> Any:
        return self._entries.get(key)

    def promote(self, key: bytes, rank: Any) -> None:
        """Raise an existing entry to ``rank`` (KIP-280: a clean record that beats the dirty winner)."""
        self._entries[key] = rank

    def entries(self) -> dict[bytes, Any]:
        """A copy of key -> rank."""
        return dict(self._entries)

    def live_entries(self) -> dict[bytes, Any]:
        """The map's own dict, for the pass's hot loops (callers keep the capacity rule)."""
        return self._entries


class BoundedOffsetMap(ExactOffsetMap):
    """Kafka's fixed-size map: ``slots`` entries, usable up to ``int(slots * load_factor)`` distinct keys.

    ``is_full`` is Kafka's check before every put, which stops the pass even when the key is
    already present (``buildOffsetMapForSegment``).
    """

    def __init__(self, slots: int, load_factor: float = 0.9, entry_bytes: int = OFFSET_ENTRY_BYTES) -> None:
        super().__init__()
        if slots < 1 or not 0 < load_factor <= 1 or int(slots * load_factor) < 1:
            message = f"offset map of {slots} slots at load factor {load_factor} holds no key"
            raise ConfigError(message)
        self.slots = slots
        self.load_factor = load_factor
        self.entry_bytes = entry_bytes

    @classmethod
    def from_memory(cls, memory_bytes: int, *, load_factor: float = 0.9, entry_bytes: int = OFFSET_ENTRY_BYTES) -> BoundedOffsetMap:
        """A map over ``memory_bytes`` of buffer: ``slots = memory_bytes // entry_bytes``."""
        return cls(min(memory_bytes, INT_MAX) // entry_bytes, load_factor, entry_bytes)

    @classmethod
    def for_broker(cls, broker: BrokerConfig, *, entry_bytes: int = OFFSET_ENTRY_BYTES) -> BoundedOffsetMap:
        """One cleaner thread's map: ``min(log.cleaner.dedupe.buffer.size / threads, Int.MaxValue)`` bytes."""
        memory = broker.log_cleaner_dedupe_buffer_size // max(broker.log_cleaner_threads, 1)
        return cls.from_memory(memory, load_factor=broker.log_cleaner_io_buffer_load_factor, entry_bytes=entry_bytes)

    @property
    def max_entries(self) -> int:
        return int(self.slots * self.load_factor)

    @property
    def memory_bytes(self) -> int:
        return self.slots * self.entry_bytes

    @property
    def utilization(self) -> float:
        """``entries / slots`` (Kafka's "Buffer utilization"; a full map reads about 90 %)."""
        return self.size / self.slots

    def is_full(self) -> bool:
        return self.size >= self.max_entries
