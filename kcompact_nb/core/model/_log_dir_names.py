"""How a broker names what it keeps in a log dir (``LogFileUtils``, ``UnifiedLog.parseTopicPartitionName``).

A log dir holds one ``<topic>-<partition>`` directory per partition; each segment's files are named by its
base offset, zero-padded to 20 digits, and a suffix: ``00000000000000000042.log``, ``.index``,
``.timeindex``, ``.txnindex``, ``.snapshot``. A file the cleaner or a deletion left half-way carries one more
suffix (``.cleaned``, ``.swap``, ``.deleted``); Kafka finishes or discards it at startup.
"""

from __future__ import annotations

import re

from kcompact_nb.core.model._config_keys import INT_MAX

LOG_FILE_SUFFIX = ".log"
INDEX_FILE_SUFFIX = ".index"
TIME_INDEX_FILE_SUFFIX = ".timeindex"
TXN_INDEX_FILE_SUFFIX = ".txnindex"
PRODUCER_SNAPSHOT_FILE_SUFFIX = ".snapshot"
SEGMENT_FILE_SUFFIXES = (LOG_FILE_SUFFIX, INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX, TXN_INDEX_FILE_SUFFIX)
"""The files of one segment (``LogSegment``: its log, offset index, time index and transaction index)."""
CLEANED_FILE_SUFFIX = ".cleaned"
SWAP_FILE_SUFFIX = ".swap"
DELETED_FILE_SUFFIX = ".deleted"
LEFTOVER_FILE_SUFFIXES = (CLEANED_FILE_SUFFIX, SWAP_FILE_SUFFIX, DELETED_FILE_SUFFIX)
"""Suffixes of files a cleaning or a deletion left half-way (``LogFileUtils``)."""
IN_FLIGHT_FILE_SUFFIXES = (".tmp", ".lock")
"""Files a running broker holds only for a moment or for itself: a checkpoint being written (``CheckpointFile``
writes ``NAME.tmp``, then renames it) and the log dir's ``.lock``; never read nor copied."""
METADATA_LOG_TOPIC = "__cluster_metadata"
"""The KRaft metadata log: kept in a log dir, but not one of the broker's logs (``LogManager.loadLogs`` skips it)."""

SEGMENT_FILE_NAME = re.compile(r"^(?P<offset>\d{20})\.log$")
"""A segment's log file: 20 digits of base offset, then ``.log``."""
LEFTOVER_SEGMENT_FILE_NAME = re.compile(r"^(?P<offset>\d{20})\.log\.(?P<leftover>cleaned|swap|deleted)$")
SEGMENT_FILE_OF_ANY_KIND = re.compile(r"^(?P<offset>\d{20})(?P<suffix>\.log|\.index|\.timeindex|\.txnindex)$")
PRODUCER_SNAPSHOT_FILE_NAME = re.compile(r"^(?P<offset>\d{20})\.snapshot$")
PARTITION_DIR_NAME = re.compile(r"^(?P<topic>.+)-(?P<partition>[0-9]+)$")


def filename_prefix_from_offset(offset: int) -> str:
    """The offset zero-padded to 20 digits (``LogFileUtils.filenamePrefixFromOffset``)."""
    return f"{offset:020d}"


def segment_file_name(base_offset: int, suffix: str = LOG_FILE_SUFFIX) -> str:
    """The name of a segment's file: ``00000000000000000042.log`` (or ``.index``, ``.snapshot``, ...)."""
    return filename_prefix_from_offset(base_offset) + suffix


def topic_partition_of_dir(name: str) -> tuple[str, int] | None:
    """``(topic, partition)`` of a ``<topic>-<partition>`` directory name, ``None`` for any other name.

    The topic is everything before the last ``-`` and the partition a Java int (``UnifiedLog.parseTopicPartitionName``,
    ``Integer.parseInt``); a directory being deleted or moved (``...-delete``, ``...-future``, ``...-stray``)
    does not end in a number.
    """
    match = PARTITION_DIR_NAME.match(name)
    if match is None or int(match.group("partition")) > INT_MAX:
        return None
    return match.group("topic"), int(match.group("partition"))
