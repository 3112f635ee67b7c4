"""Reading segment files: every header field, every record field, sizes, raw bytes, codecs, streaming."""

from __future__ import annotations

import random
import struct
import tracemalloc
from pathlib import Path

import pytest
from kafka.record.util import calc_crc32c

from kcompact_nb.core import KcompactError, Record, RecordBatch, TimestampType
from kcompact_nb.io import MissingCodecError, SegmentFileReader, iter_segment_batches, segment_base_offset
from kcompact_nb.io.logdir import _segment_framing as segment_framing
from tests.io.kafka_bytes import as_gzip, kafka_batch, marker_batch, rec, simple_batches


def write(tmp_path: Path, *batches: bytes, base: int = 0) -> Path:
    path = tmp_path / f"{base:020d}.log"
    path.write_bytes(b"".join(batches))
    return path


def test_every_header_and_record_field(tmp_path):
    data = kafka_batch(
        [
            rec(0, 1_000, b"k1", b"value-1", [("trace", b"abc"), ("null", None)]),
            rec(1, 1_007, None, b""),
            rec(2, 995, b"k2", None),
        ],
        base_offset=40,
        producer_id=77,
        producer_epoch=3,
        base_sequence=12,
        transactional=True,
        leader_epoch=5,
    )
    (batch,) = iter_segment_batches(write(tmp_path, data))
    assert batch == RecordBatch(
        base_offset=40,
        last_offset=42,
        records=(
            Record(40, 1_000, b"k1", b"value-1", (("trace", b"abc"), ("null", None))),
            Record(41, 1_007, None, b""),
            Record(42, 995, b"k2", None),
        ),
        size_bytes=len(data),
        base_timestamp=1_000,
        max_timestamp=1_007,
        producer_id=77,
        producer_epoch=3,
        base_sequence=12,
        is_transactional=True,
        is_control=False,
        timestamp_type=TimestampType.CREATE_TIME,
        compression="none",
        delete_horizon_ms=None,
        partition_leader_epoch=5,
    )
    assert batch.raw == data
    assert batch.size_bytes == struct.unpack_from(">i", data, 8)[0] + 12
    assert batch.records[2].is_tombstone and not batch.records[1].is_tombstone


def test_size_and_raw_of_consecutive_batches_match_the_file(tmp_path):
    batches = simple_batches(range(5), value_size=10)
    read = list(iter_segment_batches(write(tmp_path, *batches)))
    assert [b.size_bytes for b in read] == [80] * 5  # spec 13.1: key 2 B, value 10 B -> 80-byte batch
    assert [b.raw for b in read] == batches
    assert [b.base_offset for b in read] == list(range(5))


def test_log_append_time_keeps_the_stored_record_timestamps(tmp_path):
    data = kafka_batch([rec(0, 100, b"a", b"1"), rec(1, 105, b"b", b"2")], base_offset=0, log_append_time=9_999)
    (batch,) = iter_segment_batches(write(tmp_path, data))
    assert batch.timestamp_type is TimestampType.LOG_APPEND_TIME
    assert batch.max_timestamp == 9_999
    assert [r.timestamp for r in batch.records] == [100, 105]
    assert [batch.read_timestamp(r) for r in batch.records] == [9_999, 9_999]


def test_delete_horizon_bit_sets_delete_horizon_ms_and_keeps_record_timestamps(tmp_path):
    horizon = 60_000 + 86_400_000
    data = kafka_batch([rec(0, 1_000, b"k1", None)], base_offset=9, delete_horizon=horizon)
    (batch,) = iter_segment_batches(write(tmp_path, data, base=9))
    assert batch.delete_horizon_ms == horizon == batch.base_timestamp
    assert batch.records == (Record(9, 1_000, b"k1", None),)
    assert batch.size_bytes == 73  # spec 13.1: a stamped tombstone batch grows from 70 to 73 bytes


def test_control_batch_and_empty_batch(tmp_path):
    marker = marker_batch(5, 77, 2, commit=True, ts=1_234, coordinator_epoch=9)
    empty = kafka_batch([], base_offset=6, producer_id=77, producer_epoch=2, base_sequence=0, last_offset_delta=3)
    control, shell = iter_segment_batches(write(tmp_path, marker, empty))
    assert control.is_control and control.is_transactional and control.size_bytes == 78
    assert control.records == (Record(5, 1_234, struct.pack(">hh", 0, 1), struct.pack(">hi", 0, 9)),)
    assert (shell.size_bytes, shell.records, shell.base_offset, shell.last_offset) == (61, (), 6, 9)
    assert shell.base_timestamp == -1


@pytest.mark.usefixtures("kernels")
def test_an_empty_batch_is_never_decompressed(tmp_path):
    """``DefaultRecordBatch.iterator`` returns no records when ``recordsCount`` is 0 and reads nothing after
    the header, so an empty batch marked snappy with stray bytes after it still holds no records."""
    empty = bytearray(kafka_batch([], base_offset=0, last_offset_delta=1) + b"\x01\x02\x03")
    struct.pack_into(">i", empty, 8, len(empty) - 12)
    struct.pack_into(">h", empty, 21, 2)  # snappy
    struct.pack_into(">I", empty, 17, calc_crc32c(memoryview(empty)[21:]))
    (batch,) = iter_segment_batches(write(tmp_path, bytes(empty)))
    assert (batch.records, batch.compression, batch.size_bytes, batch.last_offset) == ((), "snappy", 64, 1)


@pytest.mark.usefixtures("kernels")
@pytest.mark.parametrize(
    ("codec", "module"), [("gzip", "gzip"), ("snappy", "snappy"), ("lz4", "lz4.frame"), ("zstd", "zstandard")]
)
def test_compressed_batches_decode_when_the_codec_is_installed(tmp_path, codec, module):
    pytest.importorskip(module)
    records = [rec(i, 1_000 + i, b"key-%d" % i, b"x" * 200) for i in range(20)]
    data = kafka_batch(records, base_offset=100, codec=codec)
    (batch,) = iter_segment_batches(write(tmp_path, data, base=100))
    assert batch.compression == codec
    assert batch.size_bytes == len(data) < 20 * 200
    assert [(r.offset, r.key, r.value) for r in batch.records] == [
        (100 + i, b"key-%d" % i, b"x" * 200) for i in range(20)
    ]


@pytest.mark.parametrize(("codec", "package"), [("snappy", "python-snappy"), ("lz4", "lz4"), ("zstd", "zstandard")])
def test_a_missing_codec_package_is_named(tmp_path, monkeypatch, codec, package):
    import kafka.codec

    data = bytearray(kafka_batch([rec(0, 1, b"k", b"v")], base_offset=0))
    struct.pack_into(">h", data, 21, ("none", "gzip", "snappy", "lz4", "zstd").index(codec))
    from kafka.record.util import calc_crc32c

    struct.pack_into(">I", data, 17, calc_crc32c(memoryview(data)[21:]))
    path = write(tmp_path, bytes(data))
    monkeypatch.setattr(kafka.codec, f"has_{codec}", lambda: False)
    with pytest.raises(MissingCodecError, match=package) as raised:
        list(iter_segment_batches(path, recover=True))  # a missing package is not corruption
    assert isinstance(raised.value, KcompactError)
    assert raised.value.file == str(path) and raised.value.position == 0


def test_reading_streams_with_bounded_memory(tmp_path, monkeypatch):
    # The reader holds one block of batches at a time (32 MiB by default): a smaller block here shows that
    # memory follows the block, not the file.
    monkeypatch.setattr(segment_framing, "BLOCK_BYTES", 1 << 20)
    path = tmp_path / "00000000000000000000.log"
    template = bytearray(kafka_batch([rec(0, 1, b"k", bytes(200_000))], base_offset=0))
    with open(path, "wb") as handle:
        for i in range(100):
            struct.pack_into(">q", template, 0, i)  # the CRC does not cover the base offset
            handle.write(template)
    size = path.stat().st_size
    tracemalloc.start()
    try:
        count = sum(1 for _ in SegmentFileReader(path, keep_raw=False, verify_crc=False))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 100
    assert peak < size / 5, f"peak {peak} bytes while streaming a {size}-byte file"


@pytest.mark.usefixtures("kernels")
def test_reading_compressed_batches_streams_with_memory_bounded_by_their_records(tmp_path, monkeypatch):
    """A block of compressed batches is decoded from its records decompressed, several times its size: the reader
    reads less of such a file at a time (the first block already), so that memory follows the block's decoded
    bytes (about three times BLOCK_BYTES), not the file's."""
    monkeypatch.setattr(segment_framing, "BLOCK_BYTES", 1 << 20)
    rng = random.Random(7)
    words = [rng.randbytes(rng.randint(2, 8)).hex().encode() for _ in range(500)]
    path = tmp_path / "00000000000000000000.log"
    with open(path, "wb") as handle:
        for i in range(200):  # text of a few hundred words: about a quarter of its size gzipped
            value = b" ".join(rng.choice(words) for _ in range(8000))
            handle.write(kafka_batch([rec(0, 1, b"k", value)], base_offset=i, codec="gzip"))
    tracemalloc.start()
    try:
        count = sum(1 for _ in SegmentFileReader(path, keep_raw=False, verify_crc=False))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 200 and path.stat().st_size > 4 << 20
    assert peak < 3 << 20, f"peak {peak} bytes while streaming 16 MB of records gzipped in 1 MiB blocks"


@pytest.mark.usefixtures("kernels")
@pytest.mark.parametrize("codec", ["gzip", "snappy", "lz4", "zstd"])
def test_compressed_batches_read_hold_no_more_memory_than_the_same_batches_uncompressed(tmp_path, codec):
    """Issue #29: a batch read compressed holds its own bytes and its records' columns, not its records decompressed
    (they are decompressed again when read, as Kafka's cleaner reads a batch), so it holds no more memory than the
    same batch read uncompressed, and its records read the same."""
    rng = random.Random(29)
    words = [rng.randbytes(rng.randint(2, 6)).hex().encode() for _ in range(300)]
    batches = [
        [rec(i, 1_000 + i, b"key-%d" % rng.randrange(500), b" ".join(rng.choices(words, k=30))) for i in range(100)]
        for _ in range(40)
    ]
    paths = {}
    for name in ("none", codec):
        paths[name] = tmp_path / name / "00000000000000000000.log"
        paths[name].parent.mkdir()
        data = (kafka_batch(records, base_offset=100 * b, codec=name) for b, records in enumerate(batches))
        paths[name].write_bytes(b"".join(data))
        list(SegmentFileReader(paths[name]))  # the codec's library opened and cached before measuring
    held, read = {}, {}
    for name, path in paths.items():
        tracemalloc.start()
        try:
            loaded = list(SegmentFileReader(path))
            held[name] = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        read[name] = [(batch.base_offset, tuple(batch.records)) for batch in loaded]
    assert read[codec] == read["none"] and len(read[codec]) == len(batches)
    assert paths[codec].stat().st_size < paths["none"].stat().st_size / 2
    assert held[codec] <= held["none"], f"{codec}: {held[codec]:,} bytes held, uncompressed {held['none']:,}"


def test_segment_base_offset_from_file_names(tmp_path):
    assert segment_base_offset(Path("00000000000000001234.log")) == 1234
    assert segment_base_offset(Path("00000000000000001234.log.cleaned")) == 1234
    assert segment_base_offset(Path("dump.log")) is None


def test_batches_below_the_file_base_offset_are_rejected(tmp_path):
    from kcompact_nb.io import OffsetOrderError

    path = write(tmp_path, *simple_batches([5]), base=10)
    with pytest.raises(OffsetOrderError, match="below 10"):
        list(iter_segment_batches(path))


PLAIN = kafka_batch([rec(i, 10 + i, b"k%d" % i, b"v" * 30) for i in range(4)], base_offset=0)


@pytest.mark.parametrize(
    "trailing",
    [
        b"\x00",
        b"not gzip at all",
        b"\x1f\x8b\x08\x00",
        b"\x1f\x8b\x08\x02" + b"\x00" * 8,
    ],  # last: a header with a bad FHCRC
)
@pytest.mark.usefixtures("kernels")
def test_bytes_after_the_last_gzip_member_are_ignored_as_java_does(tmp_path, trailing):
    """Kafka reads gzip through ``GZIPInputStream``, whose ``readTrailer`` ignores whatever after a member's
    trailer is not a well-formed gzip header; Python's gzip module would refuse it."""
    (batch,) = iter_segment_batches(write(tmp_path, as_gzip(PLAIN, trailing=trailing)))
    assert batch.compression == "gzip"
    assert [(r.offset, r.key) for r in batch.records] == [(i, b"k%d" % i) for i in range(4)]


@pytest.mark.usefixtures("kernels")
def test_concatenated_gzip_members_are_read_in_turn(tmp_path):
    (batch,) = iter_segment_batches(write(tmp_path, as_gzip(PLAIN, members=3)))
    assert [(r.offset, r.value) for r in batch.records] == [(i, b"v" * 30) for i in range(4)]


@pytest.mark.usefixtures("kernels")
def test_a_gzip_member_cut_before_its_trailer_is_corrupt(tmp_path):
    cut = as_gzip(PLAIN)[:-4]
    resized = bytearray(cut)
    struct.pack_into(">i", resized, 8, len(resized) - 12)
    struct.pack_into(">I", resized, 17, calc_crc32c(memoryview(resized)[21:]))
    with pytest.raises(
        KcompactError, match="cannot decode the gzip records: EOFError: Unexpected end of ZLIB input stream"
    ):
        list(iter_segment_batches(write(tmp_path, bytes(resized))))


@pytest.mark.usefixtures("kernels")
@pytest.mark.parametrize("compressed", [False, True])
def test_a_header_key_that_is_not_utf8_reads_with_replacement_characters(tmp_path, compressed):
    """``DefaultRecord.readHeaders`` decodes a header key with ``Utils.utf8`` (``new String(bytes, UTF_8)``):
    invalid bytes become U+FFFD, the record is read."""
    plain = bytearray(kafka_batch([rec(0, 1, b"k", b"v", headers=[("\u00e9t\u00e9", b"x")])], base_offset=0))
    at = plain.find("\u00e9t".encode())
    plain[at] = 0xFF  # the first byte of "é" becomes a byte UTF-8 never uses
    struct.pack_into(">I", plain, 17, calc_crc32c(memoryview(plain)[21:]))
    data = as_gzip(bytes(plain)) if compressed else bytes(plain)
    (batch,) = iter_segment_batches(write(tmp_path, data))
    assert batch.records[0].headers == (("\ufffd\ufffdt\u00e9", b"x"),)


@pytest.mark.usefixtures("kernels")
def test_reading_from_a_position_reads_no_byte_before_it(tmp_path):
    """``start_position`` (a pass reads a segment from its index position, ``LogSegment.read``): the batches from
    there; the bytes before are not read, so a corrupt batch there goes unnoticed; recovery drops from the first
    invalid batch after it, at its position in the file."""
    batches = [kafka_batch([rec(i, 1_000, b"k%d" % j, b"v") for i in range(4)], base_offset=4 * j) for j in range(4)]
    corrupt = bytearray(batches[0])
    corrupt[-1] ^= 0xFF  # its CRC no longer matches
    path = write(tmp_path, bytes(corrupt), batches[1], batches[2], b"\x00" * 30)
    start = len(batches[0])
    reader = SegmentFileReader(path, start_position=start, recover=True, number_keys=False)
    assert [b.base_offset for b in reader] == [4, 8]
    assert reader.dropped is not None and (reader.dropped.position, reader.dropped.bytes) == (start * 3, 30)
    assert [r.key for b in SegmentFileReader(path, start_position=start, recover=True) for r in b.records] == [
        b"k1"
    ] * 4 + [b"k2"] * 4
