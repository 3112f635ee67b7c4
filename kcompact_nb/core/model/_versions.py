"""``kafka.version``: which Apache Kafka release's cleaner the simulator imitates (spec 15).

Version-dependent rules, each with the change that introduced it:

==========================  =====================================================  ==========================
rule                        change                                                 releases
==========================  =====================================================  ==========================
rule A by last data offset  KAFKA-8335 (#6715; before: by last sequence)          2.2.1 and later
txn state across segments   KAFKA-8351 (#6722; before: per source segment)         2.2.2 and later
max.compaction.lag.ms       KIP-354 (apache/kafka#6009)                            2.3.0 and later
producers below log start   KAFKA-7190 (#7388; before: dropped on loading)         2.4.0 and later
log line's dirty section    apache/kafka#8435 (before: ``[first, first]``)         2.6.0 and later
time index of an append     apache/kafka#14697 (before: by record offset)          3.7.0 and later
delete horizon in header    KIP-534 / KAFKA-8522 (#10914)                          3.1.0 and later
rule B, first uncleanable   KAFKA-17076 (#17193; 3.9 backport #20535, Nov 2025)    4.0.0-4.3.x, 3.9.2 and later
rule B, high watermark      KAFKA-20452 (#22089, merged April 2026)                4.4.0 and later
log.segment.bytes >= 1 MiB  KIP-1030 / KAFKA-16368 (#18140)                       4.0.0 and later
segment.bytes >= 1 MiB      KIP-1030 / KAFKA-19080 (#19371)                        4.1.0 and later
index entries per batch     KAFKA-806 (#18012; backports #18842, #18843)           3.9.1-3.9.x, 4.0.1 and later
uncleanable partitions      KIP-346 / KAFKA-7215 (before: the thread stops)        2.1.0 and later
==========================  =====================================================  ==========================

Properties and values a release does not know (``compression.*.level`` before 3.8...) are in
``_release_configs``.

Both rule B variants were observed on real brokers with ``tools/make_samples.py``'s probe: 3.9.2, 4.2.0,
4.3.0 and 4.3.1 keep the emptied batch ending the cleanable range; 4.4.0 drops it.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from functools import cached_property

from kcompact_nb.core.model._errors import ConfigError

DEFAULT_KAFKA_VERSION = "4.4.0"
"""The newest Apache Kafka release on Maven Central when this was written; the default broker."""

_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?$")
KNOWN_RELEASE_LINES = {2: range(0, 9), 3: range(0, 10), 4: range(0, 5)}
"""Apache Kafka's release lines (major -> minors) from 2.0 to the newest, 4.4; any patch release of them."""


class RuleB(enum.StrEnum):
    """How a release keeps the batch at the end of the cleaned range (spec 7.3 rule B)."""

    ABSENT = "absent"
    FIRST_UNCLEANABLE_OFFSET = "first_uncleanable_offset"
    HIGH_WATERMARK = "high_watermark"


@dataclass(frozen=True, order=True)
class KafkaVersion:
    """A parsed Kafka release number such as ``4.0`` or ``3.9.1``."""

    major: int
    minor: int
    patch: int = 0

    @classmethod
    def parse(cls, text: str) -> KafkaVersion:
        match = _VERSION.match(str(text).strip())
        if match is None:
            message = f"Invalid value {text!r} for configuration kafka.version: expected MAJOR.MINOR[.PATCH]"
            raise ConfigError(message)
        major, minor, patch = match.groups()
        version = cls(int(major), int(minor), int(patch or 0))
        if version < cls(2, 0):
            raise ConfigError(f"Invalid value {text!r} for configuration kafka.version: Value must be at least 2.0")
        if version.minor not in KNOWN_RELEASE_LINES.get(version.major, ()):
            lines = ", ".join(f"{major}.{m.start}-{major}.{m.stop - 1}" for major, m in KNOWN_RELEASE_LINES.items())
            message = (
                f"Invalid value {text!r} for configuration kafka.version: not an Apache Kafka release line the "
                f"simulator knows; known: {lines} (any patch release of them, e.g. 3.9.2 or 4.4.0)"
            )
            raise ConfigError(message)
        return version

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"

    @cached_property
    def has_max_compaction_lag(self) -> bool:
        """Asked by every ``log_to_clean`` (several per scenario step): computed once per version."""
        return self >= KafkaVersion(2, 3)

    @cached_property
    def has_batch_delete_horizon(self) -> bool:
        """Asked for every batch a pass reads: computed once per version."""
        return self >= KafkaVersion(3, 1)

    @property
    def keeps_last_batch_by_offset(self) -> bool:
        """Rule A keeps a producer's batch ending at its last data offset (KAFKA-8335, 2.2.1); before, any batch
        ending at its last sequence number, in whatever epoch (``activeProducersWithLastSequence``)."""
        return self >= KafkaVersion(2, 2, 1)

    @property
    def carries_transactions_across_segments(self) -> bool:
        """A pass tracks transactions across its source segments (KAFKA-8351, 2.2.2); before, each source segment
        began with fresh ``CleanedTransactionMetadata``."""
        return self >= KafkaVersion(2, 2, 2)

    @property
    def retains_producers_below_log_start(self) -> bool:
        """Loading a snapshot keeps a producer whose last data offset is below the log start offset (KAFKA-7190,
        2.4); before, ``loadFromSnapshot`` dropped it (``isProducerRetained``)."""
        return self >= KafkaVersion(2, 4)

    @property
    def logs_dirty_section_end(self) -> bool:
        """The pass's log line ends its dirty section at the pass's end offset; before 2.6 ``recordStats`` was
        given the end offset before the pass updated it, so the line read ``[first dirty, first dirty]``."""
        return self >= KafkaVersion(2, 6)

    @property
    def time_indexes_batch_last_offset(self) -> bool:
        """An appended uncompressed CreateTime batch's largest timestamp is indexed at the batch's last offset
        (apache/kafka#14697, 3.7: ``LogValidator.assignOffsetsNonCompressed`` reports it for every v2 batch; 3.8's
        KAFKA-16341 kept it); before, it reported the offset of the first record holding that timestamp, and the time
        index recorded it."""
        return self >= KafkaVersion(3, 7)

    @property
    def indexes_each_batch(self) -> bool:
        """KAFKA-806: ``LogSegment.append`` checks ``index.interval.bytes`` per batch, not once per append."""
        return KafkaVersion(3, 9, 1) <= self < KafkaVersion(4, 0) or self >= KafkaVersion(4, 0, 1)

    @property
    def deletes_snapshots_with_segments(self) -> bool:
        """KAFKA-9393 (2.8): deleting a segment (replaced by a cleaned one, or by retention) deletes its producer
        snapshot; before, the snapshot stays until the log start offset passes it."""
        return self >= KafkaVersion(2, 8)

    @property
    def marks_uncleanable(self) -> bool:
        """KIP-346: a pass that throws marks its partition uncleanable; before 2.1 the exception ended the thread."""
        return self >= KafkaVersion(2, 1)

    @property
    def rule_b(self) -> RuleB:
        if self >= KafkaVersion(4, 4):
            return RuleB.HIGH_WATERMARK
        if self >= KafkaVersion(4, 0) or self >= KafkaVersion(3, 9, 2):
            return RuleB.FIRST_UNCLEANABLE_OFFSET
        return RuleB.ABSENT
