"""All-or-nothing output folders: write beside the target, then rename into place.

Every writer of a log dir or partition dir goes through :func:`staged_dir`: the content is built in a staging
folder beside the target (``.<name>.kcompact-staging-<tag>-<pid>-<token>``, the name cut to 32 characters and
tagged with a hash of it, so that a long target name cannot make the staging name too long), and only when it is
complete does one rename put it in place. That rename is also the claim: without ``replace`` it fails when another
writer filled the target meanwhile (a rename over a folder that is not empty fails), so of two writers of one new
target one wins and the other says so; nothing is replaced. A symbolic link to a folder is written through (the
folder it names is the target), and a folder no rename can replace (a mount point) is written into: the staging
folder is made inside it and its entries are moved in once complete. Whatever stops the writer half-way (an error,
a full disk, Ctrl-C, a terminating signal the command line turns into an exception) removes the staging folder, so
the target is either untouched or complete. A process killed outright (SIGKILL) cannot clean up: the next writer of
the same target removes the staging folders whose process is gone, and says so through ``on_stale``.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from kcompact_nb.io._errors import LogWriteError

STAGING_MARK = ".kcompact-staging-"
"""What the name of every staging folder holds, after ``.<target name>`` and before ``<pid>-<token>``."""


@contextmanager
def staged_dir(
    target: str | os.PathLike[str],
    *,
    keep_existing: bool = False,
    replace: bool | None = None,
    on_stale: Callable[[Path], None] | None = None,
) -> Iterator[Path]:
    """A fresh folder to build ``target`` in; on a normal exit it becomes ``target`` in one rename.

    With ``keep_existing`` the staging folder starts as a copy of ``target`` (a writer that updates part of
    an existing folder). ``replace`` (default: ``keep_existing``) lets the rename replace a ``target`` that is
    not empty; without it a ``target`` another writer filled meanwhile is left as it is and a
    :class:`LogWriteError` says so. ``target``'s parent is created when missing. On any exception the staging
    folder is removed and ``target`` is left as it was; a full disk is reported as a :class:`LogWriteError`
    naming ``target``. ``on_stale`` is told of each staging folder of a killed earlier run it removed.
    """
    final = _written_through(Path(target))
    final.parent.mkdir(parents=True, exist_ok=True)
    _clear_stale(final, on_stale)
    inside = final.is_dir() and os.path.ismount(final)
    staging = _new_name(final, inside=inside)
    try:
        if keep_existing and final.is_dir():
            shutil.copytree(final, staging, symlinks=True, ignore=_not_staging)
        else:
            staging.mkdir()
        yield staging
        _swap_in(staging, final, replace=keep_existing if replace is None else replace)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        if _disk_full(error):
            raise _nothing_written(final) from None
        raise
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _written_through(path: Path) -> Path:
    """The folder a symbolic link names (the link stays), else ``path``."""
    return Path(os.path.realpath(path)) if path.is_symlink() and path.is_dir() else path


def _not_staging(_folder: str, names: list[str]) -> list[str]:
    return [name for name in names if STAGING_MARK in name]


@contextmanager
def scratch_folder(
    target: str | os.PathLike[str], suffix: str, *, on_stale: Callable[[Path], None] | None = None
) -> Iterator[Path]:
    """A scratch folder beside ``target``, named like its staging folders (a killed run's is found and removed) and
    removed on exit; a full disk while it is written is reported as :func:`staged_dir` reports it, naming ``target``.

    ``on_stale`` is told of each staging folder of a killed earlier run removed first.
    """
    final = _written_through(Path(target))
    _clear_stale(final, on_stale)
    folder = _new_name(final, f"-{suffix}", inside=final.is_dir() and os.path.ismount(final))
    folder.mkdir(parents=True)
    try:
        yield folder
    except OSError as error:
        if _disk_full(error):
            raise _nothing_written(final) from None
        raise
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _nothing_written(final: Path) -> LogWriteError:
    return LogWriteError(f"{final}: no space left on its device; nothing was written there")


_SHOWN_NAME_CHARS = 32
"""How much of the target's name a staging folder's name repeats (a file name holds 255 bytes at most)."""


def _tag(final: Path) -> str:
    """The target's name, cut to :data:`_SHOWN_NAME_CHARS`, and a hash of the whole name (no two targets share it)."""
    return f"{final.name[:_SHOWN_NAME_CHARS]}{STAGING_MARK}{zlib.crc32(os.fsencode(final.name)):08x}-"


def _own_prefix(final: Path) -> str:
    """The start of the name of every staging folder this process makes for ``final``."""
    return f".{_tag(final)}{os.getpid()}-"


def _new_name(final: Path, suffix: str = "", *, inside: bool = False) -> Path:
    return (final if inside else final.parent) / f"{_own_prefix(final)}{secrets.token_hex(4)}{suffix}"


def _clear_stale(final: Path, on_stale: Callable[[Path], None] | None) -> None:
    for stale in remove_stale_staging(final):
        if on_stale is not None:
            on_stale(stale)


def _swap_in(staging: Path, final: Path, *, replace: bool) -> None:
    """Put ``staging`` where ``final`` is: one rename (after moving a ``final`` it may replace aside)."""
    if staging.parent == final:  # a mount point: written into
        _move_into(staging, final, replace=replace)
        return
    if replace and final.is_dir() and any(final.iterdir()):
        old = _new_name(final, "-old")
        final.rename(old)
        try:
            staging.rename(final)
        except BaseException:
            old.rename(final)
            raise
        shutil.rmtree(old, ignore_errors=True)
        return
    try:
        staging.rename(final)  # a new or empty final only: rename(2) fails over a folder that holds anything
    except OSError as error:
        if error.errno in (errno.ENOTEMPTY, errno.EEXIST):
            raise LogWriteError(
                f"{final}: another writer filled it while this one worked; it is left as that writer left it and "
                "nothing of this run was written"
            ) from None
        if error.errno == errno.EBUSY and final.is_dir():  # in use (a bind mount): written into
            _move_into(_moved_inside(staging, final), final, replace=replace)
            return
        raise


def _moved_inside(staging: Path, final: Path) -> Path:
    inside = final / staging.name
    shutil.move(staging, inside)
    return inside


def _move_into(staging: Path, final: Path, *, replace: bool) -> None:
    """Move the entries of ``staging`` (inside ``final``) into ``final``, claimed first with a file made only if
    absent (``O_EXCL``), so that of two writers one moves and the other refuses."""
    claim = final / f".{_tag(final)}claim"
    try:
        os.close(os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        raise LogWriteError(
            f"{final}: another writer is moving its output in; nothing of this run was written"
        ) from None
    try:
        others = [entry for entry in final.iterdir() if STAGING_MARK not in entry.name]
        if others and not replace:
            raise LogWriteError(
                f"{final}: another writer filled it while this one worked; nothing of this run was written"
            )
        for entry in others:
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
        for entry in sorted(staging.iterdir()):
            entry.rename(final / entry.name)
        staging.rmdir()
    finally:
        claim.unlink(missing_ok=True)


def remove_stale_staging(target: Path) -> list[Path]:
    """Remove the staging folders of ``target`` left by processes that no longer run (beside it, or inside it when
    it is a mount point); returns them."""
    final = _written_through(target)
    pattern = re.compile(re.escape(f".{_tag(final)}") + r"(\d+)-")
    removed: list[Path] = []
    for folder in (final.parent, final):
        if not folder.is_dir() or (folder == final and not os.path.ismount(final)):
            continue
        for entry in sorted(folder.iterdir()):
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
    final = _written_through(Path(target))
    mark = _own_prefix(final)
    for folder in (final.parent, final):
        if folder.is_dir() and (folder != final or os.path.ismount(final)):
            for entry in folder.iterdir():
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
