"""An iterator's next item made on a thread of its own while the caller works on the current one (issue #41).

A segment file's next block is read and framed (``FileIO.read`` and the C framing run without the GIL) while the
caller decodes and counts the block it holds: the machine's second core reads. One item waits at most, so memory
is one block more; items come in their order, and what the iterator raises is raised in its place among them.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import TypeVar, cast

T = TypeVar("T")

_DONE = object()
"""Put after the last item."""


class _Failed:
    """What the iterator raised, in the place of its next item."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


def read_ahead(items: Iterator[T]) -> Iterator[T]:
    """``items`` one ahead: the next is made on a thread while the caller holds the current one.

    Closing the returned iterator early (a ``for`` left by ``break`` or an exception) stops the thread after the item
    it is making (the iterator is closed there) and waits for it.
    """
    ready: queue.Queue[object] = queue.Queue(maxsize=1)
    stop = threading.Event()

    def make() -> None:
        try:
            for item in items:
                if not _offer(ready, item, stop):
                    return
            _offer(ready, _DONE, stop)
        except BaseException as error:  # raised in the caller's thread, in the place of the next item
            _offer(ready, _Failed(error), stop)
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()

    thread = threading.Thread(target=make, name="kcompact-read-ahead", daemon=True)
    thread.start()
    try:
        while True:
            item = ready.get()
            if item is _DONE:
                return
            if isinstance(item, _Failed):
                raise item.error
            yield cast("T", item)
    finally:
        stop.set()
        thread.join()


def _offer(ready: queue.Queue[object], item: object, stop: threading.Event) -> bool:
    """Put ``item`` for the caller once there is room; False (not put) once the caller stopped."""
    while not stop.is_set():
        try:
            ready.put(item, timeout=0.05)
            return True
        except queue.Full:
            continue
    return False
