/*
 * The C kernels of the record format, one unit per job; this header is what the units share and what each one
 * exports to the module (module.c, the one table of their Python functions).
 *
 * The record format's hot loops in C: decoding the records of plain uncompressed v2 batches (decode_plain.c),
 * laying out a block's compressed batches as uncompressed ones (inflate_batches.c: their records decompressed, gzip,
 * lz4 and zstd by the codecs' libraries opened at run time, codec_libraries.c, snappy there), tables of distinct keys
 * by content (key_tables.c: numbering keys, the streamed offset map), encoding and sizing the records of batches
 * without headers, and writing whole rebuilt batches from spans of a block (records_section.c), snappy's compressor
 * (snappy_compress.c), and framing a block of a segment file into its whole CRC-checked batches (frame_batches.c). Built by `pip install` when a C compiler is there (an
 * optional extension); without it the Python versions in _vector_decoder.py, _block_inflation.py, _key_numbering.py,
 * _record_encoder.py, _record_sizes.py, _latest_entries.py, _snappy.py and _batch_framing.py do the same work, and
 * the tests hold both to the same results. Every export belongs to one kernel of the table in _kernels.py, which
 * names it beside its twin (through a thin `..._in_c` adapter with the twin's signature) and runs it only while
 * _native_kernels.NATIVE is this module: a new export goes into that table (tests/record/test_native.py checks it).
 *
 * Nothing here decides what a batch means: decode_plain only says which batches read plainly (as
 * _vector_decoder.decode_plain_batches does) and fills their columns, inflate_batches only inflates records that
 * read cleanly; every other batch is left to the record parser and kafka-python, which keep Kafka's error positions
 * and reasons.
 */
#ifndef KCOMPACT_KERNELS_H
#define KCOMPACT_KERNELS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define RECORD_BATCH_OVERHEAD 61

/* A buffer of exactly `items` items of `itemsize` bytes, or a ValueError naming it. */
static inline int
check_buffer(const Py_buffer *view, Py_ssize_t items, Py_ssize_t itemsize, const char *name)
{
    if (view->len != items * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd bytes, expected %zd items of %zd bytes", name, view->len, items,
                     itemsize);
        return 0;
    }
    return 1;
}

/* The bytes of a key or value (NULL, length -1 for None); 0 with a TypeError for anything else. */
static inline int
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

/* decode_plain.c */
PyObject *decode_plain(PyObject *module, PyObject *args);
extern const char decode_plain_doc[];
/* records_section.c */
PyObject *records_section(PyObject *module, PyObject *args);
extern const char records_section_doc[];
PyObject *records_size(PyObject *module, PyObject *args);
extern const char records_size_doc[];
PyObject *placed_records_section(PyObject *module, PyObject *args);
extern const char placed_records_section_doc[];
PyObject *placed_batches(PyObject *module, PyObject *args);
extern const char placed_batches_doc[];
/* snappy_compress.c */
PyObject *snappy_compress(PyObject *module, PyObject *args);
extern const char snappy_compress_doc[];
/* inflate_batches.c */
PyObject *inflate_batches(PyObject *module, PyObject *args);
extern const char inflate_batches_doc[];
/* codec_libraries.c */
PyObject *inflatable_codecs(PyObject *module, PyObject *ignored);
extern const char inflatable_codecs_doc[];
PyObject *open_zstd(PyObject *module, PyObject *args);
extern const char open_zstd_doc[];
/* frame_batches.c */
PyObject *frame_batches(PyObject *module, PyObject *args);
extern const char frame_batches_doc[];
PyObject *crc32c_of(PyObject *module, PyObject *args);
extern const char crc32c_doc[];
uint32_t crc32c_checksum(const uint8_t *data, size_t length); /* chooses the fastest once: call with the GIL held */
/* key_tables.c */
extern PyTypeObject KeyTableType;
extern PyTypeObject OffsetTableType;

#endif
