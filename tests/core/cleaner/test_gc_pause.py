"""The cyclic collector paused over a pass: what the pass allocated joins the oldest generation unscanned when the
collector resumes, cyclic garbage is still collected, and objects someone froze stay frozen (checked in fresh
interpreters, so that this one's collector is left alone)."""

from __future__ import annotations

import json
import subprocess
import sys

PAUSE = """
import gc, json, weakref
from kcompact_nb.core import cyclic_gc_paused
class Node:
    pass
FREEZE
with cyclic_gc_paused():
    paused = gc.isenabled()
    kept = [Node() for _ in range(50_000)]
    cycle = Node()
    cycle.itself = cycle
    alive = weakref.ref(cycle)
oldest = {id(o) for o in gc.get_objects(generation=2)}
del cycle
gc.collect()
print(json.dumps([paused, gc.isenabled(), sum(id(o) in oldest for o in kept), alive() is None, gc.get_freeze_count()]))
"""


def _run(freeze: str) -> list[object]:
    code = PAUSE.replace("FREEZE", freeze)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return list(json.loads(done.stdout))


def test_what_a_pause_allocated_joins_the_oldest_generation_and_cycles_are_still_collected():
    assert _run("") == [False, True, 50_000, True, 0]


def test_objects_frozen_before_a_pause_stay_frozen():
    paused, enabled, in_oldest, collected, frozen = _run("held = [Node() for _ in range(10)]\ngc.freeze()")
    assert (paused, enabled, in_oldest, collected) == (False, True, 0, True)
    assert frozen > 10  # the interpreter's objects and the ten held, still frozen after the pause
