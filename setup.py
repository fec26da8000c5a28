"""Build the native core.

Environment switches:
  GUANDAN_DEBUG=1     build with bounds checks, wraparound checks and assertions on
                      (-O0 -g); CI runs the test suite once against this build.
  GUANDAN_SANITIZE=1  AddressSanitizer + UndefinedBehaviorSanitizer build
                      (-fsanitize=address,undefined -fno-omit-frame-pointer -O1 -g,
                      plus the debug build's checks). Python itself is not
                      instrumented, so run it through .ci/sanitize-python (it
                      preloads libasan/libubsan and sets ASAN_OPTIONS/UBSAN_OPTIONS).
  GUANDAN_NATIVE=1    add -march=native (faster popcount etc.; not portable).

Every build mode has its own directories (generated C in build/cython-MODE,
objects and built extensions in build/MODE), so switching modes never reuses
another mode's objects, while rebuilding the same mode reuses its own.
"""
import os
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup


def _flag(name):
    return os.environ.get(name, "") not in ("", "0")


SANITIZE = _flag("GUANDAN_SANITIZE")
DEBUG = _flag("GUANDAN_DEBUG") or SANITIZE          # the sanitizer build keeps the debug checks
NATIVE = _flag("GUANDAN_NATIVE") and not DEBUG

if SANITIZE:
    MODE = "sanitize"
elif DEBUG:
    MODE = "debug"
else:
    MODE = "release-native" if NATIVE else "release"

SANITIZE_FLAGS = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"]

if sys.platform == "win32":
    if SANITIZE:
        raise SystemExit("GUANDAN_SANITIZE is supported with gcc/clang only")
    cflags = ["/O2"]
    ldflags = []
elif SANITIZE:
    cflags = SANITIZE_FLAGS + ["-O1", "-g"]
    ldflags = list(SANITIZE_FLAGS)
else:
    cflags = ["-O0", "-g"] if DEBUG else ["-O3"]
    if NATIVE:
        cflags.append("-march=native")
    ldflags = []
if sys.platform != "win32":
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
        extra_link_args=ldflags,
    )


setup(
    ext_modules=cythonize(
        [ext("_core"), ext("_engine"), ext("_sim"), ext("_vec"), ext("_bench"), ext("_expert")],
        compiler_directives=directives,
        include_path=["src"],
        annotate=_flag("GUANDAN_ANNOTATE"),
        # generated C per build mode, so a debug build never leaks into a release one
        build_dir=os.path.join("build", f"cython-{MODE}"),
    ),
    options={
        # objects (build/MODE/temp.*) and built extensions (build/MODE/lib.*) per mode too:
        # setuptools skips an extension whose built .so is newer than its C source, which
        # with one shared build/lib.* would ship the previous mode's binary
        "build": {"build_base": os.path.join("build", MODE)},
        # compile the three extensions in parallel (pip install runs build_ext without -j)
        "build_ext": {"parallel": min(3, os.cpu_count() or 1)},
    },
)
