"""Transaction bookkeeping during a pass (``CleanedTransactionMetadata``, spec 7.3)."""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass

from kcompact_nb.core.model import AbortedTxn
from kcompact_nb.record import ControlRecordType, RecordBatch, control_record_type


@dataclass(slots=True)
class AbortedTransactionMetadata:
    """An aborted transaction the pass is inside (``AbortedTransactionMetadata``): its index entry, and the last
    offset of a batch of it read this pass (None: none yet). One offset, however many batches the transaction has."""

    aborted_txn: AbortedTxn
    last_observed_batch_offset: int | None = None


class CleanedTransactionMetadata:
    """Tracks aborted and committed transactions as batches are read in offset order.

    ``cleaned_index`` is the transaction index of the segment being written: an ABORT marker
    kept because some of its data was seen in this pass re-adds its entry there.
    """

    def __init__(self) -> None:
        self._pending: list[tuple[int, int, AbortedTxn]] = []
        self._ongoing_aborted: dict[int, AbortedTransactionMetadata] = {}
        self._ongoing_committed: set[int] = set()
        self._sequence = 0
        self.cleaned_index: list[AbortedTxn] | None = None

    def add_aborted_transactions(self, entries: Iterable[AbortedTxn]) -> None:
        for entry in entries:
            heapq.heappush(self._pending, (entry.first_offset, self._sequence, entry))
            self._sequence += 1

    def on_control_batch_read(self, batch: RecordBatch) -> bool:
        """True when the marker may be discarded: no batch of its transaction was seen this pass."""
        self._consume_aborted_up_to(batch.last_offset)
        if not batch.records:
            return True  # an already emptied control batch
        kind = control_record_type(batch.records[0])
        if kind is ControlRecordType.ABORT:
            ongoing = self._ongoing_aborted.pop(batch.producer_id, None)
            if ongoing is not None and ongoing.last_observed_batch_offset is not None:
                if self.cleaned_index is not None:
                    self.cleaned_index.append(ongoing.aborted_txn)
                return False
            return True
        if kind is ControlRecordType.COMMIT:
            seen = batch.producer_id in self._ongoing_committed
            self._ongoing_committed.discard(batch.producer_id)
            return not seen
        return False

    def on_batch_read(self, batch: RecordBatch) -> bool:
        """True when the data batch belongs to an aborted transaction (it may be discarded)."""
        self._consume_aborted_up_to(batch.last_offset)
        if not batch.is_transactional:
            return False
        ongoing = self._ongoing_aborted.get(batch.producer_id)
        if ongoing is not None:
            ongoing.last_observed_batch_offset = batch.last_offset
            return True
        self._ongoing_committed.add(batch.producer_id)
        return False

    def on_plain_batches_read(self, last_offset: int) -> None:
        """Data batches outside transactions were read up to ``last_offset`` (:meth:`on_batch_read` for each)."""
        self._consume_aborted_up_to(last_offset)

    def _consume_aborted_up_to(self, offset: int) -> None:
        while self._pending and self._pending[0][0] <= offset:
            entry = heapq.heappop(self._pending)[2]
            self._ongoing_aborted.setdefault(entry.producer_id, AbortedTransactionMetadata(entry))
