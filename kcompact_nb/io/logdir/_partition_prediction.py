"""Kafka's next pass over a partition directory, streamed: any size of partition in bounded memory.

:func:`predict_partition_dir` is the exact pass of :func:`kcompact_nb.core.next_pass` (``Cleaner.doClean``
over the cleanable range at ``now_ms``, run even when the log is not eligible) on a partition read segment
file by segment file, as Kafka's cleaner reads it: the batch headers once (:func:`scan_partition_dir`), the
dirty range's records for the offset map, then each group of segments (``groupSegmentsBySize``) through
retention, each cleaned group written to ``out`` as it is done. Same retained offsets, segment layout,
``.log`` bytes and ``CleanerStats`` as the pass over the log in memory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Unpack

from kcompact_nb.core import (
    CleanerManager,
    LogToClean,
    OffsetMapSpec,
    PartitionLog,
    PassResult,
    Strategy,
    log_to_clean,
)
from kcompact_nb.io._errors import LogWriteError
from kcompact_nb.io.logdir._log_reader import LoadedPartition, scan_partition_dir
from kcompact_nb.io.logdir._partition_stream import SegmentFiles
from kcompact_nb.io.logdir._read_options import ReadOptions
from kcompact_nb.io.logdir._staged_output import staged_dir


@dataclass(frozen=True)
class PartitionPrediction:
    """The next pass over a partition directory.

    ``log_to_clean`` is the partition before the pass; ``result`` the pass (``None`` when the cleanable
    range is empty); ``log`` the partition after it, its segments known by their metadata (sizes, offsets,
    index entries); ``written`` the partition directory written, when an output folder was given.
    """

    log_to_clean: LogToClean
    result: PassResult | None
    log: PartitionLog
    written: Path | None


def predict_partition_dir(
    path: str | os.PathLike[str],
    *,
    now_ms: int,
    log_start_offset: int | None = None,
    cleaner_checkpoint: int | None = None,
    offset_map: OffsetMapSpec | None = None,
    strategy: Strategy | None = None,
    out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    **options: Unpack[ReadOptions],
) -> PartitionPrediction:
    """Kafka's next pass at ``now_ms`` over the partition directory ``path``, in bounded memory.

    Parameters
    ----------
    path
        A ``<topic>-<partition>/`` directory; never modified.
    now_ms
        The pass time (broker wall clock, epoch ms).
    log_start_offset, cleaner_checkpoint
        As for :func:`kcompact_nb.io.read_partition_dir` (the partition's folder does not hold the checkpoints).
    offset_map, strategy
        The pass's offset map (default: one cleaner thread's share of ``log.cleaner.dedupe.buffer.size``; a pass
        that fills it stops early, as Kafka's does) and strategy (default: the topic's ``compaction.strategy``).
    out
        A folder to write the partition directory the pass leaves into (``.log`` files: cleaned groups as
        they are done, the segments the pass does not reach copied); ``None`` predicts without writing.
    overwrite
        Replace an existing non-empty ``<out>/<topic>-<partition>/``.
    options
        :class:`~kcompact_nb.io.ReadOptions`: ``config``, ``broker``, ``verify_crc``, ``progress``.

    Memory is the partition's metadata, the offset map (bounded by the dedupe buffer) and one read buffer's
    batches, not the partition's records.
    """
    scanned = scan_partition_dir(
        path, now_ms=now_ms, log_start_offset=log_start_offset, cleaner_checkpoint=cleaner_checkpoint, **options
    )
    verify_crc = options.get("verify_crc", True)
    log = scanned.log
    if out is None:
        ltc, result = _stream_pass(scanned, None, now_ms, offset_map, strategy, verify_crc)
        return PartitionPrediction(ltc, result, log, None)
    target = Path(out) / log.name
    if target.exists() and not target.is_dir():
        raise LogWriteError(f"{target}: exists and is not a directory")
    if target.is_dir() and any(target.iterdir()) and not overwrite:
        raise LogWriteError(f"{target}: directory exists and is not empty; pass overwrite=True to replace it")
    with staged_dir(target) as staging:
        ltc, result = _stream_pass(scanned, staging, now_ms, offset_map, strategy, verify_crc)
    return PartitionPrediction(ltc, result, log, target)


def _stream_pass(
    scanned: LoadedPartition,
    out: Path | None,
    now_ms: int,
    offset_map: OffsetMapSpec | None,
    strategy: Strategy | None,
    verify_crc: bool,
) -> tuple[LogToClean, PassResult | None]:
    """The pass over the scanned partition's files, the partition it leaves written into ``out`` (if any)."""
    log = scanned.log
    storage = SegmentFiles(scanned.files or {}, out=out, verify_crc=verify_crc)
    ltc = log_to_clean(log, now_ms=now_ms)
    result = None
    if ltc.first_dirty_offset < ltc.first_uncleanable_offset:
        manager = CleanerManager(log.broker, strategies={} if strategy is None else {log.topic: strategy})
        result = manager.clean_log(log, now_ms=now_ms, offset_map=offset_map, force=True, storage=storage)
    storage.copy_untouched(log)
    return ltc, result
