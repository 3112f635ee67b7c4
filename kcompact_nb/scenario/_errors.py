"""Errors of scenario files: each names the JSON path of the offending item."""

from __future__ import annotations

from kcompact_nb.core import KcompactError


class ScenarioError(KcompactError, ValueError):
    """An invalid scenario; ``path`` is the JSON path (``steps[3].records[0].key``) of the problem."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.detail = message
        super().__init__(f"{path}: {message}" if path else message)
