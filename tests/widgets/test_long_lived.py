"""Importing the widgets freezes what their libraries loaded: full collections leave those objects alone (#29)."""

from __future__ import annotations

import gc
import sys

import plotly.graph_objects as go

import kcompact_nb.widgets


def test_objects_loaded_with_the_widgets_are_left_out_of_full_collections() -> None:
    walked = {id(o) for o in gc.get_objects(generation=2)}
    loaded = [go.FigureWidget, kcompact_nb.widgets.CompactionStepper, kcompact_nb.widgets.__dict__]
    loaded += [vars(module) for name, module in sys.modules.items() if name.startswith(("rfc3987_syntax", "lark"))]
    assert gc.get_freeze_count() > 100_000
    assert [o for o in loaded if id(o) in walked] == []
