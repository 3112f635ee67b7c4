"""Files' bytes read into memory on a thread and read while they arrive (``_held_bytes``, issue #41)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb.io import ReadOptions, read_partition_dir
from kcompact_nb.io.logdir import _held_bytes
from kcompact_nb.io.logdir._held_bytes import HeldBytes, read_held
from tests.io.kafka_bytes import tree_digest

SAMPLES = Path(__file__).resolve().parents[3] / "data" / "samples" / "kafka"


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.binary(max_size=300), min_size=1, max_size=4), st.integers(1, 64), st.integers(1, 97),
    st.integers(0, 301),
)  # fmt: skip
def test_held_files_read_in_any_pieces_are_the_files_bytes(tmp_path_factory, contents, chunk, piece, mapped_from):
    """Whatever the files, the read's chunk, the reader's pieces and where files are mapped rather than in a
    ``bytearray``, each file reads as its bytes, in order."""
    folder = tmp_path_factory.mktemp("held")
    files = []
    for number, content in enumerate(contents):
        (file := folder / f"{number:020d}.log").write_bytes(content)
        files.append(file)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_held_bytes, "_CHUNK_BYTES", chunk)
        patch.setattr(_held_bytes, "_MAPPED_FROM", mapped_from)
        held = read_held(files)
        for file, content in zip(files, contents, strict=True):
            reader, pieces = held[file].reader(), []
            while data := reader.read(piece):
                pieces.append(data)
            assert b"".join(pieces) == content == bytes(held[file].view())
            assert (held[file].inode, held[file].size) == (os.stat(file).st_ino, len(content))
            reader.seek(1)
            assert reader.read(piece) == content[1 : 1 + piece]


def test_a_file_cut_after_it_was_opened_reads_to_its_new_end(tmp_path):
    """A running broker's truncation during the read: the bytes end where the file now ends, not in zeros."""
    (file := tmp_path / "cut.log").write_bytes(bytes(range(60)))
    held = HeldBytes(os.stat(file).st_ino, 100)  # the size it had when opened
    handle = os.open(file, os.O_RDONLY)
    try:
        held.fill(handle)
    finally:
        os.close(handle)
    assert bytes(held.view()) == bytes(range(60))
    assert held.reader().read(100) == bytes(range(60))


def test_a_failed_read_raises_in_the_reader(tmp_path):
    (file := tmp_path / "gone.log").write_bytes(b"x" * 10)
    held = HeldBytes(os.stat(file).st_ino, 10)
    handle = os.open(file, os.O_RDONLY)
    os.close(handle)
    held.fill(handle)  # a closed descriptor: the read fails on the filling thread
    with pytest.raises(OSError):
        held.reader().read(1)
    with pytest.raises(OSError):
        held.view()


def test_partitions_read_holding_their_bytes_are_those_read_on_disk_and_are_left_untouched():
    before = tree_digest(SAMPLES)
    partitions = sorted({p.parent for p in SAMPLES.rglob("*.log")})
    assert len(partitions) > 5
    for partition in partitions:
        held = read_partition_dir(partition, ReadOptions(hold_bytes=True)).log
        on_disk = read_partition_dir(partition, ReadOptions(on_disk_from_bytes=0)).log
        assert [(s.base_offset, s.size_bytes, s.offset_index, s.time_index) for s in held.segments] == [
            (s.base_offset, s.size_bytes, s.offset_index, s.time_index) for s in on_disk.segments
        ]
        assert [b.base_offset for s in held.segments for b in held.storage.batches(s, 0)] == [
            b.base_offset for s in on_disk.segments for b in on_disk.storage.batches(s, 0)
        ]
    assert tree_digest(SAMPLES) == before
