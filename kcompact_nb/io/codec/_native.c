/*
 * The segment reader's and writer's hot loops in C: decoding the records of plain uncompressed v2 batches,
 * laying out a block's compressed batches as uncompressed ones (their records decompressed: gzip, lz4 and zstd by
 * the codecs' libraries opened at run time, snappy here), numbering keys by content, encoding the records of
 * batches without headers, and snappy's compressor. Built by `pip install` when a C compiler is there (an optional
 * extension); without it the Python versions in _vector_decoder.py, _block_inflation.py, _key_numbering.py,
 * _record_encoder.py, _latest_entries.py and _snappy.py do the same work, and the tests hold both to the same
 * results. Every export here belongs to one kernel of the table in _kernels.py, which names it beside its twin
 * (through a thin `..._in_c` adapter with the twin's signature) and runs it only while _native_kernels.NATIVE is
 * this module: a new export goes into that table (tests/io/codec/test_native.py checks it).
 *
 * Nothing here decides what a batch means: decode_plain only says which batches read plainly (as
 * _vector_decoder.decode_plain_batches does) and fills their columns, inflate_batches only inflates records that
 * read cleanly; every other batch is left to the record parser and kafka-python, which keep Kafka's error positions
 * and reasons.
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
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#define RECORD_BATCH_OVERHEAD 61
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

/* A buffer of exactly `items` items of `itemsize` bytes, or a ValueError naming it. */
static int
check_buffer(const Py_buffer *view, Py_ssize_t items, Py_ssize_t itemsize, const char *name)
{
    if (view->len != items * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd bytes, expected %zd items of %zd bytes", name, view->len, items,
                     itemsize);
        return 0;
    }
    return 1;
}

#define BATCH_INPUTS 6
#define COLUMNS 6

PyDoc_STRVAR(decode_plain_doc,
"decode_plain(block, starts, ends, base_offsets, base_timestamps, last_deltas, first, counts, plain,\n"
"             offsets, timestamps, key_starts, key_lengths, value_starts, value_lengths)\n"
"--\n\n"
"Decode the records of the batches block[starts[b]:ends[b]] whose plain[b] is set (int64 inputs, one per\n"
"batch; plain a bool array), as _vector_decoder.decode_plain_batches does: rows first[b] to first[b] + counts[b]\n"
"of the int64 output columns. plain[b] is cleared for each batch that does not read plainly.");

static PyObject *
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

/* -- records_section: the records of a v2 batch without headers, as DefaultRecord.writeTo writes them --------- */

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

/* The bytes of a key or value (NULL, length -1 for None); 0 with a TypeError for anything else. */
static int
bytes_of(PyObject *item, const char **data, Py_ssize_t *length)
{
    if (item == Py_None) {
        *data = NULL;
        *length = -1;
        return 1;
    }
    if (!PyBytes_Check(item)) {
        PyErr_Format(PyExc_TypeError, "keys and values must be bytes or None, not %.100s", Py_TYPE(item)->tp_name);
        return 0;
    }
    *data = PyBytes_AS_STRING(item);
    *length = PyBytes_GET_SIZE(item);
    return 1;
}

/* The record's bytes after its length varint: attributes, the deltas, key and value, headersCount 0. */
static Py_ssize_t
body_size(uint64_t ts_delta, uint64_t offset_delta, Py_ssize_t key_length, Py_ssize_t value_length)
{
    return 1 + varint_size(ts_delta) + varint_size(offset_delta) + varint_size(zigzag(key_length))
           + (key_length > 0 ? key_length : 0) + varint_size(zigzag(value_length))
           + (value_length > 0 ? value_length : 0) + 1;
}

PyDoc_STRVAR(records_section_doc,
"records_section(offsets, timestamps, keys, values, base_offset, base_timestamp) -> bytes\n"
"--\n\n"
"The records (offsets and timestamps int64 buffers, keys and values sequences of bytes or None; no headers)\n"
"as stored after a v2 batch header (DefaultRecord.writeTo): deltas against base_offset and base_timestamp in\n"
"Java's 64-bit arithmetic, zigzag varints, headersCount 0.");

static PyObject *
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
        uint64_t ts_delta = zigzag((int64_t)((uint64_t)timestamps[i] - (uint64_t)base_timestamp));
        uint64_t offset_delta = zigzag((int64_t)((uint64_t)offsets[i] - (uint64_t)base_offset));
        Py_ssize_t body = body_size(ts_delta, offset_delta, key_length, value_length);
        total += varint_size(zigzag(body)) + body;
    }
    result = PyBytes_FromStringAndSize(NULL, total);
    if (result == NULL)
        goto done;
    char *out = PyBytes_AS_STRING(result);
    for (Py_ssize_t i = 0; i < count; i++) {
        const char *key, *value;
        Py_ssize_t key_length, value_length;
        bytes_of(key_items[i], &key, &key_length);
        bytes_of(value_items[i], &value, &value_length);
        uint64_t ts_delta = zigzag((int64_t)((uint64_t)timestamps[i] - (uint64_t)base_timestamp));
        uint64_t offset_delta = zigzag((int64_t)((uint64_t)offsets[i] - (uint64_t)base_offset));
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

/* -- snappy_compress: snappy 1.1.10's raw compressor (1.1.7 and 1.1.8's too), as _snappy.py follows it --------
 *
 * The compressor snappy-java bundles (built without the CRC32 instruction: the multiplicative hash), so the same
 * input gives Kafka's bytes. _snappy.py documents the format, each step and where the releases differ (the hash's
 * bits); the names here are snappy's. */

#define SNAPPY_BLOCK 65536
#define SNAPPY_MIN_TABLE 256
#define SNAPPY_MAX_TABLE 16384
#define SNAPPY_INPUT_MARGIN 15

static uint32_t
load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* TableEntry without CRC32: (0x1e35a7bd * bytes) >> 18, masked to the table; HashBytes before 1.1.9:
 * >> (32 - log2(table size)), `shift` here. */
static uint32_t
snappy_slot(const uint8_t *p, int shift, uint32_t mask)
{
    return ((load32(p) * 0x1E35A7BDu) >> shift) & mask;
}

static uint8_t *
emit_literal(uint8_t *op, const uint8_t *literal, size_t length)
{
    size_t n = length - 1;
    if (n < 60)
        *op++ = (uint8_t)(n << 2);
    else {
        int count = 0;
        for (size_t rest = n; rest; rest >>= 8)
            count++;
        *op++ = (uint8_t)((59 + count) << 2);
        for (int i = 0; i < count; i++)
            *op++ = (uint8_t)(n >> (8 * i));
    }
    memcpy(op, literal, length);
    return op + length;
}

static uint8_t *
emit_copy_at_most_64(uint8_t *op, size_t offset, size_t length)
{
    if (length < 12 && offset < 2048) {
        *op++ = (uint8_t)(1 | (length - 4) << 2 | (offset >> 8) << 5);
        *op++ = (uint8_t)(offset & 0xFF);
    }
    else {
        *op++ = (uint8_t)(2 | (length - 1) << 2);
        *op++ = (uint8_t)(offset & 0xFF);
        *op++ = (uint8_t)(offset >> 8);
    }
    return op;
}

static uint8_t *
emit_copy(uint8_t *op, size_t offset, size_t length)
{
    while (length >= 68) {
        op = emit_copy_at_most_64(op, offset, 64);
        length -= 64;
    }
    if (length > 64) {
        op = emit_copy_at_most_64(op, offset, 60);
        length -= 60;
    }
    return emit_copy_at_most_64(op, offset, length);
}

/* FindMatchLength: how many bytes from `earlier` equal those from `later`, up to `limit`. */
static size_t
match_length(const uint8_t *earlier, const uint8_t *later, size_t limit)
{
    size_t matched = 0;
    while (matched + 8 <= limit) {
        uint64_t a, b;
        memcpy(&a, earlier + matched, 8);
        memcpy(&b, later + matched, 8);
        if (a != b)
            return matched + (size_t)(__builtin_ctzll(a ^ b) >> 3);
        matched += 8;
    }
    while (matched < limit && earlier[matched] == later[matched])
        matched++;
    return matched;
}

/* CompressFragment: one fragment of at most 64 KiB with a zeroed table of `table_size` 16-bit positions. */
static uint8_t *
compress_fragment(const uint8_t *data, size_t size, uint8_t *op, uint16_t *table, int top_bits_hash)
{
    size_t ip = 0, next_emit = 0;
    if (size >= SNAPPY_INPUT_MARGIN) {
        uint32_t table_size = SNAPPY_MIN_TABLE;
        int table_bits = 8;
        while (table_size < SNAPPY_MAX_TABLE && table_size < size) {
            table_size <<= 1;
            table_bits++;
        }
        uint32_t mask = table_size - 1;
        int shift = top_bits_hash ? 32 - table_bits : 18;
        memset(table, 0, table_size * sizeof(uint16_t));
        size_t ip_limit = size - SNAPPY_INPUT_MARGIN;
        for (;;) {
            next_emit = ip++;
            /* Step 1: the first 16 positions one by one, then heuristic match skipping */
            size_t candidate = 0, skip = 32;
            int found = 0;
            if (ip + 16 <= ip_limit) {
                for (size_t position = ip; position < ip + 16; position++) {
                    uint32_t slot = snappy_slot(data + position, shift, mask);
                    candidate = table[slot];
                    table[slot] = (uint16_t)position;
                    if (load32(data + candidate) == load32(data + position)) {
                        ip = position;
                        found = 1;
                        break;
                    }
                }
                if (!found) {
                    ip += 16;
                    skip += 16;
                }
            }
            while (!found) {
                size_t step = skip >> 5;
                skip += step;
                if (ip + step > ip_limit)
                    return size > next_emit ? emit_literal(op, data + next_emit, size - next_emit) : op;
                uint32_t slot = snappy_slot(data + ip, shift, mask);
                candidate = table[slot];
                table[slot] = (uint16_t)ip;
                if (load32(data + candidate) == load32(data + ip))
                    found = 1;
                else
                    ip += step;
            }
            op = emit_literal(op, data + next_emit, ip - next_emit);
            /* Step 3: copies for as long as the bytes after each copy match again */
            for (;;) {
                size_t matched = 4 + match_length(data + candidate + 4, data + ip + 4, size - ip - 4);
                op = emit_copy(op, ip - candidate, matched);
                ip += matched;
                if (ip >= ip_limit)
                    return ip < size ? emit_literal(op, data + ip, size - ip) : op;
                table[snappy_slot(data + ip - 1, shift, mask)] = (uint16_t)(ip - 1);
                uint32_t slot = snappy_slot(data + ip, shift, mask);
                candidate = table[slot];
                table[slot] = (uint16_t)ip;
                if (load32(data + candidate) != load32(data + ip))
                    break;
            }
        }
    }
    return size > 0 ? emit_literal(op, data, size) : op;
}

PyDoc_STRVAR(snappy_compress_doc,
"snappy_compress(data, top_bits_hash=False) -> bytes\n"
"--\n\n"
"data in snappy's raw format, byte for byte as snappy 1.1.10 (no CRC32 hashing) writes it, or 1.1.7 and\n"
"1.1.8 with top_bits_hash: what _snappy.raw_compress computes in Python.");

static PyObject *
snappy_compress(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer view;
    int top_bits_hash = 0;
    if (!PyArg_ParseTuple(args, "y*|p:snappy_compress", &view, &top_bits_hash))
        return NULL;
    size_t size = (size_t)view.len;
    if (size > 0xFFFFFFFFu) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "snappy compresses at most 4 GiB - 1 bytes (a varint32 length)");
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(32 + size + size / 6));
    if (out == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const uint8_t *data = view.buf;
    uint8_t *start = (uint8_t *)PyBytes_AS_STRING(out), *op = start;
    uint16_t table[SNAPPY_MAX_TABLE];
    Py_BEGIN_ALLOW_THREADS
    size_t length = size;
    for (; length >= 0x80; length >>= 7)
        *op++ = (uint8_t)(length | 0x80);
    *op++ = (uint8_t)length;
    for (size_t at = 0; at < size; at += SNAPPY_BLOCK)
        op = compress_fragment(data + at, size - at < SNAPPY_BLOCK ? size - at : SNAPPY_BLOCK, op, table,
                               top_bits_hash);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (_PyBytes_Resize(&out, (Py_ssize_t)(op - start)) < 0)
        return NULL;
    return out;
}

/* -- inflate_batches: a block's batches as if written uncompressed -------------------------------------------
 *
 * Each compressed batch's records section decompressed as _decompression.decompress_records reads it (Kafka's
 * framing per codec), behind a copy of its 61-byte header with the codec bits cleared, so decode_plain reads it
 * as a plain batch. The codecs' own libraries are opened at run time (dlopen: no headers or link flags at build
 * time): zlib, liblz4 (its frame API) and libzstd, the libraries behind Python's zlib, lz4.frame and zstandard;
 * a codec whose library is missing is left to the Python path. snappy's raw format is decoded here. libzstd is the
 * system's libzstd.so.1 until open_zstd opens another by path: the release zstandard bundles, built by `make codecs`
 * (_libzstd.py), since releases differ in the corrupt frames they refuse (_block_inflation.inflatable_in_c).
 *
 * Nothing here decides what a batch means either: a batch is inflated only when its bytes read cleanly under the
 * strictest reading of its framing (no trailing bytes, no truncated frame, every snappy copy within the output),
 * and every input that reads here reads the same through decompress_records; anything else is left to the
 * Python path, which gives the result or the error (tests/io/codec/test_block_inflation.py holds both to that). */

#define CODE_COPY 0
#define CODE_GZIP 1
#define CODE_SNAPPY 2
#define CODE_LZ4 3
#define CODE_ZSTD 4
#define CODEC_BITS_BYTE 22 /* the low byte of the attributes (ATTRIBUTES_POSITION + 1) */
#define MIN_OUTPUT_STEP 65536

/* A growing output in plain memory (filled with the GIL released). */
typedef struct {
    uint8_t *data;
    size_t size, capacity;
    int failed; /* out of memory */
} Buffer;

/* The last call's output memory, kept for the next (up to SPARE_BYTES): a block's inflated bytes are tens of MiB,
 * above the allocator's mmap threshold, and fresh pages for every block would be faulted in again each time. */
#define SPARE_BYTES ((size_t)128 << 20)
static Buffer spare;

/* Room for `extra` more bytes; 0 (and `failed`) when memory runs out. */
static int
buffer_reserve(Buffer *buffer, size_t extra)
{
    if (buffer->capacity - buffer->size >= extra)
        return 1;
    size_t capacity = buffer->capacity ? buffer->capacity : MIN_OUTPUT_STEP;
    while (capacity - buffer->size < extra)
        capacity *= 2;
    uint8_t *data = realloc(buffer->data, capacity);
    if (data == NULL) {
        buffer->failed = 1;
        return 0;
    }
    buffer->data = data;
    buffer->capacity = capacity;
    return 1;
}

/* zlib's z_stream (zlib.h), its layout fixed by zlib's ABI. */
typedef struct {
    const uint8_t *next_in;
    unsigned int avail_in;
    unsigned long total_in;
    uint8_t *next_out;
    unsigned int avail_out;
    unsigned long total_out;
    const char *msg;
    void *state, *zalloc, *zfree, *opaque;
    int data_type;
    unsigned long adler, reserved;
} ZStream;
#define Z_OK 0
#define Z_STREAM_END 1
#define Z_SYNC_FLUSH 2
#define GZIP_WINDOW_BITS 31 /* a gzip wrapper: header parsed, CRC-32 and size checked (zlib.decompressobj(31)) */

/* ZSTD_inBuffer and ZSTD_outBuffer (zstd.h). */
typedef struct {
    const void *src;
    size_t size, pos;
} ZstdInput;
typedef struct {
    void *dst;
    size_t size, pos;
} ZstdOutput;
#define ZSTD_RESET_SESSION_ONLY 1
#define LZ4F_VERSION 100
#define LZ4_FRAME_MAGIC 0x184D2204u

static struct {
    int (*inflateInit2_)(ZStream *, int, const char *, int);
    int (*inflate)(ZStream *, int);
    int (*inflateReset)(ZStream *);
    int (*inflateEnd)(ZStream *);
    unsigned long (*crc32)(unsigned long, const uint8_t *, unsigned int);
    size_t (*LZ4F_createDecompressionContext)(void **, unsigned);
    size_t (*LZ4F_freeDecompressionContext)(void *);
    void (*LZ4F_resetDecompressionContext)(void *);
    size_t (*LZ4F_decompress)(void *, void *, size_t *, const void *, size_t *, const void *);
    unsigned (*LZ4F_isError)(size_t);
} lib;
static int libraries_opened, codec_ready[CODE_ZSTD + 1];

/* libzstd's streaming decompression, from one library. */
typedef struct {
    void *(*ZSTD_createDCtx)(void);
    size_t (*ZSTD_freeDCtx)(void *);
    size_t (*ZSTD_DCtx_reset)(void *, int);
    size_t (*ZSTD_decompressStream)(void *, ZstdOutput *, ZstdInput *);
    unsigned (*ZSTD_isError)(size_t);
    unsigned (*ZSTD_versionNumber)(void);
} Zstd;
#define ZSTD_SYMBOL_COUNT 6
static const char *const zstd_symbols[ZSTD_SYMBOL_COUNT] = {
    "ZSTD_createDCtx", "ZSTD_freeDCtx", "ZSTD_DCtx_reset", "ZSTD_decompressStream", "ZSTD_isError", "ZSTD_versionNumber"};
/* The libzstd inflate_batches uses, NULL when none opened: the system's, or the last open_zstd opened. Replaced with
 * the GIL held, never freed nor closed: a block being inflated meanwhile keeps the one it started with. */
static const Zstd *zstd_in_use;
static Zstd system_zstd;

#if defined(__unix__) || defined(__APPLE__)
#include <dlfcn.h>

/* Every one of `count` symbols in the library `handle` into `slots`: the first missing one's name, or NULL. */
static const char *
find_symbols(void *handle, const char *const *symbols, void **slots, int count)
{
    for (int i = 0; i < count; i++)
        if ((slots[i] = dlsym(handle, symbols[i])) == NULL)
            return symbols[i];
    return NULL;
}

/* The first of `names` that opens, and every one of `count` symbols in it, into `slots`; 0 if any is missing. */
static int
open_library(const char *const *names, const char *const *symbols, void **slots, int count)
{
    void *handle = NULL;
    for (; *names != NULL && handle == NULL; names++)
        handle = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
    return handle != NULL && find_symbols(handle, symbols, slots, count) == NULL;
}

static void
open_libraries(void)
{
    static const char *const zlib_names[] = {"libz.so.1", "libz.1.dylib", "libz.dylib", NULL};
    static const char *const zlib_symbols[] = {"inflateInit2_", "inflate", "inflateReset", "inflateEnd", "crc32"};
    static const char *const lz4_names[] = {"liblz4.so.1", "liblz4.1.dylib", "liblz4.dylib", NULL};
    static const char *const lz4_symbols[] = {"LZ4F_createDecompressionContext", "LZ4F_freeDecompressionContext",
                                              "LZ4F_resetDecompressionContext", "LZ4F_decompress", "LZ4F_isError"};
    static const char *const zstd_names[] = {"libzstd.so.1", "libzstd.1.dylib", "libzstd.dylib", NULL};
    codec_ready[CODE_GZIP] = open_library(zlib_names, zlib_symbols, (void **)&lib.inflateInit2_, 5);
    codec_ready[CODE_LZ4] = open_library(lz4_names, lz4_symbols, (void **)&lib.LZ4F_createDecompressionContext, 5);
    if (open_library(zstd_names, zstd_symbols, (void **)&system_zstd, ZSTD_SYMBOL_COUNT))
        zstd_in_use = &system_zstd;
    codec_ready[CODE_ZSTD] = zstd_in_use != NULL;
}
#else
static void
open_libraries(void)
{
}
#endif

static void
open_libraries_once(void)
{
    if (!libraries_opened) {
        codec_ready[CODE_SNAPPY] = 1;
        open_libraries();
        libraries_opened = 1;
    }
}

/* -- gzip: GZIPInputStream's members (_decompression.gunzip_as_java) -- */

#define GZIP_FHCRC 0x02
#define GZIP_FEXTRA 0x04
#define GZIP_FNAME 0x08
#define GZIP_FCOMMENT 0x10

/* Whether `data` starts with a gzip header GZIPInputStream.readHeader accepts (_gzip_header_length). */
static int
gzip_header_follows(const uint8_t *data, size_t size)
{
    if (size < 10 || data[0] != 0x1F || data[1] != 0x8B || data[2] != 8)
        return 0;
    uint8_t flags = data[3];
    size_t end = 10;
    if (flags & GZIP_FEXTRA) {
        if (size < end + 2)
            return 0;
        end += 2 + (size_t)(data[end] | data[end + 1] << 8);
    }
    const uint8_t fields[] = {GZIP_FNAME, GZIP_FCOMMENT};
    for (int i = 0; i < 2; i++)
        if (flags & fields[i]) {
            const uint8_t *zero = end < size ? memchr(data + end, 0, size - end) : NULL;
            if (zero == NULL)
                return 0;
            end = (size_t)(zero - data) + 1;
        }
    if (flags & GZIP_FHCRC) {
        if (size < end + 2 || (unsigned)(data[end] | data[end + 1] << 8) != (lib.crc32(0, data, (unsigned)end) & 0xFFFF))
            return 0;
        end += 2;
    }
    return end <= size;
}

static int
gunzip_as_java(const uint8_t *data, size_t size, Buffer *out)
{
    ZStream stream;
    memset(&stream, 0, sizeof stream);
    if (size > 0x7FFFFFFF || lib.inflateInit2_(&stream, GZIP_WINDOW_BITS, "1.2.11", (int)sizeof stream) != Z_OK)
        return 0;
    int status, ok = 0;
    stream.next_in = data;
    stream.avail_in = (unsigned int)size;
    for (;;) {
        do {
            if (!buffer_reserve(out, size > MIN_OUTPUT_STEP ? size : MIN_OUTPUT_STEP))
                goto done;
            size_t room = out->capacity - out->size;
            stream.next_out = out->data + out->size;
            stream.avail_out = room > 0x7FFFFFFF ? 0x7FFFFFFF : (unsigned int)room;
            unsigned int before = stream.avail_out;
            status = lib.inflate(&stream, Z_SYNC_FLUSH);
            out->size += before - stream.avail_out;
        } while (status == Z_OK); /* Z_BUF_ERROR: the input ended inside the member (EOFError) */
        if (status != Z_STREAM_END)
            goto done;
        if (stream.avail_in == 0 || !gzip_header_follows(stream.next_in, stream.avail_in)) {
            ok = 1; /* GZIPInputStream.readTrailer: anything but another member after a trailer is ignored */
            goto done;
        }
        if (lib.inflateReset(&stream) != Z_OK)
            goto done;
    }
done:
    lib.inflateEnd(&stream);
    return ok;
}

/* -- snappy: raw blocks, and snappy-java's xerial framing (kafka.codec.snappy_decode) -- */

static const uint8_t XERIAL_MAGIC[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
#define XERIAL_HEADER 16
#define SNAPPY_SLACK 16 /* room past a block's output for the 8- and 16-byte copies */

/* One raw snappy block, all of it: the output exactly as long as its preamble says, every copy within it. */
static int
snappy_raw(const uint8_t *data, size_t size, Buffer *out)
{
    uint64_t length = 0;
    size_t ip = 0;
    for (int shift = 0;; shift += 7) {
        if (ip >= size || shift > 28)
            return 0;
        uint8_t byte = data[ip++];
        length |= (uint64_t)(byte & 0x7F) << shift;
        if (byte < 0x80)
            break;
    }
    if (length > 0xFFFFFFFFu || !buffer_reserve(out, (size_t)length + SNAPPY_SLACK))
        return 0;
    uint8_t *base = out->data + out->size, *op = base, *end = base + length;
    while (ip < size) {
        uint8_t tag = data[ip++];
        size_t copy_length, offset;
        if ((tag & 3) == 0) {
            uint64_t literal = tag >> 2;
            if (literal >= 60) {
                size_t extra = literal - 59;
                if (extra > size - ip)
                    return 0;
                literal = 0;
                for (size_t i = 0; i < extra; i++)
                    literal |= (uint64_t)data[ip + i] << (8 * i);
                ip += extra;
            }
            literal += 1;
            if (literal > size - ip || literal > (uint64_t)(end - op))
                return 0;
            if (literal <= 16 && size - ip >= 16) /* a short literal: 16 bytes copied, the slack takes the rest */
                memcpy(op, data + ip, 16);
            else
                memcpy(op, data + ip, (size_t)literal);
            op += literal;
            ip += (size_t)literal;
            continue;
        }
        size_t offset_bytes = (tag & 3) == 1 ? 1 : (tag & 3) == 2 ? 2 : 4;
        if (offset_bytes > size - ip)
            return 0;
        if ((tag & 3) == 1) {
            copy_length = ((tag >> 2) & 7) + 4;
            offset = (size_t)(tag >> 5) << 8 | data[ip];
        }
        else {
            copy_length = (tag >> 2) + 1;
            offset = 0;
            for (size_t i = 0; i < offset_bytes; i++)
                offset |= (size_t)data[ip + i] << (8 * i);
        }
        ip += offset_bytes;
        if (offset == 0 || offset > (size_t)(op - base) || copy_length > (size_t)(end - op))
            return 0;
        const uint8_t *from = op - offset;
        if (offset >= 8) /* 8 bytes at a time, each chunk read before it is written; the slack takes the rest */
            for (size_t i = 0; i < copy_length; i += 8)
                memcpy(op + i, from + i, 8);
        else
            for (size_t i = 0; i < copy_length; i++) /* a pattern shorter than 8 bytes, repeated */
                op[i] = from[i];
        op += copy_length;
    }
    if (op != end)
        return 0;
    out->size += (size_t)length;
    return 1;
}

static int
snappy_decode(const uint8_t *data, size_t size, Buffer *out)
{
    if (size <= XERIAL_HEADER || memcmp(data, XERIAL_MAGIC, sizeof XERIAL_MAGIC) != 0)
        return snappy_raw(data, size, out);
    /* the version and compatible-version ints are not read, as kafka-python does not read them */
    for (size_t at = XERIAL_HEADER; at < size;) {
        if (size - at < 4)
            return 0;
        int32_t block = (int32_t)((uint32_t)data[at] << 24 | (uint32_t)data[at + 1] << 16 | data[at + 2] << 8
                                  | data[at + 3]);
        at += 4;
        if (block <= 0 || (size_t)block > size - at || !snappy_raw(data + at, (size_t)block, out))
            return 0;
        at += (size_t)block;
    }
    return 1;
}

/* -- lz4: one LZ4 frame (lz4.frame.decompress), all of the input -- */

static int
lz4_decode(const uint8_t *data, size_t size, Buffer *out, void *context)
{
    if (size < 4 || (data[0] | data[1] << 8 | data[2] << 16 | (uint32_t)data[3] << 24) != LZ4_FRAME_MAGIC)
        return 0; /* skippable and legacy frames are left to the Python path */
    lib.LZ4F_resetDecompressionContext(context);
    size_t at = 0;
    for (;;) {
        if (!buffer_reserve(out, size > MIN_OUTPUT_STEP ? size : MIN_OUTPUT_STEP))
            return 0;
        size_t room = out->capacity - out->size, written = room, read = size - at;
        size_t hint = lib.LZ4F_decompress(context, out->data + out->size, &written, data + at, &read, NULL);
        if (lib.LZ4F_isError(hint))
            return 0;
        at += read;
        out->size += written;
        if (hint == 0)
            return at == size; /* the frame's end; bytes after it are left to the Python path */
        if ((at == size && written < room) || (read == 0 && written == 0))
            return 0; /* the frame goes on past the input (or the decoder makes no progress) */
    }
}

/* -- zstd: frames one after another (zstandard's stream_reader, read_across_frames), all of the input -- */

static int
zstd_decode(const uint8_t *data, size_t size, Buffer *out, const Zstd *zstd, void *context)
{
    if (zstd->ZSTD_isError(zstd->ZSTD_DCtx_reset(context, ZSTD_RESET_SESSION_ONLY)))
        return 0;
    ZstdInput input = {data, size, 0};
    for (;;) {
        if (!buffer_reserve(out, 2 * size > MIN_OUTPUT_STEP ? 2 * size : MIN_OUTPUT_STEP))
            return 0;
        ZstdOutput output = {out->data + out->size, out->capacity - out->size, 0};
        size_t before = input.pos;
        size_t hint = zstd->ZSTD_decompressStream(context, &output, &input);
        if (zstd->ZSTD_isError(hint))
            return 0;
        out->size += output.pos;
        if (input.pos == input.size && hint == 0)
            return 1; /* a frame ended with the input */
        if ((input.pos == input.size && output.pos < output.size) || (input.pos == before && output.pos == 0))
            return 0; /* truncated (zstandard returns what it got: the Python path decides), or no progress */
    }
}

typedef struct {
    void *lz4, *zstd;
    const Zstd *zstd_library; /* the library zstd was created by */
} Contexts;

/* The records section `data` of codec `code` decompressed onto `out`; 0 when it does not read cleanly. */
static int
inflate_records(int code, const uint8_t *data, size_t size, Buffer *out, const Contexts *contexts)
{
    switch (code) {
    case CODE_GZIP:
        return gunzip_as_java(data, size, out);
    case CODE_SNAPPY:
        return snappy_decode(data, size, out);
    case CODE_LZ4:
        return contexts->lz4 != NULL && lz4_decode(data, size, out, contexts->lz4);
    case CODE_ZSTD:
        return contexts->zstd != NULL && zstd_decode(data, size, out, contexts->zstd_library, contexts->zstd);
    default:
        return 0;
    }
}

/* Every batch of the block onto `out`: copied (CODE_COPY), or its header with the codec bits cleared followed by its
 * records inflated (a codec's code) when they read cleanly; view_starts and view_ends say where each batch went. */
static void
inflate_block(const uint8_t *block, const int64_t *starts, const int64_t *ends, const uint8_t *codes,
              Py_ssize_t batches, int64_t *view_starts, int64_t *view_ends, Buffer *out, const Zstd *zstd)
{
    Contexts contexts = {NULL, NULL, zstd};
    if (codec_ready[CODE_LZ4] && lib.LZ4F_isError(lib.LZ4F_createDecompressionContext(&contexts.lz4, LZ4F_VERSION)))
        contexts.lz4 = NULL;
    if (zstd != NULL)
        contexts.zstd = zstd->ZSTD_createDCtx();
    for (Py_ssize_t b = 0; b < batches; b++) {
        int code = codes[b];
        size_t mark = out->size, length = (size_t)(ends[b] - starts[b]);
        const uint8_t *batch = block + starts[b];
        size_t copied = code == CODE_COPY ? length : RECORD_BATCH_OVERHEAD;
        if (!buffer_reserve(out, copied))
            break;
        memcpy(out->data + mark, batch, copied);
        out->size += copied;
        if (code != CODE_COPY) {
            out->data[mark + CODEC_BITS_BYTE] &= (uint8_t)~7;
            if (code > CODE_ZSTD || !codec_ready[code]
                || !inflate_records(code, batch + RECORD_BATCH_OVERHEAD, length - RECORD_BATCH_OVERHEAD, out,
                                    &contexts))
                out->size = mark + RECORD_BATCH_OVERHEAD; /* its header alone: left to the Python path */
            if (out->failed)
                break;
        }
        view_starts[b] = (int64_t)mark;
        view_ends[b] = (int64_t)out->size;
    }
    if (contexts.lz4 != NULL)
        lib.LZ4F_freeDecompressionContext(contexts.lz4);
    if (contexts.zstd != NULL)
        zstd->ZSTD_freeDCtx(contexts.zstd);
}

PyDoc_STRVAR(inflate_batches_doc,
"inflate_batches(block, starts, ends, codes, view_starts, view_ends) -> bytes\n"
"--\n\n"
"The batches block[starts[b]:ends[b]] (int64 inputs, one per batch) as if written uncompressed, one after\n"
"another (_block_inflation.uncompressed_view): codes[b] (uint8) 0 copies the batch; any other code writes its\n"
"header with the codec bits cleared, then for 1-4 (gzip, snappy, lz4, zstd) its records decompressed as\n"
"_decompression.decompress_records reads them, when they read cleanly. view_starts[b] and view_ends[b] (int64\n"
"outputs) say where each batch is in the result.");

static PyObject *
inflate_batches(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer block, starts, ends, codes, view_starts, view_ends;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*w*:inflate_batches", &block, &starts, &ends, &codes, &view_starts,
                          &view_ends))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t batches = codes.len;
    int ok = check_buffer(&starts, batches, 8, "starts") && check_buffer(&ends, batches, 8, "ends")
             && check_buffer(&view_starts, batches, 8, "view_starts") && check_buffer(&view_ends, batches, 8, "view_ends");
    const int64_t *start = starts.buf, *end = ends.buf;
    for (Py_ssize_t b = 0; ok && b < batches; b++)
        if (start[b] < 0 || end[b] > block.len || end[b] - start[b] < RECORD_BATCH_OVERHEAD) {
            PyErr_Format(PyExc_ValueError, "batch %zd lies outside the block or is shorter than a batch header", b);
            ok = 0;
        }
    if (ok) {
        open_libraries_once();
        Buffer out = spare; /* taken with the GIL held: a second thread in here meanwhile starts its own */
        spare = (Buffer){NULL, 0, 0, 0};
        const Zstd *zstd = zstd_in_use;
        Py_BEGIN_ALLOW_THREADS
        inflate_block(block.buf, start, end, codes.buf, batches, view_starts.buf, view_ends.buf, &out, zstd);
        Py_END_ALLOW_THREADS
        result = out.failed ? PyErr_NoMemory() : PyBytes_FromStringAndSize((const char *)out.data, (Py_ssize_t)out.size);
        if (out.failed || out.capacity > SPARE_BYTES || spare.data != NULL)
            free(out.data);
        else
            spare = (Buffer){out.data, 0, out.capacity, 0};
    }
    PyBuffer_Release(&block);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&ends);
    PyBuffer_Release(&codes);
    PyBuffer_Release(&view_starts);
    PyBuffer_Release(&view_ends);
    return result;
}

PyDoc_STRVAR(inflatable_codecs_doc,
"inflatable_codecs() -> tuple[str, ...]\n"
"--\n\n"
"The codecs inflate_batches decompresses here: snappy always, gzip, lz4 and zstd when their library opened.");

static PyObject *
inflatable_codecs(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored))
{
    static const char *const names[] = {"none", "gzip", "snappy", "lz4", "zstd"};
    open_libraries_once();
    PyObject *ready = PyList_New(0);
    for (int code = CODE_GZIP; ready != NULL && code <= CODE_ZSTD; code++) {
        PyObject *name = codec_ready[code] ? PyUnicode_FromString(names[code]) : NULL;
        if (codec_ready[code] && (name == NULL || PyList_Append(ready, name) < 0))
            Py_CLEAR(ready);
        Py_XDECREF(name);
    }
    if (ready == NULL)
        return NULL;
    PyObject *result = PyList_AsTuple(ready);
    Py_DECREF(ready);
    return result;
}

PyDoc_STRVAR(open_zstd_doc,
"open_zstd(path) -> int\n"
"--\n\n"
"The libzstd at path (a str) used by inflate_batches from now on instead of the one it used; returns its\n"
"ZSTD_versionNumber() (major * 10000 + minor * 100 + patch). OSError when it does not open or lacks a function\n"
"(the library in use is kept).");

static PyObject *
open_zstd(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *path_bytes;
    if (!PyArg_ParseTuple(args, "O&:open_zstd", PyUnicode_FSConverter, &path_bytes))
        return NULL;
    const char *path = PyBytes_AS_STRING(path_bytes);
    open_libraries_once(); /* the system's first, so that it never replaces this one */
#if defined(__unix__) || defined(__APPLE__)
    Zstd *zstd = PyMem_RawMalloc(sizeof(Zstd)); /* never freed: see zstd_in_use */
    void *handle = zstd == NULL ? NULL : dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const char *missing = handle == NULL ? NULL : find_symbols(handle, zstd_symbols, (void **)zstd, ZSTD_SYMBOL_COUNT);
    if (zstd == NULL)
        PyErr_NoMemory();
    else if (handle == NULL)
        PyErr_Format(PyExc_OSError, "%s", dlerror());
    else if (missing != NULL)
        PyErr_Format(PyExc_OSError, "%s: no %s in it (not a libzstd with decompression)", path, missing);
    if (zstd == NULL || handle == NULL || missing != NULL) {
        if (handle != NULL)
            dlclose(handle);
        PyMem_RawFree(zstd);
        Py_DECREF(path_bytes);
        return NULL;
    }
    zstd_in_use = zstd;
    codec_ready[CODE_ZSTD] = 1;
    Py_DECREF(path_bytes);
    return PyLong_FromUnsignedLong(zstd->ZSTD_versionNumber());
#else
    PyErr_Format(PyExc_OSError, "%s: libraries are not opened at run time on this platform", path);
    Py_DECREF(path_bytes);
    return NULL;
#endif
}

/* -- Tables of distinct keys: KeyTable (keys -> ids) and OffsetTable (keys -> offsets) ----------------------- */

enum { READY, PENDING, BROKEN };
#define MIN_SLOTS 1024
#define PREFETCH_ROWS 8

#define INLINE_KEY_BYTES 16

/* One slot of an open-addressing table (linear probing, at most three quarters full). Hash, value and the key's
 * bytes (or, for keys longer than INLINE_KEY_BYTES, where they are in the arena) sit together, so finding a short
 * key costs one memory read of the table, a long one a read of the arena too. */
typedef struct {
    uint64_t hash;
    int64_t value; /* KeyTable: the id; OffsetTable: the offset (or rank) */
    int64_t at; /* the key's first byte in the arena, or a byte of it kept for a short key (the insertion order) */
    int64_t stored; /* 0: an empty slot; else the key's length + 2 (1: the None key) */
    uint8_t short_key[INLINE_KEY_BYTES]; /* a key of at most INLINE_KEY_BYTES bytes */
} Slot;

/* Both table types share this layout; only KeyTable stages keys (number() then commit()). */
typedef struct {
    PyObject_HEAD
    Slot *slots;
    Py_ssize_t slot_count; /* a power of two */
    Py_ssize_t count; /* keys held */
    char *arena;
    Py_ssize_t arena_used, arena_capacity;
    Py_ssize_t *staged; /* KeyTable: the slots of the keys new in the last number() call, in order */
    Py_ssize_t staged_count, staged_capacity;
    int state; /* READY, PENDING (number() staged keys, commit() not called yet) or BROKEN (an error mid-call) */
} Table;

/* A key as given: its bytes and length, -1 for None (any negative length). */
typedef struct {
    const uint8_t *bytes;
    int64_t length;
} Key;

/* The bytes of the key held in a slot. */
static const uint8_t *
slot_key(const Table *table, const Slot *slot)
{
    return slot->stored - 2 <= INLINE_KEY_BYTES ? slot->short_key : (const uint8_t *)table->arena + slot->at;
}

static uint64_t
hash_key(Key key)
{
    int64_t length = key.length > 0 ? key.length : 0;
    uint64_t hash = 0x9E3779B97F4A7C15ULL ^ (uint64_t)length ^ (key.length < 0 ? 0x5555ULL : 0);
    int64_t i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t word;
        memcpy(&word, key.bytes + i, 8);
        hash = (hash ^ word) * 0xBF58476D1CE4E5B9ULL;
        hash ^= hash >> 31;
    }
    if (i < length) {
        uint64_t word = 0;
        memcpy(&word, key.bytes + i, (size_t)(length - i));
        hash = (hash ^ word) * 0x94D049BB133111EBULL;
        hash ^= hash >> 29;
    }
    hash *= 0xBF58476D1CE4E5B9ULL;
    return hash ^ (hash >> 32);
}

static int
grow(void **memory, Py_ssize_t *capacity, Py_ssize_t needed, size_t item)
{
    if (needed <= *capacity)
        return 1;
    Py_ssize_t size = *capacity ? *capacity : 1024;
    while (size < needed)
        size *= 2;
    void *moved = PyMem_Realloc(*memory, (size_t)size * item);
    if (moved == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    *memory = moved;
    *capacity = size;
    return 1;
}

/* Zeroed slots. On Linux a big table is mapped on its own and asked for huge pages: its random reads would
 * otherwise miss the TLB on almost every lookup. */
static Slot *
new_slots(Py_ssize_t count)
{
#ifdef __linux__
    size_t bytes = (size_t)count * sizeof(Slot);
    if (bytes >= (2u << 20)) {
        void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED)
            return NULL;
#ifdef MADV_HUGEPAGE
        madvise(memory, bytes, MADV_HUGEPAGE);
#endif
        return memory;
    }
#endif
    return PyMem_Calloc((size_t)count, sizeof(Slot));
}

static void
free_slots(Slot *slots, Py_ssize_t count)
{
#ifdef __linux__
    if ((size_t)count * sizeof(Slot) >= (2u << 20)) {
        munmap(slots, (size_t)count * sizeof(Slot));
        return;
    }
#endif
    PyMem_Free(slots);
}

static Py_ssize_t
home_slot(const Table *table, uint64_t hash)
{
    return (Py_ssize_t)(hash & (uint64_t)(table->slot_count - 1));
}

/* Room for `more` keys with the table at most three quarters full: rehashes into a bigger table when needed. */
static int
reserve(Table *table, Py_ssize_t more)
{
    if (!grow((void **)&table->staged, &table->staged_capacity, more, sizeof(Py_ssize_t)))
        return 0;
    Py_ssize_t needed = (table->count + more) + (table->count + more) / 3 + 1;
    if (needed <= table->slot_count)
        return 1;
    Py_ssize_t size = table->slot_count ? table->slot_count : MIN_SLOTS;
    while (size < needed)
        size *= 2;
    Slot *slots = new_slots(size), *old = table->slots;
    if (slots == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    Py_ssize_t old_count = table->slot_count;
    table->slots = slots;
    table->slot_count = size;
    for (Py_ssize_t i = 0; i < old_count; i++) {
        if (!old[i].stored)
            continue;
        Py_ssize_t slot = home_slot(table, old[i].hash);
        while (slots[slot].stored)
            slot = (slot + 1) & (size - 1);
        slots[slot] = old[i];
    }
    if (old != NULL)
        free_slots(old, old_count);
    return 1;
}

/* Whether a and b hold the same `length` bytes. Keys of 8 to 16 bytes (most keys) are compared as two words, the
 * first and last eight bytes, without a call to memcmp. */
static inline int
same_bytes(const uint8_t *a, const uint8_t *b, int64_t length)
{
    if (length < 8 || length > 16)
        return length <= 0 || memcmp(a, b, (size_t)length) == 0;
    uint64_t a_head, b_head, a_tail, b_tail;
    memcpy(&a_head, a, 8);
    memcpy(&b_head, b, 8);
    memcpy(&a_tail, a + length - 8, 8);
    memcpy(&b_tail, b + length - 8, 8);
    return a_head == b_head && a_tail == b_tail;
}

/* The slot holding the key, or the empty slot where it belongs. */
static Slot *
find_slot(const Table *table, uint64_t hash, Key key)
{
    int64_t stored = (key.length < 0 ? -1 : key.length) + 2;
    Py_ssize_t mask = table->slot_count - 1;
    for (Py_ssize_t slot = home_slot(table, hash);; slot = (slot + 1) & mask) {
        Slot *candidate = &table->slots[slot];
        if (!candidate->stored)
            return candidate;
        if (candidate->hash == hash && candidate->stored == stored
            && same_bytes(slot_key(table, candidate), key.bytes, stored - 2))
            return candidate;
    }
}

/* Put the key into the empty slot found for it; its bytes are copied into the slot (short keys) or the arena (a
 * byte of the arena at least, so the arena positions keep the order of insertion). 0 with MemoryError when the
 * arena cannot grow. */
static int
insert(Table *table, Slot *slot, uint64_t hash, Key key, int64_t value)
{
    int64_t length = key.length < 0 ? -1 : key.length;
    Py_ssize_t bytes = length > INLINE_KEY_BYTES ? length : 1;
    if (!grow((void **)&table->arena, &table->arena_capacity, table->arena_used + bytes, 1))
        return 0;
    slot->hash = hash;
    slot->stored = length + 2;
    slot->at = table->arena_used;
    slot->value = value;
    if (length > INLINE_KEY_BYTES)
        memcpy(table->arena + table->arena_used, key.bytes, (size_t)length);
    else if (length > 0)
        memcpy(slot->short_key, key.bytes, (size_t)length);
    table->arena_used += bytes;
    table->count++;
    return 1;
}

/* Put the key at `offset`, keeping the higher offset of a key already held. 0 (the table broken) with MemoryError
 * when its bytes cannot be copied. */
static int
put_max(Table *table, uint64_t hash, Key key, int64_t offset)
{
    Slot *slot = find_slot(table, hash, key);
    if (!slot->stored) {
        if (!insert(table, slot, hash, key, offset)) {
            table->state = BROKEN;
            return 0;
        }
    }
    else if (offset > slot->value)
        slot->value = offset;
    return 1;
}

/* Prefetch the home slot of a key PREFETCH_ROWS rows ahead, and the arena bytes of the key in the home slot of
 * one half as far ahead: the table and arena are far bigger than the caches, and a lookup would otherwise wait
 * on two memory reads in a row. Always inlined: GCC finds a function that only prefetches free of side effects
 * and deletes its calls (at -O1 and above no prefetch was left in the loops). */
static inline __attribute__((always_inline)) void
prefetch(const Table *table, const uint64_t *hashes, Py_ssize_t row, Py_ssize_t rows)
{
    if (row + PREFETCH_ROWS < rows)
        __builtin_prefetch(&table->slots[home_slot(table, hashes[row + PREFETCH_ROWS])]);
    if (row + PREFETCH_ROWS / 2 < rows) {
        const Slot *home = &table->slots[home_slot(table, hashes[row + PREFETCH_ROWS / 2])];
        if (home->stored - 2 > INLINE_KEY_BYTES)
            __builtin_prefetch(table->arena + home->at);
    }
}

/* Keys given as spans of a block: the buffers of number(), put_spans() and get_spans(), checked. */
typedef struct {
    Py_buffer block, starts, lengths;
    Py_ssize_t rows;
    uint64_t *hashes;
} Spans;

static void
release_spans(Spans *spans)
{
    PyMem_Free(spans->hashes);
    PyBuffer_Release(&spans->block);
    PyBuffer_Release(&spans->starts);
    PyBuffer_Release(&spans->lengths);
}

static Key
span_key(const Spans *spans, Py_ssize_t i)
{
    const int64_t *starts = spans->starts.buf, *lengths = spans->lengths.buf;
    Key key = {(const uint8_t *)spans->block.buf, lengths[i] < 0 ? -1 : lengths[i]};
    if (key.length > 0)
        key.bytes += starts[i];
    return key;
}

/* Checks every span lies in the block and hashes every key; 0 with an exception otherwise. */
static int
hash_spans(Spans *spans)
{
    spans->rows = spans->starts.len / 8;
    if (!check_buffer(&spans->starts, spans->rows, 8, "starts")
        || !check_buffer(&spans->lengths, spans->rows, 8, "lengths"))
        return 0;
    spans->hashes = PyMem_Malloc((size_t)(spans->rows ? spans->rows : 1) * sizeof(uint64_t));
    if (spans->hashes == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    const int64_t *starts = spans->starts.buf, *lengths = spans->lengths.buf;
    for (Py_ssize_t i = 0; i < spans->rows; i++) {
        if (lengths[i] > 0 && (starts[i] < 0 || starts[i] > spans->block.len - lengths[i])) {
            PyErr_Format(PyExc_ValueError, "key %zd lies outside the block", i);
            return 0;
        }
        spans->hashes[i] = hash_key(span_key(spans, i));
    }
    return 1;
}

static int
refuse_unless_ready(const Table *self)
{
    if (self->state == READY)
        return 1;
    PyErr_SetString(PyExc_RuntimeError, self->state == PENDING
                                            ? "the keys of the last number() call were not committed"
                                            : "this table failed in an earlier call: start a new one");
    return 0;
}

PyDoc_STRVAR(number_doc,
"number(block, starts, lengths, ids, new_rows) -> int\n"
"--\n\n"
"The id of each key block[starts[i]:starts[i] + lengths[i]] (a negative length: None) into ids, all int64\n"
"arrays. Keys met before get their committed id; the k-th key new to the table gets -2 - k, and its first row\n"
"goes to new_rows[k]. Returns how many keys were new; commit() must give them their ids before the next call.");

static PyObject *
KeyTable_number(Table *self, PyObject *args)
{
    Spans spans = {0};
    Py_buffer ids_view = {0}, new_view = {0};
    PyObject *result = NULL;
    if (!refuse_unless_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*w*w*:number", &spans.block, &spans.starts, &spans.lengths, &ids_view,
                          &new_view))
        return NULL;
    if (!hash_spans(&spans) || !check_buffer(&ids_view, spans.rows, 8, "ids")
        || !check_buffer(&new_view, spans.rows, 8, "new_rows") || !reserve(self, spans.rows))
        goto done;
    int64_t *ids = ids_view.buf, *new_rows = new_view.buf;
    self->staged_count = 0;
    for (Py_ssize_t i = 0; i < spans.rows; i++) {
        prefetch(self, spans.hashes, i, spans.rows);
        Key key = span_key(&spans, i);
        Slot *slot = find_slot(self, spans.hashes[i], key);
        if (!slot->stored) {
            if (!insert(self, slot, spans.hashes[i], key, -2 - (int64_t)self->staged_count)) {
                self->state = BROKEN; /* keys staged so far have no ids: the table cannot be used again */
                goto done;
            }
            new_rows[self->staged_count] = i;
            self->staged[self->staged_count++] = slot - self->slots;
        }
        ids[i] = slot->value;
    }
    self->state = self->staged_count ? PENDING : READY;
    result = PyLong_FromSsize_t(self->staged_count);
done:
    release_spans(&spans);
    PyBuffer_Release(&ids_view);
    PyBuffer_Release(&new_view);
    return result;
}

PyDoc_STRVAR(commit_doc,
"commit(ids)\n"
"--\n\n"
"Give the keys new in the last number() call their ids (int64, in the order of new_rows).");

static PyObject *
KeyTable_commit(Table *self, PyObject *arg)
{
    Py_buffer view;
    if (self->state != PENDING) {
        PyErr_SetString(PyExc_RuntimeError, "no keys await their ids: call number() first");
        return NULL;
    }
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (!check_buffer(&view, self->staged_count, 8, "ids")) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const int64_t *ids = view.buf;
    for (Py_ssize_t k = 0; k < self->staged_count; k++)
        self->slots[self->staged[k]].value = ids[k];
    self->staged_count = 0;
    self->state = READY;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(put_spans_doc,
"put_spans(block, starts, lengths, offsets)\n"
"--\n\n"
"Put each key block[starts[i]:starts[i] + lengths[i]] (a negative length: None) at offsets[i] (int64 arrays),\n"
"keeping the higher offset of a key already held.");

static PyObject *
OffsetTable_put_spans(Table *self, PyObject *args)
{
    Spans spans = {0};
    Py_buffer offsets_view = {0};
    PyObject *result = NULL;
    if (!refuse_unless_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*:put_spans", &spans.block, &spans.starts, &spans.lengths, &offsets_view))
        return NULL;
    if (!hash_spans(&spans) || !check_buffer(&offsets_view, spans.rows, 8, "offsets") || !reserve(self, spans.rows))
        goto done;
    const int64_t *offsets = offsets_view.buf;
    for (Py_ssize_t i = 0; i < spans.rows; i++) {
        prefetch(self, spans.hashes, i, spans.rows);
        if (!put_max(self, spans.hashes[i], span_key(&spans, i), offsets[i]))
            goto done;
    }
    result = Py_NewRef(Py_None);
done:
    release_spans(&spans);
    PyBuffer_Release(&offsets_view);
    return result;
}

PyDoc_STRVAR(get_spans_doc,
"get_spans(block, starts, lengths, entries)\n"
"--\n\n"
"The offset held for each key block[starts[i]:starts[i] + lengths[i]] into entries (int64), -1 where none is.");

static PyObject *
OffsetTable_get_spans(Table *self, PyObject *args)
{
    Spans spans = {0};
    Py_buffer entries_view = {0};
    PyObject *result = NULL;
    if (!refuse_unless_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*w*:get_spans", &spans.block, &spans.starts, &spans.lengths, &entries_view))
        return NULL;
    if (!hash_spans(&spans) || !check_buffer(&entries_view, spans.rows, 8, "entries"))
        goto done;
    int64_t *entries = entries_view.buf;
    for (Py_ssize_t i = 0; i < spans.rows; i++) {
        prefetch(self, spans.hashes, i, spans.rows);
        Slot *slot = find_slot(self, spans.hashes[i], span_key(&spans, i));
        entries[i] = slot->stored ? slot->value : -1;
    }
    result = Py_NewRef(Py_None);
done:
    release_spans(&spans);
    PyBuffer_Release(&entries_view);
    return result;
}

/* The key of a Python object: bytes, or None. 0 with TypeError otherwise. */
static int
object_key(PyObject *item, Key *key)
{
    const char *data;
    Py_ssize_t length;
    if (!bytes_of(item, &data, &length))
        return 0;
    key->bytes = (const uint8_t *)data;
    key->length = length;
    return 1;
}

PyDoc_STRVAR(put_doc,
"put(keys, offsets)\n"
"--\n\n"
"Put each key of the sequence keys (bytes or None) at offsets[i] (an int64 buffer), keeping the higher offset\n"
"of a key already held.");

static PyObject *
OffsetTable_put(Table *self, PyObject *args)
{
    PyObject *keys_arg, *keys = NULL, *result = NULL;
    Py_buffer offsets_view = {0};
    if (!refuse_unless_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "Oy*:put", &keys_arg, &offsets_view))
        return NULL;
    keys = PySequence_Fast(keys_arg, "keys must be a sequence");
    if (keys == NULL || !check_buffer(&offsets_view, PySequence_Fast_GET_SIZE(keys), 8, "offsets")
        || !reserve(self, PySequence_Fast_GET_SIZE(keys)))
        goto done;
    const int64_t *offsets = offsets_view.buf;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(keys); i++) {
        Key key;
        if (!object_key(PySequence_Fast_GET_ITEM(keys, i), &key) || !put_max(self, hash_key(key), key, offsets[i]))
            goto done;
    }
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(keys);
    PyBuffer_Release(&offsets_view);
    return result;
}

PyDoc_STRVAR(get_doc,
"get(keys, entries)\n"
"--\n\n"
"The offset held for each key of the sequence keys (bytes or None) into entries (int64), -1 where none is.");

static PyObject *
OffsetTable_get(Table *self, PyObject *args)
{
    PyObject *keys_arg, *keys = NULL, *result = NULL;
    Py_buffer entries_view = {0};
    if (!refuse_unless_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "Ow*:get", &keys_arg, &entries_view))
        return NULL;
    keys = PySequence_Fast(keys_arg, "keys must be a sequence");
    if (keys == NULL || !check_buffer(&entries_view, PySequence_Fast_GET_SIZE(keys), 8, "entries"))
        goto done;
    int64_t *entries = entries_view.buf;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(keys); i++) {
        Key key;
        if (!object_key(PySequence_Fast_GET_ITEM(keys, i), &key))
            goto done;
        Slot *slot = find_slot(self, hash_key(key), key);
        entries[i] = slot->stored ? slot->value : -1;
    }
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(keys);
    PyBuffer_Release(&entries_view);
    return result;
}

static int
by_arena_position(const void *left, const void *right)
{
    int64_t a = (*(Slot *const *)left)->at, b = (*(Slot *const *)right)->at;
    return (a > b) - (a < b);
}

PyDoc_STRVAR(items_doc,
"items() -> list\n"
"--\n\n"
"(key, offset) of every key held, in the order the keys were first put.");

static PyObject *
OffsetTable_items(Table *self, PyObject *Py_UNUSED(ignored))
{
    Slot **held = PyMem_Malloc((size_t)(self->count ? self->count : 1) * sizeof(Slot *));
    if (held == NULL)
        return PyErr_NoMemory();
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < self->slot_count; i++)
        if (self->slots[i].stored)
            held[n++] = &self->slots[i];
    qsort(held, (size_t)n, sizeof(Slot *), by_arena_position);
    PyObject *items = PyList_New(n);
    for (Py_ssize_t i = 0; items != NULL && i < n; i++) {
        int64_t length = held[i]->stored - 2;
        PyObject *key = length < 0 ? Py_NewRef(Py_None)
                                   : PyBytes_FromStringAndSize((const char *)slot_key(self, held[i]), (Py_ssize_t)length);
        PyObject *item = key ? Py_BuildValue("(NL)", key, (long long)held[i]->value) : NULL;
        if (item == NULL) {
            Py_CLEAR(items);
            break;
        }
        PyList_SET_ITEM(items, i, item);
    }
    PyMem_Free(held);
    return items;
}

PyDoc_STRVAR(values_doc,
"values(out)\n"
"--\n\n"
"The offset (or entry) held for every key into out (int64, len() items), in no particular order.");

static PyObject *
OffsetTable_values(Table *self, PyObject *arg)
{
    Py_buffer view;
    if (!refuse_unless_ready(self))
        return NULL;
    if (PyObject_GetBuffer(arg, &view, PyBUF_WRITABLE) < 0)
        return NULL;
    if (!check_buffer(&view, self->count, 8, "out")) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int64_t *out = view.buf;
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < self->slot_count; i++)
        if (self->slots[i].stored)
            out[n++] = self->slots[i].value;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

static Py_ssize_t
Table_len(Table *self)
{
    return self->count;
}

static void
Table_dealloc(Table *self)
{
    if (self->slots != NULL)
        free_slots(self->slots, self->slot_count);
    PyMem_Free(self->arena);
    PyMem_Free(self->staged);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Table_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    if (!PyArg_ParseTuple(args, "") || (kwargs && PyDict_Size(kwargs))) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "%s() takes no arguments", type->tp_name);
        return NULL;
    }
    Table *self = (Table *)type->tp_alloc(type, 0);
    if (self != NULL && !reserve(self, MIN_SLOTS / 2)) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static PySequenceMethods Table_as_sequence = {.sq_length = (lenfunc)Table_len};

static PyMethodDef KeyTable_methods[] = {
    {"number", (PyCFunction)KeyTable_number, METH_VARARGS, number_doc},
    {"commit", (PyCFunction)KeyTable_commit, METH_O, commit_doc},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject KeyTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kcompact_nb.io.codec._native.KeyTable",
    .tp_doc = PyDoc_STR("Distinct keys by content (copied into an arena), each with an id; len() counts them."),
    .tp_basicsize = sizeof(Table),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Table_new,
    .tp_dealloc = (destructor)Table_dealloc,
    .tp_methods = KeyTable_methods,
    .tp_as_sequence = &Table_as_sequence,
};

static PyMethodDef OffsetTable_methods[] = {
    {"put_spans", (PyCFunction)OffsetTable_put_spans, METH_VARARGS, put_spans_doc},
    {"get_spans", (PyCFunction)OffsetTable_get_spans, METH_VARARGS, get_spans_doc},
    {"put", (PyCFunction)OffsetTable_put, METH_VARARGS, put_doc},
    {"get", (PyCFunction)OffsetTable_get, METH_VARARGS, get_doc},
    {"items", (PyCFunction)OffsetTable_items, METH_NOARGS, items_doc},
    {"values", (PyCFunction)OffsetTable_values, METH_O, values_doc},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject OffsetTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kcompact_nb.io.codec._native.OffsetTable",
    .tp_doc = PyDoc_STR("Distinct keys by content (copied into an arena), each with its highest offset put: the "
                        "cleaner's offset map as a hash table of key bytes; len() counts the keys."),
    .tp_basicsize = sizeof(Table),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Table_new,
    .tp_dealloc = (destructor)Table_dealloc,
    .tp_methods = OffsetTable_methods,
    .tp_as_sequence = &Table_as_sequence,
};

static PyMethodDef module_methods[] = {
    {"decode_plain", decode_plain, METH_VARARGS, decode_plain_doc},
    {"records_section", records_section, METH_VARARGS, records_section_doc},
    {"snappy_compress", snappy_compress, METH_VARARGS, snappy_compress_doc},
    {"inflate_batches", inflate_batches, METH_VARARGS, inflate_batches_doc},
    {"inflatable_codecs", inflatable_codecs, METH_NOARGS, inflatable_codecs_doc},
    {"open_zstd", open_zstd, METH_VARARGS, open_zstd_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "kcompact_nb.io.codec._native",
    .m_doc = PyDoc_STR("The segment reader's and writer's hot loops and the offset map's table in C (_native.c)."),
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__native(void)
{
    if (PyType_Ready(&KeyTableType) < 0 || PyType_Ready(&OffsetTableType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&native_module);
    if (module == NULL)
        return NULL;
    if (PyModule_AddObjectRef(module, "KeyTable", (PyObject *)&KeyTableType) < 0
        || PyModule_AddObjectRef(module, "OffsetTable", (PyObject *)&OffsetTableType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
