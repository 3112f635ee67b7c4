from typing import Any

def decode_plain(
    block: bytes,
    starts: Any,
    ends: Any,
    base_offsets: Any,
    base_timestamps: Any,
    last_deltas: Any,
    first: Any,
    counts: Any,
    plain: Any,
    offsets: Any,
    timestamps: Any,
    key_starts: Any,
    key_lengths: Any,
    value_starts: Any,
    value_lengths: Any,
    /,
) -> None: ...
def records_section(
    offsets: Any, timestamps: Any, keys: Any, values: Any, base_offset: int, base_timestamp: int, /
) -> bytes: ...

class KeyTable:
    def __init__(self) -> None: ...
    def __len__(self) -> int: ...
    def number(self, block: bytes, starts: Any, lengths: Any, ids: Any, new_rows: Any, /) -> int: ...
    def commit(self, ids: Any, /) -> None: ...
