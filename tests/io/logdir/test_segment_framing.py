"""The framing of a segment file (:class:`SegmentFraming`): a torn or corrupted file frames as ``LogSegment.recover``
reads it, the whole valid batches before the first bad one, and the rest dropped from there to the file's end."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kcompact_nb.io import CrcMismatchError
from kcompact_nb.io.logdir import _segment_framing
from kcompact_nb.io.logdir._segment_framing import FramingOptions, SegmentFraming
from kcompact_nb.record import batch_header as L
from tests.io.kafka_bytes import every_batch_kind

BATCHES = every_batch_kind()
SEGMENT = b"".join(BATCHES)
STARTS = [sum(len(b) for b in BATCHES[:i]) for i in range(len(BATCHES) + 1)]
"""Each batch's start, then the file's end."""


def framed(data: bytes, **options: object) -> tuple[list[tuple[bytes, int]], SegmentFraming]:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / f"{0:020d}.log"
        path.write_bytes(data)
        framing = SegmentFraming(path, FramingOptions(**options))  # type: ignore[arg-type]
        frames = list(framing.decoded(lambda batch, position, _: (batch, position)))
    return frames, framing


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    cut=st.integers(0, len(SEGMENT)),
    flipped=st.one_of(st.none(), st.integers(0, len(SEGMENT) - 1)),
    block_bytes=st.sampled_from([8 << 20, 1000, 80]),
)
def test_a_torn_or_corrupted_file_frames_its_valid_prefix_and_drops_the_rest(cut, flipped, block_bytes, monkeypatch):
    """Cut the file anywhere and flip one byte a batch's CRC covers: the batches before the first one cut or
    flipped are framed whole at their positions, and the dropped range starts where they end, to the end of file."""
    monkeypatch.setattr(_segment_framing, "BLOCK_BYTES", block_bytes)
    data = bytearray(SEGMENT[:cut])
    first_bad = next(i for i in range(len(BATCHES) + 1) if i == len(BATCHES) or STARTS[i + 1] > cut)
    if flipped is not None and flipped < cut:
        batch = next(i for i in range(len(BATCHES)) if STARTS[i + 1] > flipped)
        if flipped - STARTS[batch] >= L.ATTRIBUTES_POSITION:  # covered by the CRC-32C
            data[flipped] ^= 0x5A
            first_bad = min(first_bad, batch)
    frames, framing = framed(bytes(data), recover=True)
    assert frames == [(BATCHES[i], STARTS[i]) for i in range(first_bad)]
    assert framing.valid_bytes == STARTS[first_bad]
    if STARTS[first_bad] == len(data):
        assert framing.dropped is None
    else:
        assert framing.dropped is not None
        assert (framing.dropped.position, framing.dropped.bytes) == (STARTS[first_bad], len(data) - STARTS[first_bad])


def test_without_recover_the_first_bad_batch_raises_at_its_position() -> None:
    """A CRC mismatch in the fourth batch raises there (``DefaultRecordBatch.ensureValid``)."""
    data = bytearray(SEGMENT)
    data[STARTS[3] + L.ATTRIBUTES_POSITION + 5] ^= 1
    with pytest.raises(CrcMismatchError) as raised:
        framed(bytes(data))
    assert raised.value.position == STARTS[3]
