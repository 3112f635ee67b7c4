"""Objects loaded with the widgets' libraries kept out of the collector's full passes, when a user asks for it."""

from __future__ import annotations

import gc


def freeze_loaded_objects() -> None:
    """Move every object the collector tracks now to its permanent generation (``gc.freeze``), after collecting.

    An opt-in, never done on import: every object alive at the call, the caller's included, is left out of the
    collector's passes for good, so one that later becomes cyclic garbage is never collected. What it buys:
    importing plotly's ``FigureWidget`` loads about 200,000 objects that live as long as the process (modules,
    validators, and, through ``nbformat`` and ``jsonschema``, the grammar ``rfc3987_syntax`` parses with lark:
    24,000 tree nodes), and each full collection walks them all: a pause of 120-200 ms about every sixth stepper
    step. Frozen, a full collection walks only what was made since (15 ms). Call it once, after importing the
    widgets, in a process that holds no cyclic garbage-to-be (a notebook's kernel at its first cell).
    """
    gc.collect()
    gc.freeze()
