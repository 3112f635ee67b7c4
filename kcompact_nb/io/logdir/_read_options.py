"""The keywords every reader of partition folders takes, documented once (``**options`` of the readers)."""

from __future__ import annotations

from typing import TypedDict

from kcompact_nb.core import BrokerConfig, TopicConfig


class ReadOptions(TypedDict, total=False):
    """What :func:`~kcompact_nb.io.read_partition_dir`, :func:`~kcompact_nb.io.scan_partition_dir`,
    :func:`~kcompact_nb.io.read_log_dir` and :func:`~kcompact_nb.io.predict_partition_dir` take as ``**options``.

    Log dirs store no configs, so the reader is told them; every key may be left out.
    """

    config: TopicConfig | None
    """The topic config the partitions get (default: ``cleanup.policy=compact``, Kafka's defaults otherwise;
    for :func:`~kcompact_nb.io.read_log_dir`, the topics its ``topic_configs`` does not name)."""
    broker: BrokerConfig | None
    """The broker config (default: Kafka's defaults, for ``kafka.version`` the newest release)."""
    verify_crc: bool
    """Check every batch's CRC-32C as ``DefaultRecordBatch.ensureValid`` does (default: True)."""
    progress: bool | None
    """Show a tqdm bar (default None: only for big reads on a terminal)."""
