"""Human units: durations, ISO times and byte sizes shown to people, read back exactly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kcompact_nb.core import UnitError, format_bytes, format_duration_ms, format_time_ms, parse_bytes, parse_duration_ms
from kcompact_nb.core.model import parse_time_ms

LONG_MAX = 2**63 - 1


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "0 ms"),
        (250, "250 ms"),
        (1_000, "1 s"),
        (1_500, "1 s 500 ms"),
        (121_500, "2 min 1 s 500 ms"),
        (5_400_000, "1 h 30 min"),
        (86_400_000, "1 d"),
        (604_800_000, "7 d"),  # delete.retention.ms's default is 1 day; 7 days is log.retention's
        (604_800_001, "7 d 1 ms"),
        (133_200_001, "1 d 13 h 1 ms"),
        (90_061_001, "1 d 1 h 1 min 1 s 1 ms"),
        (-1, "-1 ms"),
        (LONG_MAX, "never"),  # max.compaction.lag.ms's default
    ],
)
def test_durations_read_as_people_write_them_and_parse_back(ms: int, text: str) -> None:
    assert format_duration_ms(ms) == text
    assert parse_duration_ms(text) == ms


def test_max_units_rounds_down_to_the_largest_units() -> None:
    assert format_duration_ms(133_200_001, max_units=2) == "1 d 13 h"
    assert format_duration_ms(90_061_001, max_units=1) == "1 d"
    assert format_duration_ms(121_500, max_units=2) == "2 min 1 s"
    assert format_duration_ms(LONG_MAX, max_units=1) == "never"


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("7d", 604_800_000),
        ("1h", 3_600_000),
        ("1.5h", 5_400_000),
        ("90 min", 5_400_000),
        ("1h30m", 5_400_000),
        ("2 days", 172_800_000),
        ("1w", 604_800_000),
        ("1 S", 1_000),
        ("604800000", 604_800_000),
        ("604_800_000", 604_800_000),
        ("  86,400,000 ", 86_400_000),
        ("Never", LONG_MAX),
        (3_600_000, 3_600_000),
    ],
)
def test_duration_input_in_any_common_form(text: str | int, ms: int) -> None:
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("7x", "cannot read '7x' as a duration; use a number with a unit (ms, s, m, h, d, w)"),
        ("d", "cannot read 'd' as a duration"),
        ("1h and 2m", "cannot read '1h and 2m' as a duration"),
        ("", "cannot read '' as a duration"),
        ("0.0005s", "cannot read '0.0005s' as a whole number of milliseconds; use ms"),
    ],
)
def test_bad_durations_say_what_is_accepted(text: str, message: str) -> None:
    with pytest.raises(UnitError) as caught:
        parse_duration_ms(text)
    assert str(caught.value).startswith(message)


def test_errors_name_the_field() -> None:
    with pytest.raises(UnitError, match=r"^delete\.retention\.ms: cannot read '1 fortnight' as a duration"):
        parse_duration_ms("1 fortnight", field="delete.retention.ms")
    with pytest.raises(UnitError, match=r"^segment\.bytes: cannot read '1 MiBs' as a size"):
        parse_bytes("1 MiBs", field="segment.bytes")
    with pytest.raises(UnitError, match=r"^segment\.bytes: expected text or an integer, got float 1.5"):
        parse_bytes(1.5, field="segment.bytes")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("size", "exact", "rounded"),
    [
        (0, "0 B", "0 B"),
        (100, "100 B", "100 B"),
        (1_024, "1 KiB", "1 KiB"),
        (1_536, "1.5 KiB", "1.5 KiB"),
        (524_288, "512 KiB", "512 KiB"),
        (1_048_576, "1 MiB", "1 MiB"),
        (1_048_577, "1,048,577 B", "1 MiB"),
        (100_000, "100,000 B", "97.66 KiB"),  # 97.65625 KiB has no three-decimal form: exact stays in bytes
        (134_217_728, "128 MiB", "128 MiB"),  # log.cleaner.dedupe.buffer.size's default
        (1_073_741_824, "1 GiB", "1 GiB"),  # segment.bytes's default
    ],
)
def test_sizes_in_binary_units(size: int, exact: str, rounded: str) -> None:
    assert format_bytes(size) == exact
    assert format_bytes(size, exact=False) == rounded
    assert parse_bytes(exact) == size


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("512KiB", 524_288),
        ("1 MiB", 1_048_576),
        ("1.5 gib", 1_610_612_736),
        ("100 B", 100),
        ("1048576", 1_048_576),
        ("1 MB", 1_000_000),  # SI: the B/MB difference is the point of writing MiB
        ("2 kB", 2_000),
        (4_096, 4_096),
    ],
)
def test_size_input(text: str | int, size: int) -> None:
    assert parse_bytes(text) == size


def test_fractional_bytes_are_refused() -> None:
    with pytest.raises(UnitError, match=r"cannot read '1.0001 KiB' as a whole number of bytes; use a smaller unit"):
        parse_bytes("1.0001 KiB")


@pytest.mark.parametrize(
    ("epoch_ms", "text"),
    [
        (0, "1970-01-01T00:00:00Z"),
        (1_700_000_000_000, "2023-11-14T22:13:20Z"),
        (1_700_000_000_123, "2023-11-14T22:13:20.123Z"),
        (-1, "no timestamp"),  # RecordBatch.NO_TIMESTAMP
        (LONG_MAX, "never"),
    ],
)
def test_times_are_iso_8601_utc(epoch_ms: int, text: str) -> None:
    assert format_time_ms(epoch_ms) == text
    if epoch_ms >= 0:
        assert parse_time_ms(text) == epoch_ms


def test_time_input_forms() -> None:
    assert parse_time_ms("2023-11-14T22:13:20") == 1_700_000_000_000  # no zone: UTC
    assert parse_time_ms("2023-11-14T23:13:20+01:00") == 1_700_000_000_000
    assert parse_time_ms("1700000000000") == 1_700_000_000_000
    with pytest.raises(UnitError, match=r"^now: cannot read 'yesterday' as a time; use ISO 8601"):
        parse_time_ms("yesterday", field="now")
    with pytest.raises(UnitError, match="outside the years 1-9999"):
        format_time_ms(LONG_MAX - 1)


@given(st.integers(min_value=-(2**62), max_value=2**63 - 1))
def test_every_duration_round_trips(ms: int) -> None:
    assert parse_duration_ms(format_duration_ms(ms)) == ms


@given(st.integers(min_value=0, max_value=2**50))
def test_every_size_round_trips(size: int) -> None:
    assert parse_bytes(format_bytes(size)) == size
