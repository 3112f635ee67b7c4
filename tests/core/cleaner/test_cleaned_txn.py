"""Transaction bookkeeping during a pass (``CleanedTransactionMetadata``, spec 7.3): an aborted transaction the pass
is inside keeps one offset, the last of its batches read (``lastObservedBatchOffset``), however many batches it has
(issue #38: every offset was kept, so a streamed pass's memory grew with the transaction)."""

from __future__ import annotations

import tracemalloc

from kcompact_nb.core import AbortedTxn, ControlRecordType, Record, RecordBatch
from kcompact_nb.core.cleaner import CleanedTransactionMetadata
from kcompact_nb.record import control_record_key, end_txn_marker_value

PRODUCER = 7


def data_batch(offset: int) -> RecordBatch:
    return RecordBatch.build(
        [Record(offset, 0, b"k", b"v")], producer_id=PRODUCER, producer_epoch=0, is_transactional=True
    )


def abort_marker(offset: int) -> RecordBatch:
    marker = Record(offset, 0, control_record_key(ControlRecordType.ABORT), end_txn_marker_value(0))
    return RecordBatch.build([marker], producer_id=PRODUCER, producer_epoch=0, is_transactional=True, is_control=True)


def metadata_inside(entry: AbortedTxn) -> CleanedTransactionMetadata:
    metadata = CleanedTransactionMetadata()
    metadata.add_aborted_transactions([entry])
    metadata.cleaned_index = []
    return metadata


def test_an_aborted_transactions_batches_are_discarded_and_its_marker_kept_with_its_index_entry():
    entry = AbortedTxn(PRODUCER, first_offset=0, last_offset=3, last_stable_offset=0)
    metadata = metadata_inside(entry)
    assert [metadata.on_batch_read(data_batch(offset)) for offset in range(3)] == [True, True, True]
    assert metadata.on_control_batch_read(abort_marker(3)) is False  # kept: batches of it were read this pass
    assert metadata.cleaned_index == [entry]


def test_a_marker_whose_transaction_had_no_batch_this_pass_may_go():
    entry = AbortedTxn(PRODUCER, first_offset=0, last_offset=0, last_stable_offset=0)
    metadata = metadata_inside(entry)
    assert metadata.on_control_batch_read(abort_marker(0)) is True
    assert metadata.cleaned_index == []


def test_an_ongoing_aborted_transaction_holds_memory_bounded_by_one_offset():
    batches = 20_000
    entry = AbortedTxn(PRODUCER, first_offset=0, last_offset=batches, last_stable_offset=0)
    metadata = metadata_inside(entry)
    tracemalloc.start()
    try:
        for offset in range(1_000):
            metadata.on_batch_read(data_batch(offset))
        early = tracemalloc.take_snapshot()
        for offset in range(1_000, batches):
            metadata.on_batch_read(data_batch(offset))
        grown = tracemalloc.take_snapshot().compare_to(early, "filename")
    finally:
        tracemalloc.stop()
    kept = sum(stat.size_diff for stat in grown if stat.traceback[0].filename.endswith("_cleaned_txn.py"))
    assert kept < 1_024  # a list of 19,000 offsets was about 0.8 MB here
    assert metadata.on_control_batch_read(abort_marker(batches)) is False
    assert metadata.cleaned_index == [entry]
