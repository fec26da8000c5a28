# cython: language_level=3
"""Benchmark and profiling support (not used by the library): the move
generator timed in a native loop, as a game loop would call it, and per move
type (:func:`phase_times`). ``bench/movegen.py`` drives it."""

from libc.stdlib cimport malloc, free
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int64_t

cimport cython
cimport numpy as cnp
import numpy as np

from guandan._gen cimport (
    Gen, gen_new, gen_free, MoveBuf, buf_reserve, buf_free, generate_with, generate_types, F_PATTERN,
)
from guandan._core cimport c_array

from .errors import LevelError

cnp.import_array()


cdef inline int _flags(bint pattern, bint wild_sf) noexcept nogil:
    return (F_PATTERN if pattern else 0)


# ---------------------------------------------------------------------------
# Benchmark support: the generator timed in a native loop
# ---------------------------------------------------------------------------

cdef extern from "gdtime.h" nogil:
    long long gd_now_ns()


@cython.boundscheck(False)
@cython.wraparound(False)
def bench_loop(counts_, levels_, last_, bint pattern=False, int reps=1):
    """Generate every hand's moves ``reps`` times into one reused buffer, as a
    game loop would. Only the generator calls are timed; every move word is
    then folded into a checksum (outside the timed region) so that no work
    can be skipped. Returns ``(moves generated, checksum, seconds)``."""
    counts_ = c_array(counts_, np.uint8, 2, 54, "counts")
    levels_ = c_array(levels_, np.int64, 1, 0, "levels")
    last_ = c_array(last_, np.uint64, 2, 2, "last")
    cdef Py_ssize_t n = counts_.shape[0], i, f, k
    if levels_.shape[0] != n or last_.shape[0] not in (0, n):
        raise ValueError("one level (and none or one play to beat) per hand")
    cdef const uint8_t* counts = <const uint8_t*>cnp.PyArray_DATA(counts_)
    cdef const int64_t* levels = <const int64_t*>cnp.PyArray_DATA(levels_)
    cdef const uint64_t* last = <const uint64_t*>cnp.PyArray_DATA(last_)
    cdef int _rep, rc = 0, flags = _flags(pattern, True)
    cdef int64_t t0, spent = 0, total = 0
    cdef uint64_t cs = 0
    cdef bint has_last = last_.shape[0] > 0
    cdef uint64_t* one = <uint64_t*>malloc(max(n, 1) * sizeof(uint64_t))
    cdef uint64_t* two = <uint64_t*>malloc(max(n, 1) * sizeof(uint64_t))
    cdef Gen* g = gen_new()
    cdef MoveBuf buf
    buf.data = NULL
    buf.n = 0
    buf.cap = 0
    if one == NULL or two == NULL or g == NULL or buf_reserve(&buf, 1 << 15) < 0:
        free(one)
        free(two)
        gen_free(g)
        buf_free(&buf)
        raise MemoryError()
    with nogil:
        for i in range(n):
            one[i] = 0
            two[i] = 0
            for f in range(54):
                if counts[54 * i + f] >= 1:
                    one[i] |= (<uint64_t>1) << f
                if counts[54 * i + f] >= 2:
                    two[i] |= (<uint64_t>1) << f
        for _rep in range(reps):
            for i in range(n):
                buf.n = 0
                t0 = <int64_t>gd_now_ns()
                if has_last:
                    rc = generate_with(g, one[i], two[i], <int>levels[i], last[2 * i], last[2 * i + 1], flags, &buf)
                else:
                    rc = generate_with(g, one[i], two[i], <int>levels[i], 0, 0, flags, &buf)
                spent += <int64_t>gd_now_ns() - t0
                if rc < 0:
                    break
                total += buf.n
                for k in range(2 * buf.n):
                    cs = (cs ^ buf.data[k]) * <uint64_t>0x100000001B3
            if rc < 0:
                break
    free(one)
    free(two)
    gen_free(g)
    buf_free(&buf)
    if rc < 0:
        raise MemoryError()
    return total, cs, spent / 1e9


@cython.boundscheck(False)
@cython.wraparound(False)
def ideal_loop(nmoves_, int reps=1):
    """The throwaway ideal emitter: for each hand, write ``nmoves[i]`` 16-byte
    moves (one OR and two 8-byte stores each) into one reused buffer, timed
    exactly as :func:`bench_loop` times the generator (clock reads around
    each hand; every word is then folded into a checksum outside the timed
    region). The floor the generator is measured against. Returns
    ``(moves written, checksum, seconds)``."""
    nmoves_ = c_array(nmoves_, np.int64, 1, 0, "nmoves")
    cdef Py_ssize_t n = nmoves_.shape[0], i, k, m, mx = 0
    cdef const int64_t* nm = <const int64_t*>cnp.PyArray_DATA(nmoves_)
    cdef int _rep
    cdef int64_t t0, spent = 0, total = 0
    cdef uint64_t cs = 0, base
    cdef uint64_t* p
    for i in range(n):
        if nm[i] < 0:
            raise ValueError("move counts must be >= 0")
        mx = max(mx, <Py_ssize_t>nm[i])
    cdef uint64_t* data = <uint64_t*>malloc((mx + 1) * 2 * sizeof(uint64_t))
    if data == NULL:
        raise MemoryError()
    with nogil:
        for _rep in range(reps):
            for i in range(n):
                m = <Py_ssize_t>nm[i]
                base = <uint64_t>(i + 1) << 56
                t0 = <int64_t>gd_now_ns()
                p = data
                for k in range(m):
                    p[0] = base | <uint64_t>k
                    p[1] = base
                    p += 2
                spent += <int64_t>gd_now_ns() - t0
                total += m
                for k in range(2 * m):
                    cs = (cs ^ data[k]) * <uint64_t>0x100000001B3
    free(data)
    return total, cs, spent / 1e9


@cython.boundscheck(False)
@cython.wraparound(False)
def move_counts(counts_, levels_, last_, bint pattern=False):
    """Moves generated per hand (int64 array), for :func:`ideal_loop`."""
    counts_ = c_array(counts_, np.uint8, 2, 54, "counts")
    cdef Py_ssize_t n = counts_.shape[0], i
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        tot, _, _ = bench_loop(counts_[i:i + 1], levels_[i:i + 1],
                               last_[i:i + 1] if last_.shape[0] else last_, pattern, 1)
        out[i] = tot
    return out


# ---------------------------------------------------------------------------
# Profiling support per move type (bench/movegen.py --phases, docs/profile.md)
# ---------------------------------------------------------------------------

@cython.boundscheck(False)
@cython.wraparound(False)
def phase_times(one_, two_, levels_, uint32_t types, bint pattern=False, int reps=1, last_=None):
    """Seconds and moves of generation restricted to the types of the bit
    mask ``types`` (bit t: type t; 0 = set-up only) over the hands given as
    ``one``/``two`` uint64 words and ``levels`` (int64), ``reps`` times;
    leading, or answering the rows of ``last`` (uint64 (n, 2)). Profiling
    support only."""
    one_ = c_array(one_, np.uint64, 1, 0, "one")
    two_ = c_array(two_, np.uint64, 1, 0, "two")
    levels_ = c_array(levels_, np.int64, 1, 0, "levels")
    cdef Py_ssize_t n = one_.shape[0], i
    if last_ is None:
        last_ = np.zeros((n, 2), dtype=np.uint64)
    last_ = c_array(last_, np.uint64, 2, 2, "last")
    if two_.shape[0] != n or levels_.shape[0] != n or last_.shape[0] != n:
        raise ValueError("one (one, two, level, last) per hand")
    cdef const uint64_t* last = <const uint64_t*>cnp.PyArray_DATA(last_)
    cdef const uint64_t* one = <const uint64_t*>cnp.PyArray_DATA(one_)
    cdef const uint64_t* two = <const uint64_t*>cnp.PyArray_DATA(two_)
    cdef const int64_t* levels = <const int64_t*>cnp.PyArray_DATA(levels_)
    cdef Gen* g = gen_new()
    cdef MoveBuf buf
    cdef int _rep, rc = 0
    cdef int64_t t0, spent = 0, total = 0
    cdef uint64_t cs = 0
    buf.data = NULL
    buf.n = 0
    buf.cap = 0
    if g == NULL or buf_reserve(&buf, 1 << 15) < 0:
        gen_free(g)
        buf_free(&buf)
        raise MemoryError()
    with nogil:
        for _rep in range(reps):
            for i in range(n):
                if levels[i] < 0 or levels[i] > 12:
                    rc = -2
                    break
                buf.n = 0
                t0 = <int64_t>gd_now_ns()
                rc = generate_types(g, one[i], two[i], <int>levels[i], last[2 * i], last[2 * i + 1],
                                    F_PATTERN if pattern else 0, types, &buf)
                spent += <int64_t>gd_now_ns() - t0
                if rc < 0:
                    break
                total += buf.n
                if buf.n:
                    cs ^= buf.data[2 * buf.n - 1]
            if rc < 0:
                break
    gen_free(g)
    buf_free(&buf)
    if rc == -2:
        raise LevelError("level index must be 0..12")
    if rc < 0:
        raise MemoryError()
    return spent / 1e9, total, cs
