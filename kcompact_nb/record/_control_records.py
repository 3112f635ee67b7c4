"""Control records (``ControlRecordType``, ``EndTransactionMarker``): the COMMIT and ABORT markers of transactions."""

from __future__ import annotations

import enum
import struct

from kcompact_nb.record._record import Record


class ControlRecordType(enum.IntEnum):
    """Type field of a control record key (``ControlRecordType``)."""

    ABORT = 0
    COMMIT = 1


def control_record_key(kind: ControlRecordType) -> bytes:
    """Key of a control record: int16 version 0, int16 type (``ControlRecordType``)."""
    return struct.pack(">hh", 0, int(kind))


def end_txn_marker_value(coordinator_epoch: int) -> bytes:
    """Value of a transaction marker: int16 version 0, int32 coordinator epoch (``EndTransactionMarker``)."""
    return struct.pack(">hi", 0, coordinator_epoch)


def control_record_type(record: Record) -> ControlRecordType | None:
    """The marker type of a control record, ``None`` for other control types."""
    if record.key is None or len(record.key) < 4:
        return None
    kind = struct.unpack(">h", record.key[2:4])[0]
    return ControlRecordType(kind) if kind in (0, 1) else None
