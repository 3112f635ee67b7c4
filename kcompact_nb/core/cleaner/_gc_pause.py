"""Python's cyclic garbage collector paused while a pass, a load or a write allocates by the million."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (reference counting goes on).

    A pass allocates records and batches by the million and creates no reference cycles; the
    collector's repeated scans over them would grow a large pass faster than linearly.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
