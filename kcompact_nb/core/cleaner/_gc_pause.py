"""Python's cyclic garbage collector paused while a pass, a load or a write allocates by the million."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (reference counting goes on).

    A pass allocates records and batches by the million and creates no reference cycles; the
    collector's repeated scans over them would grow a large pass faster than linearly. When it resumes, what was
    allocated meanwhile joins the oldest generation unscanned (``gc.freeze`` then ``gc.unfreeze``): the young
    generation would otherwise hold all of it, and the first allocation after the pause would scan it all. Not while
    objects are frozen (the widgets' opt-in ``freeze_loaded_objects``): unfreezing would thaw them too.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()
