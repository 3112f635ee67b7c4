"""``kcompact kcat FILE [--format F] [-Z]``: kcat output as records per partition and gap reports, or refused."""

from __future__ import annotations

import json

from kcompact_nb.cli import ExitCode
from tests.cli.conftest import kcompact

# kcat -Z -f '%p %o %T %K %S %k %s\n' 2>&1, as Debian's kcat 1.7.1 writes it (a status line inside a value)
Z_FORMAT = r"%p %o %T %K %S %k %s\n"
Z_OUTPUT = (
    b"0 0 1767225600000 3 9 bin win\r\nline\n"
    b"0 1 1767225600001 5 0 empty NULL\n"
    b"0 2 1767225600002 4 -1 tomb NULL\n"
    b"0 4 1767225600004 -1 5 NULL x% Reached end of topic aw [1] at offset 1\ny\nz!\n"
    b"1 0 1767225600000 2 2 k0 v0\n"
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
        "Caveat: status lines: 1 of kcat's own lines were found in the output and skipped; a key or value that "
        "contains such a line verbatim would lose it. To read such data exactly, keep kcat's stderr out of the "
        "file (2>/dev/null or 2>kcat.err instead of 2>&1, or kcat -q).",
        "kcat's own status lines (its stderr) in the output, skipped: 1",
        "  % Reached end of topic aw [1] at offset 1",
        "",
    ]
    assert lines[6:12] == [
        "Partition 0 (no %t): 4 records, offsets 0-4",
        "  OFFSET  TIMESTAMP                 KEY    VALUE",
        "  0       2026-01-01T00:00:00.000Z  bin    0x77696e0d0a6c696e65 (9 B)",
        "  1       2026-01-01T00:00:00.001Z  empty  (empty)",
        "  2       2026-01-01T00:00:00.002Z  tomb   null (tombstone)",
        "  4       2026-01-01T00:00:00.004Z  null   0x78790a7a21 (5 B)",
    ]
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
        "caveats": [],
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


def test_output_that_cannot_be_read_exactly_exits_2_with_the_fix(tmp_path):
    path = tmp_path / "z.out"
    path.write_bytes(Z_OUTPUT)
    without_z = kcompact("kcat", path, "-f", Z_FORMAT)
    assert without_z.returncode == ExitCode.INVALID and without_z.stdout == ""
    assert without_z.stderr.startswith(f"kcompact kcat: {path}: output does not match the format")
    assert "the output was made with -Z; read it with -Z (print_nulls=True)" in without_z.stderr
    seed = tmp_path / "seed.out"
    seed.write_bytes(b"0\t10\n1\t11\n0\t12\n")
    several = kcompact("kcat", seed, "-f", r"%o\t%T\n")
    assert several.returncode == ExitCode.INVALID
    assert "add %p (and %t) to the -f format, or consume one partition with kcat -p N (at line 3)" in several.stderr
    bad_format = kcompact("kcat", seed, "-f", r"%o%T\n")
    assert bad_format.returncode == ExitCode.INVALID and "%o runs into what follows it" in bad_format.stderr
    missing = kcompact("kcat", tmp_path / "nope.out")
    assert missing.returncode == ExitCode.INVALID and "kcat output file" in missing.stderr
