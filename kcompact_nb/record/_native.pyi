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
def placed_records_section(
    data: bytes,
    offsets: Any,
    timestamps: Any,
    key_starts: Any,
    key_lengths: Any,
    value_starts: Any,
    value_lengths: Any,
    base_offset: int,
    base_timestamp: int,
    key_positions: Any,
    value_positions: Any,
    at: int,
    /,
) -> bytes: ...
def placed_batches(
    data: bytes,
    offsets: Any,
    timestamps: Any,
    key_starts: Any,
    key_lengths: Any,
    value_starts: Any,
    value_lengths: Any,
    counts: Any,
    headers: Any,
    key_positions: Any,
    value_positions: Any,
    /,
) -> list[bytes]: ...
def snappy_compress(data: Any, top_bits_hash: bool = False, /) -> bytes: ...
def inflate_batches(
    block: bytes, starts: Any, ends: Any, codes: Any, view_starts: Any, view_ends: Any, threads: int = 0, /
) -> bytes: ...
def inflatable_codecs() -> tuple[str, ...]: ...
def open_zstd(path: str, /) -> int: ...
def frame_batches(block: bytes, verify_crc: bool, /) -> tuple[bytes, int]: ...

class KeyTable:
    def __init__(self) -> None: ...
    def __len__(self) -> int: ...
    def number(self, block: bytes, starts: Any, lengths: Any, ids: Any, new_rows: Any, /) -> int: ...
    def commit(self, ids: Any, /) -> None: ...

class OffsetTable:
    def __init__(self) -> None: ...
    def __len__(self) -> int: ...
    def put_spans(
        self, block: bytes, starts: Any, lengths: Any, offsets: Any, shard: int = 0, shards: int = 1, /
    ) -> None: ...
    def stage_spans(
        self,
        block: bytes,
        starts: Any,
        lengths: Any,
        offsets: Any,
        shard: int = 0,
        shards: int = 1,
        hold: int = 196608,
        /,
    ) -> None: ...
    def flush(self) -> None: ...
    def get_spans(self, block: bytes, starts: Any, lengths: Any, entries: Any, /) -> None: ...
    def put(self, keys: Any, offsets: Any, shard: int = 0, shards: int = 1, /) -> None: ...
    def get(self, keys: Any, entries: Any, /) -> None: ...
    def items(self) -> list[tuple[bytes | None, int]]: ...
    def values(self, out: Any, /) -> None: ...

def crc32c(data: Any, /) -> int: ...
