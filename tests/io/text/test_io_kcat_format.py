"""kcat ``-f`` output read as kcat 1.7 writes it (format.c): lengths, NULL, line endings, separators, partitions.

The outputs below are byte-exact copies of what Debian's kcat 1.7.1 printed for the same records
(tests/broker/test_kcat_real.py runs the real kcat against a real broker for the same cases).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kcompact_nb.core import Record
from kcompact_nb.io import DumpParseError, compile_kcat_format, parse_kcat_format, read_kcat
from tests.io.kcat_stderr import mixed_in

STATUS = b"% Reached end of topic aw [0] at offset 9: exiting\n"


def records(output: bytes, fmt: str, **kw: bool) -> list[tuple[int | None, int, bytes | None, bytes | None]]:
    parsed = parse_kcat_format(output, fmt, **kw)
    return [(m.partition, m.record.offset, m.record.key, m.record.value) for m in parsed.messages]


def test_a_value_is_read_by_its_length_whatever_it_contains():
    # The case: with %S:%s kcat printed "5:a|b|c|"; the value holds the separator.
    output = b"0|5:a|b|c|h=v\n1|9:win\r\nline|\n2|7:lone\rcr|\n"
    parsed = parse_kcat_format(output, r"%o|%S:%s|%h\n")
    assert parsed.records() == [
        Record(0, -1, None, b"a|b|c", (("h", b"v"),)),
        Record(1, -1, None, b"win\r\nline"),
        Record(2, -1, None, b"lone\rcr"),
    ]
    assert parsed.missing == {"key", "timestamp", "timestamp_type", "topic", "partition"}


def test_binary_key_and_value_with_every_byte():
    value = bytes(range(256))
    output = b"aw|0|0|1767225600000|3:bin|256:" + value + b"|h=v,e=,n=NULL\n"
    parsed = parse_kcat_format(output, r"%t|%p|%o|%T|%K:%k|%S:%s|%h\n")
    assert parsed.records() == [Record(0, 1767225600000, b"bin", value, (("h", b"v"), ("e", b""), ("n", None)))]
    assert (parsed.messages[0].topic, parsed.messages[0].partition) == ("aw", 0)


def test_the_length_formatter_R_is_four_bytes_big_endian():
    output = b"0 \x00\x00\x00\x03a\nb\n1 \xff\xff\xff\xff\n"
    assert records(output, r"%o %R%s\n") == [(None, 0, None, b"a\nb"), (None, 1, None, None)]


def test_lengths_tell_empty_from_null_with_and_without_Z():
    plain = b"4 5 0 empty|\n5 4 -1 null|\n6 0 8 |emptykey\n7 -1 7 |nullkey\n"
    expected = [
        (None, 4, b"empty", b""),
        (None, 5, b"null", None),
        (None, 6, b"", b"emptykey"),
        (None, 7, None, b"nullkey"),
    ]
    assert records(plain, r"%o %K %S %k|%s\n") == expected
    # -Z: kcat prints NULL for an empty key or value too (format.c checks the length, not the pointer)
    with_z = b"4 5 0 empty|NULL\n5 4 -1 null|NULL\n6 0 8 NULL|emptykey\n7 -1 7 NULL|nullkey\n"
    assert records(with_z, r"%o %K %S %k|%s\n", print_nulls=True) == expected


def test_lengths_printed_after_their_field_resolve_empty_and_null():
    assert records(b"0 |0\n1 |-1\n2 ab|2\n", r"%o %k|%K\n") == [
        (None, 0, b"", None),
        (None, 1, None, None),
        (None, 2, b"ab", None),
    ]
    with pytest.raises(DumpParseError, match="has 2 bytes where its length says 3"):
        parse_kcat_format(b"0 ab|3\n", r"%o %k|%K\n")


def test_NULL_where_Z_was_not_given_or_missing_where_it_was_is_refused_with_the_fix():
    with pytest.raises(DumpParseError, match=r"made with -Z; read it with -Z \(print_nulls=True\)") as caught:
        parse_kcat_format(b"4 0 NULL\n", r"%o %S %s\n")
    assert "line 1" in str(caught.value)
    with pytest.raises(DumpParseError, match="was -Z not given"):
        parse_kcat_format(b"4 0 \n", r"%o %S %s\n", print_nulls=True)
    with pytest.raises(DumpParseError, match="was -Z not given"):
        parse_kcat_format(b"4 \n", r"%o %s\n", print_nulls=True)


def test_without_lengths_empty_and_null_read_as_null_and_the_parse_says_so():
    parsed = parse_kcat_format(b"0 k|\n1 |v\n", r"%o %k|%s\n")
    assert [(r.key, r.value) for r in parsed.records()] == [(b"k", None), (None, b"v")]
    assert [c.split(":")[0] for c in parsed.caveats] == ["keys", "values", "partition"]
    assert "an empty and a null value both print nothing, and are read as null" in parsed.caveats[1]
    with_z = parse_kcat_format(b"0 NULL|NULL\n", r"%o %k|%s\n", print_nulls=True)
    assert with_z.records() == [Record(0, -1, None, None)]
    assert 'both print NULL under -Z, like the key "NULL"' in with_z.caveats[0]
    assert parse_kcat_format(b"0 1 k\n", r"%o %K %k\n", partition=0).caveats == ()


def test_a_record_that_splits_two_ways_is_refused_with_its_line():
    fmt = r"%p %o %k %s\n"
    assert records(b"0 1 ab c\n", fmt) == [(0, 1, b"ab", b"c")]
    with pytest.raises(DumpParseError, match="can be read in more than one way") as caught:
        parse_kcat_format(b"0 1 ab c\n0 3 a b c\n", fmt)
    assert "b'0 3 a b c\\n'" in str(caught.value) and "line 2" in str(caught.value)
    assert "put %K before %k and %S before %s" in str(caught.value)
    # a space in the last field is not ambiguous when the key is read by its length
    assert records(b"0 3 3 a b c d\n", r"%p %o %K %k %s\n") == [(0, 3, b"a b", b"c d")]


def test_a_value_holding_the_record_end_without_its_length_is_refused():
    with pytest.raises(DumpParseError, match="line 2") as caught:
        parse_kcat_format(b"0\twin\r\nline\n1\tx\n", r"%o\t%s\n")
    assert "if the record before holds b'\\n'" in str(caught.value)
    # a lone CR is no separator: read exactly
    assert records(b"0\tlone\rcr\n", r"%o\t%s\n") == [(None, 0, None, b"lone\rcr")]


def test_header_nulls_and_a_comma_inside_a_header_value():
    parsed = parse_kcat_format(b"0|h=v,e=,n=NULL\n1|\n", r"%o|%h\n")
    assert [r.headers for r in parsed.records()] == [(("h", b"v"), ("e", b""), ("n", None)), ()]
    assert "Use -J to read header values exactly" in parsed.caveats[0]
    assert "only up to its first NUL byte" in parsed.caveats[0]
    with pytest.raises(DumpParseError, match="hold a ',' inside a header name or value"):
        parse_kcat_format(b"0|sep=a,b\n", r"%o|%h\n")


def test_without_p_the_partition_is_unknown_unless_stated():
    output = b"0\t10\n1\t11\n0\t12\n"  # offsets go back: several partitions, which the output does not name
    parsed = parse_kcat_format(output, r"%o\t%T\n")
    assert parsed.partitions() == [(None, None)] and [r.offset for r in parsed.records()] == [0, 1, 0]
    assert "partition" in parsed.missing and any("the partition is unknown" in c for c in parsed.caveats)
    with pytest.raises(DumpParseError, match="the partition is unknown"):
        parsed.to_partition_log()
    with pytest.raises(DumpParseError, match="offsets of one partition go back"):
        parse_kcat_format(output, r"%o\t%T\n", partition=3)  # stated: kcat -p 3 printed one partition
    stated = parse_kcat_format(b"0\t10\n1\t11\n", r"%o\t%T\n", partition=3)
    assert stated.partitions() == [(None, 3)] and "partition" not in stated.missing
    assert not any("partition" in c for c in stated.caveats)
    assert stated.to_partition_log().name == "kcat-3"
    with pytest.raises(DumpParseError, match=r"a record of partition 1 in output stated to hold partition 0 only"):
        parse_kcat_format(b"0 0\n1 0\n", r"%p %o\n", partition=0)


def test_offsets_going_back_in_a_named_partition_are_refused_with_advice():
    with pytest.raises(DumpParseError, match="several topics"):
        parse_kcat_format(b"0 0\n0 0\n", r"%p %o\n")
    with pytest.raises(DumpParseError, match="several kcat runs"):
        parse_kcat_format(b"t 0 5\nt 0 5\n", r"%t %p %o\n")
    parsed = parse_kcat_format(b"0 0\t10\n1 0\t11\n0 1\t12\n", r"%p %o\t%T\n")
    assert parsed.partitions() == [(None, 0), (None, 1)]
    assert [r.offset for r in parsed.records(partition=0)] == [0, 1]
    with pytest.raises(DumpParseError, match="2 partitions: choose one"):
        parsed.to_partition_log()


def test_status_lines_where_kcat_stdout_blocks_end_even_inside_a_value():
    value = b"x" * 5000
    stdout = b"0 5000 " + value + b"\n1 0 \n"
    error = b"% ERROR: Local: Broker transport failure\n"
    parsed = parse_kcat_format(mixed_in(stdout, STATUS, error, block=1), r"%o %S %s\n")
    assert parsed.records() == [Record(0, -1, None, value), Record(1, -1, None, b"")]
    assert parsed.status_lines == (STATUS.decode().rstrip("\n"), error.decode().rstrip("\n"))
    assert parsed.caveats[-1].startswith(
        "status lines: 2 of kcat's own lines stood where its stdout blocks or records end"
    )
    assert parse_kcat_format(mixed_in(stdout, STATUS), r"%o %S %s\n").records() == parsed.records()
    assert parse_kcat_format(b"0 1 x\n", r"%o %S %s\n", partition=0).caveats == ()


def test_status_like_data_is_read_as_data_when_stderr_was_kept_out():
    # the case: -f '%p\t%o\t%s\n' 2>err with a value that reads like a status line
    output = b"0\t0\tbefore\n0\t1\t" + STATUS + b"0\t2\tafter\n"
    parsed = parse_kcat_format(output, r"%p\t%o\t%s\n")
    assert [r.value for r in parsed.records()] == [b"before", STATUS.rstrip(b"\n"), b"after"]
    assert parsed.status_lines == ()
    sized = b"0 0 " + str(len(STATUS) + 4).encode() + b" ab" + STATUS + b"cd\n"
    assert parse_kcat_format(sized, r"%p %o %S %s\n").records()[0].value == b"ab" + STATUS + b"cd"


def test_status_like_data_where_a_block_ends_is_refused_when_it_reads_both_ways():
    # a value starting with status text exactly at 4 KiB, format ending with \x1e: data or stderr, both fit
    head = b"0\x01"
    value = b"v" * (4096 - len(head)) + STATUS + b"tail"
    output = head + value + b"\x1e"
    with pytest.raises(DumpParseError, match="can be read in more than one way.*2>/dev/null"):
        parse_kcat_format(output, r"%o\x01%s\x1e")
    # with its length printed, only the reading as data fits
    sized = b"0\x01" + str(len(value)).encode() + b"\x01"
    sized += value[: 4096 - len(sized)] + STATUS + value[4096 - len(sized) + len(STATUS) :] + b"\x1e"
    (record,) = parse_kcat_format(sized, r"%o\x01%S\x01%s\x1e").records()
    assert record.value == sized[len(b"0\x01") + len(str(len(value))) + 1 : -1]


def test_an_unknown_percent_line_names_the_stderr_fix():
    with pytest.raises(DumpParseError, match="a kcat status line.*2>/dev/null") as caught:
        parse_kcat_format(b"0 1\n% Something new\n", r"%o %T\n")
    assert "line 2" in str(caught.value)


def test_repeated_formatters_must_agree():
    assert records(b"5 5\n", r"%o %o\n") == [(None, 5, None, None)]
    with pytest.raises(DumpParseError, match="printed twice with different values"):
        parse_kcat_format(b"5 6\n", r"%o %o\n")


@pytest.mark.parametrize(
    ("fmt", "literal"),
    [
        (r"%o\t%T\n", b"\t\n"),
        (r"%o\x41\101\0101\x\q%%\n", b"AeA\\q%\n"),  # C strtoul: base 16 after \x, base 0 otherwise
        ("%o\t\\\n", b"\t\n"),  # real tab and newline characters; a backslash before a character is dropped
        (r"%o|\%%\n", b"|\\%\n"),  # a backslash that ends the text before a formatter is kept
    ],
)
def test_escapes_in_format_text_as_kcat_converts_them(fmt, literal):
    tokens = compile_kcat_format(fmt).tokens
    assert b"".join(t.literal for t in tokens) == literal


@pytest.mark.parametrize(
    ("fmt", "message"),
    [
        (r"%T\n", "has no %o"),
        (r"%x\n", "unsupported kcat formatter %x"),
        ("%o\n%", r"unsupported kcat formatter %\(end\)"),
        (r"%o%T\n", "%o runs into what follows it"),
        (r"%o1%T\n", "%o runs into what follows it"),
        (r"%o", "%o runs into what follows it"),
        (r"%o %k%s\n", "nothing marks where %k ends; put %K before %k"),
        (r"%o %s", "nothing marks where %s ends"),
        (r"%o %h|%S %s", "%h has no length, so the format must end with a separator"),
    ],
)
def test_formats_whose_output_cannot_be_read_back_are_refused(fmt, message):
    with pytest.raises(DumpParseError, match=message):
        compile_kcat_format(fmt)


def test_formats_read_exactly_without_a_final_separator():
    assert records(b"0 3 abc1 0 ", r"%o %S %s") == [(None, 0, None, b"abc"), (None, 1, None, b"")]


def test_read_kcat_reads_the_bytes_kcat_wrote(tmp_path):
    path = tmp_path / "out.txt"
    path.write_bytes(b"0 9 win\r\nline\n1 7 lone\rcr\n2 2 \xff\xfe\n")
    assert [r.value for r in read_kcat(path, r"%o %S %s\n").records()] == [b"win\r\nline", b"lone\rcr", b"\xff\xfe"]
    with pytest.raises(DumpParseError, match=str(path)):
        read_kcat(path, r"%o %s\n")


def test_text_given_with_surrogate_escapes_is_the_same_as_bytes():
    data = b"0 2 \xff\xfe\n"
    assert parse_kcat_format(data.decode("utf-8", "surrogateescape"), r"%o %S %s\n").records() == (
        parse_kcat_format(data, r"%o %S %s\n").records()
    )


def test_the_readme_samples_of_the_real_kcat_read_the_same_in_both_forms():
    samples = Path(__file__).resolve().parents[3] / "data" / "samples" / "kcat"
    as_json = read_kcat(samples / "orders.json")
    as_text = read_kcat(samples / "orders.txt", r"%p %o %T %K %S %k %s\n")
    assert as_text.partitions() == [(None, 0), (None, 1)] and as_json.partitions() == [("orders", 0), ("orders", 1)]
    for partition in (0, 1):
        from_json = [r._replace(headers=()) for r in as_json.records(partition=partition)]
        assert as_text.records(partition=partition) == from_json
    assert [r.offset for r in as_json.records(partition=0)] == [0, 1, 2, 3, 4, 6]  # 5: the commit marker
    assert as_json.records(partition=0)[1].headers == (("source", b"app"), ("trace", None))
