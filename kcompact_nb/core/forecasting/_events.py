"""What a produce model writes, event by event: record batches and transaction markers, in append order.

A :class:`ProducedBatch` holds its records by column (model key ids, timestamps, value lengths: -1 for a
tombstone). Batches of the exact stream leave offsets to the log; the folded stream's give their offsets (the
offsets the records they stand for would have) and may hold a *folded* record, which stands for the records of
its range that later ones supersede (:mod:`kcompact_nb.core.forecasting._folded_stream`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy

from kcompact_nb.record import NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE


@dataclass(frozen=True, eq=False)
class ProducedBatch:
    """One batch a producer sends to ``topic``-``partition``, appended at ``append_ms`` (ms from the start)."""

    topic: str
    partition: int
    append_ms: int
    key_ids: numpy.ndarray
    timestamps: numpy.ndarray
    value_lengths: numpy.ndarray
    producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH
    base_sequence: int = NO_SEQUENCE
    transactional: bool = False
    compression: str = "none"
    offsets: numpy.ndarray | None = None
    """Each record's offset (the folded stream's); None: the log assigns them."""
    base_offset: int | None = None
    last_offset: int | None = None
    folded: int = -1
    """The index of the folded record (its value's length stands for the bytes it folds), -1 when none."""
    weights: numpy.ndarray | None = None
    """How many records of the modelled stream each record stands for (1 each when None)."""
    model_lengths: numpy.ndarray | None = None
    """The value lengths the model drew (None: ``value_lengths``), where the folded stream stored others."""

    @property
    def drawn_lengths(self) -> numpy.ndarray:
        """The value lengths the model drew for the records (-1: a tombstone)."""
        return self.value_lengths if self.model_lengths is None else self.model_lengths

    def __len__(self) -> int:
        return len(self.key_ids)


@dataclass(frozen=True)
class TxnMarker:
    """The COMMIT (or ABORT) marker the coordinator writes to ``topic``-``partition`` when a transaction ends."""

    topic: str
    partition: int
    append_ms: int
    producer_id: int
    producer_epoch: int
    commit: bool


Event = ProducedBatch | TxnMarker
