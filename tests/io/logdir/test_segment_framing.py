"""The framing of a segment file (:class:`SegmentFraming`): a torn or corrupted file frames as ``LogSegment.recover``
reads it, the whole valid batches before the first bad one, and the rest dropped from there to the file's end; the C
kernel ``frame_batches`` and its Python twin read the same of real and corrupted files."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kcompact_nb import KcompactError
from kcompact_nb.io import CrcMismatchError, SegmentFileReader
from kcompact_nb.io.logdir import _segment_framing
from kcompact_nb.io.logdir._segment_framing import FramingOptions, SegmentFraming
from kcompact_nb.record import batch_header as L
from kcompact_nb.record import native_kernels
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


SAMPLES = Path(__file__).resolve().parents[3] / "data" / "samples" / "kafka"
FILES = {
    str(folder.relative_to(SAMPLES)): b"".join(path.read_bytes() for path in sorted(folder.glob("*.log")))
    for folder in sorted(SAMPLES.glob("*/*/*-0"))
    if any(path.stat().st_size for path in folder.glob("*.log"))
} | {"every batch kind": SEGMENT}
"""Each sample partition written by Kafka (data/samples/README.md), its segments one after another, and a file of
every kind of batch."""


def read_outcome(path: Path, verify_crc: bool, recover: bool) -> tuple[object, ...]:
    """What reading ``path`` gives: each block's framing, each batch's position and bytes, the batches decoded, each
    up to the error raised (its type and message, or None), then the valid prefix and the dropped bytes."""

    def attempt(read: Callable[[SegmentFileReader], Iterator[object]]) -> object:
        reader, items, error = SegmentFileReader(path, verify_crc=verify_crc, recover=recover), [], None
        try:
            items.extend(read(reader))
        except KcompactError as raised:
            error = (type(raised).__name__, str(raised))
        return items, error, reader.valid_bytes, reader.dropped

    return (
        attempt(lambda reader: ((block.position, block.starts, block.end, block.frames) for block in reader.blocks())),
        attempt(lambda reader: reader.decoded(lambda data, position, next_offset: (data, position, next_offset))),
        attempt(iter),
    )


def batch_starts(data: bytes) -> list[int]:
    """Where each batch of a valid file starts (its lengths followed)."""
    starts, at = [], 0
    while at < len(data):
        starts.append(at)
        at += L.LOG_OVERHEAD + int.from_bytes(data[at + 8 : at + 12], "big")
    return starts


change = st.tuples(
    st.floats(0, 1, exclude_max=True),  # which batch, or where in the file
    st.sampled_from([None, 8, 11, L.MAGIC_POSITION, L.CRC_POSITION, L.CRC_POSITION + 3, L.ATTRIBUTES_POSITION + 1]),
    st.one_of(st.sampled_from([0, 1, 2, 0xFF]), st.integers(0, 255)),
)
"""A byte changed: anywhere, or in a batch's length (high and low byte), magic byte, CRC or attributes."""


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(sorted(FILES)),
    changes=st.lists(change, max_size=3),
    cut=st.one_of(st.just(1.0), st.floats(0, 1)),
    tail=st.binary(max_size=80),
    block_bytes=st.sampled_from([8 << 20, 1000, 80]),
    verify_crc=st.booleans(),
)
def test_c_and_python_framing_read_the_same_of_real_and_corrupted_files(
    name, changes, cut, tail, block_bytes, verify_crc, monkeypatch, tmp_path
):
    """Kafka's own segment files, and the same with bytes changed, cut short or followed by garbage, in blocks that
    end inside batches or hold none whole: framed by the C kernel or by its twin, reading them gives the same blocks,
    batches at the same positions, the same records, valid prefix and dropped bytes, or the same error."""
    if native_kernels.NATIVE is None:
        pytest.skip("the C kernels were not built (no C compiler at install): tests/record/test_native.py says why")
    monkeypatch.setattr(_segment_framing, "BLOCK_BYTES", block_bytes)
    damaged, starts = bytearray(FILES[name]), batch_starts(FILES[name])
    for where, field, value in changes:
        at = int(where * len(damaged)) if field is None else starts[int(where * len(starts))] + field
        damaged[at] = value
    path = tmp_path / f"{0:020d}.log"
    path.write_bytes(bytes(damaged[: int(cut * len(damaged))]) + tail)
    for recover in (False, True):
        by_c = read_outcome(path, verify_crc, recover)
        with monkeypatch.context() as twin:
            twin.setattr(native_kernels, "NATIVE", None)
            assert read_outcome(path, verify_crc, recover) == by_c
