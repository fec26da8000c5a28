# cython: language_level=3
"""C-level interface of the move generator (``_gen.pyx``), for the other
native modules to cimport: the move word and its fields, the rank and bomb
orders, classification, generation and comparison.

A card set (a hand, or the cards of a move) is two 64-bit words:
``one`` has bit ``f`` set when face ``f`` is present at least once and
``two`` when it is present twice. Face ``f = rank*4 + suit`` for ranks
2..A (0..12) and suits S H C D (0..3); 52 is the small joker, 53 the big one.

A move is 16 bytes, the same two words with a tag in bits 56..63:
``lo = one | type << 56`` and ``hi = two | key << 56`` (see ``_gen.pyx``).
"""

from libc.stdint cimport uint8_t, uint32_t, uint64_t, int64_t

cdef extern from "bits.h":
    int gd_ctz64(unsigned long long x) noexcept nogil
    int gd_popcount64(unsigned long long x) noexcept nogil
    void gd_squeeze4(uint64_t* v, uint64_t m) noexcept nogil
    void gd_prefetch(const void* p) noexcept nogil
    void gd_compiler_barrier() noexcept nogil
    uint64_t gd_nibble_bytes(uint64_t x) noexcept nogil
    uint32_t gd_nibble_bit0s(uint64_t x) noexcept nogil
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
    F_SETUP_CACHE = 4     # reuse the set-up of a hand seen in the last calls (a loop asking the same seats again)

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

# The one definition of the rank and bomb orders (inline in every module).
cdef inline int card_count(uint64_t one, uint64_t two) noexcept nogil:
    return gd_popcount64(one & FACE_MASK) + gd_popcount64(two & FACE_MASK)

cdef inline int move_size(uint64_t lo, uint64_t hi) noexcept nogil:
    return card_count(lo, hi)

cdef inline int rank_strength(int rank, int level) noexcept nogil:
    """Level order of a rank-keyed key: 2..A, level rank above A, SB, HR."""
    if rank == level:
        return 13
    if rank >= 13:
        return rank + 1
    return rank

cdef inline uint32_t types_of_size(int n) noexcept nogil:
    """The move types (bit t) a play of exactly ``n`` cards may have (1..10)."""
    if n == 1:
        return (<uint32_t>1) << T_SINGLE
    if n == 2:
        return (<uint32_t>1) << T_PAIR
    if n == 3:
        return (<uint32_t>1) << T_TRIPS
    if n == 4:
        return ((<uint32_t>1) << T_BOMB) | ((<uint32_t>1) << T_JOKER_BOMB)
    if n == 5:
        return (((<uint32_t>1) << T_THREE_WITH_TWO) | ((<uint32_t>1) << T_STRAIGHT)
                | ((<uint32_t>1) << T_STRAIGHT_FLUSH) | ((<uint32_t>1) << T_BOMB))
    if n == 6:
        return ((<uint32_t>1) << T_THREE_PAIR) | ((<uint32_t>1) << T_TWO_TRIPS) | ((<uint32_t>1) << T_BOMB)
    return (<uint32_t>1) << T_BOMB

cdef inline bint may_be_bomb(uint64_t one, uint64_t two, int level) noexcept nogil:
    """False when the cards cannot all be one bomb (of a rank, or the four
    jokers): apart from the wild cards they span two ranks or more, or mix
    jokers with other cards. A quick test that rules out, not a reading:
    True does not mean they are a bomb."""
    cdef uint64_t cards = (one | two) & FACE_MASK
    cdef uint64_t nat = cards & ~((<uint64_t>1) << (4 * level + 1)) & ((<uint64_t>1 << 52) - 1)
    if cards >> 52:
        return cards == (cards & ((<uint64_t>3) << 52))
    return gd_popcount64((nat | (nat >> 1) | (nat >> 2) | (nat >> 3)) & <uint64_t>0x1111111111111) <= 1

cdef inline bint is_bomb_type(int t) noexcept nogil:
    return t == T_BOMB or t == T_STRAIGHT_FLUSH or t == T_JOKER_BOMB

cdef inline bint is_seq_type(int t) noexcept nogil:
    return t == T_STRAIGHT or t == T_STRAIGHT_FLUSH or t == T_THREE_PAIR or t == T_TWO_TRIPS

cdef inline int bomb_value(int t, int key, int size, int level) noexcept nogil:
    """Total order of bombs: 4 < 5 < straight flush < 6 < ... < 10 < jokers."""
    if t == T_JOKER_BOMB:
        return 8 * 16
    if t == T_STRAIGHT_FLUSH:
        return 2 * 16 + key
    if size == 4:
        return rank_strength(key, level)
    if size == 5:
        return 16 + rank_strength(key, level)
    return (size - 3) * 16 + rank_strength(key, level)

cdef inline int key_strength(int t, int key, int level) noexcept nogil:
    if is_seq_type(t):
        return key
    return rank_strength(key, level)

from guandan._movebuf cimport MoveBuf    # a growable array of move words

# The generator's scratch state is opaque outside _gen.pyx (its layout is
# private to it): take one with gen_new, give it back with gen_free, and
# pass it to generate_with.
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
# generate_with over n hands given as 54 card counts each (the batch entry
# point of _core): off[i + 1] = out.n after hand i
cdef int generate_batch(Gen* g, const uint8_t* counts, const int64_t* levels,
                        const uint64_t* last, bint has_last, Py_ssize_t n, int flags,
                        MoveBuf* out, int64_t* off) noexcept nogil
# generate_with restricted to the move types of the bit mask ``types`` (bit
# t: type t; 0: the set-up alone): the profiling hook of _bench.phase_times
cdef int generate_types(Gen* g, uint64_t one, uint64_t two, int level,
                        uint64_t last_lo, uint64_t last_hi, int flags, uint32_t types,
                        MoveBuf* out) noexcept nogil
cdef int classify_into(uint64_t one, uint64_t two, int level, int flags,
                       MoveBuf* out) noexcept nogil
# True only when no play of the hand (one, two) beats the play (top_lo,
# top_hi) at ``level``; False when one may (generate to know)
cdef bint cannot_beat(uint64_t one, uint64_t two, int level, uint64_t top_lo,
                      uint64_t top_hi) noexcept nogil
cdef bint beats(uint64_t a_lo, uint64_t a_hi, uint64_t b_lo, uint64_t b_hi,
                int level) noexcept nogil
# the rank index of natural position pos (0 = ace-low, 13 = ace-high)
cdef int rank_at_position(int pos) noexcept nogil
cdef int words_shape_ok(uint64_t lo, uint64_t hi, int level) noexcept nogil
