"""Debian's real kcat against a real broker: every output form reads exactly as the segment files, or is refused.

One topic of three partitions holds the awkward cases: binary keys and values, CR/LF and a lone CR,
separators in keys and values, empty and null keys, values and header values, a tombstone, a
committed and an aborted transaction (partition 0); plain records (partition 1); a header value
holding a comma (partition 2). kcat reads it with ``-J`` and several ``-f`` formats (stderr
mixed in with ``2>&1`` for some), and every parse is compared record by record with what a
``read_committed`` consumer reads from the broker's own segment files (kcat's default isolation).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator

import pytest

from kcompact_nb import NewRecord
from kcompact_nb.broker import (
    DEFAULT_VERSION,
    KafkaBroker,
    create_topic,
    partition_dir,
    produce_encoded_batches,
    produce_transaction,
    wait_for_offsets,
)
from kcompact_nb.core import ControlRecordType, Record, RecordBatch, control_record_type
from kcompact_nb.io import (
    DumpParseError,
    KcatParse,
    format_gap_report,
    last_compaction_gap,
    parse_kcat_format,
    parse_kcat_json,
    read_partition_dir,
)
from kcompact_nb.record import encode_batch

from .conftest import BASE_TS_MS

TOPIC = "kcat-awkward"
HEADERS = (("h", b"v"), ("e", b""), ("n", None))
#: Null keys allowed, and nothing deleted: the records' 2026-01-01 timestamps are past the default 7-day retention,
#: and segment.ms=100 rolls segments, so the retention check (every 5 minutes) would delete them mid-test.
KEPT = {"cleanup.policy": "delete", "retention.ms": "-1"}
BIG = b"B" * 8000  # over two 4 KiB stdout blocks, so kcat's stderr lands inside this record with 2>&1
PARTITION_0 = [
    (b"bin", bytes(range(256)), HEADERS),
    (b"crlf", b"win\r\nline", HEADERS),
    (b"cr", b"lone\rcr", HEADERS),
    (b"a b", b"x y\tz|w,=", HEADERS),
    (b"empty", b"", HEADERS),
    (b"tomb", None, ()),
    (b"", b"emptykey", ()),
    (None, b"nullkey", ()),
    (b"big", BIG, ()),
]

# Only one broker (the default version) and one topic: the cases cost a few seconds of kcat runs.
pytestmark = pytest.mark.parametrize("kafka_broker", [DEFAULT_VERSION], indirect=True, ids=[f"kafka-{DEFAULT_VERSION}"])


def kcat_path() -> str:
    path = shutil.which("kcat")
    if path is None:
        pytest.skip(
            "the real-kcat test needs Debian's kcat on PATH (apt-get install kcat; .ci/run installs it as root)"
        )
    return path


def raw_batches(
    records: list[tuple[bytes | None, bytes | None, tuple[tuple[str, bytes | None], ...]]], start: int
) -> Iterator[bytes]:
    """One-record v2 batches (null keys and null header values, which kafka-python's producer refuses)."""
    for index, (key, value, headers) in enumerate(records):
        yield encode_batch(RecordBatch.build([Record(0, BASE_TS_MS + start + index, key, value, headers)]))


@pytest.fixture
def awkward(kafka_broker: KafkaBroker) -> KafkaBroker:
    """The topic, produced once per broker (the broker is shared by the session)."""
    if not partition_dir(kafka_broker, TOPIC, 0).exists():
        create_topic(kafka_broker, TOPIC, configs=KEPT, partitions=3)
        produce_encoded_batches(kafka_broker, TOPIC, raw_batches(PARTITION_0, 0))
        txn = [NewRecord(b"tx1", b"committed 1", BASE_TS_MS + 20), NewRecord(b"tx2", b"committed 2", BASE_TS_MS + 21)]
        produce_transaction(kafka_broker, TOPIC, txn, transactional_id="kcat-awkward")
        wait_for_offsets(kafka_broker, TOPIC, end=12)  # the commit marker (offset 11) is written after commit returns
        produce_encoded_batches(kafka_broker, TOPIC, raw_batches([(b"mid", b"between", ())], 30))
        aborted = [NewRecord(b"ab1", b"aborted", BASE_TS_MS + 40)]
        produce_transaction(kafka_broker, TOPIC, aborted, transactional_id="kcat-awkward", commit=False)
        wait_for_offsets(kafka_broker, TOPIC, end=15)
        produce_encoded_batches(kafka_broker, TOPIC, raw_batches([(b"after", b"last", ())], 50))
        plain = [(f"k{i}".encode(), f"v{i}".encode(), ()) for i in range(3)] + [(b"k1", None, ())]
        produce_encoded_batches(kafka_broker, TOPIC, raw_batches(plain, 0), partition=1)
        produce_encoded_batches(kafka_broker, TOPIC, raw_batches([(b"h", b"x", (("sep", b"a,b"),))], 0), partition=2)
    return kafka_broker


def consumer_view(broker: KafkaBroker, partition: int, *, topic: str = TOPIC) -> list[Record]:
    """What a read_committed consumer reads from the segment files: data records outside aborted transactions."""
    log = read_partition_dir(partition_dir(broker, topic, partition)).log
    pending: dict[int, list[Record]] = {}
    visible: list[Record] = []
    for batch in log.batches():
        records = [r._replace(timestamp=batch.read_timestamp(r)) for r in batch.records]
        if batch.is_control:
            kept = pending.pop(batch.producer_id, [])
            visible += kept if control_record_type(batch.records[0]) is ControlRecordType.COMMIT else []
        elif batch.is_transactional:
            pending.setdefault(batch.producer_id, []).extend(records)
        else:
            visible += records
    return sorted(visible, key=lambda r: r.offset)


def run_kcat(broker: KafkaBroker, *args: str, stderr_mixed: bool = False) -> bytes:
    command = [kcat_path(), "-C", "-b", broker.bootstrap_servers, "-t", TOPIC, "-e", *args]
    done = subprocess.run(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT if stderr_mixed else subprocess.PIPE, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def as_printed(expected: list[Record], parsed: KcatParse) -> list[Record]:
    """The expected records with what the output does not carry as the parser gives it (None / -1 / ())."""
    missing = parsed.missing
    return [
        Record(
            r.offset,
            -1 if "timestamp" in missing else r.timestamp,
            None if "key" in missing else r.key,
            None if "value" in missing else r.value,
            () if "headers" in missing else r.headers,
        )
        for r in expected
    ]


def assert_read_exactly(broker: KafkaBroker, parsed: KcatParse, partitions: list[int]) -> None:
    """Each partition's records as the segment files hold them (one partition when the output names none)."""
    if "partition" in parsed.missing:
        (partition,) = partitions
        assert parsed.records() == as_printed(consumer_view(broker, partition), parsed)
        return
    assert sorted(p for _, p in parsed.partitions() if p is not None) == partitions
    for partition in partitions:
        expected = consumer_view(broker, partition)
        assert parsed.records(partition=partition) == as_printed(expected, parsed), f"partition {partition}"


def test_kcat_json_with_stderr_mixed_in_reads_every_partition_exactly(awkward: KafkaBroker) -> None:
    output = run_kcat(awkward, "-J", stderr_mixed=True)
    inside = [i for i in range(1, len(output)) if output.startswith(b"% Reached", i) and output[i - 1] != ord("\n")]
    assert inside, "kcat's stderr should land inside a record here (stdout goes out in 4 KiB blocks)"
    parsed = parse_kcat_json(output)
    assert_read_exactly(awkward, parsed, [0, 1, 2])
    assert sorted(s.split(" at offset")[0] for s in parsed.status_lines) == [
        f"% Reached end of topic {TOPIC} [{p}]" for p in range(3)
    ]
    assert parsed.missing == frozenset()
    assert [c.split(":")[0] for c in parsed.caveats] == ["headers", "status lines"]
    values = [r.value for r in parsed.records(partition=0)]
    assert values[:3] == [bytes(range(256)), b"win\r\nline", b"lone\rcr"] and BIG in values


@pytest.mark.parametrize(
    ("args", "partitions"),
    [
        (["-f", r"%t|%p|%o|%T|%K:%k|%S:%s|%h\n", "-p", "0"], [0]),
        (["-Z", "-f", r"%p %o %T %K %S %k %s\n"], [0, 1, 2]),
        (["-f", r"%p\t%o\t%k|%K\t%R%s\n"], [0, 1, 2]),  # key length after the key; value length as 4 bytes
        (["-f", r"%o\t%T\n", "-p", "1"], [1]),
        (["-f", r"%p %o %k %s\n", "-p", "1"], [1]),
        (["-f", r"%o %h\n", "-p", "0"], [0]),
    ],
    ids=["all-fields-p0", "Z-lengths", "lengths-after-and-R", "seed-script-p1", "no-lengths-p1", "headers-p0"],
)
def test_kcat_formats_read_exactly(awkward: KafkaBroker, args: list[str], partitions: list[int]) -> None:
    fmt = args[args.index("-f") + 1]
    parsed = parse_kcat_format(run_kcat(awkward, *args, stderr_mixed=True), fmt, print_nulls="-Z" in args)
    assert_read_exactly(awkward, parsed, partitions)


@pytest.mark.parametrize(
    ("args", "print_nulls", "message"),
    [
        (["-f", r"%p %o %k %s\n", "-p", "0"], False, "put %K before %k and %S before %s"),
        (["-Z", "-f", r"%p %o %K %S %k %s\n"], False, r"made with -Z; read it with -Z \(print_nulls=True\)"),
        (["-f", r"%p %o %K %S %k %s\n"], True, "was -Z not given"),
        (["-f", r"%p %o %h\n", "-p", "2"], False, "hold a ',' inside a header name or value"),
    ],
    ids=["separators-without-lengths", "NULL-without-Z", "no-NULL-with-Z", "comma-in-header"],
)
def test_kcat_outputs_that_cannot_be_read_exactly_are_refused_with_the_fix(
    awkward: KafkaBroker, args: list[str], print_nulls: bool, message: str
) -> None:
    fmt = args[args.index("-f") + 1]
    with pytest.raises(DumpParseError, match=message):
        parse_kcat_format(run_kcat(awkward, *args), fmt, print_nulls=print_nulls)


def test_without_p_the_partition_is_unknown_unless_stated(awkward: KafkaBroker) -> None:
    every = parse_kcat_format(run_kcat(awkward, "-f", r"%o\t%T\n"), r"%o\t%T\n")
    assert every.partitions() == [(None, None)] and "partition" in every.missing
    expected = [(r.offset, r.timestamp) for p in (0, 1, 2) for r in consumer_view(awkward, p)]
    assert sorted((r.offset, r.timestamp) for r in every.records()) == sorted(expected)
    with pytest.raises(DumpParseError, match="the partition is unknown"):
        every.to_partition_log()
    one = parse_kcat_format(run_kcat(awkward, "-f", r"%o\t%T\n", "-p", "1"), r"%o\t%T\n", partition=1)
    assert one.partitions() == [(None, 1)]
    assert one.records(partition=1) == as_printed(consumer_view(awkward, 1), one)


def test_gap_report_of_kcat_output_shows_transaction_markers_as_possible_gaps(awkward: KafkaBroker) -> None:
    parsed = parse_kcat_format(run_kcat(awkward, "-f", r"%o\t%T\n", "-p", "0"), r"%o\t%T\n", partition=0)
    from_kcat = last_compaction_gap(parsed.records())
    # consumers skip the commit marker (offset 11), the aborted record and its marker (13, 14)
    assert (from_kcat.gap_count, from_kcat.last_gap_offset, from_kcat.missing_offsets) == (2, 15, 2)
    assert format_gap_report(from_kcat).splitlines()[0] == (
        "last gap offset:  15 (2 offsets missing before it: removed records, or a transaction's marker and "
        "aborted records, which consumers never see)"
    )
    from_segments = last_compaction_gap(read_partition_dir(partition_dir(awkward, TOPIC, 0)).log)
    assert (from_segments.gap_count, from_segments.last_row) == (0, 14)  # markers known; the aborted record is a row


STATUS_LIKE = [  # the values: status-like text in values, over a 4 KiB stdout block
    b"2026-11-27 app: % ERROR: disk full; retrying " + b"B" * 6000,
    b"% Reached end of topic x [0] at offset 3\n" + b"B" * 6000,
    b"before",
    b"% Reached end of topic st [0] at offset 2\n0\t2\tafter",
    b"after",
]


@pytest.mark.parametrize("stderr_mixed", [True, False], ids=["2>&1", "2>err"])
def test_status_like_values_read_whole_or_refused_as_ambiguous(kafka_broker: KafkaBroker, stderr_mixed: bool) -> None:
    topic = "kcat-status-like"
    if not partition_dir(kafka_broker, topic, 0).exists():
        create_topic(kafka_broker, topic, configs=KEPT, partitions=2)
        produce_encoded_batches(kafka_broker, topic, raw_batches([(b"k", v, ()) for v in STATUS_LIKE], 0))
        produce_encoded_batches(kafka_broker, topic, raw_batches([(b"p1", b"x", ())], 0), partition=1)

    def kcat(*args: str) -> bytes:
        command = [kcat_path(), "-C", "-b", kafka_broker.bootstrap_servers, "-t", topic, "-e", *args]
        stderr = subprocess.STDOUT if stderr_mixed else subprocess.PIPE
        return subprocess.run(command, stdout=subprocess.PIPE, stderr=stderr, timeout=60, check=True).stdout

    assert [r.value for r in parse_kcat_json(kcat("-J")).records(partition=0)] == STATUS_LIKE
    for fmt in (r"%p\t%o\t%S\t%s\n", r"%t %p %o %K %S %k %s\n"):
        assert [r.value for r in parse_kcat_format(kcat("-f", fmt), fmt).records(partition=0)] == STATUS_LIKE, fmt
    unsized = r"%p\x01%o\x01%k\x02%s\x1e"
    if stderr_mixed:  # kcat's status line lands inside a value printed without its length: data or stderr?
        with pytest.raises(DumpParseError, match="can be read in more than one way.*2>/dev/null"):
            parse_kcat_format(kcat("-f", unsized), unsized)
    else:
        assert [r.value for r in parse_kcat_format(kcat("-f", unsized), unsized).records(partition=0)] == STATUS_LIKE
