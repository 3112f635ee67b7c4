"""Read kcat ``-f`` output back into records, byte for byte as kcat wrote it.

A key or value that follows its own length (``%K ... %k``, ``%S ... %s``, ``%R ... %s``) is read
as exactly that many bytes, whatever it contains. A field without a length ends at the literal
text that follows it in the format and never contains the format's last literal (its
terminator, usually ``\\n``). Every way of splitting a record is tried: a record that can be read
in two ways (``%k %s`` with a key containing a space) is refused with its line, never guessed.
Lengths printed after their field are checked. ``%h`` prints ``NULL`` for a null header value;
``-Z`` (``print_nulls``) prints ``NULL`` for empty and null keys and values.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from kcompact_nb.core import Record
from kcompact_nb.io._errors import DumpParseError
from kcompact_nb.io.text._kcat_format import NUMBERS, FormatToken, KcatFormat, compile_kcat_format
from kcompact_nb.io.text._kcat_json import as_bytes
from kcompact_nb.io.text._kcat_records import UNKNOWN_PARTITION, ConsumedRecord, KcatParse, OffsetOrder, in_partition
from kcompact_nb.io.text._kcat_status import (
    STATUS_LINE,
    STDERR_ADVICE,
    TERMINAL_ADVICE,
    StdoutReading,
    mixed_stderr_caveats,
    only_reading,
    terminal_line_ends,
)

_NUMBER = re.compile(rb"-?[0-9]+")
NULL = b"NULL"
Captured = dict[str, int | bytes | None]


class _Mismatch(Exception):
    """One way of reading a record failed; ``reason`` is kept for the error if every way fails."""


@dataclass
class _RecordReader:
    """Every reading (at most two) of the record that starts at ``start``; with ``past`` set, only readings that
    end after ``past``, a key or value whose length follows it (``%k ... %K``) holding the record end."""

    fmt: KcatFormat
    data: bytes
    start: int
    past: int = -1
    found: list[tuple[ConsumedRecord, int]] = field(default_factory=list)
    furthest: tuple[int, str] = (-1, "")

    def read(self) -> list[tuple[ConsumedRecord, int]]:
        self._walk(0, self.start, {})
        return self.found

    def _fail(self, at: int, reason: str) -> None:
        if at > self.furthest[0]:
            self.furthest = (at, reason)

    def _walk(self, index: int, at: int, captured: Captured) -> None:
        if len(self.found) >= 2:
            return
        tokens = self.fmt.tokens
        if index == len(tokens):
            self._finish(captured, at)
            return
        token = tokens[index]

        def step(end: int, more: Captured) -> None:
            self._walk(index + 1, end, more)

        if token.literal:
            if self.data.startswith(token.literal, at):
                step(at + len(token.literal), captured)
            else:
                self._fail(at, f"expected {token.literal!r}")
        elif token.field in NUMBERS or token.field == "R":
            self._number(token.field, at, captured, step)
        elif token.sized_by:
            self._sized(token.field, captured[token.sized_by], at, captured, step)
        else:
            self._unsized(token, tokens[index + 1].literal, at, captured, step)

    def _number(self, letter: str, at: int, captured: Captured, step: Callable[[int, Captured], None]) -> None:
        if letter == "R":
            raw = self.data[at : at + 4]
            value, end = int.from_bytes(raw, "big", signed=True), at + 4
            if len(raw) < 4:
                self._fail(at, "the output ends inside %R (4 bytes)")
                return
        else:
            match = _NUMBER.match(self.data, at)
            if match is None:
                self._fail(at, f"expected a number for %{letter}")
                return
            value, end = int(match.group()), match.end()
        self._capture(letter, value, end, captured, step)

    def _capture(
        self,
        letter: str,
        value: int | bytes | None,
        end: int,
        captured: Captured,
        step: Callable[[int, Captured], None],
    ) -> None:
        if letter in captured and captured[letter] != value:
            self._fail(end, f"%{letter} printed twice with different values")
            return
        step(end, {**captured, letter: value})

    def _sized(
        self, letter: str, length: object, at: int, captured: Captured, step: Callable[[int, Captured], None]
    ) -> None:
        assert isinstance(length, int)
        if length > 0:
            if at + length > len(self.data):
                self._fail(at, f"the output ends inside a {length}-byte %{letter}")
                return
            self._capture(letter, self.data[at : at + length], at + length, captured, step)
            return
        if self.fmt.print_nulls:
            if not self.data.startswith(NULL, at):
                self._fail(at, _null_advice(letter, True))
                return
            end = at + len(NULL)
        else:
            if self.data.startswith(NULL, at):
                self._fail(at, _null_advice(letter, False))  # kept in case no reading succeeds
            end = at
        self._capture(letter, None if length < 0 else b"", end, captured, step)

    def _unsized(
        self, token: FormatToken, follow: bytes, at: int, captured: Captured, step: Callable[[int, Captured], None]
    ) -> None:
        """Every end of the field up to the record's end; a field whose length follows it (``%k ... %K``) may hold
        the record end too: past it, the first end its length confirms is taken."""
        letter = token.field
        window = self.data.find(self.fmt.terminator, at)
        window = len(self.data) if window < 0 else window
        if token.checked_by and self.past >= 0:
            window = len(self.data)  # read again past the record end: the first end its length confirms
        end = self.data.find(follow, at)
        if end < 0 or end > window:
            self._fail(at, f"expected %{letter} followed by {follow!r}")
        while 0 <= end <= window and len(self.found) < (1 if self.past >= 0 else 2):
            self._capture(letter, self.data[at:end], end, captured, step)
            end = self.data.find(follow, end + 1)

    def _finish(self, captured: Captured, end: int) -> None:
        if end <= self.past:
            self._fail(end, "the record ends where its first reading ended")
            return
        try:
            message = _message(self.fmt, captured)
        except _Mismatch as reason:
            self._fail(end, str(reason))
            return
        self.found.append((message, end))


def _null_advice(letter: str, print_nulls: bool) -> str:
    if print_nulls:
        return f"kcat -Z prints NULL for an empty or null %{letter}, found something else: was -Z not given?"
    return (
        f"kcat printed NULL for an empty or null %{letter}: "
        "the output was made with -Z; read it with -Z (print_nulls=True)"
    )


def _message(fmt: KcatFormat, captured: Captured) -> ConsumedRecord:
    sized = {t.field for t in fmt.tokens if t.sized_by}
    key = captured.get("k") if "k" in sized else _unsized_value("k", captured.get("k"), captured.get("K"), fmt)
    length = captured.get("S", captured.get("R"))
    value = captured.get("s") if "s" in sized else _unsized_value("s", captured.get("s"), length, fmt)
    topic = captured.get("t")
    record = Record(
        _int(captured["o"]), _int(captured.get("T", -1)), _bytes(key), _bytes(value), _headers(captured.get("h"))
    )
    partition = captured.get("p")
    return ConsumedRecord(
        None if topic is None else _text(topic), None if partition is None else _int(partition), record
    )


def _unsized_value(letter: str, printed: object, length: object, fmt: KcatFormat) -> bytes | None:
    """A key or value read up to its separator, resolved with a length printed after it when there is one."""
    if printed is None:
        return None
    assert isinstance(printed, bytes)
    if isinstance(length, int):
        if length > 0 and len(printed) == length:
            return printed
        if length <= 0 and printed == (NULL if fmt.print_nulls else b""):
            return None if length < 0 else b""
        if length <= 0 and printed in (NULL, b""):
            raise _Mismatch(_null_advice(letter, fmt.print_nulls))
        raise _Mismatch(f"%{letter} has {len(printed)} bytes where its length says {length}")
    if fmt.print_nulls:
        if printed == b"":
            raise _Mismatch(_null_advice(letter, True))
        return None if printed == NULL else printed
    return printed or None


def _headers(printed: object) -> tuple[tuple[str, bytes | None], ...]:
    """``name=value,name=NULL,...`` as kcat's ``print_headers`` writes them (format.c)."""
    if not printed:
        return ()
    assert isinstance(printed, bytes)
    pairs = []
    for item in printed.split(b","):
        name, equals, value = item.partition(b"=")
        if not equals:
            raise _Mismatch(
                f"headers {printed!r} hold a ',' inside a header name or value, which %h cannot show; use -J"
            )
        pairs.append((_text(name), None if value == NULL else value))
    return tuple(pairs)


def _int(value: object) -> int:
    assert isinstance(value, int)
    return value


def _bytes(value: object) -> bytes | None:
    assert value is None or isinstance(value, bytes)
    return value


def _text(value: object) -> str:
    assert isinstance(value, bytes)
    return value.decode("utf-8", errors="surrogateescape")


def parse_kcat_format(
    output: bytes | str,
    fmt: str | KcatFormat,
    *,
    print_nulls: bool = False,
    partition: int | None = None,
    source: str = "<kcat -f output>",
) -> KcatParse:
    """Parse kcat output printed with ``-f fmt`` (e.g. ``'%o\\t%T\\n'``), as the bytes kcat wrote.

    Parameters
    ----------
    output : what kcat printed: bytes as read from the file (``str`` is encoded as UTF-8; text
        decoded with ``errors="surrogateescape"`` comes back to the same bytes).
    fmt : the ``-f`` format string as given to kcat, or a :class:`KcatFormat`.
    print_nulls : kcat ran with ``-Z`` (ignored when ``fmt`` is already compiled).
    partition : the partition kcat was told to read (``kcat -p N``): records without ``%p`` are
        placed in it, a record printing another ``%p`` is refused. Without it and without ``%p``
        the partition is unknown.
    source : the name used in error messages.

    Raises
    ------
    DumpParseError : naming the line, when a record does not match the format, can be read in
        more than one way, offsets of a partition go back, or status-like text makes the output
        readable in two ways.
    """
    compiled = fmt if isinstance(fmt, KcatFormat) else compile_kcat_format(fmt, print_nulls=print_nulls)
    data = as_bytes(output)
    if terminal_line_ends(data, compiled.terminator):
        raise DumpParseError(source, 1, TERMINAL_ADVICE)
    return only_reading(data, partial(_parse, compiled, partition, source), source)


def _parse(fmt: KcatFormat, partition: int | None, source: str, reading: StdoutReading) -> KcatParse:
    data, order = reading.data, OffsetOrder()
    messages: list[ConsumedRecord] = []
    position, previous = 0, (-1, -1)
    while position < len(data):
        found = (reader := _RecordReader(fmt, data, position)).read()
        if not found and _holds_checked_field(fmt):  # a key or value whose length follows it may hold the record end
            found = _RecordReader(fmt, data, position, past=position).read()
            if not found and previous[0] >= 0 and (longer := _RecordReader(fmt, data, *previous).read()):
                messages.pop()  # the record before holds it: read again, it ends later
                order.forget_last()
                position, found = previous[0], longer
        message, end = _one_reading(reader, found, fmt, source, partial(reading.line_of, position))
        placed = in_partition(message, partition)
        problem = placed if isinstance(placed, str) else order.disorder(placed)
        if problem is not None:
            raise DumpParseError(source, reading.line_of(position), problem)
        assert not isinstance(placed, str)
        messages.append(placed)
        previous, position = (position, end), end
    missing = fmt.missing - {"partition"} if partition is not None else fmt.missing
    caveats = fmt.caveats + _partition_caveat(fmt, partition) + mixed_stderr_caveats(reading)
    return KcatParse(tuple(messages), missing, caveats, reading.status_texts)


def _holds_checked_field(fmt: KcatFormat) -> bool:
    """A key or value is followed by its length (``%k ... %K``): it may hold the record end."""
    return any(token.checked_by for token in fmt.tokens)


def _partition_caveat(fmt: KcatFormat, partition: int | None) -> tuple[str, ...]:
    return (f"partition: {UNKNOWN_PARTITION}",) if partition is None and "p" not in fmt.fields else ()


def _one_reading(
    reader: _RecordReader,
    found: list[tuple[ConsumedRecord, int]],
    fmt: KcatFormat,
    source: str,
    line: Callable[[], int],
) -> tuple[ConsumedRecord, int]:
    """The one reading of a record; refused (naming its line) when there is none or two that differ."""
    if not found:
        raise DumpParseError(source, line(), _no_match(reader, fmt))
    if len(found) > 1 and found[0][0] != found[1][0]:
        end = max(found[0][1], found[1][1])
        raise DumpParseError(
            source,
            line(),
            f"this record can be read in more than one way: {_excerpt(reader.data[reader.start : end])}; "
            "a key, value or header contains the separator that follows it in the format "
            f"{fmt.text!r}: put %K before %k and %S before %s (headers: use -J)",
        )
    return found[0]


def _no_match(reader: _RecordReader, fmt: KcatFormat) -> str:
    at, reason = reader.furthest
    here = reader.data[reader.start :]
    if here.startswith(b"%"):
        return f"not a record of the format {fmt.text!r} but {_excerpt(here)}: a kcat status line? {STDERR_ADVICE}"
    hint = ""
    status = STATUS_LINE.search(reader.data, reader.start, max(at, reader.start) + 1)
    if status is not None:
        hint = (
            f"; the record holds {_excerpt(status.group())}, which reads as kcat's status line (its stderr) but "
            "does not stand where kcat's 4 KiB stdout blocks end (kcat -u, or the file edited?); " + STDERR_ADVICE
        )
    elif reader.start > 0 and at == reader.start and any(t.field in "ksh" and not t.sized_by for t in fmt.tokens):
        hint = (
            f"; if the record before holds {fmt.terminator!r} in its key, value or headers, it cannot be read "
            "without its length: put %K before %k and %S before %s"
        )
    return f"output does not match the format {fmt.text!r} here: {_excerpt(here)} ({reason}){hint}"


def _excerpt(data: bytes, limit: int = 120) -> str:
    """The start of ``data`` up to its first line end, shown with escapes."""
    line_end = data.find(b"\n")
    shown = data[: min(limit, len(data) if line_end < 0 else line_end + 1)]
    return repr(shown) + (" ..." if len(shown) < len(data) and line_end >= limit else "")
