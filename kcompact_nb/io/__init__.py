"""Kafka's on-disk and textual formats in and out of the core model.

Segment files (magic v2; uncompressed records parsed into columns here and checked against
kafka-python's record module, which decodes compressed batches and writes batches), the other
per-segment files (offset and time indexes, transaction indexes, producer state snapshots: read
and written byte for byte as a broker writes them), partition directories and whole log dirs
with their checkpoint files, ``kafka-dump-log.sh`` output and
kcat output. Readers never modify their input. Every error raised on bad input derives from
:class:`kcompact_nb.KcompactError` and names the file and the byte position (or line).
"""

from __future__ import annotations

from kcompact_nb.io._batch_encoder import KafkaBatchEncoder, encode_batch
from kcompact_nb.io._broker_log_dir import producer_snapshot, write_broker_log_dir, write_segment_files
from kcompact_nb.io._checkpoint import (
    CLEANER_OFFSET_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    format_checkpoint,
    parse_checkpoint,
    read_checkpoint,
    write_checkpoint,
)
from kcompact_nb.io._dump_text import DumpLogParse, ParsedSegment, parse_dump_log, read_dump_log
from kcompact_nb.io._errors import (
    CheckpointFormatError,
    CodecUnavailableError,
    CorruptBatchError,
    CrcMismatchError,
    DumpParseError,
    IndexFileError,
    InvalidMagicError,
    LogDirChangedError,
    LogReadError,
    LogWriteError,
    MissingCodecError,
    NotASegmentError,
    OffsetOrderError,
    TruncatedBatchError,
)
from kcompact_nb.io._gaps import CompactionGap, format_gap_report, last_compaction_gap
from kcompact_nb.io._index_files import (
    INDEX_FILE_SUFFIXES,
    OFFSET_INDEX_ENTRY_BYTES,
    TIME_INDEX_ENTRY_BYTES,
    IndexFile,
    OffsetIndexFile,
    OffsetPosition,
    ProducerSnapshotEntry,
    ProducerSnapshotFile,
    SegmentIndexes,
    TimeIndexFile,
    TimestampOffset,
    TransactionIndexFile,
    decode_offset_index,
    decode_producer_snapshot,
    decode_time_index,
    decode_txn_index,
    encode_index_file,
    java_hash_map_order,
    preallocated_bytes,
    read_index_file,
    segment_indexes,
    write_index_file,
)
from kcompact_nb.io._kcat import read_kcat
from kcompact_nb.io._kcat_format import KcatFormat, compile_kcat_format
from kcompact_nb.io._kcat_json import parse_kcat_json
from kcompact_nb.io._kcat_records import ConsumedRecord, KcatParse
from kcompact_nb.io._kcat_text import parse_kcat_format
from kcompact_nb.io._live_reads import READ_ATTEMPTS, changes_since, directory_state, read_consistently
from kcompact_nb.io._log_reader import (
    LoadedLogDir,
    LoadedPartition,
    parse_partition_dir_name,
    read_log_dir,
    read_partition_dir,
    scan_partition_dir,
    segment_files,
)
from kcompact_nb.io._log_writer import (
    batch_attributes_and_crc,
    batch_bytes,
    checkpoint_entries,
    write_log_dir,
    write_partition_dir,
    write_segment_file,
)
from kcompact_nb.io._partition_prediction import PartitionPrediction, predict_partition_dir
from kcompact_nb.io._partition_stream import SegmentFiles, partition_batches, partition_offset_buckets
from kcompact_nb.io._record_parser import NotPlain, RecordColumns, parse_records
from kcompact_nb.io._segment_reader import DroppedBytes, SegmentFileReader, iter_segment_batches, segment_base_offset
from kcompact_nb.io._staged_output import STAGING_MARK, remove_stale_staging, staged_dir, staging_folder

__all__ = [
    "NotPlain",
    "RecordColumns",
    "parse_records",
    "CLEANER_OFFSET_CHECKPOINT",
    "INDEX_FILE_SUFFIXES",
    "LOG_START_OFFSET_CHECKPOINT",
    "OFFSET_INDEX_ENTRY_BYTES",
    "RECOVERY_POINT_CHECKPOINT",
    "TIME_INDEX_ENTRY_BYTES",
    "CheckpointFormatError",
    "CodecUnavailableError",
    "CompactionGap",
    "ConsumedRecord",
    "CorruptBatchError",
    "CrcMismatchError",
    "DroppedBytes",
    "DumpLogParse",
    "DumpParseError",
    "IndexFile",
    "IndexFileError",
    "InvalidMagicError",
    "KafkaBatchEncoder",
    "KcatFormat",
    "KcatParse",
    "LoadedLogDir",
    "LoadedPartition",
    "LogReadError",
    "LogWriteError",
    "MissingCodecError",
    "NotASegmentError",
    "OffsetIndexFile",
    "OffsetOrderError",
    "OffsetPosition",
    "PartitionPrediction",
    "ParsedSegment",
    "ProducerSnapshotEntry",
    "ProducerSnapshotFile",
    "SegmentFiles",
    "SegmentFileReader",
    "SegmentIndexes",
    "TimeIndexFile",
    "TimestampOffset",
    "TransactionIndexFile",
    "TruncatedBatchError",
    "batch_attributes_and_crc",
    "batch_bytes",
    "checkpoint_entries",
    "compile_kcat_format",
    "decode_offset_index",
    "decode_producer_snapshot",
    "decode_time_index",
    "decode_txn_index",
    "encode_batch",
    "encode_index_file",
    "format_checkpoint",
    "format_gap_report",
    "iter_segment_batches",
    "java_hash_map_order",
    "last_compaction_gap",
    "parse_checkpoint",
    "parse_dump_log",
    "parse_kcat_format",
    "parse_kcat_json",
    "parse_partition_dir_name",
    "partition_batches",
    "partition_offset_buckets",
    "predict_partition_dir",
    "preallocated_bytes",
    "producer_snapshot",
    "read_checkpoint",
    "read_dump_log",
    "read_index_file",
    "read_kcat",
    "scan_partition_dir",
    "read_log_dir",
    "read_partition_dir",
    "segment_base_offset",
    "segment_files",
    "segment_indexes",
    "write_broker_log_dir",
    "STAGING_MARK",
    "READ_ATTEMPTS",
    "LogDirChangedError",
    "changes_since",
    "directory_state",
    "read_consistently",
    "remove_stale_staging",
    "staged_dir",
    "staging_folder",
    "write_checkpoint",
    "write_index_file",
    "write_log_dir",
    "write_partition_dir",
    "write_segment_file",
    "write_segment_files",
]
