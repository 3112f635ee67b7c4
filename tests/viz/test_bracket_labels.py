"""Bracket names stand over their own bracket: one wider than its part points at it from a row of its own."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb.core import LogPart
from kcompact_nb.viz._figure import FONT_SIZE
from kcompact_nb.viz._frame import part_labels
from kcompact_nb.viz._labels import Label, row_count, text_px

PX_PER_OFFSET = 20.0


def tail_and_head(tail: int, head: int) -> list[LogPart]:
    return [LogPart("tail", 0, tail, 0), LogPart("head", tail, tail + head, 0)]


def text_span_px(label: Label) -> tuple[float, float]:
    """Where a label's text lies, in px: from its position, anchor and shift."""
    width = text_px(label.text, FONT_SIZE)
    left = label.x * PX_PER_OFFSET + label.shift_px - {"left": 0, "center": width / 2, "right": width}[label.anchor]
    return left, left + width


def test_a_head_one_offset_wide_points_at_its_bracket_from_above_the_tail_name():
    tail_label, head_label = part_labels(tail_and_head(30, 1), px_per_unit=PX_PER_OFFSET, bounds=(-0.5, 30.5))[0]
    assert "log head" in head_label.text and head_label.points and head_label.row == 1
    assert "log tail" in tail_label.text and not tail_label.points and tail_label.row == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=60), min_size=2, max_size=2))
def test_every_bracket_name_fits_its_bracket_or_points_at_it_from_a_row_of_its_own(widths):
    parts = tail_and_head(*widths)
    cleaner_point = widths[0] - 0.5
    bounds = (-0.5, sum(widths) - 0.5)
    labels = part_labels(parts, px_per_unit=PX_PER_OFFSET, bounds=bounds, lines_x=[cleaner_point])[0]
    for label in labels:  # the cleaner point's line never strikes a name through
        low, high = text_span_px(label)
        assert not low < cleaner_point * PX_PER_OFFSET < high
    fitting = [label for label in labels if not label.points]
    for part, label in zip(parts, labels, strict=True):  # a name off its bracket points at it
        low, high = text_span_px(label)
        assert label.points or (part.start - 0.5) * PX_PER_OFFSET <= low <= high <= (part.end - 0.5) * PX_PER_OFFSET
    pointing_rows = [label.row for label in labels if label.points]
    assert len(set(pointing_rows)) == len(pointing_rows) and all(row >= row_count(fitting) for row in pointing_rows)
