"""Where the package keeps what it builds once and reuses: compiled libraries and jars."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """``$KCOMPACT_CACHE_DIR``, else ``$XDG_CACHE_HOME/kcompact_nb`` or ``~/.cache/kcompact_nb``."""
    explicit = os.environ.get("KCOMPACT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kcompact_nb"
