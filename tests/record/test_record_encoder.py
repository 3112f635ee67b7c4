"""The header-less records encoder (in C and in Python) against kafka-python's ``DefaultRecordBatchBuilder``
(Kafka's record format), for records as tuples and as packed columns."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.record.default_records import DefaultRecordBatchBuilder

from kcompact_nb.core import RECORD_BATCH_OVERHEAD, Record
from kcompact_nb.record import PackedRecords
from kcompact_nb.record._kernels import records_section

payload = st.one_of(st.none(), st.binary(max_size=20), st.binary(min_size=8000, max_size=9000))
rows = st.lists(
    st.tuples(
        st.integers(0, 20_000),  # offset gap: deltas past the varint table
        st.one_of(st.integers(-100, 100), st.integers(-(2**62), 2**62)),  # timestamp delta
        payload,
        payload,
    ),
    min_size=1,
    max_size=10,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=rows, base_offset=st.integers(0, 2**40), base_ts=st.integers(0, 2**41))
def test_records_are_written_byte_for_byte_as_kafka_python_writes_them(kernels, spec, base_offset, base_ts) -> None:
    builder = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 30)
    offset, records = base_offset - 1, []
    for gap, ts_delta, key, value in spec:
        offset += 1 + gap
        records.append(Record(offset, base_ts + ts_delta, key, value))
        builder.append(offset - base_offset, base_ts + ts_delta, key, value, [])
    expected = bytes(builder.build())[RECORD_BATCH_OVERHEAD:]
    assert records_section(records, base_offset, records[0].timestamp) == expected
    packed = PackedRecords.from_rows([tuple(r) for r in records])
    assert records_section(packed, base_offset, records[0].timestamp) == expected
