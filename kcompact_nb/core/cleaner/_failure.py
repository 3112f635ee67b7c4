"""A pass that throws, and what Kafka's cleaner thread does about it (``LogCleaner.CleanerThread``; spec 3, 8.4).

A pass can throw where a log's contents lead it: a batch it cannot read, a cleaned segment whose index fills up
(:class:`~kcompact_nb.core.model.IndexFullError`: with KAFKA-806's entry per batch, a group's cleaned segment can
need more index entries than ``groupSegmentsBySize`` counted in its sources), or a record of a compressed batch
whose body exceeds ``max.decompressed.message.bytes`` (4.2.2-4.2.x and 4.4.0 on: :func:`check_record_bodies`).
Kafka does not catch the exception in ``cleanSegments``: the groups already swapped in stay, the segment being
filled is left as ``.cleaned`` files, and ``doneCleaning`` checkpoints the pass's first dirty offset. From 2.1
(KIP-346) the thread logs the exception, marks the partition uncleanable until the broker restarts and goes on with
the other logs; in 2.0 the exception ends the cleaner thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kcompact_nb.core.model import (
    CLEANED_FILE_SUFFIX,
    INDEX_FILE_SUFFIX,
    LOG_FILE_SUFFIX,
    TIME_INDEX_FILE_SUFFIX,
    TXN_INDEX_FILE_SUFFIX,
    IndexFullError,
    KafkaVersion,
    PartitionLog,
    Segment,
    filename_prefix_from_offset,
)
from kcompact_nb.record import KcompactError, RecordBatch, record_body_bytes, record_size_bytes

ILLEGAL_ARGUMENT = "java.lang.IllegalArgumentException"
INVALID_RECORD = "org.apache.kafka.common.InvalidRecordException"


class CleanerThrew(KcompactError):
    """An exception Kafka's cleaner throws inside a pass, by its Java class and message.

    ``cleaned`` is the segment ``cleanSegments`` was filling (its ``.cleaned`` files stay on disk), if any.
    """

    def __init__(self, exception: str, message: str, cleaned: Segment | None = None) -> None:
        self.exception = exception
        self.message = message
        self.cleaned = cleaned
        super().__init__(f"{exception}: {message}")


def index_full(error: IndexFullError, version: KafkaVersion, cleaned: Segment | None = None) -> CleanerThrew:
    """Kafka's exception for an index entry that does not fit ``cleaned``'s index: ``OffsetIndex.append`` and
    ``TimeIndex.maybeAppend`` throw ``IllegalArgumentException``; before 3.5 the indexes were Scala, whose
    ``require`` starts the message with "requirement failed: "."""
    prefix = "" if version >= KafkaVersion(3, 5) else "requirement failed: "
    return CleanerThrew(ILLEGAL_ARGUMENT, prefix + str(error), cleaned)


def oversized_record(batch: RecordBatch, limit: int) -> int | None:
    """The position in ``batch`` of the first record whose body exceeds ``limit`` bytes, where Kafka reads a batch's
    records with that bound (``DefaultRecord.readFrom``: compressed batches only; uncompressed ones are not
    checked); None when every record fits."""
    if batch.compression == "none":
        return None
    for position, r in enumerate(batch.records):
        size = record_size_bytes(r.offset - batch.base_offset, r.timestamp - batch.base_timestamp, r.key, r.value,
                                 r.headers)  # fmt: skip
        if record_body_bytes(size) > limit:
            return position
    return None


def record_too_large(batch: RecordBatch, position: int, limit: int) -> CleanerThrew:
    """Kafka's exception for the record at ``position`` of ``batch`` (:func:`oversized_record`)."""
    r = batch.records[position]
    size = record_size_bytes(r.offset - batch.base_offset, r.timestamp - batch.base_timestamp, r.key, r.value,
                             r.headers)  # fmt: skip
    body = record_body_bytes(size)
    return CleanerThrew(
        INVALID_RECORD, f"Invalid record size: {body} exceeds the configured maximum record size of {limit}."
    )


def check_record_bodies(batch: RecordBatch, limit: int) -> None:
    """Raise Kafka's ``InvalidRecordException`` when a record of ``batch`` exceeds ``limit`` (``filterTo`` reads every
    record of a batch it does not delete whole)."""
    position = oversized_record(batch, limit)
    if position is not None:
        raise record_too_large(batch, position, limit)


@dataclass(frozen=True)
class CleanerFailure:
    """A pass that threw, and what it left (spec 3): the partition is uncleanable from then on (from 2.1; in 2.0 the
    cleaner thread stopped instead), the checkpoint is the pass's first dirty offset (``doneCleaning``), the
    segments of the groups swapped in before the exception stay, and the group being cleaned stays as it was,
    beside the ``.cleaned`` files of the segment the pass was filling."""

    name: str
    at_ms: int
    error: str
    """The exception, as Kafka logs it (``java.lang.IllegalArgumentException: ...``), or why the model threw."""
    checkpoint: int
    swapped_in: tuple[int, ...] = ()
    """Base offsets of the cleaned segments the pass swapped in before it threw."""
    left_cleaned: tuple[str, ...] = ()
    """The files the segment being filled left in the partition folder (``NNN.log.cleaned``, ...)."""
    thread_stopped: bool = False

    @property
    def kafka_log_line(self) -> str:
        """The broker's log line (``tryCleanFilthiestLog``'s WARN from 2.1, ``ShutdownableThread``'s ERROR in 2.0)."""
        if self.thread_stopped:
            return f"[kafka-log-cleaner-thread-0]: Error due to {self.error}"
        return (
            f"Unexpected exception thrown when cleaning log {self.name}. Marking its partition ({self.name}) as "
            f"uncleanable: {self.error}"
        )

    def describe(self) -> str:
        """What the failure did and left, in Kafka's words, on one line."""
        what = (
            "the cleaner thread stopped (Kafka 2.0 ends it on an unexpected exception)"
            if self.thread_stopped
            else "marked uncleanable until the broker restarts; the other partitions are cleaned"
        )
        kept = f"; cleaned segments {', '.join(map(str, self.swapped_in))} swapped in before it stay" * bool(
            self.swapped_in
        )
        left = f"; left on disk: {', '.join(self.left_cleaned)}" * bool(self.left_cleaned)
        return f"{self.name}: its pass threw {self.error}; {what}; checkpoint stays at {self.checkpoint}{kept}{left}"


def cleaned_file_names(segment: Segment) -> tuple[str, ...]:
    """The ``.cleaned`` files a segment being filled has on disk: its log, the indexes it had appended an entry to
    (``LazyIndex`` creates an index file on first use) and its transaction index (created on its first entry)."""
    stem = filename_prefix_from_offset(segment.base_offset)
    suffixes = [LOG_FILE_SUFFIX]
    if segment.offset_index:  # each offset index entry is followed by TimeIndex.maybeAppend, which opens that index
        suffixes += [INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX]
    if segment.aborted_transactions:
        suffixes.append(TXN_INDEX_FILE_SUFFIX)
    return tuple(f"{stem}{suffix}{CLEANED_FILE_SUFFIX}" for suffix in suffixes)


def record_failure(
    log: PartitionLog,
    error: KcompactError,
    *,
    at_ms: int,
    first_dirty_offset: int,
    before: Sequence[Segment],
    version: KafkaVersion,
) -> CleanerFailure:
    """Leave ``log`` as Kafka's thread leaves it after ``error`` in a pass that started with segments ``before``:
    the checkpoint at ``first_dirty_offset``, the segment being filled in :attr:`PartitionLog.left_cleaned`."""
    log.cleaner_checkpoint = first_dirty_offset
    kept = {id(segment) for segment in before}
    swapped = tuple(s.base_offset for s in log.segments if id(s) not in kept)
    cleaned = error.cleaned if isinstance(error, CleanerThrew) else None
    log.left_cleaned = [] if cleaned is None else [cleaned]
    return CleanerFailure(
        log.name,
        at_ms,
        str(error),
        first_dirty_offset,
        swapped_in=swapped,
        left_cleaned=() if cleaned is None else cleaned_file_names(cleaned),
        thread_stopped=not version.marks_uncleanable,
    )
