"""Where loaders read: local paths (made absolute on the driver) or Hadoop filesystem URLs.

A local path names the same file on every machine of the cluster, so it is resolved against the driver's
working folder before any executor sees it; the JVM side opens it as a ``file:`` URI (explicitly, so a
cluster whose default filesystem is HDFS still reads the local disk). Anything with a scheme
(``hdfs://``, ``s3a://``, ``file:///``...) is passed to Hadoop's filesystem API as it is, without
percent-decoding, as Hadoop's ``Path`` takes it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from kcompact_nb.core import KcompactError

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:/")
"""A scheme of two or more characters and a slash: ``hdfs://nn/x``, ``s3a://bucket/x``, ``file:/x``."""
_LOCAL_HOSTS = ("", "localhost")


class StorageError(KcompactError, ValueError):
    """A location that this way of reading cannot open (a Hadoop URL where only local paths work)."""


@dataclass(frozen=True)
class StorageLocation:
    """A file or folder to read: ``url`` for Hadoop's filesystem API, ``local`` when it is on the local disk."""

    url: str
    local: Path | None

    def __str__(self) -> str:
        """As errors name it: the local path, else the URL."""
        return str(self.local) if self.local is not None else self.url

    def child(self, name: str) -> StorageLocation:
        """The entry ``name`` inside this folder."""
        local = None if self.local is None else self.local / name
        return StorageLocation(f"{self.url.rstrip('/')}/{name}", local)


def storage_location(path: str | os.PathLike[str]) -> StorageLocation:
    """``path`` as a location: local paths absolute (``file:`` URL), URLs as given (``file:`` ones also local)."""
    text = os.fspath(path)
    if not isinstance(path, os.PathLike) and _URL.match(text):
        parts = urlsplit(text)
        local = Path(parts.path) if parts.scheme.lower() == "file" and parts.netloc in _LOCAL_HOSTS else None
        return StorageLocation(text, local)
    absolute = Path(os.path.abspath(os.path.expanduser(text)))
    return StorageLocation(f"file:{absolute}", absolute)


def local_path(location: StorageLocation, why: str) -> Path:
    """The local path of ``location``; a :class:`StorageError` saying ``why`` only a local one works otherwise."""
    if location.local is not None:
        return location.local
    raise StorageError(f"{location.url}: {why}")
