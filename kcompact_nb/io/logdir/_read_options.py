"""How partition directories and log dirs are read: one value every reader takes (:class:`ReadOptions`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kcompact_nb.core import BrokerConfig, TopicConfig
from kcompact_nb.io.logdir._live_reads import READ_ATTEMPTS


@dataclass(frozen=True)
class ReadOptions:
    """How :func:`~kcompact_nb.io.read_partition_dir` and :func:`~kcompact_nb.io.read_log_dir` read.

    Log dirs store no topic configs, so the reader is told them; every field has a default.

    Attributes
    ----------
    config
        The topic config partitions get (default: ``cleanup.policy=compact``, Kafka's defaults otherwise); for a log
        dir, that of the topics ``topic_configs`` does not name.
    topic_configs
        Per-topic configs (a log dir's topics by name).
    broker
        The broker config (default: Kafka's defaults, for ``kafka.version`` the newest release).
    now_ms
        When given, producers idle for ``producer.id.expiration.ms`` are expired after loading.
    verify_crc
        Check every batch's CRC-32C as ``DefaultRecordBatch.ensureValid`` does.
    recover
        Keep the valid prefix of a corrupt log instead of raising: the first invalid batch and the rest of its file
        are dropped, and so are all later segments (``LogLoader.recoverLog``). Partitions read on disk are not
        recovered.
    keep_raw
        Keep each batch's bytes, so that a batch kept whole is written back identically.
    on_disk_from_bytes
        Partitions holding at least this many bytes of segments keep their batches in their files, read when asked
        (their batch headers are read once, their records when a pass, a view or a writer asks): memory that does not
        grow with the records. 0: every partition; None (the default): none.
    hold_bytes
        Partitions read in memory (below ``on_disk_from_bytes``, not ``recover``ed) hold their segment files' bytes,
        each file read once, instead of every batch decoded: read then as partitions on disk are (their batch headers
        once, their records when a pass, a view or a writer asks), from those bytes, never from the files again (a
        consistent copy of a live log dir, at the memory of the files' size).
    cleaned_into
        Where passes over a partition read on disk write the segments they clean, as Kafka writes ``.cleaned`` files
        (its ``<topic>-<partition>/`` folder there, made when read; renamed ``.log`` when swapped in): memory stays
        bounded whatever the partition's size. None: they are kept in memory.
    as_cleaner_reads
        Without ``recover``, a partition holding a corrupt batch is read as Kafka's cleaner reads it instead of
        raising: on disk, CRCs not checked, its ``corrupt`` naming the first batch the cleaner cannot read.
    topics
        A log dir's topics to read (None: every one).
    read_attempts
        Reads of a log dir a running broker keeps changing, from a fresh listing each time (1 for a caller that
        retries a larger job itself).
    progress
        Show a tqdm bar (None: only for big reads on a terminal).
    """

    config: TopicConfig | None = None
    topic_configs: Mapping[str, TopicConfig] = field(default_factory=dict)
    broker: BrokerConfig | None = None
    now_ms: int | None = None
    verify_crc: bool = True
    recover: bool = False
    keep_raw: bool = True
    on_disk_from_bytes: int | None = None
    hold_bytes: bool = False
    cleaned_into: Path | None = None
    as_cleaner_reads: bool = False
    topics: Collection[str] | None = None
    read_attempts: int = READ_ATTEMPTS
    progress: bool | None = None

    def config_of(self, topic: str) -> TopicConfig | None:
        """The config ``topic``'s partitions get: its own, else every topic's."""
        return self.topic_configs.get(topic, self.config)

    def on_disk(self, segment_bytes: int) -> bool:
        """Whether a partition holding ``segment_bytes`` bytes of segments keeps its batches in its files."""
        return self.on_disk_from_bytes is not None and segment_bytes >= self.on_disk_from_bytes

    def holds(self, segment_bytes: int) -> bool:
        """Whether a partition holding ``segment_bytes`` bytes of segments is read in memory as its files' bytes."""
        return self.hold_bytes and not self.recover and not self.on_disk(segment_bytes)
