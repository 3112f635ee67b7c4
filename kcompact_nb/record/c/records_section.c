/* records_section: the records of a v2 batch without headers, as DefaultRecord.writeTo writes them;
 * placed_records_section: the same from spans of other bytes, saying where each key and value lands;
 * placed_batches: whole uncompressed batches of such records, their headers and CRC-32C written;
 * records_size: their bytes, without writing them. */
#include "kernels.h"

static int
varint_size(uint64_t unsigned_value)
{
    int size = 1;
    while (unsigned_value >= 0x80) {
        unsigned_value >>= 7;
        size++;
    }
    return size;
}

static uint64_t
zigzag(int64_t value)
{
    return ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
}

static char *
write_varint(char *out, uint64_t unsigned_value)
{
    while (unsigned_value >= 0x80) {
        *out++ = (char)((unsigned_value & 0x7F) | 0x80);
        unsigned_value >>= 7;
    }
    *out++ = (char)unsigned_value;
    return out;
}

/* The record's bytes after its length varint: attributes, the deltas, key and value, headersCount 0. */
static Py_ssize_t
body_size(uint64_t ts_delta, uint64_t offset_delta, Py_ssize_t key_length, Py_ssize_t value_length)
{
    return 1 + varint_size(ts_delta) + varint_size(offset_delta) + varint_size(zigzag(key_length))
           + (key_length > 0 ? key_length : 0) + varint_size(zigzag(value_length))
           + (value_length > 0 ? value_length : 0) + 1;
}

/* A record's timestamp or offset against its batch's base: the zigzagged delta, in Java's 64-bit arithmetic. */
static uint64_t
delta(int64_t value, long long base)
{
    return zigzag((int64_t)((uint64_t)value - (uint64_t)base));
}

/* The bytes of a record of `body` bytes: its length varint, then the body. */
static Py_ssize_t
record_size(Py_ssize_t body)
{
    return varint_size(zigzag(body)) + body;
}

const char records_section_doc[] = PyDoc_STR(
"records_section(offsets, timestamps, keys, values, base_offset, base_timestamp) -> bytes\n"
"--\n\n"
"The records (offsets and timestamps int64 buffers, keys and values sequences of bytes or None; no headers)\n"
"as stored after a v2 batch header (DefaultRecord.writeTo): deltas against base_offset and base_timestamp in\n"
"Java's 64-bit arithmetic, zigzag varints, headersCount 0.");

PyObject *
records_section(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer offsets_view, timestamps_view;
    PyObject *keys_arg, *values_arg, *keys = NULL, *values = NULL, *result = NULL;
    long long base_offset, base_timestamp;
    if (!PyArg_ParseTuple(args, "y*y*OOLL:records_section", &offsets_view, &timestamps_view, &keys_arg, &values_arg,
                          &base_offset, &base_timestamp))
        return NULL;
    Py_ssize_t count = offsets_view.len / 8;
    if (!check_buffer(&offsets_view, count, 8, "offsets") || !check_buffer(&timestamps_view, count, 8, "timestamps"))
        goto done;
    keys = PySequence_Fast(keys_arg, "keys must be a sequence");
    values = keys ? PySequence_Fast(values_arg, "values must be a sequence") : NULL;
    if (values == NULL)
        goto done;
    if (PySequence_Fast_GET_SIZE(keys) != count || PySequence_Fast_GET_SIZE(values) != count) {
        PyErr_Format(PyExc_ValueError, "%zd offsets but %zd keys and %zd values", count,
                     PySequence_Fast_GET_SIZE(keys), PySequence_Fast_GET_SIZE(values));
        goto done;
    }
    const int64_t *offsets = offsets_view.buf, *timestamps = timestamps_view.buf;
    PyObject **key_items = PySequence_Fast_ITEMS(keys), **value_items = PySequence_Fast_ITEMS(values);
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        const char *key, *value;
        Py_ssize_t key_length, value_length;
        if (!bytes_of(key_items[i], &key, &key_length) || !bytes_of(value_items[i], &value, &value_length))
            goto done;
        total += record_size(body_size(delta(timestamps[i], base_timestamp), delta(offsets[i], base_offset), key_length,
                                       value_length));
    }
    result = PyBytes_FromStringAndSize(NULL, total);
    if (result == NULL)
        goto done;
    char *out = PyBytes_AS_STRING(result);
    for (Py_ssize_t i = 0; i < count; i++) {
        const char *key = NULL, *value = NULL;
        Py_ssize_t key_length = -1, value_length = -1; /* both checked above: bytes_of sets them */
        bytes_of(key_items[i], &key, &key_length);
        bytes_of(value_items[i], &value, &value_length);
        uint64_t ts_delta = delta(timestamps[i], base_timestamp), offset_delta = delta(offsets[i], base_offset);
        out = write_varint(out, zigzag(body_size(ts_delta, offset_delta, key_length, value_length)));
        *out++ = 0; /* attributes */
        out = write_varint(out, ts_delta);
        out = write_varint(out, offset_delta);
        out = write_varint(out, zigzag(key_length));
        if (key_length > 0) {
            memcpy(out, key, (size_t)key_length);
            out += key_length;
        }
        out = write_varint(out, zigzag(value_length));
        if (value_length > 0) {
            memcpy(out, value, (size_t)value_length);
            out += value_length;
        }
        *out++ = 0; /* headersCount */
    }
done:
    Py_XDECREF(keys);
    Py_XDECREF(values);
    PyBuffer_Release(&offsets_view);
    PyBuffer_Release(&timestamps_view);
    return result;
}



/* Records whose keys and values are spans of `data` (int64 starts and lengths, -1: null), as columns. */
typedef struct {
    const char *data;
    Py_ssize_t length;
    const int64_t *offsets, *timestamps, *key_starts, *key_lengths, *value_starts, *value_lengths;
} SpanRecords;

enum { OFFSETS, TIMESTAMPS, KEY_STARTS, KEY_LENGTHS, VALUE_STARTS, VALUE_LENGTHS, SPAN_COLUMNS };
static const char *span_column_names[SPAN_COLUMNS] = {"offsets", "timestamps", "key_starts", "key_lengths",
                                                      "value_starts", "value_lengths"};

/* The records of `count` rows over the parsed columns (each checked to hold `count` int64s). */
static int
open_span_records(Py_buffer *data, Py_buffer columns[SPAN_COLUMNS], Py_ssize_t count, SpanRecords *out)
{
    for (int c = 0; c < SPAN_COLUMNS; c++)
        if (!check_buffer(&columns[c], count, 8, span_column_names[c]))
            return 0;
    *out = (SpanRecords){data->buf,           data->len,           columns[OFFSETS].buf,      columns[TIMESTAMPS].buf,
                         columns[KEY_STARTS].buf, columns[KEY_LENGTHS].buf, columns[VALUE_STARTS].buf,
                         columns[VALUE_LENGTHS].buf};
    return 1;
}

/* The bytes records [first, end) take as a records section against the base offset and timestamp; -1 with a
 * ValueError when a key or value is not within the data. */
static Py_ssize_t
placed_size(const SpanRecords *r, Py_ssize_t first, Py_ssize_t end, long long base_offset, long long base_timestamp)
{
    Py_ssize_t total = 0;
    for (Py_ssize_t i = first; i < end; i++) {
        int64_t spans[2][2] = {{r->key_starts[i], r->key_lengths[i]}, {r->value_starts[i], r->value_lengths[i]}};
        for (int s = 0; s < 2; s++)
            if (spans[s][1] > 0 && (spans[s][0] < 0 || spans[s][0] > r->length - spans[s][1])) {
                PyErr_Format(PyExc_ValueError, "record %zd: a span [%lld, +%lld) outside %zd bytes", i,
                             (long long)spans[s][0], (long long)spans[s][1], r->length);
                return -1;
            }
        total += record_size(body_size(delta(r->timestamps[i], base_timestamp), delta(r->offsets[i], base_offset),
                                       (Py_ssize_t)r->key_lengths[i], (Py_ssize_t)r->value_lengths[i]));
    }
    return total;
}

/* Writes records [first, end) from `section` on (sized by placed_size), and where each key and value lands:
 * `at` plus its position in the section. */
static void
write_placed(const SpanRecords *r, Py_ssize_t first, Py_ssize_t end, long long base_offset, long long base_timestamp,
             char *section, Py_ssize_t at, int64_t *key_positions, int64_t *value_positions)
{
    char *out = section;
    for (Py_ssize_t i = first; i < end; i++) {
        Py_ssize_t key_length = (Py_ssize_t)r->key_lengths[i], value_length = (Py_ssize_t)r->value_lengths[i];
        uint64_t ts_delta = delta(r->timestamps[i], base_timestamp), offset_delta = delta(r->offsets[i], base_offset);
        out = write_varint(out, zigzag(body_size(ts_delta, offset_delta, key_length, value_length)));
        *out++ = 0; /* attributes */
        out = write_varint(out, ts_delta);
        out = write_varint(out, offset_delta);
        out = write_varint(out, zigzag(key_length));
        key_positions[i] = at + (out - section);
        if (key_length > 0) {
            memcpy(out, r->data + r->key_starts[i], (size_t)key_length);
            out += key_length;
        }
        out = write_varint(out, zigzag(value_length));
        value_positions[i] = at + (out - section);
        if (value_length > 0) {
            memcpy(out, r->data + r->value_starts[i], (size_t)value_length);
            out += value_length;
        }
        *out++ = 0; /* headersCount */
    }
}

const char placed_records_section_doc[] = PyDoc_STR(
"placed_records_section(data, offsets, timestamps, key_starts, key_lengths, value_starts, value_lengths,\n"
"                       base_offset, base_timestamp, key_positions, value_positions, at) -> bytes\n"
"--\n\n"
"records_section of records whose keys and values are spans of data (int64 starts and lengths, -1: null),\n"
"writing where each key and value lands into the int64 buffers key_positions and value_positions: at plus its\n"
"position in the section (at: where the section will start, after the batch header).");

PyObject *
placed_records_section(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer data, columns[SPAN_COLUMNS], key_positions, value_positions;
    long long base_offset, base_timestamp;
    Py_ssize_t at;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*LLw*w*n:placed_records_section", &data, &columns[OFFSETS],
                          &columns[TIMESTAMPS], &columns[KEY_STARTS], &columns[KEY_LENGTHS], &columns[VALUE_STARTS],
                          &columns[VALUE_LENGTHS], &base_offset, &base_timestamp, &key_positions, &value_positions,
                          &at))
        return NULL;
    Py_ssize_t count = columns[OFFSETS].len / 8, total;
    SpanRecords records;
    if (open_span_records(&data, columns, count, &records) && check_buffer(&key_positions, count, 8, "key_positions")
        && check_buffer(&value_positions, count, 8, "value_positions")
        && (total = placed_size(&records, 0, count, base_offset, base_timestamp)) >= 0
        && (result = PyBytes_FromStringAndSize(NULL, total)) != NULL)
        write_placed(&records, 0, count, base_offset, base_timestamp, PyBytes_AS_STRING(result), at,
                     key_positions.buf, value_positions.buf);
    PyBuffer_Release(&data);
    for (int c = 0; c < SPAN_COLUMNS; c++)
        PyBuffer_Release(&columns[c]);
    PyBuffer_Release(&key_positions);
    PyBuffer_Release(&value_positions);
    return result;
}

/* A v2 batch header's fields as placed_batches takes them, one row of int64s per batch. */
enum { BASE_OFFSET, LEADER_EPOCH, ATTRIBUTES, LAST_OFFSET_DELTA, BASE_TIMESTAMP, MAX_TIMESTAMP, PRODUCER_ID,
       PRODUCER_EPOCH, BASE_SEQUENCE, HEADER_FIELDS };

static void
put_big_endian(char *out, uint64_t value, int size)
{
    for (int b = size - 1; b >= 0; b--, value >>= 8)
        out[b] = (char)(value & 0xFF);
}

/* The 61-byte header of a batch of `size` bytes and `count` records, its CRC-32C over what follows the CRC. */
static void
write_header(char *batch, Py_ssize_t size, Py_ssize_t count, const int64_t fields[HEADER_FIELDS])
{
    static const struct {
        int position, size, field;
    } layout[] = {{0, 8, BASE_OFFSET},        {12, 4, LEADER_EPOCH}, {21, 2, ATTRIBUTES},     {23, 4, LAST_OFFSET_DELTA},
                  {27, 8, BASE_TIMESTAMP},    {35, 8, MAX_TIMESTAMP}, {43, 8, PRODUCER_ID},   {51, 2, PRODUCER_EPOCH},
                  {53, 4, BASE_SEQUENCE}};
    for (size_t f = 0; f < sizeof layout / sizeof layout[0]; f++)
        put_big_endian(batch + layout[f].position, (uint64_t)fields[layout[f].field], layout[f].size);
    put_big_endian(batch + 8, (uint64_t)(size - 12), 4); /* batchLength: what follows it */
    batch[16] = 2;                                        /* magic */
    put_big_endian(batch + 57, (uint64_t)count, 4);
    put_big_endian(batch + 17, crc32c_checksum((const uint8_t *)batch + 21, (size_t)(size - 21)), 4);
}

const char placed_batches_doc[] = PyDoc_STR(
"placed_batches(data, offsets, timestamps, key_starts, key_lengths, value_starts, value_lengths, counts, headers,\n"
"               key_positions, value_positions) -> list[bytes]\n"
"--\n\n"
"Uncompressed v2 batches of records whose keys and values are spans of data (int64 columns, flat, batch after\n"
"batch: counts[b] records each, at least one), each batch's header from its row of headers (int64: base offset,\n"
"partition leader epoch, attributes, lastOffsetDelta, base timestamp, max timestamp, producer id, producer epoch,\n"
"base sequence), its length, record count and CRC-32C computed. Where each key and value lands in its batch's\n"
"bytes goes into the int64 buffers key_positions and value_positions.");

PyObject *
placed_batches(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer data, columns[SPAN_COLUMNS], counts_view, headers_view, key_positions, value_positions;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*w*w*:placed_batches", &data, &columns[OFFSETS],
                          &columns[TIMESTAMPS], &columns[KEY_STARTS], &columns[KEY_LENGTHS], &columns[VALUE_STARTS],
                          &columns[VALUE_LENGTHS], &counts_view, &headers_view, &key_positions, &value_positions))
        return NULL;
    Py_ssize_t records_count = columns[OFFSETS].len / 8, batches = counts_view.len / 8, total = 0;
    const int64_t *counts = counts_view.buf, *headers = headers_view.buf;
    SpanRecords records;
    if (!open_span_records(&data, columns, records_count, &records)
        || !check_buffer(&counts_view, batches, 8, "counts")
        || !check_buffer(&headers_view, batches * HEADER_FIELDS, 8, "headers")
        || !check_buffer(&key_positions, records_count, 8, "key_positions")
        || !check_buffer(&value_positions, records_count, 8, "value_positions"))
        goto done;
    for (Py_ssize_t b = 0; b < batches; b++) {
        if (counts[b] < 1 || counts[b] > records_count - total) {
            PyErr_Format(PyExc_ValueError, "batch %zd: %lld records, %zd left of %zd", b, (long long)counts[b],
                         records_count - total, records_count);
            goto done;
        }
        total += (Py_ssize_t)counts[b];
    }
    if (total != records_count) {
        PyErr_Format(PyExc_ValueError, "the batches hold %zd records, not %zd", total, records_count);
        goto done;
    }
    if ((result = PyList_New(batches)) == NULL)
        goto done;
    for (Py_ssize_t b = 0, first = 0; b < batches; first += (Py_ssize_t)counts[b], b++) {
        const int64_t *fields = headers + b * HEADER_FIELDS;
        Py_ssize_t end = first + (Py_ssize_t)counts[b];
        Py_ssize_t size = placed_size(&records, first, end, fields[BASE_OFFSET], fields[BASE_TIMESTAMP]);
        PyObject *batch = size < 0 ? NULL : PyBytes_FromStringAndSize(NULL, RECORD_BATCH_OVERHEAD + size);
        if (batch == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        char *bytes = PyBytes_AS_STRING(batch);
        write_placed(&records, first, end, fields[BASE_OFFSET], fields[BASE_TIMESTAMP], bytes + RECORD_BATCH_OVERHEAD,
                     RECORD_BATCH_OVERHEAD, key_positions.buf, value_positions.buf);
        write_header(bytes, RECORD_BATCH_OVERHEAD + size, end - first, fields);
        PyList_SET_ITEM(result, b, batch);
    }
done:
    PyBuffer_Release(&data);
    for (int c = 0; c < SPAN_COLUMNS; c++)
        PyBuffer_Release(&columns[c]);
    PyBuffer_Release(&counts_view);
    PyBuffer_Release(&headers_view);
    PyBuffer_Release(&key_positions);
    PyBuffer_Release(&value_positions);
    return result;
}

/* A column of key or value lengths: an int64 buffer of them (-1: null), or a sequence of bytes and None. */
typedef struct {
    Py_buffer view; /* the buffer, when `items` is NULL */
    PyObject *items;
} Lengths;

static int
open_lengths(PyObject *column, Py_ssize_t count, const char *name, Lengths *out)
{
    if (PyObject_CheckBuffer(column) && !PyBytes_Check(column)) {
        if (PyObject_GetBuffer(column, &out->view, PyBUF_SIMPLE) < 0)
            return 0;
        return check_buffer(&out->view, count, 8, name);
    }
    out->items = PySequence_Fast(column, "keys and values must be sequences, or int64 buffers of their lengths");
    if (out->items == NULL)
        return 0;
    if (PySequence_Fast_GET_SIZE(out->items) != count) {
        PyErr_Format(PyExc_ValueError, "%zd offsets but %zd %s", count, PySequence_Fast_GET_SIZE(out->items), name);
        return 0;
    }
    return 1;
}

static int
length_at(const Lengths *column, Py_ssize_t i, Py_ssize_t *length)
{
    if (column->items == NULL) {
        *length = (Py_ssize_t)((const int64_t *)column->view.buf)[i];
        return 1;
    }
    const char *data;
    return bytes_of(PySequence_Fast_GET_ITEM(column->items, i), &data, length);
}

static void
close_lengths(Lengths *column)
{
    PyBuffer_Release(&column->view); /* nothing when no buffer was taken */
    Py_CLEAR(column->items);
}

const char records_size_doc[] = PyDoc_STR(
"records_size(offsets, timestamps, keys, values, base_offset, base_timestamp) -> int\n"
"--\n\n"
"The bytes records_section writes for these records (DefaultRecord.sizeInBytes, summed; no headers), without\n"
"writing them: keys and values as sequences of bytes or None, or as int64 buffers of their lengths (-1: null).");

PyObject *
records_size(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer offsets_view, timestamps_view;
    PyObject *keys_arg, *values_arg, *result = NULL;
    long long base_offset, base_timestamp;
    if (!PyArg_ParseTuple(args, "y*y*OOLL:records_size", &offsets_view, &timestamps_view, &keys_arg, &values_arg,
                          &base_offset, &base_timestamp))
        return NULL;
    Lengths keys = {.items = NULL}, values = {.items = NULL};
    Py_ssize_t count = offsets_view.len / 8;
    if (check_buffer(&offsets_view, count, 8, "offsets") && check_buffer(&timestamps_view, count, 8, "timestamps")
        && open_lengths(keys_arg, count, "keys", &keys) && open_lengths(values_arg, count, "values", &values)) {
        const int64_t *offsets = offsets_view.buf, *timestamps = timestamps_view.buf;
        long long total = 0;
        Py_ssize_t i = 0;
        for (; i < count; i++) {
            Py_ssize_t key_length, value_length;
            if (!length_at(&keys, i, &key_length) || !length_at(&values, i, &value_length))
                break;
            total += record_size(body_size(delta(timestamps[i], base_timestamp), delta(offsets[i], base_offset),
                                           key_length, value_length));
        }
        if (i == count)
            result = PyLong_FromLongLong(total);
    }
    close_lengths(&keys);
    close_lengths(&values);
    PyBuffer_Release(&offsets_view);
    PyBuffer_Release(&timestamps_view);
    return result;
}
