"""A pandas table of exact values that shows itself to people in human units, every column whole.

Columns are read by their names, as the package's DataFrames name them: ``*_bytes`` are sizes
(``656.44 KiB``), ``*_ms`` are times (ISO 8601, or ``t = 7 d 1 ms`` on a simulated clock) unless their name
says a duration (``*_delay_ms``, ``*_lag_ms``, ``*_retention_ms``: ``1 h 30 min``), timestamps read ISO 8601
and ratios three decimals. Only the display changes: the values stay Kafka's exact bytes and milliseconds.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from typing import Any

import pandas

from kcompact_nb.core import format_bytes, format_duration_ms, format_instant_ms, format_time_ms

DURATION_SUFFIXES = ("_delay_ms", "_lag_ms", "_retention_ms", "_duration_ms")
"""``*_ms`` columns that hold durations; every other ``*_ms`` column holds a time."""
NO_BREAK = "\u00a0"
"""Between a number and its unit in the HTML table, so that a value never wraps."""
HEADER_BREAK = "_\u200b"
"""Where a long column name may wrap in the HTML table: after each underscore (a zero-width space)."""


class PeopleTable(pandas.DataFrame):
    """A pandas DataFrame of exact values (bytes, milliseconds) shown in human units, without its index.

    Everything computed from it (a column, a selection, a sum) is a plain DataFrame or Series of the exact
    values; :meth:`for_people` is the text shown.
    """

    @property
    def _constructor(self) -> Any:
        return pandas.DataFrame

    def for_people(self) -> pandas.DataFrame:
        """The same rows and columns as text in human units (sizes, times, durations, ratios)."""
        shown = pandas.DataFrame(self, copy=True)
        for name in shown.columns:
            people = _people_form(str(name), shown[name])
            if people is not None:
                shown[name] = [people(v) for v in shown[name]]
            elif shown[name].dtype == object:  # a null key or value reads as Kafka's tools print it, not "None"
                shown[name] = ["null" if v is None else v for v in shown[name]]
        return shown

    def __repr__(self) -> str:
        text: str = self.for_people().to_string(index=False)
        return text

    def _repr_html_(self) -> str:
        shown = self.for_people()
        for name in shown.columns:
            if _people_form(str(name), self[name]) is not None:  # "656.44 KiB" stays on one line
                shown[name] = [text.replace(" ", NO_BREAK) for text in shown[name]]
        shown.columns = [html.escape(str(c)).replace("_", HEADER_BREAK) for c in shown.columns]
        rendered: str = shown.to_html(index=False, border=0, na_rep="", escape=True)
        return rendered


def _people_form(name: str, column: pandas.Series) -> Callable[[Any], str] | None:
    """How one column's values read for people, or None to show them as they are."""
    if name.endswith("_bytes"):
        return _missing_or(lambda v: format_bytes(int(v), exact=False))
    if name.endswith(DURATION_SUFFIXES):
        return _missing_or(lambda v: format_duration_ms(int(v)))
    if name.endswith("_ms"):
        return _missing_or(lambda v: format_instant_ms(int(v)))
    if pandas.api.types.is_datetime64_any_dtype(column):
        return _missing_or(lambda v: format_time_ms(int(pandas.Timestamp(v).value // 1_000_000)))
    if pandas.api.types.is_float_dtype(column):
        return _missing_or(lambda v: f"{v:.3f}")
    return None


def _missing_or(form: Callable[[Any], str]) -> Callable[[Any], str]:
    """``form``, with null, NaN and NaT shown as an empty cell."""

    def shown(value: Any) -> str:
        if value is None or value is pandas.NaT or (isinstance(value, float) and math.isnan(value)):
            return ""
        return form(value)

    return shown
