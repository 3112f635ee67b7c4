"""The pass over a partition read on disk (its batches left in its files, streamed) equals the pass over the log
read into memory (issue #19, point 2; issue #38: one way to read a partition, the log knows where its batches live).

Same retained offsets, segment layout, ``.log`` bytes, ``CleanerStats``, groups, end offset and log line, on
random logs (compressed, transactional, idempotent, tombstones, several groups, partial passes with a small
offset map, KIP-280 strategies), on the broker's sample partitions and on a workload of several segments. Every
test runs with the C kernels (span keys looked up in the C offset table) and on numpy (the ``kernels`` fixture).
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kcompact_nb.core import (
    BrokerConfig,
    CleanerManager,
    KeyedRun,
    LogToClean,
    NewRecord,
    OffsetMapSpec,
    PartitionLog,
    PassResult,
    StoredSegment,
    TopicConfig,
    log_to_clean,
    segment_file_name,
)
from kcompact_nb.core.cleaner._whole_batches import WholeBatches
from kcompact_nb.io import (
    ReadOptions,
    read_checkpoint,
    read_partition_dir,
    write_partition_dir,
)
from tests.io.kafka_bytes import reads_of

SAMPLES = Path(__file__).parents[3] / "data" / "samples" / "kafka"
pytestmark = pytest.mark.usefixtures("kernels")
NOW = 1_000_000


def next_pass_of(log: PartitionLog, *, now_ms: int, offset_map: OffsetMapSpec | None) -> tuple[LogToClean, Any]:
    """The pass :func:`kcompact_nb.core.next_pass` runs (over the cleanable range, forced), on ``log`` itself."""
    ltc = log_to_clean(log, now_ms=now_ms)
    result = None
    if ltc.first_dirty_offset < ltc.first_uncleanable_offset:
        result = CleanerManager(log.broker).clean_log(log, now_ms=now_ms, offset_map=offset_map, force=True)
    return ltc, result


def in_memory(folder: Path, *, now_ms: int, config: TopicConfig | None, offset_map: OffsetMapSpec | None, **kw: Any):
    """The next pass on the partition read whole into memory."""
    checkpoint = kw.pop("cleaner_checkpoint", None)
    log = read_partition_dir(folder, ReadOptions(config=config, now_ms=now_ms, **kw), cleaner_checkpoint=checkpoint).log
    return (*next_pass_of(log, now_ms=now_ms, offset_map=offset_map), log)


@dataclass(frozen=True)
class Streamed:
    """The next pass over a partition read on disk: the log before it, the pass, the log after it, where its cleaned
    groups went and the partition directory written after it."""

    log_to_clean: LogToClean
    result: PassResult | None
    log: PartitionLog
    cleaned: Path
    written: Path | None


def on_disk(folder: Path, *, now_ms: int, config: TopicConfig | None, offset_map=None, out=None, held=False, **kw: Any):
    """The next pass over ``folder`` read on disk (``held``: read whole as its files' bytes, the files then overwritten
    to show they are never read again), its cleaned groups written into a folder of their own (``out`` / ``cleaned``,
    else a scratch folder), then (with ``out``) the partition directory the pass leaves."""
    checkpoint = kw.pop("cleaner_checkpoint", None)
    cleaned = Path(tempfile.mkdtemp()) if out is None else out / "cleaned"
    options = ReadOptions(
        config=config, now_ms=now_ms, on_disk_from_bytes=None if held else 0, hold_bytes=held, cleaned_into=cleaned,
        **kw,
    )  # fmt: skip
    if held:
        folder = Path(shutil.copytree(folder, cleaned.parent / "held-source" / folder.name))
    log = read_partition_dir(folder, options, cleaner_checkpoint=checkpoint).log
    for file in folder.glob("*.log") if held else ():
        file.write_bytes(bytes(file.stat().st_size))
    ltc, result = next_pass_of(log, now_ms=now_ms, offset_map=offset_map)
    written = None if out is None else write_partition_dir(log, out)
    return Streamed(ltc, result, log, cleaned / log.name, written)


def assert_same_pass(folder: Path, *, now_ms: int, config: TopicConfig | None = None, offset_map=None, **kw: Any):
    """Stream ``folder``, read it as its files' bytes and read it whole: the same pass, layout and written bytes."""
    for held in (False, True):
        streamed = _assert_same_pass(folder, now_ms=now_ms, config=config, offset_map=offset_map, held=held, **kw)
    return streamed


def _assert_same_pass(folder: Path, *, now_ms: int, config, offset_map, held: bool, **kw: Any):
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        ltc, expected, log = in_memory(folder, now_ms=now_ms, config=config, offset_map=offset_map, **kw)
        streamed = on_disk(
            folder, now_ms=now_ms, config=config, offset_map=offset_map, out=out / "streamed", held=held, **kw
        )
        assert streamed.log_to_clean == ltc
        if expected is None:
            assert streamed.result is None
        else:
            got = streamed.result
            assert got is not None
            assert (got.stats, got.groups, got.end_offset, got.map_full, got.log_line) == (
                expected.stats,
                expected.groups,
                expected.end_offset,
                expected.map_full,
                expected.log_line,
            )
            assert got.offset_map.entries() == expected.offset_map.entries()
        layout = [
            (s.base_offset, s.size_bytes, s.last_offset, s.offset_index, s.time_index_entries) for s in log.segments
        ]
        assert [
            (s.base_offset, s.size_bytes, s.last_offset, s.offset_index, s.time_index_entries)
            for s in streamed.log.segments
        ] == layout
        assert all(isinstance(s, StoredSegment) for s in streamed.log.segments)  # cleaned ones too: in their files
        assert streamed.log.cleaner_checkpoint == log.cleaner_checkpoint
        write_partition_dir(log, out / "memory")
        written, reference = out / "streamed" / log.name, out / "memory" / log.name
        assert streamed.written == written
        assert sorted(p.name for p in written.iterdir()) == sorted(p.name for p in reference.iterdir())
        for file in reference.iterdir():
            assert (written / file.name).read_bytes() == file.read_bytes(), file.name
        assert [r.offset for _, r in read_partition_dir(written).log.records()] == [r.offset for _, r in log.records()]
        assert [r.offset for _, r in streamed.log.records()] == [r.offset for _, r in log.records()]
        return streamed


# -- random logs -----------------------------------------------------------------------------------------

KEYS = [b"a", b"b", b"c", b"d", b"e", b"f", b"g"]
records = st.lists(
    st.builds(
        NewRecord,
        key=st.sampled_from(KEYS),
        value=st.one_of(st.none(), st.binary(max_size=12)),
        timestamp=st.integers(0, 1000),
    ),
    min_size=1,
    max_size=5,
)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("batch"), records, st.sampled_from(["none", "none", "gzip", "lz4", "zstd", "snappy"])),
        st.tuples(st.just("idempotent"), records, st.just("none")),
        st.tuples(st.just("txn"), records, st.sampled_from(["none", "gzip"])),
        st.tuples(st.sampled_from(["commit", "abort", "roll"]), st.just([]), st.just("none")),
    ),
    min_size=1,
    max_size=30,
)


def random_log(ops: list, segment_bytes: int, strategy: str) -> PartitionLog:
    props = {
        "cleanup.policy": "compact",
        "segment.bytes": segment_bytes,
        "delete.retention.ms": 300,
        "compaction.strategy": strategy,
        "compaction.strategy.header": "v",
    }
    log = PartitionLog("t", config=TopicConfig.from_properties(props), broker=BrokerConfig())
    sequence, open_txn = 0, False
    for i, (kind, recs, codec) in enumerate(ops):
        if kind == "batch":
            log.append(recs, now_ms=i, compression=codec)
        elif kind == "idempotent":
            log.append(recs, now_ms=i, producer_id=5, producer_epoch=0, base_sequence=sequence)
            sequence += len(recs)
        elif kind == "txn":
            log.append(recs, now_ms=i, producer_id=9, producer_epoch=0, transactional=True, compression=codec)
            open_txn = True
        elif kind in ("commit", "abort") and open_txn:
            log.append_end_txn_marker(9, 0, commit=kind == "commit", now_ms=i)
            open_txn = False
        elif kind == "roll":
            log.roll(now_ms=i)
    log.roll(now_ms=len(ops))
    return log


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    ops=operations,
    segment_bytes=st.integers(150, 900),
    strategy=st.sampled_from(["offset", "offset", "timestamp", "header"]),
    slots=st.one_of(st.none(), st.integers(2, 6)),
    passes_before=st.integers(0, 2),
    now=st.integers(1000, 3000),
)
def test_streamed_pass_equals_the_pass_in_memory(ops, segment_bytes, strategy, slots, passes_before, now):
    log = random_log(ops, segment_bytes, strategy)
    offset_map = None if slots is None else OffsetMapSpec(slots=slots, load_factor=1.0)
    for earlier in range(passes_before):  # logs a pass already cleaned: horizons, empty batches, merged groups
        CleanerManager(log.broker).clean_log(log, now_ms=now - 500 * (passes_before - earlier), force=True)
    with tempfile.TemporaryDirectory() as scratch:
        folder = write_partition_dir(log, scratch)
        assert_same_pass(
            folder, now_ms=now, config=log.config, offset_map=offset_map, cleaner_checkpoint=log.cleaner_checkpoint
        )


# -- the broker's samples and a workload of several segments -------------------------------------------


@pytest.mark.parametrize(
    "stage", sorted(p for p in SAMPLES.glob("*/*") if p.is_dir()), ids=lambda p: p.parent.name + "/" + p.name
)
def test_streamed_pass_equals_the_pass_in_memory_on_broker_samples(stage: Path) -> None:
    folder = next(p for p in stage.iterdir() if p.is_dir())
    topic, partition = folder.name.rsplit("-", 1)
    checkpoint = read_checkpoint(stage / "cleaner-offset-checkpoint").get((topic, int(partition)))
    config = TopicConfig.from_properties({"cleanup.policy": "compact", "delete.retention.ms": 0})
    for now in (1_767_225_600_000, 1_900_000_000_000):
        assert_same_pass(folder, now_ms=now, config=config, cleaner_checkpoint=checkpoint)


def test_a_small_dedupe_buffer_stops_the_streamed_pass_where_the_pass_in_memory_stops(tmp_path: Path) -> None:
    log = PartitionLog("w", config=TopicConfig.from_properties({"cleanup.policy": "compact", "segment.bytes": 4000}))
    for i in range(400):
        log.append([NewRecord(b"k%03d" % (i * 7 % 150), b"v" * 20, timestamp=i)], now_ms=i)
    log.roll(now_ms=400)
    folder = write_partition_dir(log, tmp_path / "in")
    streamed = assert_same_pass(
        folder, now_ms=NOW, config=log.config, offset_map=OffsetMapSpec(slots=60, load_factor=0.9)
    )
    assert streamed.result is not None and streamed.result.map_full
    assert len(streamed.result.groups) > 1
    assert streamed.result.end_offset < log.active_segment.base_offset


def test_blocks_of_plain_keyed_batches_go_into_the_map_at_once_until_it_might_fill(tmp_path: Path, monkeypatch) -> None:
    """A block of uncompressed batches without producers, all keyed, is put into the map as one keyed run; where the
    map might fill within a block, its batches go one by one, Kafka checking the capacity before every put (spec
    6.3): the same stats (map bytes read per read buffer included), entries and end as the pass in memory."""
    log = PartitionLog("w", config=TopicConfig.from_properties({"cleanup.policy": "compact", "segment.bytes": 4000}))
    for i in range(400):
        log.append([NewRecord(b"k%03d" % (i * 7 % 150), b"v" * 20, timestamp=i) for _ in range(i % 3 + 1)], now_ms=i)
    log.roll(now_ms=400)
    folder = write_partition_dir(log, tmp_path / "in")
    runs: list[tuple[int, bool]] = []
    map_run = WholeBatches.map_run

    def recorded(loops: WholeBatches, cleaning: Any, run: KeyedRun) -> bool:
        runs.append((len(run.records.offsets), taken := map_run(loops, cleaning, run)))
        return taken

    monkeypatch.setattr(WholeBatches, "map_run", recorded)
    streamed = assert_same_pass(folder, now_ms=NOW, config=log.config, offset_map=OffsetMapSpec(slots=90))
    assert streamed.result is not None and streamed.result.map_full
    half = len(runs) // 2  # the pass streamed from the files, then the same pass over their bytes held
    assert runs[:half] == runs[half:]
    runs = runs[:half]
    took = [taken for _, taken in runs]
    assert took == sorted(took, reverse=True) and True in took and False in took  # runs, then near capacity
    assert sum(records for records, _ in runs) > 90 > sum(records for records, taken in runs if taken)


@pytest.mark.parametrize(
    ("version", "codec"), [("4.4.0", "none"), ("2.8.2", "none"), ("4.4.0", "gzip"), ("3.9.0", "lz4")]
)
def test_blocks_of_plain_keyed_batches_are_filtered_at_once_tombstones_and_their_horizons_too(
    tmp_path: Path, monkeypatch, version: str, codec: str
) -> None:
    """A block of data batches without producers, all keyed, is filtered at once (``filter_run``): whole batches
    kept, emptied ones deleted, the others rebuilt (compressed again with their codec), a kept tombstone's batch
    stamped with a delete horizon (3.1 on, spec 7.4) and removed once past it; the same stats, segments and bytes
    as the pass in memory."""
    config = TopicConfig.from_properties(
        {"cleanup.policy": "compact", "segment.bytes": 4000, "delete.retention.ms": 100_000}
    )
    log = PartitionLog("w", config=config, broker=BrokerConfig.from_properties({"kafka.version": version}))
    for i in range(600):
        values = [None if (i + j) % 5 == 0 else b"v" * 20 for j in range(i % 3 + 1)]
        records = [NewRecord(b"k%03d" % ((i * 7 + j) % 150), v, timestamp=i) for j, v in enumerate(values)]
        log.append(records, now_ms=i, compression=codec if i % 2 else "none")
    log.roll(now_ms=600)
    CleanerManager(log.broker).clean_log(log, now_ms=NOW, force=True)  # stamps the tombstones it keeps (3.1 on)
    for i in range(600, 700):
        records = [NewRecord(b"k%03d" % (i % 150), None if i % 4 == 0 else b"w" * 20, timestamp=i) for _ in range(2)]
        log.append(records, now_ms=i, compression=codec)
    log.roll(now_ms=700)
    for segment in log.segments:  # batches of leaders of several epochs: a rebuilt batch keeps its partitionLeaderEpoch
        segment.batches = [replace(b, partition_leader_epoch=i % 3, raw=None) for i, b in enumerate(segment.batches)]
    folder = write_partition_dir(log, tmp_path / "in")
    filtered: list[tuple[int, Any]] = []  # (records read, what became of the batch) of each batch filtered at once
    filter_run = WholeBatches.filter_run

    def recorded(loops: WholeBatches, record_filter: Any, block: Any, run: KeyedRun, **kw: Any) -> Any:
        outcomes = filter_run(loops, record_filter, block, run, **kw)
        filtered.extend([] if outcomes is None else zip(run.counts.tolist(), outcomes, strict=True))
        return outcomes

    monkeypatch.setattr(WholeBatches, "filter_run", recorded)
    for now in (NOW + 50_000, NOW + 200_000):  # before and past the horizon stamped
        filtered.clear()
        checkpoint = log.cleaner_checkpoint
        assert_same_pass(folder, now_ms=now, config=config, cleaner_checkpoint=checkpoint, broker=log.broker)
        assert {outcome.retained for _, outcome in filtered if outcome.output is None} == {0}  # deleted
        rebuilt = [outcome.output for read, outcome in filtered if 0 < outcome.retained < read]
        assert codec in {batch.compression for batch in rebuilt}


def test_the_pass_over_a_partition_on_disk_writes_its_cleaned_groups_and_the_writer_copies_the_rest(
    tmp_path: Path,
) -> None:
    """The pass alone writes its groups' ``.log`` files, as Kafka's cleaner writes them, where the read said; the
    partition directory it leaves is those files and the segments it does not reach copied as they are."""
    log = PartitionLog("w", config=TopicConfig.from_properties({"cleanup.policy": "compact", "segment.bytes": 4000}))
    for i in range(400):
        log.append([NewRecord(b"k%03d" % (i * 7 % 150), b"v" * 20, timestamp=i)], now_ms=i)
    log.roll(now_ms=400)
    folder = write_partition_dir(log, tmp_path / "in")
    spec = OffsetMapSpec(slots=60, load_factor=0.9)  # the pass stops early: segments after it are not reached
    streamed = on_disk(folder, now_ms=NOW, config=log.config, offset_map=spec, out=tmp_path / "out")
    assert streamed.result is not None and streamed.written == tmp_path / "out" / log.name
    cleaned = {segment_file_name(group[0]) for group in streamed.result.groups}
    assert 0 < len(cleaned) < len(streamed.log.segments)
    assert {p.name for p in streamed.cleaned.iterdir()} == cleaned
    for segment in streamed.log.segments:
        name = segment_file_name(segment.base_offset)
        source = streamed.cleaned / name if name in cleaned else folder / name
        assert (streamed.written / name).read_bytes() == source.read_bytes(), name


def test_a_scanned_partition_is_streamed_with_crcs_checked_as_it_was_scanned(tmp_path: Path) -> None:
    """A value byte flipped in the first batch: scanned with ``verify_crc=False``, its pass is the pass in memory
    over the partition read the same way; scanned with CRCs checked, the scan or the pass refuses the batch."""
    from kcompact_nb.io import CrcMismatchError

    log = PartitionLog("w", config=TopicConfig.from_properties({"cleanup.policy": "compact", "segment.bytes": 2000}))
    for i in range(100):
        log.append([NewRecord(b"k%02d" % (i % 30), b"v" * 20, timestamp=i) for _ in range(3)], now_ms=i)
    log.roll(now_ms=100)
    folder = write_partition_dir(log, tmp_path / "in")
    first = folder / segment_file_name(0)
    data = bytearray(first.read_bytes())
    data[12 + int.from_bytes(data[8:12], "big") - 2] ^= 1  # the last record's last value byte: 'v' -> 'w'
    first.write_bytes(bytes(data))
    streamed = on_disk(folder, now_ms=NOW, config=log.config, verify_crc=False)
    _, expected, _ = in_memory(folder, now_ms=NOW, config=log.config, offset_map=None, verify_crc=False)
    assert streamed.result is not None and expected is not None
    assert (streamed.result.stats, streamed.result.groups) == (expected.stats, expected.groups)
    with pytest.raises(CrcMismatchError):
        on_disk(folder, now_ms=NOW, config=log.config)


def test_scanning_keeps_no_batches_and_matches_the_loaded_log() -> None:
    folder = SAMPLES / "transactional" / "before" / "txn-0"
    scanned = read_partition_dir(folder, ReadOptions(on_disk_from_bytes=0))
    loaded = read_partition_dir(folder).log
    assert all(not s.batches for s in scanned.log.segments)
    assert [(s.base_offset, s.size_bytes, s.last_offset, s.aborted_transactions) for s in scanned.log.segments] == [
        (s.base_offset, s.size_bytes, s.last_offset, s.aborted_transactions) for s in loaded.segments
    ]
    assert scanned.log.producer_state.producers == loaded.producer_state.producers
    assert (scanned.log.log_end_offset, scanned.log.last_stable_offset) == (
        loaded.log_end_offset,
        loaded.last_stable_offset,
    )


def test_a_pass_over_a_partition_on_disk_without_a_folder_writes_nothing(tmp_path: Path) -> None:
    """Its cleaned groups are kept in memory: the log after the pass is read from both, the source never changed."""
    source = next((SAMPLES / "compaction-basic" / "before").glob("*-0"))
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    log = read_partition_dir(folder, ReadOptions(on_disk_from_bytes=0)).log
    _, result = next_pass_of(log, now_ms=1_767_225_600_000, offset_map=None)
    whole = read_partition_dir(folder).log
    _, expected = next_pass_of(whole, now_ms=1_767_225_600_000, offset_map=None)
    assert result is not None and expected is not None and result.stats == expected.stats
    assert [r.offset for _, r in log.records()] == [r.offset for _, r in whole.records()]
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [source.name]


def test_a_partition_on_disk_replaces_an_output_folder_only_when_told_and_only_when_done(tmp_path: Path) -> None:
    from kcompact_nb.io import LogWriteError

    source = next((SAMPLES / "compaction-basic" / "before").glob("*-0"))
    target = tmp_path / "out" / source.name
    target.mkdir(parents=True)
    (target / "old.log").write_bytes(b"kept")
    log = read_partition_dir(source, ReadOptions(on_disk_from_bytes=0)).log
    with pytest.raises(LogWriteError, match="not empty; pass overwrite=True"):
        write_partition_dir(log, tmp_path / "out")
    assert [p.name for p in target.iterdir()] == ["old.log"]
    assert write_partition_dir(log, tmp_path / "out", overwrite=True) == target and not (target / "old.log").exists()
    assert sorted(p.name for p in target.iterdir()) == sorted(segment_file_name(s.base_offset) for s in log.segments)
    for file in target.iterdir():
        assert file.read_bytes() == (source / file.name).read_bytes()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [source.name]  # no staging folder left


def test_packed_batches_over_several_segments_and_key_registries(tmp_path: Path, monkeypatch) -> None:
    """Batches of ten records (read back as packed columns), keys numbered afresh every 40 keys."""
    import kcompact_nb.io.logdir._segment_files as stream

    monkeypatch.setattr(stream, "REGISTRY_KEYS", 40)
    props = {"cleanup.policy": "compact", "segment.bytes": 6000, "delete.retention.ms": 0}
    log = PartitionLog("w", config=TopicConfig.from_properties(props))
    for i in range(120):
        batch = [NewRecord(b"key-%03d" % ((i * 10 + j) * 37 % 230), None if j == 3 else b"v" * 30) for j in range(10)]
        log.append(batch, now_ms=i)
    log.roll(now_ms=120)
    folder = write_partition_dir(log, tmp_path / "in")
    for offset_map in (None, OffsetMapSpec(slots=150, load_factor=1.0), OffsetMapSpec(exact=True)):
        streamed = assert_same_pass(folder, now_ms=NOW, config=log.config, offset_map=offset_map)
        assert streamed.result is not None and len(streamed.result.groups) > 1


def test_offset_buckets_streamed_equal_those_of_the_log_in_memory(tmp_path: Path) -> None:
    from kcompact_nb.core import offset_buckets

    for stage in sorted(p for p in SAMPLES.glob("*/*") if p.is_dir()):
        folder = next(p for p in stage.iterdir() if p.is_dir())
        expected = offset_buckets(read_partition_dir(folder).log, bucket_count=7)
        on_disk = read_partition_dir(folder, ReadOptions(on_disk_from_bytes=0)).log
        assert offset_buckets(on_disk, bucket_count=7) == expected, stage
    gzipped = [("batch", [NewRecord(b"k%d" % (i % 9), None if i % 5 == 0 else b"v")], "gzip") for i in range(60)]
    log = random_log(gzipped, 300, "offset")
    folder = write_partition_dir(log, tmp_path)
    rows = offset_buckets(read_partition_dir(folder, ReadOptions(on_disk_from_bytes=0)).log, bucket_count=11)
    assert rows == offset_buckets(read_partition_dir(folder).log, bucket_count=11)
    assert sum(r.records for r in rows) == 60 and sum(r.live + r.tombstones for r in rows) == 9


bucket_batches = st.lists(
    st.tuples(
        st.lists(
            st.tuples(st.sampled_from([None, *KEYS]), st.one_of(st.none(), st.binary(max_size=40))),
            min_size=1,
            max_size=12,
        ),
        st.sampled_from(["none", "none", "none", "gzip", "lz4"]),
        st.sampled_from(["plain", "plain", "headers", "txn"]),
    ),
    min_size=1,
    max_size=30,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    batches=bucket_batches,
    bucket_count=st.integers(1, 12),
    start=st.integers(0, 200),
    block_bytes=st.sampled_from([8 << 20, 300]),
)
def test_offset_buckets_tallied_a_block_at_a_time_equal_those_of_the_log_in_memory(
    batches, bucket_count, start, block_bytes, monkeypatch
) -> None:
    """Plain batches counted by columns (whole or straddling buckets and the log start offset, keyless records,
    tombstones), with compressed, header-carrying and control batches among them, one block per file or many."""
    from kcompact_nb.core import offset_buckets
    from kcompact_nb.io.logdir import _segment_files, _segment_framing

    monkeypatch.setattr(_segment_framing, "BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(_segment_files, "REGISTRY_KEYS", 3)
    props = {"cleanup.policy": "delete", "segment.bytes": 1500}
    log = PartitionLog("t", config=TopicConfig.from_properties(props))
    for i, (rows, codec, kind) in enumerate(batches):
        headers = (("h", b"1"),) if kind == "headers" else ()
        records = [NewRecord(key, value, timestamp=i, headers=headers) for key, value in rows]
        txn = {"producer_id": 9, "producer_epoch": 0, "transactional": True} if kind == "txn" else {}
        log.append(records, now_ms=i, compression=codec, **txn)
        if kind == "txn":
            log.append_end_txn_marker(9, 0, commit=i % 2 == 0, now_ms=i)
    with tempfile.TemporaryDirectory() as scratch:
        folder = write_partition_dir(log, scratch)
        start = min(start, log.log_end_offset)
        expected = offset_buckets(read_partition_dir(folder, log_start_offset=start).log, bucket_count=bucket_count)
        scanned = read_partition_dir(folder, ReadOptions(on_disk_from_bytes=0), log_start_offset=start)
        assert offset_buckets(scanned.log, bucket_count=bucket_count) == expected


def test_a_tally_raises_what_the_reader_raises_on_batches_out_of_order(tmp_path: Path) -> None:
    """A segment file changed since the scan (two batches swapped): the reader's error, offsets and position."""
    from kcompact_nb.core import offset_buckets
    from kcompact_nb.io import CorruptBatchError, iter_segment_batches

    log = PartitionLog("t", config=TopicConfig.from_properties({"cleanup.policy": "delete"}))
    for i in range(6):
        log.append([NewRecord(b"k%d" % (i % 2), b"v" * 10) for _ in range(3)], now_ms=i)
    folder = write_partition_dir(log, tmp_path)
    scanned = read_partition_dir(folder, ReadOptions(on_disk_from_bytes=0))
    file = next(folder.glob("*.log"))
    data = file.read_bytes()
    half = len(data) // 2  # six batches of the same size: three and three
    file.write_bytes(data[half:] + data[:half])
    with pytest.raises(CorruptBatchError) as expected:
        list(iter_segment_batches(file))
    with pytest.raises(type(expected.value), match=re.escape(str(expected.value))):
        offset_buckets(scanned.log, bucket_count=3)


def test_the_layout_figure_of_a_partition_on_disk_is_drawn_from_its_buckets() -> None:
    """``layout_figure`` takes the log read on disk as it is: the figure of its offset buckets, its files read once."""
    from kcompact_nb.core import offset_buckets
    from kcompact_nb.viz import layout_figure

    folder = SAMPLES / "compaction-basic" / "before" / "basic-0"
    log = read_partition_dir(folder, ReadOptions(on_disk_from_bytes=0)).log
    now = 1_767_225_600_000
    with reads_of(folder) as reads:
        streamed = layout_figure(log, now_ms=now, bucket_count=10)
    assert reads == {file.name: 1 for file in folder.glob("*.log")}
    loaded = read_partition_dir(folder).log
    whole = layout_figure(loaded, now_ms=now, max_records=0, bucket_count=10)
    assert streamed.to_plotly_json() == whole.to_plotly_json()
    assert offset_buckets(loaded, bucket_count=10)[0].records > 0  # buckets that hold records, not an empty figure
