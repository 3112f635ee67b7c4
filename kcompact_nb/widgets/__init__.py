"""ipywidgets for compaction: a stepper, a config panel with Kafka's property names, a what-if explorer.

Glue only: stepping calls :mod:`kcompact_nb.core` (and scenarios), drawing calls :mod:`kcompact_nb.viz`.
Figures are plotly ``Figure`` objects built anew at each step and shown by ``LivePlot`` widgets (``FigureView``),
redrawn in place in the page with the plotly.js JupyterLab's plotly extension loaded, whatever the machine's load
(see ``_figures``). Importing them changes nothing of
the interpreter's garbage collector; :func:`freeze_loaded_objects` is the opt-in that keeps the ~200,000 objects
their libraries load out of its full passes.
"""

from __future__ import annotations

from kcompact_nb.widgets._config_panel import BROKER_PROPERTIES, TOPIC_PROPERTIES, ConfigPanel
from kcompact_nb.widgets._long_lived import freeze_loaded_objects
from kcompact_nb.widgets._stepper import NEXT_LABEL, PREVIOUS_LABEL, CompactionStepper
from kcompact_nb.widgets._what_if import WhatIfExplorer

__all__ = [
    "BROKER_PROPERTIES",
    "NEXT_LABEL",
    "PREVIOUS_LABEL",
    "TOPIC_PROPERTIES",
    "CompactionStepper",
    "ConfigPanel",
    "WhatIfExplorer",
    "freeze_loaded_objects",
]
