"""The producer snapshots of a broker's partition folder that its loading may take (spec 8.5).

``LogLoader`` takes the producer state of the latest snapshot above the log start offset and at most the log end
offset, and replays the batches after it (:class:`~kcompact_nb.core.ProducerSnapshot`); a snapshot it cannot read
it deletes, and takes the one before. The log end offset is at least the last segment's base offset, so of the
snapshots up to that offset only the latest readable one can be taken; those above it are all candidates.
"""

from __future__ import annotations

from pathlib import Path

from kcompact_nb.core import (
    PRODUCER_SNAPSHOT_FILE_NAME,
    PRODUCER_SNAPSHOT_FILE_SUFFIX,
    ProducerSnapshot,
    ProducerStateEntry,
    segment_file_name,
)
from kcompact_nb.io._errors import IndexFileError
from kcompact_nb.io.files import ProducerSnapshotFile, read_index_file


def producer_snapshots(
    folder: Path, log_start_offset: int, last_base_offset: int, notes: list[str]
) -> list[ProducerSnapshot]:
    """The snapshots in ``folder`` the log may load, read (see the module docstring): those above
    ``last_base_offset`` (a lower bound of the log end offset: the last segment's base offset), and the latest
    readable one above ``log_start_offset`` up to ``last_base_offset``. ``notes`` gets a line for each snapshot not
    readable."""
    offsets = sorted(
        int(match["offset"])
        for entry in folder.iterdir()
        if (match := PRODUCER_SNAPSHOT_FILE_NAME.match(entry.name)) and entry.is_file()
    )
    above = [o for o in offsets if o > last_base_offset]
    below = [o for o in reversed(offsets) if log_start_offset < o <= last_base_offset]
    taken = [s for o in above if (s := _read(folder, o, notes)) is not None]
    for offset in below:
        snapshot = _read(folder, offset, notes)
        if snapshot is not None:
            return [snapshot, *taken]
    return taken


def _read(folder: Path, offset: int, notes: list[str]) -> ProducerSnapshot | None:
    path = folder / segment_file_name(offset, PRODUCER_SNAPSHOT_FILE_SUFFIX)
    try:
        stored = read_index_file(path)
    except IndexFileError as error:
        notes.append(f"{error}; Kafka's log loading deletes it and takes the snapshot before it")
        return None
    if not isinstance(stored, ProducerSnapshotFile):
        return None
    producers = tuple(
        ProducerStateEntry(
            producer_id=e.producer_id,
            producer_epoch=e.producer_epoch,
            last_data_offset=e.last_offset,
            last_timestamp=e.timestamp,
            last_sequence=e.last_sequence,
            current_txn_first_offset=None if e.current_txn_first_offset < 0 else e.current_txn_first_offset,
            coordinator_epoch=e.coordinator_epoch,
        )
        for e in stored.entries
    )
    return ProducerSnapshot(offset, producers)
