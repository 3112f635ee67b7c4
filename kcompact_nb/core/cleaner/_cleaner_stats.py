"""Per-pass statistics and Kafka's INFO log line for a pass (``CleanerStats``, ``recordStats``; spec 10)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from decimal import ROUND_HALF_UP, Context, Decimal

from kcompact_nb.core.model import DOUBLE_MAX, MIB, BrokerConfig


@dataclass
class CleanerStats:
    """Counters of one pass, named as Kafka's ``CleanerStats`` fields (snake_cased).

    ``bytes_read``/``messages_read`` cover the whole rewritten prefix, not just the dirty
    section; ``elapsed_secs`` and ``elapsed_index_secs`` are simulated time.
    ``malformed_version_headers`` is not Kafka's: the KIP-280 header strategy's count of
    records whose version header is not 8 bytes; nor is ``records_removed``, the records the pass removed (those
    of batches deleted whole too, which ``messages_read`` does not count).
    """

    bytes_read: int = 0
    bytes_written: int = 0
    messages_read: int = 0
    messages_written: int = 0
    map_bytes_read: int = 0
    map_messages_read: int = 0
    invalid_messages_read: int = 0
    buffer_utilization: float = 0.0
    elapsed_secs: float = 0.0
    elapsed_index_secs: float = 0.0
    malformed_version_headers: int = 0
    records_removed: int = 0

    def counters(self) -> dict[str, float | int]:
        """The byte and message counters and the buffer utilization, by field name: what Kafka's log line
        reports of a pass, without the simulated times and the counts that are not Kafka's."""
        data = asdict(self)
        for extra in ("elapsed_secs", "elapsed_index_secs", "malformed_version_headers", "records_removed"):
            del data[extra]
        return data


@dataclass(frozen=True)
class CleanerSpeed:
    """How fast a machine's cleaner thread works when nothing throttles it (not Kafka's: a measured model).

    A pass takes ``pass_ms`` plus its map's bytes at ``index_bytes_per_second`` (the index phase) plus the bytes
    it reads while cleaning at ``clean_bytes_per_second``. Measured from a broker's passes on one machine
    (``kcompact_nb.fidelity.calibrate_speed``); another machine's cleaner is faster or slower.
    """

    pass_ms: float
    index_bytes_per_second: float
    clean_bytes_per_second: float

    def index_secs(self, stats: CleanerStats) -> float:
        """Seconds the index phase of a pass with ``stats`` takes."""
        return stats.map_bytes_read / self.index_bytes_per_second

    def elapsed_secs(self, stats: CleanerStats) -> float:
        """Seconds a pass with ``stats`` takes."""
        return self.pass_ms / 1000 + self.index_secs(stats) + stats.bytes_read / self.clean_bytes_per_second

    def scaled(self, factor: float) -> CleanerSpeed:
        """The same machine cleaning ``factor`` times as many bytes per pass in the same time (a forecast that
        samples a fraction of the keys scales the rates by that fraction)."""
        return CleanerSpeed(self.pass_ms, self.index_bytes_per_second * factor, self.clean_bytes_per_second * factor)


def throttled_elapsed(stats: CleanerStats, broker: BrokerConfig, speed: CleanerSpeed | None = None) -> None:
    """Simulated pass time: the I/O throttle (``Throttler``, spec 11), and with ``speed`` the machine's own pace.

    Sets ``elapsed_index_secs`` (the map's bytes) and ``elapsed_secs`` (every byte read and written) at
    ``log.cleaner.io.max.bytes.per.second``; the throttle only sleeps, so with a ``speed`` each phase takes the
    longer of the two. Without either a pass takes 0 s.
    """
    rate = broker.log_cleaner_io_max_bytes_per_second
    if rate < DOUBLE_MAX:
        stats.elapsed_index_secs = stats.map_bytes_read / rate
        stats.elapsed_secs = (stats.map_bytes_read + stats.bytes_read + stats.bytes_written) / rate
    if speed is not None:
        stats.elapsed_index_secs = max(stats.elapsed_index_secs, speed.index_secs(stats))
        stats.elapsed_secs = max(stats.elapsed_secs, speed.elapsed_secs(stats))


_ALL_DIGITS = Context(prec=400)


def java_fixed(value: float, *, grouping: bool = False) -> str:
    """Java's ``%.1f`` / ``%,.1f``: HALF_UP rounding of the exact double, ``Infinity``/``NaN`` spelled out."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    # every digit of the double (up to 309 before the point, as Java prints 1e300 in full)
    rounded = Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP, context=_ALL_DIGITS)
    return f"{rounded:,.1f}" if grouping else f"{rounded:.1f}"


def _ratio(numerator: float, denominator: float) -> float:
    """Java double division: x/0 is +-Infinity, 0/0 is NaN."""
    if denominator == 0:
        if numerator == 0 or math.isnan(numerator):
            return math.nan
        return math.copysign(math.inf, numerator)
    return numerator / denominator


def _grouped(value: float) -> str:
    return java_fixed(value, grouping=True)


def log_line(stats: CleanerStats, *, thread_id: int, log_name: str, first_dirty_offset: int, end_offset: int) -> str:
    """Kafka's INFO message for a finished pass (``LogCleaner.recordStats``), lines separated by ``\\n``."""
    mb_read = stats.bytes_read / MIB
    mb_map = stats.map_bytes_read / MIB
    clean_secs = stats.elapsed_secs - stats.elapsed_index_secs
    f, g = java_fixed, _grouped
    lines = [
        "",
        f"\tLog cleaner thread {thread_id} cleaned log {log_name} "
        f"(dirty section = [{first_dirty_offset}, {end_offset}])",
        f"\t{g(mb_read)} MB of log processed in {g(stats.elapsed_secs)} seconds "
        f"({g(_ratio(mb_read, stats.elapsed_secs))} MB/sec).",
        f"\tIndexed {g(mb_map)} MB in {f(stats.elapsed_index_secs)} seconds "
        f"({g(_ratio(mb_map, stats.elapsed_index_secs))} Mb/sec, "
        f"{f(_ratio(100 * stats.elapsed_index_secs, stats.elapsed_secs))}% of total time)",
        f"\tBuffer utilization: {f(100 * stats.buffer_utilization)}%",
        f"\tCleaned {g(mb_read)} MB in {f(clean_secs)} seconds ({g(_ratio(mb_read, clean_secs))} Mb/sec, "
        f"{f(_ratio(100 * clean_secs, stats.elapsed_secs))}% of total time)",
        f"\tStart size: {g(mb_read)} MB ({stats.messages_read:,} messages)",
        f"\tEnd size: {g(stats.bytes_written / MIB)} MB ({stats.messages_written:,} messages)",
        f"\t{f(100.0 * (1.0 - _ratio(stats.bytes_written, stats.bytes_read)))}% size reduction "
        f"({f(100.0 * (1.0 - _ratio(stats.messages_written, stats.messages_read)))}% fewer messages)",
        "",
    ]
    return "\n".join(lines)


ZERO_ELAPSED_NOTE = (
    "Kafka's own log line: a pass that takes under a millisecond (as every simulated pass does) is logged "
    "with rates of Infinity MB/sec and NaN% of total time, and sizes under 0.05 MB as 0.0 MB."
)


def log_line_note(line: str) -> str | None:
    """Why :func:`log_line`'s ``line`` reads ``Infinity`` and ``NaN`` where it does (a pass of zero elapsed time, Java's
    division by zero); None when it does not."""
    return ZERO_ELAPSED_NOTE if "Infinity" in line or "NaN" in line else None
