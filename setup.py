"""The one build step pyproject.toml cannot say without a warning: the optional C extension.

``kcompact_nb.io.codec._native`` (kcompact_nb/io/codec/_native.c) decodes plain record batches, decompresses compressed
ones and numbers keys in C. It is optional: without a C compiler the install still succeeds and the numpy and Python
versions of the same loops run (their table: kcompact_nb/io/codec/_kernels.py). Everything else about the package is in
pyproject.toml.
"""

import sys
import tempfile

from setuptools import Extension, setup

# Build files and the egg-info go to a scratch folder, not into the source tree (a `pip install .` leaves none).
SCRATCH = tempfile.mkdtemp(prefix="kcompact_nb-build-")

setup(
    ext_modules=[
        Extension(
            "kcompact_nb.io.codec._native",
            ["kcompact_nb/io/codec/_native.c"],
            optional=True,
            extra_compile_args=["-O2"],
            # dlopen of the codecs' libraries (zlib, liblz4, libzstd) at run time: libdl before glibc 2.34
            libraries=["dl"] if sys.platform.startswith("linux") else [],
        )
    ],
    options={"build": {"build_base": SCRATCH}, "egg_info": {"egg_base": SCRATCH}},
)
