"""The JDK's tools as Spark's launcher finds them: ``$JAVA_HOME/bin``, else the PATH."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def java_tool(name: str) -> str | None:
    """The path of the JDK tool ``name`` (``java``, ``javac``), None when neither place has an executable one."""
    java_home = os.environ.get("JAVA_HOME")
    candidates = [str(Path(java_home) / "bin" / name)] if java_home else []
    candidates.append(shutil.which(name) or "")
    return next((candidate for candidate in candidates if candidate and os.access(candidate, os.X_OK)), None)
