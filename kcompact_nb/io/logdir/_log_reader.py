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
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path

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
    CleanerFailure,
    HeaderRun,
    KeyRegistry,
    PartitionLog,
    ProducerSnapshot,
    RecordBatch,
    SegmentData,
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
from kcompact_nb.io.logdir._header_scan import FirstUnreadable, header_segments, mtime_ms
from kcompact_nb.io.logdir._held_bytes import read_held
from kcompact_nb.io.logdir._live_reads import (
    FileState,
    changes_since,
    directory_state,
    read_consistently,
)
from kcompact_nb.io.logdir._progress import ByteProgress
from kcompact_nb.io.logdir._read_options import ReadOptions
from kcompact_nb.io.logdir._segment_files import SegmentFiles
from kcompact_nb.io.logdir._segment_framing import DroppedBytes, ScannedFile
from kcompact_nb.io.logdir._segment_reader import SegmentFileReader
from kcompact_nb.io.logdir._stored_indexes import take_stored_indexes
from kcompact_nb.io.logdir._stored_producer_state import producer_snapshots
from kcompact_nb.record import release_key_table

_KNOWN_SUFFIXES = (*SEGMENT_FILE_SUFFIXES, PRODUCER_SNAPSHOT_FILE_SUFFIX)
_KNOWN_FILES = ("leader-epoch-checkpoint", "partition.metadata")
Offsets = tuple[int | None, int | None]
"""A partition's log start offset and cleaner checkpoint, from the log dir's checkpoint files (None: absent)."""
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
    ``notes`` anything else worth knowing (ignored files, producer epoch anomalies). ``corrupt`` is the first batch
    Kafka's cleaner cannot read, in a partition read ``as_cleaner_reads``: reading it raises, and a pass that
    reaches it fails there. A partition read on disk (``on_disk_from_bytes``, or as the cleaner reads a corrupt one)
    keeps its batches in its files: its log's storage is :class:`SegmentFiles`.
    ``failed_pass`` is the pass that threw and left ``NNN.log.cleaned`` (:func:`failed_pass`), read with the
    partition: a ``.cleaned`` file that a running broker's pass changed during the read makes the read start again.
    """

    log: PartitionLog
    path: Path
    dropped: list[DroppedBytes] = field(default_factory=list)
    leftovers: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    corrupt: CorruptBatchError | None = None
    failed_pass: CleanerFailure | None = None

    @property
    def on_disk(self) -> bool:
        """The partition's batches stay in its files, read when asked; its segments hold their metadata only."""
        return isinstance(self.log.storage, SegmentFiles)


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
    options: ReadOptions | None = None,
    *,
    log_start_offset: int | None = None,
    cleaner_checkpoint: int | None = None,
) -> LoadedPartition:
    """Read one ``<topic>-<partition>/`` directory (``LogLoader.load``), in memory or on disk as ``options`` say.

    Parameters
    ----------
    path:
        The partition directory; never modified.
    options:
        How to read it (:class:`ReadOptions`; default: every batch in memory, CRCs checked, Kafka's defaults).
    log_start_offset:
        From ``log-start-offset-checkpoint``; the log start offset becomes
        ``max(log_start_offset, first segment's base offset)`` as in ``LogLoader``.
    cleaner_checkpoint:
        The partition's ``cleaner-offset-checkpoint`` entry, stored as is.

    A partition read on disk (``options.on_disk_from_bytes``) has the log a whole read gives (``LogLoader``
    without index files), but its segments are :class:`~kcompact_nb.core.StoredSegment` values holding no batches:
    sizes, timestamps, index entries, producer state and aborted transactions, what a broker keeps in memory, in
    memory that does not grow with the records; its batches are read from the files when asked (the log's
    storage, :class:`SegmentFiles`), and a pass over it streams them. Such a partition is not recovered: a
    corrupt batch raises (or, ``as_cleaner_reads``, is read as Kafka's cleaner reads it).
    """
    path, options = Path(path), options or ReadOptions()
    _require_dir(path, "partition directory")
    topic, _ = parse_partition_dir_name(path)
    own = replace(options, config=options.config_of(topic))
    offsets = (log_start_offset, cleaner_checkpoint)

    def read() -> LoadedPartition:  # again from a fresh listing when a running broker changed it meanwhile
        begun = directory_state(path)
        total = sum(f.stat().st_size for f in segment_files(path))
        with ByteProgress(total, path.name, options.progress) as bar:
            loaded = _read_or_keep_corrupt(path, own, bar, offsets)
        _require_settled_passes(path, begun, [loaded])
        return loaded

    return read_consistently(read, path, attempts=options.read_attempts)


@cyclic_gc_paused()  # a load allocates batches by the ten thousand and no reference cycles
def _load_partition(
    path: Path, options: ReadOptions, bar: ByteProgress, offsets: Offsets, *, read: list[SegmentData] | None = None
) -> LoadedPartition:
    """The partition at ``path``, in memory or on disk as ``options`` say. ``read`` receives the segments read in
    memory, one per file: when the read raises, those of the files before the one it failed in."""
    topic, partition = parse_partition_dir_name(path)
    loaded = LoadedPartition(log=PartitionLog(topic, partition), path=path)
    _scan_other_files(path, loaded)
    files = segment_files(path)
    size = sum(f.stat().st_size for f in files)
    if options.on_disk(size) or options.holds(size):
        before, held = _stats(files), _held_files(files) if options.holds(size) else None
        segments: Iterable[tuple[int, int, Iterable[RecordBatch | HeaderRun]]] = header_segments(
            files, verify_crc=options.verify_crc, on_bytes=bar.update, held=held
        )
        _load_log(loaded, segments, options, offsets, stored=True)
        scanned = _scanned_files(loaded.log, before, held or {}, options.verify_crc)
        loaded.log.storage = _segment_files(files, options, loaded.log.name, scanned, verify_crc=options.verify_crc)
    else:
        read = [] if read is None else read
        _read_segments(files, loaded, bar, options, read)
        segments = ((s.base_offset, s.last_modified_ms, s.batches) for s in read)
        _load_log(loaded, segments, options, offsets, stored=False)
    take_stored_indexes(loaded.log, path, loaded.notes)
    return loaded


def _stats(files: list[Path]) -> dict[Path, os.stat_result]:
    """Each file's ``stat``, before a scan reads it."""
    return {file: file.stat() for file in files}


def _held_files(files: list[Path]) -> dict[Path, ScannedFile]:
    """Each file's bytes, read once on a thread (a partition that holds them, ``ReadOptions.hold_bytes``), scanned as
    they arrive."""
    return {file: ScannedFile(held.inode, held.size, held=held) for file, held in read_held(files).items()}


def _segment_files(
    files: list[Path], options: ReadOptions, name: str, scanned: dict[int, ScannedFile], *, verify_crc: bool
) -> SegmentFiles:
    """The storage of a partition read on disk (log ``name``): ``files`` by base offset, each read as ``scanned``,
    cleaned segments written where asked."""
    storage = SegmentFiles({int(f.name[:20]): f for f in files}, verify_crc=verify_crc, scanned=scanned)
    if options.cleaned_into is not None:
        folder = options.cleaned_into / name
        folder.mkdir(parents=True, exist_ok=True)
        storage.clean_into(folder)
    return storage


def _scanned_files(
    log: PartitionLog, before: dict[Path, os.stat_result], held: dict[Path, ScannedFile], verify_crc: bool
) -> dict[int, ScannedFile]:
    """Each segment's file (by base offset) as the scan read it: ``before`` is its ``stat`` before (a file replaced
    meanwhile raises), ``held`` its bytes when the scan read those; its CRCs checked when ``verify_crc``."""
    sizes = {segment.base_offset: segment.size_bytes for segment in log.segments}
    scanned = {}
    for file, info in before.items():
        bytes_held = held[file].held if file in held else None
        if bytes_held is None and file.stat().st_ino != info.st_ino:
            raise LogReadError(file, None, "replaced while its partition was read: a running broker changed it")
        if (base := int(file.name[:20])) in sizes:
            checked = (info.st_size, info.st_mtime_ns) if verify_crc else None
            scanned[base] = ScannedFile(info.st_ino, sizes[base], checked, bytes_held)
    return scanned


def _load_log(
    loaded: LoadedPartition,
    segments: Iterable[tuple[int, int, Iterable[RecordBatch | HeaderRun]]],
    options: ReadOptions,
    offsets: Offsets,
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
    files: list[Path], loaded: LoadedPartition, bar: ByteProgress, options: ReadOptions, segments: list[SegmentData]
) -> None:
    """Read ``files`` in memory into ``segments``, one each (a read that raises leaves those before its file)."""
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


def read_log_dir(path: str | os.PathLike[str], options: ReadOptions | None = None) -> LoadedLogDir:
    """Read every partition of a broker log dir and apply its checkpoint files, as ``options`` say.

    ``cleaner-offset-checkpoint`` sets each partition's cleaner checkpoint and ``log-start-offset-checkpoint`` its
    log start offset; ``recovery-point-offset-checkpoint`` is returned as read. Each partition is read as
    :func:`read_partition_dir` reads it, under its topic's config (:class:`ReadOptions`: ``topic_configs``,
    ``config``), in memory or on disk (``on_disk_from_bytes``). Directories that are not partitions (``-delete``,
    ``-future``, ``-stray`` suffixes, or anything else) and the KRaft metadata log (``__cluster_metadata-0``) are
    listed in ``skipped``. A read that fails while a running broker changes the dir starts again from a fresh
    listing, up to ``read_attempts`` reads in all.
    """
    path, options = Path(path), options or ReadOptions()
    _require_dir(path, "log directory")

    def read() -> LoadedLogDir:  # again from a fresh listing when a running broker changed the dir meanwhile
        begun = directory_state(path)
        cleaner = read_checkpoint(path / CLEANER_OFFSET_CHECKPOINT)
        starts = read_checkpoint(path / LOG_START_OFFSET_CHECKPOINT)
        recovery = read_checkpoint(path / RECOVERY_POINT_CHECKPOINT)
        result = LoadedLogDir(path, {}, cleaner, starts, recovery)
        chosen = _partition_dirs(path, options.topics, result.skipped)
        total = sum(f.stat().st_size for d in chosen for f in segment_files(d))
        with ByteProgress(total, path.name, options.progress) as bar:
            for directory in chosen:
                topic, partition = parse_partition_dir_name(directory)
                own = replace(options, config=options.config_of(topic))
                key = (topic, partition)
                result.partitions[directory.name] = _read_or_keep_corrupt(
                    directory, own, bar, (starts.get(key), cleaner.get(key))
                )
        _require_settled_passes(path, begun, result.partitions.values())
        return result

    return read_consistently(read, path, attempts=options.read_attempts)


def _require_settled_passes(root: Path, begun: dict[str, FileState], read: Iterable[LoadedPartition]) -> None:
    """Raise when a ``.cleaned`` file under ``root`` appeared, went or changed since ``begun`` (the directory's
    state when the read began): a running broker's pass was filling it, so the partitions ``read`` cannot say
    whether a pass threw (a failed pass's files stay as it left them). The caller reads again (spec 8.4)."""
    if not any(CLEANED_FILE_SUFFIX in name for name in begun) and all(p.failed_pass is None for p in read):
        return
    moved = [change[1:] for change in changes_since(begun, root) if CLEANED_FILE_SUFFIX in change]
    if moved:
        raise LogReadError(root / moved[0], None, "a cleaner pass was writing this file while the directory was read")


def _read_or_keep_corrupt(path: Path, options: ReadOptions, bar: ByteProgress, offsets: Offsets) -> LoadedPartition:
    """The partition read as asked; ``as_cleaner_reads``, read as the cleaner reads it when it holds a corrupt
    batch. ``offsets``: its log start offset and cleaner checkpoint."""
    keep_corrupt = options.as_cleaner_reads and not options.recover
    state = directory_state(path) if keep_corrupt else {}
    read: list[SegmentData] = []
    try:
        return _load_partition(path, options, bar, offsets, read=read)
    except CorruptBatchError as error:
        # offsets out of order are the log's, not a batch's; and a running broker changing the partition
        # meanwhile is not corruption: the log dir is read again
        if not keep_corrupt or isinstance(error, OffsetOrderError) or changes_since(state, path):
            raise
        return _load_corrupt_partition(path, options, error, offsets, read)


def _load_corrupt_partition(
    path: Path, options: ReadOptions, error: CorruptBatchError, offsets: Offsets, read: list[SegmentData]
) -> LoadedPartition:
    """A partition whose read met ``error``, read as Kafka's cleaner reads it: on disk, batch headers without CRC
    checks. ``read`` are the segments the failed read held in memory: those before the file it failed in, which are
    not read again (a read on disk holds none: the files before are scanned again, their headers only).

    A batch that cannot be framed ends its segment's batches, and the segment keeps its file's size (the broker
    loaded it before it broke); then the first batch whose header or records cannot be read, if any, is the
    partition's ``corrupt`` batch, found in the same read from the failing file on. A CRC mismatch alone stops
    nothing: the cleaner never checks CRCs.
    """
    topic, partition = parse_partition_dir_name(path)
    loaded = LoadedPartition(log=PartitionLog(topic, partition), path=path)
    _scan_other_files(path, loaded)
    files = segment_files(path)
    stats = _stats(files)
    cuts: list[DroppedBytes] = []
    unreadable = FirstUnreadable(Path(error.file).name)
    before = {segment.base_offset for segment in read}
    headers = header_segments(
        [f for f in files if int(f.name[:20]) not in before], verify_crc=False, on_bytes=None, on_cut=cuts.append,
        unreadable=unreadable, next_offset=_next_offset(read),
    )  # fmt: skip
    _load_log(loaded, chain(((s.base_offset, s.last_modified_ms, s.batches) for s in read), headers), options,
              offsets, stored=True)  # fmt: skip
    sizes = {segment.base_offset: segment for segment in loaded.log.segments}
    for cut in cuts:
        sizes[int(Path(cut.file).name[:20])].size_bytes += cut.bytes
    scanned = _scanned_files(loaded.log, stats, {}, verify_crc=False)
    loaded.log.storage = _segment_files(files, options, loaded.log.name, scanned, verify_crc=False)
    loaded.corrupt = unreadable.error
    if loaded.corrupt is None:
        loaded.notes.append(f"{error}; Kafka's cleaner does not check CRCs: it cleans this partition as any other")
    return loaded


def _next_offset(segments: list[SegmentData]) -> int | None:
    """The offset after the last batch of ``segments`` (None: they hold none)."""
    last = [segment.batches[-1].last_offset for segment in segments if segment.batches]
    return last[-1] + 1 if last else None


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
