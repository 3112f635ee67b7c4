/*
 * Framing a block of a segment file: where its whole v2 batches lie, each one's length, magic byte and CRC-32C
 * checked, in one call with the GIL released (the twin: _batch_framing.frame_with_python, the loop a segment file's
 * reader ran batch by batch).
 *
 * A batch at position `at` of the block (big-endian fields of DefaultRecordBatch):
 *
 *   offset      bytes  field
 *   0           8      baseOffset
 *   8           4      length (of what follows this field)
 *   12          4      partitionLeaderEpoch
 *   16          1      magic (2)
 *   17          4      crc (CRC-32C of attributes .. the batch's end)
 *   21          ...    attributes, lastOffsetDelta, ... records
 *
 * Framing stops at the first batch that is not whole in the block (its header or its length runs past the end), is
 * shorter than a header, has another magic byte, or (when checked) whose CRC does not match: what is wrong with it
 * is for the reader to say, which reads it alone.
 */
#include "kernels.h"

#define LENGTH_POSITION 8
#define MAGIC_POSITION 16
#define CRC_POSITION 17
#define ATTRIBUTES_POSITION 21
#define LOG_OVERHEAD 12

static uint32_t crc_table[8][256];
static uint32_t (*crc32c)(const uint8_t *, size_t); /* set with the GIL held, before the first framing */

/* The slicing-by-8 tables of CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), for processors without SSE 4.2. */
static void
fill_crc_table(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = n;
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        crc_table[0][n] = crc;
    }
    for (uint32_t n = 0; n < 256; n++)
        for (int t = 1; t < 8; t++)
            crc_table[t][n] = (crc_table[t - 1][n] >> 8) ^ crc_table[0][crc_table[t - 1][n] & 0xFF];
}

static uint32_t
crc32c_table(const uint8_t *data, size_t length)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (; length >= 8; data += 8, length -= 8) {
        uint64_t word;
        memcpy(&word, data, 8);
        word ^= crc;
        crc = crc_table[7][word & 0xFF] ^ crc_table[6][(word >> 8) & 0xFF] ^ crc_table[5][(word >> 16) & 0xFF]
              ^ crc_table[4][(word >> 24) & 0xFF] ^ crc_table[3][(word >> 32) & 0xFF]
              ^ crc_table[2][(word >> 40) & 0xFF] ^ crc_table[1][(word >> 48) & 0xFF] ^ crc_table[0][word >> 56];
    }
    while (length--)
        crc = (crc >> 8) ^ crc_table[0][(crc ^ *data++) & 0xFF];
    return crc ^ 0xFFFFFFFFu;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/*
 * SSE 4.2's crc32 instruction computes CRC-32C itself (chosen at run time, where the processor has it). One
 * instruction waits for the one before it, so a batch's bytes are taken as three streams at once, each its own
 * CRC, joined at the end of every round: the CRC over A then B is A's CRC carried over B's length in zero bytes,
 * xored with B's CRC from zero. Carrying a CRC over n zero bytes is linear in it: four tables of 256 entries, one
 * per byte of the CRC, for each stream length.
 */
#define LONG_STREAM 8192
#define SHORT_STREAM 256

static uint32_t long_carry[4][256], short_carry[4][256];

__attribute__((target("sse4.2"))) static uint32_t
over_zeros(uint32_t crc, size_t length)
{
    uint64_t wide = crc;
    for (; length >= 8; length -= 8)
        wide = __builtin_ia32_crc32di(wide, 0);
    return (uint32_t)wide;
}

static void
fill_carry(uint32_t table[4][256], size_t length)
{
    uint32_t bit[32];
    for (int k = 0; k < 32; k++)
        bit[k] = over_zeros(1u << k, length);
    for (int byte = 0; byte < 4; byte++)
        for (uint32_t value = 0; value < 256; value++) {
            uint32_t carried = 0;
            for (int k = 0; k < 8; k++)
                if (value >> k & 1)
                    carried ^= bit[8 * byte + k];
            table[byte][value] = carried;
        }
}

static uint32_t
carry(uint32_t table[4][256], uint32_t crc)
{
    return table[0][crc & 0xFF] ^ table[1][(crc >> 8) & 0xFF] ^ table[2][(crc >> 16) & 0xFF] ^ table[3][crc >> 24];
}

/* Three streams of `stream` bytes each, from `*data` on, into `crc`, while `*length` holds three. */
__attribute__((target("sse4.2"))) static uint64_t
three_streams(uint64_t crc, const uint8_t **data, size_t *length, size_t stream, uint32_t table[4][256])
{
    while (*length >= 3 * stream) {
        const uint8_t *at = *data, *end = at + stream;
        uint64_t second = 0, third = 0, word0, word1, word2;
        for (; at < end; at += 8) {
            memcpy(&word0, at, 8);
            memcpy(&word1, at + stream, 8);
            memcpy(&word2, at + 2 * stream, 8);
            crc = __builtin_ia32_crc32di(crc, word0);
            second = __builtin_ia32_crc32di(second, word1);
            third = __builtin_ia32_crc32di(third, word2);
        }
        crc = carry(table, (uint32_t)crc) ^ (uint32_t)second;
        crc = carry(table, (uint32_t)crc) ^ (uint32_t)third;
        *data += 3 * stream;
        *length -= 3 * stream;
    }
    return crc;
}

__attribute__((target("sse4.2"))) static uint32_t
crc32c_sse42(const uint8_t *data, size_t length)
{
    uint64_t crc = 0xFFFFFFFFu;
    crc = three_streams(crc, &data, &length, LONG_STREAM, long_carry);
    crc = three_streams(crc, &data, &length, SHORT_STREAM, short_carry);
    for (; length >= 8; data += 8, length -= 8) {
        uint64_t word;
        memcpy(&word, data, 8);
        crc = __builtin_ia32_crc32di(crc, word);
    }
    uint32_t crc32 = (uint32_t)crc;
    while (length--)
        crc32 = __builtin_ia32_crc32qi(crc32, *data++);
    return crc32 ^ 0xFFFFFFFFu;
}

/* Whether the processor has SSE 4.2; its carry tables are filled then. */
static int
sse42_ready(void)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("sse4.2"))
        return 0;
    fill_carry(long_carry, LONG_STREAM);
    fill_carry(short_carry, SHORT_STREAM);
    return 1;
}
#else
static uint32_t
crc32c_sse42(const uint8_t *data, size_t length)
{
    return crc32c_table(data, length);
}

static int
sse42_ready(void)
{
    return 0;
}
#endif

static uint32_t
big_endian_u32(const uint8_t *at)
{
    return (uint32_t)at[0] << 24 | (uint32_t)at[1] << 16 | (uint32_t)at[2] << 8 | (uint32_t)at[3];
}

/* The number of whole valid batches at the start of `data`; their starts go to `starts` (room for size / 61). */
static Py_ssize_t
frame(const uint8_t *data, Py_ssize_t size, int verify_crc, int64_t *starts, Py_ssize_t *end)
{
    Py_ssize_t at = 0, count = 0;
    while (at + RECORD_BATCH_OVERHEAD <= size) {
        int32_t length = (int32_t)big_endian_u32(data + at + LENGTH_POSITION);
        Py_ssize_t batch_end = at + LOG_OVERHEAD + (Py_ssize_t)length;
        if (length < RECORD_BATCH_OVERHEAD - LOG_OVERHEAD || batch_end > size || data[at + MAGIC_POSITION] != 2)
            break;
        if (verify_crc
            && big_endian_u32(data + at + CRC_POSITION)
                   != crc32c(data + at + ATTRIBUTES_POSITION, (size_t)(batch_end - at - ATTRIBUTES_POSITION)))
            break;
        starts[count++] = at;
        at = batch_end;
    }
    *end = at;
    return count;
}

const char frame_batches_doc[] = "frame_batches(block, verify_crc) -> (starts, end)\n"
                                 "\n"
                                 "The whole valid v2 batches at the start of `block`: their starts as int64 bytes,\n"
                                 "and where the last one ends (0 without batches).";

/* The CRC-32C this processor computes fastest: SSE 4.2's where it has it, else the tables (chosen once, GIL held). */
static void
choose_crc32c(void)
{
    if (crc32c == NULL) {
        if (sse42_ready())
            crc32c = crc32c_sse42;
        else {
            fill_crc_table();
            crc32c = crc32c_table;
        }
    }
}

uint32_t
crc32c_checksum(const uint8_t *data, size_t length)
{
    choose_crc32c();
    return crc32c(data, length);
}

const char crc32c_doc[] = "crc32c(data) -> int\n"
                          "\n"
                          "The CRC-32C (Castagnoli) of the bytes of `data`, as the framing checks batches with it.";

PyObject *
crc32c_of(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "y*:crc32c", &data))
        return NULL;
    uint32_t crc = crc32c_checksum(data.buf, (size_t)data.len);
    PyBuffer_Release(&data);
    return PyLong_FromUnsignedLong(crc);
}

PyObject *
frame_batches(PyObject *module, PyObject *args)
{
    Py_buffer block;
    int verify_crc;
    if (!PyArg_ParseTuple(args, "y*p:frame_batches", &block, &verify_crc))
        return NULL;
    choose_crc32c();
    Py_ssize_t room = block.len / RECORD_BATCH_OVERHEAD + 1, end = 0, count;
    int64_t *starts = PyMem_RawMalloc((size_t)room * sizeof(int64_t));
    if (starts == NULL) {
        PyBuffer_Release(&block);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    count = frame(block.buf, block.len, verify_crc, starts, &end);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&block);
    PyObject *result = Py_BuildValue("(y#n)", (const char *)starts, count * (Py_ssize_t)sizeof(int64_t), end);
    PyMem_RawFree(starts);
    return result;
}
