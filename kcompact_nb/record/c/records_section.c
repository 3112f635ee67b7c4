/* records_section: the records of a v2 batch without headers, as DefaultRecord.writeTo writes them; records_size:
 * their bytes, without writing them. */
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
