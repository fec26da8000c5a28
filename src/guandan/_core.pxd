# cython: language_level=3
"""C-level interface of the native core, for other .pyx modules to cimport.

A card set (a hand, or the cards of a move) is two 64-bit words:
``one`` has bit ``f`` set when face ``f`` is present at least once and
``two`` when it is present twice. Face ``f = rank*4 + suit`` for ranks
2..A (0..12) and suits S H C D (0..3); 52 is the small joker, 53 the big one.

A move is 16 bytes, the same two words with a tag in bits 56..63:
``lo = one | type << 56`` and ``hi = two | key << 56`` (see ``_core.pyx``).
"""

from libc.stdint cimport uint8_t, uint32_t, uint64_t, int64_t

cdef extern from "bits.h":
    int gd_ctz64(unsigned long long x) noexcept nogil
    int gd_popcount64(unsigned long long x) noexcept nogil
    void gd_squeeze4(uint64_t* v, uint64_t m) noexcept nogil
    void gd_prefetch(const void* p) noexcept nogil
    const uint64_t FACE_MASK "GD_FACE_MASK"      # bits 0..53: the faces
    uint64_t mix_seed "gd_mix_seed"(uint64_t a, uint64_t b) noexcept nogil

cdef enum:
    T_PASS = 0
    T_SINGLE = 1
    T_PAIR = 2
    T_TRIPS = 3
    T_THREE_PAIR = 4
    T_THREE_WITH_TWO = 5
    T_TWO_TRIPS = 6
    T_STRAIGHT = 7
    T_STRAIGHT_FLUSH = 8
    T_BOMB = 9
    T_JOKER_BOMB = 10
    T_TRIBUTE = 11
    T_BACK = 12

cdef enum:
    F_PATTERN = 1         # suit-merged pattern mode
    F_NO_WILD_SF = 2      # variant: a wild may not complete a straight flush

cdef enum:
    TAG_SHIFT = 56        # type (in lo) and key (in hi) live in bits 56..63

# The one definition of the move word's fields, for every native module.
cdef inline int move_type(uint64_t lo) noexcept nogil:
    return <int>((lo >> TAG_SHIFT) & 15)

cdef inline int move_key(uint64_t hi) noexcept nogil:
    return <int>((hi >> TAG_SHIFT) & 31)

cdef inline uint64_t move_once(uint64_t lo) noexcept nogil:
    """The faces the move uses at least once."""
    return lo & FACE_MASK

cdef inline uint64_t move_twice(uint64_t hi) noexcept nogil:
    """The faces the move uses twice."""
    return hi & FACE_MASK

cdef inline void hand_minus(uint64_t* one, uint64_t* two, uint64_t mo, uint64_t mt) noexcept nogil:
    """A hand (faces held at least once, twice) minus the cards of a move it
    holds (faces used at least once ``mo``, twice ``mt``)."""
    cdef uint64_t o = one[0], t = two[0]
    one[0] = (o & ~mo) | (t & mo & ~mt)
    two[0] = t & ~mo

from guandan._movebuf cimport MoveBuf    # a growable array of move words

# The generator's scratch state is opaque outside _core (its layout is in
# _gen.pxd, cimported by _core.pyx only): take one with gen_new, give it back
# with gen_free, and pass it to generate_with.
cdef extern from *:
    """
    struct gd_gen;
    """
    ctypedef struct Gen "struct gd_gen":
        pass

cdef Gen* gen_new() noexcept nogil
cdef void gen_free(Gen* g) noexcept nogil


cdef int buf_reserve(MoveBuf* b, Py_ssize_t extra) noexcept nogil
cdef void buf_free(MoveBuf* b) noexcept nogil

cdef int generate_with(Gen* g, uint64_t one, uint64_t two, int level,
                       uint64_t last_lo, uint64_t last_hi, int flags,
                       MoveBuf* out) noexcept nogil
cdef bint beats(uint64_t a_lo, uint64_t a_hi, uint64_t b_lo, uint64_t b_hi,
                int level) noexcept nogil
cdef int move_size(uint64_t lo, uint64_t hi) noexcept nogil
cdef int card_count(uint64_t one, uint64_t two) noexcept nogil
cdef int rank_strength(int rank, int level) noexcept nogil
cdef bint is_bomb_type(int t) noexcept nogil
cdef int bomb_value(int t, int key, int size, int level) noexcept nogil
cdef int key_strength(int t, int key, int level) noexcept nogil
cdef int words_shape_ok(uint64_t lo, uint64_t hi, int level) noexcept nogil

cdef class Hand:
    cdef uint64_t one
    cdef uint64_t two

cdef class MoveList:
    cdef MoveBuf buf
    cdef int _level
    cdef object _move(self, Py_ssize_t i)
    cpdef tuple raw(self, object i)

# an ndarray argument checked for dtype, dimensions, columns and C order
# (ValueError otherwise): the batch entry points of _core and _bench
cdef object c_array(object a, object dtype, int ndim, Py_ssize_t cols, str name)
