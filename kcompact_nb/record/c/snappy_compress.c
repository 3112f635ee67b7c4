/* snappy_compress: snappy 1.1.10's raw compressor (1.1.7 and 1.1.8's too), as _snappy.py follows it --------
 *
 * The compressor snappy-java bundles (built without the CRC32 instruction: the multiplicative hash), so the same
 * input gives Kafka's bytes. _snappy.py documents the format, each step and where the releases differ (the hash's
 * bits); the names here are snappy's. */
#include "kernels.h"

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

const char snappy_compress_doc[] = PyDoc_STR(
"snappy_compress(data, top_bits_hash=False) -> bytes\n"
"--\n\n"
"data in snappy's raw format, byte for byte as snappy 1.1.10 (no CRC32 hashing) writes it, or 1.1.7 and\n"
"1.1.8 with top_bits_hash: what _snappy.raw_compress computes in Python.");

PyObject *
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

