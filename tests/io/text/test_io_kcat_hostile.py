"""kcat output in the forms issue #40 found read wrongly: lengths printed after their field, ``kcat -u`` status
lines at record ends, pseudo-terminal line ends, empty output."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb.io import DumpParseError, parse_kcat_format, parse_kcat_json

_FORMATS = [r"%o\t%k\t%K\t%s\t%S\n", r"%o %k %K %s %S\n", r"%o\t%k %K\t%S\t%s\n", r"%o\t%K\t%k\t%s\t%S\n"]


def _rendered(fmt: str, records: list[tuple[bytes, bytes]]) -> bytes:
    """What kcat prints for ``records`` (offsets 0, 1, ...) with ``fmt`` (escapes \\t and \\n only)."""
    template = fmt.replace(r"\t", "\t").replace(r"\n", "\n").encode()
    out = b""
    for offset, (key, value) in enumerate(records):
        fields = {b"o": str(offset).encode(), b"k": key, b"K": str(len(key)).encode(), b"s": value}
        fields[b"S"] = str(len(value)).encode()
        parts = template.split(b"%")
        out += parts[0] + b"".join(fields[part[:1]] + part[1:] for part in parts[1:])
    return out


_DATA = st.lists(st.sampled_from([b"a", b"\t", b"\n", b" ", b"1", b"%", b"\r"]), min_size=1, max_size=6).map(b"".join)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_FORMATS), st.lists(st.tuples(_DATA, _DATA), min_size=1, max_size=4))
def test_a_length_printed_after_its_field_reads_it_exactly_or_refuses(fmt, records):
    """The README's promise for %K/%S after %k/%s: keys and values as bytes, whatever they hold (separators and
    the record end included), or a refusal; never another record."""
    output = _rendered(fmt, records)
    try:
        parsed = parse_kcat_format(output, fmt, partition=0)
    except DumpParseError:
        return
    assert [(r.key, r.value) for r in parsed.records()] == records
    assert not any(c.startswith(("keys:", "values:")) for c in parsed.caveats)


def test_keys_and_values_holding_separators_and_line_ends_are_read_with_lengths_after_them():
    records = [(b"a\tb", b"v\n1\t1\n"), (b"\n", b"%\t1\n "), (b"k", b"")]
    parsed = parse_kcat_format(_rendered(_FORMATS[0], records), _FORMATS[0], partition=0)
    assert [(r.key, r.value) for r in parsed.records()] == records


STATUS = b"% Reached end of topic t [0] at offset 10\n"


def test_kcat_u_status_lines_at_record_ends_are_skipped_when_one_reading_fits():
    """``kcat -u`` (unbuffered) ``2>&1`` without ``-e``: its status lines stand at record ends, not 4 KiB block ends;
    read as records, ``% Reached end ... at offset 10`` made a phantom record at offset 10 with ``%k %o``."""
    output = b"a 8\nb 9\n" + STATUS + b"c 10\n" + STATUS.replace(b"10", b"11")
    with pytest.raises(DumpParseError, match=r"more than one way.*kcat -u"):
        parse_kcat_format(output, r"%k %o\n", partition=0)  # the last one reads as a record too: refused
    clear = b"8\ta\n9\tb\n" + STATUS + b"10\tc\n" + STATUS.replace(b"10", b"11")
    parsed = parse_kcat_format(clear, r"%o\t%k\n", partition=0)
    assert [(r.offset, r.key) for r in parsed.records()] == [(8, b"a"), (9, b"b"), (10, b"c")]
    assert len(parsed.status_lines) == 2 and "records end" in parsed.caveats[-1]


def test_kcat_u_status_lines_in_json_output_are_skipped():
    line = b'{"topic":"t","partition":0,"offset":%d,"tstype":"create","ts":5,"broker":1,"key":"k","payload":"v"}\n'
    output = line % 9 + STATUS + line % 10
    parsed = parse_kcat_json(output, partition=0)
    assert [r.offset for r in parsed.records()] == [9, 10] and len(parsed.status_lines) == 1


def test_pseudo_terminal_line_ends_are_named_and_refused_for_formats_and_exact_for_json():
    with pytest.raises(DumpParseError, match=r"pseudo-terminal \(docker exec -t"):
        parse_kcat_format(b"0\tv\r\n1\tw\r\n", r"%o\t%s\n", partition=0)
    assert parse_kcat_format(b"0\tv\r\n", r"%o\t%s\r\n", partition=0).records()[0].value == b"v"
    with pytest.raises(DumpParseError, match=r"pseudo-terminal"):  # kcat wrote \r\n, the terminal \r\r\n
        parse_kcat_format(b"0\tv\r\r\n", r"%o\t%s\r\n", partition=0)
    status = b"% Reached end of topic t [0] at offset 1: exiting\r\n"  # kcat's stderr through the same terminal
    with pytest.raises(DumpParseError, match=r"pseudo-terminal"):
        parse_kcat_format(b"0 t\r\r\n" + status, r"%o %t\r\n", partition=0)
    line = b'{"topic":"t","partition":0,"offset":1,"tstype":"create","ts":5,"broker":1,"key":"k","payload":"v"}\r\n'
    assert parse_kcat_json(line).records()[0].value == b"v"


def test_empty_output_says_it_may_be_cut():
    for parsed in (parse_kcat_json(b""), parse_kcat_json(b"\n"), parse_kcat_format(b"", r"%o\t%s\n", partition=0)):
        assert parsed.messages == ()
        assert any("it may be cut" in caveat for caveat in parsed.caveats)
