"""Text labels placed by a rule, so that they cannot collide: equal positions merge, overlaps take new rows.

Widths are estimated from the text length at the figure's font size for a plot area of
:data:`PLOT_WIDTH_PX` pixels (a JupyterLab output area at 1280 px with the side bar open); a wider
view only adds room between labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

PLOT_WIDTH_PX = 700
"""The narrowest plot area the rule plans for: a JupyterLab output area at 1280 px with the file browser open is
about 850 px wide, 750 px of it plot."""
CHAR_PX = 0.62
"""Average glyph width of the figure font, in units of its size."""
GAP_PX = 12


class Label(NamedTuple):
    """A label at ``x`` (data units) on ``row`` (0 is the first row), anchored ``"center"``, ``"left"`` or ``"right"``.

    A label that would cross an edge of the plot is anchored at its position and extends inwards. A label
    that ``points`` is wider than what it names: it sits on a row above the others with an arrow down to it,
    its text moved ``shift_px`` sideways from the arrow (clear of the figure's vertical lines).
    """

    x: float
    text: str
    row: int
    anchor: str = "center"
    points: bool = False
    shift_px: float = 0.0


def merged(items: Sequence[tuple[float, str]]) -> list[tuple[float, str]]:
    """Labels at the same position become one: ``"cleaner point 4 = first uncleanable offset 4"``."""
    by_x: dict[float, list[str]] = {}
    for x, text in items:
        by_x.setdefault(x, []).append(text)
    return [(x, " = ".join(texts)) for x, texts in sorted(by_x.items())]


def text_px(text: str, font_size: float) -> float:
    """Estimated width of ``text`` (without markup) in pixels."""
    plain = text.replace("<b>", "").replace("</b>", "")
    longest = max(plain.split("<br>"), key=len)
    return len(longest) * CHAR_PX * font_size


def stacked(
    items: Sequence[tuple[float, str]],
    *,
    px_per_unit: float,
    font_size: float,
    bounds: tuple[float, float] | None = None,
) -> list[Label]:
    """Each label on the first row where it overlaps no label placed before it.

    Items are placed in order of position; each occupies its estimated width plus a gap, centred at
    its ``x`` unless that would cross ``bounds`` (data units), then anchored at ``x`` and extending
    inwards. The result keeps the order of ``items``.
    """
    rows: list[list[tuple[float, float]]] = []
    placed: dict[int, Label] = {}
    low, high = (-float("inf"), float("inf")) if bounds is None else (bounds[0] * px_per_unit, bounds[1] * px_per_unit)
    for index in sorted(range(len(items)), key=lambda i: items[i][0]):
        x, text = items[index]
        width = text_px(text, font_size) + GAP_PX
        centre = x * px_per_unit
        anchor, left = "center", centre - width / 2
        if left < low:
            anchor, left = "left", centre
        elif left + width > high:
            anchor, left = "right", centre - width
        right = left + width
        row = next((r for r, spans in enumerate(rows) if all(right <= a or left >= b for a, b in spans)), len(rows))
        if row == len(rows):
            rows.append([])
        rows[row].append((left, right))
        placed[index] = Label(x, text, row, anchor)
    return [placed[i] for i in range(len(items))]


def row_count(labels: Sequence[Label]) -> int:
    return max((label.row for label in labels), default=-1) + 1
