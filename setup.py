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
  GUANDAN_PORTABLE=1  no -mpopcnt, no -mbmi2. By default an x86-64 build uses
                      what its build host's processor has: the popcnt
                      instruction (x86-64-v2: every x86-64 processor since
                      2008-2009; -mpopcnt: card counts are a popcount, and the
                      solver counts cards at every node), and BMI2's pext
                      where it runs in one step (Intel from Haswell, 2013;
                      AMD from Zen 3, 2020; the solver, the expert and the
                      move generator are built with -mbmi2
                      -DGUANDAN_FAST_PEXT: the solver's rank-free keys squeeze
                      each hand with one instruction, the hand tables spread
                      and gather nibbles with one). A binary built so stops
                      with "illegal instruction" on a processor without them
                      (the generator is in nearly every path): build wheels
                      for other machines with GUANDAN_PORTABLE=1 (then a
                      popcount is a few shifts and adds, no library call, and
                      the squeeze a few more).

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


def _host_cpu():
    """What this x86-64 build host's processor offers the build, as its
    operating system reports it: ``popcnt`` (the instruction) and
    ``fast_pext`` (BMI2's pext in one step: Intel, and AMD from Zen 3 -
    family 0x19 - on; AMD's earlier BMI2 processors, Zen 1/2 and Hygon
    among them, run it in microcode, dozens of times slower). Both False
    when it cannot be read or on other processors."""
    import platform
    import subprocess
    out = {"popcnt": False, "fast_pext": False}
    if platform.machine().lower() not in ("x86_64", "amd64") or sys.platform == "win32":
        return out
    if "arm64" in os.environ.get("ARCHFLAGS", ""):
        return out                  # a macOS cross or universal2 build: not only for this host
    flags, vendor, family = set(), "", 0
    try:
        if sys.platform.startswith("linux"):
            with open("/proc/cpuinfo") as f:
                for line in f:
                    key, _, value = line.partition(":")
                    key = key.strip()
                    if key == "flags" and not flags:
                        flags = set(value.split())
                    elif key == "vendor_id" and not vendor:
                        vendor = value.strip()
                    elif key == "cpu family" and not family:
                        family = int(value.strip() or 0)
        elif sys.platform == "darwin":
            def sysctl(name):
                return subprocess.run(["sysctl", "-n", name], capture_output=True, text=True,
                                      timeout=10).stdout
            flags = {x.lower() for x in (sysctl("machdep.cpu.features") + " "
                                         + sysctl("machdep.cpu.leaf7_features")).split()}
            vendor = sysctl("machdep.cpu.vendor").strip()
    except (OSError, ValueError, subprocess.SubprocessError):
        return out
    out["popcnt"] = "popcnt" in flags
    out["fast_pext"] = "bmi2" in flags and (
        vendor == "GenuineIntel" or (vendor == "AuthenticAMD" and family >= 0x19))
    return out


SANITIZE = _flag("GUANDAN_SANITIZE")
DEBUG = _flag("GUANDAN_DEBUG") or SANITIZE          # the sanitizer build keeps the debug checks
NATIVE = _flag("GUANDAN_NATIVE") and not DEBUG
HOST = {"popcnt": False, "fast_pext": False} if _flag("GUANDAN_PORTABLE") else _host_cpu()
POPCNT = not NATIVE and HOST["popcnt"]
PEXT = HOST["fast_pext"]

if SANITIZE:
    MODE = "sanitize"
elif DEBUG:
    MODE = "debug"
else:
    MODE = "release-native" if NATIVE else "release"
if POPCNT:
    MODE += "-popcnt"                # its own objects, never mixed with a portable build's
if PEXT:
    MODE += "-pext"

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
    # float arithmetic as written (no fused multiply-add where -march allows
    # it): the native networks give the same values on every machine
    cflags.append("-ffp-contract=off")
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
    c, m = list(cflags), list(macros)
    if PEXT and name in ("_solve", "_expert", "_gen"):
        # the solver's rank-free keys squeeze each hand with one pext (bits.h
        # gd_squeeze4); the expert's hand tables and the generator's set-up
        # spread and gather nibbles with pdep / pext (gd_nibble_bytes,
        # gd_nibble_bit0s)
        m.append(("GUANDAN_FAST_PEXT", None))
        if not NATIVE:
            c.append("-mbmi2")
    return Extension(
        f"guandan.{name}",
        [f"src/guandan/{name}.pyx"],
        include_dirs=[np.get_include(), "src/guandan"],
        define_macros=m,
        extra_compile_args=c,
        extra_link_args=ldflags,
    )


MODULES = ["_gen", "_core", "_contest", "_engine", "_sim", "_vec", "_bench", "_expert", "_solve", "_search"]
CYTHON_DIR = os.path.join("build", f"cython-{MODE}")   # generated C per build mode


def _inputs_hash(module):
    """What a module's generated C depends on, by content: its .pyx, the
    shared .pxd/.h files, the Cython and numpy versions, the directives,
    the mode and the module's macros and compiler flags. pip builds in a
    fresh isolated environment each time, so Cython's own check (file
    times, including the build environment's freshly installed numpy and
    libc .pxd files) would translate and compile everything again on every
    install; by content, a second `pip install`
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
    e = ext(module)            # its macros and flags: a change to them compiles it again
    h.update(repr((e.define_macros, e.extra_compile_args)).encode())
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
