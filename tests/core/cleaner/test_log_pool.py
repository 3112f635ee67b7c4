"""The broker's log pool order (``ConcurrentHashMap<TopicPartition, UnifiedLog>``), which breaks dirty-ratio ties.

Facts from Java: ``"hello".hashCode() == 99162322``; ``TopicPartition.hashCode`` is
``31 * (31 + partition) + topic.hashCode()``; "Aa" and "BB" share a hash code. The same sequences are
checked against a real JVM's map in ``tests/broker/test_log_pool_order.py``.
"""

from __future__ import annotations

import itertools

from kcompact_nb.core.cleaner._log_pool import LogPool, java_string_hash, log_pool_order, spread, topic_partition_hash


def order(keys: list[tuple[str, int]]) -> list[tuple[str, int]]:
    return [keys[i] for i in log_pool_order(keys)]


def test_java_hash_codes():
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112
    assert java_string_hash("\U0001f600") == 1772899  # two UTF-16 code units: 0xD83D * 31 + 0xDE00
    assert java_string_hash("a" * 20) == 1542361408  # wraps like a Java int
    assert topic_partition_hash("a", 0) == 1058 and topic_partition_hash("a", 2) == 1120
    assert spread(-1) == 0x7FFF0000 and spread(0x10000) == 0x10001  # the high half folded in, sign bit cleared


def test_small_pool_iterates_by_bin_then_creation():
    # bins of the 16-slot table: a-0 2, a-1 1, a-2 0, b-0 3, b-1 2 (after a-0)
    assert order([("a", 0), ("a", 1), ("a", 2), ("b", 0), ("b", 1)]) == [
        ("a", 2),
        ("a", 1),
        ("a", 0),
        ("b", 1),
        ("b", 0),
    ]
    assert order([("b", 1), ("a", 0)]) == [("b", 1), ("a", 0)]


def test_resize_reverses_the_nodes_before_the_last_run():
    """``transfer``: nodes ahead of the trailing same-side run are pushed in front one by one.

    "AaAa", "AaBB" and "BBAa" share a hash code; partition 16 adds 31 * 16 = 496 to it, so the five
    keys share a slot of the 16-slot table and part ways at 32 slots. The 20 fillers make the table
    grow at the 12th key and the 24th. Order printed by a JVM (``ConcurrentHashMap.keySet``).
    """
    names = ["AaAa", "AaBB", "BBAa"]
    keys = [(name, 0) for name in names] + [(name, 16) for name in names[:2]]
    fillers = [(f"f{i}", 0) for i in range(20)]
    result = order(keys + fillers)
    assert [k for k in result if k in keys] == [("BBAa", 0), ("AaBB", 0), ("AaAa", 0), ("AaBB", 16), ("AaAa", 16)]
    pool = LogPool()
    for key in keys + fillers:
        pool.put(key)
    assert (len(pool.table), pool.count, pool.size_ctl) == (64, 25, 48)


def test_a_long_bin_grows_a_small_table_then_becomes_a_tree():
    """``treeifyBin``: a ninth node in one slot of a table under 64 slots grows the table (``tryPresize``:
    16 -> 128); the tenth makes a ``TreeBin``, which links later nodes in front. Order printed by a JVM."""
    colliding = ["".join(p) for p in itertools.product(["Aa", "BB"], repeat=4)]  # 16 names, one hash code
    pool = LogPool()
    for name in colliding[:9]:
        pool.put((name, 0))
    assert len(pool.table) == 128 and not any(b.tree for b in pool.table)
    for name in colliding[9:]:
        pool.put((name, 0))
    assert [b.tree for b in pool.table if b.keys] == [True]
    assert list(pool) == [(name, 0) for name in colliding[15:9:-1] + colliding[:10]]
