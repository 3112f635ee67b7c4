"""A tqdm progress bar over bytes read, shown only for long reads on an interactive terminal."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any, Self

PROGRESS_THRESHOLD_BYTES = 256 * 1_048_576
"""Reads of at least this many bytes show a bar when ``progress`` is left to ``None``."""
_UPDATE_EVERY_BYTES = 4 * 1_048_576


def wants_progress(total_bytes: int, progress: bool | None) -> bool:
    """Whether to show a bar: explicit ``progress`` wins; otherwise big reads on a terminal."""
    if progress is not None:
        return progress
    return total_bytes >= PROGRESS_THRESHOLD_BYTES and sys.stderr.isatty()


class ByteProgress:
    """Context manager whose :meth:`update` advances a tqdm bar (a no-op when disabled).

    Updates are coalesced into steps of a few MiB so the per-batch cost stays negligible.
    """

    def __init__(self, total_bytes: int, description: str, progress: bool | None = None) -> None:
        self.total_bytes = total_bytes
        self.enabled = wants_progress(total_bytes, progress)
        self._bar: Any = None
        self._pending = 0
        if self.enabled:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total_bytes, desc=description, unit="B", unit_scale=True, unit_divisor=1024)

    def update(self, nbytes: int) -> None:
        if self._bar is None:
            return
        self._pending += nbytes
        if self._pending >= _UPDATE_EVERY_BYTES:
            self._bar.update(self._pending)
            self._pending = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.update(self._pending)
            self._bar.close()
