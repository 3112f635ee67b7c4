"""One iteration of Kafka's log cleaner over a broker log dir, written as the log dir it leaves.

:func:`clean_log_dir` is what ``kcompact clean`` does, for notebooks and programs too: read the log dir (never
modified; partitions of at least ``on_disk_from_bytes`` bytes read on disk and their passes streamed from the
segment files, ``kcompact clean``'s smaller ones held as their files' bytes and streamed from those), add its
partitions to a simulated broker in the order the directory lists them (the order a broker loads them in, which
decides the log pool order), run one cleaner iteration at ``now_ms`` (the filthiest eligible partition, then
compacted-log retention), and write the result in Kafka's layout, all or nothing. A read that meets a running
broker's changes starts again (:func:`read_consistently`). A partition holding a batch the cleaner cannot read fails
its pass and is marked uncleanable, as on a broker, and the thread's next iteration cleans the next filthiest.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from kcompact_nb.core import BrokerConfig, PassResult, Simulation, TopicConfig
from kcompact_nb.io.logdir._broker_log_dir import write_broker_log_dir
from kcompact_nb.io.logdir._live_reads import read_consistently
from kcompact_nb.io.logdir._log_reader import LoadedPartition, read_log_dir
from kcompact_nb.io.logdir._read_options import ReadOptions
from kcompact_nb.io.logdir._segment_files import SegmentFiles
from kcompact_nb.io.logdir._staged_output import discard_own_staging, scratch_folder


@dataclass(frozen=True)
class LogDirCleaning:
    """What one cleaner iteration left: the simulated broker after it, its pass (``None``: no partition was
    eligible or no cleaner runs), and each partition's log start offset before it (retention may move them). A
    partition read on disk reads its batches from ``out``'s files, those the iteration wrote."""

    simulation: Simulation
    result: PassResult | None
    start_offsets: Mapping[str, int]
    out: Path


def clean_log_dir(
    log_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    now_ms: int,
    broker: BrokerConfig | None = None,
    config: TopicConfig | None = None,
    topic_configs: Mapping[str, TopicConfig] | None = None,
    overwrite: bool = False,
    on_disk_from_bytes: int | None = None,
    hold_bytes: bool = False,
    progress: bool | None = None,
    on_stale: Callable[[Path], None] | None = None,
) -> LogDirCleaning:
    """Run the broker's next cleaner iteration at ``now_ms`` over ``log_dir`` and write what it leaves to ``out``.

    ``broker``, ``config`` (every topic's) and ``topic_configs`` (one topic's) as for :func:`read_log_dir`: log
    dirs store no topic configs; partitions holding at least ``on_disk_from_bytes`` bytes are read on disk, the
    others whole (with ``hold_bytes``, as their files' bytes: :class:`ReadOptions`). ``out`` is refused when not
    empty unless ``overwrite``; it is written beside its place and renamed into it when complete (``on_stale`` hears
    of unfinished copies a killed run left there).
    """
    source, target = Path(log_dir), Path(out)
    configs = _Configs(broker or BrokerConfig(), config, topic_configs or {})
    options = _Options(overwrite, on_disk_from_bytes, hold_bytes, progress, on_stale)
    try:
        return read_consistently(lambda: _clean_once(source, target, now_ms, configs, options), source)
    except BaseException:  # a signal may strike between a scratch folder's creation and its removal
        discard_own_staging(target)
        raise


@dataclass(frozen=True)
class _Configs:
    broker: BrokerConfig
    every_topic: TopicConfig | None
    per_topic: Mapping[str, TopicConfig]

    def of(self, topic: str) -> Mapping[str, object] | None:
        """The topic's properties that differ from what a compacted topic of this broker has by default (the
        simulation declares the topic from them; a release refuses properties it does not know, even at default)."""
        chosen = self.per_topic.get(topic, self.every_topic)
        if chosen is None:
            return None
        return {name: value for name, value in chosen.to_properties().items() if self.baseline.get(name) != value}

    @cached_property
    def baseline(self) -> Mapping[str, object]:
        """A compacted topic's properties under this broker when nothing is set (computed once)."""
        return TopicConfig.from_properties({"cleanup.policy": "compact"}, broker=self.broker).to_properties()


@dataclass(frozen=True)
class _Options:
    overwrite: bool
    on_disk_from_bytes: int | None
    hold_bytes: bool
    progress: bool | None
    on_stale: Callable[[Path], None] | None


def _clean_once(source: Path, out: Path, now_ms: int, configs: _Configs, options: _Options) -> LogDirCleaning:
    sim = Simulation(configs.broker, start_ms=now_ms)
    streamed: dict[str, SegmentFiles] = {}
    with scratch_folder(out, "cleaned", on_stale=options.on_stale) as scratch:
        try:
            read = ReadOptions(
                config=configs.every_topic, topic_configs=configs.per_topic, broker=configs.broker, now_ms=now_ms,
                progress=options.progress, on_disk_from_bytes=options.on_disk_from_bytes,
                hold_bytes=options.hold_bytes, cleaned_into=scratch,
                read_attempts=1, as_cleaner_reads=True,
            )  # fmt: skip
            loaded = read_log_dir(source, read)
            for name in _listing_order(source, loaded.partitions):
                log = loaded.partitions[name].log
                if isinstance(log.storage, SegmentFiles):  # read on disk or as its files' bytes: its pass streams them
                    streamed[name] = log.storage
                sim.add_log(log, config=configs.of(log.topic))
            starts = {log.name: log.log_start_offset for log in sim.partitions()}
            result = _next_pass(sim)
            written = {name: files.written for name, files in streamed.items()}
            left = {name: files.left_cleaned() for name, files in streamed.items()}  # a pass that threw: its leftovers
            logs = sim.partitions_in_creation_order()
            write_broker_log_dir(logs, out, source=source, overwrite=options.overwrite, written=written, left=left)
            for name, files in streamed.items():  # the scratch folder goes: the logs read on are the ones written
                files.read_from(out / name)
        finally:
            for files in streamed.values():
                files.close()
    return LogDirCleaning(sim, result, starts, out)


def _next_pass(sim: Simulation) -> PassResult | None:
    """The cleaner thread's iterations until one cleans a log or none is eligible: an iteration whose pass throws
    (a batch it cannot read) marks that partition uncleanable, and the next, ``log.cleaner.backoff.ms`` later
    (``CleanerThread.doWork``), takes the next filthiest."""
    while True:
        failures = len(sim.cleaner.failures)
        result = sim.clean()
        if result is not None or len(sim.cleaner.failures) == failures:
            return result
        sim.advance(sim.broker.log_cleaner_backoff_ms)


def _listing_order(source: Path, partitions: Mapping[str, LoadedPartition]) -> list[str]:
    """Partition folders in the order the directory lists them (``File.listFiles``, which the broker
    loads them in; it decides the log pool order, and so which of equally dirty logs goes first)."""
    listed = [name for name in os.listdir(source) if name in partitions]
    return listed + sorted(set(partitions) - set(listed))
