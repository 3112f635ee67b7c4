"""Run the installed ``kcompact`` (the console script beside this interpreter) as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

KCOMPACT = Path(sys.executable).with_name("kcompact")


def kcompact(*args: str | os.PathLike[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``kcompact ARGS``; fails the test if it printed a Python traceback."""
    done = subprocess.run(
        [str(KCOMPACT), *map(str, args)], capture_output=True, text=True, env={**os.environ, **(env or {})}
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert "Traceback" not in done.stdout, done.stdout
    return done
