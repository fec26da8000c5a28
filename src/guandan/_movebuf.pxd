# cython: language_level=3
"""A growable buffer of moves (two 64-bit words each), shared by the native
modules through _gen.pxd."""

from libc.stdint cimport uint64_t

ctypedef struct MoveBuf:
    uint64_t* data      # 2 words per move: lo, hi
    Py_ssize_t n
    Py_ssize_t cap
