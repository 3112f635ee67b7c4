"""Offset and time index files are read a block at a time (issue #40): a preallocated index's zero fill is checked,
never held, so a 4 GiB sparse ``.index`` costs one block of memory; the entries are those of the whole file read."""

from __future__ import annotations

import resource
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb.io import IndexFileError, read_index_file
from kcompact_nb.io.files import decode_offset_index, decode_time_index

NAME = "00000000000000000100"


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from([(".index", ">ii", decode_offset_index), (".timeindex", ">qi", decode_time_index)]),
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=6),
    st.integers(0, 4),
    st.booleans(),
)
def test_a_streamed_read_equals_the_whole_files_decoding(tmp_path_factory, kind, steps, zero_entries, garbage):
    suffix, layout, decode = kind
    entries, a, b = [], 0, 0
    for da, db in steps:
        a, b = a + da, b + db
        entries.append((a, b) if suffix == ".index" else (b, a))
    data = b"".join(struct.pack(layout, *e) for e in entries) + bytes(zero_entries * struct.calcsize(layout))
    if garbage and zero_entries:
        data = data[:-1] + b"\x07"
    path = tmp_path_factory.mktemp("index") / f"{NAME}{suffix}"
    path.write_bytes(data)
    try:
        expected = decode(data, 100, path)
    except IndexFileError as error:
        with pytest.raises(IndexFileError) as caught:
            read_index_file(path)
        assert (caught.value.position, caught.value.reason) == (error.position, error.reason)
        return
    assert read_index_file(path) == expected


def test_a_sparse_four_gib_index_is_read_in_little_memory(tmp_path):
    path = tmp_path / f"{NAME}.index"
    with open(path, "wb") as handle:
        handle.write(struct.pack(">ii", 0, 0) + struct.pack(">ii", 5, 4096))
        handle.truncate(4 * 1024**3)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    index = read_index_file(path)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert [(e.offset, e.position) for e in index.entries] == [(100, 0), (105, 4096)]
    assert index.preallocated_bytes == 4 * 1024**3
    assert grown_kib < 256 * 1024
