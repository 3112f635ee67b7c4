"""The order in which a broker's cleaner meets its logs (``LogManager.currentLogs``).

The cleaner takes the first log with the highest dirty ratio in the iteration order of the broker's
log pool (``LogCleanerManager.grabFilthiestCompactedLog``: Java's ``Stream.max`` in 4.x and Scala's
``max`` in 3.x both keep the first of equal elements). That pool is a ``java.util.concurrent.ConcurrentHashMap``
keyed by ``TopicPartition`` (in 3.x wrapped by ``kafka.utils.Pool``), created with the default
constructor, so its order follows from the keys' hash codes, the table size and the order the logs
were created in (:func:`topic_creation_order`). :class:`LogPool` replays the map's insertions (JDK 17
``putVal``, ``addCount``, ``transfer``, ``treeifyBin``, ``tryPresize``) and iterates its bins as
``Traverser`` does.

Assumed, as on a broker creating partitions from one metadata thread: insertions from one thread
(no counter cells) and no removals (the simulator never deletes a partition).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

_INT_MASK = 0xFFFF_FFFF
_HASH_BITS = 0x7FFF_FFFF
DEFAULT_CAPACITY = 16
TREEIFY_THRESHOLD = 8
UNTREEIFY_THRESHOLD = 6
MIN_TREEIFY_CAPACITY = 64


def _int32(value: int) -> int:
    """``value`` wrapped to a Java ``int`` (two's complement)."""
    value &= _INT_MASK
    return value - (1 << 32) if value >= 1 << 31 else value


def java_string_hash(text: str) -> int:
    """``String.hashCode``: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units, as a Java ``int``."""
    units = text.encode("utf-16-be")
    result = 0
    for index in range(0, len(units), 2):
        result = (31 * result + (units[index] << 8 | units[index + 1])) & _INT_MASK
    return _int32(result)


def topic_partition_hash(topic: str, partition: int) -> int:
    """``TopicPartition.hashCode``: ``31 * (31 + partition) + topic.hashCode()``, as a Java ``int``."""
    return _int32(31 * (31 + partition) + java_string_hash(topic))


def spread(hash_code: int) -> int:
    """``ConcurrentHashMap.spread``: the high half folded into the low half, sign bit cleared."""
    unsigned = hash_code & _INT_MASK
    return (unsigned ^ (unsigned >> 16)) & _HASH_BITS


TopicPartition = tuple[str, int]
_Node = tuple[int, TopicPartition]
"""A map node: the key's spread hash and the key."""


@dataclass
class _Bin:
    """One table slot: its nodes in ``next`` order, and whether it is a ``TreeBin``."""

    keys: list[_Node] = field(default_factory=list)
    tree: bool = False


@dataclass
class LogPool:
    """A model of the broker's ``ConcurrentHashMap<TopicPartition, UnifiedLog>``: its keys' iteration order."""

    table: list[_Bin] = field(default_factory=list)
    size_ctl: int = 0
    count: int = 0

    def put(self, key: TopicPartition) -> None:
        """``putVal`` of a ``(topic, partition)`` key; a key already present keeps its place."""
        if not self.table:
            self.table = [_Bin() for _ in range(DEFAULT_CAPACITY)]
            self.size_ctl = DEFAULT_CAPACITY - (DEFAULT_CAPACITY >> 2)
        h = spread(topic_partition_hash(*key))
        slot = self.table[h & (len(self.table) - 1)]
        if any(k == key for _, k in slot.keys):
            return
        old_length = len(slot.keys)
        if slot.tree:
            slot.keys.insert(0, (h, key))  # TreeBin.putTreeVal links the new node in front of ``first``
        else:
            slot.keys.append((h, key))
            if old_length >= TREEIFY_THRESHOLD:
                self._treeify(slot)
        self.count += 1
        while self.count >= self.size_ctl:  # addCount
            self._transfer()

    def __iter__(self) -> Iterator[TopicPartition]:
        """Keys in ``Traverser`` order: slot by slot, each slot's nodes from its head."""
        for slot in self.table:
            for _, key in slot.keys:
                yield key

    def _treeify(self, slot: _Bin) -> None:
        """``treeifyBin``: a small table grows instead (``tryPresize(n << 1)``); the list order is kept."""
        n = len(self.table)
        if n >= MIN_TREEIFY_CAPACITY:
            slot.tree = True
            return
        wanted = _table_size_for(2 * n + n + 1)
        while wanted > self.size_ctl:
            self._transfer()

    def _transfer(self) -> None:
        """Double the table; each slot splits into a low and a high one (``transfer``)."""
        n = len(self.table)
        doubled = [_Bin() for _ in range(2 * n)]
        for index, slot in enumerate(self.table):
            low, high = _split(slot, n)
            doubled[index], doubled[index + n] = low, high
        self.table = doubled
        self.size_ctl = (n << 1) - (n >> 1)


def _split(slot: _Bin, n: int) -> tuple[_Bin, _Bin]:
    if slot.tree:  # tree bins split in list order; a side of at most 6 nodes becomes a list again
        low = [node for node in slot.keys if not node[0] & n]
        high = [node for node in slot.keys if node[0] & n]
        return _Bin(low, len(low) > UNTREEIFY_THRESHOLD), _Bin(high, len(high) > UNTREEIFY_THRESHOLD)
    # list bins: the trailing run of nodes going to one side is moved as is ("lastRun"); the nodes
    # before it are pushed in front of their side's list one by one, so they come out reversed
    nodes = slot.keys
    last_run = 0
    for i in range(1, len(nodes)):
        if nodes[i][0] & n != nodes[i - 1][0] & n:
            last_run = i
    sides: tuple[list[_Node], list[_Node]] = ([], [])
    if nodes:
        sides[1 if nodes[last_run][0] & n else 0].extend(nodes[last_run:])
    for node in nodes[:last_run]:
        sides[1 if node[0] & n else 0].insert(0, node)
    return _Bin(sides[0]), _Bin(sides[1])


def _table_size_for(capacity: int) -> int:
    """``tableSizeFor``: the smallest power of two at least ``capacity``."""
    return 1 << max(capacity - 1, 0).bit_length()


def topic_creation_order(topic: str, partitions: int) -> list[int]:
    """The order in which a broker creates the logs of a new topic's ``partitions``.

    It walks the ``java.util.HashMap<TopicPartition, PartitionInfo>`` of its metadata delta's local
    leaders (``TopicsDelta.localChanges``, ``ReplicaManager.applyLocalLeadersDelta``), filled by
    ``putAll``: slots of a table of ``tableSizeFor(partitions / 0.75 + 1)`` in index order. Partitions
    sharing a slot (none for a topic's consecutive partition numbers in practice) stay in number order.
    """
    capacity = _table_size_for(int(partitions / 0.75 + 1))
    return sorted(range(partitions), key=lambda p: spread(topic_partition_hash(topic, p)) & (capacity - 1))


def log_pool_order(keys: Sequence[TopicPartition]) -> list[int]:
    """Positions of ``keys`` (``(topic, partition)`` in the order the broker created the logs) in the
    order the broker's log pool iterates them."""
    return list(_cached_order(tuple(keys)))


@lru_cache(maxsize=64)
def _cached_order(keys: tuple[TopicPartition, ...]) -> tuple[int, ...]:
    pool = LogPool()
    for key in keys:
        pool.put(key)
    position = {key: index for index, key in enumerate(keys)}
    return tuple(position[key] for key in pool)
