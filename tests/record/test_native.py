"""The C kernels (:mod:`kcompact_nb.record._native`) against their numpy versions, and their own guards.

The table of kernels names every C export beside its twin, and :data:`NATIVE` switches every one of them;
``decode_plain`` must call the same batches plain as ``decode_plain_batches`` (:mod:`kcompact_nb.record._kernels`)
does in numpy and give them the same columns, on valid and on corrupted blocks; ``KeyTable`` must number keys as
interning them one by one does (tests/record/test_key_numbering.py runs those tests on both) and refuse misuse;
``OffsetTable`` must hold what the offset map's dict holds; ``frame_batches`` must frame the batches its twin frames,
``crc32c`` compute the crc32c package's CRCs (``records_section`` is held to kafka-python's bytes in
tests/record/test_record_encoder.py).
"""

from __future__ import annotations

import random
import shutil
import struct
import sysconfig
from array import array
from typing import Any

import numpy
import pytest
from crc32c import crc32c
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kcompact_nb.core import KeyRegistry
from kcompact_nb.core.cleaner._offset_table import DictOffsetTable
from kcompact_nb.record import PackedRecords, _key_numbering, _native_kernels
from kcompact_nb.record._crc import crc32c as crc32c_kernel
from kcompact_nb.record._kernels import KERNELS, decode_plain_batches, frame_batches, key_numbering
from kcompact_nb.record._offset_table import NativeOffsetTable
from tests.io.kafka_bytes import kafka_batch, rec

NATIVE = _native_kernels.NATIVE
needs_native = pytest.mark.skipif(NATIVE is None, reason="the C kernels were not built (no C compiler at install)")
record = st.tuples(
    st.integers(0, 200),  # offset gap before the record
    st.one_of(st.integers(-(2**20), 2**20), st.integers(-(2**62), 2**62)),
    st.one_of(st.none(), st.binary(max_size=20), st.binary(min_size=60, max_size=200)),
    st.one_of(st.none(), st.binary(max_size=20), st.binary(min_size=60, max_size=9000)),
    st.one_of(st.just(()), st.just((("h", b"v"),))),
)
HEADER_FIELDS = ((">i", 23), (">q", 27), (">i", 57))
"""lastOffsetDelta, baseTimestamp and records count: their formats and byte positions in a batch header."""
batches = st.lists(st.lists(record, min_size=1, max_size=10), min_size=1, max_size=6)


def test_the_c_kernels_are_built_where_a_compiler_is() -> None:
    """``pip install`` builds them when the compiler Python was built with is there (setup.py: optional)."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) on this machine: the numpy versions run, and are tested")
    assert NATIVE is not None, "a C compiler is here but the C kernels (codec._native) are not built: pip install -e ."


@needs_native
def test_the_table_names_every_c_kernel_beside_its_twin() -> None:
    """Every export of the C extension belongs to one kernel of the table, and each kernel's two functions exist."""
    exports = {name for name in dir(NATIVE) if not name.startswith("_")}
    named = [name for kernel in KERNELS for name in kernel.native]
    assert exports == set(named), "a C export without its twin in codec/_kernels.py, or a table entry not exported"
    assert len({kernel.name for kernel in KERNELS}) == len(KERNELS)
    for kernel in KERNELS:
        assert callable(kernel.c) and callable(kernel.python) and kernel.c is not kernel.python, kernel.name


@needs_native
def test_the_one_switch_selects_every_kernels_c_function_or_its_twin(monkeypatch) -> None:
    """With the extension built every kernel runs its C function; with :data:`NATIVE` None, its twin."""
    assert [kernel.selected() for kernel in KERNELS] == [kernel.c for kernel in KERNELS]
    monkeypatch.setattr(_native_kernels, "NATIVE", None)
    assert [kernel.selected() for kernel in KERNELS] == [kernel.python for kernel in KERNELS]


def test_calling_a_kernel_runs_the_selected_function(monkeypatch) -> None:
    """A kernel called runs :meth:`Kernel.selected`: the twin's result without the C kernels, the C one's with."""
    calls: list[str] = []
    kernel = _native_kernels.Kernel("probe", (), lambda x: calls.append("c") or x, lambda x: calls.append("py") or -x)
    monkeypatch.setattr(_native_kernels, "NATIVE", None)
    assert kernel(3) == -3 and calls == ["py"]
    monkeypatch.setattr(_native_kernels, "NATIVE", object())
    assert kernel(3) == 3 and calls == ["py", "c"]


def framed(specs: list[list[tuple]]) -> tuple[bytes, list[int], list[tuple[int, ...]]]:
    """The batches one after another: the block, each batch's start, and (base offset, base ts, last delta, count)."""
    block, starts, headers, base = bytearray(), [], [], 0
    for records in specs:
        delta, rows = -1, []
        for gap, ts_delta, key, value, headers_of in records:
            delta += 1 + gap
            rows.append(rec(delta, 1_700_000_000_000 + ts_delta, key, value, headers_of))
        starts.append(len(block))
        data = kafka_batch(rows, base_offset=base)
        block += data
        (last_delta,), (base_ts,), (count,) = (
            struct.unpack_from(f, data, at) for f, at in ((">i", 23), (">q", 27), (">i", 57))
        )
        headers.append((base, base_ts, last_delta, count))
        base += delta + 1
    return bytes(block), starts, headers


def decoded_both_ways(block: bytes, starts: list[int], headers: list[tuple[int, ...]], monkeypatch) -> tuple:
    """(plain flags, columns of the plain batches' rows) from the C kernel and from numpy."""
    ends = starts[1:] + [len(block)]
    base_offsets, base_ts, last_deltas, counts = (list(c) for c in zip(*headers, strict=True))
    results = []
    for native in (NATIVE, None):
        monkeypatch.setattr(_native_kernels, "NATIVE", native)
        columns = decode_plain_batches(block, starts, ends, base_offsets, base_ts, last_deltas, counts)
        rows = numpy.repeat(columns.plain, columns.counts)
        fields = ("offsets", "timestamps", "key_starts", "key_lengths", "value_starts", "value_lengths")
        results.append((columns.plain.tolist(), [getattr(columns, f)[rows].tolist() for f in fields]))
    return results[0], results[1]


@needs_native
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(specs=batches, data=st.data())
def test_c_and_numpy_decode_the_same_batches_to_the_same_columns(monkeypatch, specs, data) -> None:
    block, starts, headers = framed(specs)
    by_c, by_numpy = decoded_both_ways(block, starts, headers, monkeypatch)
    assert by_c == by_numpy
    expected = [all(not r[4] and -(2**62) <= r[1] - rs[0][1] < 2**62 for r in rs) for rs in specs]
    assert by_c[0] == expected  # every batch without headers (and timestamps within a 9-byte varlong) reads plainly
    corrupted = bytearray(block)
    for _ in range(data.draw(st.integers(1, 4))):  # bytes of the records (the header fields stay as given)
        index = data.draw(st.integers(0, len(starts) - 1))
        end = starts[index + 1] if index + 1 < len(starts) else len(block)
        corrupted[data.draw(st.integers(starts[index] + 61, end - 1))] = data.draw(st.integers(0, 255))
    by_c, by_numpy = decoded_both_ways(bytes(corrupted), starts, headers, monkeypatch)
    assert by_c == by_numpy


@needs_native
def test_decode_plain_refuses_columns_and_batches_that_do_not_fit() -> None:
    block, starts, headers = framed([[(0, 0, b"k", b"v", ())] * 3])
    start, end, first = (numpy.array([n], numpy.int64) for n in (0, len(block), 0))
    fields = [numpy.array([h], numpy.int64) for h in headers[0]]
    plain = numpy.ones(1, bool)
    columns = [numpy.empty(3, numpy.int64) for _ in range(6)]
    good = [block, start, end, *fields[:3], first, fields[3], plain, *columns]
    assert NATIVE.decode_plain(*good) is None and plain.tolist() == [True]
    with pytest.raises(ValueError, match="offsets holds 16 bytes"):
        NATIVE.decode_plain(*good[:9], numpy.empty(2, numpy.int64), *columns[1:])
    with pytest.raises(ValueError, match="batch 0 lies outside the block"):
        NATIVE.decode_plain(block, start, end + 1, *good[3:])
    with pytest.raises(ValueError, match="ends holds 16 bytes"):
        NATIVE.decode_plain(block, start, numpy.zeros(2, numpy.int64), *good[3:])


@needs_native
def test_the_key_table_numbers_keys_of_any_length_by_their_bytes() -> None:
    """Keys past the numpy numbering's 64 bytes, keys differing in their last byte only, None and the empty key."""
    keys: list[bytes | None] = [b"x" * 100 + bytes([i % 7]) for i in range(50)] + [None, b"", b"\x00", None, b""]
    block = b"".join(k or b"" for k in keys)
    lengths = numpy.array([-1 if k is None else len(k) for k in keys], numpy.int64)
    starts = numpy.concatenate(([0], numpy.cumsum(numpy.maximum(lengths, 0))[:-1]))
    by_table, one_by_one = KeyRegistry(), KeyRegistry()
    assert key_numbering(by_table).ids(block, starts, lengths).tolist() == list(one_by_one.ids(keys))
    assert by_table.keys == one_by_one.keys == [b"x" * 100 + bytes([i]) for i in range(7)] + [None, b"", b"\x00"]


@needs_native
def test_the_key_table_refuses_misuse() -> None:
    table = NATIVE.KeyTable()
    block, starts, lengths = b"abcd", numpy.array([0, 2], numpy.int64), numpy.array([2, 2], numpy.int64)
    ids, rows = numpy.empty(2, numpy.int64), numpy.empty(2, numpy.int64)
    with pytest.raises(RuntimeError, match="no keys await their ids"):
        table.commit(numpy.zeros(0, numpy.int64))
    assert table.number(block, starts, lengths, ids, rows) == 2 and ids.tolist() == [-2, -3] and rows.tolist() == [0, 1]
    with pytest.raises(RuntimeError, match="were not committed"):
        table.number(block, starts, lengths, ids, rows)
    with pytest.raises(ValueError, match="ids holds 8 bytes, expected 2 items"):
        table.commit(numpy.zeros(1, numpy.int64))
    table.commit(numpy.array([7, 9], numpy.int64))
    assert (
        table.number(block, starts[::-1].copy(), lengths, ids, rows) == 0 and ids.tolist() == [9, 7] and len(table) == 2
    )
    with pytest.raises(ValueError, match="key 1 lies outside the block"):
        table.number(block, numpy.array([0, 3], numpy.int64), lengths, ids, rows)
    with pytest.raises(ValueError, match="lengths holds 8 bytes"):
        table.number(block, starts, lengths[:1].copy(), ids, rows)


@needs_native
def test_numberings_into_one_registry_share_its_table_and_see_keys_registered_elsewhere() -> None:
    """A partition's segment files number into one registry: a key is hashed into its table once. A key the
    registry got another way (a batch read record by record) keeps its id when a block meets it later."""
    registry = KeyRegistry()
    block = b"abcdef"
    starts, lengths = numpy.array([0, 2, 4], numpy.int64), numpy.array([2, 2, 2], numpy.int64)
    assert key_numbering(registry).ids(block, starts, lengths).tolist() == [0, 1, 2]
    table = _key_numbering._TABLES[registry]
    assert key_numbering(registry).ids(block, starts[::-1], lengths).tolist() == [2, 1, 0] and len(table) == 3
    assert registry.intern(b"zz") == b"zz" and registry.ids([b"zz"]).tolist() == [3]  # registered record by record
    later = key_numbering(registry).ids(b"zzab", numpy.array([0, 2], numpy.int64), numpy.array([2, 2], numpy.int64))
    assert later.tolist() == [3, 0] and registry.keys == [b"ab", b"cd", b"ef", b"zz"]


def span_records(rows: list[tuple[int, bytes]]) -> PackedRecords:
    """Keyed records whose keys (and values) stay in one byte string, as a streamed pass reads them."""
    data, key_starts, key_lengths = bytearray(b"header"), [], []
    for _, key in rows:
        key_starts.append(len(data))
        key_lengths.append(len(key))
        data += key + b"|"
    offsets = array("q", [offset for offset, _ in rows])
    keys = (array("q", key_starts), array("q", key_lengths))
    values = (array("q", [0] * len(rows)), array("q", [-1] * len(rows)))
    return PackedRecords.from_span_keys(offsets, array("q", offsets), bytes(data), keys, values, True)


STAGED_KEYS = [None, b"", b"a", b"b\0", b"b", b"key-00000001", b"key-00000002", b"x" * 16, b"y" * 16, b"x" * 17]
STAGED_KEYS += [b"k-%d" % i for i in range(600)]
"""Keys for stage_spans: short ones that differ only in their length or last byte, one just long enough to go to the
arena, and enough others to make a table grow."""

table_keys = st.sampled_from([b"", b"a", b"b", b"key-00000001", b"key-00000002", b"x" * 70, b"x" * 71])
table_ops = st.lists(
    st.one_of(
        st.tuples(st.just("spans"), st.lists(table_keys, min_size=1, max_size=8)),
        st.tuples(st.just("tuple"), st.lists(table_keys, min_size=1, max_size=8)),
        st.tuples(st.just("keys"), st.lists(table_keys, min_size=1, max_size=8)),
        st.tuples(st.just("put"), st.lists(table_keys, min_size=1, max_size=1)),
    ),
    max_size=30,
)


@needs_native
@settings(max_examples=200, deadline=None)
@given(table_ops, st.lists(table_keys, max_size=8))
def test_the_c_offset_table_holds_what_a_dict_holds(ops, probes) -> None:
    """Records with span keys, with registry keys, keys with offsets and single puts (a lower offset put later
    keeps the higher one, as ``OffsetMap.put`` keeps the higher rank): the same entries, found the same ways."""
    native, reference = NativeOffsetTable(NATIVE.OffsetTable()), DictOffsetTable()
    offset = 0
    for kind, keys in ops:
        offsets = list(range(offset, offset + len(keys)))
        offset += len(keys) + 1
        for table in (native, reference):
            if kind == "spans":
                table.put_records(span_records(list(zip(offsets, keys, strict=True))))
            elif kind == "tuple":
                rows = [(o, 0, k, b"v", ()) for o, k in zip(offsets, keys, strict=True)]
                table.put_records(PackedRecords.from_rows(rows))
            elif kind == "keys":
                table.put_keys(keys, offsets)
            else:
                table.put(keys[0], offset // 2)
    assert len(native) == len(reference) and native.items() == list(reference.items())
    assert list(native.entries_of_keys(probes)) == list(reference.entries_of_keys(probes))
    for records in (
        span_records([(i, k) for i, k in enumerate(probes)]),
        PackedRecords.from_rows([(i, 0, k, b"v", ()) for i, k in enumerate(probes)]),
    ):
        assert native.entries_of_records(records).tolist() == reference.entries_of_records(records).tolist()
    assert [native.get(k) for k in probes] == [reference.get(k) for k in probes]
    assert all(type(native.get(k)) in (int, type(None)) for k in probes)  # Python ints, as a dict's entries


@needs_native
def test_the_c_offset_table_refuses_what_it_cannot_hold() -> None:
    table = NATIVE.OffsetTable()
    with pytest.raises(TypeError, match="keys and values must be bytes or None, not str"):
        table.put(["a"], array("q", [1]))
    with pytest.raises(ValueError, match="offsets holds 16 bytes, expected 1 items"):
        table.put([b"a"], array("q", [1, 2]))
    with pytest.raises(ValueError, match="key 0 lies outside the block"):
        table.put_spans(b"ab", array("q", [1]), array("q", [2]), array("q", [5]))
    assert len(table) == 0 and table.items() == []
    with pytest.raises(TypeError):
        NativeOffsetTable(table).put(b"a", (1, 2))  # KIP-280 ranks are tuples: such maps keep a dict


@needs_native
@settings(max_examples=20, deadline=None)
@given(
    st.lists(st.sampled_from([-1, 0, 1, 7, 8, 12, 15, 16, 17, 40]), min_size=1, max_size=6),
    st.integers(600, 4000),
    st.integers(0, 2**32),
)
def test_the_c_offset_table_holds_what_a_dict_holds_as_it_grows(lengths, count, seed) -> None:
    """Thousands of keys (None, empty, short ones kept in their slots, long ones in the arena, either side of
    INLINE_KEY_BYTES = 16), put as spans of blocks, many more than once and not in offset order: the table grows
    past its first slots (a short key's hash worked out again) and holds each key's highest offset, in the order
    keys were first put (items), as a dict does."""
    table, reference, rng = NATIVE.OffsetTable(), {}, random.Random(seed)
    keys = [None if n < 0 else (b"%d-" % i * 40)[:n] for i, n in enumerate(lengths * (count // len(lengths)))]
    keys = list(dict.fromkeys(keys))  # short lengths repeat keys: b"", b"1", ...
    for _ in range(3 * len(keys) // 997 + 1):
        rows = [rng.choice(keys) for _row in range(997)]
        offsets = [rng.randrange(10**6) for _row in rows]
        for key, offset in zip(rows, offsets, strict=True):
            reference[key] = max(offset, reference.get(key, offset))
        block = b"".join(key or b"" for key in rows) + b"pad"
        starts = numpy.cumsum([0] + [len(key or b"") for key in rows])[:-1].astype(numpy.int64)
        lengths_of = numpy.array([-1 if key is None else len(key) for key in rows], numpy.int64)
        table.put_spans(block, starts, lengths_of, numpy.array(offsets, numpy.int64))
    assert table.items() == list(reference.items())
    entries = numpy.empty(len(keys), numpy.int64)
    table.get(keys, entries)
    assert entries.tolist() == [reference.get(key, -1) for key in keys]


@needs_native
@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["spans", "keys"]), st.lists(st.tuples(table_keys, st.integers(-50, 50)), max_size=8)
        ),
        max_size=20,
    )
)
def test_a_tallys_latest_entries_in_c_and_numpy_keep_each_keys_highest_entry(ops) -> None:
    """Keys given as spans of a block or as bytes, entries in any order: both keep each key's highest entry
    (``OffsetTable.values`` gives the C table's)."""
    from kcompact_nb.record._latest_entries import NumberedLatestEntries, latest_entries_in_c

    native, numbered, highest = latest_entries_in_c(), NumberedLatestEntries(), {}  # native: keys over two tables
    for kind, rows in ops:
        keys = [key for key, _ in rows]
        entries = numpy.array([entry for _, entry in rows], numpy.int64)
        for key, entry in rows:
            highest[key] = max(entry, highest.get(key, entry))
        for table in (native, numbered):
            if kind == "keys":
                table.put_keys(keys, entries)
            else:
                block = b"".join(key for key in keys if key is not None) + b"pad"
                starts = numpy.cumsum([0] + [len(k or b"") for k in keys])[:-1]
                lengths = numpy.array([-1 if k is None else len(k) for k in keys], numpy.int64)
                table.put_spans(block, starts, lengths, entries)
    for table in (native, numbered):
        assert len(table) == len(highest)
        assert sorted(table.entries().tolist()) == sorted(highest.values())


@needs_native
@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.tuples(table_keys, st.integers(-50, 50)), max_size=12), max_size=12))
def test_latest_entries_put_on_their_thread_end_as_one_table_put_call_by_call(blocks) -> None:
    """NativeLatestEntries puts the keys on a thread of its own (the table's stage_spans without the GIL), up to
    ``ahead`` blocks behind the caller: the table ends holding what a table given the same puts in the caller's thread
    holds, each key once with its highest entry, whatever is asked between puts (a table puts the keys it held back
    in the order of their slots, not first put first)."""
    from kcompact_nb.record._latest_entries import NativeLatestEntries

    latests = [
        NativeLatestEntries(NATIVE.OffsetTable()),
        NativeLatestEntries(NATIVE.OffsetTable(), hold=3, ahead=1),  # held keys put mid-way, one block at a time
        NativeLatestEntries(NATIVE.OffsetTable(), hold=5, ahead=4),
    ]
    alone = NATIVE.OffsetTable()
    for number, rows in enumerate(blocks):
        keys = [key for key, _ in rows]
        block = b"".join(keys) + b"pad"
        starts = numpy.cumsum([0] + [len(k) for k in keys])[:-1].astype(numpy.int64)
        lengths = numpy.array([len(k) for k in keys], numpy.int64)
        entries = numpy.array([entry for _, entry in rows], numpy.int64)
        for latest in latests:
            latest.put_spans(block, starts, lengths, entries)
        alone.put_spans(block, starts, lengths, entries)
        if number % 3 == 2:  # asked mid-way: waits for the puts under way
            assert [len(latest) for latest in latests] == [len(alone)] * len(latests)
    held = numpy.empty(len(alone), numpy.int64)
    alone.values(held)
    for latest in latests:
        assert sorted(latest.entries().tolist()) == sorted(held.tolist())
        assert dict(latest._table.items()) == dict(alone.items())


@needs_native
@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 400), st.sampled_from(["stage", "put", "flush", "len", "get"])),
        min_size=1,
        max_size=10,
    ),
    st.sampled_from([1, 2, 3, 17, 300, 1000]),
    st.integers(0, 2**32),
)
def test_keys_held_back_and_put_in_slot_order_end_as_a_dict_of_highest_entries(calls, hold, seed) -> None:
    """stage_spans holds back up to ``hold`` short keys (None, empty, up to INLINE_KEY_BYTES = 16; longer ones are
    put at once) and puts them sorted by slot when it holds that many, at flush() and before any other call, over
    tables that grow meanwhile (held keys that might not fit: those in the table put first, the table grown for
    the others): the table ends holding each key once with its highest entry, as a dict, whatever calls come
    between (put_spans, len, get_spans)."""
    table, reference, rng = NATIVE.OffsetTable(), {}, random.Random(seed)
    for count, then in calls:
        rows = [(rng.choice(STAGED_KEYS), rng.randrange(-(2**40), 2**40)) for _ in range(count)]
        keys = [key for key, _ in rows]
        for key, entry in rows:
            reference[key] = max(entry, reference.get(key, entry))
        block = b"".join(key or b"" for key in keys) + b"pad"
        starts = numpy.cumsum([0] + [len(key or b"") for key in keys])[:-1].astype(numpy.int64)
        lengths = numpy.array([-1 if key is None else len(key) for key in keys], numpy.int64)
        entries = numpy.array([entry for _, entry in rows], numpy.int64)
        if then == "put":
            table.put_spans(block, starts, lengths, entries)
            continue
        table.stage_spans(block, starts, lengths, entries, hold)
        if then == "flush":
            table.flush()
        elif then == "len":
            assert len(table) <= len(reference)
        elif then == "get":
            found = numpy.empty(len(keys), numpy.int64)
            table.get_spans(block, starts, lengths, found)
    items = table.items()
    assert len(items) == len(table) and dict(items) == reference


def key_spans(keys: list[bytes]) -> tuple[bytes, Any, Any]:
    """The keys as spans of one block: (block, starts, lengths)."""
    starts = numpy.cumsum([0] + [len(key) for key in keys])[:-1].astype(numpy.int64)
    return b"".join(keys), starts, numpy.array([len(key) for key in keys], numpy.int64)


@needs_native
def test_held_keys_that_might_not_fit_are_put_in_two_sweeps_the_table_grown_between() -> None:
    """A table of 600 keys in 1024 slots, then 800 keys held over six calls (each fits beside the table: it does not
    grow), 600 of them the same keys, higher: were they all new, they would not fit, so those held already are put
    first and the table grows for the 200 others only."""
    table = NATIVE.OffsetTable()
    keys = [b"k-%d" % i for i in range(600)] + [b"n-%d" % i for i in range(200)]
    table.put_spans(*key_spans(keys[:600]), numpy.zeros(600, numpy.int64))
    for start, end in zip([0, 150, 300, 450, 600, 700], [150, 300, 450, 600, 700, 800], strict=True):
        table.stage_spans(*key_spans(keys[start:end]), numpy.arange(start + 1, end + 1, dtype=numpy.int64), 1000)
    table.flush()
    assert dict(table.items()) == dict(zip(keys, range(1, 801), strict=True))


@needs_native
def test_latest_entries_raise_a_failed_put_at_the_next_call() -> None:
    """A put that fails on its thread (a span outside its block) raises in the caller's thread at its next call, a
    put_spans too once the put it waits for is that one (its own block not put); the table goes on after."""
    from kcompact_nb.record._latest_entries import NativeLatestEntries, latest_entries_in_c

    latest = latest_entries_in_c()
    latest.put_spans(b"ab", numpy.array([1]), numpy.array([2]), numpy.array([5]))
    with pytest.raises(ValueError, match="key 0 lies outside the block"):
        latest.entries()
    assert len(latest) == 0 and latest.entries().tolist() == []
    ahead = NativeLatestEntries(NATIVE.OffsetTable(), ahead=1)
    ahead.put_spans(b"ab", numpy.array([1]), numpy.array([2]), numpy.array([5]))
    with pytest.raises(ValueError, match="key 0 lies outside the block"):
        ahead.put_spans(b"ab", numpy.array([0]), numpy.array([2]), numpy.array([7]))  # waits for the first put
    ahead.put_spans(b"ab", numpy.array([0]), numpy.array([2]), numpy.array([9]))
    assert ahead.entries().tolist() == [9] and len(ahead) == 1


def framed_both_ways(block: bytes, verify_crc: bool, monkeypatch) -> list:
    """(starts, end) of the block's whole valid batches, from the C kernel and from its twin."""
    results = []
    for native in (NATIVE, None):
        monkeypatch.setattr(_native_kernels, "NATIVE", native)
        results.append(frame_batches(block, verify_crc))
    return results


@needs_native
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(specs=batches, data=st.data())
def test_c_and_python_frame_the_same_batches_of_a_block(monkeypatch, specs, data) -> None:
    """A block of valid batches frames whole; with bytes changed anywhere (lengths, magic bytes, CRCs, records), cut
    short or followed by garbage, both stop at the same batch, CRCs checked or not."""
    block, starts, _ = framed(specs)
    assert framed_both_ways(block, True, monkeypatch) == [(starts, len(block))] * 2
    damaged = bytearray(block)
    for _ in range(data.draw(st.integers(0, 4))):
        start = starts[data.draw(st.integers(0, len(starts) - 1))]
        field = data.draw(st.sampled_from([None, 8, 11, 16, 17, 20]))  # anywhere, length, magic, CRC
        at = data.draw(st.integers(0, len(block) - 1)) if field is None else start + field
        damaged[at] = data.draw(st.integers(0, 255))
    damaged = damaged[: data.draw(st.integers(0, len(damaged)))] + data.draw(st.binary(max_size=80))
    for verify_crc in (True, False):
        by_c, by_python = framed_both_ways(bytes(damaged), verify_crc, monkeypatch)
        assert by_c == by_python
    assert set(framed_both_ways(bytes(damaged), True, monkeypatch)[0][0]) <= set(starts)  # a CRC guards each frame


def batch_with_crc_over(length: int) -> bytes:
    """A batch's frame whose CRC-32C (by the crc32c package) covers ``length`` bytes of random content: the length,
    magic byte and CRC framing checks, nothing else."""
    data = bytearray(21) + random.Random(length).randbytes(length)
    struct.pack_into(">i", data, 8, len(data) - 12)
    data[16] = 2
    struct.pack_into(">I", data, 17, crc32c(memoryview(data)[21:]))
    return bytes(data)


@needs_native
@pytest.mark.parametrize("streams", [0, 1, 2])  # none, short (3 x 256 bytes) and long (3 x 8 KiB) rounds
@pytest.mark.parametrize("over", [-9, -1, 0, 1, 7, 8, 770])
def test_the_c_kernels_crc_is_crc32c_where_its_streams_split(streams, over) -> None:
    """The kernel's CRC-32C takes a batch's bytes as three streams in rounds of 3 x 8 KiB, then of 3 x 256 bytes,
    then 8 bytes and single bytes: a batch just below, at and past each split frames with its stored CRC, and
    with any byte changed does not."""
    length = max((0, 3 * 256, 3 * 8192)[streams] + over, 40)
    data = batch_with_crc_over(length)
    assert frame_batches(data, True) == ([0], len(data))
    for at in (21, 21 + length // 2, len(data) - 1):
        changed = bytearray(data)
        changed[at] ^= 0x10
        assert frame_batches(bytes(changed), True) == ([], 0), at


@needs_native
@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(max_size=70), st.binary(min_size=8000, max_size=30000)), st.integers(0, 7))
def test_the_c_crc32c_is_the_crc32c_packages(data: bytes, skip: int) -> None:
    """Bytes of any length (the SSE 4.2 path's three streams past 8 KiB), from any alignment (a memoryview)."""
    view = memoryview(data)[min(skip, len(data)) :]
    assert crc32c_kernel.c(view) == crc32c_kernel.python(view) == crc32c(view)
