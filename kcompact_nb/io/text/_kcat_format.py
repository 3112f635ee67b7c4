"""kcat's ``-f`` format strings: formatters, escapes, and what output made with them can carry.

The format is read as kcat 1.7's ``fmt_parse`` reads it (format.c): ``%o`` offset, ``%p``
partition, ``%t`` topic, ``%T`` timestamp (ms, -1 when unknown), ``%k``/``%s`` key/value
bytes as stored, ``%K``/``%S`` their lengths in decimal (-1 for null), ``%R`` the value's length
as 4 bytes big-endian, ``%h`` headers (``name=value`` joined by ``,``; ``NULL`` for a null value),
``%%``. Between formatters ``\\t``, ``\\n``, ``\\r``, ``\\xHH`` and ``\\NNN`` (C ``strtoul`` with
base 0: decimal, ``0``-octal, ``0x``-hex) are converted; any other ``\\c`` is ``c``.

A format is refused when its output could not be split back into records: a number followed
by a digit, a key, value, topic or headers field (without a length printed before it) not
followed by literal text, a format without ``%o``. What it cannot carry is named:
:attr:`KcatFormat.missing` (fields it does not print; ``timestamp_type`` always) and :attr:`KcatFormat.caveats` (what
reads as null or may be ambiguous, with the formatter that fixes it).
"""

from __future__ import annotations

from dataclasses import dataclass

from kcompact_nb.io._errors import DumpParseError

NUMBERS = frozenset("opTKS")
TEXTS = frozenset("tksh")
#: Formatter -> the field of :class:`ConsumedRecord` it fills.
FIELD_NAMES = {"t": "topic", "p": "partition", "T": "timestamp", "k": "key", "s": "value", "h": "headers"}
_LENGTHS = {"k": "K", "s": "SR"}
_ESCAPES = {ord("t"): 0x09, ord("n"): 0x0A, ord("r"): 0x0D}
_DIGITS = b"0123456789"
_HEX = b"0123456789abcdefABCDEF"


@dataclass(frozen=True)
class FormatToken:
    """Literal bytes, or one formatter (``field``); ``sized_by`` is the length formatter printed before a key/value."""

    literal: bytes = b""
    field: str = ""
    sized_by: str = ""
    checked_by: str = ""
    """The length formatter printed after this key/value (``%k ... %K``): its end is the one the length confirms."""


@dataclass(frozen=True)
class KcatFormat:
    """A compiled kcat ``-f`` format.

    ``print_nulls`` is kcat's ``-Z`` (null and empty keys/values print ``NULL``).
    """

    text: str
    tokens: tuple[FormatToken, ...]
    print_nulls: bool
    missing: frozenset[str]
    caveats: tuple[str, ...]

    @property
    def fields(self) -> frozenset[str]:
        """The formatters the format prints."""
        return frozenset(t.field for t in self.tokens if t.field)

    @property
    def terminator(self) -> bytes:
        """The literal the format ends with (empty when it ends with a key or value read by length)."""
        return self.tokens[-1].literal


def compile_kcat_format(fmt: str, *, print_nulls: bool = False) -> KcatFormat:
    """Read ``fmt`` as kcat ``-f`` does; refuse it (naming the fix) when its output cannot be read back.

    Parameters
    ----------
    fmt : the format string exactly as given to kcat, e.g. ``'%o\\t%T\\n'`` (backslash escapes not yet converted).
    print_nulls : kcat ran with ``-Z``.
    """
    tokens = _sized(_tokens(fmt))
    _check_readable(fmt, tokens)
    fields = {t.field for t in tokens if t.field}
    missing = frozenset(name for formatter, name in FIELD_NAMES.items() if formatter not in fields) | {"timestamp_type"}
    return KcatFormat(fmt, tokens, print_nulls, missing, _caveats(tokens, print_nulls))


def _refuse(fmt: str, reason: str) -> DumpParseError:
    return DumpParseError("<format>", 1, f"kcat format {fmt!r}: {reason}")


def _tokens(fmt: str) -> list[FormatToken]:
    """kcat's ``fmt_parse``: split at ``%``, convert escapes in the text between formatters."""
    tokens: list[FormatToken] = []
    position = 0
    while position < len(fmt):
        percent = fmt.find("%", position)
        end = len(fmt) if percent < 0 else percent
        if end > position:
            tokens.append(FormatToken(literal=unescape(fmt[position:end])))
        if percent < 0:
            break
        letter = fmt[percent + 1 : percent + 2]
        if letter == "%":
            tokens.append(FormatToken(literal=b"%"))
        elif letter and letter in "opTKSRtksh":
            tokens.append(FormatToken(field=letter))
        else:
            raise _refuse(fmt, f"unsupported kcat formatter %{letter or '(end)'} (kcat itself refuses it)")
        position = percent + 2
    return _merge_literals(tokens)


def _merge_literals(tokens: list[FormatToken]) -> list[FormatToken]:
    merged: list[FormatToken] = []
    for token in tokens:
        if token.literal and merged and merged[-1].literal:
            merged[-1] = FormatToken(literal=merged[-1].literal + token.literal)
        else:
            merged.append(token)
    return merged


def unescape(text: str) -> bytes:
    """kcat's conversion of ``\\`` sequences in the literal text of a format (format.c ``fmt_add``)."""
    raw = text.encode("utf-8", errors="surrogateescape")
    out = bytearray()
    index = 0
    while index < len(raw):
        char = raw[index]
        if char != 0x5C or index + 1 >= len(raw):
            out.append(char)
            index += 1
            continue
        index += 1
        char = raw[index]
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
            index += 1
            continue
        base = 0
        if char == ord("x"):
            index, base = index + 1, 16
            if index >= len(raw):
                raise DumpParseError("<format>", 1, f"kcat format text {text!r} ends with \\x")
        if raw[index] in _DIGITS:
            value, index = _strtoul(raw, index, base)
            out.append(value & 0xFF)
        else:
            out.append(raw[index])
            index += 1
    return bytes(out)


def _strtoul(raw: bytes, index: int, base: int) -> tuple[int, int]:
    """C ``strtoul(s, &end, base)`` from a digit: base 16, or 0 (``0x`` hex, ``0`` octal, else decimal)."""
    if raw[index : index + 2] in (b"0x", b"0X") and raw[index + 2 : index + 3] and raw[index + 2] in _HEX:
        index, base = index + 2, 16
    elif base == 0:
        base = 8 if raw[index] == ord("0") else 10
    allowed = _HEX if base == 16 else _DIGITS[:base]
    end = index
    while end < len(raw) and raw[end] in allowed:
        end += 1
    return min(int(raw[index:end], base), 2**64 - 1), end


def _sized(tokens: list[FormatToken]) -> tuple[FormatToken, ...]:
    """Mark each key/value that follows its own length formatter: it is read by length, exactly."""
    seen: set[str] = set()
    out = []
    for index, token in enumerate(tokens):
        lengths = _LENGTHS.get(token.field, "")
        size = next((length for length in lengths if length in seen), "")
        later = {t.field for t in tokens[index + 1 :]}
        check = "" if size else next((length for length in lengths if length in later), "")
        out.append(FormatToken(field=token.field, sized_by=size, checked_by=check) if size or check else token)
        seen.add(token.field)
    return tuple(out)


def _check_readable(fmt: str, tokens: tuple[FormatToken, ...]) -> None:
    fields = [t.field for t in tokens]
    if "o" not in fields:
        raise _refuse(
            fmt, "it has no %o; records cannot be placed without their offsets: add %o to the format, or use -J"
        )
    for index, token in enumerate(tokens):
        after = tokens[index + 1] if index + 1 < len(tokens) else None
        if token.field in NUMBERS:
            following = after if after is not None else tokens[0]
            if not following.literal or following.literal[:1] in (b"-", *(bytes([d]) for d in _DIGITS)):
                raise _refuse(fmt, f"%{token.field} runs into what follows it; put a separator (e.g. \\t) after it")
        elif token.field in TEXTS and not token.sized_by and (after is None or not after.literal):
            raise _refuse(fmt, f"nothing marks where %{token.field} ends; {_end_advice(token.field)}")
        elif token.field in TEXTS and not token.sized_by and not tokens[-1].literal:
            raise _refuse(fmt, f"%{token.field} has no length, so the format must end with a separator (e.g. \\n)")


def _end_advice(field: str) -> str:
    if field in _LENGTHS:
        return f"put %{_LENGTHS[field][0]} before %{field}, or a separator after it (e.g. \\n at the end)"
    return f"put a separator after %{field} (e.g. \\t, or \\n at the end of the format)"


def _caveats(tokens: tuple[FormatToken, ...], print_nulls: bool) -> tuple[str, ...]:
    notes = []
    end = tokens[-1].literal
    for letter, name in (("k", "key"), ("s", "value")):
        unsized = [t for t in tokens if t.field == letter and not t.sized_by and not t.checked_by]
        if unsized and not any(t.field == letter and (t.sized_by or t.checked_by) for t in tokens):
            printed = f'both print NULL under -Z, like the {name} "NULL"' if print_nulls else "both print nothing"
            notes.append(
                f"{name}s: without %{_LENGTHS[letter][0]} before %{letter} an empty and a null {name} {printed}, "
                f"and are read as null; a {name} containing {end!r} (the record end) ends its record early, and "
                "what follows reads as another record (a phantom record) or is refused. "
                f"Put %{_LENGTHS[letter][0]} before %{letter} to read {name}s exactly."
            )
    if "h" in {t.field for t in tokens}:
        notes.append(
            "headers: %h joins name=value pairs with ',' and prints NULL for a null value, so a header value "
            "that is the text NULL, or a name or value containing ',' or '=', cannot be told apart "
            "(a lone ',' is refused); kcat prints each header name and value only up to its first NUL byte. "
            "Use -J to read header values exactly (-J too cuts header names at a NUL)."
        )
    return tuple(notes)
