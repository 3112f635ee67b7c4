"""Read Kafka partition directories and whole log directories into core :class:`PartitionLog` values.

A log dir holds one ``<topic>-<partition>/`` directory per partition plus checkpoint files.
Batches come from the ``.log`` segment files; producer state is the latest usable ``.snapshot`` file's and the
batches' after it, as ``LogLoader`` loads it (:mod:`~kcompact_nb.io.logdir._stored_producer_state`; rebuilt from
the batches without snapshots). Index entries and aborted transactions are what the broker's ``.index``,
``.timeindex`` and ``.txnindex`` files hold, where it wrote them (:mod:`~kcompact_nb.io.logdir._stored_indexes`),
and rebuilt from the batches otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self, Unpack

from kcompact_nb.core import (
    CLEANED_FILE_SUFFIX,
    DELETED_FILE_SUFFIX,
    IN_FLIGHT_FILE_SUFFIXES,
    LEFTOVER_FILE_SUFFIXES,
    LOG_FILE_SUFFIX,
    METADATA_LOG_TOPIC,
    PRODUCER_SNAPSHOT_FILE_SUFFIX,
    SEGMENT_FILE_NAME,
    SEGMENT_FILE_SUFFIXES,
    SWAP_FILE_SUFFIX,
    BrokerConfig,
    CleanerFailure,
    KeyRegistry,
    PartitionLog,
    ProducerSnapshot,
    RecordBatch,
    SegmentData,
    TopicConfig,
    cyclic_gc_paused,
    load_log,
    topic_partition_of_dir,
)
from kcompact_nb.io._errors import CorruptBatchError, LogReadError, NotASegmentError, OffsetOrderError
from kcompact_nb.io._input_files import file_kind
from kcompact_nb.io.files import (
    CLEANER_OFFSET_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    TopicPartition,
    read_checkpoint,
)
from kcompact_nb.io.logdir._failed_pass import failed_pass
from kcompact_nb.io.logdir._header_scan import header_segments, mtime_ms
from kcompact_nb.io.logdir._live_reads import (
    READ_ATTEMPTS,
    FileState,
    changes_since,
    directory_state,
    read_consistently,
)
from kcompact_nb.io.logdir._progress import ByteProgress
from kcompact_nb.io.logdir._read_options import ReadOptions
from kcompact_nb.io.logdir._segment_framing import DroppedBytes
from kcompact_nb.io.logdir._segment_reader import SegmentFileReader
from kcompact_nb.io.logdir._stored_indexes import take_stored_indexes
from kcompact_nb.io.logdir._stored_producer_state import producer_snapshots
from kcompact_nb.record import release_key_table

_KNOWN_SUFFIXES = (*SEGMENT_FILE_SUFFIXES, PRODUCER_SNAPSHOT_FILE_SUFFIX)
_KNOWN_FILES = ("leader-epoch-checkpoint", "partition.metadata")
_LEFTOVER_MEANING = {
    CLEANED_FILE_SUFFIX: "a cleaner pass's unfinished output: a pass that threw left it (its broker marked the "
    "partition uncleanable) or one was under way; Kafka deletes it at startup",
    SWAP_FILE_SUFFIX: "a cleaned segment not yet swapped in; Kafka completes the swap at startup",
    DELETED_FILE_SUFFIX: "a replaced segment awaiting deletion; Kafka deletes it at startup",
}


@dataclass
class LoadedPartition:
    """A partition directory read into a :class:`PartitionLog`, with what was dropped or left alone.

    ``dropped`` lists byte ranges removed by ``recover=True`` (Kafka's log recovery truncation);
    ``leftovers`` the ``.cleaned``/``.swap``/``.deleted`` files found (reported, not read);
    ``notes`` anything else worth knowing (ignored files, producer epoch anomalies). ``files`` is set for a
    scanned partition (:func:`scan_partition_dir`): its segments hold no batches, these files do (base offset
    -> ``.log`` file). ``corrupt`` is the first batch Kafka's cleaner cannot read, in a partition read with
    ``keep_corrupt``: a pass that reaches it fails there (``verify_crc`` is then False: the cleaner never
    checks CRCs). ``verify_crc`` is also how a pass streaming ``files`` reads them: as the partition was read.
    ``failed_pass`` is the pass that threw and left ``NNN.log.cleaned`` (:func:`failed_pass`), read with the
    partition: a ``.cleaned`` file that a running broker's pass changed during the read makes the read start again.
    """

    log: PartitionLog
    path: Path
    dropped: list[DroppedBytes] = field(default_factory=list)
    leftovers: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    files: dict[int, Path] | None = None
    corrupt: CorruptBatchError | None = None
    verify_crc: bool = True
    failed_pass: CleanerFailure | None = None

    @property
    def scanned(self) -> bool:
        """The partition was scanned: its segments are known by their metadata, their batches stay on disk."""
        return self.files is not None


@dataclass
class LoadedLogDir:
    """A whole log dir: its partitions and the three checkpoint files' entries."""

    path: Path
    partitions: dict[str, LoadedPartition]
    cleaner_checkpoints: dict[TopicPartition, int]
    log_start_offsets: dict[TopicPartition, int]
    recovery_points: dict[TopicPartition, int]
    skipped: list[tuple[str, str]] = field(default_factory=list)

    @property
    def logs(self) -> dict[str, PartitionLog]:
        """Each partition's log by directory name (``topic-partition``)."""
        return {name: loaded.log for name, loaded in self.partitions.items()}


def parse_partition_dir_name(path: Path) -> tuple[str, int]:
    """``(topic, partition)`` from a ``<topic>-<partition>`` directory name."""
    found = topic_partition_of_dir(path.name)
    if found is None:
        raise NotASegmentError(path, None, "not a partition directory: expected a name like my-topic-0")
    return found


def _require_dir(path: Path, what: str) -> None:
    if not path.exists():
        raise NotASegmentError(path, None, "does not exist")
    if not path.is_dir():
        raise NotASegmentError(path, None, f"is a file, not a {what}")


def segment_files(path: Path) -> list[Path]:
    """The partition directory's segment files in base-offset order (regular files, as ``File.isFile`` keeps)."""
    return sorted((p for p in path.iterdir() if SEGMENT_FILE_NAME.match(p.name) and p.is_file()), key=lambda p: p.name)


def skipped_entries(path: Path) -> list[str]:
    """Notes for what a partition directory holds under a Kafka file name that is no regular file (a FIFO, a
    device, a folder, a symbolic link that loops): Kafka's log loading skips it (``File.isFile``), and so do we."""
    return [
        f"ignored {entry}: {kind}, not a regular file; Kafka's log loading skips it (File.isFile)"
        for entry in sorted(path.iterdir(), key=lambda p: p.name)
        if entry.name.endswith(_KNOWN_SUFFIXES) and (kind := file_kind(entry)) is not None
    ]


def read_partition_dir(
    path: str | os.PathLike[str],
    *,
    now_ms: int | None = None,
    log_start_offset: int | None = None,
    cleaner_checkpoint: int | None = None,
    recover: bool = False,
    keep_raw: bool = True,
    **options: Unpack[ReadOptions],
) -> LoadedPartition:
    """Read one ``<topic>-<partition>/`` directory (``LogLoader.load``).

    Parameters
    ----------
    path:
        The partition directory; never modified.
    now_ms:
        When given, producers idle for ``producer.id.expiration.ms`` are expired after loading.
    log_start_offset:
        From ``log-start-offset-checkpoint``; the log start offset becomes
        ``max(log_start_offset, first segment's base offset)`` as in ``LogLoader``.
    cleaner_checkpoint:
        The partition's ``cleaner-offset-checkpoint`` entry, stored as is.
    recover:
        Keep the valid prefix of a corrupt log instead of raising: the first invalid batch and
        the rest of its file are dropped, and so are all later segments (``LogLoader.recoverLog``).
    keep_raw:
        Keep each batch's bytes, so that a batch kept whole is written back identically.
    options:
        :class:`ReadOptions`: ``config``, ``broker``, ``verify_crc``, ``progress``.
    """
    read = _ReadOptions.of(options, now_ms, recover=recover, keep_raw=keep_raw)
    return _load_one(Path(path), read, options.get("progress"), log_start_offset, cleaner_checkpoint)


def scan_partition_dir(
    path: str | os.PathLike[str],
    *,
    now_ms: int | None = None,
    log_start_offset: int | None = None,
    cleaner_checkpoint: int | None = None,
    **options: Unpack[ReadOptions],
) -> LoadedPartition:
    """Read the batch headers of a ``<topic>-<partition>/`` directory, one segment file at a time.

    The log :func:`read_partition_dir` gives (``LogLoader`` without index files), but its segments are
    :class:`~kcompact_nb.core.StoredSegment` values holding no batches: sizes, timestamps, index entries,
    producer state and aborted transactions, what a broker keeps in memory, in memory that does not grow
    with the records. Records are decoded only in control batches. A pass streams the batches from
    ``files`` (:func:`kcompact_nb.io.predict_partition_dir`). Parameters are :func:`read_partition_dir`'s;
    there is no recovery: a corrupt batch raises.
    """
    read = _ReadOptions.of(options, now_ms, recover=False, keep_raw=False, scan=True)
    return _load_one(Path(path), read, options.get("progress"), log_start_offset, cleaner_checkpoint)


def _load_one(
    path: Path, options: _ReadOptions, progress: bool | None, log_start_offset: int | None, checkpoint: int | None
) -> LoadedPartition:
    """One partition dir, read again from a fresh listing when a running broker changed it meanwhile."""
    _require_dir(path, "partition directory")
    parse_partition_dir_name(path)

    def read() -> LoadedPartition:
        begun = directory_state(path)
        total = sum(f.stat().st_size for f in segment_files(path))
        with ByteProgress(total, f"{path.name} (headers)" if options.scan else path.name, progress) as bar:
            loaded = _load_partition(
                path, options, bar, log_start_offset=log_start_offset, cleaner_checkpoint=checkpoint
            )
        _require_settled_passes(path, begun, [loaded])
        return loaded

    return read_consistently(read, path)


@dataclass(frozen=True)
class _ReadOptions:
    config: TopicConfig | None
    broker: BrokerConfig | None
    now_ms: int | None
    recover: bool
    verify_crc: bool
    keep_raw: bool
    scan: bool = False
    """Batch headers only, into stored segments (:func:`scan_partition_dir`)."""

    @classmethod
    def of(cls, options: ReadOptions, now_ms: int | None, *, recover: bool, keep_raw: bool, scan: bool = False) -> Self:
        config, broker = options.get("config"), options.get("broker")
        return cls(config, broker, now_ms, recover, options.get("verify_crc", True), keep_raw, scan)


@cyclic_gc_paused()  # a load allocates batches by the ten thousand and no reference cycles
def _load_partition(
    path: Path,
    options: _ReadOptions,
    bar: ByteProgress,
    *,
    log_start_offset: int | None,
    cleaner_checkpoint: int | None,
) -> LoadedPartition:
    topic, partition = parse_partition_dir_name(path)
    loaded = LoadedPartition(log=PartitionLog(topic, partition), path=path, verify_crc=options.verify_crc)
    _scan_other_files(path, loaded)
    files = segment_files(path)
    if options.scan:
        loaded.files = {int(f.name[:20]): f for f in files}
        segments: Iterable[tuple[int, int, Iterable[RecordBatch]]] = header_segments(
            files, verify_crc=options.verify_crc, on_bytes=bar.update
        )
    else:
        segments = ((s.base_offset, s.last_modified_ms, s.batches) for s in _read_segments(files, loaded, bar, options))
    _load_log(loaded, segments, options, (log_start_offset, cleaner_checkpoint), stored=options.scan)
    take_stored_indexes(loaded.log, path, loaded.notes)
    return loaded


def _load_log(
    loaded: LoadedPartition,
    segments: Iterable[tuple[int, int, Iterable[RecordBatch]]],
    options: _ReadOptions,
    offsets: tuple[int | None, int | None],
    *,
    stored: bool,
) -> None:
    """``loaded.log`` from its segments' batches (``LogLoader``); ``offsets``: log start offset, cleaner checkpoint.

    Its producer state is the latest usable producer snapshot's and the batches' after it.
    """
    loaded.log = load_log(
        loaded.log.topic,
        loaded.log.partition,
        segments,
        config=options.config,
        broker=options.broker,
        log_start_offset=offsets[0],
        cleaner_checkpoint=offsets[1],
        now_ms=options.now_ms,
        notes=loaded.notes,
        stored=stored,
        producer_snapshots=_snapshots(loaded, offsets[0]),
    )
    loaded.failed_pass = failed_pass(loaded.log, loaded.path)


def _snapshots(loaded: LoadedPartition, log_start_offset: int | None) -> list[ProducerSnapshot]:
    """The producer snapshots the partition's loading may take; after a recovery dropped bytes the log end offset
    may be below the last segment file's base offset, and every snapshot is a candidate."""
    bases = [int(f.name[:20]) for f in segment_files(loaded.path)]
    if not bases:
        return []
    start = max(log_start_offset or 0, bases[0])
    last = start if loaded.dropped else bases[-1]
    return producer_snapshots(loaded.path, start, last, loaded.notes)


def _read_segments(
    files: list[Path], loaded: LoadedPartition, bar: ByteProgress, options: _ReadOptions
) -> list[SegmentData]:
    segments: list[SegmentData] = []
    next_offset: int | None = None
    keys = KeyRegistry()
    for index, file in enumerate(files):
        if loaded.dropped:
            size = file.stat().st_size
            reason = f"follows a truncated segment; Kafka's log recovery deletes every later segment ({size} bytes)"
            loaded.dropped.append(DroppedBytes(str(file), 0, size, reason))
            continue
        end = int(files[index + 1].name[:20]) if index + 1 < len(files) else None
        reader = SegmentFileReader(
            file,
            min_offset=next_offset,
            end_offset=end,
            verify_crc=options.verify_crc,
            keep_raw=options.keep_raw,
            recover=options.recover,
            on_bytes=bar.update,
            key_registry=keys,
        )
        batches = list(reader)
        if reader.dropped is not None:
            loaded.dropped.append(reader.dropped)
        if batches:
            next_offset = batches[-1].last_offset + 1
        segments.append(SegmentData(int(file.name[:20]), batches, mtime_ms(file)))
    release_key_table(keys)  # the partition is read: its keys' hash table is not needed again
    return segments


def _scan_other_files(path: Path, loaded: LoadedPartition) -> None:
    loaded.notes.extend(skipped_entries(path))
    for entry in sorted(path.iterdir(), key=lambda p: p.name):
        name = entry.name
        if name.endswith(IN_FLIGHT_FILE_SUFFIXES):
            continue
        suffix = next((s for s in LEFTOVER_FILE_SUFFIXES if name.endswith(s)), None)
        if suffix is not None:
            loaded.leftovers.append((str(entry), _LEFTOVER_MEANING[suffix]))
        elif not (name.endswith(_KNOWN_SUFFIXES) or name in _KNOWN_FILES) or (
            name.endswith(LOG_FILE_SUFFIX) and not SEGMENT_FILE_NAME.match(name)
        ):
            loaded.notes.append(f"ignored {entry}: not a file Kafka keeps in a partition directory")


def read_log_dir(
    path: str | os.PathLike[str],
    *,
    now_ms: int | None = None,
    topic_configs: Mapping[str, TopicConfig] | None = None,
    topics: Collection[str] | None = None,
    recover: bool = False,
    keep_raw: bool = True,
    scan_from_bytes: int | None = None,
    read_attempts: int = READ_ATTEMPTS,
    keep_corrupt: bool = False,
    **options: Unpack[ReadOptions],
) -> LoadedLogDir:
    """Read every partition of a broker log dir and apply its checkpoint files.

    ``cleaner-offset-checkpoint`` sets each partition's cleaner checkpoint and
    ``log-start-offset-checkpoint`` its log start offset; ``recovery-point-offset-checkpoint``
    is returned as read. ``topic_configs`` gives per-topic configs (others get ``options``' ``config``);
    ``topics`` restricts the read; ``now_ms``, ``recover``, ``keep_raw`` and ``options`` (:class:`ReadOptions`)
    are :func:`read_partition_dir`'s. Directories that are not partitions (``-delete``,
    ``-future``, ``-stray`` suffixes, or anything else) and the KRaft metadata log
    (``__cluster_metadata-0``) are listed in ``skipped``. Partitions holding at least ``scan_from_bytes`` bytes
    of segments are scanned (:func:`scan_partition_dir`: metadata only, batches left on disk), not read whole.
    A read that fails while a running broker changes the dir starts again from a fresh listing, up to
    ``read_attempts`` reads in all (1 for a caller that retries a larger job itself). With ``keep_corrupt`` (and
    without ``recover``) a partition holding a corrupt batch is read as Kafka's cleaner reads it instead of
    raising (:func:`_load_corrupt_partition`): its ``corrupt`` names the first batch the cleaner cannot read.
    """
    path = Path(path)
    _require_dir(path, "log directory")

    def read() -> LoadedLogDir:  # again from a fresh listing when a running broker changed the dir meanwhile
        begun = directory_state(path)
        cleaner = read_checkpoint(path / CLEANER_OFFSET_CHECKPOINT)
        starts = read_checkpoint(path / LOG_START_OFFSET_CHECKPOINT)
        recovery = read_checkpoint(path / RECOVERY_POINT_CHECKPOINT)
        result = LoadedLogDir(path, {}, cleaner, starts, recovery)
        chosen = _partition_dirs(path, topics, result.skipped)
        total = sum(f.stat().st_size for d in chosen for f in segment_files(d))
        with ByteProgress(total, path.name, options.get("progress")) as bar:
            for directory in chosen:
                topic, partition = parse_partition_dir_name(directory)
                scan = (
                    scan_from_bytes is not None
                    and sum(f.stat().st_size for f in segment_files(directory)) >= scan_from_bytes
                )
                own: ReadOptions = {**options, "config": (topic_configs or {}).get(topic, options.get("config"))}
                read_options = _ReadOptions.of(own, now_ms, recover=recover and not scan, keep_raw=keep_raw, scan=scan)
                key = (topic, partition)
                result.partitions[directory.name] = _load_or_keep_corrupt(
                    directory, read_options, bar, (starts.get(key), cleaner.get(key)), keep_corrupt=keep_corrupt
                )
        _require_settled_passes(path, begun, result.partitions.values())
        return result

    return read_consistently(read, path, attempts=read_attempts)


def _require_settled_passes(root: Path, begun: dict[str, FileState], read: Iterable[LoadedPartition]) -> None:
    """Raise when a ``.cleaned`` file under ``root`` appeared, went or changed since ``begun`` (the directory's
    state when the read began): a running broker's pass was filling it, so the partitions ``read`` cannot say
    whether a pass threw (a failed pass's files stay as it left them). The caller reads again (spec 8.4)."""
    if not any(CLEANED_FILE_SUFFIX in name for name in begun) and all(p.failed_pass is None for p in read):
        return
    moved = [change[1:] for change in changes_since(begun, root) if CLEANED_FILE_SUFFIX in change]
    if moved:
        raise LogReadError(root / moved[0], None, "a cleaner pass was writing this file while the directory was read")


def _load_or_keep_corrupt(
    path: Path, options: _ReadOptions, bar: ByteProgress, offsets: tuple[int | None, int | None], *, keep_corrupt: bool
) -> LoadedPartition:
    """The partition read as asked; with ``keep_corrupt``, read as the cleaner reads it when it holds a corrupt
    batch. ``offsets``: its log start offset and cleaner checkpoint."""
    state = directory_state(path) if keep_corrupt else {}
    try:
        return _load_partition(path, options, bar, log_start_offset=offsets[0], cleaner_checkpoint=offsets[1])
    except CorruptBatchError as error:
        # offsets out of order are the log's, not a batch's; and a running broker changing the partition
        # meanwhile is not corruption: the log dir is read again
        if not keep_corrupt or options.recover or isinstance(error, OffsetOrderError) or changes_since(state, path):
            raise
        return _load_corrupt_partition(path, options, error, *offsets)


def _load_corrupt_partition(
    path: Path, options: _ReadOptions, error: CorruptBatchError, start: int | None, checkpoint: int | None
) -> LoadedPartition:
    """A partition whose read met ``error``, read as Kafka's cleaner reads it: batch headers without CRC checks.

    A batch that cannot be framed ends its segment's batches, and the segment keeps its file's size (the broker
    loaded it before it broke); then the first batch whose header or records cannot be read, if any, is the
    partition's ``corrupt`` batch. A CRC mismatch alone stops nothing: the cleaner never checks CRCs.
    """
    topic, partition = parse_partition_dir_name(path)
    loaded = LoadedPartition(log=PartitionLog(topic, partition), path=path, verify_crc=False)
    _scan_other_files(path, loaded)
    files = segment_files(path)
    loaded.files = {int(f.name[:20]): f for f in files}
    cuts: list[DroppedBytes] = []
    segments = header_segments(files, verify_crc=False, on_bytes=None, on_cut=cuts.append)
    _load_log(loaded, segments, options, (start, checkpoint), stored=True)
    sizes = {segment.base_offset: segment for segment in loaded.log.segments}
    for cut in cuts:
        sizes[int(Path(cut.file).name[:20])].size_bytes += cut.bytes
    loaded.corrupt = _first_unreadable_batch(files)
    if loaded.corrupt is None:
        loaded.notes.append(f"{error}; Kafka's cleaner does not check CRCs: it cleans this partition as any other")
    return loaded


def _first_unreadable_batch(files: list[Path]) -> CorruptBatchError | None:
    """The first batch of these segment files whose header or records cannot be read (CRCs not checked), if any:
    where Kafka's cleaner throws (``InvalidRecordException``, ``CorruptRecordException``)."""
    for file in files:
        try:
            for _ in SegmentFileReader(file, verify_crc=False, keep_raw=False, number_keys=False):
                pass
        except CorruptBatchError as error:
            return error
    return None


def _partition_dirs(path: Path, topics: Collection[str] | None, skipped: list[tuple[str, str]]) -> list[Path]:
    chosen = []
    for entry in sorted(path.iterdir(), key=lambda p: p.name):
        if not entry.is_dir():
            continue
        found = topic_partition_of_dir(entry.name)
        if found is None:
            skipped.append((str(entry), "not a <topic>-<partition> directory (deleted, future or stray replica?)"))
        elif found[0] == METADATA_LOG_TOPIC:
            skipped.append(
                (str(entry), "the KRaft metadata log, not a log of the broker's log manager (never cleaned)")
            )
        elif topics is None or found[0] in topics:
            chosen.append(entry)
    return chosen
