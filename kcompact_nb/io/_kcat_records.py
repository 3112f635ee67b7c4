"""What kcat output holds: consumed records, what the output could not carry, and offset order."""

from __future__ import annotations

from dataclasses import dataclass

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
        """One partition's messages as a single-segment log of one-record batches (sizes as uncompressed)."""
        chosen = [m for m in self.messages if _selected(m, topic, partition)]
        name = topic if topic is not None else next((m.topic for m in chosen if m.topic), "kcat")
        number = (
            partition if partition is not None else next((m.partition for m in chosen if m.partition is not None), 0)
        )
        batches = [RecordBatch.build([m.record]) for m in sorted(chosen, key=lambda m: m.record.offset)]
        base = log_start_offset if log_start_offset is not None else (batches[0].base_offset if batches else 0)
        return build_partition_log(
            name, number, [SegmentData(base, batches)], config=config, broker=broker, log_start_offset=base
        )


def _selected(message: ConsumedRecord, topic: str | None, partition: int | None) -> bool:
    return (topic is None or message.topic == topic) and (partition is None or message.partition == partition)


class OffsetOrder:
    """Checks that each partition's offsets rise, as one kcat run prints them.

    Offsets that go back mean several partitions (or topics) in an output that does not name
    them, or several runs' outputs in one file: either way records would be put in the wrong
    partition or twice, so the output is refused with what to do instead.
    """

    def __init__(self) -> None:
        self._last: dict[tuple[str | None, int | None], int] = {}

    def disorder(self, message: ConsumedRecord) -> str | None:
        """Why ``message`` cannot follow the messages before it (``None`` when it can); then it is the last one seen."""
        where = (message.topic, message.partition)
        offset = message.record.offset
        previous = self._last.get(where)
        self._last[where] = offset
        if previous is not None and offset <= previous:
            return f"offset {offset} after offset {previous}: {_advice(message)}"
        return None


def _advice(message: ConsumedRecord) -> str:
    if message.partition is None:
        return (
            "offsets go back, so the output holds several partitions but does not say which; "
            "add %p (and %t) to the -f format, or consume one partition with kcat -p N"
        )
    if message.topic is None:
        return "offsets of one partition go back: several topics? add %t to the -f format, or consume one topic"
    return (
        "offsets of one partition go back: the file holds the partition more than once "
        "(outputs of several kcat runs appended?); read each run's output separately"
    )
