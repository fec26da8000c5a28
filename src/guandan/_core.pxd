# cython: language_level=3
"""C-level interface of the generator's Python front (``_core.pyx``): the
:class:`Hand` and :class:`MoveList` objects other native modules take and
return. The generator itself (move words, classification, generation,
comparison) is cimported from ``_gen.pxd``."""

from libc.stdint cimport uint64_t
from guandan._movebuf cimport MoveBuf

cdef class Hand:
    cdef uint64_t one
    cdef uint64_t two

cdef class MoveList:
    cdef MoveBuf buf
    cdef int _level
    cdef object _move(self, Py_ssize_t i)
    cpdef tuple raw(self, object i)

# an ndarray argument checked for dtype, dimensions, columns and C order
# (ValueError otherwise): the batch entry points of _core, _sim and _bench
cdef object c_array(object a, object dtype, int ndim, Py_ssize_t cols, str name)
