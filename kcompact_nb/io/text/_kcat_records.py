"""What kcat output holds: consumed records, what the output could not carry, and offset order."""

from __future__ import annotations

from dataclasses import dataclass, replace

from kcompact_nb.core import (
    BrokerConfig,
    PartitionLog,
    Record,
    RecordBatch,
    SegmentData,
    TimestampType,
    TopicConfig,
    build_partition_log,
)
from kcompact_nb.io._errors import DumpParseError


@dataclass(frozen=True)
class ConsumedRecord:
    """One message as a consumer saw it: where it came from and the record.

    ``timestamp_type`` is its timestamp type when printed (``-J``).
    """

    topic: str | None
    partition: int | None
    record: Record
    timestamp_type: TimestampType | None = None


@dataclass(frozen=True)
class KcatParse:
    """Messages parsed from kcat output.

    ``missing`` names the fields the output did not carry (``key``, ``value``, ``headers``,
    ``timestamp``, ``timestamp_type``, ``topic``, ``partition``); ``caveats`` says, per field, what the output
    cannot tell apart (e.g. empty and null values without ``%S``); ``status_lines`` are kcat's
    own ``%`` lines (its stderr) found in the output and skipped.
    """

    messages: tuple[ConsumedRecord, ...]
    missing: frozenset[str]
    caveats: tuple[str, ...] = ()
    status_lines: tuple[str, ...] = ()

    def records(self, topic: str | None = None, partition: int | None = None) -> list[Record]:
        """Records of one topic-partition (all when not given), in output order."""
        return [m.record for m in self.messages if _selected(m, topic, partition)]

    def partitions(self) -> list[tuple[str | None, int | None]]:
        """The ``(topic, partition)`` pairs in the output, in order of first appearance (None where not printed)."""
        return list(dict.fromkeys((m.topic, m.partition) for m in self.messages))

    def to_partition_log(
        self,
        topic: str | None = None,
        partition: int | None = None,
        *,
        config: TopicConfig | None = None,
        broker: BrokerConfig | None = None,
        log_start_offset: int | None = None,
    ) -> PartitionLog:
        """One partition's messages as a single-segment log of one-record batches (sizes as uncompressed).

        Raises
        ------
        DumpParseError : when the messages chosen are of several partitions, or of an unknown one
            (no ``%p`` and no partition stated when parsing).
        """
        chosen = [m for m in self.messages if _selected(m, topic, partition)]
        places = {(m.topic, m.partition) for m in chosen}
        if any(p is None for _, p in places):
            raise DumpParseError("<kcat output>", 1, UNKNOWN_PARTITION)
        if len(places) > 1:
            raise DumpParseError(
                "<kcat output>", 1, f"the records are of {len(places)} partitions: choose one (topic=, partition=)"
            )
        name, number = next(iter(places), (topic, partition))
        name = name if name is not None else "kcat"
        number = number if number is not None else 0
        batches = [RecordBatch.build([m.record]) for m in sorted(chosen, key=lambda m: m.record.offset)]
        base = log_start_offset if log_start_offset is not None else (batches[0].base_offset if batches else 0)
        return build_partition_log(
            name, number, [SegmentData(base, batches)], config=config, broker=broker, log_start_offset=base
        )


UNKNOWN_PARTITION = (
    "the partition is unknown: the -f format has no %p and no partition was stated, so the records may come "
    "from several partitions; add %p to the format, or state the partition kcat read with -p N "
    "(partition=N, kcompact kcat --partition N)"
)


def _selected(message: ConsumedRecord, topic: str | None, partition: int | None) -> bool:
    return (topic is None or message.topic == topic) and (partition is None or message.partition == partition)


def in_partition(message: ConsumedRecord, partition: int | None) -> ConsumedRecord | str:
    """``message`` placed in the partition the user stated (``kcat -p N``), or why it cannot be."""
    if partition is None or message.partition == partition:
        return message
    if message.partition is None:
        return replace(message, partition=partition)
    return (
        f"a record of partition {message.partition} in output stated to hold partition {partition} only "
        f"(kcat -p {partition}): state the partition kcat was given, or none"
    )


class OffsetOrder:
    """Checks that each known partition's offsets rise, as one kcat run prints them.

    Offsets that go back mean several topics in an output that does not name them, or several
    runs' outputs in one file: either way records would be put in the wrong partition or twice,
    so the output is refused with what to do instead. Records of an unknown partition (no ``%p``
    and none stated) are not checked: they may come from several partitions.
    """

    def __init__(self) -> None:
        self._last: dict[tuple[str | None, int | None], int] = {}
        self._undo: tuple[tuple[str | None, int | None], int | None] | None = None

    def forget_last(self) -> None:
        """Take back the last message given to :meth:`disorder` (it is read again)."""
        if self._undo is not None:
            where, previous = self._undo
            if previous is None:
                self._last.pop(where, None)
            else:
                self._last[where] = previous
            self._undo = None

    def disorder(self, message: ConsumedRecord) -> str | None:
        """Why ``message`` cannot follow the messages before it (``None`` when it can); then it is the last one seen."""
        if message.partition is None:
            return None  # the partition is unknown: offsets of several partitions may interleave
        where = (message.topic, message.partition)
        offset = message.record.offset
        previous = self._last.get(where)
        self._last[where], self._undo = offset, (where, previous)
        if previous is not None and offset <= previous:
            return f"offset {offset} after offset {previous}: {_advice(message)}"
        return None


def _advice(message: ConsumedRecord) -> str:
    if message.topic is None:
        return "offsets of one partition go back: several topics? add %t to the -f format, or consume one topic"
    return (
        "offsets of one partition go back: the file holds the partition more than once "
        "(outputs of several kcat runs appended?); read each run's output separately"
    )
