"""Build the native core.

Environment switches:
  GUANDAN_DEBUG=1     build with bounds checks, wraparound checks and assertions on
                      (-O0 -g); CI runs the test suite once against this build.
  GUANDAN_SANITIZE=1  AddressSanitizer + UndefinedBehaviorSanitizer build
                      (-fsanitize=address,undefined -fno-omit-frame-pointer -O1 -g,
                      plus the debug build's checks). Python itself is not
                      instrumented, so run it through .ci/sanitize-python (it
                      preloads libasan/libubsan and sets ASAN_OPTIONS/UBSAN_OPTIONS).
  GUANDAN_NATIVE=1    add -march=native (pext, tzcnt, ...; not portable).
  GUANDAN_PORTABLE=1  no -mpopcnt. By default an x86-64 build whose build host
                      has the popcnt instruction (x86-64-v2: every x86-64
                      processor since 2008-2009) uses it (-mpopcnt): card
                      counts are a popcount, and the solver counts cards at
                      every node. A binary built so stops with "illegal
                      instruction" on an older processor: build wheels for
                      other machines with GUANDAN_PORTABLE=1 (then a
                      popcount is a few shifts and adds, no library call).

Every build mode has its own directories (generated C in build/cython-MODE,
objects and built extensions in build/MODE), so switching modes never reuses
another mode's objects, while rebuilding the same mode reuses its own.
"""
import hashlib
import os
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup


def _flag(name):
    return os.environ.get(name, "") not in ("", "0")


def _host_has_popcnt():
    """Whether this is an x86-64 build host whose processor has popcnt (as
    its operating system reports it; False when that cannot be read)."""
    import platform
    import subprocess
    if platform.machine().lower() not in ("x86_64", "amd64") or sys.platform == "win32":
        return False
    try:
        if sys.platform.startswith("linux"):
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("flags"):
                        return "popcnt" in line.split(":", 1)[1].split()
        elif sys.platform == "darwin":
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.features"], capture_output=True,
                                 text=True, timeout=10).stdout
            return "POPCNT" in out.split()
    except (OSError, subprocess.SubprocessError):
        pass
    return False


SANITIZE = _flag("GUANDAN_SANITIZE")
DEBUG = _flag("GUANDAN_DEBUG") or SANITIZE          # the sanitizer build keeps the debug checks
NATIVE = _flag("GUANDAN_NATIVE") and not DEBUG
POPCNT = not NATIVE and not _flag("GUANDAN_PORTABLE") and _host_has_popcnt()

if SANITIZE:
    MODE = "sanitize"
elif DEBUG:
    MODE = "debug"
else:
    MODE = "release-native" if NATIVE else "release"
if POPCNT:
    MODE += "-popcnt"                # its own objects, never mixed with a portable build's

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
    # -g0 in release builds: Python's own CFLAGS carry -g, and debug info for
    # the generated C is a quarter of the compile time
    cflags = ["-O0", "-g"] if DEBUG else ["-O3", "-g0"]
    if NATIVE:
        cflags.append("-march=native")
    ldflags = []
if POPCNT:
    cflags.append("-mpopcnt")
if sys.platform != "win32":
    cflags.append("-Wno-unreachable-code")
    # the solver's threads (gdthread.h); part of libc on recent glibc, a
    # separate library on older systems
    cflags.append("-pthread")
    ldflags.append("-pthread")

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


MODULES = ["_core", "_engine", "_sim", "_vec", "_bench", "_expert", "_solve", "_search"]
CYTHON_DIR = os.path.join("build", f"cython-{MODE}")   # generated C per build mode


def _inputs_hash(module):
    """What a module's generated C depends on, by content: its .pyx, the
    shared .pxd/.h files, the Cython and numpy versions, the directives and
    the mode. pip builds in a fresh isolated environment each time, so
    Cython's own check (file times, including the build environment's freshly
    installed numpy and libc .pxd files) would translate and compile
    everything again on every install; by content, a second `pip install`
    reuses the first one's C and objects, and an edit rebuilds only what it
    touches."""
    import Cython
    h = hashlib.sha256()
    for name in sorted(os.listdir(os.path.join("src", "guandan"))):
        if name == f"{module}.pyx" or name.endswith((".pxd", ".h")):
            h.update(name.encode())
            with open(os.path.join("src", "guandan", name), "rb") as f:
                h.update(f.read())
    h.update(repr((Cython.__version__, np.__version__, sorted(directives.items()), MODE,
                   sys.version_info[:2], _flag("GUANDAN_ANNOTATE"))).encode())
    return h.hexdigest()


def extensions():
    out, stale, stamps = [], [], []
    for m in MODULES:
        c_file = os.path.join(CYTHON_DIR, "src", "guandan", f"{m}.c")
        stamp, digest = c_file + ".sha256", _inputs_hash(m)
        try:
            with open(stamp) as f:
                fresh = f.read().strip() == digest and os.path.exists(c_file)
        except OSError:
            fresh = False
        e = ext(m)
        if fresh:
            e.sources = [c_file]          # the C is current: reuse it (and so its object)
            out.append(e)
        else:
            stale.append(e)
            stamps.append((stamp, digest))
    if stale:
        out += cythonize(
            stale,
            compiler_directives=directives,
            include_path=["src"],
            annotate=_flag("GUANDAN_ANNOTATE"),
            nthreads=os.cpu_count() or 1,     # Cython translates the modules in parallel too
            build_dir=CYTHON_DIR,             # so a debug build never leaks into a release one
            force=True,                       # the content stamps decided what is stale
        )
        for stamp, digest in stamps:
            with open(stamp, "w") as f:
                f.write(digest)
    return sorted(out, key=lambda e: MODULES.index(e.name.split(".")[-1]))


setup(
    ext_modules=extensions(),
    options={
        # objects (build/MODE/temp.*) and built extensions (build/MODE/lib.*) per mode too:
        # setuptools skips an extension whose built .so is newer than its C source, which
        # with one shared build/lib.* would ship the previous mode's binary
        "build": {"build_base": os.path.join("build", MODE)},
        # compile the extensions in parallel (pip install runs build_ext without -j)
        "build_ext": {"parallel": os.cpu_count() or 1},
    },
)
