/*
 * kcompact_nb.record._native: the C kernels' one module, its table of every unit's exports (kernels.h says which
 * unit does what). setup.py lists the units it is built from.
 */
#include "kernels.h"

static PyMethodDef module_methods[] = {
    {"decode_plain", decode_plain, METH_VARARGS, decode_plain_doc},
    {"records_section", records_section, METH_VARARGS, records_section_doc},
    {"records_size", records_size, METH_VARARGS, records_size_doc},
    {"placed_records_section", placed_records_section, METH_VARARGS, placed_records_section_doc},
    {"placed_batches", placed_batches, METH_VARARGS, placed_batches_doc},
    {"snappy_compress", snappy_compress, METH_VARARGS, snappy_compress_doc},
    {"inflate_batches", inflate_batches, METH_VARARGS, inflate_batches_doc},
    {"inflatable_codecs", inflatable_codecs, METH_NOARGS, inflatable_codecs_doc},
    {"open_zstd", open_zstd, METH_VARARGS, open_zstd_doc},
    {"frame_batches", frame_batches, METH_VARARGS, frame_batches_doc},
    {"crc32c", crc32c_of, METH_VARARGS, crc32c_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "kcompact_nb.record._native",
    .m_doc = PyDoc_STR("The record format's hot loops and the offset map's table in C (kcompact_nb/record/c/)."),
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
