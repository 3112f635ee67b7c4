"""Plotly figures of compaction: core values in, ``plotly.graph_objects.Figure`` out.

Colors and labels for clean / cleanable / uncleanable / active / tombstone / empty batch (and
record fates) come from one palette, :data:`COLORS` and :data:`LABELS`.
"""

from __future__ import annotations

from kcompact_nb.viz._dirty import dirty_ratio_figure, dirty_ratio_timeline_figure
from kcompact_nb.viz._forecast import (
    forecast_cleaner_figure,
    forecast_lifetimes_figure,
    forecast_metrics_figure,
    forecast_size_figure,
    forecast_what_if_figure,
)
from kcompact_nb.viz._layout_figure import layout_figure
from kcompact_nb.viz._lifetime_figures import key_history_figure, tombstone_timeline_figure
from kcompact_nb.viz._offset_map import offset_map_figure
from kcompact_nb.viz._palette import COLORS, KEY_COLORS, LABELS, key_color
from kcompact_nb.viz._pass import cleaner_stats_figure, pass_diff_figure
from kcompact_nb.viz._transactions import transaction_figure
from kcompact_nb.viz._what_if import WhatIfScale, what_if_column, what_if_figure, what_if_scale

__all__ = [
    "COLORS",
    "KEY_COLORS",
    "LABELS",
    "cleaner_stats_figure",
    "dirty_ratio_figure",
    "dirty_ratio_timeline_figure",
    "forecast_cleaner_figure",
    "forecast_lifetimes_figure",
    "forecast_metrics_figure",
    "forecast_size_figure",
    "forecast_what_if_figure",
    "key_color",
    "key_history_figure",
    "layout_figure",
    "offset_map_figure",
    "pass_diff_figure",
    "tombstone_timeline_figure",
    "transaction_figure",
    "what_if_column",
    "what_if_figure",
    "what_if_scale",
    "WhatIfScale",
]
