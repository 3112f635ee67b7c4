"""Colors and legend labels, defined once for every figure.

Three families, each with its own hues so that a color never means two things:

- parts of the log (spec 4), light fills behind records: the log tail (clean), and in the log head
  the cleanable range, the uncleanable segments and the active segment;
- what the next pass does to a record (:class:`kcompact_nb.core.Outcome`), saturated fills: removed,
  kept, superseded but kept (and why), tombstone waiting for its delete horizon or past it;
- events and series over time: the dirty ratio (one color and one name everywhere), its minimum,
  passes, rolls, deadlines.

Record kinds (tombstone, aborted transaction data, transaction marker, empty batch, gap) are drawn
as outlines and patterns over the fate colors, so kind and fate read independently.
"""

from __future__ import annotations

from functools import cache

from kcompact_nb.core import Outcome

# Parts of the log (segment fills, brackets).
CLEAN = "clean"
CLEANABLE = "cleanable"
UNCLEANABLE = "uncleanable"
ACTIVE = "active"
# What the next pass does (record fills).
REMOVED = Outcome.REMOVED.value
DELETED = Outcome.DELETED.value
KEPT = Outcome.KEPT.value
NEWER_BEYOND = Outcome.NEWER_BEYOND.value
BEYOND = Outcome.BEYOND.value
WAITING = Outcome.WAITING.value
DUE = Outcome.DUE.value
UNSTAMPED = "unstamped"
# Record kinds and holes (outlines and patterns).
TOMBSTONE = "tombstone"
ABORTED = "aborted"
MARKER = "marker"
EMPTY_BATCH = "empty batch"
GAP = "gap"
# Offset buckets (counts over the whole partition; the other columns take the outcome colors).
SUPERSEDED = "superseded"
# The offset map.
MISSED = "missed"
FREE = "free"
RESERVE = "reserve"
# Series and events over time.
DIRTY_RATIO = "dirty ratio"
MIN_RATIO = "min.cleanable.dirty.ratio"
DUPLICATES = "duplicates"
PASS = "pass"
ROLL = "roll"
DEADLINE = "deadline"
# Lines across a layout.
CLEANER_POINT = "cleaner point"
FIRST_UNCLEANABLE = "first uncleanable"
PASS_END = "pass end"
SEGMENT_BOUNDARY = "segment boundary"
INK = "ink"
MUTED = "muted"

COLORS: dict[str, str] = {
    CLEAN: "#cfe8d5",
    CLEANABLE: "#fde3b5",
    UNCLEANABLE: "#dde2e8",
    ACTIVE: "#cfe0f3",
    REMOVED: "#d64545",
    DELETED: "#7a1f1f",
    KEPT: "#2e7d4f",
    NEWER_BEYOND: "#f08c2e",
    BEYOND: "#f5c94c",
    WAITING: "#7b5ea7",
    DUE: "#f0a3a3",
    UNSTAMPED: "#d9cdea",
    TOMBSTONE: "#111111",
    ABORTED: "#ffffff",
    MARKER: "#111111",
    EMPTY_BATCH: "#8a8f96",
    GAP: "#b8bec6",
    SUPERSEDED: "#d64545",
    MISSED: "#d64545",
    FREE: "#cfe0f3",
    RESERVE: "#dde2e8",
    DIRTY_RATIO: "#1f6fb2",
    MIN_RATIO: "#d64545",
    DUPLICATES: "#8c564b",
    PASS: "#2e7d4f",
    ROLL: "#6c757d",
    DEADLINE: "#d64545",
    CLEANER_POINT: "#1d6b3a",
    FIRST_UNCLEANABLE: "#4a5563",
    PASS_END: "#d64545",
    SEGMENT_BOUNDARY: "#9aa3ad",
    INK: "#1f2933",
    MUTED: "#5f6b7a",
}
"""One color per part, fate, kind and series; every figure takes its colors from here."""

EDGES: dict[str, str] = {
    CLEAN: "#4c9f70",
    CLEANABLE: "#e0a030",
    UNCLEANABLE: "#8a96a3",
    ACTIVE: "#3b82c4",
}
"""Outline colors of the parts of the log (segment edges and brackets)."""

LABELS: dict[str, str] = {
    CLEAN: "log tail: cleaned, below the cleaner point",
    CLEANABLE: "log head: cleanable",
    UNCLEANABLE: "log head: uncleanable",
    ACTIVE: "active segment (never cleaned)",
    REMOVED: "removed by the next pass",
    DELETED: "deleted by retention (with its segment)",
    KEPT: "kept: latest of its key",
    NEWER_BEYOND: "superseded, kept: its newer record is not in the pass's offset map",
    BEYOND: "superseded or aborted, kept: no pass reaches it now",
    WAITING: "tombstone kept until its delete horizon",
    DUE: "tombstone past its delete horizon, kept: no pass reaches it now",
    TOMBSTONE: "tombstone (null value): black outline",
    ABORTED: "aborted transaction data: hatched",
    MARKER: "transaction marker (COMMIT/ABORT): dotted",
    EMPTY_BATCH: "empty batch: 61-byte header kept",
    GAP: "gap left by compaction: a fetch from it returns the next record",
    SUPERSEDED: "superseded (a later record of its key exists)",
    MISSED: "missed: the offset map was full",
    FREE: "free (up to the load factor)",
    RESERVE: "reserve (above the load factor)",
    DIRTY_RATIO: "dirty ratio",
    MIN_RATIO: "min.cleanable.dirty.ratio",
    DUPLICATES: "superseded records stored",
    PASS: "cleaner pass",
    ROLL: "segment roll",
    DEADLINE: "max.compaction.lag.ms deadline",
    CLEANER_POINT: "cleaner point",
    FIRST_UNCLEANABLE: "first uncleanable offset",
    PASS_END: "the pass stops here: offset map full",
}
"""Legend text for each of :data:`COLORS`' entries."""

PART_NAMES: dict[str, str] = {
    CLEAN: "log tail (cleaned)",
    CLEANABLE: "cleanable",
    UNCLEANABLE: "uncleanable",
    ACTIVE: "active segment",
}
"""Short names of the parts, as the brackets over a layout show them."""

REGIONS = (CLEAN, CLEANABLE, UNCLEANABLE, ACTIVE)
OUTCOMES = (REMOVED, DELETED, NEWER_BEYOND, BEYOND, DUE, WAITING, KEPT)

FONT = "Arial, Helvetica, sans-serif"

KEY_COLORS: tuple[str, ...] = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
"""Colors cycled over keys when records are colored by key (keys in order of first appearance)."""


def key_color(index: int) -> str:
    """The color of the ``index``-th distinct key."""
    return KEY_COLORS[index % len(KEY_COLORS)]


@cache  # called once per cell, on a handful of fills
@cache
def text_color(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (a ``#rrggbb`` color)."""
    red, green, blue = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return "#111111" if 0.299 * red + 0.587 * green + 0.114 * blue > 150 else "#ffffff"
