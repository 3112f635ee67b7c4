"""Per-cell data handed to plotly as numpy arrays: plotly copies an array whole, where it validates (and, when a
figure is copied or synced, deep-copies) a list item by item, which costs a stepper step tenths of a second at
10,000 cells."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence
from typing import Any

import numpy

HOVER_CHARS = 80
"""The longest line of a hover label: plotly draws each line of one whole, so a longer one is cut at the figure's
edges."""


def numbers(values: Iterable[float]) -> Any:
    """``values`` (offsets, widths) as a numpy array."""
    return numpy.array(list(values))


def strings(values: Sequence[str]) -> Any:
    """``values`` (texts, hover texts) as a numpy array of strings."""
    return numpy.array(values, dtype=str)


def lane(count: int) -> dict[str, Any]:
    """``y`` and ``base`` of ``count`` cells filling a lane from 0 to 1 (``base`` as plotly's validation leaves it:
    objects, written to JSON as a list)."""
    return {"y": numpy.ones(count, numpy.int64), "base": numpy.zeros(count, object)}


def wrapped_hovers(values: Any) -> Any:
    """Hover texts (a string, or a sequence or array of them) with every line longer than :data:`HOVER_CHARS`
    broken at spaces (``<br>``); ``values`` itself when no line is that long."""
    if isinstance(values, str):
        return wrapped(values)
    if values is None or len(values) == 0:
        return values
    texts = numpy.asarray(values, dtype=str)
    long = numpy.char.str_len(texts) > HOVER_CHARS
    if not long.any():
        return values
    texts = texts.astype(object)
    texts[long] = [wrapped(text) for text in texts[long]]
    return numpy.array(list(texts), dtype=str)


def wrapped(text: str, chars: int = HOVER_CHARS) -> str:
    """``text`` with every line longer than ``chars`` broken at spaces (``<br>``; a longer word stays whole)."""
    if len(text) <= chars:
        return text
    return "<br>".join(_wrapped_line(line, chars) for line in text.split("<br>"))


def _wrapped_line(line: str, chars: int) -> str:
    """One line broken as ``textwrap.wrap(line, chars, break_long_words=False, break_on_hyphens=False)`` breaks it;
    words apart by single spaces (a hover text's) are broken greedily without ``textwrap``'s regular expressions."""
    words = line.split(" ")
    if words != line.split():
        return "<br>".join(textwrap.wrap(line, chars, break_long_words=False, break_on_hyphens=False)) or line
    lines, current = [], words[0]
    for word in words[1:]:
        if len(current) + 1 + len(word) <= chars:
            current += " " + word
        else:
            lines.append(current)
            current = word
    lines.append(current)
    return "<br>".join(lines)
