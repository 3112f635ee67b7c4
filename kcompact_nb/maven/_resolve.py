"""``mvn dependency:copy-dependencies`` of a recipe, once per set of properties, into the user cache folder."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from kcompact_nb.core import KcompactError

_RECIPES = Path(__file__).resolve().parent / "recipes"
_COMPLETE_MARKER = ".complete"
_LOCK_FILE = ".resolve.lock"


class ToolMissingError(KcompactError, RuntimeError):
    """A program the feature needs (``java``, ``javac``, ``mvn``) is not installed."""


class MavenError(KcompactError, RuntimeError):
    """Maven ran but could not resolve a recipe (no network to Maven Central, an unknown version)."""


def jars_dir() -> Path:
    """Where resolved jars and Maven's downloads live.

    ``$KCOMPACT_MAVEN_DIR``, else ``$XDG_CACHE_HOME/kcompact_nb/maven`` or ``~/.cache/kcompact_nb/maven``.
    """
    explicit = os.environ.get("KCOMPACT_MAVEN_DIR")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kcompact_nb" / "maven"


def recipe(name: str) -> Path:
    """The ``pom.xml`` of a recipe shipped with the package: ``kafka-broker`` or ``spark-kafka``."""
    path = _RECIPES / f"{name}.pom.xml"
    if not path.is_file():
        known = sorted(p.name.removesuffix(".pom.xml") for p in _RECIPES.glob("*.pom.xml"))
        raise MavenError(f"no Maven recipe {name!r}; the package ships {', '.join(known)}")
    return path


def missing_tools(tools: tuple[str, ...] = ("java", "mvn")) -> list[str]:
    """The programs of ``tools`` that are not on ``PATH``."""
    return [tool for tool in tools if shutil.which(tool) is None]


def require_tools(what: str, tools: tuple[str, ...] = ("java", "mvn")) -> None:
    """Raise :class:`ToolMissingError` naming the missing programs and what needs them."""
    missing = missing_tools(tools)
    if missing:
        raise ToolMissingError(
            f"{what} needs {' and '.join(missing)} on PATH (Java 17 or newer, Maven 3; on Debian: "
            "apt-get install openjdk-17-jdk-headless maven)"
        )


def resolve_dependencies(
    pom: Path,
    name: str,
    *,
    properties: Mapping[str, str] | None = None,
    profile: str | None = None,
    timeout_s: float = 900.0,
) -> Path:
    """The folder of ``pom``'s runtime jars under :func:`jars_dir` (``name`` is its subfolder), resolved once.

    Maven's local repository is ``jars_dir()/repository``, shared by every recipe; a marker file records a
    complete copy, so a resolution cut short is done again. Processes resolving at once (notebooks side by side)
    take turns: one Maven at a time writes the shared repository, and a folder another one completed is reused.
    """
    target = jars_dir() / name
    if (target / _COMPLETE_MARKER).exists():
        return target
    require_tools(f"resolving {name} from Maven Central", ("mvn",))
    with _one_resolution_at_a_time():
        if not (target / _COMPLETE_MARKER).exists():
            _copy_dependencies(pom, target, name, properties, profile, timeout_s)
    return target


@contextmanager
def _one_resolution_at_a_time() -> Iterator[None]:
    """Hold an exclusive lock on :func:`jars_dir`'s lock file (released when the process ends, however it ends)."""
    jars_dir().mkdir(parents=True, exist_ok=True)
    with (jars_dir() / _LOCK_FILE).open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _copy_dependencies(
    pom: Path, target: Path, name: str, properties: Mapping[str, str] | None, profile: str | None, timeout_s: float
) -> None:
    command = [
        "mvn", "-B", "-q", "-f", str(pom), *(["-P", profile] if profile else []),
        *(f"-D{key}={value}" for key, value in (properties or {}).items()),
        f"-Dmaven.repo.local={jars_dir() / 'repository'}",
        "dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={target}",
    ]  # fmt: skip
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise MavenError(
            f"Maven did not resolve {name} within {timeout_s:.0f} s (is Maven Central reachable?)"
        ) from None
    if result.returncode != 0:
        raise MavenError(f"Maven could not resolve {name} (exit {result.returncode}): {_first_error(result)}")
    (target / _COMPLETE_MARKER).write_text(name + "\n")


def _first_error(result: subprocess.CompletedProcess[str]) -> str:
    """Maven's first ``[ERROR]`` line, the one that says why (the rest is its advice and stack)."""
    for line in (result.stdout + result.stderr).splitlines():
        if line.startswith("[ERROR]") and line.strip() != "[ERROR]":
            return line.removeprefix("[ERROR]").strip()
    return (result.stdout + result.stderr).strip().splitlines()[-1] if (result.stdout + result.stderr).strip() else ""
