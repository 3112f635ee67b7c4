"""table()'s result: exact values for code, human units for people, every column whole."""

from __future__ import annotations

import pandas

from kcompact_nb.core import LONG_MAX
from kcompact_nb.spark import PeopleTable


def dirtiness_rows() -> PeopleTable:
    return PeopleTable(
        {
            "partition": [0, 1],
            "clean_bytes": [672_197, 0],
            "cleanable_ratio": [0.582679, 1.0],
            "eligible": [True, False],
            "timestamp": pandas.to_datetime(["2026-01-01 00:00:00.040", "2026-01-01 00:01:00.000"]),
            "delete_horizon_ms": [604_800_001, None],
            "last_modified_ms": [1_767_225_600_000, 1_767_225_600_123],
            "compaction_delay_ms": [5_400_000, LONG_MAX],
        }
    )


def test_people_read_sizes_times_durations_and_ratios():
    assert dirtiness_rows().for_people().to_dict("list") == {
        "partition": [0, 1],
        "clean_bytes": ["656.44 KiB", "0 B"],
        "cleanable_ratio": ["0.583", "1.000"],
        "eligible": [True, False],
        "timestamp": ["2026-01-01T00:00:00.040Z", "2026-01-01T00:01:00Z"],
        "delete_horizon_ms": ["t = 7 d 1 ms", ""],
        "last_modified_ms": ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00.123Z"],
        "compaction_delay_ms": ["1 h 30 min", "never"],
    }


def test_code_computes_on_the_exact_values():
    rows = dirtiness_rows()
    assert rows["clean_bytes"].sum() == 672_197
    eligible = rows[rows["eligible"]]
    assert type(eligible) is pandas.DataFrame and eligible["compaction_delay_ms"].tolist() == [5_400_000]


def test_the_display_has_no_index_and_headers_that_wrap():
    rows = dirtiness_rows()
    assert repr(rows).splitlines()[0].split() == list(rows.columns)
    assert "656.44 KiB" in repr(rows)
    page = rows._repr_html_()
    assert "<th>clean_\u200bbytes</th>" in page and "<th>compaction_\u200bdelay_\u200bms</th>" in page
    assert (
        "<th></th>" not in page and "<td>656.44\u00a0KiB</td>" in page and "<td>1\u00a0h\u00a030\u00a0min</td>" in page
    )


def test_a_null_key_or_value_reads_null_as_kafkas_tools_print_it():
    rows = PeopleTable({"offset": [29, 30], "key": ["k1", "k2"], "value": ["v9", None]})
    assert rows.for_people()["value"].tolist() == ["v9", "null"]
    assert repr(rows).splitlines()[2].split() == ["30", "k2", "null"]
    assert rows["value"].tolist() == ["v9", None]  # code still sees the null
