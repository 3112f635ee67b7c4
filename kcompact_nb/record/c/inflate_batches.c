/* inflate_batches: a block's batches as if written uncompressed.
 *
 * Each compressed batch's records section decompressed as _decompression.decompress_records reads it (Kafka's
 * framing per codec), behind a copy of its 61-byte header with the codec bits cleared, so decode_plain reads it
 * as a plain batch. gzip, lz4 and zstd are decompressed by the codecs' own libraries (codec_libraries.h); snappy's
 * raw format is decoded here.
 *
 * Nothing here decides what a batch means either: a batch is inflated only when its bytes read cleanly under the
 * strictest reading of its framing (no trailing bytes, no truncated frame, every snappy copy within the output),
 * and every input that reads here reads the same through decompress_records; anything else is left to the
 * Python path, which gives the result or the error (tests/record/test_block_inflation.py holds both to that). */
#include "codec_libraries.h"

#include <pthread.h>
#include <unistd.h>

#define CODEC_BITS_BYTE 22 /* the low byte of the attributes (ATTRIBUTES_POSITION + 1) */
#define MIN_OUTPUT_STEP 65536

/* A growing output in plain memory (filled with the GIL released). */
typedef struct {
    uint8_t *data;
    size_t size, capacity;
    int failed; /* out of memory */
} Buffer;

/* The most output memory kept for the next call (see spares). */
#define SPARE_BYTES ((size_t)128 << 20)

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
        if (size < end + 2 || (unsigned)(data[end] | data[end + 1] << 8) != (codec_libraries.crc32(0, data, (unsigned)end) & 0xFFFF))
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
    if (size > 0x7FFFFFFF || codec_libraries.inflateInit2_(&stream, GZIP_WINDOW_BITS, "1.2.11", (int)sizeof stream) != Z_OK)
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
            status = codec_libraries.inflate(&stream, Z_SYNC_FLUSH);
            out->size += before - stream.avail_out;
        } while (status == Z_OK); /* Z_BUF_ERROR: the input ended inside the member (EOFError) */
        if (status != Z_STREAM_END)
            goto done;
        if (stream.avail_in == 0 || !gzip_header_follows(stream.next_in, stream.avail_in)) {
            ok = 1; /* GZIPInputStream.readTrailer: anything but another member after a trailer is ignored */
            goto done;
        }
        if (codec_libraries.inflateReset(&stream) != Z_OK)
            goto done;
    }
done:
    codec_libraries.inflateEnd(&stream);
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
    codec_libraries.LZ4F_resetDecompressionContext(context);
    size_t at = 0;
    for (;;) {
        if (!buffer_reserve(out, size > MIN_OUTPUT_STEP ? size : MIN_OUTPUT_STEP))
            return 0;
        size_t room = out->capacity - out->size, written = room, read = size - at;
        size_t hint = codec_libraries.LZ4F_decompress(context, out->data + out->size, &written, data + at, &read, NULL);
        if (codec_libraries.LZ4F_isError(hint))
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

/* A thread's decompression contexts, each made when its codec is first met (a block of gzip batches makes none). */
typedef struct {
    void *lz4, *zstd;
    int lz4_made, zstd_made;
    const Zstd *zstd_library; /* the library zstd was created by */
} Contexts;

static void *
lz4_context(Contexts *contexts)
{
    if (!contexts->lz4_made) {
        contexts->lz4_made = 1;
        if (codec_ready[CODE_LZ4]
            && codec_libraries.LZ4F_isError(codec_libraries.LZ4F_createDecompressionContext(&contexts->lz4, LZ4F_VERSION)))
            contexts->lz4 = NULL;
    }
    return contexts->lz4;
}

static void *
zstd_context(Contexts *contexts)
{
    if (!contexts->zstd_made) {
        contexts->zstd_made = 1;
        if (contexts->zstd_library != NULL)
            contexts->zstd = contexts->zstd_library->ZSTD_createDCtx();
    }
    return contexts->zstd;
}

static void
free_contexts(Contexts *contexts)
{
    if (contexts->lz4 != NULL)
        codec_libraries.LZ4F_freeDecompressionContext(contexts->lz4);
    if (contexts->zstd != NULL)
        contexts->zstd_library->ZSTD_freeDCtx(contexts->zstd);
    *contexts = (Contexts){NULL, NULL, 0, 0, NULL};
}

/* The records section `data` of codec `code` decompressed onto `out`; 0 when it does not read cleanly. */
static int
inflate_records(int code, const uint8_t *data, size_t size, Buffer *out, Contexts *contexts)
{
    switch (code) {
    case CODE_GZIP:
        return gunzip_as_java(data, size, out);
    case CODE_SNAPPY:
        return snappy_decode(data, size, out);
    case CODE_LZ4:
        return lz4_context(contexts) != NULL && lz4_decode(data, size, out, contexts->lz4);
    case CODE_ZSTD:
        return zstd_context(contexts) != NULL && zstd_decode(data, size, out, contexts->zstd_library, contexts->zstd);
    default:
        return 0;
    }
}

/* Every batch of the block onto `out`: copied (CODE_COPY), or its header with the codec bits cleared followed by its
 * records inflated (a codec's code) when they read cleanly; view_starts and view_ends say where each batch went. */
static void
inflate_block(const uint8_t *block, const int64_t *starts, const int64_t *ends, const uint8_t *codes,
              Py_ssize_t batches, int64_t *view_starts, int64_t *view_ends, Buffer *out, Contexts *contexts)
{
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
                                    contexts))
                out->size = mark + RECORD_BATCH_OVERHEAD; /* its header alone: left to the Python path */
            if (out->failed)
                break;
        }
        view_starts[b] = (int64_t)mark;
        view_ends[b] = (int64_t)out->size;
    }
}

/* -- two threads: the block's batches in two runs, each inflated onto its own buffer, then joined in order -- */

#define PARALLEL_MIN_BYTES ((int64_t)256 << 10) /* compressed bytes below which a second thread costs more than it saves */

/* One run of a block's batches, inflated by one thread onto its own output and with its own contexts. */
typedef struct {
    const uint8_t *block;
    const int64_t *starts, *ends;
    const uint8_t *codes;
    Py_ssize_t batches;
    int64_t *view_starts, *view_ends;
    Buffer out;
    Contexts contexts;
} Run;

static void *
inflate_run(void *argument)
{
    Run *run = argument;
    inflate_block(run->block, run->starts, run->ends, run->codes, run->batches, run->view_starts, run->view_ends,
                  &run->out, &run->contexts);
    return NULL;
}

/* Where the second run starts: the first batch past half of the compressed bytes (0: the block goes in one run).
 * `threads` 0 splits a block of at least PARALLEL_MIN_BYTES compressed bytes on a machine of two cores or more, 1
 * never splits, 2 splits any block of two batches or more. */
static Py_ssize_t
second_run_start(const int64_t *starts, const int64_t *ends, const uint8_t *codes, Py_ssize_t batches, int threads)
{
    if (threads == 1 || batches < 2)
        return 0;
    int64_t total = 0;
    for (Py_ssize_t b = 0; b < batches; b++)
        if (codes[b] != CODE_COPY && codes[b] <= CODE_ZSTD)
            total += ends[b] - starts[b];
    if (threads == 0 && (total < PARALLEL_MIN_BYTES || sysconf(_SC_NPROCESSORS_ONLN) < 2))
        return 0;
    int64_t first = 0;
    Py_ssize_t b = 0;
    while (b < batches - 1 && 2 * first < total) {
        if (codes[b] != CODE_COPY && codes[b] <= CODE_ZSTD)
            first += ends[b] - starts[b];
        b++;
    }
    return b > 0 ? b : 1;
}

/* Spare outputs kept between calls, one per run: taken and given back with the GIL held, so a second caller in here
 * meanwhile starts its own. A block's inflated bytes are tens of MiB, above the allocator's mmap threshold, and fresh
 * pages for every block would be faulted in again each time. (Contexts are not kept: a context that met a corrupt
 * frame is not trusted with the next.) */
static Buffer spares[2];

static void
take_spare(Run *run, int index, const Zstd *zstd)
{
    run->out = spares[index];
    spares[index] = (Buffer){NULL, 0, 0, 0};
    run->contexts = (Contexts){NULL, NULL, 0, 0, zstd};
}

static void
give_back(Run *run, int index)
{
    free_contexts(&run->contexts);
    if (run->out.failed || run->out.capacity > SPARE_BYTES || spares[index].data != NULL)
        free(run->out.data);
    else
        spares[index] = (Buffer){run->out.data, 0, run->out.capacity, 0};
}

const char inflate_batches_doc[] = PyDoc_STR(
"inflate_batches(block, starts, ends, codes, view_starts, view_ends, threads=0) -> bytes\n"
"--\n\n"
"The batches block[starts[b]:ends[b]] (int64 inputs, one per batch) as if written uncompressed, one after\n"
"another (_block_inflation.uncompressed_view): codes[b] (uint8) 0 copies the batch; any other code writes its\n"
"header with the codec bits cleared, then for 1-4 (gzip, snappy, lz4, zstd) its records decompressed as\n"
"_decompression.decompress_records reads them, when they read cleanly. view_starts[b] and view_ends[b] (int64\n"
"outputs) say where each batch is in the result. With the GIL released; a block of enough compressed bytes is\n"
"inflated by two threads, each a run of its batches (threads: 0 so, 1 one thread, 2 two whenever there are two\n"
"batches), to the same bytes.");

PyObject *
inflate_batches(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer block, starts, ends, codes, view_starts, view_ends;
    int threads = 0;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*w*|i:inflate_batches", &block, &starts, &ends, &codes, &view_starts,
                          &view_ends, &threads))
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
    if (ok && (threads < 0 || threads > 2)) {
        PyErr_SetString(PyExc_ValueError, "threads must be 0 (as the block and machine suit), 1 or 2");
        ok = 0;
    }
    if (ok) {
        open_libraries_once();
        const Zstd *zstd = zstd_in_use;
        Py_ssize_t split = second_run_start(start, end, codes.buf, batches, threads);
        Py_ssize_t first_batches = split ? split : batches;
        Run runs[2] = {
            {block.buf, start, end, codes.buf, first_batches, view_starts.buf, view_ends.buf},
            {block.buf, start + split, end + split, (const uint8_t *)codes.buf + split, batches - split,
             (int64_t *)view_starts.buf + split, (int64_t *)view_ends.buf + split},
        };
        int used = split ? 2 : 1;
        for (int r = 0; r < used; r++)
            take_spare(&runs[r], r, zstd);
        Py_BEGIN_ALLOW_THREADS
        pthread_t second;
        int started = used == 2 && pthread_create(&second, NULL, inflate_run, &runs[1]) == 0;
        inflate_run(&runs[0]);
        if (started)
            pthread_join(second, NULL);
        else if (used == 2)
            inflate_run(&runs[1]); /* no second thread to be had: the second run after the first */
        Py_END_ALLOW_THREADS
        if (runs[0].out.failed || (used == 2 && runs[1].out.failed))
            result = PyErr_NoMemory();
        else {
            size_t first = runs[0].out.size, second_size = used == 2 ? runs[1].out.size : 0;
            result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(first + second_size));
            if (result != NULL) {
                char *data = PyBytes_AS_STRING(result);
                if (first)
                    memcpy(data, runs[0].out.data, first);
                if (second_size)
                    memcpy(data + first, runs[1].out.data, second_size);
                for (Py_ssize_t b = 0; used == 2 && b < runs[1].batches; b++) { /* the second run's places, joined */
                    runs[1].view_starts[b] += (int64_t)first;
                    runs[1].view_ends[b] += (int64_t)first;
                }
            }
        }
        for (int r = 0; r < used; r++)
            give_back(&runs[r], r);
    }
    PyBuffer_Release(&block);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&ends);
    PyBuffer_Release(&codes);
    PyBuffer_Release(&view_starts);
    PyBuffer_Release(&view_ends);
    return result;
}
