/*
 * decode_plain: the records of plain uncompressed v2 batches, a block at a time, into columns.
 *
 * A record (DefaultRecord) after the 61-byte batch header:
 *
 *     field              encoding          notes
 *     length             varint            bytes of the record after this field
 *     attributes         int8              read as one byte (DefaultRecord.readFrom)
 *     timestampDelta     varlong           from the batch's baseTimestamp
 *     offsetDelta        varint            from the batch's baseOffset
 *     keyLength, key     varint, bytes     -1: null key
 *     valueLength, value varint, bytes     -1: null value
 *     headersCount       varint            0 here: records with headers are left to the record parser
 */
#include "kernels.h"

#define VARINT_BYTES 5
#define VARLONG_BYTES 9

/* A zigzag varint of at most max_bytes bytes at *position, ending before limit (ByteUtils.readVarint and
 * readVarlong, as _vector_decoder._varints reads them). Returns 0 when it does not end in time. */
static int
read_varint(const uint8_t *data, int64_t *position, int64_t limit, int max_bytes, int64_t *value)
{
    uint64_t unsigned_value = 0;
    int64_t at = *position;
    for (int i = 0; i < max_bytes; i++, at++) {
        if (at >= limit)
            return 0;
        uint8_t byte = data[at];
        unsigned_value |= (uint64_t)(byte & 0x7F) << (7 * i);
        if (byte < 0x80) {
            *value = (int64_t)(unsigned_value >> 1) ^ -(int64_t)(unsigned_value & 1);
            *position = at + 1;
            return 1;
        }
    }
    return 0;
}

typedef struct {
    int64_t *offsets, *timestamps, *key_starts, *key_lengths, *value_starts, *value_lengths;
} Columns;

/* The records of one batch data[start:end] into rows first.. of the columns; 0 when it does not read plainly. */
static int
decode_batch(const uint8_t *data, int64_t start, int64_t end, int64_t base_offset, int64_t base_timestamp,
             int64_t last_delta, int64_t count, int64_t first, const Columns *out)
{
    int64_t position = start + RECORD_BATCH_OVERHEAD, previous = -1;
    for (int64_t row = first; row < first + count; row++) {
        int64_t length, ts_delta, offset_delta, key_length, value_length;
        if (!read_varint(data, &position, end, VARINT_BYTES, &length) || length < 0 || length > end - position)
            return 0;
        int64_t record_end = position + length;
        position += 1; /* attributes */
        if (!read_varint(data, &position, record_end, VARLONG_BYTES, &ts_delta)
            || !read_varint(data, &position, record_end, VARINT_BYTES, &offset_delta)
            || !read_varint(data, &position, record_end, VARINT_BYTES, &key_length))
            return 0;
        out->key_starts[row] = position;
        out->key_lengths[row] = key_length;
        if (key_length > 0) {
            if (key_length > record_end - position)
                return 0;
            position += key_length;
        }
        if (!read_varint(data, &position, record_end, VARINT_BYTES, &value_length))
            return 0;
        out->value_starts[row] = position;
        out->value_lengths[row] = value_length;
        if (value_length > 0) {
            if (value_length > record_end - position)
                return 0;
            position += value_length;
        }
        if (position + 1 != record_end || data[position] != 0) /* headersCount 0, then the record's end */
            return 0;
        if (!(previous < offset_delta && offset_delta <= last_delta))
            return 0;
        previous = offset_delta;
        /* Java's long arithmetic: the sum wraps; a wrapped sum is left to the record parser, as numpy's is */
        int64_t timestamp = (int64_t)((uint64_t)base_timestamp + (uint64_t)ts_delta);
        if ((ts_delta >= 0) != (timestamp >= base_timestamp))
            return 0;
        out->offsets[row] = base_offset + offset_delta;
        out->timestamps[row] = timestamp;
        position = record_end;
    }
    return position == end;
}


#define BATCH_INPUTS 6
#define COLUMNS 6

const char decode_plain_doc[] = PyDoc_STR(
"decode_plain(block, starts, ends, base_offsets, base_timestamps, last_deltas, first, counts, plain,\n"
"             offsets, timestamps, key_starts, key_lengths, value_starts, value_lengths)\n"
"--\n\n"
"Decode the records of the batches block[starts[b]:ends[b]] whose plain[b] is set (int64 inputs, one per\n"
"batch; plain a bool array), as _vector_decoder.decode_plain_batches does: rows first[b] to first[b] + counts[b]\n"
"of the int64 output columns. plain[b] is cleared for each batch that does not read plainly.");

PyObject *
decode_plain(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer block, inputs[BATCH_INPUTS + 1], plain, columns[COLUMNS];
    static const char *input_names[] = {"starts", "ends", "base_offsets", "base_timestamps", "last_deltas", "first",
                                        "counts"};
    static const char *column_names[] = {"offsets", "timestamps", "key_starts", "key_lengths", "value_starts",
                                         "value_lengths"};
    memset(inputs, 0, sizeof inputs);
    memset(columns, 0, sizeof columns);
    memset(&plain, 0, sizeof plain);
    memset(&block, 0, sizeof block);
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*w*w*w*w*w*w*w*:decode_plain", &block, &inputs[0], &inputs[1],
                          &inputs[2], &inputs[3], &inputs[4], &inputs[5], &inputs[6], &plain, &columns[0],
                          &columns[1], &columns[2], &columns[3], &columns[4], &columns[5]))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t batches = plain.len;
    int ok = 1;
    for (int i = 0; ok && i <= BATCH_INPUTS; i++)
        ok = check_buffer(&inputs[i], batches, 8, input_names[i]);
    const int64_t *starts = inputs[0].buf, *ends = inputs[1].buf, *base_offsets = inputs[2].buf,
                  *base_timestamps = inputs[3].buf, *last_deltas = inputs[4].buf, *first = inputs[5].buf,
                  *counts = inputs[6].buf;
    Py_ssize_t rows = 0;
    for (Py_ssize_t b = 0; ok && b < batches; b++) {
        if (starts[b] < 0 || ends[b] > block.len || ends[b] - starts[b] < RECORD_BATCH_OVERHEAD || first[b] < 0
            || counts[b] < 0) {
            PyErr_Format(PyExc_ValueError, "batch %zd lies outside the block or has a negative row range", b);
            ok = 0;
        }
        else if (first[b] + counts[b] > rows)
            rows = first[b] + counts[b];
    }
    for (int i = 0; ok && i < COLUMNS; i++)
        ok = columns[i].len >= rows * 8 || check_buffer(&columns[i], rows, 8, column_names[i]);
    if (ok) {
        Columns out = {columns[0].buf, columns[1].buf, columns[2].buf, columns[3].buf, columns[4].buf, columns[5].buf};
        uint8_t *flags = plain.buf;
        const uint8_t *data = block.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t b = 0; b < batches; b++)
            if (flags[b] && !decode_batch(data, starts[b], ends[b], base_offsets[b], base_timestamps[b],
                                          last_deltas[b], counts[b], first[b], &out))
                flags[b] = 0;
        Py_END_ALLOW_THREADS
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&block);
    PyBuffer_Release(&plain);
    for (int i = 0; i <= BATCH_INPUTS; i++)
        PyBuffer_Release(&inputs[i]);
    for (int i = 0; i < COLUMNS; i++)
        PyBuffer_Release(&columns[i]);
    return result;
}
