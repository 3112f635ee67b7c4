"""Watch a real broker's cleaner: its offset checkpoint, its partition folders and its log lines."""

from __future__ import annotations

import errno
import re
import shutil
import subprocess
import time
from pathlib import Path

from kcompact_nb.core import CLEANED_FILE_SUFFIX, LEFTOVER_FILE_SUFFIXES
from kcompact_nb.io import CLEANER_OFFSET_CHECKPOINT, RECOVERY_POINT_CHECKPOINT, read_checkpoint, write_checkpoint

from ._broker import KafkaBroker
from ._classpath import KAFKA_3_VERSION, kafka_major, resolve_classpath
from ._errors import BrokerError

_INDEX_PROBLEMS = ("Mismatches in :", "Found timestamp mismatch in :", "Found out of order timestamp in :")
"""How ``DumpLogSegments`` starts its reports of index entries that do not match the log."""
_CREATED_LINE = re.compile(r"Created log for partition (\S+) in ")
_UNCLEANABLE_LINE = re.compile(r"Marking its partition \((?P<tp>\S+)\) as uncleanable")
_CLEANED_LINE = re.compile(r"Log cleaner thread \d+ cleaned log (?P<tp>\S+) \(dirty section = \[(\d+), (\d+)\]\)")


def cleaner_checkpoint(log_dir: Path) -> dict[tuple[str, int], int]:
    """Entries of ``<log_dir>/cleaner-offset-checkpoint``."""
    return read_checkpoint(Path(log_dir) / CLEANER_OFFSET_CHECKPOINT)


def partition_dir(broker: KafkaBroker, topic: str, partition: int = 0) -> Path:
    """The folder ``<log.dirs>/<topic>-<partition>`` of a live broker."""
    return broker.log_dir / f"{topic}-{partition}"


def cleaned_sections(cleaner_log: str, topic: str, partition: int = 0) -> list[tuple[int, int]]:
    """``(first dirty offset, end offset)`` of each "cleaned log" INFO line for ``topic-partition``."""
    wanted = f"{topic}-{partition}"
    return [(int(m.group(2)), int(m.group(3))) for m in _CLEANED_LINE.finditer(cleaner_log) if m["tp"] == wanted]


def uncleanable_partitions(cleaner_log: str) -> set[str]:
    """``topic-partition`` of every partition the cleaner marked uncleanable (a pass threw; from Kafka 2.1)."""
    return {m["tp"] for m in _UNCLEANABLE_LINE.finditer(cleaner_log)}


def cleaned_log_order(cleaner_log: str) -> list[tuple[str, int]]:
    """``(topic, partition)`` of every "cleaned log" INFO line, in the order the passes ran."""
    return [_topic_partition(m["tp"]) for m in _CLEANED_LINE.finditer(cleaner_log)]


def log_creation_order(broker: KafkaBroker) -> list[tuple[str, int]]:
    """``(topic, partition)`` of every log the broker created, in order ("Created log for partition" in
    ``server.log``): the order its log pool (``LogManager.currentLogs``) received them."""
    path = broker.logs_dir / "server.log"
    text = path.read_text(errors="replace") if path.exists() else ""
    return [_topic_partition(m[1]) for m in _CREATED_LINE.finditer(text)]


def _topic_partition(name: str) -> tuple[str, int]:
    topic, _, partition = name.rpartition("-")
    return topic, int(partition)


def wait_for_cleaner(
    broker: KafkaBroker, topic: str, offset: int, *, partition: int = 0, timeout_s: float = 60.0
) -> int:
    """Wait until the cleaner checkpoint of ``topic-partition`` reaches ``offset`` and its swap is done, or until the
    cleaner marked the partition uncleanable (a pass threw: it is never cleaned again while the broker runs) and
    the segments its pass replaced are deleted.

    Returns the checkpointed offset. The cleaner never passes the active segment's base offset, so
    ``offset`` should be the offset of a record that rolled a new segment (docs/real-broker.md, section 4).
    """
    deadline = time.monotonic() + timeout_s
    name = f"{topic}-{partition}"
    while time.monotonic() < deadline:
        reached = cleaner_checkpoint(broker.log_dir).get((topic, partition), -1)
        folder = partition_dir(broker, topic, partition)
        if name in uncleanable_partitions(broker.cleaner_log()):
            if not _swap_in_flight(folder, CLEANED_FILE_SUFFIX):
                return reached
        elif reached >= offset and not _swap_in_flight(folder):
            return reached
        time.sleep(0.1)
    message = f"{topic}-{partition} not cleaned up to offset {offset} within {timeout_s} s"
    raise BrokerError(f"{message}; cleaner log:\n{broker.cleaner_log()[-3000:]}")


def _swap_in_flight(folder: Path, left: str = "") -> bool:
    """Files of a swap or a deletion still under way (``left``: a suffix a failed pass leaves for good)."""
    in_flight = tuple(suffix for suffix in LEFTOVER_FILE_SUFFIXES if suffix != left)
    return any(path.name.endswith(in_flight) for path in folder.iterdir())


COPY_ATTEMPTS = 5
"""Copies of a partition folder before giving up on one the broker keeps changing (before 2.8 its recovery-point
checkpoint deletes producer snapshots at any moment, ``deleteSnapshotsAfterRecoveryPointCheckpoint``)."""


def copy_partition(broker: KafkaBroker, topic: str, destination: Path, *, partition: int = 0) -> Path:
    """Copy ``<topic>-<partition>/`` and the ``cleaner-offset-checkpoint`` and ``recovery-point-offset-checkpoint``
    limited to it into ``destination``.

    ``destination`` becomes a one-partition log dir; returns the copied partition folder. A copy that meets files
    the broker deleted meanwhile starts again. Files of a swap or deletion under way are not copied, but the
    ``.cleaned`` files a pass that threw left are (the cleaner marked the partition uncleanable and never touches
    them again).
    """
    source = partition_dir(broker, topic, partition)
    target = Path(destination) / source.name
    failed = source.name in uncleanable_partitions(broker.cleaner_log())
    skipped = [s for s in LEFTOVER_FILE_SUFFIXES if not (failed and s == CLEANED_FILE_SUFFIX)]
    for attempt in range(1, COPY_ATTEMPTS + 1):
        shutil.rmtree(target, ignore_errors=True)
        try:
            shutil.copytree(source, target, ignore=shutil.ignore_patterns(*(f"*{s}" for s in skipped)))
            break
        except shutil.Error as error:  # files the broker deleted while they were copied: copy it all again
            vanished = all(f"[Errno {errno.ENOENT}]" in why for _, _, why in error.args[0])
            if not vanished or attempt == COPY_ATTEMPTS:
                raise
    key = (topic, partition)
    for name in (CLEANER_OFFSET_CHECKPOINT, RECOVERY_POINT_CHECKPOINT):
        entries = read_checkpoint(broker.log_dir / name)
        write_checkpoint(Path(destination) / name, {key: entries[key]} if key in entries else {})
    return target


def dump_log_segments(files: list[Path], *, version: str = KAFKA_3_VERSION) -> str:
    """Output of ``kafka-dump-log.sh --files ... --print-data-log --deep-iteration`` for ``files``.

    Runs ``kafka.tools.DumpLogSegments`` from the ``kafka_2.13`` jar of ``version`` (a 3.x release) through
    ``java``. In 4.x the tool moved to ``org.apache.kafka.tools`` in the ``kafka-tools`` artifact, which
    Maven Central lacks for 4.4.0, so segments written by any broker are dumped with the 3.9 tool
    (the v2 on-disk format is the same). For ``.index`` and ``.timeindex`` files the tool checks every entry
    against the segment's ``.log`` file; the mismatches it reports (on stderr) raise :class:`BrokerError`.
    """
    if kafka_major(version) >= 4:
        raise BrokerError(f"dump_log_segments needs a 3.x version (kafka.tools.DumpLogSegments), got {version!r}")
    classpath = resolve_classpath(version)
    command = ["java", "-Xmx256m", "-cp", f"{classpath}/*", "kafka.tools.DumpLogSegments"]
    command += ["--files", ",".join(str(f) for f in files), "--print-data-log", "--deep-iteration"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if result.returncode != 0:
        raise BrokerError(f"DumpLogSegments failed (exit {result.returncode}):\n{result.stderr[-3000:]}")
    problems = _index_problems(result.stderr)
    if problems:
        raise BrokerError("DumpLogSegments found index entries that disagree with the log:\n" + "\n".join(problems))
    return result.stdout


def _index_problems(stderr: str) -> list[str]:
    """The tool's index reports: each heading line and the indented entries under it."""
    problems: list[str] = []
    for line in stderr.splitlines():
        if line.startswith(_INDEX_PROBLEMS) or (problems and line.startswith(" ")):
            problems.append(line)
    return problems
