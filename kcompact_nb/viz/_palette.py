"""Colors and legend labels, defined once for every figure.

Regions of a log (spec 4): clean / cleanable / uncleanable / active; record fates (spec 7.4):
kept / superseded / tombstone / awaiting horizon; and the empty batch (a 61-byte header kept
without records, spec 7.3).
"""

from __future__ import annotations

from kcompact_nb.core import RecordFate

CLEAN = "clean"
CLEANABLE = "cleanable"
UNCLEANABLE = "uncleanable"
ACTIVE = "active"
TOMBSTONE = "tombstone"
EMPTY_BATCH = "empty batch"
KEPT = RecordFate.KEPT.value
SUPERSEDED = RecordFate.SUPERSEDED.value
AWAITING_HORIZON = RecordFate.AWAITING_HORIZON.value
CONTROL = RecordFate.CONTROL.value
MISSED = "missed"
PASS = "pass"
ROLL = "roll"
DEADLINE = "deadline"

COLORS: dict[str, str] = {
    CLEAN: "#4c9f70",
    CLEANABLE: "#f2a541",
    UNCLEANABLE: "#9aa5b1",
    ACTIVE: "#3b82c4",
    TOMBSTONE: "#222222",
    EMPTY_BATCH: "#d0d0d0",
    KEPT: "#2e7d4f",
    SUPERSEDED: "#e4572e",
    AWAITING_HORIZON: "#8e6bbf",
    CONTROL: "#6c757d",
    MISSED: "#c0392b",
    PASS: "#2e7d4f",
    ROLL: "#3b82c4",
    DEADLINE: "#c0392b",
}
"""One color per region, fate and event; every figure takes its colors from here."""

LABELS: dict[str, str] = {
    CLEAN: "clean (below the first dirty offset)",
    CLEANABLE: "cleanable (dirty, below the first uncleanable offset)",
    UNCLEANABLE: "uncleanable (dirty, not yet cleanable)",
    ACTIVE: "active segment (never cleaned)",
    TOMBSTONE: "tombstone (horizon passed: next pass removes it)",
    EMPTY_BATCH: "empty batch (61-byte header kept)",
    KEPT: "kept (latest of its key)",
    SUPERSEDED: "superseded (a later record of its key exists)",
    AWAITING_HORIZON: "tombstone awaiting its delete horizon",
    CONTROL: "transaction marker",
    MISSED: "missed (offset map full)",
    PASS: "cleaner pass",
    ROLL: "segment roll",
    DEADLINE: "max.compaction.lag.ms deadline",
}
"""Legend text for each of :data:`COLORS`' entries."""

REGIONS = (CLEAN, CLEANABLE, UNCLEANABLE, ACTIVE)
FATES = (KEPT, SUPERSEDED, TOMBSTONE, AWAITING_HORIZON, CONTROL)

KEY_COLORS: tuple[str, ...] = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
"""Colors cycled over keys when records are colored by key (keys in order of first appearance)."""


def key_color(index: int) -> str:
    """The color of the ``index``-th distinct key."""
    return KEY_COLORS[index % len(KEY_COLORS)]
