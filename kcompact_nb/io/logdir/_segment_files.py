"""A log's batches in its segment files, read as Kafka's cleaner reads them: a file at a time, never all at once.

A partition read on disk (``ReadOptions.on_disk_from_bytes``) holds :class:`~kcompact_nb.core.StoredSegment` values
(sizes, timestamps, index entries, producer state and aborted transactions: what a broker holds in memory for a
partition) and :class:`SegmentFiles` as its storage: a segment's batches are read from its file when a pass, a view
or a writer asks (a block at a time; for a pass, keys left in the batches' bytes to be looked up there in the map's
table of key bytes). A pass writes each cleaned group to a ``.cleaned`` file in :meth:`SegmentFiles.clean_into`'s
folder as it fills it, renamed to ``.log`` when the group is swapped in (``Cleaner.cleanSegments``), or keeps it in
memory without one. Memory is the metadata, the offset map and one read buffer's batches, whatever the size of the
partition.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from kcompact_nb.core import (
    CLEANED_FILE_SUFFIX,
    BatchBlock,
    InMemoryStorage,
    OffsetBucketTally,
    RecordBatch,
    Segment,
    StoredSegment,
    segment_file_name,
)
from kcompact_nb.io.logdir._log_writer import batch_bytes, set_mtime_ms
from kcompact_nb.io.logdir._segment_framing import ScannedFile
from kcompact_nb.io.logdir._segment_reader import SegmentFileReader
from kcompact_nb.io.logdir._streamed_buckets import tally_segment
from kcompact_nb.record import SpanEntries

REGISTRY_KEYS = 1 << 20
"""Keys a reader's registry numbers (those of batches read record by record: compressed, with headers, ...) before a
new one is started (its keys are released then): about 100 MiB. For a pass's readers and a streamed tally's."""
_IN_MEMORY = InMemoryStorage()
"""How segments a pass cleaned without a folder are read: they hold their batches."""


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
    """A log's :class:`~kcompact_nb.core.LogStorage` in its segment files (base offset -> ``.log`` file).

    ``verify_crc`` is how the files are read (as the partition was: False for one read as Kafka's cleaner reads it);
    ``scanned`` the source files as the partition's scan found them (base offset -> :class:`ScannedFile`), read to
    those bytes and only while they are those files (a running broker may replace them since). Cleaned groups are
    written to :meth:`clean_into`'s folder while a pass fills them and renamed ``NNN.log`` when swapped in
    (:attr:`written`), then read from there; without a folder they are kept in memory.
    """

    streams = True

    def __init__(
        self, files: dict[int, Path], *, verify_crc: bool = True, scanned: dict[int, ScannedFile] | None = None
    ) -> None:
        self.files = dict(files)
        self.scanned = dict(scanned or {})
        self.verify_crc = verify_crc
        self.out: Path | None = None
        self.written: dict[int, Path] = {}
        self.filling: _CleanedSegment | None = None
        """The cleaned segment a pass is filling (its ``.cleaned`` file open), until it is swapped in."""

    def clean_into(self, folder: Path) -> None:
        """Write the segments passes clean to ``folder`` (an existing folder), as Kafka writes ``.cleaned`` files."""
        self.out = folder

    def close(self) -> None:
        """Close the ``.cleaned`` file of a pass that threw before swapping it in (Kafka leaves that file to the
        next startup's log loading, which deletes it; the caller discards the folder)."""
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

    def read_from(self, folder: Path) -> None:
        """Read every segment from its file in ``folder`` from now on: a complete copy of the partition (the log dir a
        cleaning wrote, into which the files of the groups it cleaned were moved)."""
        self.files = {base: folder / segment_file_name(base) for base in self.files}
        self.written, self.scanned = {}, {}

    def detached(self) -> SegmentFiles:
        """The same files, for a copy of the log: what the copy's passes clean is kept in memory."""
        return SegmentFiles(self.files, verify_crc=self.verify_crc, scanned=self.scanned)

    def file_of(self, segment: Segment) -> Path | None:
        """The file holding ``segment``'s batches (None: they are in memory)."""
        return None if segment.batches else self.files.get(segment.base_offset)

    def held_of(self, segment: Segment) -> memoryview | None:
        """The bytes of ``segment``'s file held in memory (a partition read with ``ReadOptions.hold_bytes``), to the
        segment's size; None when they are read from the file."""
        scanned = self.scanned.get(segment.base_offset) if self.file_of(segment) is not None else None
        if scanned is None or scanned.held is None:
            return None
        return scanned.held.view()[: scanned.size]

    def batches(self, segment: Segment, position: int) -> Iterable[RecordBatch]:
        file = self.file_of(segment)
        if file is None:
            return _IN_MEMORY.batches(segment, position)
        return iter(self._pass_reader(segment, file, position))

    def blocks(self, segment: Segment, position: int) -> Iterable[BatchBlock]:
        file = self.file_of(segment)
        if file is None:
            return _IN_MEMORY.blocks(segment, position)
        return self._pass_reader(segment, file, position).blocks_read()

    def _pass_reader(self, segment: Segment, file: Path, position: int) -> SegmentFileReader:
        """A reader of ``segment``'s ``file`` from byte ``position`` as a pass reads it: keys left in the batches'
        bytes."""
        return SegmentFileReader(
            file,
            keep_raw=self.out is not None,
            verify_crc=self.verify_crc,
            start_position=position,
            registry_keys=REGISTRY_KEYS,
            number_keys=False,
            scanned=self.scanned.get(segment.base_offset),
        )

    def tally_offsets(self, segment: Segment, tally: OffsetBucketTally, latest: SpanEntries) -> None:
        """Count ``segment``'s records into ``tally`` (an offset-bucket view's, keeping each key's entry in
        ``latest``), a block of its file at a time (:mod:`kcompact_nb.io.logdir._streamed_buckets`)."""
        file = self.file_of(segment)
        if file is None:
            for batch in segment.batches:
                tally.add(batch)
            return
        reader = SegmentFileReader(
            file, keep_raw=False, registry_keys=REGISTRY_KEYS, number_keys=False,
            scanned=self.scanned.get(segment.base_offset),
        )  # fmt: skip
        tally_segment(tally, latest, reader)

    def cleaned_segment(
        self, base_offset: int, *, created_ms: int, index_interval_bytes: int, indexes_each_batch: bool
    ) -> Segment:
        if self.out is None:
            return Segment(
                base_offset,
                created_ms=created_ms,
                index_interval_bytes=index_interval_bytes,
                indexes_each_batch=indexes_each_batch,
            )
        segment = _CleanedSegment(
            base_offset,
            created_ms=created_ms,
            index_interval_bytes=index_interval_bytes,
            indexes_each_batch=indexes_each_batch,
        )
        segment.path = self.out / (segment_file_name(base_offset) + CLEANED_FILE_SUFFIX)
        segment.sink = open(segment.path, "wb")  # noqa: SIM115 - closed when the group is swapped in, or by close
        self.filling = segment
        return segment

    def replace(self, segments: list[Segment], group: Sequence[Segment], cleaned: Segment) -> None:
        for segment in group:
            self.files.pop(segment.base_offset, None)
            self.scanned.pop(segment.base_offset, None)
        if isinstance(cleaned, _CleanedSegment) and cleaned.sink is not None and cleaned.path is not None:
            self.close()
            final = cleaned.path.with_name(segment_file_name(cleaned.base_offset))
            cleaned.path.rename(final)
            set_mtime_ms(final, cleaned.last_modified_ms)
            self.files[cleaned.base_offset] = self.written[cleaned.base_offset] = final
        _IN_MEMORY.replace(segments, group, cleaned)
