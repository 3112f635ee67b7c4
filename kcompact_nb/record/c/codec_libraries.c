/* codec_libraries: zlib, liblz4 and libzstd opened at run time (codec_libraries.h), and what Python asks of them. */
#include "codec_libraries.h"

CodecLibraries codec_libraries;
int codec_ready[CODE_ZSTD + 1];
static int libraries_opened;

#define ZSTD_SYMBOL_COUNT 6
static const char *const zstd_symbols[ZSTD_SYMBOL_COUNT] = {
    "ZSTD_createDCtx", "ZSTD_freeDCtx", "ZSTD_DCtx_reset", "ZSTD_decompressStream", "ZSTD_isError", "ZSTD_versionNumber"};
const Zstd *zstd_in_use;
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
    codec_ready[CODE_GZIP] = open_library(zlib_names, zlib_symbols, (void **)&codec_libraries.inflateInit2_, 5);
    codec_ready[CODE_LZ4] = open_library(lz4_names, lz4_symbols, (void **)&codec_libraries.LZ4F_createDecompressionContext, 5);
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

void
open_libraries_once(void)
{
    if (!libraries_opened) {
        codec_ready[CODE_SNAPPY] = 1;
        open_libraries();
        libraries_opened = 1;
    }
}


const char inflatable_codecs_doc[] = PyDoc_STR(
"inflatable_codecs() -> tuple[str, ...]\n"
"--\n\n"
"The codecs inflate_batches decompresses here: snappy always, gzip, lz4 and zstd when their library opened.");

PyObject *
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

const char open_zstd_doc[] = PyDoc_STR(
"open_zstd(path) -> int\n"
"--\n\n"
"The libzstd at path (a str) used by inflate_batches from now on instead of the one it used; returns its\n"
"ZSTD_versionNumber() (major * 10000 + minor * 100 + patch). OSError when it does not open or lacks a function\n"
"(the library in use is kept).");

PyObject *
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

