"""Framing a block of a segment file: where its whole v2 batches lie, each one's length, magic byte and CRC-32C
checked (``LogSegment.recover``'s reading of a batch's frame, spec 2.4), up to the first that is not whole or not
valid. The C kernel (``frame_batches``) frames a block in one call with the GIL released; its twin here, a batch at a
time. What is wrong with the batch where framing stops is for the segment file's reader to say.
"""

from __future__ import annotations

from array import array

from kcompact_nb.record import _batch_header as L
from kcompact_nb.record._crc import crc32c
from kcompact_nb.record._native_kernels import c_kernels

_LENGTH = L.LENGTH_AND_OFFSET


def frame_with_python(block: bytes, verify_crc: bool) -> tuple[list[int], int]:
    """The starts of the whole valid batches at the start of ``block``, and where the last one ends (0: none)."""
    starts, at, size = [], 0, len(block)
    view, length_of, crc_of = memoryview(block), _LENGTH.unpack_from, L.CRC.unpack_from
    while at + L.RECORD_BATCH_OVERHEAD <= size:
        end = at + L.LOG_OVERHEAD + length_of(block, at)[1]
        if (
            end - at < L.RECORD_BATCH_OVERHEAD
            or end > size
            or block[at + L.MAGIC_POSITION] != 2
            or (verify_crc and crc_of(block, at + L.CRC_POSITION)[0] != crc32c(view[at + L.ATTRIBUTES_POSITION : end]))
        ):
            break
        starts.append(at)
        at = end
    return starts, at


def frame_in_c(block: bytes, verify_crc: bool) -> tuple[list[int], int]:
    """:func:`frame_with_python` by the C kernel."""
    starts, end = c_kernels().frame_batches(block, verify_crc)
    return array("q", starts).tolist(), end
