"""Kafka's next pass over a partition directory, streamed: any size of partition in bounded memory.

:func:`predict_partition_dir` is the exact pass of :func:`kcompact_nb.core.next_pass` (``Cleaner.doClean``
over the cleanable range at ``now_ms``, run even when the log is not eligible) on a partition read segment
file by segment file, as Kafka's cleaner reads it: the batch headers once (:func:`scan_partition_dir`), then
:func:`stream_partition_pass`: the dirty range's records for the offset map, then each group of segments
(``groupSegmentsBySize``) through retention, each cleaned group written to ``out`` as it is done. Same retained
offsets, segment layout, ``.log`` bytes and ``CleanerStats`` as the pass over the log in memory.
"""

from __future__ import annotations

import dataclasses
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
    segment_file_name,
)
from kcompact_nb.io._errors import LogWriteError
from kcompact_nb.io.logdir._log_reader import LoadedPartition, scan_partition_dir
from kcompact_nb.io.logdir._partition_stream import SegmentFiles
from kcompact_nb.io.logdir._read_options import ReadOptions
from kcompact_nb.io.logdir._sparse_copy import copy_file
from kcompact_nb.io.logdir._staged_output import staged_dir


@dataclass(frozen=True)
class PartitionPrediction:
    """The next pass over a partition directory.

    ``log_to_clean`` is the partition before the pass; ``result`` the pass (``None`` when the cleanable
    range is empty); ``log`` the partition after it, its segments known by their metadata (sizes, offsets,
    index entries); ``written`` the folder written, when one was given: the partition directory the pass leaves
    (:func:`predict_partition_dir`), or the cleaned groups' ``.log`` files only (:func:`stream_partition_pass`).
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
    if out is None:
        return stream_partition_pass(scanned, now_ms=now_ms, offset_map=offset_map, strategy=strategy)
    target = Path(out) / scanned.log.name
    if target.exists() and not target.is_dir():
        raise LogWriteError(f"{target}: exists and is not a directory")
    if target.is_dir() and any(target.iterdir()) and not overwrite:
        raise LogWriteError(f"{target}: directory exists and is not empty; pass overwrite=True to replace it")
    with staged_dir(target, replace=overwrite) as staging:
        prediction = stream_partition_pass(
            scanned, now_ms=now_ms, offset_map=offset_map, strategy=strategy, out=staging
        )
        _copy_untouched(prediction, scanned.files or {}, staging)
    return dataclasses.replace(prediction, written=target)


def stream_partition_pass(
    scanned: LoadedPartition,
    *,
    now_ms: int,
    offset_map: OffsetMapSpec | None = None,
    strategy: Strategy | None = None,
    out: Path | None = None,
) -> PartitionPrediction:
    """Kafka's next pass at ``now_ms`` over a scanned partition (:func:`scan_partition_dir`), streamed from its files.

    Parameters
    ----------
    scanned
        A scanned partition; its files are read as it was read (``verify_crc``), never modified. Its log becomes
        the partition after the pass.
    now_ms
        The pass time (broker wall clock, epoch ms).
    offset_map, strategy
        As for :func:`predict_partition_dir`.
    out
        An existing folder to write each cleaned group's ``.log`` file into as the pass is done with it
        (``Cleaner.cleanSegments``); the segments the pass does not reach are not copied. ``None``: nothing written.

    The pass's own work, reads and writes included, as Kafka's: :func:`predict_partition_dir` is this pass after the
    scan, with the partition directory it leaves written whole.
    """
    if scanned.files is None:
        raise ValueError(f"{scanned.path}: not a scanned partition (scan_partition_dir reads one)")
    log = scanned.log
    storage = SegmentFiles(scanned.files, out=out, verify_crc=scanned.verify_crc)
    ltc = log_to_clean(log, now_ms=now_ms)
    result = None
    if ltc.first_dirty_offset < ltc.first_uncleanable_offset:
        manager = CleanerManager(log.broker, strategies={} if strategy is None else {log.topic: strategy})
        result = manager.clean_log(log, now_ms=now_ms, offset_map=offset_map, force=True, storage=storage)
    return PartitionPrediction(ltc, result, log, out)


def _copy_untouched(prediction: PartitionPrediction, files: dict[int, Path], out: Path) -> None:
    """Copy into ``out`` the source files of the segments the pass did not rewrite (mtimes kept)."""
    cleaned = {group[0] for group in prediction.result.groups} if prediction.result is not None else set()
    for segment in prediction.log.segments:
        if segment.base_offset not in cleaned:
            copy_file(files[segment.base_offset], out / segment_file_name(segment.base_offset))
