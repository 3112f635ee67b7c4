"""Streaming reader of one Kafka segment file (``NNNNNNNNNNNNNNNNNNNN.log``) into core batches.

The reader composes two parts: the file's framing (:class:`~kcompact_nb.io.logdir._segment_framing.SegmentFraming`:
read a block at a time, batches' bounds, lengths, magic, CRC-32C and offsets checked, a torn tail recovered as
``LogSegment.recover`` does) and the decoding of the framed batches
(:class:`~kcompact_nb.record.FramedBatchDecoder`: decompression, record parsing, key numbering).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from kcompact_nb.core import KeyRegistry, RecordBatch
from kcompact_nb.io._errors import CorruptBatchError
from kcompact_nb.io.logdir._segment_framing import DroppedBytes, FramingOptions, SegmentFraming
from kcompact_nb.record import FramedBatchDecoder, FramedBlock

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
    ) -> None:
        self.path = Path(path)
        options = FramingOptions(base_offset, min_offset, end_offset, verify_crc, recover, start_position)
        self.framing = SegmentFraming(self.path, options, on_bytes)
        self.decoder = FramedBatchDecoder(
            self.path,
            self.framing.check_header,
            keep_raw=keep_raw,
            key_registry=key_registry,
            registry_keys=registry_keys,
            number_keys=number_keys,
        )
        self.check_header = self.framing.check_header
        """The 13 header fields of one framed batch once its offsets and count are valid here."""
        self.decode_batch = self.decoder.decode_batch
        """One framed batch's bytes (from :meth:`decoded`) as a core :class:`RecordBatch`, records checked."""

    def __iter__(self) -> Iterator[RecordBatch]:
        """The batches in file order: a block framed at a time (:meth:`SegmentFraming.blocks`), its plain batches
        decoded together (:mod:`kcompact_nb.record._block_batches`), the others one by one (:meth:`decode_batch`)."""
        framing, decoder = self.framing, self.decoder
        next_offset = framing.restart()
        try:
            for block in framing.blocks():
                decoded = decoder.block(block)
                framing.decodes_as(block, block.end if decoded.view is None else len(decoded.view))
                for index, (data, position) in enumerate(block.frames):
                    batch = decoded.batch(index, data, position, next_offset)
                    framing.advance(data)
                    next_offset = batch.last_offset + 1
                    yield batch
                del decoded, block  # not held while the next block is read
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
