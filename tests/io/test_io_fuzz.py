"""Fuzzing: random and mutated bytes into the segment reader, random text into the text parsers.

Only the project's own error types may escape, and nothing may hang (a per-test alarm fails
any test that runs far longer than its examples should take). The suite runs 150 examples per
test; ``make fuzz`` runs the same tests with ``KCOMPACT_FUZZ_EXAMPLES`` (default 5000 there).
"""

from __future__ import annotations

import contextlib
import os
import signal
import struct
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.record.util import calc_crc32c

from kcompact_nb import KcompactError
from kcompact_nb.io import (
    ReadOptions,
    SegmentFileReader,
    format_gap_report,
    last_compaction_gap,
    parse_dump_log,
    parse_kcat_format,
    parse_kcat_json,
    read_partition_dir,
)
from tests.io.dump_format import dump_text
from tests.io.kafka_bytes import kafka_batch, marker_batch, rec

EXAMPLES = int(os.environ.get("KCOMPACT_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ALARM_SECONDS = max(120, EXAMPLES // 10)


@contextmanager
def no_hang(seconds: int = ALARM_SECONDS) -> Iterator[None]:
    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"fuzz test ran longer than {seconds} s: something hangs")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(autouse=True)
def _alarm() -> Iterator[None]:
    with no_hang():
        yield


def valid_segment() -> bytes:
    return b"".join(
        [
            kafka_batch(
                [rec(0, 5, b"k1", b"v1" * 20, [("h", b"x")]), rec(1, 6, None, b"")],
                base_offset=0,
                producer_id=3,
                producer_epoch=0,
                base_sequence=0,
            ),
            kafka_batch([rec(i, 7, b"key%d" % i, b"z" * 60) for i in range(4)], base_offset=2, codec="gzip"),
            kafka_batch([rec(0, 8, b"k2", None)], base_offset=6, delete_horizon=99),
            marker_batch(7, 3, 0, commit=False, ts=9),
            kafka_batch([], base_offset=8, last_offset_delta=2),
        ]
    )


SEGMENT = valid_segment()


def read_all(data: bytes, **options: object) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t-0" / f"{0:020d}.log"
        path.parent.mkdir()
        path.write_bytes(data)
        with contextlib.suppress(KcompactError):
            list(SegmentFileReader(path, **options))  # type: ignore[arg-type]
        loaded = read_partition_dir(
            path.parent, ReadOptions(recover=True, verify_crc=bool(options.get("verify_crc", True)))
        )
        last_compaction_gap(loaded.log)


def with_fixed_crc(data: bytes) -> bytes:
    """Recompute every batch CRC it can frame, so mutations reach the record decoder."""
    out = bytearray(data)
    position = 0
    while position + 21 <= len(out):
        length = struct.unpack_from(">i", out, position + 8)[0]
        end = position + 12 + length
        if length < 9 or end > len(out):
            break
        struct.pack_into(">I", out, position + 17, calc_crc32c(memoryview(out)[position + 21 : end]))
        position = end
    return bytes(out)


@FUZZ
@given(st.binary(max_size=400), st.booleans(), st.booleans())
def test_random_bytes_raise_only_project_errors(data, verify_crc, recover):
    read_all(data, verify_crc=verify_crc, recover=recover)


@FUZZ
@given(
    st.lists(st.tuples(st.integers(0, len(SEGMENT) - 1), st.integers(0, 255)), min_size=1, max_size=8),
    st.booleans(),
    st.booleans(),
)
def test_mutated_segments_raise_only_project_errors(mutations, fix_crc, recover):
    data = bytearray(SEGMENT)
    for position, value in mutations:
        data[position] = value
    mutated = with_fixed_crc(bytes(data)) if fix_crc else bytes(data)
    read_all(mutated, verify_crc=True, recover=recover)
    read_all(mutated, verify_crc=False, recover=recover)


@FUZZ
@given(st.integers(0, len(SEGMENT)), st.binary(max_size=40))
def test_truncated_and_extended_segments_raise_only_project_errors(cut, tail):
    read_all(SEGMENT[:cut] + tail, recover=False)
    read_all(SEGMENT[:cut] + tail, recover=True)


DUMP_FRAGMENTS = [
    "Dumping /d/t-0/00000000000000000000.log\n",
    "Log starting offset: 0\n",
    "baseOffset: ",
    " lastOffset: ",
    " count: ",
    " position: 0 CreateTime: ",
    " size: 80 magic: 2 compresscodec: none crc: 1 isvalid: true\n",
    " deleteHorizonMs: OptionalLong[",
    "]",
    " isControl: true",
    " producerId: 1 producerEpoch: ",
    "| offset: ",
    " CreateTime: 5 keySize: ",
    " valueSize: ",
    " sequence: -1 headerKeys: [",
    " key: ",
    " payload: ",
    " endTxnMarker: COMMIT coordinatorEpoch: ",
    "Found 3 invalid bytes at the end of x.log\n",
    "\n",
    "-1",
    "0",
    "7",
    "99999999999999999999999",
]
VALID_DUMP = dump_text({"/d/t-0/00000000000000000000.log": []})


def parse_dump_fully(text: str) -> None:
    try:
        parsed = parse_dump_log(text)
        parsed.to_partition_log("t")
    except KcompactError:
        pass


@FUZZ
@given(st.text(max_size=300))
def test_random_text_into_the_dump_log_parser(text):
    parse_dump_fully(text)


@FUZZ
@given(st.lists(st.one_of(st.sampled_from(DUMP_FRAGMENTS), st.text(max_size=5)), max_size=40))
def test_dump_like_text_into_the_dump_log_parser(parts):
    parse_dump_fully("".join(parts))


def parse_kcat_fully(text: str, fmt: str | None) -> None:
    try:
        parsed = parse_kcat_json(text) if fmt is None else parse_kcat_format(text, fmt)
        parsed.to_partition_log()
        format_gap_report(last_compaction_gap(parsed.records()))
    except KcompactError:
        pass


KCAT_FORMATS = [r"%o\t%T\n", r"%t|%p|%o|%T|%K:%k|%S:%s|%h\n", r"%o %k\n"]


@FUZZ
@given(st.text(max_size=300), st.one_of(st.none(), st.sampled_from(KCAT_FORMATS), st.text(max_size=12)))
def test_random_text_into_the_kcat_parsers(text, fmt):
    parse_kcat_fully(text, fmt)


@FUZZ
@given(
    st.lists(
        st.one_of(
            st.sampled_from(
                [
                    '{"offset": ',
                    '"ts": ',
                    '"key": ',
                    '"payload": ',
                    '"headers": [',
                    "]",
                    "}",
                    ",",
                    "null",
                    "1",
                    '"x"',
                    "\n",
                ]
            ),
            st.text(max_size=4),
        ),
        max_size=30,
    )
)
def test_json_like_text_into_the_kcat_json_parser(parts):
    parse_kcat_fully("{" + "".join(parts), None)


@FUZZ
@given(st.lists(st.tuples(st.integers(-5, 50), st.integers(-(2**63), 2**63 - 1)), max_size=30))
def test_gap_analysis_of_any_rows(rows):
    format_gap_report(last_compaction_gap(rows))
