"""How big a dedupe buffer a partition needs, and how many passes a smaller one takes (spec 6.1-6.3)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from kcompact_nb.core.cleaner import OFFSET_ENTRY_BYTES
from kcompact_nb.core.model import INT_MAX, ConfigError


@dataclass(frozen=True)
class DedupeBufferSizing:
    """The answer of :func:`dedupe_buffer_sizing`; byte counts are for the whole broker (all threads).

    ``keys_per_pass`` is ``int(slots * load_factor)`` with ``slots = min(buffer / threads,
    Int.MaxValue) // entry_bytes`` (``SkimpyOffsetMap``); ``passes`` is the least number of passes
    that maps every distinct key once (0 for no key; each pass must also be selected: see
    ``min.cleanable.dirty.ratio``); ``buffer_bytes_for_one_pass`` is the smallest
    ``log.cleaner.dedupe.buffer.size`` that maps them all in one pass, ``None`` when even
    ``Int.MaxValue`` bytes per thread is too small.
    """

    distinct_keys: int
    entry_bytes: int
    load_factor: float
    threads: int
    dedupe_buffer_size: int
    keys_per_pass: int
    passes: int
    buffer_bytes_for_one_pass: int | None

    @property
    def utilization_of_last_pass(self) -> float:
        """Kafka's "Buffer utilization" of the last pass (entries / slots)."""
        if self.passes == 0:
            return 0.0
        slots = min(self.dedupe_buffer_size // self.threads, INT_MAX) // self.entry_bytes
        return (self.distinct_keys - (self.passes - 1) * self.keys_per_pass) / slots


def dedupe_buffer_sizing(
    distinct_keys: int,
    *,
    entry_bytes: int = OFFSET_ENTRY_BYTES,
    load_factor: float = 0.9,
    dedupe_buffer_size: int = 134_217_728,
    threads: int = 1,
) -> DedupeBufferSizing:
    """Passes and memory to map ``distinct_keys`` dirty keys with one cleaner thread's offset map.

    Parameters mirror ``log.cleaner.dedupe.buffer.size`` (bytes, shared by
    ``log.cleaner.threads``), ``log.cleaner.io.buffer.load.factor`` and the map entry size
    (24 bytes: 16-byte MD5 + 8-byte offset; 32 under the KIP-280 strategies).
    """
    _check(distinct_keys, entry_bytes, load_factor, threads)
    per_thread = min(dedupe_buffer_size // threads, INT_MAX)
    keys_per_pass = int(per_thread // entry_bytes * load_factor)
    if keys_per_pass < 1:
        raise ConfigError(
            f"a {per_thread}-byte offset map holds no {entry_bytes}-byte entry at load factor {load_factor}"
        )
    passes = math.ceil(distinct_keys / keys_per_pass)
    return DedupeBufferSizing(
        distinct_keys,
        entry_bytes,
        load_factor,
        threads,
        dedupe_buffer_size,
        keys_per_pass,
        passes,
        _one_pass_bytes(distinct_keys, entry_bytes, load_factor, threads),
    )


def _one_pass_bytes(distinct_keys: int, entry_bytes: int, load_factor: float, threads: int) -> int | None:
    slots = math.ceil(distinct_keys / load_factor)
    while int(slots * load_factor) < distinct_keys:  # float rounding in Kafka's int(slots * factor)
        slots += 1
    per_thread = slots * entry_bytes
    return per_thread * threads if per_thread <= INT_MAX else None


def _check(distinct_keys: int, entry_bytes: int, load_factor: float, threads: int) -> None:
    if distinct_keys < 0:
        message = f"distinct_keys must be at least 0, got {distinct_keys}"
    elif entry_bytes < 1:
        message = f"entry_bytes must be at least 1, got {entry_bytes}"
    elif not 0 < load_factor <= 1:
        message = (
            f"Invalid value {load_factor} for configuration log.cleaner.io.buffer.load.factor: it must be in (0, 1]"
        )
    elif threads < 1:
        message = f"Invalid value {threads} for configuration log.cleaner.threads: at least 1 thread cleans"
    else:
        return
    raise ConfigError(message)
