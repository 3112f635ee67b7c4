"""Importing the widgets changes nothing of the garbage collector (issue #38: it froze every object alive, so cyclic
garbage a user held then was never collected); freezing what their libraries loaded is an opt-in (#29), checked in
fresh interpreters so that this one's collector is left alone."""

from __future__ import annotations

import json
import subprocess
import sys

CYCLE_BEFORE_IMPORT = """
import gc, json, weakref
class Node:
    pass
node = Node()
node.itself = node  # a reference cycle the user holds while the widgets are imported
alive = weakref.ref(node)
import kcompact_nb.widgets
frozen_at_import = gc.get_freeze_count()
del node
gc.collect()
print(json.dumps([frozen_at_import, alive() is None]))
"""

OPT_IN = """
import gc, json, sys
import plotly.graph_objects as go
import kcompact_nb.widgets
kcompact_nb.widgets.freeze_loaded_objects()
walked = {id(o) for o in gc.get_objects(generation=2)}
loaded = [go.Figure, kcompact_nb.widgets.CompactionStepper, kcompact_nb.widgets.__dict__]
loaded += [vars(module) for name, module in sys.modules.items() if name.startswith(("rfc3987_syntax", "lark"))]
print(json.dumps([gc.get_freeze_count(), sum(id(o) in walked for o in loaded)]))
"""


def _run(code: str) -> list[object]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return list(json.loads(done.stdout))


def test_importing_the_widgets_freezes_nothing_and_a_users_cycle_is_collected() -> None:
    assert _run(CYCLE_BEFORE_IMPORT) == [0, True]


def test_the_opt_in_leaves_what_the_widgets_loaded_out_of_full_collections() -> None:
    frozen, walked = _run(OPT_IN)
    assert frozen > 50_000  # plotly's and ipywidgets' modules (plotly's FigureWidget no longer, issue #39)
    assert walked == 0
