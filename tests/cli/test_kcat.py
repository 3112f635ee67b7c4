"""``kcompact kcat FILE [--format F] [-Z]``: kcat output as records per partition and gap reports, or refused."""

from __future__ import annotations

import json

import pytest

from kcompact_nb.cli import ExitCode
from kcompact_nb.io.text._kcat_json import HEADER_NAME_NUL
from tests.cli.conftest import kcompact
from tests.io.kcat_stderr import mixed_in

# kcat -Z -f '%p %o %T %K %S %k %s\n' 2>&1, as Debian's kcat 1.7.1 writes it: its status line where stdout's
# first 4 KiB block ends, inside a value
Z_FORMAT = r"%p %o %T %K %S %k %s\n"
LONG_VALUE = b"x" * 4000 + b"y\nz!"
Z_OUTPUT = mixed_in(
    b"0 0 1767225600000 3 9 bin win\r\nline\n"
    b"0 1 1767225600001 5 0 empty NULL\n"
    b"0 2 1767225600002 4 -1 tomb NULL\n"
    b"0 4 1767225600004 -1 %d NULL %s\n"
    b"1 0 1767225600000 2 2 k0 v0\n" % (len(LONG_VALUE), LONG_VALUE),
    b"% Reached end of topic aw [1] at offset 1\n",
    block=1,
)
JSON_OUTPUT = (
    b'{"topic":"aw","partition":0,"offset":3,"tstype":"create","ts":1767225600000,"broker":1,'
    b'"headers":["h","v","n",null],"key":"k","payload":"\\u0000\xff"}\n'
    b'{"topic":"aw","partition":0,"offset":5,"tstype":"create","ts":1767225601000,"broker":1,"key":"k","payload":null}\n'
)


def test_format_output_as_tables_with_gap_reports(tmp_path):
    path = tmp_path / "z.out"
    path.write_bytes(Z_OUTPUT)
    done = kcompact("kcat", path, "--format", Z_FORMAT, "-Z")
    assert done.returncode == ExitCode.OK, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:6] == [
        f"kcat output {path} (-f '{Z_FORMAT}' -Z): 5 records, 2 partitions",
        "Not in this output: headers, timestamp type, topic",
        "Caveat: status lines: 1 of kcat's own lines stood where its stdout blocks or records end and were skipped, "
        "the one reading of the output that fits its format; a key, value or header holding such a line at exactly "
        "that place together with another one would lose it. To read such data exactly, keep kcat's stderr out of the "
        "file (2>/dev/null or 2>kcat.err instead of 2>&1, or kcat -q).",
        "kcat's own status lines (its stderr) in the output, skipped: 1",
        "  % Reached end of topic aw [1] at offset 1",
        "",
    ]
    assert lines[6:11] == [
        "Partition 0 (no %t): 4 records, offsets 0-4",
        "  OFFSET  TIMESTAMP                 KEY    VALUE",
        "  0       2026-01-01T00:00:00.000Z  bin    0x77696e0d0a6c696e65 (9 B)",
        "  1       2026-01-01T00:00:00.001Z  empty  (empty)",
        "  2       2026-01-01T00:00:00.002Z  tomb   null (tombstone)",
    ]
    long_row = lines[11]
    assert long_row.startswith("  4       2026-01-01T00:00:00.004Z  null   0x7878") and long_row.endswith(
        f"… ({len(LONG_VALUE)} B)"
    )
    assert lines[12:14] == [
        "  When did compaction last run (from the offsets this consumer read):",
        "    last gap offset:  4 (1 offset missing before it: a removed record, or a transaction marker, which "
        "consumers never see)",
    ]
    assert "Partition 1 (no %t): 1 record, offset 0" in lines


def test_json_output_is_one_document(tmp_path):
    path = tmp_path / "j.out"
    path.write_bytes(JSON_OUTPUT)
    done = kcompact("kcat", path, "--json")
    assert done.returncode == ExitCode.OK, done.stderr
    document = json.loads(done.stdout)
    assert {k: document[k] for k in ("kcat", "missing", "caveats", "status_lines")} == {
        "kcat": "-J",
        "missing": [],
        "caveats": [HEADER_NAME_NUL],
        "status_lines": [],
    }
    (partition,) = document["partitions"]
    assert partition["records"] == [
        {
            "offset": 3,
            "timestamp": 1767225600000,
            "key": "k",
            "value": {"base64": "AP8="},
            "headers": [["h", "v"], ["n", None]],
        },
        {"offset": 5, "timestamp": 1767225601000, "key": "k", "value": None, "headers": []},
    ]
    gap = partition["gap"]
    assert (gap["last_gap_offset"], gap["missing_offsets"], gap["last_gap_timestamp_ms"], gap["markers_known"]) == (
        5,
        1,
        1767225601000,
        False,
    )
    assert gap["report"][2].startswith("last gap time:  2026-01-01T00:00:01.000Z (a lower bound")


def test_without_p_the_partition_is_unknown_and_no_gap_is_read_unless_stated(tmp_path):
    seed = tmp_path / "seed.out"
    seed.write_bytes(b"0\t-1\n3\t-1\n")  # no %p: maybe two partitions; %T of records without a timestamp
    unknown = kcompact("kcat", seed, "-f", r"%o\t%T\n", "--json")
    assert unknown.returncode == ExitCode.OK, unknown.stderr
    (partition,) = json.loads(unknown.stdout)["partitions"]
    assert (partition["partition"], partition["gap"], len(partition["records"])) == (None, None, 2)
    table = kcompact("kcat", seed, "-f", r"%o\t%T\n").stdout
    assert "Partition unknown (no %p, no --partition): 2 records, offsets 0-3" in table
    assert "last gap offset" not in table and "not read: the partition is unknown" in table
    stated = kcompact("kcat", seed, "-f", r"%o\t%T\n", "-p", "1").stdout.splitlines()
    assert "Partition 1 (no %t): 2 records, offsets 0-3" in stated
    assert "    last gap time:  unknown" in stated
    assert any(line.startswith("    last gap offset:  3 (2 offsets missing") for line in stated)


def test_output_that_cannot_be_read_exactly_exits_2_with_the_fix(tmp_path):
    path = tmp_path / "z.out"
    path.write_bytes(Z_OUTPUT)
    without_z = kcompact("kcat", path, "-f", Z_FORMAT)
    assert without_z.returncode == ExitCode.INVALID and without_z.stdout == ""
    assert without_z.stderr.startswith(f"kcompact kcat: {path}: output does not match the format")
    assert "the output was made with -Z; read it with -Z (print_nulls=True)" in without_z.stderr
    seed = tmp_path / "seed.out"
    seed.write_bytes(b"0\t10\n1\t11\n0\t12\n")
    stated = kcompact("kcat", seed, "-f", r"%o\t%T\n", "--partition", "0")
    assert stated.returncode == ExitCode.INVALID
    assert "offsets of one partition go back" in stated.stderr and "(at line 3)" in stated.stderr
    not_kcat = tmp_path / "records.jsonl"
    not_kcat.write_text('{"key":"az0=","value":"dg==","topic":"t","partition":0,"offset":0}\n')
    refused = kcompact("kcat", not_kcat)
    assert refused.returncode == ExitCode.INVALID and "not a kcat -J object: no 'tstype'" in refused.stderr
    bad_format = kcompact("kcat", seed, "-f", r"%o%T\n")
    assert bad_format.returncode == ExitCode.INVALID and "%o runs into what follows it" in bad_format.stderr
    missing = kcompact("kcat", tmp_path / "nope.out")
    assert missing.returncode == ExitCode.INVALID and "kcat output file" in missing.stderr


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--partition", "-1"], "argument -p/--partition: -1 is below 0; partitions are numbered from 0"),
        (["--max-value-chars", "0"], "argument --max-value-chars: 0 is below 1; give 1 or more"),
    ],
)
def test_kcat_options_are_checked_as_every_command_checks_them(option, message, tmp_path):
    file = tmp_path / "out.txt"
    file.write_text("")
    done = kcompact("kcat", file, *option)
    assert done.returncode == 2 and message in done.stderr
