# cython: language_level=3
"""Benchmark support (not used by the library): the move generator timed in a
native loop, as a game loop would call it. ``bench/movegen.py`` drives it."""

from libc.stdlib cimport malloc, free
from libc.stdint cimport uint64_t, int64_t

cimport cython
cimport numpy as cnp
import numpy as np

from guandan._core cimport Gen, gen_new, gen_free, MoveBuf, buf_reserve, buf_free, generate_with
from guandan._core cimport F_PATTERN

cnp.import_array()


cdef inline int _flags(bint pattern, bint wild_sf) noexcept nogil:
    return (F_PATTERN if pattern else 0)


# ---------------------------------------------------------------------------
# Benchmark support: the generator timed in a native loop
# ---------------------------------------------------------------------------

cdef extern from "<time.h>" nogil:
    ctypedef long time_t
    cdef struct timespec:
        time_t tv_sec
        long tv_nsec
    int clock_gettime(int clk_id, timespec* tp)
    enum: CLOCK_MONOTONIC


cdef inline int64_t _now_ns() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <int64_t>ts.tv_sec * 1000000000 + ts.tv_nsec


@cython.boundscheck(False)
@cython.wraparound(False)
def bench_loop(const cnp.uint8_t[:, ::1] counts, const cnp.int64_t[::1] levels,
               const cnp.uint64_t[:, ::1] last, bint pattern=False, int reps=1):
    """Generate every hand's moves ``reps`` times into one reused buffer, as a
    game loop would. Only the generator calls are timed; every move word is
    then folded into a checksum (outside the timed region) so that no work
    can be skipped. Returns ``(moves generated, checksum, seconds)``."""
    cdef Py_ssize_t n = counts.shape[0], i, f, k
    cdef int rep, rc = 0, flags = _flags(pattern, True)
    cdef int64_t t0, spent = 0, total = 0
    cdef uint64_t cs = 0
    cdef bint has_last = last.shape[0] > 0
    cdef uint64_t* one = <uint64_t*>malloc(max(n, 1) * sizeof(uint64_t))
    cdef uint64_t* two = <uint64_t*>malloc(max(n, 1) * sizeof(uint64_t))
    cdef Gen* g = gen_new()
    cdef MoveBuf buf
    buf.data = NULL
    buf.n = 0
    buf.cap = 0
    if one == NULL or two == NULL or g == NULL or buf_reserve(&buf, 1 << 15) < 0:
        free(one); free(two); gen_free(g); buf_free(&buf)
        raise MemoryError()
    with nogil:
        for i in range(n):
            one[i] = 0
            two[i] = 0
            for f in range(54):
                if counts[i, f] >= 1:
                    one[i] |= (<uint64_t>1) << f
                if counts[i, f] >= 2:
                    two[i] |= (<uint64_t>1) << f
        for rep in range(reps):
            for i in range(n):
                buf.n = 0
                t0 = _now_ns()
                if has_last:
                    rc = generate_with(g, one[i], two[i], <int>levels[i], last[i, 0], last[i, 1], flags, &buf)
                else:
                    rc = generate_with(g, one[i], two[i], <int>levels[i], 0, 0, flags, &buf)
                spent += _now_ns() - t0
                if rc < 0:
                    break
                total += buf.n
                for k in range(2 * buf.n):
                    cs = (cs ^ buf.data[k]) * <uint64_t>0x100000001B3
            if rc < 0:
                break
    free(one); free(two); gen_free(g); buf_free(&buf)
    if rc < 0:
        raise MemoryError()
    return total, cs, spent / 1e9


