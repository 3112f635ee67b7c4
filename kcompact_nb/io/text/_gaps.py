""" "When did compaction last run on this partition?" from the offsets a consumer sees.

Compaction is the only thing that removes records from the middle of a compacted log, so the
last place where an offset is missing is the last place compaction provably ran. This is the
gawk script of the seed article (``kcat -f '%o\\t%T\\n' | gawk ...``) as a function over any
loaded partition: rows are the records a consumer reads, numbered from 1 like awk's ``NR``.

Differences from the script, on purpose:

* The first row is a gap only if its offset is above the known log start offset (the script
  counts any first offset above 1 as a gap).
* For a :class:`PartitionLog`, offsets held by control batches (transaction markers, which
  consumers never see) are not gaps. Consumer output (kcat) cannot tell them apart: there a
  commit marker shows up as a one-offset gap, and an aborted transaction (its records are
  skipped by a ``read_committed`` consumer, kcat's default) as a gap of its records and marker;
  the report says so (:attr:`CompactionGap.markers_known`).
* What the numbers can tell is printed with them: the gap's time is a lower bound for when the
  cleaner last removed records (it is the timestamp of the first record after the gap, which the
  pass that made the gap had already seen), and the rows after the gap are an upper bound for the
  dirty section (the cleaner may have passed the gap since without removing anything; Kafka's
  ``cleaner-offset-checkpoint`` holds the exact point).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from kcompact_nb.core import PartitionLog, Record


@dataclass(frozen=True)
class CompactionGap:
    """The last offset gap in a partition and what follows it.

    ``last_gap_offset`` is the first offset after the gap, ``last_gap_row`` its row number,
    ``last_gap_timestamp_ms`` its timestamp (what the script prints as "last gap time"),
    ``missing_offsets`` how many offsets that gap skipped. ``dirty_rows_since_gap`` is
    ``last_row - last_gap_row``: the contiguous, possibly dirty, rows written since the
    last compaction ("contiguous ~dirty rows since gap"). Without any gap the ``last_gap_*``
    fields are ``None`` and every row counts as dirty. ``markers_known`` is False for consumer
    output, where a gap may also be a transaction marker or an aborted transaction.
    """

    last_gap_offset: int | None
    last_gap_row: int | None
    last_gap_timestamp_ms: int | None
    missing_offsets: int
    gap_count: int
    last_offset: int | None
    last_row: int
    dirty_rows_since_gap: int
    markers_known: bool = True

    @property
    def last_gap_time(self) -> datetime | None:
        """``last_gap_timestamp_ms`` as an aware UTC datetime."""
        if self.last_gap_timestamp_ms is None or self.last_gap_timestamp_ms < 0:
            return None  # none, or Kafka's NO_TIMESTAMP (-1: a consumer output without timestamps)
        try:
            return datetime.fromtimestamp(self.last_gap_timestamp_ms / 1000, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None  # a timestamp no calendar date can show


Row = tuple[int, int]
"""(offset, timestamp in ms) of one consumed record."""


def partition_rows(log: PartitionLog) -> Iterator[tuple[int, int, int, bool]]:
    """``(first offset, last offset, timestamp, is_row)`` in offset order: one row per data
    record, and each control batch as a non-row covering its offsets."""
    for batch in log.batches():
        if batch.is_control:
            yield batch.base_offset, batch.last_offset, batch.max_timestamp, False
            continue
        for record in batch.records:
            yield record.offset, record.offset, batch.read_timestamp(record), True


def last_compaction_gap(
    source: PartitionLog | Iterable[Record] | Iterable[Row], *, log_start_offset: int | None = None
) -> CompactionGap:
    """Find the last offset gap (Kafka's cleaner removes records but never renumbers them).

    Parameters
    ----------
    source:
        A :class:`PartitionLog` (its log start offset is used), or the records / ``(offset,
        timestamp_ms)`` rows a consumer read, in offset order (e.g. from kcat).
    log_start_offset:
        The partition's log start offset when known; a first row above it is a gap.
    """
    if isinstance(source, PartitionLog):
        start = source.log_start_offset if log_start_offset is None else log_start_offset
        return _scan(partition_rows(source), start, markers_known=True)
    return _scan((_consumed_row(item) for item in source), log_start_offset, markers_known=False)


def _consumed_row(item: Record | Row) -> tuple[int, int, int, bool]:
    offset, timestamp = (item.offset, item.timestamp) if isinstance(item, Record) else (int(item[0]), int(item[1]))
    return offset, offset, timestamp, True


@dataclass
class _GapScan:
    expected: int | None
    row: int = 0
    gap_offset: int | None = None
    gap_row: int | None = None
    gap_ts: int | None = None
    missing: int = 0
    gaps: int = 0
    pending: int = 0
    last_offset: int | None = None

    def add(self, first: int, last: int, timestamp: int, is_row: bool) -> None:
        skipped = first - self.expected if self.expected is not None and first > self.expected else 0
        self.expected = last + 1 if self.expected is None else max(self.expected, last + 1)
        if not is_row:
            self.pending += skipped  # a gap before a marker shows at the next record a consumer reads
            return
        self.row += 1
        self.last_offset = last
        if skipped or self.pending:
            self.gap_offset, self.gap_row, self.gap_ts = first, self.row, timestamp
            self.missing, self.pending = skipped + self.pending, 0
            self.gaps += 1

    def result(self, markers_known: bool) -> CompactionGap:
        dirty = self.row - self.gap_row if self.gap_row is not None else self.row
        return CompactionGap(
            self.gap_offset,
            self.gap_row,
            self.gap_ts,
            self.missing,
            self.gaps,
            self.last_offset,
            self.row,
            dirty,
            markers_known,
        )


def _scan(
    rows: Iterable[tuple[int, int, int, bool]], log_start_offset: int | None, *, markers_known: bool
) -> CompactionGap:
    scan = _GapScan(log_start_offset)
    for first, last, timestamp, is_row in rows:
        scan.add(first, last, timestamp, is_row)
    return scan.result(markers_known)


def format_gap_report(gap: CompactionGap) -> str:
    """The report lines of the seed article's script for the same numbers, each saying what it can tell."""
    when = gap.last_gap_time.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z" if gap.last_gap_time else None
    lines = [
        f"last gap offset:  {_gap_offset(gap)}",
        f"last gap row:  {gap.last_gap_row if gap.last_gap_row is not None else 'none'}",
        f"last gap time:  {_gap_time(when) if when else 'none' if gap.last_gap_offset is None else 'unknown'}",
        f"last offset:  {gap.last_offset if gap.last_offset is not None else 'none'}",
        f"last row:  {gap.last_row}",
        f"contiguous ~dirty rows since gap:  {gap.dirty_rows_since_gap} ({_dirty_note(gap)})",
    ]
    return "\n".join(lines)


def _gap_offset(gap: CompactionGap) -> str:
    if gap.last_gap_offset is None:
        return "none"
    count = f"{gap.missing_offsets} offset{'s' if gap.missing_offsets != 1 else ''} missing before it"
    if gap.markers_known:
        return (
            f"{gap.last_gap_offset} ({count}: {'a removed record' if gap.missing_offsets == 1 else 'removed records'})"
        )
    if gap.missing_offsets == 1:
        cause = "a removed record, or a transaction marker, which consumers never see"
    else:
        cause = "removed records, or a transaction's marker and aborted records, which consumers never see"
    return f"{gap.last_gap_offset} ({count}: {cause})"


def _gap_time(when: str) -> str:
    return (
        f"{when} (a lower bound for the last compaction: the timestamp of the first record after the gap, "
        "which the cleaner pass that made the gap had already seen)"
    )


def _dirty_note(gap: CompactionGap) -> str:
    if gap.last_gap_row is None:
        return "no gap: every row may be dirty"
    return (
        "an upper bound: the cleaner may have passed the gap since without removing anything; "
        "Kafka's cleaner-offset-checkpoint holds the exact point"
    )
