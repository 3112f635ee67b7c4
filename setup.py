"""The one build step pyproject.toml cannot say without a warning: the optional C extension.

``kcompact_nb.record._native`` (kcompact_nb/record/c/, one unit per job: kernels.h says which) frames and CRC-checks
batches, decodes plain record batches, decompresses compressed ones, numbers keys, encodes records and compresses
snappy in C. It is optional: without a C compiler the install still succeeds and the numpy and Python versions of the
same loops run (their table: kcompact_nb/record/_kernels.py). Everything else about the package is in pyproject.toml.
"""

import sys
import tempfile
from pathlib import Path

from setuptools import Extension, setup

# Build files and the egg-info go to a scratch folder, not into the source tree (a `pip install .` leaves none).
SCRATCH = tempfile.mkdtemp(prefix="kcompact_nb-build-")
C_UNITS = sorted(str(path) for path in Path("kcompact_nb/record/c").glob("*.c"))
"""Every unit of the extension (module.c holds the module's table; the Makefile rebuilds when one changes)."""

setup(
    ext_modules=[
        Extension(
            "kcompact_nb.record._native",
            C_UNITS,
            depends=sorted(str(path) for path in Path("kcompact_nb/record/c").glob("*.h")),
            optional=True,
            extra_compile_args=["-O2"],
            # dlopen of the codecs' libraries (zlib, liblz4, libzstd) at run time, and inflate_batches' second thread:
            # libdl and libpthread before glibc 2.34
            libraries=["dl", "pthread"] if sys.platform.startswith("linux") else [],
        )
    ],
    options={"build": {"build_base": SCRATCH}, "egg_info": {"egg_base": SCRATCH}},
)
