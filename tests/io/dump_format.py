"""kafka-dump-log.sh text for tests, following ``DumpLogSegments.dumpLog`` / ``printBatchLevel`` line by line."""

from __future__ import annotations

import struct

from kcompact_nb.core import RecordBatch


def batch_line(batch: RecordBatch, position: int, *, crc: int = 1234, valid: bool = True) -> str:
    horizon = "OptionalLong.empty" if batch.delete_horizon_ms is None else f"OptionalLong[{batch.delete_horizon_ms}]"
    count = len(batch.records)
    last_seq = -1 if batch.base_sequence < 0 else batch.base_sequence + batch.last_offset - batch.base_offset
    return (
        f"baseOffset: {batch.base_offset} lastOffset: {batch.last_offset} count: {count}"
        f" baseSequence: {batch.base_sequence} lastSequence: {last_seq}"
        f" producerId: {batch.producer_id} producerEpoch: {batch.producer_epoch}"
        f" partitionLeaderEpoch: {batch.partition_leader_epoch} isTransactional: {str(batch.is_transactional).lower()}"
        f" isControl: {str(batch.is_control).lower()} deleteHorizonMs: {horizon}"
        f" position: {position} {batch.timestamp_type.value}: {batch.max_timestamp} size: {batch.size_bytes}"
        f" magic: 2 compresscodec: {batch.compression} crc: {crc} isvalid: {str(valid).lower()}"
    )


def record_lines(batch: RecordBatch, *, print_data: bool) -> list[str]:
    lines = []
    for r in batch.records:
        seq = -1 if batch.base_sequence < 0 else batch.base_sequence + r.offset - batch.base_offset
        ks = -1 if r.key is None else len(r.key)
        vs = -1 if r.value is None else len(r.value)
        ts = batch.read_timestamp(r)
        line = f"| offset: {r.offset} {batch.timestamp_type.value}: {ts} keySize: {ks} valueSize: {vs}"
        line += f" sequence: {seq} headerKeys: [{','.join(k for k, _ in r.headers)}]"
        if batch.is_control:
            kind = "ABORT" if struct.unpack(">h", r.key[2:4])[0] == 0 else "COMMIT"
            line += f" endTxnMarker: {kind} coordinatorEpoch: {struct.unpack('>i', r.value[2:6])[0]}"
        elif print_data:
            prefix = " "
            if r.key is not None:
                line += f"{prefix}key: {r.key.decode()}"
            if r.value is not None:
                line += f" payload: {r.value.decode()}"
        lines.append(line)
    return lines


def dump_text(segments: dict[str, list[RecordBatch]], *, deep: bool = True, print_data: bool = True) -> str:
    """``segments``: file path -> batches, in the tool's output order."""
    out = []
    for path, batches in segments.items():
        out.append(f"Dumping {path}")
        out.append(f"Log starting offset: {int(path.rsplit('/', 1)[-1][:20])}")
        position = 0
        for batch in batches:
            out.append(batch_line(batch, position))
            if deep or print_data:
                out.extend(record_lines(batch, print_data=print_data))
            position += batch.size_bytes
    return "\n".join(out) + "\n"
