"""Where the package keeps what it builds once and reuses: compiled libraries and jars."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path


def cache_dir() -> Path:
    """``$KCOMPACT_CACHE_DIR``, else ``$XDG_CACHE_HOME/kcompact_nb`` or ``~/.cache/kcompact_nb``."""
    environ = os.environ
    return _cache_dir_of(environ.get("KCOMPACT_CACHE_DIR"), environ.get("XDG_CACHE_HOME"), environ.get("HOME"))


@cache
def _cache_dir_of(explicit: str | None, xdg_cache_home: str | None, home: str | None) -> Path:
    """The folder for these variables, made once (a pass rewriting zstd batches asks for each batch)."""
    if explicit:
        return Path(explicit)
    return Path(xdg_cache_home or (Path(home) if home else Path.home()) / ".cache") / "kcompact_nb"
