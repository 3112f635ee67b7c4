"""Checks of the paths a command is given, before any work: what is missing is named as such."""

from __future__ import annotations

import os
from pathlib import Path

from kcompact_nb.core import KcompactError
from kcompact_nb.io import (
    CLEANER_OFFSET_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    checked_input,
    file_kind,
    parse_partition_dir_name,
    read_input,
)

MAX_TEXT_BYTES = 64 * 1024**2
"""The largest config file read (64 MiB)."""
BYTE_ORDER_MARK = "\ufeff"
"""What some editors write before UTF-8 text; not part of the first line."""
CHECKPOINT_FILES = (CLEANER_OFFSET_CHECKPOINT, LOG_START_OFFSET_CHECKPOINT, RECOVERY_POINT_CHECKPOINT)


def existing(path: Path, what: str) -> Path:
    """``path`` when it exists; otherwise an error saying that the ``what`` does not exist, or loops."""
    kind = file_kind(path)
    if kind == "missing":
        raise KcompactError(f"{what} {path} does not exist")
    if kind is not None and kind.startswith("a symbolic link"):
        raise KcompactError(f"{what} {path} is {kind}")
    if kind is not None and not kind.startswith("a "):  # stat itself failed: Permission denied...
        raise KcompactError(f"{what} {path}: {kind}")
    return path


def existing_file(path: Path, what: str) -> Path:
    """``path`` when it is a regular file (or a shell's pipe, ``<(command)``): not a folder, FIFO or device."""
    return checked_input(path, what)


def existing_dir(path: Path, what: str) -> Path:
    """``path`` when it is an existing folder."""
    if not existing(path, what).is_dir():
        raise KcompactError(f"{what} {path} is a file, not a folder")
    return path


def read_text_file(path: Path, what: str) -> str:
    """The UTF-8 text of ``path`` (a UTF-8 byte order mark before it is dropped); a file in another encoding is
    named with the first byte that is not UTF-8."""
    try:
        return read_input(path, what, limit=MAX_TEXT_BYTES).decode("utf-8").removeprefix(BYTE_ORDER_MARK)
    except UnicodeDecodeError as error:
        where = f"byte 0x{error.object[error.start]:02x} at position {error.start}"
        raise KcompactError(f"{what} {path} is not UTF-8 text ({where}); save it as UTF-8") from None


def output_folder(path: Path, option: str) -> Path:
    """``path`` when a folder can be made there: its parent exists and it is not a file."""
    if not path.parent.is_dir():
        raise KcompactError(f"{option} {path}: the folder {path.parent} does not exist; create it first")
    if path.exists() and not path.is_dir():
        raise KcompactError(f"{option} {path} is a file; give a folder")
    return path


def output_file(path: Path, option: str) -> Path:
    """``path`` when a file can be written there: its folder exists and it is not itself a folder."""
    folder = path.parent
    if not folder.is_dir():
        raise KcompactError(f"{option} {path}: the folder {folder} does not exist; create it first")
    if path.is_dir():
        raise KcompactError(f"{option} {path} is a folder; give a file name")
    return path


def not_an_input(output: Path, inputs: list[Path], option: str) -> None:
    """Refuse an output path that is one of the inputs, holds one or lies inside one (after symbolic links; a hard
    link to an input too)."""
    out = Path(os.path.realpath(output))
    for given in inputs:
        source = Path(os.path.realpath(given))
        same_file = file_kind(output) is None and file_kind(given) is None and output.samefile(given)
        if same_file or out == source or out in source.parents or source in out.parents:
            raise KcompactError(
                f"{option} {output} is, holds or lies inside the input {given}; writing there would replace what "
                "is read: give another path"
            )


def log_dir_argument(path: Path, command: str) -> Path:
    """``path`` when it looks like a broker log dir; a clear error for a partition folder or an unrelated one."""
    children = list(existing_dir(path, "log dir").iterdir())
    if any(p.suffix == ".log" for p in children) and named_like_partition(path):
        raise KcompactError(
            f"{path} is a partition folder, not a log dir: give its parent ({path.parent}) to {command} every "
            f"partition, or `kcompact dump {path}` for this one"
        )
    has_partitions = any(p.is_dir() and named_like_partition(p) for p in children)
    if not has_partitions and not any(p.name in CHECKPOINT_FILES for p in children):
        raise KcompactError(
            f"{path} holds no partition folders (<topic>-<partition>/) and no checkpoint files: "
            "is it a broker log dir (a folder named in log.dirs)?"
        )
    return path


def named_like_partition(path: Path) -> bool:
    """The folder name is ``<topic>-<partition>``, as Kafka names a partition's folder."""
    try:
        parse_partition_dir_name(path)
    except KcompactError:
        return False
    return True
