"""A partition directory streamed as Kafka's cleaner reads it: segment files one at a time, never all at once.

:func:`~kcompact_nb.io.scan_partition_dir` reads every batch header once (and the records of control batches
only) into a log of :class:`~kcompact_nb.core.StoredSegment` values: sizes, timestamps, index entries, producer
state and aborted transactions, what a broker holds in memory for a partition. :class:`SegmentFiles` is the pass's
storage: it reads a segment's batches from its file when the pass asks (a block at a time, keys left in the
batches' bytes, to be looked up there in the map's table of key bytes, :meth:`SegmentFiles.offset_table`) and
writes each cleaned group to a ``.cleaned`` file as the pass fills it, renamed to ``.log`` when the group is
swapped in (``Cleaner.cleanSegments``). Memory is the metadata, the offset map and one read buffer's batches,
whatever the size of the partition.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from kcompact_nb.core import (
    CLEANED_FILE_SUFFIX,
    KcompactError,
    OffsetBucket,
    OffsetBucketTally,
    OffsetTable,
    PartitionLog,
    RecordBatch,
    Segment,
    StoredSegment,
    segment_file_name,
)
from kcompact_nb.io._errors import CorruptBatchError
from kcompact_nb.io.logdir._log_reader import LoadedPartition
from kcompact_nb.io.logdir._log_writer import batch_bytes, set_mtime_ms
from kcompact_nb.io.logdir._segment_reader import SegmentFileReader
from kcompact_nb.io.logdir._streamed_buckets import tally_segment
from kcompact_nb.record import latest_entries, native_offset_table

REGISTRY_KEYS = 1 << 20
"""Keys a reader's registry numbers (those of batches read record by record: compressed, with headers, ...) before a
new one is started (its keys are released then): about 100 MiB. For a pass's readers and a streamed tally's."""


def partition_offset_buckets(scanned: LoadedPartition, *, bucket_count: int) -> list[OffsetBucket]:
    """:func:`kcompact_nb.core.offset_buckets` of a partition, a scanned one read segment file by segment file.

    The same rows as for the partition read whole, in the memory of one entry per distinct key and one block of
    batches (:mod:`kcompact_nb.io.logdir._streamed_buckets` counts a block's records together).
    """
    log = scanned.log
    latest = latest_entries()
    tally = OffsetBucketTally(log.log_start_offset, log.log_end_offset, bucket_count, latest)
    if scanned.files is None:
        for batch in log.batches():
            tally.add(batch)
    else:
        for segment in log.segments:
            file = scanned.files[segment.base_offset]
            reader = SegmentFileReader(file, keep_raw=False, registry_keys=REGISTRY_KEYS, number_keys=False)
            tally_segment(tally, latest, reader)
    return tally.rows(log.topic, log.partition)


def partition_batches(partition: LoadedPartition) -> Iterator[RecordBatch]:
    """Every batch of ``partition`` in offset order: streamed from its files when it was scanned, else its log's;
    for a partition holding a corrupt batch (:attr:`LoadedPartition.corrupt`), the batches before it."""
    if partition.files is None:
        yield from partition.log.batches()
        return
    storage = SegmentFiles(partition.files, verify_crc=partition.verify_crc)
    try:
        for segment in partition.log.segments:
            yield from storage.batches(segment, 0)
    except CorruptBatchError:
        if partition.corrupt is None:
            raise


@dataclass(eq=False)
class _CleanedSegment(StoredSegment):
    """A cleaned group's segment: each appended batch's bytes go to its ``.cleaned`` file (none: sizes only)."""

    sink: BinaryIO | None = field(default=None, repr=False)
    path: Path | None = None

    def append(
        self,
        batches: Sequence[RecordBatch],
        now_ms: int,
        largest_offset: int | None = None,
        *,
        offset_of_max_timestamp: int | None = None,
    ) -> None:
        if self.sink is not None and self.path is not None:
            position = self.size_bytes
            for batch in batches:
                data = batch_bytes(batch, self.path, position)
                self.sink.write(data)
                position += len(data)
        super().append(batches, now_ms, largest_offset, offset_of_max_timestamp=offset_of_max_timestamp)


class SegmentFiles:
    """A pass's :class:`~kcompact_nb.core.cleaner.SegmentStorage` over segment files.

    Source segments are read from ``files`` (base offset -> ``.log`` file). With ``out`` (a folder) each
    cleaned group is written there as ``NNN.log.cleaned`` while the pass fills it and renamed ``NNN.log``
    when it is swapped in; without it cleaned segments keep their sizes and offsets only (a prediction).
    """

    streams = True

    def __init__(self, files: dict[int, Path], *, out: Path | None = None, verify_crc: bool = True) -> None:
        self.files = dict(files)
        self.out = out
        self.verify_crc = verify_crc
        self.written: dict[int, Path] = {}
        self.filling: _CleanedSegment | None = None
        """The cleaned segment a pass is filling (its ``.cleaned`` file open), until it is swapped in."""

    def close(self) -> None:
        """Close the ``.cleaned`` file of a pass that threw before swapping it in (Kafka leaves that file to the
        next startup's log loading, which deletes it; the caller discards ``out``)."""
        if self.filling is not None and self.filling.sink is not None:
            self.filling.sink.close()
            self.filling.sink = None
        self.filling = None

    def left_cleaned(self) -> dict[int, Path]:
        """The ``.log.cleaned`` file of the segment a pass that threw was filling (base offset -> file), closed: what
        Kafka leaves on disk (spec 8.4); empty when no pass threw while filling one."""
        filling = self.filling
        self.close()
        if filling is None or filling.path is None:
            return {}
        return {filling.base_offset: filling.path}

    def batches(self, segment: Segment, position: int) -> Iterator[RecordBatch]:
        file = self.files.get(segment.base_offset)
        if file is None:
            raise KcompactError(
                f"segment {segment.base_offset} was cleaned without an output folder: its batches are not on disk"
            )
        reader = SegmentFileReader(
            file,
            keep_raw=self.out is not None,
            verify_crc=self.verify_crc,
            start_position=position,
            registry_keys=REGISTRY_KEYS,
            number_keys=False,
        )
        return iter(reader)

    def offset_table(self) -> OffsetTable | None:
        """The C kernel's hash table of key bytes (when built): the pass looks keys up straight from the batches."""
        return native_offset_table()

    def codecs(self, segments: Sequence[Segment]) -> set[str]:
        return {codec for segment in segments for codec in segment.codecs}

    def cleaned_segment(
        self, base_offset: int, *, created_ms: int, index_interval_bytes: int, indexes_each_batch: bool
    ) -> Segment:
        segment = _CleanedSegment(
            base_offset,
            created_ms=created_ms,
            index_interval_bytes=index_interval_bytes,
            indexes_each_batch=indexes_each_batch,
        )
        if self.out is not None:
            segment.path = self.out / (segment_file_name(base_offset) + CLEANED_FILE_SUFFIX)
            segment.sink = open(segment.path, "wb")  # noqa: SIM115 - closed when the group is swapped in, or by close
            self.filling = segment
        return segment

    def replace(self, log: PartitionLog, group: Sequence[Segment], cleaned: Segment) -> None:
        if isinstance(cleaned, _CleanedSegment) and cleaned.sink is not None and cleaned.path is not None:
            self.close()
            final = cleaned.path.with_name(segment_file_name(cleaned.base_offset))
            cleaned.path.rename(final)
            set_mtime_ms(final, cleaned.last_modified_ms)
            for segment in group:
                self.files.pop(segment.base_offset, None)
            self.files[cleaned.base_offset] = self.written[cleaned.base_offset] = final
        else:
            for segment in group:
                self.files.pop(segment.base_offset, None)
        first = log.segments.index(group[0])
        log.segments[first : first + len(group)] = [cleaned]
