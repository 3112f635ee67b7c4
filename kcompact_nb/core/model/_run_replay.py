"""Producer state replayed from a run of data batches known by their headers (:class:`HeaderRun`), a producer at a time.

``ProducerStateManager.replay`` of each data batch in turn leaves its producer the epoch, last offset and largest
timestamp of its last batch, the last sequence of its last batch that carries one, and, when no transaction of it was
open, the base offset of its first transactional batch as the open one's first offset; an epoch below the producer's
last is accepted with a note. Over a run that is a few numpy operations, and a few Python ones per producer.
"""

from __future__ import annotations

from typing import Any

import numpy

from kcompact_nb.core.model._header_run import HeaderRun
from kcompact_nb.core.model._producer_state import ProducerStateEntry, ProducerStateManager, lower_epoch_note
from kcompact_nb.record import NO_PRODUCER_ID


def replay_run(state: ProducerStateManager, run: HeaderRun, notes: list[str] | None) -> None:
    """``state.replay(batch, notes)`` of each of ``run``'s batches, in order (``UnifiedLog.rebuildProducerState``)."""
    producing = run.producer_ids != NO_PRODUCER_ID
    if not producing.any():
        return
    batches = run.taken(producing)
    order = numpy.argsort(batches.producer_ids, kind="stable")  # each producer's batches together, in offset order
    ids = batches.producer_ids[order]
    starts = numpy.flatnonzero(numpy.concatenate(([True], ids[1:] != ids[:-1])))
    if notes is not None:
        notes.extend(_lower_epoch_notes(state, batches, order, starts))
    positions = numpy.arange(len(order))
    sequenced = numpy.maximum.reduceat(numpy.where(batches.base_sequences[order] >= 0, positions, -1), starts)
    opening = numpy.minimum.reduceat(numpy.where(batches.transactional[order], positions, len(order)), starts)
    ends = numpy.append(starts[1:], len(order)) - 1
    listed = HeaderRun(*(column.tolist() for column in batches))
    rows = order.tolist()
    for group in numpy.argsort(order[starts], kind="stable").tolist():  # producers as they first appear
        entry = _entry(state, listed, rows[int(starts[group])])
        last = rows[int(ends[group])]
        entry.producer_epoch = listed.producer_epochs[last]
        entry.last_data_offset = listed.last_offsets[last]
        entry.last_timestamp = listed.max_timestamps[last]
        if sequenced[group] >= 0:
            row = rows[int(sequenced[group])]
            entry.last_sequence = listed.base_sequences[row] + listed.last_offsets[row] - listed.base_offsets[row]
        if opening[group] < len(rows) and entry.current_txn_first_offset is None:
            entry.current_txn_first_offset = listed.base_offsets[rows[int(opening[group])]]


def _entry(state: ProducerStateManager, listed: HeaderRun, row: int) -> ProducerStateEntry:
    """The producer's entry, new at the epoch of its first batch (``row``) when it had none."""
    producer_id = listed.producer_ids[row]
    entry = state.producers.get(producer_id)
    if entry is None:
        entry = state.producers[producer_id] = ProducerStateEntry(producer_id, listed.producer_epochs[row])
    return entry


def _lower_epoch_notes(state: ProducerStateManager, batches: HeaderRun, order: Any, starts: Any) -> list[str]:
    """The notes of the batches whose epoch is below their producer's last (the entry's before the run, then the
    producer's batch before), in offset order."""
    ids, epochs = batches.producer_ids[order], batches.producer_epochs[order]
    before = numpy.concatenate(([0], epochs[:-1]))
    for start in starts.tolist():
        entry = state.producers.get(int(ids[start]))
        before[start] = epochs[start] if entry is None else entry.producer_epoch
    lower = numpy.flatnonzero(epochs < before)
    found = sorted(zip(order[lower].tolist(), lower.tolist(), strict=True))
    offsets = batches.base_offsets[order]
    return [lower_epoch_note(int(ids[i]), int(epochs[i]), int(offsets[i]), int(before[i])) for _, i in found]
