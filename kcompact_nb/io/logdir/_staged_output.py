"""All-or-nothing output folders: write beside the target, then rename into place.

Every writer of a log dir or partition dir goes through :func:`staged_dir`: the content is built in a
staging folder beside the target (``.<name>.kcompact-staging-<pid>-<token>``), and only when it is complete
does one rename put it in place. Whatever stops the writer half-way (an error, a full disk, Ctrl-C, a
terminating signal the command line turns into an exception) removes the staging folder, so the target is
either untouched or complete. A process killed outright (SIGKILL) cannot clean up: the next writer of the
same target removes the staging folders whose process is gone, and says so through ``on_stale``.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from kcompact_nb.io._errors import LogWriteError

STAGING_MARK = ".kcompact-staging-"
"""What the name of every staging folder holds, after ``.<target name>`` and before ``<pid>-<token>``."""


@contextmanager
def staged_dir(
    target: str | os.PathLike[str], *, keep_existing: bool = False, on_stale: Callable[[Path], None] | None = None
) -> Iterator[Path]:
    """A fresh folder to build ``target`` in; on a normal exit it replaces ``target`` in one rename.

    With ``keep_existing`` the staging folder starts as a copy of ``target`` (a writer that updates part of
    an existing folder). ``target``'s parent is created when missing. On any exception the staging folder
    is removed and ``target`` is left as it was; a full disk is reported as a :class:`LogWriteError`
    naming ``target``. ``on_stale`` is told of each staging folder of a killed earlier run it removed.
    """
    final = Path(target)
    final.parent.mkdir(parents=True, exist_ok=True)
    _clear_stale(final, on_stale)
    staging = _new_name(final)
    try:
        if keep_existing and final.is_dir():
            shutil.copytree(final, staging, symlinks=True)
        else:
            staging.mkdir()
        yield staging
        _swap_in(staging, final)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        if _disk_full(error):
            raise LogWriteError(f"{final}: no space left on its device; nothing was written there") from None
        raise
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def staging_folder(
    target: str | os.PathLike[str], suffix: str, *, on_stale: Callable[[Path], None] | None = None
) -> Path:
    """A scratch folder beside ``target``, named like its staging folders (a killed run's is found and removed).

    The caller removes it. ``on_stale`` is told of each staging folder of a killed earlier run removed first.
    """
    final = Path(target)
    _clear_stale(final, on_stale)
    folder = _new_name(final, f"-{suffix}")
    folder.mkdir(parents=True)
    return folder


def _own_prefix(final: Path) -> str:
    """The start of the name of every staging folder this process makes for ``final``."""
    return f".{final.name}{STAGING_MARK}{os.getpid()}-"


def _new_name(final: Path, suffix: str = "") -> Path:
    return final.parent / f"{_own_prefix(final)}{secrets.token_hex(4)}{suffix}"


def _clear_stale(final: Path, on_stale: Callable[[Path], None] | None) -> None:
    for stale in remove_stale_staging(final):
        if on_stale is not None:
            on_stale(stale)


def _swap_in(staging: Path, final: Path) -> None:
    """Put ``staging`` where ``final`` is: one rename, after moving an existing ``final`` aside."""
    if not final.exists():
        staging.rename(final)
        return
    if final.is_dir() and not any(final.iterdir()):
        final.rmdir()
        staging.rename(final)
        return
    old = _new_name(final, "-old")
    final.rename(old)
    try:
        staging.rename(final)
    except BaseException:
        old.rename(final)
        raise
    shutil.rmtree(old, ignore_errors=True)


def remove_stale_staging(target: Path) -> list[Path]:
    """Remove the staging folders of ``target`` left by processes that no longer run; returns them."""
    pattern = re.compile(re.escape(f".{target.name}{STAGING_MARK}") + r"(\d+)-")
    removed: list[Path] = []
    if not target.parent.is_dir():
        return removed
    for entry in sorted(target.parent.iterdir()):
        match = pattern.match(entry.name)
        if match and entry.is_dir() and not _process_alive(int(match[1])):
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def _disk_full(error: OSError) -> bool:
    """ENOSPC, or a ``shutil.Error`` (copytree's list of failed copies) holding one."""
    if error.errno == errno.ENOSPC:
        return True
    failures = error.args[0] if isinstance(error, shutil.Error) and error.args else []
    return isinstance(failures, list) and any(f"[Errno {errno.ENOSPC}]" in str(item) for item in failures)


def discard_own_staging(target: str | os.PathLike[str]) -> None:
    """Remove every staging and scratch folder of ``target`` that this process made (after an interruption that
    may have struck between a folder's creation and the code that removes it)."""
    final = Path(target)
    mark = _own_prefix(final)
    if final.parent.is_dir():
        for entry in final.parent.iterdir():
            if entry.name.startswith(mark) and entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
