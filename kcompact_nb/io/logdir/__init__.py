"""Partition directories and whole log dirs: read one way (:func:`read_partition_dir`, :func:`read_log_dir`, options
as one :class:`ReadOptions` value), their batches in memory or left in their segment files and read when asked
(:class:`SegmentFiles`, the log's storage), written as a broker writes them (always staged beside the target and
renamed), read consistently while a broker changes them, and cleaned as ``kcompact clean`` does
(:func:`clean_log_dir`)."""

from __future__ import annotations

from kcompact_nb.io.logdir._broker_log_dir import producer_snapshot, write_broker_log_dir, write_segment_files
from kcompact_nb.io.logdir._clean_log_dir import LogDirCleaning, clean_log_dir
from kcompact_nb.io.logdir._index_check import index_mismatches
from kcompact_nb.io.logdir._live_reads import READ_ATTEMPTS, changes_since, directory_state, read_consistently
from kcompact_nb.io.logdir._log_reader import (
    LoadedLogDir,
    LoadedPartition,
    parse_partition_dir_name,
    read_log_dir,
    read_partition_dir,
    segment_files,
    skipped_entries,
)
from kcompact_nb.io.logdir._log_writer import (
    batch_bytes,
    checkpoint_entries,
    write_log_dir,
    write_partition_dir,
    write_segment_file,
)
from kcompact_nb.io.logdir._read_options import ReadOptions
from kcompact_nb.io.logdir._segment_files import SegmentFiles
from kcompact_nb.io.logdir._segment_framing import DroppedBytes, segment_base_offset
from kcompact_nb.io.logdir._segment_reader import SegmentFileReader, iter_segment_batches
from kcompact_nb.io.logdir._staged_output import STAGING_MARK, remove_stale_staging, scratch_folder, staged_dir

__all__ = [
    "ReadOptions",
    "DroppedBytes",
    "LoadedLogDir",
    "LoadedPartition",
    "LogDirCleaning",
    "READ_ATTEMPTS",
    "STAGING_MARK",
    "SegmentFileReader",
    "SegmentFiles",
    "batch_bytes",
    "changes_since",
    "checkpoint_entries",
    "clean_log_dir",
    "directory_state",
    "index_mismatches",
    "iter_segment_batches",
    "parse_partition_dir_name",
    "producer_snapshot",
    "read_consistently",
    "read_log_dir",
    "read_partition_dir",
    "remove_stale_staging",
    "segment_base_offset",
    "segment_files",
    "skipped_entries",
    "scratch_folder",
    "staged_dir",
    "write_broker_log_dir",
    "write_log_dir",
    "write_partition_dir",
    "write_segment_file",
    "write_segment_files",
]
