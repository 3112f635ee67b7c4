"""Streaming reader of one Kafka segment file (``NNNNNNNNNNNNNNNNNNNN.log``) into core batches.

The reader composes two parts: the file's framing (:class:`~kcompact_nb.io.logdir._segment_framing.SegmentFraming`:
read a block at a time, batches' bounds, lengths, magic, CRC-32C and offsets checked, a torn tail recovered as
``LogSegment.recover`` does) and the decoding of the framed batches
(:class:`~kcompact_nb.record.FramedBatchDecoder`: decompression, record parsing, key numbering).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from kcompact_nb.core import BatchBlock, KeyedRun, KeyRegistry, RecordBatch
from kcompact_nb.io._errors import CorruptBatchError
from kcompact_nb.io.logdir._block_headers import BlockHeaders
from kcompact_nb.io.logdir._segment_framing import DroppedBytes, FramingOptions, ScannedFile, SegmentFraming
from kcompact_nb.record import BlockBatches, FramedBatchDecoder, FramedBlock

T = TypeVar("T")


class SegmentFileReader:
    """Iterate the batches of one segment file with bounded memory.

    Parameters
    ----------
    path:
        The ``.log`` file. It is opened read-only and never modified.
    base_offset:
        The segment's base offset (from the file name by default); batches below it are invalid.
    min_offset:
        The first offset this segment may hold (the previous segment's next offset), if known.
    end_offset:
        The next segment's base offset, if any: every offset here must lie below it.
    verify_crc:
        Check every batch's CRC-32C, as ``DefaultRecordBatch.ensureValid`` does.
    keep_raw:
        Keep each batch's bytes in ``RecordBatch.raw`` so it can be written back identically.
    recover:
        On the first invalid batch, stop and record the rest of the file in :attr:`dropped`
        instead of raising (``LogSegment.recover`` truncates there). A missing codec package
        is never treated as corruption and always raises :class:`MissingCodecError` (for a batch that needs it:
        the C kernels, where built, decompress batches without the Python packages).
    on_bytes:
        Called with each batch's size in bytes (progress reporting).
    key_registry:
        Numbers and interns the records' keys (see :class:`KeyRegistry`); share one across a
        partition's segments. A new one by default.
    start_position:
        The byte position of the first batch to read (a batch's start, as an offset index gives it): a pass
        reads a segment from there on (``LogSegment.read``); what comes before is not read at all.
    registry_keys:
        When iterating, start a new key registry (and forget the old one's keys) once the current one holds
        this many keys, between blocks: memory for keys stays bounded whatever the file holds. Each batch keeps
        the registry that numbered it.
    number_keys:
        Number the keys of the batches decoded a block at a time in ``key_registry`` (False: leave them in the
        batches' bytes, :meth:`PackedRecords.from_span_keys`; other batches still number theirs).
    scanned:
        The file as its partition's scan found it (:class:`ScannedFile`): read to its bytes then, and only while it
        is that file.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        base_offset: int | None = None,
        min_offset: int | None = None,
        end_offset: int | None = None,
        verify_crc: bool = True,
        keep_raw: bool = True,
        recover: bool = False,
        on_bytes: Callable[[int], None] | None = None,
        key_registry: KeyRegistry | None = None,
        start_position: int = 0,
        registry_keys: int | None = None,
        number_keys: bool = True,
        scanned: ScannedFile | None = None,
    ) -> None:
        self.path = Path(path)
        options = FramingOptions(base_offset, min_offset, end_offset, verify_crc, recover, start_position, scanned)
        self.framing = SegmentFraming(self.path, options, on_bytes)
        self.decoder = FramedBatchDecoder(
            self.path,
            self.framing.check_header,
            keep_raw=keep_raw,
            key_registry=key_registry,
            registry_keys=registry_keys,
            number_keys=number_keys,
        )
        self._next_offset = 0  # the lowest offset the next batch read may start at
        self._stopped = False  # a block's batches stopped at a corrupt one
        self.check_header = self.framing.check_header
        """The 13 header fields of one framed batch once its offsets and count are valid here."""
        self.decode_batch = self.decoder.decode_batch
        """One framed batch's bytes (from :meth:`decoded`) as a core :class:`RecordBatch`, records checked."""

    def __iter__(self) -> Iterator[RecordBatch]:
        """The batches in file order: a block framed at a time (:meth:`SegmentFraming.blocks`), its plain batches
        decoded together (:mod:`kcompact_nb.record._block_batches`), the others one by one (:meth:`decode_batch`)."""
        for block in self.blocks_read():
            yield from block.batches()

    def blocks_read(self) -> Iterator[BatchBlock]:
        """The batches a block at a time (:class:`~kcompact_nb.core.BatchBlock`): each block's batches read as
        iterating the reader reads them, or taken at once as their keyed run (headers checked as a column)."""
        framing = self.framing
        self._next_offset = framing.restart()
        self._stopped = False
        try:
            for block in framing.blocks():
                read = _ReadBlock(self, block)
                del block  # the block is not held while the next one is read
                yield read
                read.finish()
                if self._stopped:
                    return
        except CorruptBatchError as error:
            framing.recovered(error)

    def decoded(self, decode: Callable[[bytes, int, int], T]) -> Iterator[T]:
        """Each batch's bytes, framed and CRC-checked, turned into a value by ``decode``.

        ``decode(data, position, next_offset)`` gets one whole batch (``position`` is its byte position in the
        file, ``next_offset`` the lowest offset it may start at) and raises :class:`CorruptBatchError` for bad
        content; :meth:`decode_batch` (a core :class:`RecordBatch`) decodes as iterating the reader does.
        """
        return self.framing.decoded(decode)

    def blocks(self) -> Iterator[FramedBlock]:
        """The file a block of framed batches at a time (:meth:`SegmentFraming.blocks`)."""
        return self.framing.blocks()

    @property
    def base_offset(self) -> int | None:
        """The segment's base offset (from its file name unless given)."""
        return self.framing.base_offset

    @property
    def end_offset(self) -> int | None:
        """The next segment's base offset, if given."""
        return self.framing.end_offset

    @property
    def dropped(self) -> DroppedBytes | None:
        """What recovery left out of the file in the last read, if anything."""
        return self.framing.dropped

    @property
    def valid_bytes(self) -> int:
        """The size of the valid batches read so far."""
        return self.framing.valid_bytes

    @property
    def key_registry(self) -> KeyRegistry:
        """The registry numbering the keys of the batches read (a new one after ``registry_keys`` keys)."""
        return self.decoder.key_registry


def iter_segment_batches(path: str | os.PathLike[str], **options: Any) -> Iterator[RecordBatch]:
    """The batches of one segment file, streamed (see :class:`SegmentFileReader` for ``options``)."""
    return iter(SegmentFileReader(path, **options))


class _ReadBlock:
    """One framed block of a :class:`SegmentFileReader`, read batch by batch or taken as a keyed run."""

    def __init__(self, reader: SegmentFileReader, block: FramedBlock) -> None:
        self.reader, self.block = reader, block
        self.decoded: BlockBatches = reader.decoder.block(block)
        reader.framing.decodes_as(block, block.end if self.decoded.view is None else len(self.decoded.view))
        self._run: KeyedRun | None = None
        self._floors: Any = None
        self._read = False

    def keyed_run(self) -> KeyedRun | None:
        columns = self.decoded.keyed_spans
        if columns is None:
            return None
        reader, headers = self.reader, BlockHeaders(self.block)
        self._floors = headers.floors(reader._next_offset)
        if not headers.valid(self._floors, base_offset=reader.base_offset, end_offset=reader.end_offset):
            return None  # read batch by batch, which raises what is wrong
        self._run = KeyedRun(
            self.decoded.source, columns, headers.counts, headers.ends - headers.starts,
            headers.base_offsets, headers.last_offsets, headers.base_timestamps, headers.attributes,
            headers.leader_epochs, headers.producer_ids, headers.producer_epochs, headers.base_sequences,
        )  # fmt: skip
        return self._run

    def batches_at(self, indexes: Sequence[int]) -> list[RecordBatch]:
        block, floors, decoded = self.block, self._floors, self.decoded
        return [decoded.batch(i, *block.frame(i), int(floors[i])) for i in indexes]  # only these copied out

    def batches(self) -> Iterator[RecordBatch]:
        self._read = True
        reader, decoded = self.reader, self.decoded
        framing, next_offset = reader.framing, reader._next_offset
        try:
            for index, (data, position) in enumerate(self.block.frames):
                batch = decoded.batch(index, data, position, next_offset)
                framing.advance(len(data))
                next_offset = reader._next_offset = batch.last_offset + 1
                yield batch
        except CorruptBatchError as error:
            reader._stopped = True
            framing.recovered(error)

    def finish(self) -> None:
        """Past the block: taken as its keyed run when its batches were not read (else they are read now); its bytes
        and decoded records are let go."""
        if not self._read and self._run is not None:
            self.reader.framing.advance(int(self._run.sizes.sum()))
            self.reader._next_offset = self._run.last_offset + 1
        elif not self._read:
            for _ in self.batches():
                pass
        del self.block, self.decoded, self._run, self._floors
