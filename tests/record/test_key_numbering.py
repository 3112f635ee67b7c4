"""Key numbering by hash (:mod:`kcompact_nb.record._key_numbering`, in C and in numpy) numbers keys as interning
them one by one does.

Blocks of keys given as byte spans get the ids a :class:`KeyRegistry` gives the same keys record by record
(new keys in order of first appearance, keys met in earlier blocks or already registered keep their ids),
also when every key hashes alike (the hash table's probing and the collision checks then decide everything).
Tests taking the ``kernels`` fixture run on the C kernels and on numpy.
"""

from __future__ import annotations

import numpy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kcompact_nb.core import KeyRegistry
from kcompact_nb.record import _key_numbering, _native_kernels
from kcompact_nb.record._kernels import key_numbering

key = st.one_of(st.none(), st.binary(max_size=20), st.sampled_from([b"", b"a", b"key-00000001", b"x" * 64]))
blocks = st.lists(st.lists(key, max_size=40), min_size=1, max_size=5)


def spans(keys: list[bytes | None]) -> tuple[bytes, numpy.ndarray, numpy.ndarray]:
    """The keys laid out in one block (with filler bytes between them), their starts and lengths (-1: None)."""
    block, starts, lengths = bytearray(), [], []
    for k in keys:
        block += b"\xff\x00"
        starts.append(len(block))
        lengths.append(-1 if k is None else len(k))
        block += k or b""
    return bytes(block), numpy.array(starts, numpy.int64), numpy.array(lengths, numpy.int64)


def numbered(key_blocks: list[list[bytes | None]], registered: list[bytes | None]) -> tuple[list, list]:
    """Ids by the numbering and by interning one by one, each into a registry already holding ``registered``."""
    by_hash, one_by_one = KeyRegistry(), KeyRegistry()
    by_hash.ids(registered)
    one_by_one.ids(registered)
    numbering = key_numbering(by_hash)
    got = [numbering.ids(*spans(keys)).tolist() for keys in key_blocks]
    expected = [list(one_by_one.ids(keys)) for keys in key_blocks]
    assert by_hash.keys == one_by_one.keys
    return got, expected


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key_blocks=blocks, registered=st.lists(key, max_size=5))
def test_ids_are_those_of_interning_key_by_key(kernels, key_blocks, registered) -> None:
    got, expected = numbered(key_blocks, registered)
    assert got == expected


@pytest.mark.parametrize(
    "weak_hash",
    [
        lambda rows, lengths: numpy.zeros(len(rows), numpy.uint64),  # every key collides
        lambda rows, lengths: (lengths + 1).astype(numpy.uint64),  # keys of one length collide; all probe from slot 0
    ],
    ids=["one hash", "hash by length"],
)
@settings(max_examples=100, deadline=None)
@given(key_blocks=blocks, registered=st.lists(key, max_size=5))
def test_ids_are_those_of_interning_key_by_key_under_colliding_hashes(weak_hash, key_blocks, registered) -> None:
    """The numpy numbering's hash made weak (the C table compares every key's bytes: tests/record/test_native.py)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_native_kernels, "NATIVE", None)
        patch.setattr(_key_numbering, "_hash_rows", weak_hash)
        got, expected = numbered(key_blocks, registered)
    assert got == expected


def test_the_table_grows_and_finds_every_key_again(kernels) -> None:
    keys: list[bytes | None] = [b"key-%08d" % i for i in range(5000)]
    registry = KeyRegistry()
    numbering = key_numbering(registry)
    assert numbering.ids(*spans(keys)).tolist() == list(range(5000))
    assert numbering.ids(*spans(keys[::-1] + [b"new"])).tolist() == list(range(4999, -1, -1)) + [5000]
