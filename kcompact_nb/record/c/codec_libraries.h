/*
 * The codecs' own libraries, opened at run time (dlopen: no headers or link flags at build time): zlib, liblz4 (its
 * frame API) and libzstd, the libraries behind Python's zlib, lz4.frame and zstandard, for inflate_batches.c. A codec
 * whose library is missing is left to the Python path. libzstd is the system's libzstd.so.1 until open_zstd opens
 * another by path: the release zstandard bundles, built by `make codecs` (_libzstd.py), since releases differ in the
 * corrupt frames they refuse (_block_inflation.inflatable_in_c).
 */
#ifndef KCOMPACT_CODEC_LIBRARIES_H
#define KCOMPACT_CODEC_LIBRARIES_H

#include "kernels.h"

#define CODE_COPY 0
#define CODE_GZIP 1
#define CODE_SNAPPY 2
#define CODE_LZ4 3
#define CODE_ZSTD 4

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

/* zlib's and liblz4's functions, once opened. */
typedef struct {
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
} CodecLibraries;

/* libzstd's streaming decompression, from one library. */
typedef struct {
    void *(*ZSTD_createDCtx)(void);
    size_t (*ZSTD_freeDCtx)(void *);
    size_t (*ZSTD_DCtx_reset)(void *, int);
    size_t (*ZSTD_decompressStream)(void *, ZstdOutput *, ZstdInput *);
    unsigned (*ZSTD_isError)(size_t);
    unsigned (*ZSTD_versionNumber)(void);
} Zstd;
extern CodecLibraries codec_libraries;
/* Whether each codec (by code) is decompressed here; set by open_libraries_once. */
extern int codec_ready[CODE_ZSTD + 1];
/* The libzstd inflate_batches uses, NULL when none opened: the system's, or the last open_zstd opened. Replaced with
 * the GIL held, never freed nor closed: a block being inflated meanwhile keeps the one it started with. */
extern const Zstd *zstd_in_use;

/* Open the libraries, once (with the GIL held). */
void open_libraries_once(void);

#endif
