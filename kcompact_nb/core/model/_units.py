"""Human units for people, exact units for machines: durations, epoch times and byte sizes.

Kafka's configs and the package's result documents keep milliseconds and bytes; figures, titles,
``explain`` text and config panels show and accept these forms instead::

    duration   604800001 ms        <-> "7 d 1 ms"     Long.MAX_VALUE <-> "never"
               5400000 ms          <-> "1 h 30 min"   250 ms         <-> "250 ms"
    time       1700000000000 ms    <-> "2023-11-14T22:13:20Z"  (ISO 8601, UTC)
    size       524288 bytes        <-> "512 KiB"      1536 bytes     <-> "1.5 KiB"

Every ``format_*`` function is exact by default, so ``parse_*(format_*(x)) == x``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation

from kcompact_nb.core.model._config_keys import LONG_MAX
from kcompact_nb.core.model._errors import UnitError
from kcompact_nb.record import NO_TIMESTAMP

_DURATION_UNITS: tuple[tuple[str, int], ...] = (
    ("d", 86_400_000),
    ("h", 3_600_000),
    ("min", 60_000),
    ("s", 1_000),
    ("ms", 1),
)
_DURATION_WORDS: dict[str, int] = {
    "ms": 1,
    "s": 1_000,
    "sec": 1_000,
    "m": 60_000,
    "min": 60_000,
    "h": 3_600_000,
    "hr": 3_600_000,
    "d": 86_400_000,
    "day": 86_400_000,
    "days": 86_400_000,
    "w": 604_800_000,
}
_BINARY_UNITS: tuple[tuple[str, int], ...] = (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))
_SIZE_WORDS: dict[str, int] = {
    "b": 1,
    "kib": 1 << 10,
    "mib": 1 << 20,
    "gib": 1 << 30,
    "tib": 1 << 40,
    "kb": 1_000,
    "mb": 1_000_000,
    "gb": 1_000_000_000,
}
_NUMBER_UNIT = re.compile(r"(\d+(?:\.\d+)?)\s*([a-z]+)")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def format_duration_ms(ms: int, *, max_units: int | None = None) -> str:
    """Milliseconds as people read them, every unit spelled out: ``"7 d 1 ms"``, ``"1 h 30 min"``, ``"250 ms"``.

    Parameters
    ----------
    ms : a duration in milliseconds; Java's ``Long.MAX_VALUE`` (Kafka's "no limit", e.g. the default
        ``max.compaction.lag.ms``) reads ``"never"``; a negative value keeps its sign.
    max_units : show at most this many of the largest non-zero units (rounded down), e.g. ``2`` turns
        ``"1 d 13 h 1 ms"`` into ``"1 d 13 h"``; ``None`` (the default) is exact.
    """
    if ms == LONG_MAX:
        return "never"
    if ms < 0:
        return "-" + format_duration_ms(-ms, max_units=max_units)
    parts: list[str] = []
    rest = ms
    for name, size in _DURATION_UNITS:
        whole, rest = divmod(rest, size)
        if whole:
            parts.append(f"{whole} {name}")
    return " ".join(parts[:max_units]) or "0 ms"


def format_time_ms(epoch_ms: int) -> str:
    """Epoch milliseconds as ISO 8601 in UTC: ``"2023-11-14T22:13:20Z"`` (``".123"`` only when non-zero).

    Kafka's ``NO_TIMESTAMP`` (-1) reads ``"no timestamp"``; ``Long.MAX_VALUE`` (a time never reached)
    reads ``"never"``. Raises `UnitError` for other values outside years 1-9999.
    """
    if epoch_ms == NO_TIMESTAMP:
        return "no timestamp"
    if epoch_ms == LONG_MAX:
        return "never"
    try:
        moment = _EPOCH + timedelta(milliseconds=epoch_ms)
    except OverflowError:
        raise UnitError(f"{epoch_ms} ms since the epoch is outside the years 1-9999 and has no ISO 8601 form") from None
    spec = "milliseconds" if epoch_ms % 1000 else "seconds"
    return moment.isoformat(timespec=spec).replace("+00:00", "Z")


WALL_CLOCK_FROM_MS = 1_000_000_000_000
"""2001-09-09T01:46:40Z: earlier times are read as a simulated clock that started at 0."""


def format_instant_ms(ms: int) -> str:
    """A broker time for people: ISO 8601 for wall-clock times, ``"t = 7 d 1 ms"`` on a simulated clock.

    Scenarios and simulations usually start their clock at 0, where ISO 8601 would read as 1970;
    times before :data:`WALL_CLOCK_FROM_MS` are shown as the duration since that zero.
    """
    if ms in (LONG_MAX, NO_TIMESTAMP) or ms >= WALL_CLOCK_FROM_MS:
        return format_time_ms(ms)
    return f"t = {format_duration_ms(ms)}"


def format_bytes(size_bytes: int, *, exact: bool = True) -> str:
    """A byte count in binary units: ``"512 KiB"``, ``"1.5 MiB"``, ``"100 B"``.

    Parameters
    ----------
    size_bytes : a size in bytes.
    exact : when true (the default) the largest unit that shows the value exactly with at most three
        decimals, down to ``"1,048,577 B"``; when false the largest unit with two decimals at most
        (``"1 MiB"`` for 1,048,577 bytes).
    """
    sign = "-" if size_bytes < 0 else ""
    magnitude = abs(size_bytes)
    for name, size in _BINARY_UNITS:
        if magnitude < size:
            continue
        value = Decimal(magnitude) / Decimal(size)
        shown = value.quantize(Decimal("0.001") if exact else Decimal("0.01"))
        if not exact or shown == value:
            return f"{sign}{_plain(shown)} {name}"
    return f"{sign}{magnitude:,} B"


def _plain(value: Decimal) -> str:
    text = f"{value:,f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def parse_duration_ms(text: str | int, *, field: str | None = None) -> int:
    """Read a duration back into milliseconds: ``"7 d 1 ms"``, ``"7d"``, ``"1h 30m"``, ``"1.5h"``, ``"never"``.

    A plain integer (``"604800000"`` or an ``int``) is milliseconds, as in Kafka's configs; ``"never"``
    is ``Long.MAX_VALUE``. Units: ms, s, m (min), h, d, w. ``field`` names the setting in the error.

    Raises
    ------
    UnitError : the text is not a duration, or does not come to a whole number of milliseconds.
    """
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    words = _normalized(text, field)
    if words in ("never", "long.max_value", "long.max"):
        return LONG_MAX
    plain = _plain_integer(words)
    if plain is not None:
        return plain
    sign = -1 if words.startswith("-") else 1
    hint = 'use a number with a unit (ms, s, m, h, d, w), e.g. "7d", "1h 30m", "250 ms", or "never"'
    total = _sum_of_units(words.lstrip("-"), _DURATION_WORDS, _what(field, text, "a duration", hint))
    whole = _whole(total, _what(field, text, "a whole number of milliseconds", "use ms for fractions of a second"))
    return sign * whole


def parse_bytes(text: str | int, *, field: str | None = None) -> int:
    """Read a size back into bytes: ``"512KiB"``, ``"1 MiB"``, ``"1.5 GiB"``, ``"100 B"``, ``"1048576"``.

    A plain integer is bytes. KiB, MiB, GiB, TiB are powers of 1024; KB, MB, GB are powers of 1000 (SI),
    so ``"1 MB"`` is 1,000,000 bytes. ``field`` names the setting in the error.

    Raises
    ------
    UnitError : the text is not a size, or does not come to a whole number of bytes.
    """
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    words = _normalized(text, field)
    plain = _plain_integer(words)
    if plain is not None:
        return plain
    hint = 'use a number with a unit (B, KiB, MiB, GiB), e.g. "512 KiB", "1 MiB", or plain bytes'
    total = _sum_of_units(words, _SIZE_WORDS, _what(field, text, "a size", hint))
    return _whole(total, _what(field, text, "a whole number of bytes", "use a smaller unit"))


def parse_time_ms(text: str | int, *, field: str | None = None) -> int:
    """Read an ISO 8601 time (``"2023-11-14T22:13:20Z"``; no zone means UTC) or epoch ms into epoch ms."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    words = _normalized(text, field)
    if words == "never":
        return LONG_MAX
    plain = _plain_integer(words)
    if plain is not None:
        return plain
    try:
        moment = datetime.fromisoformat(words.upper())
    except ValueError:
        hint = 'use ISO 8601, e.g. "2023-11-14T22:13:20Z", or milliseconds since the epoch'
        raise UnitError(_what(field, text, "a time", hint)) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000 + delta.microseconds // 1_000


def _normalized(text: object, field: str | None) -> str:
    if not isinstance(text, str):
        prefix = f"{field}: " if field else ""
        raise UnitError(f"{prefix}expected text or an integer, got {type(text).__name__} {text!r}")
    return " ".join(text.strip().lower().replace(",", "").replace("_", "").split())


def _plain_integer(words: str) -> int | None:
    return int(words) if re.fullmatch(r"-?\d+", words) else None


def _sum_of_units(words: str, units: dict[str, int], message: str) -> Decimal:
    pieces = _NUMBER_UNIT.findall(words)
    if not pieces or _NUMBER_UNIT.sub("", words).strip() or any(unit not in units for _, unit in pieces):
        raise UnitError(message)
    try:
        return sum((Decimal(number) * units[unit] for number, unit in pieces), Decimal(0))
    except InvalidOperation:
        raise UnitError(message) from None


def _whole(total: Decimal, message: str) -> int:
    if total != total.to_integral_value():
        raise UnitError(message)
    return int(total)


def _what(field: str | None, text: object, kind: str, hint: str) -> str:
    prefix = f"{field}: " if field else ""
    return f"{prefix}cannot read {text!r} as {kind}; {hint}"
