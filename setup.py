"""Build the native core.

Environment switches:
  GUANDAN_DEBUG=1   build with bounds checks, wraparound checks and assertions on
                    (-O0 -g); CI runs the test suite once against this build.
  GUANDAN_NATIVE=1  add -march=native (faster popcount etc.; not portable).
"""
import os
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("GUANDAN_DEBUG", "") not in ("", "0")
NATIVE = os.environ.get("GUANDAN_NATIVE", "") not in ("", "0")

if sys.platform == "win32":
    cflags = ["/O2"]
else:
    cflags = ["-O0", "-g"] if DEBUG else ["-O3"]
    if NATIVE and not DEBUG:
        cflags.append("-march=native")
    cflags.append("-Wno-unreachable-code")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "embedsignature": True,
}

macros = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
if not DEBUG:
    macros.append(("NDEBUG", None))


def ext(name):
    return Extension(
        f"guandan.{name}",
        [f"src/guandan/{name}.pyx"],
        include_dirs=[np.get_include(), "src/guandan"],
        define_macros=macros,
        extra_compile_args=cflags,
    )


setup(
    ext_modules=cythonize(
        [ext("_core"), ext("_engine"), ext("_sim")],
        compiler_directives=directives,
        include_path=["src"],
        annotate=os.environ.get("GUANDAN_ANNOTATE", "") not in ("", "0"),
        # generated C per build mode, so a debug build never leaks into a release one
        build_dir=os.path.join("build", "cython-debug" if DEBUG else "cython-release"),
    ),
)
