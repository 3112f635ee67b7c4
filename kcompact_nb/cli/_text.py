"""Words and numbers for people: counts with their noun, ISO times, bytes shown as text or hex."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    """``1 batch``, ``2 batches``, ``1,024 records``: the count with thousands separators and the right noun."""
    if count == 1:
        return f"1 {noun}"
    return f"{count:,} {plural_noun or _plural_of(noun)}"


def _plural_of(noun: str) -> str:
    return noun + "es" if noun.endswith(("s", "x", "ch", "sh")) else noun + "s"


def iso_time(ms: int) -> str:
    """Epoch milliseconds as ISO-8601 UTC with milliseconds (``2026-01-01T00:00:00.000Z``).

    The number itself (``… ms``) when no calendar date can show it.
    """
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return f"{ms} ms"


def show_bytes(data: bytes | None, max_chars: int = 40) -> str:
    """Printable UTF-8 as text, anything else as hex; ``null`` for ``None``; shortened with its size."""
    if data is None:
        return "null"
    try:
        text = data.decode("utf-8")
        shown = text if text.isprintable() else "0x" + data.hex()
    except UnicodeDecodeError:
        shown = "0x" + data.hex()
    if len(shown) > max_chars:
        shown = shown[: max(max_chars - 1, 1)] + "…"
    return f"{shown} ({len(data)} B)" if len(data) > max_chars or shown.startswith("0x") else shown


def column_widths(rows: Sequence[tuple[str, ...]]) -> list[int]:
    """The width of each column: its longest cell."""
    return [max(len(row[i]) for row in rows if i < len(row)) for i in range(max(len(r) for r in rows))]


def join_cells(cells: tuple[str, ...], widths: list[int]) -> str:
    """One table line: cells padded to their column's width, two spaces apart."""
    return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=False)).rstrip()


def aligned(columns: tuple[str, ...], rows: Sequence[tuple[str, ...]], indent: str = "  ") -> list[str]:
    """A small table: upper-case headings, then the rows, every column aligned."""
    heading = tuple(c.upper() for c in columns)
    widths = column_widths([heading, *rows])
    return [indent + join_cells(row, widths) for row in (heading, *rows)]
