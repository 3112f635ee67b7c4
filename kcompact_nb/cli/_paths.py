"""Checks of the paths a command is given, before any work: what is missing is named as such."""

from __future__ import annotations

from pathlib import Path

from kcompact_nb.core import KcompactError
from kcompact_nb.io import parse_partition_dir_name


def existing(path: Path, what: str) -> Path:
    """``path`` when it exists; otherwise an error saying that the ``what`` does not exist."""
    if not path.exists():
        raise KcompactError(f"{what} {path} does not exist")
    return path


def existing_file(path: Path, what: str) -> Path:
    """``path`` when it is an existing file (not a folder)."""
    if existing(path, what).is_dir():
        raise KcompactError(f"{what} {path} is a folder, not a file")
    return path


def existing_dir(path: Path, what: str) -> Path:
    """``path`` when it is an existing folder."""
    if not existing(path, what).is_dir():
        raise KcompactError(f"{what} {path} is a file, not a folder")
    return path


def output_file(path: Path, option: str) -> Path:
    """``path`` when a file can be written there: its folder exists and it is not itself a folder."""
    folder = path.parent
    if not folder.is_dir():
        raise KcompactError(f"{option} {path}: the folder {folder} does not exist; create it first")
    if path.is_dir():
        raise KcompactError(f"{option} {path} is a folder; give a file name")
    return path


def named_like_partition(path: Path) -> bool:
    """The folder name is ``<topic>-<partition>``, as Kafka names a partition's folder."""
    try:
        parse_partition_dir_name(path)
    except KcompactError:
        return False
    return True
