"""Partition directories and whole log dirs: segment files framed and read (in memory or streamed), written as a
broker writes them (always staged beside the target and renamed), read consistently while a broker changes them,
and cleaned as ``kcompact clean`` does (:func:`clean_log_dir`)."""

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
    scan_partition_dir,
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
from kcompact_nb.io.logdir._partition_prediction import (
    PartitionPrediction,
    predict_partition_dir,
    stream_partition_pass,
)
from kcompact_nb.io.logdir._partition_stream import SegmentFiles, partition_batches, partition_offset_buckets
from kcompact_nb.io.logdir._read_options import ReadOptions
from kcompact_nb.io.logdir._segment_framing import DroppedBytes, segment_base_offset
from kcompact_nb.io.logdir._segment_reader import SegmentFileReader, iter_segment_batches
from kcompact_nb.io.logdir._staged_output import STAGING_MARK, remove_stale_staging, staged_dir, staging_folder

__all__ = [
    "ReadOptions",
    "DroppedBytes",
    "LoadedLogDir",
    "LoadedPartition",
    "LogDirCleaning",
    "PartitionPrediction",
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
    "partition_batches",
    "partition_offset_buckets",
    "predict_partition_dir",
    "producer_snapshot",
    "read_consistently",
    "read_log_dir",
    "read_partition_dir",
    "remove_stale_staging",
    "scan_partition_dir",
    "segment_base_offset",
    "segment_files",
    "skipped_entries",
    "staged_dir",
    "staging_folder",
    "stream_partition_pass",
    "write_broker_log_dir",
    "write_log_dir",
    "write_partition_dir",
    "write_segment_file",
    "write_segment_files",
]
