"""read_ahead: an iterator's next item made on a thread while the caller holds the current one (the streamed tally
reads a segment file's next block so, issue #41)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from kcompact_nb.io import CorruptBatchError
from kcompact_nb.io.logdir._read_ahead import read_ahead


def test_items_come_in_their_order_each_made_on_another_thread() -> None:
    made_on: list[str] = []

    def items() -> Iterator[int]:
        for item in range(5):
            made_on.append(threading.current_thread().name)
            yield item

    assert list(read_ahead(items())) == [0, 1, 2, 3, 4]
    assert made_on == ["kcompact-read-ahead"] * 5


def test_what_the_iterator_raises_comes_after_the_items_before_it() -> None:
    def items() -> Iterator[int]:
        yield 1
        yield 2
        raise CorruptBatchError("00.log", 40, "negative records count -1")

    got = []
    with pytest.raises(CorruptBatchError, match="negative records count -1"):
        for item in read_ahead(items()):
            got.append(item)
    assert got == [1, 2]


def test_a_caller_that_stops_early_stops_the_thread_and_closes_the_iterator() -> None:
    closed = threading.Event()

    def items() -> Iterator[int]:
        try:
            yield from range(1000)
        finally:
            closed.set()

    before = threading.active_count()
    ahead = read_ahead(items())
    assert next(ahead) == 0
    ahead.close()
    assert closed.is_set() and threading.active_count() == before
