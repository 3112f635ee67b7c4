"""Differential fuzzing against Debian's real kcat: every parse of its output is the truth or a refusal.

Hypothesis generates records (bytes keys, values and headers holding kcat's status-line text,
separators, line ends, NULs, ``NULL``, empty and null; values over a 4 KiB stdout block; several
partitions; committed and aborted transactions), produces them to a fresh topic of the real
broker, and has the real kcat consume it in generated forms: ``-J``, ``-f`` with and without
lengths, ``%p``, ``%t``, ``%T`` and ``%h``, ``-Z``, ``-p N`` (stated to the parser or not),
``-J -D`` and ``-K``/``-D`` (both refused), with kcat's stderr mixed in (``2>&1``) or not, buffered or
unbuffered (``-u``: status lines at record ends), ended by ``-e`` or stopped by a signal once it has read
everything (no ``-e``), or taken through a pseudo-terminal (``script``, as ``docker exec -t`` would). Each
parse must equal what a ``read_committed`` consumer reads from the broker's segment files, with
exactly the losses the form declares (fields it does not print; kcat's own cuts), or be refused.
Data the parse declares it cannot read (a separator inside a field printed without its length)
may read differently only with that caveat. ``make fuzz`` runs many more examples
(``KCOMPACT_KCAT_FUZZ_EXAMPLES``).
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kcompact_nb import NewRecord
from kcompact_nb.broker import (
    DEFAULT_VERSION,
    KafkaBroker,
    create_topic,
    partition_offsets,
    produce_encoded_batches,
    produce_transaction,
    wait_for_offsets,
)
from kcompact_nb.core import Record, RecordBatch
from kcompact_nb.io import DumpParseError, KcatParse, compile_kcat_format, parse_kcat_format, parse_kcat_json
from kcompact_nb.record import encode_batch

from .conftest import BASE_TS_MS
from .test_kcat_real import KEPT, consumer_view, kcat_path

EXAMPLES = int(os.environ.get("KCOMPACT_KCAT_FUZZ_EXAMPLES", "8"))

pytestmark = pytest.mark.parametrize("kafka_broker", [DEFAULT_VERSION], indirect=True, ids=[f"kafka-{DEFAULT_VERSION}"])

PIECES = [
    b"",
    b"NULL",
    b"\n",
    b"\r\n",
    b"\r",
    b"\t",
    b" ",
    b"|",
    b",",
    b"=",
    b"\x00",
    b"\x01",
    b"\x1e",
    b"-1",
    b"0\t7\tphantom\n",
    b"% Reached end of topic t [0] at offset 1\n",
    b"% Reached end of topic t [0] at offset 1: exiting\n",
    b"2026-11-27 app: % ERROR: disk full; retrying\n",
    b"\xff\xfe",
    b"\xc3\xa9",
    b'{"a":"\\u0000"}',
]
small = st.lists(st.one_of(st.sampled_from(PIECES), st.binary(max_size=6)), max_size=4).map(b"".join)
#: Over one 4 KiB block of kcat's stdout, so a status line mixed in with 2>&1 lands inside a record.
big = st.tuples(small, st.integers(3000, 6000), small).map(lambda t: t[0] + b"B" * t[1] + t[2])
data = st.one_of(small, small, small, big)
header_names = st.one_of(
    st.sampled_from(["h", "a,b", "k=v", "a\x00b", "", "é", "NULL"]), st.text("ab,=\x00", max_size=3)
)
headers = st.lists(st.tuples(header_names, st.none() | small), max_size=3).map(tuple)


@dataclass(frozen=True)
class Workload:
    """Records per partition (raw one-record batches) and transactions on partition 0 (``commit``/``abort``)."""

    partitions: int
    records: tuple[tuple[int, bytes | None, bytes | None, tuple[tuple[str, bytes | None], ...]], ...]
    transactions: tuple[str, ...]


@st.composite
def workloads(draw: st.DrawFn) -> Workload:
    partitions = draw(st.integers(1, 3))
    record = st.tuples(st.integers(0, partitions - 1), st.none() | data, st.none() | data, headers)
    records = draw(st.lists(record, min_size=1, max_size=6))
    transactions = draw(st.sampled_from([(), (), (), ("commit",), ("abort",), ("commit", "abort")]))
    return Workload(partitions, tuple(records), transactions)


@dataclass(frozen=True)
class Form:
    """One way of running kcat and reading its output back."""

    args: tuple[str, ...]  # kcat's output options (-J, -f F, -Z, -D, -K)
    fmt: str | None  # the -f format given to the parser (None: read as -J)
    nulls: bool
    kcat_partition: int | None  # kcat -p N
    stated: bool  # the parser is told the partition (partition=N)
    stderr_mixed: bool
    must_refuse: bool = False
    unbuffered: bool = False  # kcat -u
    until_eof: bool = True  # kcat -e; without it kcat is stopped by SIGTERM once every partition reached its end
    terminal: bool = False  # run under a pseudo-terminal (script): every \n kcat writes arrives as \r\n


SEPARATORS = [" ", r"\t", "|", r"\x01"]
TERMINATORS = [r"\n", r"\x1e", r"\r\n"]


@st.composite
def forms(draw: st.DrawFn, partitions: int) -> Form:
    kcat_partition = draw(st.none() | st.integers(0, partitions - 1))
    stated = kcat_partition is not None and draw(st.booleans())
    terminal = draw(st.sampled_from([False, False, False, True]))
    mixed = terminal or draw(st.booleans())  # a terminal takes stdout and stderr alike
    run = {"unbuffered": draw(st.booleans()), "until_eof": terminal or draw(st.booleans()), "terminal": terminal}
    kind = draw(st.sampled_from(["json", "format", "format", "format", "json -D", "-K -D"]))
    if kind == "json":
        return Form(("-J",), None, False, kcat_partition, stated, mixed, **run)
    if kind == "json -D":
        return Form(("-J", "-D", "|"), None, False, kcat_partition, stated, mixed, must_refuse=True, **run)
    if kind == "-K -D":
        return Form(("-K", ":", "-D", "|"), None, False, kcat_partition, stated, mixed, must_refuse=True, **run)
    sep = draw(st.sampled_from(SEPARATORS))
    parts = [f for f in ("%t", "%p", "%T", "%h") if draw(st.booleans())] + ["%o"]
    key = draw(st.sampled_from(["", "%k", "%K{s}%k", "%k{s}%K"]))
    value = draw(st.sampled_from(["", "%s", "%S{s}%s", "%R%s", "%s{s}%S"]))
    parts += [p.format(s=sep) for p in (key, value) if p]
    fmt = sep.join(draw(st.permutations(parts))) + draw(st.sampled_from(TERMINATORS))
    nulls = draw(st.booleans())
    must_refuse = terminal and "\\n" in fmt  # every line end arrives as \r\n: refused with that cause
    return Form(("-f", fmt, *(["-Z"] if nulls else [])), fmt, nulls, kcat_partition, stated, mixed, must_refuse, **run)


def produce(broker: KafkaBroker, workload: Workload) -> str:
    topic = f"kf-{uuid.uuid4().hex[:12]}"
    create_topic(broker, topic, configs=KEPT, partitions=workload.partitions)
    for partition in range(workload.partitions):
        mine = [r for r in workload.records if r[0] == partition]
        batches = (
            encode_batch(RecordBatch.build([Record(0, BASE_TS_MS + i, key, value, hs)]))
            for i, (_, key, value, hs) in enumerate(mine)
        )
        produce_encoded_batches(broker, topic, batches, partition=partition)
    for index, outcome in enumerate(workload.transactions):
        records = [NewRecord(b"tx", b"%d %s" % (index, outcome.encode()), BASE_TS_MS + 100 + index)]
        end = partition_offsets(broker, topic, 0)[1]
        produce_transaction(broker, topic, records, transactional_id=topic, commit=outcome == "commit")
        wait_for_offsets(broker, topic, end=end + 2)  # the record and the transaction's marker
    if workload.transactions:  # a record after the marker, so the consumer's gap shows
        last = encode_batch(RecordBatch.build([Record(0, BASE_TS_MS + 200, b"after", b"txn", ())]))
        produce_encoded_batches(broker, topic, [last])
    return topic


def run_kcat(broker: KafkaBroker, topic: str, form: Form, partitions: int) -> bytes:
    where = ["-p", str(form.kcat_partition)] if form.kcat_partition is not None else []
    options = [*(["-e"] if form.until_eof else []), *(["-u"] if form.unbuffered else [])]
    command = [kcat_path(), "-C", "-b", broker.bootstrap_servers, "-t", topic, *options, *where, *form.args]
    if form.terminal:
        done = subprocess.run(["script", "-qefc", shlex.join(command), "/dev/null"], capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout
    if not form.until_eof:
        return _stopped_by_a_signal(command, form, topic, 1 if form.kcat_partition is not None else partitions)
    stderr = subprocess.STDOUT if form.stderr_mixed else subprocess.PIPE
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=stderr, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _stopped_by_a_signal(command: list[str], form: Form, topic: str, partitions: int) -> bytes:
    """kcat without ``-e``: it waits for more records until SIGTERM, sent once its stderr says that every partition
    it reads reached its end (``% Reached end of topic``), as an operator stops it with Ctrl-C."""
    with tempfile.TemporaryDirectory() as folder:
        out, err = Path(folder) / "out", Path(folder) / "err"
        with open(out, "wb") as stdout, open(err, "wb") as stderr:
            process = subprocess.Popen(command, stdout=stdout, stderr=stdout if form.stderr_mixed else stderr)
            watched = out if form.stderr_mixed else err
            deadline = time.monotonic() + 60
            reached = f"% Reached end of topic {topic} [".encode()  # the generated data never names this topic
            while watched.read_bytes().count(reached) < partitions:
                assert time.monotonic() < deadline and process.poll() is None, watched.read_bytes()[-2000:]
                time.sleep(0.05)
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
        return out.read_bytes()


def parse(output: bytes, form: Form) -> KcatParse:
    partition = form.kcat_partition if form.stated else None
    if form.fmt is None:
        return parse_kcat_json(output, partition=partition)
    return parse_kcat_format(output, form.fmt, print_nulls=form.nulls, partition=partition)


@dataclass(frozen=True)
class Printed:
    """What a form can carry of a record: the rules of kcat 1.7's format.c, as each caveat states them."""

    form: Form

    def fields(self, letter: str) -> tuple[bool, bool]:
        """(printed, exact): exact when read by its length (a length formatter before or after it)."""
        fmt = self.form.fmt
        assert fmt is not None
        lengths = {"k": ("%K",), "s": ("%S", "%R")}[letter]
        return f"%{letter}" in fmt, any(length in fmt for length in lengths)

    def bytes_field(self, letter: str, data: bytes | None) -> bytes | None:
        printed, exact = self.fields(letter)
        if not printed:
            return None
        if exact or data is None:
            return data
        if self.form.nulls and data in (b"", b"NULL"):
            return None
        return data or None

    def record(self, record: Record) -> Record:
        if self.form.fmt is None:  # -J: header names cut at a NUL (strlen)
            return record._replace(headers=tuple((n.split("\x00")[0], v) for n, v in record.headers))
        fmt = self.form.fmt
        headers: tuple[tuple[str, bytes | None], ...] = ()
        if "%h" in fmt:
            headers = tuple((n.split("\x00")[0], None if v is None else v.split(b"\x00")[0]) for n, v in record.headers)
        return Record(
            record.offset,
            record.timestamp if "%T" in fmt else -1,
            self.bytes_field("k", record.key),
            self.bytes_field("s", record.value),
            headers,
        )

    def unreadable(self, record: Record) -> bool:
        """Data the parse declares it cannot read: a separator inside a field printed without its length."""
        fmt = self.form.fmt
        if fmt is None:
            return False
        compiled = compile_kcat_format(fmt, print_nulls=self.form.nulls)
        literals = [t.literal for t in compiled.tokens if t.literal]
        pieces: list[tuple[bytes, bool]] = []
        for letter, data in (("k", record.key), ("s", record.value)):
            printed, exact = self.fields(letter)
            if printed and data is not None:
                pieces.append((data, exact))
        if "%h" in fmt:
            for name, value in record.headers:
                both = name.encode() + b"=" + (value or b"")
                if value == b"NULL" or b"," in both or both.count(b"=") > 1:
                    return True  # %h cannot tell these apart (its caveat)
                pieces.append((both, False))
        return any(lit in data for data, exact in pieces for lit in ([compiled.terminator] if exact else literals))


def check(broker: KafkaBroker, topic: str, workload: Workload, form: Form) -> None:
    output = run_kcat(broker, topic, form, workload.partitions)
    run = ["-u" if form.unbuffered else "", "" if form.until_eof else "no -e", "terminal" if form.terminal else ""]
    event(f"kcat run: {' '.join(r for r in run if r) or 'buffered, -e'}")
    try:
        parsed = parse(output, form)
    except DumpParseError as refused:
        assert str(refused), "a refusal says why"
        event(f"refused: {refused.reason.split(':')[0][:40]}")
        return
    assert not (form.must_refuse and parsed.messages), f"{form.args} output must be refused"
    chosen = [form.kcat_partition] if form.kcat_partition is not None else list(range(workload.partitions))
    truth = {p: consumer_view(broker, p, topic=topic) for p in chosen}
    printed = Printed(form)
    unreadable = any(printed.unreadable(r) for records in truth.values() for r in records)
    expected = {p: [printed.record(r) for r in records] for p, records in truth.items()}
    event(f"read{' with stderr skipped' if parsed.status_lines else ''}{' (unreadable data)' if unreadable else ''}")
    if unreadable:
        if _as_read(parsed) != _as_expected(parsed, expected):
            assert any("phantom record" in c or "cannot be told apart" in c for c in parsed.caveats), parsed.caveats
        return
    assert _as_read(parsed) == _as_expected(parsed, expected), (form, output[:2000])


def _as_read(parsed: KcatParse) -> dict[int | None, list[Record]]:
    out: dict[int | None, list[Record]] = {}
    for message in parsed.messages:
        out.setdefault(message.partition, []).append(message.record)
    if None in out:  # the partition is unknown: records of several partitions, in any interleaving
        out[None] = sorted(out[None], key=repr)
    return out


def _as_expected(parsed: KcatParse, expected: dict[int, list[Record]]) -> dict[int | None, list[Record]]:
    if any(m.partition is None for m in parsed.messages):
        every = sorted((r for records in expected.values() for r in records), key=repr)
        return {None: every} if every else {}
    return {p: records for p, records in expected.items() if records}


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_every_kcat_output_reads_as_the_segment_files_or_is_refused(
    kafka_broker: KafkaBroker, data: st.DataObject
) -> None:
    workload = data.draw(workloads(), label="workload")
    topic = produce(kafka_broker, workload)
    for form in data.draw(st.lists(forms(workload.partitions), min_size=2, max_size=4), label="forms"):
        check(kafka_broker, topic, workload, form)
