/* records_section: the records of a v2 batch without headers, as DefaultRecord.writeTo writes them;
 * placed_records_section: the same from spans of other bytes, saying where each key and value lands;
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
    enum { OFFSETS, TIMESTAMPS, KEY_STARTS, KEY_LENGTHS, VALUE_STARTS, VALUE_LENGTHS, KEY_POSITIONS, VALUE_POSITIONS,
           COLUMNS };
    static const char *names[COLUMNS] = {"offsets", "timestamps", "key_starts", "key_lengths", "value_starts",
                                         "value_lengths", "key_positions", "value_positions"};
    Py_buffer data, columns[COLUMNS];
    long long base_offset, base_timestamp;
    Py_ssize_t at;
    PyObject *result = NULL;
    memset(columns, 0, sizeof columns);
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*LLw*w*n:placed_records_section", &data, &columns[OFFSETS],
                          &columns[TIMESTAMPS], &columns[KEY_STARTS], &columns[KEY_LENGTHS], &columns[VALUE_STARTS],
                          &columns[VALUE_LENGTHS], &base_offset, &base_timestamp, &columns[KEY_POSITIONS],
                          &columns[VALUE_POSITIONS], &at))
        return NULL;
    Py_ssize_t count = columns[OFFSETS].len / 8;
    for (int c = 0; c < COLUMNS; c++)
        if (!check_buffer(&columns[c], count, 8, names[c]))
            goto done;
    const int64_t *offsets = columns[OFFSETS].buf, *timestamps = columns[TIMESTAMPS].buf;
    const int64_t *key_starts = columns[KEY_STARTS].buf, *key_lengths = columns[KEY_LENGTHS].buf;
    const int64_t *value_starts = columns[VALUE_STARTS].buf, *value_lengths = columns[VALUE_LENGTHS].buf;
    int64_t *key_positions = columns[KEY_POSITIONS].buf, *value_positions = columns[VALUE_POSITIONS].buf;
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        int64_t spans[2][2] = {{key_starts[i], key_lengths[i]}, {value_starts[i], value_lengths[i]}};
        for (int s = 0; s < 2; s++)
            if (spans[s][1] > 0 && (spans[s][0] < 0 || spans[s][0] > data.len - spans[s][1])) {
                PyErr_Format(PyExc_ValueError, "record %zd: a span [%lld, +%lld) outside %zd bytes", i,
                             (long long)spans[s][0], (long long)spans[s][1], data.len);
                goto done;
            }
        total += record_size(body_size(delta(timestamps[i], base_timestamp), delta(offsets[i], base_offset),
                                       (Py_ssize_t)key_lengths[i], (Py_ssize_t)value_lengths[i]));
    }
    result = PyBytes_FromStringAndSize(NULL, total);
    if (result == NULL)
        goto done;
    char *start = PyBytes_AS_STRING(result), *out = start;
    const char *source = data.buf;
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t key_length = (Py_ssize_t)key_lengths[i], value_length = (Py_ssize_t)value_lengths[i];
        uint64_t ts_delta = delta(timestamps[i], base_timestamp), offset_delta = delta(offsets[i], base_offset);
        out = write_varint(out, zigzag(body_size(ts_delta, offset_delta, key_length, value_length)));
        *out++ = 0; /* attributes */
        out = write_varint(out, ts_delta);
        out = write_varint(out, offset_delta);
        out = write_varint(out, zigzag(key_length));
        key_positions[i] = at + (out - start);
        if (key_length > 0) {
            memcpy(out, source + key_starts[i], (size_t)key_length);
            out += key_length;
        }
        out = write_varint(out, zigzag(value_length));
        value_positions[i] = at + (out - start);
        if (value_length > 0) {
            memcpy(out, source + value_starts[i], (size_t)value_length);
            out += value_length;
        }
        *out++ = 0; /* headersCount */
    }
done:
    PyBuffer_Release(&data);
    for (int c = 0; c < COLUMNS; c++)
        PyBuffer_Release(&columns[c]);
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
