"""The cleaner's offset map (``OffsetMap`` / ``SkimpyOffsetMap``, spec 6.1-6.2).

Kafka keys the map by the MD5 of the key bytes; probing affects speed only, so a table keyed by the raw key
bytes decides the same. An entry is 24 bytes (16-byte hash + 8-byte offset); with a KIP-280 strategy it also
caches the version, 32 bytes (spec 14). :class:`OffsetMap` is Kafka's small interface, all a pass needs; the
maps here keep their entries in an :class:`~kcompact_nb.core.cleaner._offset_table.OffsetTable`
(:attr:`ExactOffsetMap.table`), which the pass's whole-batch paths also fill and read a batch at a time.
"""

from __future__ import annotations

from typing import Any, Protocol

from kcompact_nb.core.cleaner._numbered_offset_table import NumberedOffsetTable
from kcompact_nb.core.cleaner._offset_table import DictOffsetTable, OffsetTable
from kcompact_nb.core.model import INT_MAX, BrokerConfig, ConfigError

OFFSET_ENTRY_BYTES = 24
VERSIONED_ENTRY_BYTES = 32


class OffsetMap(Protocol):
    """Key -> rank of the winning record (for offsets: the latest offset), Kafka's ``OffsetMap``."""

    latest_offset: int
    """The offset of the last record indexed (``latestOffset``, ``updateLatestOffset``)."""

    @property
    def size(self) -> int:
        """Keys held (``size``)."""
        ...

    @property
    def max_entries(self) -> int | None:
        """Keys a pass may put before it stops: ``slots * load factor`` (the cleaner's ``maxDesiredMapSize``),
        ``None`` when unbounded."""
        ...

    @property
    def utilization(self) -> float:
        """``size / slots`` (``utilization``: Kafka's "Buffer utilization")."""
        ...

    def put(self, key: bytes, rank: Any, offset: int) -> None:
        """Keep the higher of ``rank`` and ``key``'s entry, and note ``offset`` as the latest (``put``)."""
        ...

    def get(self, key: bytes) -> Any:
        """``key``'s entry, ``None`` when absent (``get``; Kafka's -1)."""
        ...

    def entries(self) -> dict[bytes, Any]:
        """A copy of key -> rank, keys in the order first put (for views; Kafka's map cannot list its keys)."""
        ...


class ExactOffsetMap:
    """An unbounded map: every pass indexes its whole dirty range (for tests and what-ifs).

    Its entries live in :attr:`table`: ``table`` when given, a :class:`DictOffsetTable` with ``streaming=True`` (for
    passes that read their segments from files: batches are released once read, so the map holds keys and entries
    but never the batches' records), else a :class:`NumberedOffsetTable` (packed batches folded by key id).
    """

    def __init__(self, *, streaming: bool = False, table: OffsetTable | None = None) -> None:
        self.table: OffsetTable = (
            table if table is not None else DictOffsetTable() if streaming else NumberedOffsetTable()
        )
        self.latest_offset = -1

    @property
    def size(self) -> int:
        return len(self.table)

    @property
    def max_entries(self) -> int | None:
        return None

    @property
    def utilization(self) -> float:
        """Unbounded: reported as 0.0."""
        return 0.0

    def put(self, key: bytes, rank: Any, offset: int) -> None:
        """Keep the highest rank for ``key`` (for offsets: the later one) and note ``offset`` as latest."""
        self.table.put(key, rank)
        self.latest_offset = offset

    def get(self, key: bytes) -> Any:
        return self.table.get(key)

    def entries(self) -> dict[bytes, Any]:
        """A copy of key -> rank."""
        return dict(self.table.items())


class BoundedOffsetMap(ExactOffsetMap):
    """Kafka's fixed-size map (``SkimpyOffsetMap``): ``slots`` entries, usable up to ``int(slots * load_factor)``
    distinct keys (:attr:`max_entries`)."""

    def __init__(
        self,
        slots: int,
        load_factor: float = 0.9,
        entry_bytes: int = OFFSET_ENTRY_BYTES,
        *,
        streaming: bool = False,
        table: OffsetTable | None = None,
    ) -> None:
        super().__init__(streaming=streaming, table=table)
        if slots < 1 or not 0 < load_factor <= 1 or int(slots * load_factor) < 1:
            message = f"offset map of {slots} slots at load factor {load_factor} holds no key"
            raise ConfigError(message)
        self.slots = slots
        self.load_factor = load_factor
        self.entry_bytes = entry_bytes

    @classmethod
    def from_memory(
        cls,
        memory_bytes: int,
        *,
        load_factor: float = 0.9,
        entry_bytes: int = OFFSET_ENTRY_BYTES,
        streaming: bool = False,
        table: OffsetTable | None = None,
    ) -> BoundedOffsetMap:
        """A map over ``memory_bytes`` of buffer: ``slots = memory_bytes // entry_bytes``."""
        slots = min(memory_bytes, INT_MAX) // entry_bytes
        return cls(slots, load_factor, entry_bytes, streaming=streaming, table=table)

    @classmethod
    def for_broker(
        cls,
        broker: BrokerConfig,
        *,
        entry_bytes: int = OFFSET_ENTRY_BYTES,
        streaming: bool = False,
        table: OffsetTable | None = None,
    ) -> BoundedOffsetMap:
        """One cleaner thread's map: ``min(log.cleaner.dedupe.buffer.size / threads, Int.MaxValue)`` bytes."""
        memory = thread_map_memory_bytes(broker)
        load_factor = broker.log_cleaner_io_buffer_load_factor
        return cls.from_memory(
            memory, load_factor=load_factor, entry_bytes=entry_bytes, streaming=streaming, table=table
        )

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


def thread_map_memory_bytes(broker: BrokerConfig) -> int:
    """One cleaner thread's share of ``log.cleaner.dedupe.buffer.size`` (``LogCleaner.CleanerThread``; spec 6.1),
    before the ``Int.MaxValue`` cap :meth:`BoundedOffsetMap.from_memory` applies."""
    return broker.log_cleaner_dedupe_buffer_size // max(broker.log_cleaner_threads, 1)
