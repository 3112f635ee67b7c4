"""kcompact_nb.io's .index/.timeindex/.txnindex/.snapshot writers against Kafka's own: its storage classes
(LogSegment, TransactionIndex, ProducerStateManager.writeSnapshot, run from the broker jars by
KafkaSegmentFiles.java) and a live broker's partition folder, for Kafka 4.4.0 and 3.9.2, and 3.8.1's
LogSegment, which indexes once per append (before KAFKA-806)."""

from __future__ import annotations

import dataclasses
import random
import subprocess
import time
from pathlib import Path
from types import MappingProxyType

import pytest

from kcompact_nb.broker import (
    KafkaBroker,
    alter_topic_configs,
    copy_partition,
    create_topic,
    produce,
    produce_transaction,
    resolve_classpath,
    wait_for_cleaner,
)
from kcompact_nb.core import (
    AbortedTxn,
    KafkaVersion,
    NewRecord,
    RecordBatch,
    SegmentData,
    build_partition_log,
    segment_file_name,
)
from kcompact_nb.fidelity import (
    broker_settings,
    generate_workload,
    partition_file_differences,
    run_differential,
    topic_settings,
)
from kcompact_nb.io import (
    INDEX_FILE_SUFFIXES,
    OffsetIndexFile,
    ProducerSnapshotFile,
    SegmentFileReader,
    TimeIndexFile,
    TransactionIndexFile,
    clean_log_dir,
    read_index_file,
    segment_files,
)
from kcompact_nb.io.files import (
    OFFSET_INDEX_ENTRY_BYTES,
    TIME_INDEX_ENTRY_BYTES,
    ProducerSnapshotEntry,
    appended_indexes,
    encode_index_file,
    java_hash_map_order,
    preallocated_bytes,
    segment_indexes,
)
from tests.io.kafka_bytes import kafka_batch, rec

from .conftest import BASE_TS_MS, BROKER_VERSIONS, require_java_and_maven

HARNESS = Path(__file__).with_name("KafkaSegmentFiles.java")


def run_kafka_jobs(version: str, jobs: list[str], folder: Path) -> None:
    """Run KafkaSegmentFiles.java's jobs in one JVM on the broker classpath of ``version``."""
    require_java_and_maven()
    job_file = folder / "jobs.txt"
    job_file.write_text("\n".join(jobs) + "\n")
    classpath = resolve_classpath(version)
    command = ["java", "-Xmx256m", "-cp", f"{classpath}/*", str(HARNESS), str(job_file)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]


def segment_case(seed: int, base_offset: int) -> list[bytes]:
    """Batches of 1-3 records with values of 5-400 bytes and timestamps that go up and down."""
    rng = random.Random(seed)
    batches, offset = [], base_offset
    for _ in range(60):
        count = rng.randint(1, 3)
        records = [rec(i, BASE_TS_MS + rng.randint(0, 5_000), b"k%d" % rng.randint(0, 9), b"v" * rng.randint(5, 400))
                   for i in range(count)]  # fmt: skip
        batches.append(kafka_batch(records, base_offset=offset))
        offset += count
    return batches


def chunks(batches: list[bytes], per_chunk: int) -> str:
    return ",".join(str(sum(len(b) for b in batches[i : i + per_chunk])) for i in range(0, len(batches), per_chunk))


def appends(batches: list[RecordBatch], per_chunk: int) -> list[list[RecordBatch]]:
    return [batches[i : i + per_chunk] for i in range(0, len(batches), per_chunk)]


#: The newest release with cached jars from before KAFKA-806 (3.9.1, 4.0.1): one index check per append.
PER_APPEND_VERSION = "3.8.1"


# (seed, base offset, index.interval.bytes, segment.index.bytes, batches per LogSegment.append, closed?)
SEGMENT_CASES = [
    (1, 0, 100, 4096, 1, True),
    (2, 0, 100, 4096, 3, True),  # appends of several batches: per batch or per append, by release
    (3, 1_000_000, 1, 4096, 1, True),  # an entry for every batch after the first
    (4, 7, 500, 1000, 2, False),  # active: preallocated to 1000 (.index) and 996 (.timeindex) bytes
    (5, 42, 4096, 4096, 1, False),
    (6, 0, 250, 10_000, 4, False),
]


@pytest.mark.parametrize("version", (*BROKER_VERSIONS, PER_APPEND_VERSION))
def test_offset_and_time_indexes_are_the_bytes_kafkas_log_segment_writes(version, tmp_path):
    """LogSegment.append (per batch, or per append before KAFKA-806) and onBecomeInactiveSegment/close, against
    appended_indexes + the encoders."""
    each_batch = KafkaVersion.parse(version).indexes_each_batch
    jobs, expected = [], {}
    for seed, base, interval, index_bytes, per_chunk, closed in SEGMENT_CASES:
        batches = segment_case(seed, base)
        folder = tmp_path / f"case{seed}"
        folder.mkdir()
        (folder / "batches.bin").write_bytes(b"".join(batches))
        state = "closed" if closed else "active"
        jobs.append(
            f"segment {folder} {folder / 'batches.bin'} {base} {interval} {index_bytes} {state} "
            f"{chunks(batches, per_chunk)}"
        )
        read = list(SegmentFileReader(folder / "batches.bin", base_offset=base))
        ours = appended_indexes(appends(read, per_chunk), index_interval_bytes=interval, indexes_each_batch=each_batch,
                                inactive=closed)  # fmt: skip
        offset_size = None if closed else preallocated_bytes(index_bytes, OFFSET_INDEX_ENTRY_BYTES)
        time_size = None if closed else preallocated_bytes(index_bytes, TIME_INDEX_ENTRY_BYTES)
        expected[folder] = (
            base,
            encode_index_file(OffsetIndexFile(base, ours.offset_index, offset_size)),
            encode_index_file(TimeIndexFile(base, ours.time_index, time_size)),
            len(ours.offset_index),
        )
    run_kafka_jobs(version, jobs, tmp_path)
    for folder, (base, offset_bytes, time_bytes, entries) in expected.items():
        assert (folder / segment_file_name(base, ".log")).read_bytes() == (folder / "batches.bin").read_bytes()
        assert (folder / segment_file_name(base, ".index")).read_bytes() == offset_bytes, folder.name
        assert (folder / segment_file_name(base, ".timeindex")).read_bytes() == time_bytes, folder.name
        assert entries > 1 or folder.name == "case5"  # the cases exercise index points (case 5: one 4 KiB interval)
    per_batch = segment_indexes(
        SegmentFileReader(tmp_path / "case2" / "batches.bin", base_offset=0), index_interval_bytes=100
    )
    assert (expected[tmp_path / "case2"][3] == len(per_batch.offset_index)) is each_batch  # the rules do differ


@pytest.mark.parametrize("version", (*BROKER_VERSIONS, PER_APPEND_VERSION))
def test_transaction_index_and_producer_snapshot_are_the_bytes_kafka_writes(version, tmp_path):
    """TransactionIndex.append, and writeSnapshot's HashMap order and CRC for producers that share buckets."""
    txns = (AbortedTxn(3, 10, 14, 15), AbortedTxn(1 << 40, 12, 20, 12), AbortedTxn(7, 21, 30, 31))
    ids = [17, 1, 33, 2, (1 << 32) + 1, 16, 9_000_000_000] + list(range(100, 110))  # 17 producers: 32 buckets
    entries = [
        ProducerSnapshotEntry(pid, pid % 3, -1 if pid % 5 == 0 else pid % 50, -1 if pid % 5 == 0 else 1_000 + pid % 97,
                              0 if pid % 5 == 0 else pid % 4, BASE_TS_MS + pid % 1_000, pid % 7 - 1,
                              -1 if pid % 2 else 900 + pid % 13)
        for pid in ids
    ]  # fmt: skip
    inserted = tmp_path / segment_file_name(500, ".snapshot")
    inserted.write_bytes(encode_index_file(ProducerSnapshotFile(500, tuple(entries))))  # in insertion order
    jobs = [
        f"txn {tmp_path / 'kafka.txnindex'} 10 " + " ".join(
            f"{t.producer_id}:{t.first_offset}:{t.last_offset}:{t.last_stable_offset}" for t in txns),
        f"snapshot {inserted} {tmp_path / 'kafka.snapshot'}",
    ]  # fmt: skip
    run_kafka_jobs(version, jobs, tmp_path)
    assert (tmp_path / "kafka.txnindex").read_bytes() == encode_index_file(TransactionIndexFile(10, txns))
    ordered = ProducerSnapshotFile(500, tuple(java_hash_map_order(entries)))
    assert (tmp_path / "kafka.snapshot").read_bytes() == encode_index_file(ordered)
    assert [e.producer_id for e in ordered.entries][:4] == [(1 << 32) + 1, 1, 33, 2]  # buckets 0, 1, 1, 2 of 32


def test_a_live_brokers_partition_folder(kafka_broker, topic_name, tmp_path):
    """Index points every 200 bytes, three idempotent producers and an aborted transaction; copied while the
    broker runs (its active segment's indexes preallocated), then again after its cleaner rewrote the log."""
    configs = create_topic(
        kafka_broker, topic_name, configs={"index.interval.bytes": "200", "min.cleanable.dirty.ratio": "1.0"}
    )
    for producer in range(3):
        produce(kafka_broker, topic_name,
                [NewRecord(b"k%d" % (i % 4), b"v" * (20 + 13 * i), timestamp=BASE_TS_MS + 3 * i + producer)
                 for i in range(12)], idempotent=True)  # fmt: skip
    produce_transaction(kafka_broker, topic_name, [NewRecord(b"t", b"x" * 50, timestamp=BASE_TS_MS + 60)] * 2,
                        transactional_id=f"{topic_name}-txn", commit=False)  # fmt: skip
    # the marker's wall-clock timestamp rolls the segment (segment.ms=100 by record time); one more record after it
    produce(kafka_broker, topic_name, [NewRecord(b"k0", b"last", timestamp=BASE_TS_MS + 1_000)])
    before = copy_partition(kafka_broker, topic_name, tmp_path / "before")
    check_partition_folder(before, min_index_entries=20)
    alter_topic_configs(kafka_broker, topic_name, {**configs, "min.cleanable.dirty.ratio": "0.01"})
    wait_for_cleaner(kafka_broker, topic_name, int(segment_files(before)[-1].name[:20]))
    check_partition_folder(copy_partition(kafka_broker, topic_name, tmp_path / "after"), min_index_entries=2)


def check_partition_folder(folder: Path, *, min_index_entries: int) -> None:
    files = segment_files(folder)
    indexed = 0
    for number, log_file in enumerate(files):
        active = number == len(files) - 1
        ours = segment_indexes(SegmentFileReader(log_file), index_interval_bytes=200, inactive=not active)
        offset_index, time_index = (read_index_file(log_file.with_suffix(s)) for s in (".index", ".timeindex"))
        assert (offset_index.entries, time_index.entries) == (ours.offset_index, ours.time_index), log_file.name
        indexed += len(ours.offset_index)
    assert indexed >= min_index_entries  # the folder does exercise index points
    for path in sorted(folder.iterdir()):
        if path.suffix in INDEX_FILE_SUFFIXES:
            assert encode_index_file(read_index_file(path)) == path.read_bytes(), path.name
    snapshots = sorted(folder.glob("*.snapshot"))
    assert snapshots
    last = read_index_file(snapshots[-1])
    assert isinstance(last, ProducerSnapshotFile)
    assert list(last.entries) == java_hash_map_order(last.entries)
    # the producer state a loader rebuilds from the batches below the snapshot's offset is what the broker saved
    below = [
        SegmentData(int(f.name[:20]), [b for b in SegmentFileReader(f) if b.last_offset < last.offset]) for f in files
    ]
    state = build_partition_log("t", 0, below).producer_state.producers
    # the broker met the producers in id order; its HashMap iterates them by bucket (e.g. 80, 81, 82, 79 of 16)
    in_id_order = sorted(last.entries, key=lambda e: e.producer_id)
    assert [e.producer_id for e in in_id_order] == sorted(state)
    assert list(last.entries) == java_hash_map_order(in_id_order)
    for entry in last.entries:
        known = state[entry.producer_id]
        open_txn = -1 if known.current_txn_first_offset is None else known.current_txn_first_offset
        assert (entry.producer_epoch, entry.last_offset, entry.last_sequence, entry.timestamp, entry.coordinator_epoch,
                entry.current_txn_first_offset) == (known.producer_epoch, known.last_data_offset,
                                                    known.last_sequence, known.last_timestamp,
                                                    known.coordinator_epoch, open_txn)  # fmt: skip
    txn_entries = [e for p in sorted(folder.glob("*.txnindex")) for e in read_index_file(p).entries]
    assert len(txn_entries) == 1


#: Keyed three-record batches of 1-40-byte values (no tombstones), an index entry due every 100 bytes: a pass merges
#: the rolled segments into one group, appending each source segment's survivors (one read buffer) at once, some
#: batches rebuilt without their superseded records (an append's offset entry is then its largest kept offset).
INDEXED = dataclasses.replace(
    generate_workload(3006, records=90, keys=20, tombstone_ratio=0.0, batch_records=3),
    name="index-every-100-bytes",
    kept=MappingProxyType({"index.interval.bytes": "100"}),
)


def test_a_pass_leaves_kafkas_index_files(kafka_broker, tmp_path):
    """Kafka 4.4.0 and 3.9.2 index the cleaned segment per batch (KAFKA-806)."""
    check_indexed_pass(kafka_broker, tmp_path)


def test_a_pass_before_kafka_806_indexes_per_append(tmp_path):
    """Kafka 3.8.1 indexes the cleaned segment once per append: one entry per source segment at most."""
    require_java_and_maven()
    with KafkaBroker(PER_APPEND_VERSION) as broker:
        check_indexed_pass(broker, tmp_path)


def check_indexed_pass(broker: KafkaBroker, tmp_path: Path) -> None:
    """The differential run (its conformance compare includes the .index and .timeindex files of the in-memory
    pass's prediction), then ``kcompact clean``'s streamed pass over the "before" copy, file for file."""
    result = run_differential(broker, INDEXED, tmp_path, topic="indexed")
    assert result.passes >= 1 and result.mismatches == []
    folder = result.rounds[0].folder
    kafka = folder / "after" / "indexed-0"
    cleaned = segment_files(kafka)[:-1]
    kafka_entries = [len(read_index_file(log.with_suffix(".index")).entries) for log in cleaned]
    per_batch = [len(segment_indexes(SegmentFileReader(log), index_interval_bytes=100).offset_index) for log in cleaned]
    assert sum(kafka_entries) >= 3  # the cleaned segments do have index points
    produced = {b.base_offset: len(b.records) for f in segment_files(folder / "before" / "indexed-0")
                for b in SegmentFileReader(f)}  # fmt: skip
    assert any(0 < len(b.records) < produced[b.base_offset] for log in cleaned for b in SegmentFileReader(log))
    assert (kafka_entries == per_batch) is KafkaVersion.parse(broker.version).indexes_each_batch
    versioned = broker_settings(broker.version)
    config = topic_settings(INDEXED.kept, broker=versioned)
    now_ms = time.time_ns() // 1_000_000
    clean_log_dir(folder / "before", tmp_path / "clean", now_ms=now_ms, broker=versioned, config=config,
                  scan_from_bytes=0)  # fmt: skip
    ours = tmp_path / "clean" / "indexed-0"
    assert partition_file_differences(ours, kafka) == []
