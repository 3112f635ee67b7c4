"""Producer state as the broker keeps it per partition (``ProducerStateManager``, spec 2.1, 7.5)."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from kcompact_nb.core.model._shallow_copy import shallow_copy
from kcompact_nb.record import ControlRecordType, KafkaModelError, RecordBatch, control_record_type


@dataclass
class ProducerStateEntry:
    """What the broker remembers of one producer id (``ProducerStateEntry``).

    ``last_data_offset`` is the last offset of the producer's last data batch (-1 when it has
    written only markers); ``current_txn_first_offset`` is set while a transaction is open.
    """

    producer_id: int
    producer_epoch: int
    last_data_offset: int = -1
    last_timestamp: int = -1
    last_sequence: int = -1
    current_txn_first_offset: int | None = None
    coordinator_epoch: int = -1


def lower_epoch_note(producer_id: int, producer_epoch: int, offset: int, last_epoch: int) -> str:
    """What loading notes of a batch at ``offset`` whose producer epoch is below ``last_epoch``, its producer's last
    (accepted)."""
    return (
        f"producer {producer_id}: epoch {producer_epoch} at offset {offset} "
        f"is below the last seen epoch {last_epoch} (accepted, as on replication)"
    )


@dataclass(frozen=True)
class CompletedTxn:
    """A transaction closed by a marker (``CompletedTxn``)."""

    producer_id: int
    first_offset: int
    last_offset: int
    is_aborted: bool


class ProducerStateManager:
    """Active producers of a partition: epochs, last batches and open transactions."""

    def __init__(self) -> None:
        self.producers: dict[int, ProducerStateEntry] = {}

    def copy(self) -> ProducerStateManager:
        """A copy whose entries are its own (an entry holds only numbers)."""
        clone = ProducerStateManager()
        clone.producers = {pid: shallow_copy(entry) for pid, entry in self.producers.items()}
        return clone

    def on_data_batch(self, batch: RecordBatch) -> None:
        """Record an appended data batch that carries a producer id."""
        entry = self._entry_for(batch.producer_id, batch.producer_epoch, batch.base_offset)
        entry.producer_epoch = batch.producer_epoch
        entry.last_data_offset = batch.last_offset
        entry.last_timestamp = batch.max_timestamp
        if batch.base_sequence >= 0:
            entry.last_sequence = batch.base_sequence + (batch.last_offset - batch.base_offset)
        if batch.is_transactional and entry.current_txn_first_offset is None:
            entry.current_txn_first_offset = batch.base_offset

    def on_end_txn_marker(self, batch: RecordBatch, coordinator_epoch: int) -> CompletedTxn:
        """Close the producer's transaction with a COMMIT/ABORT marker (``appendEndTxnMarker``).

        Kafka writes a marker even when no transaction is open; it then covers only itself.
        """
        entry = self._entry_for(batch.producer_id, batch.producer_epoch, batch.base_offset)
        first = entry.current_txn_first_offset
        kind = control_record_type(batch.records[0])
        entry.producer_epoch = batch.producer_epoch
        entry.coordinator_epoch = coordinator_epoch
        entry.last_timestamp = batch.max_timestamp
        entry.current_txn_first_offset = None
        first_offset = batch.base_offset if first is None else first
        return CompletedTxn(batch.producer_id, first_offset, batch.last_offset, kind is ControlRecordType.ABORT)

    def replay(self, batch: RecordBatch, notes: list[str] | None = None) -> CompletedTxn | None:
        """Load a stored batch as ``LogLoader`` does (``AppendOrigin.REPLICATION``); returns the transaction its marker
        closes.

        A lower producer epoch is accepted (Kafka only warns; ``notes`` gets a line), and control batches the cleaner
        emptied are skipped.
        """
        if not batch.has_producer_id:
            return None
        entry = self.producers.get(batch.producer_id)
        if entry is not None and batch.producer_epoch < entry.producer_epoch:
            if notes is not None:
                notes.append(
                    lower_epoch_note(batch.producer_id, batch.producer_epoch, batch.base_offset, entry.producer_epoch)
                )
            entry.producer_epoch = batch.producer_epoch
        if not batch.is_control:
            self.on_data_batch(batch)
            return None
        if not batch.records or control_record_type(batch.records[0]) is None:
            return None  # emptied by the cleaner, or a non-transaction control record
        value = batch.records[0].value or b""
        coordinator_epoch = struct.unpack_from(">i", value, 2)[0] if len(value) >= 6 else -1
        return self.on_end_txn_marker(batch, coordinator_epoch)

    def first_unstable_offset(self) -> int | None:
        """First offset of the earliest open transaction, ``None`` when none is open."""
        opens = [e.current_txn_first_offset for e in self.producers.values() if e.current_txn_first_offset is not None]
        return min(opens) if opens else None

    def last_stable_offset_after(self, txn: CompletedTxn) -> int:
        """LSO to record with an aborted transaction (``ProducerStateManager.lastStableOffset``)."""
        others = [
            e.current_txn_first_offset
            for pid, e in self.producers.items()
            if pid != txn.producer_id and e.current_txn_first_offset is not None
        ]
        return min(others) if others else txn.last_offset + 1

    def expired_producers(self, now_ms: int, producer_id_expiration_ms: int) -> list[int]:
        """The idle producers without an open transaction that expire at ``now_ms`` (``isProducerExpired``)."""
        return [
            pid
            for pid, e in self.producers.items()
            if e.current_txn_first_offset is None and now_ms - e.last_timestamp >= producer_id_expiration_ms
        ]

    def remove_expired_producers(self, now_ms: int, producer_id_expiration_ms: int) -> list[int]:
        """Drop :meth:`expired_producers` (``removeExpiredProducers``); returns their ids."""
        expired = self.expired_producers(now_ms, producer_id_expiration_ms)
        for pid in expired:
            del self.producers[pid]
        return expired

    def _entry_for(self, producer_id: int, producer_epoch: int, offset: int) -> ProducerStateEntry:
        entry = self.producers.get(producer_id)
        if entry is None:
            entry = self.producers[producer_id] = ProducerStateEntry(producer_id, producer_epoch)
        elif producer_epoch < entry.producer_epoch:
            message = (
                f"Epoch of producer {producer_id} at offset {offset} is {producer_epoch}, "
                f"which is smaller than the last seen epoch {entry.producer_epoch}"
            )
            raise KafkaModelError(message)
        return entry
