# cython: language_level=3
"""Native core: the bitboard card set, move generation, classification and
comparison of Guandan plays.

Card sets
---------
Two 64-bit words per card set: ``one`` (faces held at least once) and ``two``
(faces held twice). Face ``f = rank*4 + suit``, ranks 2..A = 0..12 in natural
order, suits S H C D = 0..3; 52 = small joker (SB), 53 = big joker (HR).
A rank's four suits are one nibble, so everything about one rank is an 8-bit
*state* ``one_nibble | two_nibble << 4`` (256 states).

Moves
-----
A move is 16 bytes: ``lo = one | type << 56`` and ``hi = two | key << 56``,
where ``one``/``two`` are the move's cards (wild cards under their real face,
the heart of the level rank) and ``key`` is

* a rank index 0..12 (2..A), 13 (small joker) or 14 (big joker) for singles,
  pairs, triples, full houses (the triple) and bombs; 15 for the joker bomb;
* the position of the lowest card in natural order for sequences (straight,
  straight flush, tube, plate): 0 = ace-low, 1 = 2, ..., 12 = K.

Generation never looks at suits in its inner loops: per rank and count it
walks a table of the distinct sub-multisets of that rank's state (``SUB_*``),
and wild cards are a count (0..2) added as bits at emission.
"""

from guandan._gen cimport GenImpl, OPTMAX, SLACK
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset, memcpy
from libc.stdint cimport int8_t, uint8_t, uint16_t, uint32_t, uint64_t, int64_t

cimport cython
cimport numpy as cnp
import numpy as np
import operator

from .errors import (
    UnknownCardError, TooManyCopiesError, CardError, LevelError, InvalidMoveError,
)

cnp.import_array()

cdef extern from "bits.h":
    uint64_t* gd_emit_or(uint64_t* p, const uint64_t* src, Py_ssize_t n, uint64_t lo,
                         uint64_t hi) noexcept nogil

# ---------------------------------------------------------------------------
# Constants and tables
# ---------------------------------------------------------------------------

cdef int SB_FACE = 52
cdef int HR_FACE = 53
cdef int KEY_JOKER_BOMB = 15

RANK_CHARS = "23456789TJQKA"
MOVE_TAG_SHIFT = TAG_SHIFT         # move words: type (lo) / key (hi) start at this bit
MOVE_FACE_MASK = FACE_MASK         # move words: the face bits
SUIT_CHARS = "SHCD"
TYPE_NAMES = ("PASS", "Single", "Pair", "Trips", "ThreePair", "ThreeWithTwo",
              "TwoTrips", "Straight", "StraightFlush", "Bomb", "Bomb",
              "tribute", "back")

# Card strings of the 54 faces, and the reverse map.
FACE_STR = tuple([s + r for r in RANK_CHARS for s in SUIT_CHARS] + ["SB", "HR"])
cdef dict FACE_INDEX = {c: i for i, c in enumerate(FACE_STR)}

# Sub-multisets of a rank state: for state s and size k, entries
# SUB_OFF[s][k] .. SUB_OFF[s][k] + SUB_CNT[s][k] - 1 of SUB_ONE / SUB_TWO.
# Order: count vectors (cS, cH, cC, cD) in descending lexicographic order,
# i.e. the sorted suit sequences in lexicographic order (SS, SH, SC, SD, HH..).
DEF SUB_TOTAL = 20736
cdef uint8_t SUB_ONE[SUB_TOTAL + 8]      # + 8: a read of 4 entries past any list stays inside
cdef uint8_t SUB_TWO[SUB_TOTAL + 8]
cdef uint16_t SUB_OFF[256][9]
cdef uint8_t SUB_CNT[256][9]
cdef uint8_t NIB_CNT[16]


cdef void _build_tables() noexcept:
    cdef int s, k, o, t, cS, cH, cC, cD, idx, avail0, avail1, avail2, avail3
    cdef int n = 0
    cdef int[4] avail
    cdef int[4] c
    for s in range(16):
        NIB_CNT[s] = (s & 1) + ((s >> 1) & 1) + ((s >> 2) & 1) + ((s >> 3) & 1)
    for s in range(256):
        o = s & 15
        t = s >> 4
        for k in range(9):
            SUB_OFF[s][k] = n
            SUB_CNT[s][k] = 0
            if (t & ~o) != 0:
                continue        # invalid state: two copies without one
            for idx in range(4):
                avail[idx] = ((o >> idx) & 1) + ((t >> idx) & 1)
            for cS in range(avail[0], -1, -1):
                for cH in range(avail[1], -1, -1):
                    for cC in range(avail[2], -1, -1):
                        cD = k - cS - cH - cC
                        if cD < 0 or cD > avail[3]:
                            continue
                        c[0] = cS; c[1] = cH; c[2] = cC; c[3] = cD
                        SUB_ONE[n] = 0
                        SUB_TWO[n] = 0
                        for idx in range(4):
                            if c[idx] >= 1:
                                SUB_ONE[n] |= (1 << idx)
                            if c[idx] == 2:
                                SUB_TWO[n] |= (1 << idx)
                        n += 1
                        SUB_CNT[s][k] += 1

_build_tables()

# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------

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


cdef int SEQ_RANK[16]
cdef int _q
for _q in range(16):
    SEQ_RANK[_q] = (_q + 12) % 13
cdef uint8_t POP5[32]
for _q in range(32):
    POP5[_q] = (_q & 1) + ((_q >> 1) & 1) + ((_q >> 2) & 1) + ((_q >> 3) & 1) + ((_q >> 4) & 1)


# WILD_SETS[w][need]: the sets of wild slots (slot s = bit s) that contain
# `need` and have at most w slots: fewer wilds first, then by the slots'
# positions (lexicographically: {0} < {1} < ... < {0,1} < {0,2} < ...)
cdef uint8_t WILD_SETS[3][32][16]
cdef uint8_t WILD_SETS_N[3][32]
cdef uint8_t WILD_ORDER[16]
cdef int _w, _need, _v, _m, _a, _b, _k = 0
WILD_ORDER[0] = 0
_k = 1
for _a in range(5):
    WILD_ORDER[_k] = 1 << _a
    _k += 1
for _a in range(5):
    for _b in range(_a + 1, 5):
        WILD_ORDER[_k] = (1 << _a) | (1 << _b)
        _k += 1
for _w in range(3):
    for _need in range(32):
        WILD_SETS_N[_w][_need] = 0
        for _v in range(16):
            _m = WILD_ORDER[_v]
            if (_m & _need) == _need and POP5[_m] <= _w:
                WILD_SETS[_w][_need][WILD_SETS_N[_w][_need]] = _m
                WILD_SETS_N[_w][_need] += 1


cdef inline int seq_rank(int pos) noexcept nogil:
    """Rank index of natural position pos (0 = ace-low, 13 = ace-high)."""
    return SEQ_RANK[pos]


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


cdef bint beats(uint64_t a_lo, uint64_t a_hi, uint64_t b_lo, uint64_t b_hi,
                int level) noexcept nogil:
    cdef int ta = move_type(a_lo)
    cdef int tb = move_type(b_lo)
    cdef int ka = move_key(a_hi)
    cdef int kb = move_key(b_hi)
    if ta == T_PASS or ta > T_JOKER_BOMB:
        return False
    if tb == T_PASS:
        return True
    if is_bomb_type(ta):
        if not is_bomb_type(tb):
            return True
        return (bomb_value(ta, ka, move_size(a_lo, a_hi), level)
                > bomb_value(tb, kb, move_size(b_lo, b_hi), level))
    if ta != tb:
        return False
    return key_strength(ta, ka, level) > key_strength(tb, kb, level)

# ---------------------------------------------------------------------------
# Output buffer
# ---------------------------------------------------------------------------

cdef int buf_reserve(MoveBuf* b, Py_ssize_t extra) noexcept nogil:
    cdef Py_ssize_t need = b.n + extra
    cdef Py_ssize_t cap
    cdef uint64_t* p
    if need <= b.cap:
        return 0
    cap = b.cap * 2 if b.cap > 0 else 1024
    while cap < need:
        cap *= 2
    p = <uint64_t*>realloc(b.data, <size_t>cap * 2 * sizeof(uint64_t))
    if p == NULL:
        return -1
    b.data = p
    b.cap = cap
    return 0


cdef void buf_free(MoveBuf* b) noexcept nogil:
    free(b.data)
    b.data = NULL
    b.n = 0
    b.cap = 0

# ---------------------------------------------------------------------------
# Generator state
# ---------------------------------------------------------------------------

cdef inline uint64_t tag_lo(int t) noexcept nogil:
    return (<uint64_t>t) << TAG_SHIFT


cdef inline uint64_t tag_hi(int key) noexcept nogil:
    return (<uint64_t>key) << TAG_SHIFT


cdef inline uint64_t _spread_nibbles(uint64_t x) noexcept nogil:
    """Nibble i of the low 32 bits of x into byte i (low half)."""
    x &= <uint64_t>0xFFFFFFFF
    x = (x | (x << 16)) & <uint64_t>0x0000FFFF0000FFFF
    x = (x | (x << 8)) & <uint64_t>0x00FF00FF00FF00FF
    return (x | (x << 4)) & <uint64_t>0x0F0F0F0F0F0F0F0F


cdef inline uint64_t _byte_popcounts(uint64_t v) noexcept nogil:
    v = v - ((v >> 1) & <uint64_t>0x5555555555555555)
    v = (v & <uint64_t>0x3333333333333333) + ((v >> 2) & <uint64_t>0x3333333333333333)
    return (v + (v >> 4)) & <uint64_t>0x0F0F0F0F0F0F0F0F


cdef inline uint32_t _gather_stride4(uint64_t x) noexcept nogil:
    """Bits 0, 4, 8, ..., 60 of x as bits 0..15."""
    x &= <uint64_t>0x1111111111111111
    x = (x | (x >> 3)) & <uint64_t>0x0303030303030303
    x = (x | (x >> 6)) & <uint64_t>0x000F000F000F000F
    x = (x | (x >> 12)) & <uint64_t>0x000000FF000000FF
    return <uint32_t>((x | (x >> 24)) & 0xFFFF)


cdef inline uint64_t _bytes_max(uint64_t a, uint64_t b) noexcept nogil:
    """Byte-wise max of a and b (bytes < 128)."""
    cdef uint64_t H = <uint64_t>0x8080808080808080
    cdef uint64_t ge = (((a | H) - b) & H) >> 7           # 1 in each byte where a >= b
    cdef uint64_t m = ge * 0xFF
    return (a & m) | (b & ~m)


cdef inline uint32_t _gather_bytes_bit0(uint64_t x) noexcept nogil:
    """Bit 0 of each byte of x as bits 0..7."""
    return <uint32_t>(((x & <uint64_t>0x0101010101010101) * <uint64_t>0x0102040810204080) >> 56)


cdef void gen_init(GenImpl* g, uint64_t one, uint64_t two, int L, int flags) noexcept nogil:
    """Per-rank states, counts and position masks of the hand, SWAR (eight
    ranks per word step, no loop over ranks, no data-dependent branch)."""
    cdef int r, maxn, w
    cdef int hb = 4 * L + 1
    cdef uint64_t hbit = (<uint64_t>1) << hb
    cdef uint64_t n1 = one & ~hbit & ((<uint64_t>1 << 52) - 1), n2 = two & ~hbit & ((<uint64_t>1 << 52) - 1)
    cdef uint64_t lo8, hi8, clo, chi, wv, ge4
    cdef uint32_t sp
    g.hone = one
    g.htwo = two
    g.L = L
    w = <int>((one >> hb) & 1) + <int>((two >> hb) & 1)
    g.w = w
    g.nsb = <int>((one >> SB_FACE) & 1) + <int>((two >> SB_FACE) & 1)
    g.nhr = <int>((one >> HR_FACE) & 1) + <int>((two >> HR_FACE) & 1)
    # nat bytes: the one nibble | the two nibble << 4, ranks 0..7 then 8..12
    lo8 = _spread_nibbles(n1) | (_spread_nibbles(n2) << 4)
    hi8 = _spread_nibbles(n1 >> 32) | (_spread_nibbles(n2 >> 32) << 4)
    memcpy(g.nat, &lo8, 8)
    memcpy(&g.nat[8], &hi8, 8)
    clo = _byte_popcounts(lo8)
    chi = _byte_popcounts(hi8)
    memcpy(g.ncnt, &clo, 8)
    memcpy(&g.ncnt[8], &chi, 8)
    # ranks with at least 4 cards counting the wilds: count + w >= 4 (bytes < 16)
    wv = <uint64_t>w * <uint64_t>0x0101010101010101
    ge4 = (((clo + wv) >> 2) | ((clo + wv) >> 3) | ((clo + wv) >> 4)) & <uint64_t>0x0101010101010101
    g.bombable = _gather_bytes_bit0(ge4)
    ge4 = (((chi + wv) >> 2) | ((chi + wv) >> 3) | ((chi + wv) >> 4)) & <uint64_t>0x0101010101010101
    g.bombable |= (_gather_bytes_bit0(ge4) & 0x1F) << 8
    # the largest count: a byte-wise max in registers (reading ncnt back
    # right after its 8-byte stores would stall store-to-load forwarding)
    clo = _bytes_max(clo, chi)
    clo = _bytes_max(clo, clo >> 32)
    clo = _bytes_max(clo, clo >> 16)
    maxn = <int>(_bytes_max(clo, clo >> 8) & 0xFF)
    # per suit, bit q = a natural card at natural position q (rank q - 1; the
    # ace also at position 0, ace-low)
    for r in range(4):
        sp = (_gather_stride4(n1 >> r) & 0x1FFF) << 1
        g.suitpos[r] = sp | ((sp >> 13) & 1)
    g.natpos = g.suitpos[0] | g.suitpos[1] | g.suitpos[2] | g.suitpos[3]
    g.maxbomb = maxn + w
    g.wone[0] = 0
    g.wtwo[0] = 0
    g.wone[1] = (<uint64_t>1) << hb
    g.wtwo[1] = 0
    g.wone[2] = (<uint64_t>1) << hb
    g.wtwo[2] = (<uint64_t>1) << hb
    g.pattern = 1 if (flags & F_PATTERN) else 0
    g.wild_sf = 0 if (flags & F_NO_WILD_SF) else 1
    g.types = 0xFFFFFFFF
    g.minkey = -1
    g.bombmin = -1
    g.bombsize = 0
    memset(g.optdone, 0, sizeof(g.optdone))


cdef void build_opts(GenImpl* g, int k, int r) noexcept nogil:
    """Slot options for k cards of rank r: j = 0..min(w, k) wilds and k - j
    naturals, j ascending (segment j: optseg[j] .. optseg[j + 1] - 1),
    naturals in SUB order, their cards interleaved (one, two) in optw; the
    wild cards are not in optw. The all-wild option (k = 2, j = 2: the empty
    sub-multiset) is included last; callers that must not use it skip it.
    k = 1 options are never pattern-filtered (straights need them whole).
    A size the rank cannot make simply has no sub-multisets (no test)."""
    cdef int j, nk, i, n = 0, off, cnt, sh = 4 * r
    cdef int st = g.nat[r]
    cdef int jmax = g.w if g.w < k else k
    cdef uint64_t* w = g.optw[k][r]
    cdef uint8_t* nw = g.optnw[k][r]
    for j in range(jmax + 1):
        g.optseg[k][r][j] = n
        nk = k - j
        off = SUB_OFF[st][nk]
        cnt = SUB_CNT[st][nk]
        if g.pattern and k > 1 and cnt > 1:
            cnt = 1
        for i in range(cnt):
            w[2 * (n + i)] = (<uint64_t>SUB_ONE[off + i]) << sh
            w[2 * (n + i) + 1] = (<uint64_t>SUB_TWO[off + i]) << sh
            nw[n + i] = j
        n += cnt
    for j in range(jmax + 1, 4):
        g.optseg[k][r][j] = n
    g.optn[k][r] = n
    g.optdone[k][r] = 1


cdef inline void ensure_opts(GenImpl* g, int k, int r) noexcept nogil:
    if not g.optdone[k][r]:
        build_opts(g, k, r)

# ---------------------------------------------------------------------------
# Rank-keyed types: singles, pairs, triples, bombs
# ---------------------------------------------------------------------------

cdef inline uint64_t _spread_to_nibbles(uint32_t x) noexcept nogil:
    """Bit i of x (i < 16) as nibble i all set."""
    cdef uint64_t y = x & 0xFFFF
    y = (y | (y << 24)) & <uint64_t>0x000000FF000000FF
    y = (y | (y << 12)) & <uint64_t>0x000F000F000F000F
    y = (y | (y << 6)) & <uint64_t>0x0303030303030303
    y = (y | (y << 3)) & <uint64_t>0x1111111111111111
    return y * 15


cdef int gen_singles(GenImpl* g) noexcept nogil:
    cdef uint64_t m = g.hone & FACE_MASK
    cdef int f, r, key, s
    cdef uint32_t seen_nat = 0, ok
    cdef uint64_t* p
    if buf_reserve(g.out, 54) < 0:
        return -1
    p = g.out.data + 2 * g.out.n
    if g.minkey >= 0:
        # only the faces whose key beats the play, as a mask (no branch per card):
        # ranks above minkey but the level rank (strength 13), then SB (14), HR (15)
        ok = (0x1FFF & ~((2u << g.minkey) - 1)) & ~(1u << g.L) if g.minkey < 13 else 0
        ok |= <uint32_t>(g.minkey < 13) << g.L
        m &= _spread_to_nibbles(ok) | (<uint64_t>(g.minkey < 14) << SB_FACE) | (
            <uint64_t>(g.minkey < 15) << HR_FACE)
    while m:
        f = gd_ctz64(m)
        m &= m - 1
        key = f >> 2 if f < 52 else f - 39      # 52 -> 13, 53 -> 14
        if g.pattern and f < 52:
            # one natural single per rank, plus the wild (level heart) apart
            if not (key == g.L and (f & 3) == 1):
                if (seen_nat >> key) & 1:
                    continue
                seen_nat |= (<uint32_t>1) << key
        p[0] = ((<uint64_t>1) << f) | tag_lo(T_SINGLE)
        p[1] = tag_hi(key)
        p += 2
    g.out.n = (p - g.out.data) >> 1
    return 0


cdef int gen_nkind(GenImpl* g, int t, int k) noexcept nogil:
    """Pairs (k=2) and triples (k=3) of every rank, then joker pairs."""
    cdef int r, i, n, key
    cdef uint64_t* p
    cdef uint64_t lt = tag_lo(t)
    cdef int j, a0, a1, jmax = g.w if g.w < k else k
    cdef uint32_t ranks = 0
    if buf_reserve(g.out, 13 * OPTMAX + 2 + SLACK) < 0:
        return -1
    p = g.out.data + 2 * g.out.n
    # the ranks with enough cards (a wild needs a natural, but at the level
    # rank) that beat the play, as a mask (no branch per rank)
    for r in range(13):
        ranks |= <uint32_t>((g.ncnt[r] + g.w >= k) & ((g.ncnt[r] != 0) | (r == g.L))
                            & (rank_strength(r, g.L) > g.minkey)) << r
    while ranks:
        r = gd_ctz64(ranks)
        ranks &= ranks - 1
        ensure_opts(g, k, r)
        for j in range(jmax + 1):
            a0 = g.optseg[k][r][j]
            a1 = g.optseg[k][r][j + 1]
            if j == 2 and k == 2 and r != g.L:
                a1 -= 1         # two wilds alone (the last option) are only the level pair
            p = gd_emit_or(p, g.optw[k][r] + 2 * a0, a1 - a0, lt | g.wone[j], tag_hi(r) | g.wtwo[j])
    if k == 2:
        if g.nsb == 2 and rank_strength(13, g.L) > g.minkey:
            p[0] = ((<uint64_t>1) << SB_FACE) | lt
            p[1] = ((<uint64_t>1) << SB_FACE) | tag_hi(13)
            p += 2
        if g.nhr == 2 and rank_strength(14, g.L) > g.minkey:
            p[0] = ((<uint64_t>1) << HR_FACE) | lt
            p[1] = ((<uint64_t>1) << HR_FACE) | tag_hi(14)
            p += 2
    g.out.n = (p - g.out.data) >> 1
    return 0


cdef int gen_bombs(GenImpl* g, int size) noexcept nogil:
    """Bombs of exactly `size` cards (4..10), every rank, natural order."""
    cdef int r, j, nk, i, off, cnt, sh, jmax
    cdef uint64_t* p
    cdef uint64_t lt = tag_lo(T_BOMB)
    cdef uint32_t ranks = 0, bomb = g.bombable
    if (g.bombsize and g.bombsize != size) or size > g.maxbomb:
        return 0
    if buf_reserve(g.out, 13 * 60) < 0:
        return -1
    p = g.out.data + 2 * g.out.n
    while bomb:                 # the ranks with enough cards that beat the play (no branch)
        r = gd_ctz64(bomb)
        bomb &= bomb - 1
        ranks |= <uint32_t>((g.ncnt[r] + g.w >= size)
                            & (bomb_value(T_BOMB, r, size, g.L) > g.bombmin)) << r
    while ranks:
        r = gd_ctz64(ranks)
        ranks &= ranks - 1
        sh = 4 * r
        # j wilds and size - j naturals (at most the rank's count, at most 8)
        j = size - g.ncnt[r]
        if j < size - 8:
            j = size - 8
        if j < 0:
            j = 0
        for j in range(j, g.w + 1):
            nk = size - j
            off = SUB_OFF[g.nat[r]][nk]
            cnt = SUB_CNT[g.nat[r]][nk]
            if g.pattern and cnt > 1:
                cnt = 1
            for i in range(cnt):
                p[0] = ((<uint64_t>SUB_ONE[off + i]) << sh) | g.wone[j] | lt
                p[1] = ((<uint64_t>SUB_TWO[off + i]) << sh) | g.wtwo[j] | tag_hi(r)
                p += 2
    g.out.n = (p - g.out.data) >> 1
    return 0


cdef int gen_joker_bomb(GenImpl* g) noexcept nogil:
    cdef uint64_t jj = ((<uint64_t>1) << SB_FACE) | ((<uint64_t>1) << HR_FACE)
    if g.bombsize and g.bombsize != 4:
        return 0
    if g.nsb == 2 and g.nhr == 2 and bomb_value(T_JOKER_BOMB, 0, 4, g.L) > g.bombmin:
        if buf_reserve(g.out, 1) < 0:
            return -1
        g.out.data[2 * g.out.n] = jj | tag_lo(T_JOKER_BOMB)
        g.out.data[2 * g.out.n + 1] = jj | tag_hi(KEY_JOKER_BOMB)
        g.out.n += 1
    return 0

# ---------------------------------------------------------------------------
# Full houses: triple options x pair list (pairs of other ranks, joker pairs,
# and the pair of two wilds, which is one move whatever rank it stands for)
# ---------------------------------------------------------------------------

cdef int gen_full_houses(GenImpl* g) noexcept nogil:
    cdef uint64_t p0w[2 * (160 + SLACK)]      # pairs of naturals, interleaved (one, two)
    cdef uint64_t p1w[2 * (64 + SLACK)]       # one natural (with one wild)
    cdef int p0s[16]
    cdef int p0e[16]
    cdef int p1s[16]
    cdef int p1e[16]
    cdef int n0 = 0, n1 = 0, r, i, t, nw, rem, a, cnt, st, sh, off
    cdef uint64_t lo, hi, bl, bh
    cdef uint64_t* p
    cdef uint64_t lt = tag_lo(T_THREE_WITH_TWO)
    cdef uint32_t trips = 0
    for t in range(13):
        trips |= <uint32_t>((g.ncnt[t] != 0) & (g.ncnt[t] + g.w >= 3)
                            & (rank_strength(t, g.L) > g.minkey)) << t
    if trips == 0:
        return 0                # no triple (that beats the play): no pair lists
    # pair lists, grouped by wilds used (0 or 1), ranks in natural order,
    # straight from the sub-multiset tables (same order as the k = 2 slot
    # options; pattern mode keeps the first of each)
    for r in range(13):
        st = g.nat[r]
        sh = 4 * r
        p0s[r] = n0
        p1s[r] = n1
        off = SUB_OFF[st][2]
        cnt = SUB_CNT[st][2]
        if g.pattern and cnt > 1:
            cnt = 1
        for i in range(cnt):
            p0w[2 * n0] = (<uint64_t>SUB_ONE[off + i]) << sh
            p0w[2 * n0 + 1] = (<uint64_t>SUB_TWO[off + i]) << sh
            n0 += 1
        if g.w:
            off = SUB_OFF[st][1]
            cnt = SUB_CNT[st][1]
            if g.pattern and cnt > 1:
                cnt = 1
            for i in range(cnt):
                p1w[2 * n1] = (<uint64_t>SUB_ONE[off + i]) << sh
                p1w[2 * n1 + 1] = 0
                n1 += 1
        p0e[r] = n0
        p1e[r] = n1
    if g.nsb == 2:
        p0w[2 * n0] = (<uint64_t>1) << SB_FACE
        p0w[2 * n0 + 1] = (<uint64_t>1) << SB_FACE
        n0 += 1
    if g.nhr == 2:
        p0w[2 * n0] = (<uint64_t>1) << HR_FACE
        p0w[2 * n0 + 1] = (<uint64_t>1) << HR_FACE
        n0 += 1
    while trips:
        t = gd_ctz64(trips)
        trips &= trips - 1
        ensure_opts(g, 3, t)
        for a in range(g.optn[3][t]):
            nw = g.optnw[3][t][a]
            rem = g.w - nw
            cnt = n0 - (p0e[t] - p0s[t])
            if rem >= 1:
                cnt += n1 - (p1e[t] - p1s[t])
            if rem >= 2:
                cnt += 1
            if buf_reserve(g.out, cnt + SLACK) < 0:
                return -1
            p = g.out.data + 2 * g.out.n
            bl = g.optw[3][t][2 * a] | lt
            bh = g.optw[3][t][2 * a + 1] | tag_hi(t)
            lo = bl | g.wone[nw]
            hi = bh | g.wtwo[nw]
            # every pair but those of the triple's own rank (segment s..e)
            p = gd_emit_or(p, p0w, p0s[t], lo, hi)
            p = gd_emit_or(p, p0w + 2 * p0e[t], n0 - p0e[t], lo, hi)
            if rem >= 1:
                lo = bl | g.wone[nw + 1]
                hi = bh | g.wtwo[nw + 1]
                p = gd_emit_or(p, p1w, p1s[t], lo, hi)
                p = gd_emit_or(p, p1w + 2 * p1e[t], n1 - p1e[t], lo, hi)
            if rem >= 2:
                p[0] = bl | g.wone[2]
                p[1] = bh | g.wtwo[2]
                p += 2
            g.out.n = (p - g.out.data) >> 1
    return 0

# ---------------------------------------------------------------------------
# Sequences
# ---------------------------------------------------------------------------

cdef int seq_window(GenImpl* g, int k, int pos, int nslots, int t) noexcept nogil:
    """Every fill of one tube (k=2, 3 slots) or plate (k=3, 2 slots) window,
    at most w wilds in all. A tube slot may be both wilds (the k = 2 options
    include that); distinct slots are distinct ranks, so fills never repeat."""
    cdef int r0 = seq_rank(pos), r1 = seq_rank(pos + 1), r2 = seq_rank(pos + nslots - 1)
    cdef int n0 = g.optn[k][r0], n1 = g.optn[k][r1], n2 = g.optn[k][r2]
    cdef int a, b, j, nw1, w = g.w
    cdef uint64_t lo1, hi1
    cdef uint64_t lt = tag_lo(t)
    cdef uint64_t ht = tag_hi(pos)
    cdef uint64_t* p
    cdef const uint64_t* last = g.optw[k][r2]
    cdef const uint8_t* seg = g.optseg[k][r2]
    cdef uint64_t Q[2 * (225 + SLACK)]       # tubes: slots 1 x 2 for the current base
    cdef int nq = 0, base = -1, nwb
    cdef uint64_t* q
    if buf_reserve(g.out, <Py_ssize_t>n0 * n1 * (n2 if nslots == 3 else 1) + SLACK) < 0:
        return -1
    p = g.out.data + 2 * g.out.n
    if nslots == 3:
        # tubes: for each wild count of the first slot's option (its "base";
        # options come in ascending wild counts), the product of the last
        # two slots with at most w - base wilds, wild cards included for
        # base + theirs, built once and emitted per first-slot option
        for a in range(n0):
            nw1 = g.optnw[k][r0][a]
            if nw1 != base:
                base = nw1
                q = Q
                for b in range(n1):
                    nwb = base + g.optnw[k][r1][b]
                    if nwb > w:
                        break
                    for j in range(w - nwb + 1):
                        q = gd_emit_or(q, last + 2 * seg[j], seg[j + 1] - seg[j],
                                       g.optw[k][r1][2 * b] | g.wone[nwb + j],
                                       g.optw[k][r1][2 * b + 1] | g.wtwo[nwb + j])
                nq = (q - Q) >> 1
            p = gd_emit_or(p, Q, nq, g.optw[k][r0][2 * a] | lt, g.optw[k][r0][2 * a + 1] | ht)
        g.out.n = (p - g.out.data) >> 1
        return 0
    for a in range(n0):                 # plates: the last slot by wild-count segment
        lo1 = g.optw[k][r0][2 * a] | lt
        hi1 = g.optw[k][r0][2 * a + 1] | ht
        nw1 = g.optnw[k][r0][a]
        for j in range(w - nw1 + 1):
            p = gd_emit_or(p, last + 2 * seg[j], seg[j + 1] - seg[j],
                           lo1 | g.wone[nw1 + j], hi1 | g.wtwo[nw1 + j])
    g.out.n = (p - g.out.data) >> 1
    return 0


cdef int gen_seq(GenImpl* g, int t, int k, int nslots) noexcept nogil:
    """Tubes (k=2, 3 slots) and plates (k=3, 2 slots)."""
    cdef int pos, s, r, d, missing, npos = 15 - nslots
    cdef int deficit[14]
    cdef uint32_t wins = 0
    # windows whose missing cards the wilds can fill, as a mask (no branch)
    for pos in range(14):
        d = k - g.ncnt[seq_rank(pos)]
        deficit[pos] = d if d > 0 else 0
    for pos in range(npos):
        missing = deficit[pos] + deficit[pos + 1] + (deficit[pos + 2] if nslots == 3 else 0)
        wins |= <uint32_t>((missing <= g.w) & (pos > g.minkey)) << pos
    while wins:
        pos = gd_ctz64(wins)
        wins &= wins - 1
        for s in range(nslots):
            ensure_opts(g, k, seq_rank(pos + s))
        if seq_window(g, k, pos, nslots, t) < 0:
            return -1
    return 0


# SLOTS[m][i]: the i-th slot (0..4) not in the wild-slot set m; NSLOTS[m] of them
cdef uint8_t SLOTS[32][5]
cdef uint8_t NSLOTS[32]
for _m in range(32):
    NSLOTS[_m] = 0
    for _a in range(5):
        if not ((_m >> _a) & 1):
            SLOTS[_m][NSLOTS[_m]] = _a
            NSLOTS[_m] += 1


cdef int gen_straights(GenImpl* g) noexcept nogil:
    """Straights, window by window (low position 0 = ace-low .. 9 = ten)."""
    cdef int pos, need, q, r, st, i, off
    cdef uint64_t SP[14][8]        # natural faces at each position, interleaved (face, 0), 4 entries
    cdef uint8_t SC[14]            # how many
    cdef uint64_t LOWF[14]         # pattern mode: the lowest natural face at each position (or 0),
    cdef uint64_t SECF[14]         # the second lowest (or 0),
    cdef uint8_t LOWS[14]          # and the lowest one's suit bit
    cdef uint32_t wins = 0
    for pos in range(10):
        wins |= <uint32_t>((pos > g.minkey) & (POP5[(~(g.natpos >> pos)) & 31] <= g.w)) << pos
    if wins == 0:
        return 0
    if g.pattern:
        for q in range(14):
            r = seq_rank(q)
            st = g.nat[r] & 15
            LOWF[q] = (<uint64_t>(st & (-st))) << (4 * r)
            st &= st - 1
            SECF[q] = (<uint64_t>(st & (-st))) << (4 * r)
            LOWS[q] = <uint8_t>(g.nat[r] & (-g.nat[r]) & 15)
    else:
        # every entry written (those past the count are ignored garbage):
        # no data-dependent branch
        for q in range(14):
            r = seq_rank(q)
            st = g.nat[r] & 15
            off = SUB_OFF[st][1]
            SC[q] = NIB_CNT[st]
            for i in range(4):
                SP[q][2 * i] = (<uint64_t>SUB_ONE[off + i]) << (4 * r)
                SP[q][2 * i + 1] = 0
    while wins:
        pos = gd_ctz64(wins)
        wins &= wins - 1
        need = (~(g.natpos >> pos)) & 31          # slots with no natural card
        if g.pattern:
            if straight_patterns(g, pos, need, LOWF, SECF, LOWS) < 0:
                return -1
        elif straight_window(g, pos, need, SP, SC) < 0:
            return -1
    return 0


cdef int straight_window(GenImpl* g, int pos, int need, uint64_t[14][8] SP,
                         const uint8_t* SC) noexcept nogil:
    """Every fill of one straight window, grouped by the set of slots the
    wilds fill (none first, then one wild by slot, then two; see WILD_SETS);
    within a group, every choice of natural faces for the other slots, slot 0
    outermost, suits in S, H, C, D order. Wild-free fills of one suit are
    skipped (those are only straight flushes).

    Per group the product of the last two natural slots (Q2) and, with four
    or five natural slots, of the last three (Q3) are built with the chunked
    emitter (always four chunks, advancing only over real entries: no
    data-dependent branch), then emitted whole for every choice in the slots
    before them."""
    cdef uint64_t Q2[2 * (16 + SLACK)]
    cdef uint64_t Q3[2 * (64 + SLACK)]
    cdef int i, m, nw, v, ns, n2, nq, s0, s1, s2, s3, s4, i0, i1, skip, b, o2, o3, o4
    cdef int c0, c1, c2, c3, c4
    cdef int key2 = -1, key3 = -1      # the slots Q2 (last two) and Q3 (the one before) were built for
    cdef uint64_t x, lw, hw
    cdef uint64_t* p
    cdef uint64_t* q
    cdef const uint8_t* sl
    cdef uint64_t lt = tag_lo(T_STRAIGHT)
    cdef uint64_t ht = tag_hi(pos)
    for v in range(WILD_SETS_N[g.w][need]):
        m = WILD_SETS[g.w][need][v]
        nw = POP5[m]
        sl = SLOTS[m]
        ns = NSLOTS[m]
        # at most two wilds: at least three natural slots
        s2 = pos + sl[ns - 3]
        s3 = pos + sl[ns - 2]
        s4 = pos + sl[ns - 1]
        c2 = SC[s2]
        c3 = SC[s3]
        c4 = SC[s4]
        n2 = c3 * c4
        nq = c2 * n2
        c0 = SC[pos + sl[0]] if ns >= 4 else 1
        c1 = SC[pos + 1] if ns == 5 else 1
        if buf_reserve(g.out, <Py_ssize_t>nq * c0 * c1 + SLACK) < 0:
            return -1
        p = g.out.data + 2 * g.out.n
        lw = lt | g.wone[nw]
        hw = ht | g.wtwo[nw]
        if s3 * 16 + s4 != key2:        # consecutive groups often share their last slots
            key2 = s3 * 16 + s4
            key3 = -1
            q = Q2
            for i in range(c3):
                q = gd_emit_or(q, SP[s4], c4, SP[s3][2 * i], 0)
        if ns == 3:
            for i in range(c2):
                p = gd_emit_or(p, Q2, n2, lw | SP[s2][2 * i], hw)
            g.out.n = (p - g.out.data) >> 1
            continue
        if s2 != key3:
            key3 = s2
            q = Q3
            for i in range(c2):
                q = gd_emit_or(q, Q2, n2, SP[s2][2 * i], 0)
        s0 = pos + sl[0]
        if ns == 4:
            for i0 in range(c0):
                p = gd_emit_or(p, Q3, nq, lw | SP[s0][2 * i0], hw)
            g.out.n = (p - g.out.data) >> 1
            continue
        # wild-free: skip the one-suit fill (a straight flush) where the
        # first two slots share a suit that slots 2..4 all hold
        s1 = pos + 1
        o2 = g.nat[seq_rank(s2)] & 15
        o3 = g.nat[seq_rank(s3)] & 15
        o4 = g.nat[seq_rank(s4)] & 15
        if (g.nat[seq_rank(s0)] & g.nat[seq_rank(s1)] & o2 & o3 & o4 & 15) == 0:
            # no suit in all five slots (the usual case): nothing to skip
            for i0 in range(c0):
                for i1 in range(c1):
                    p = gd_emit_or(p, Q3, nq, SP[s0][2 * i0] | SP[s1][2 * i1] | lw, hw)
            g.out.n = (p - g.out.data) >> 1
            continue
        for i0 in range(c0):
            for i1 in range(c1):
                x = SP[s0][2 * i0] | SP[s1][2 * i1]
                b = gd_ctz64(SP[s0][2 * i0]) & 3
                skip = -1
                if (gd_ctz64(SP[s1][2 * i1]) & 3) == b and (o2 & o3 & o4) >> b & 1:
                    skip = ((NIB_CNT[o2 & ((1 << b) - 1)] * c3 + NIB_CNT[o3 & ((1 << b) - 1)]) * c4
                            + NIB_CNT[o4 & ((1 << b) - 1)])
                x |= lw
                if skip < 0:
                    p = gd_emit_or(p, Q3, nq, x, hw)
                else:
                    p = gd_emit_or(p, Q3, skip, x, hw)
                    p = gd_emit_or(p, Q3 + 2 * (skip + 1), nq - skip - 1, x, hw)
        g.out.n = (p - g.out.data) >> 1
    return 0


# WSLOT_A[m], WSLOT_B[m]: the first and second slot of the wild-slot set m (5: none)
cdef uint8_t WSLOT_A[32]
cdef uint8_t WSLOT_B[32]
for _m in range(32):
    WSLOT_A[_m] = 5
    WSLOT_B[_m] = 5
    for _a in range(4, -1, -1):
        if (_m >> _a) & 1:
            WSLOT_B[_m] = WSLOT_A[_m]
            WSLOT_A[_m] = _a


cdef int straight_patterns(GenImpl* g, int pos, int need, const uint64_t* LOWF,
                           const uint64_t* SECF, const uint8_t* LOWS) noexcept nogil:
    """Pattern mode straights: one move per set of wild slots, in full-mode
    order (WILD_SETS). Representative: the first natural (lowest suit) in
    every other slot, except that a wild-free choice that is one suit takes
    the second option of the last slot that has one (the first non-flush
    fill in full-mode order). The window's lowest faces are XORed out of
    the wild slots (distinct positions of a window are distinct ranks)."""
    cdef uint64_t W[6]
    cdef int v, m, s, nw, last2
    cdef uint64_t one, allw = 0
    cdef uint64_t lt = tag_lo(T_STRAIGHT)
    cdef uint64_t ht = tag_hi(pos)
    cdef uint64_t* p
    for s in range(5):
        W[s] = LOWF[pos + s]
        allw |= W[s]
    W[5] = 0
    if buf_reserve(g.out, 16) < 0:
        return -1
    p = g.out.data + 2 * g.out.n
    for v in range(WILD_SETS_N[g.w][need]):
        m = WILD_SETS[g.w][need][v]          # slot s = bit s of m
        nw = POP5[m]
        one = allw ^ W[WSLOT_A[m]] ^ W[WSLOT_B[m]]
        if m == 0 and (LOWS[pos] & LOWS[pos + 1] & LOWS[pos + 2] & LOWS[pos + 3] & LOWS[pos + 4]):
            # one suit: the last slot with a second suit takes it
            last2 = -1
            for s in range(5):
                if SECF[pos + s]:
                    last2 = s
            if last2 < 0:
                continue
            one ^= W[last2] ^ SECF[pos + last2]
        p[0] = one | g.wone[nw] | lt
        p[1] = g.wtwo[nw] | ht
        p += 2
    g.out.n = (p - g.out.data) >> 1
    return 0


cdef inline uint32_t _windows_with(uint32_t sp, int k) noexcept nogil:
    """Bit p set when at least k of positions p..p+4 are set in sp (k = 3..5)."""
    cdef uint32_t a = sp, b = sp >> 1, c = sp >> 2, d = sp >> 3, e = sp >> 4
    cdef uint32_t s1 = a ^ b ^ c, c1 = (a & b) | (c & (a ^ b))
    cdef uint32_t s2 = d ^ e, c2 = d & e
    cdef uint32_t low = s1 ^ s2, k0 = s1 & s2
    cdef uint32_t m0 = c1 ^ c2 ^ k0, m1 = (c1 & c2) | (k0 & (c1 ^ c2))
    if k >= 5:
        return m1 & (m0 | low)
    if k == 4:
        return m1
    return m1 | (m0 & low)


cdef int gen_straight_flushes(GenImpl* g) noexcept nogil:
    """Per window and suit: naturals of that suit, wilds for the missing ranks
    and, as separate moves, in place of present ones (wild-free runs only
    when the rule set forbids wild straight flushes). Order: window, suit,
    then the set of wild slots as in full-mode straights."""
    cdef int pos, suit, s, present, need, v, m, nw
    cdef uint64_t one
    cdef uint64_t lt = tag_lo(T_STRAIGHT_FLUSH)
    cdef uint32_t wins[4]
    cdef uint32_t any_run = 0, suits
    cdef uint64_t fs[6]
    cdef uint64_t wf
    cdef uint32_t own = 0
    if g.bombsize and g.bombsize != 5:
        return 0
    # per suit, the windows (bit = low position) holding at least 5 - w of
    # the five cards: bit-sliced sum of the five shifted position masks
    for suit in range(4):
        wins[suit] = _windows_with(g.suitpos[suit], 5 - g.w if g.wild_sf else 5) & 0x3FF
        any_run |= wins[suit]
    if not g.wild_sf and g.w > 0:
        # a level heart in its own slot of a heart run stands for itself: the
        # run is natural (docs/rules.md), listed under every rule set
        own = (<uint32_t>1) << (g.L + 1)
        if g.L == 12:
            own |= 1                # the ace also sits at position 0 (ace-low)
        wins[1] = _windows_with(g.suitpos[1] | own, 5) & 0x3FF
        any_run |= wins[1]
    if any_run == 0:
        return 0
    if buf_reserve(g.out, 10 * 4 * 16) < 0:
        return -1
    while any_run:
        pos = gd_ctz64(any_run)
        any_run &= any_run - 1
        if bomb_value(T_STRAIGHT_FLUSH, pos, 5, g.L) <= g.bombmin:
            continue
        suits = (((wins[0] >> pos) & 1) | (((wins[1] >> pos) & 1) << 1)
                 | (((wins[2] >> pos) & 1) << 2) | (((wins[3] >> pos) & 1) << 3))
        while suits:
            suit = gd_ctz64(suits)
            suits &= suits - 1
            present = (g.suitpos[suit] >> pos) & 31
            need = (~present) & 31
            # the run's five faces; a wild slot's face is XORed out (table)
            wf = 0
            for s in range(5):
                fs[s] = (<uint64_t>1) << (4 * seq_rank(pos + s) + suit)
                wf |= fs[s]
            fs[5] = 0
            for v in range(WILD_SETS_N[g.w][need]):
                m = WILD_SETS[g.w][need][v]
                nw = POP5[m]
                one = wf ^ fs[WSLOT_A[m]] ^ fs[WSLOT_B[m]]
                g.out.data[2 * g.out.n] = one | g.wone[nw] | lt
                g.out.data[2 * g.out.n + 1] = g.wtwo[nw] | tag_hi(pos)
                g.out.n += 1
                if g.w == 0 or not g.wild_sf:
                    break
    return 0


# ---------------------------------------------------------------------------
# Top level
# ---------------------------------------------------------------------------

cdef int run_gen(GenImpl* g) noexcept nogil:
    """All wanted types in the platform's actionList order."""
    cdef uint32_t ty = g.types
    cdef int size
    if (ty >> T_SINGLE) & 1 and gen_singles(g) < 0:
        return -1
    if (ty >> T_PAIR) & 1 and gen_nkind(g, T_PAIR, 2) < 0:
        return -1
    if (ty >> T_TRIPS) & 1 and gen_nkind(g, T_TRIPS, 3) < 0:
        return -1
    if (ty >> T_THREE_PAIR) & 1 and gen_seq(g, T_THREE_PAIR, 2, 3) < 0:
        return -1
    if (ty >> T_THREE_WITH_TWO) & 1 and gen_full_houses(g) < 0:
        return -1
    if (ty >> T_TWO_TRIPS) & 1 and gen_seq(g, T_TWO_TRIPS, 3, 2) < 0:
        return -1
    if (ty >> T_STRAIGHT) & 1 and gen_straights(g) < 0:
        return -1
    # bombs: only the sizes the hand can make (tested here, not in a call)
    if (ty >> T_BOMB) & 1 and g.maxbomb >= 4:
        if gen_bombs(g, 4) < 0 or (g.maxbomb >= 5 and gen_bombs(g, 5) < 0):
            return -1
    if (ty >> T_STRAIGHT_FLUSH) & 1 and gen_straight_flushes(g) < 0:
        return -1
    if (ty >> T_BOMB) & 1:
        for size in range(6, min(g.maxbomb, 10) + 1):
            if gen_bombs(g, size) < 0:
                return -1
    if (ty >> T_JOKER_BOMB) & 1 and gen_joker_bomb(g) < 0:
        return -1
    return 0


cdef uint32_t BOMB_TYPES = (1 << T_BOMB) | (1 << T_STRAIGHT_FLUSH) | (1 << T_JOKER_BOMB)


cdef int _generate_with(GenImpl* g, uint64_t one, uint64_t two, int level,
                       uint64_t last_lo, uint64_t last_hi, int flags,
                       MoveBuf* out) noexcept nogil:
    """:func:`generate` with caller-provided scratch space (a loop over many
    hands allocates it once)."""
    if gen_setup(g, one, two, level, last_lo, last_hi, flags, out) < 0:
        return -1
    return run_gen(g)


cdef int gen_setup(GenImpl* g, uint64_t one, uint64_t two, int level,
                   uint64_t last_lo, uint64_t last_hi, int flags, MoveBuf* out) noexcept nogil:
    """Everything but run_gen: the hand's tables, the types and bounds that
    answer ``last`` (and the pass, first, when following)."""
    cdef int lt, lk
    gen_init(g, one & FACE_MASK, two & FACE_MASK, level, flags)
    g.out = out
    lt = move_type(last_lo)
    if lt != T_PASS:
        if buf_reserve(out, 1) < 0:
            return -1
        out.data[2 * out.n] = 0
        out.data[2 * out.n + 1] = 0
        out.n += 1
        lk = move_key(last_hi)
        if is_bomb_type(lt):
            g.types = BOMB_TYPES
            g.bombmin = bomb_value(lt, lk, move_size(last_lo, last_hi), level)
        elif lt <= T_STRAIGHT:
            g.types = BOMB_TYPES | (1u << lt)
            g.minkey = key_strength(lt, lk, level)
        else:
            g.types = 0         # tribute/back: nothing beats them
    return 0


cdef Gen* gen_new() noexcept nogil:
    """A generator scratch state (NULL when out of memory)."""
    return <Gen*>malloc(sizeof(GenImpl))


cdef void gen_free(Gen* g) noexcept nogil:
    free(g)


cdef int generate_with(Gen* g, uint64_t one, uint64_t two, int level,
                       uint64_t last_lo, uint64_t last_hi, int flags,
                       MoveBuf* out) noexcept nogil:
    """Append the legal plays of (one, two) at ``level`` answering ``last``
    (0, 0: leading) to ``out``, using the scratch ``g``; -1 out of memory."""
    return _generate_with(<GenImpl*>g, one, two, level, last_lo, last_hi, flags, out)


cdef int classify_into(uint64_t one, uint64_t two, int level, int flags,
                       MoveBuf* out) noexcept nogil:
    """Append every reading of exactly the cards (one, two), highest first."""
    cdef GenImpl* g
    cdef int n = card_count(one, two), rc, i, j
    cdef Py_ssize_t start = out.n, k, m
    cdef uint64_t tl, th
    cdef int64_t vi, vj
    one &= FACE_MASK
    two &= FACE_MASK
    if n < 1 or n > 10:
        return 0
    g = <GenImpl*>malloc(sizeof(GenImpl))
    if g == NULL:
        return -1
    gen_init(g, one, two, level, flags & ~F_PATTERN)
    g.out = out
    if n == 1:
        g.types = 1 << T_SINGLE
    elif n == 2:
        g.types = 1 << T_PAIR
    elif n == 3:
        g.types = 1 << T_TRIPS
    elif n == 4:
        g.types = (1 << T_BOMB) | (1 << T_JOKER_BOMB)
    elif n == 5:
        g.types = (1 << T_THREE_WITH_TWO) | (1 << T_STRAIGHT) | (1 << T_STRAIGHT_FLUSH) | (1 << T_BOMB)
    elif n == 6:
        g.types = (1 << T_THREE_PAIR) | (1 << T_TWO_TRIPS) | (1 << T_BOMB)
    else:
        g.types = 1 << T_BOMB
    g.bombsize = n
    rc = run_gen(g)
    free(g)
    if rc < 0:
        return -1
    # keep the moves that use every card
    m = start
    for k in range(start, out.n):
        if (out.data[2 * k] & FACE_MASK) == one and (out.data[2 * k + 1] & FACE_MASK) == two:
            out.data[2 * m] = out.data[2 * k]
            out.data[2 * m + 1] = out.data[2 * k + 1]
            m += 1
    out.n = m
    # highest first (insertion sort; a card set has only a few readings)
    for i in range(<int>(start + 1), <int>m):
        tl = out.data[2 * i]
        th = out.data[2 * i + 1]
        vi = reading_order(tl, th, level)
        j = i - 1
        while j >= start and reading_order(out.data[2 * j], out.data[2 * j + 1], level) < vi:
            out.data[2 * j + 2] = out.data[2 * j]
            out.data[2 * j + 3] = out.data[2 * j + 1]
            j -= 1
        out.data[2 * j + 2] = tl
        out.data[2 * j + 3] = th
    return 0


cdef enum:
    READING_BOMBS_FIRST = 100000   # above every non-bomb reading
    READING_TYPE_WEIGHT = 100      # type outweighs key strength (< 100)


cdef int64_t reading_order(uint64_t lo, uint64_t hi, int level) noexcept nogil:
    """Sort key of readings: bombs by bomb order above everything else, then
    by type (reverse platform order), then key strength."""
    cdef int t = move_type(lo)
    cdef int k = move_key(hi)
    if is_bomb_type(t):
        return READING_BOMBS_FIRST + bomb_value(t, k, move_size(lo, hi), level)
    return t * READING_TYPE_WEIGHT + key_strength(t, k, level)

# ---------------------------------------------------------------------------
# Python-facing: levels, cards, hands
# ---------------------------------------------------------------------------

cdef dict _LEVEL_STR = {c: i for i, c in enumerate(RANK_CHARS)}
_LEVEL_STR["10"] = 8


cpdef int level_index(object level) except -1:
    """Rank index 0..12 of a level given as a rank letter ``'2'``..``'A'``
    (either case; ``'10'`` accepted for ``'T'``) or an integer 2..14.

    >>> level_index('2'), level_index('T'), level_index(14)
    (0, 8, 12)
    """
    cdef object r
    if isinstance(level, str):
        r = _LEVEL_STR.get(level.upper() if len(level) == 1 else level)
        if r is not None:
            return r
    elif isinstance(level, (int, np.integer)) and not isinstance(level, bool):
        if 2 <= level <= 14:
            return level - 2
    raise LevelError(f"level must be a rank letter 2-9, T, J, Q, K, A (or an int 2..14), "
                     f"got {level!r:.40}")


cpdef int face_index(object card) except -1:
    """Face index 0..53 of a card string (``'S2'`` .. ``'DA'``, ``'SB'``, ``'HR'``)."""
    cdef object f = FACE_INDEX.get(card) if isinstance(card, str) else None
    if f is None and isinstance(card, str) and len(card) == 2:
        f = FACE_INDEX.get(card.upper())          # lower case is accepted: 'h8', 'sb'
    if f is None:
        raise UnknownCardError(
            f"unknown card {card!r}: a card is a suit letter S/H/C/D followed by a rank "
            f"2-9/T/J/Q/K/A (e.g. 'S2', 'HT', 'DA'), or 'SB' (small joker) / 'HR' (big joker)")
    return f


cdef inline int _face_sort_key(int f, int level) noexcept:
    """Game order of faces: ranks 2..A with the level rank after A, then SB, HR;
    suits S, H, C, D within a rank. level < 0: natural order."""
    cdef int r
    if f >= 52:
        return f * 4 + 100
    r = f >> 2
    if r == level:
        return 13 * 4 + (f & 3)
    return f


def _masks_from_cards(cards):
    cdef uint64_t one = 0, two = 0, bit
    cdef int f
    if isinstance(cards, str):
        cards = cards.split()
    elif isinstance(cards, Hand):
        return (<Hand>cards).one, (<Hand>cards).two
    try:
        it = iter(cards)
    except TypeError:
        raise CardError(f"cards must be a string or an iterable of card strings, "
                        f"got {type(cards).__name__}") from None
    for c in it:
        f = face_index(c)
        bit = (<uint64_t>1) << f
        if two & bit:
            raise TooManyCopiesError(f"3 copies of {FACE_STR[f]} (at most 2: two decks)")
        if one & bit:
            two |= bit
        else:
            one |= bit
    return one, two


cdef list _faces_of(uint64_t one, uint64_t two):
    cdef list out = []
    cdef uint64_t m = one & FACE_MASK
    cdef int f
    while m:
        f = gd_ctz64(m)
        m &= m - 1
        out.append(f)
        if (two >> f) & 1:
            out.append(f)
    return out


cdef class Hand:
    """A multiset of cards (at most two copies of each of the 54 faces),
    stored as a bitboard.

    Accepts card strings in platform notation, as one space-separated string
    or an iterable; ``str()`` lists the cards in natural order and ``repr()``
    round-trips.

    >>> h = Hand("S2 H2 SB HR HR")
    >>> len(h), h.count("HR"), "S2" in h
    (5, 2, True)
    >>> h
    Hand('S2 H2 SB HR HR')
    >>> Hand(["DA", "S3"]).cards(level="3")
    ['DA', 'S3']
    """

    def __cinit__(self):
        self.one = 0
        self.two = 0

    def __init__(self, cards=()):
        self.one, self.two = _masks_from_cards(cards)

    @staticmethod
    def from_counts(counts):
        """A hand from 54 counts (0..2) indexed by face ``rank*4 + suit``
        (ranks 2..A, suits S H C D), 52 = SB, 53 = HR.

        >>> Hand.from_counts([1] + [0] * 52 + [2])
        Hand('S2 HR HR')
        """
        cdef Hand h = Hand.__new__(Hand)
        cdef int f, c
        cdef object x
        if isinstance(counts, (str, bytes)) or not hasattr(counts, "__iter__"):
            raise CardError(f"counts must be a sequence of 54 ints, got {type(counts).__name__}")
        counts = list(counts)
        if len(counts) != 54:
            raise CardError(f"counts must have 54 entries (one per face), got {len(counts)}")
        for f in range(54):
            x = counts[f]
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
                raise CardError(f"count for {FACE_STR[f]} must be an int 0..2, got {x!r}")
            x = int(x)
            if not 0 <= x <= 2:
                if x < 0:
                    raise CardError(f"negative count {x} for {FACE_STR[f]}")
                raise TooManyCopiesError(f"{x} copies of {FACE_STR[f]} (at most 2: two decks)")
            c = x
            if c < 0:
                raise CardError(f"negative count {c} for {FACE_STR[f]}")
            if c > 2:
                raise TooManyCopiesError(f"{c} copies of {FACE_STR[f]} (at most 2: two decks)")
            if c >= 1:
                h.one |= (<uint64_t>1) << f
            if c == 2:
                h.two |= (<uint64_t>1) << f
        return h

    @staticmethod
    def from_masks(one_, two_):
        """A hand from its two bitboard words (see :attr:`masks`)."""
        cdef Hand h = Hand.__new__(Hand)
        cdef uint64_t one, two
        one = _u64(one_, CardError, "masks")
        two = _u64(two_, CardError, "masks")
        if (one | two) & ~FACE_MASK or two & ~one:
            raise CardError("invalid masks: bits above 53 set, or a face in `two` missing from `one`")
        h.one = one
        h.two = two
        return h

    @property
    def masks(self):
        """``(one, two)``: faces held at least once, faces held twice (bit = face index)."""
        return (self.one, self.two)

    def counts(self):
        """The 54 counts as a ``numpy.uint8`` array (see :meth:`from_counts`)."""
        cdef cnp.ndarray[cnp.uint8_t, ndim=1] a = np.zeros(54, dtype=np.uint8)
        cdef int f
        for f in range(54):
            a[f] = ((self.one >> f) & 1) + ((self.two >> f) & 1)
        return a

    def __len__(self):
        return card_count(self.one, self.two)

    def __iter__(self):
        for f in _faces_of(self.one, self.two):
            yield FACE_STR[f]

    def __contains__(self, card):
        f = FACE_INDEX.get(card) if isinstance(card, str) else None
        if f is None and isinstance(card, str) and len(card) == 2:
            f = FACE_INDEX.get(card.upper())
        return f is not None and bool((self.one >> <int>f) & 1)

    def count(self, card):
        """How many copies of ``card`` the hand holds (0, 1 or 2)."""
        cdef int f = face_index(card)
        return <int>((self.one >> f) & 1) + <int>((self.two >> f) & 1)

    def cards(self, level=None):
        """The cards as a list of strings, in game order for ``level`` (the level
        rank after A, then SB, HR; suits S H C D), natural order if no level."""
        cdef int lv = -1 if level is None else level_index(level)
        faces = _faces_of(self.one, self.two)
        if lv >= 0:
            faces.sort(key=lambda f: _face_sort_key(f, lv))
        return [FACE_STR[f] for f in faces]

    def wilds(self, level):
        """Number of wild cards (hearts of the level rank) in the hand."""
        cdef int hb = 4 * level_index(level) + 1
        return <int>((self.one >> hb) & 1) + <int>((self.two >> hb) & 1)

    def __add__(self, other):
        cdef uint64_t o1, o2, one, two
        o1, o2 = _masks_from_cards(other)
        if self.two & o1 or o2 & self.one:
            raise TooManyCopiesError("adding these cards would give more than 2 copies of a face")
        return Hand.from_masks(self.one | o1, self.two | o2 | (self.one & o1))

    def __sub__(self, other):
        cdef uint64_t o1, o2, one = self.one, two = self.two, bit
        cdef int f
        o1, o2 = _masks_from_cards(other)
        for f in _faces_of(o1, o2):
            bit = (<uint64_t>1) << f
            if two & bit:
                two &= ~bit
            elif one & bit:
                one &= ~bit
            else:
                raise CardError(f"{FACE_STR[f]} is not in the hand")
        return Hand.from_masks(one, two)

    def __eq__(self, other):
        if not isinstance(other, Hand):
            return NotImplemented
        return self.one == (<Hand>other).one and self.two == (<Hand>other).two

    def __hash__(self):
        return hash((self.one, self.two))

    def __reduce__(self):
        return (Hand.from_masks, (self.one, self.two))

    def __str__(self):
        return " ".join(self)

    def __repr__(self):
        return f"Hand({str(self)!r})"

# ---------------------------------------------------------------------------
# Python-facing: move words, buffers, generation
# ---------------------------------------------------------------------------

cdef str _rank_letter(int t, int key):
    if t == T_PASS:
        return "PASS"
    if t == T_TRIBUTE:
        return "tribute"
    if t == T_BACK:
        return "back"
    if t == T_JOKER_BOMB:
        return "JOKER"
    if is_seq_type(t):
        return RANK_CHARS[seq_rank(key)]
    if key == 13:
        return "B"
    if key == 14:
        return "R"
    return RANK_CHARS[key]


cdef list _group(list faces_of_rank, int r, int level, int nwild):
    """Cards of one group (an n-of-a-kind or a sequence slot) of rank r:
    naturals in suit order, then the wilds that fill it; for the level rank
    the level hearts sit in suit order (they stand for themselves)."""
    cdef list out = list(faces_of_rank)
    cdef int hb = 4 * level + 1
    out.extend([hb] * nwild)
    if r == level:
        out.sort()
    return out


# Bits a move word may carry: the faces, the type (lo) / key (hi) field.
cdef uint64_t LO_ALLOWED = FACE_MASK | ((<uint64_t>15) << TAG_SHIFT)
cdef uint64_t HI_ALLOWED = FACE_MASK | ((<uint64_t>31) << TAG_SHIFT)


cdef int words_shape_ok(uint64_t lo, uint64_t hi, int level) noexcept nogil:
    """Cheap structural check of move words: every field in range, so that
    no table is indexed out of bounds. 1 when fine, 0 otherwise."""
    cdef int t = move_type(lo)
    cdef int k = move_key(hi)
    cdef uint64_t one = lo & FACE_MASK, two = hi & FACE_MASK
    if level < 0 or level > 12:
        return 0
    if (lo & ~LO_ALLOWED) or (hi & ~HI_ALLOWED) or (two & ~one) or t > T_BACK:
        return 0
    if t == T_PASS:
        return lo == 0 and hi == 0
    if one == 0:
        return 0
    if t == T_TRIBUTE or t == T_BACK:
        return k == 0 and two == 0 and (one & (one - 1)) == 0
    if is_seq_type(t):
        return k <= 15 - (5 if (t == T_STRAIGHT or t == T_STRAIGHT_FLUSH) else (3 if t == T_THREE_PAIR else 2))
    if t == T_JOKER_BOMB:
        return k == KEY_JOKER_BOMB
    return k <= 14


cdef int words_valid(uint64_t lo, uint64_t hi, int level, bint wild_sf) noexcept nogil:
    """1 when (lo, hi) is a well-formed move at ``level``: the pass, a
    one-card tribute/return action, or one of the readings of its own cards;
    0 when not; -1 on allocation failure."""
    cdef MoveBuf buf
    cdef Py_ssize_t i
    cdef int rc, t = move_type(lo)
    if not words_shape_ok(lo, hi, level):
        return 0
    if t == T_PASS or t == T_TRIBUTE or t == T_BACK:
        return 1
    buf.data = NULL
    buf.n = 0
    buf.cap = 0
    rc = classify_into(lo & FACE_MASK, hi & FACE_MASK, level, _flags(False, wild_sf), &buf)
    if rc == 0:
        for i in range(buf.n):
            if buf.data[2 * i] == lo and buf.data[2 * i + 1] == hi:
                rc = 1
                break
    buf_free(&buf)
    return rc


cdef uint64_t _u64(object x, object error, str what) except? 0:
    """The validator of a 64-bit unsigned word from outside (ints and numpy
    integers, no bools), else ``error``."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise error(f"{what} must be 64-bit unsigned ints, got {type(x).__name__}")
    v = int(x)
    if not 0 <= v < (1 << 64):
        raise error(f"{what} must be 64-bit unsigned ints, got {v}")
    return <uint64_t>v


cdef inline uint64_t _word(object x, str what) except? 0:
    return _u64(x, InvalidMoveError, f"move {what}")


def check_move_words(lo, hi, level, bint wild_sf=True):
    """The validator for move words from outside: returns ``(lo, hi, level)``
    as ints when they are a well-formed move at level index ``level``
    (0..12), else raises :class:`InvalidMoveError` (:class:`LevelError` for
    the level). Used by ``Move(lo, hi, level)`` and every entry point that
    takes raw words."""
    cdef uint64_t a = _word(lo, "word lo"), b = _word(hi, "word hi")
    cdef int lv, rc
    if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, np.integer)) \
            or not 0 <= int(level) <= 12:
        raise LevelError(f"a move's level index must be an int 0..12, got {level!r:.40}")
    lv = int(level)
    rc = words_valid(a, b, lv, wild_sf)
    if rc < 0:
        raise MemoryError("move buffer allocation failed")
    if rc == 0:
        raise InvalidMoveError(f"not a valid move at level {RANK_CHARS[lv]}: words "
                               f"({a:#018x}, {b:#018x})")
    return (int(a), int(b), lv)


cdef int _shape_or_raise(uint64_t lo, uint64_t hi, int level) except -1:
    if not words_shape_ok(lo, hi, level):
        raise InvalidMoveError(f"malformed move words ({lo:#018x}, {hi:#018x}) at level index {level}")
    return 0


def move_faces(uint64_t lo, uint64_t hi, int level):
    """Face indices of a move's cards in the platform's order: sequences from
    the lowest rank up, a full house's triple then pair, other types in suit
    order with wilds last; each wild where it fills."""
    _shape_or_raise(lo, hi, level)
    cdef int t = move_type(lo)
    cdef int key = move_key(hi)
    cdef uint64_t one = lo & FACE_MASK, two = hi & FACE_MASK
    cdef int hb = 4 * level + 1, nw, f, r, s, per, nslots, pos, need
    cdef list faces = _faces_of(one, two)
    cdef list nat, out, rest
    nw = <int>((one >> hb) & 1) + <int>((two >> hb) & 1)
    nat = [f for f in faces if f != hb]
    if t in (T_PASS, T_SINGLE, T_JOKER_BOMB, T_TRIBUTE, T_BACK) or key >= 13:
        return faces
    if t in (T_PAIR, T_TRIPS, T_BOMB):
        return _group(nat, key, level, nw)
    if t == T_THREE_WITH_TWO:
        trip = [f for f in nat if f >> 2 == key]
        rest = [f for f in nat if f >> 2 != key]
        need = 3 - len(trip)
        out = _group(trip, key, level, need)
        if rest:
            out.extend(_group(rest, rest[0] >> 2 if rest[0] < 52 else -1, level, nw - need))
        else:
            out.extend([hb] * (nw - need))
        return out
    per = 1 if t in (T_STRAIGHT, T_STRAIGHT_FLUSH) else (2 if t == T_THREE_PAIR else 3)
    nslots = 5 if per == 1 else (3 if per == 2 else 2)
    out = []
    for s in range(nslots):
        r = seq_rank(key + s)
        grp = [f for f in nat if f >> 2 == r]
        out.extend(_group(grp, r, level, per - len(grp)))
    return out


def move_info(uint64_t lo, uint64_t hi):
    """``(type, key, size)`` of a move word pair."""
    _shape_or_raise(lo, hi, 0)
    return (<int>move_type(lo), <int>move_key(hi), move_size(lo, hi))


def move_rank(uint64_t lo, uint64_t hi):
    """The platform rank letter of a move."""
    _shape_or_raise(lo, hi, 0)
    return _rank_letter(move_type(lo), move_key(hi))


def move_platform(uint64_t lo, uint64_t hi, int level):
    """``[type, rank, [cards]]`` exactly as the contest platform writes it."""
    _shape_or_raise(lo, hi, level)
    cdef int t = move_type(lo)
    if t == T_PASS:
        return ["PASS", "PASS", "PASS"]
    return [TYPE_NAMES[t], _rank_letter(t, move_key(hi)),
            [FACE_STR[f] for f in move_faces(lo, hi, level)]]


def move_beats(uint64_t a_lo, uint64_t a_hi, uint64_t b_lo, uint64_t b_hi, int level):
    _shape_or_raise(a_lo, a_hi, level)
    _shape_or_raise(b_lo, b_hi, level)
    return beats(a_lo, a_hi, b_lo, b_hi, level)


# The Python Move class (guandan.moves registers it at import).
cdef object _MOVE_CLS = None
cdef object _MOVE_NEW = None        # trusted constructor (words known valid)


def _register_move_class(cls):
    global _MOVE_CLS, _MOVE_NEW
    _MOVE_CLS = cls
    _MOVE_NEW = cls._from_native


# One cached scratch Gen for calls made with the GIL held (taken and given back
# under the GIL, so concurrent threads simply allocate their own).
cdef GenImpl* _gen_cache = NULL


cdef GenImpl* _take_gen() except NULL:
    global _gen_cache
    cdef GenImpl* g = _gen_cache
    _gen_cache = NULL
    if g == NULL:
        g = <GenImpl*>malloc(sizeof(GenImpl))
        if g == NULL:
            raise MemoryError("generator scratch allocation failed")
    return g


cdef void _give_gen(GenImpl* g) noexcept:
    global _gen_cache
    if _gen_cache == NULL:
        _gen_cache = g
    else:
        free(g)


cdef class MoveList:
    """The legal moves of one position: a lazy, indexable sequence of
    :class:`~guandan.Move`.

    The moves live in a native buffer of 16-byte words; a ``Move`` object is
    built only when an element is read. Order: the generator's (docs/rules.md,
    "Order of the move list"): the pass first when following, then the
    platform's types in order (Single, Pair, Trips, ThreePair, ThreeWithTwo,
    TwoTrips, Straight, 4-card bombs, 5-card bombs, StraightFlush, 6..10-card
    bombs, joker bomb), keys in natural order; :func:`contest_order` gives
    the platform's exact ``actionList`` order.
    """

    def __cinit__(self):
        self.buf.data = NULL
        self.buf.n = 0
        self.buf.cap = 0
        self._level = 0

    def __dealloc__(self):
        buf_free(&self.buf)

    def __len__(self):
        return self.buf.n

    @property
    def level(self):
        """The level (rank letter) the moves were generated at."""
        return RANK_CHARS[self._level]

    cdef object _move(self, Py_ssize_t i):
        # words from the generator: no validation needed
        return _MOVE_NEW(self.buf.data[2 * i], self.buf.data[2 * i + 1], self._level)

    def __getitem__(self, i):
        cdef Py_ssize_t k
        if isinstance(i, slice):
            return [self._move(k) for k in range(*i.indices(self.buf.n))]
        try:
            j = operator.index(i)
        except TypeError:
            raise TypeError(f"move indices must be integers or slices, not {type(i).__name__}") from None
        if j < 0:
            j += self.buf.n
        if j < 0 or j >= self.buf.n:
            raise IndexError("move index out of range")
        k = j
        return self._move(k)

    def __iter__(self):
        cdef Py_ssize_t k
        for k in range(self.buf.n):
            yield self._move(k)

    def __reversed__(self):
        cdef Py_ssize_t k
        for k in range(self.buf.n - 1, -1, -1):
            yield self._move(k)

    cpdef tuple raw(self, object i):
        """The native words ``(lo, hi)`` of move ``i``."""
        cdef Py_ssize_t k
        j = operator.index(i)
        if j < 0:
            j += self.buf.n
        if j < 0 or j >= self.buf.n:
            raise IndexError("move index out of range")
        k = j
        return (self.buf.data[2 * k], self.buf.data[2 * k + 1])

    def find(self, lo_, hi_):
        """Index of the move with words (lo, hi), or -1."""
        cdef Py_ssize_t i
        cdef uint64_t lo, hi
        try:
            lo = _u64(lo_, InvalidMoveError, "move words")
            hi = _u64(hi_, InvalidMoveError, "move words")
        except InvalidMoveError:
            return -1
        for i in range(self.buf.n):
            if self.buf.data[2 * i] == lo and self.buf.data[2 * i + 1] == hi:
                return i
        return -1

    def index_of(self, move):
        """Index of ``move`` (a Move or a platform triple), or -1."""
        if not isinstance(move, _MOVE_CLS):
            try:
                move = _MOVE_CLS.from_platform(move, self._level + 2)
            except ValueError:
                return -1
        lo, hi = move.words
        return self.find(lo, hi)

    def index(self, move, start=0, stop=None):
        """First index of ``move`` in ``[start, stop)`` (as ``list.index``)."""
        cdef Py_ssize_t i = self.index_of(move)
        cdef Py_ssize_t a, b
        a, b, _ = slice(start, stop).indices(self.buf.n)
        if i < 0 or not a <= i < b:
            raise ValueError(f"{move} is not in the list")
        return i

    def count(self, move):
        return 1 if self.index_of(move) >= 0 else 0

    def __contains__(self, move):
        return self.index_of(move) >= 0

    def to_numpy(self):
        """The moves as a read-only ``(n, 2)`` ``uint64`` array of (lo, hi)
        words, viewing this buffer (no copy); see :class:`~guandan.MoveBatch`."""
        cdef cnp.npy_intp dims[2]
        if self.buf.n == 0:
            return np.empty((0, 2), dtype=np.uint64)
        dims[0] = self.buf.n
        dims[1] = 2
        arr = cnp.PyArray_SimpleNewFromData(2, dims, cnp.NPY_UINT64, self.buf.data)
        cnp.set_array_base(arr, self)
        arr.flags.writeable = False
        return arr

    def to_platform(self):
        """Every move as a platform triple ``[type, rank, [cards]]`` (the
        ``actionList`` of an ``act`` message)."""
        cdef Py_ssize_t i
        return [move_platform(self.buf.data[2 * i], self.buf.data[2 * i + 1], self._level)
                for i in range(self.buf.n)]

    def __repr__(self):
        return f"<MoveList of {self.buf.n} moves at level {RANK_CHARS[self._level]}>"


cdef inline int _flags(bint pattern, bint wild_sf) noexcept nogil:
    return (F_PATTERN if pattern else 0) | (0 if wild_sf else F_NO_WILD_SF)


def generate_moves(Hand hand, int level, uint64_t last_lo=0, uint64_t last_hi=0,
                   bint pattern=False, bint wild_sf=True):
    """Native generation into a new :class:`MoveList` (no validation of
    ``last``: callers pass words of a classified move)."""
    cdef MoveList b = MoveList.__new__(MoveList)
    cdef int rc
    cdef int flags = _flags(pattern, wild_sf)
    cdef GenImpl* g
    if level < 0 or level > 12:
        raise LevelError(f"level index must be 0..12, got {level}")
    b._level = level
    g = _take_gen()
    with nogil:
        rc = _generate_with(g, hand.one, hand.two, level, last_lo, last_hi, flags, &b.buf)
    _give_gen(g)
    if rc < 0:
        raise MemoryError("move buffer allocation failed")
    return b


def classify_masks(uint64_t one, uint64_t two, int level, bint wild_sf=True):
    """Every reading of exactly these cards as ``[(lo, hi), ...]``, highest first."""
    cdef MoveBuf buf
    cdef int rc
    cdef Py_ssize_t i
    buf.data = NULL
    buf.n = 0
    buf.cap = 0
    if level < 0 or level > 12:
        raise LevelError(f"level index must be 0..12, got {level}")
    with nogil:
        rc = classify_into(one, two, level, _flags(False, wild_sf), &buf)
    try:
        if rc < 0:
            raise MemoryError("move buffer allocation failed")
        return [(buf.data[2 * i], buf.data[2 * i + 1]) for i in range(buf.n)]
    finally:
        buf_free(&buf)

# ---------------------------------------------------------------------------
# Batch entry point
# ---------------------------------------------------------------------------

# The batch output pool. A batch's words live in one large buffer (12 KB per
# 27-card hand); fresh memory of that size comes from the kernel page by
# page, and the first touch of each page was 1-4 us per hand on top of the
# generator. So the buffer of a batch result goes back to this pool when
# the last array using it is freed, and the next batch generates into it,
# already mapped. Taken and given back with the GIL held (a dropped
# result's owner is deallocated under the GIL); a buffer is in the pool
# only when no array views it, so results are never invalidated, and
# threads that run batches at the same time simply allocate their own.
# One buffer of at most POOL_MAX_MOVES moves is kept (larger ones are freed).
cdef MoveBuf _batch_pool            # data NULL: empty
_batch_pool.data = NULL
_batch_pool.n = 0
_batch_pool.cap = 0
cdef Py_ssize_t POOL_MAX_MOVES = 1 << 22      # 64 MB


cdef MoveBuf _pool_take() noexcept:
    global _batch_pool
    cdef MoveBuf b = _batch_pool
    _batch_pool.data = NULL
    _batch_pool.n = 0
    _batch_pool.cap = 0
    b.n = 0
    return b


cdef void _pool_give(MoveBuf* b) noexcept:
    global _batch_pool
    if b.data != NULL and _batch_pool.data == NULL and b.cap <= POOL_MAX_MOVES:
        _batch_pool = b[0]
        _batch_pool.n = 0
    else:
        free(b.data)
    b.data = NULL
    b.n = 0
    b.cap = 0


cdef class _BatchWords:
    """Owner of a batch's word buffer (the base of its ``words`` array);
    gives the buffer back to the pool when freed."""
    cdef MoveBuf buf

    def __cinit__(self):
        self.buf.data = NULL
        self.buf.n = 0
        self.buf.cap = 0

    def __dealloc__(self):
        _pool_give(&self.buf)


cdef object _owned_array(MoveBuf* buf):
    """A (n, 2) uint64 array viewing `buf`'s data, which moves into an
    owner kept alive as the array's base (no copy)."""
    cdef _BatchWords owner
    cdef cnp.npy_intp dims[2]
    if buf.n == 0:
        _pool_give(buf)
        return np.empty((0, 2), dtype=np.uint64)
    owner = _BatchWords.__new__(_BatchWords)
    owner.buf = buf[0]
    buf.data = NULL
    buf.n = 0
    buf.cap = 0
    dims[0] = owner.buf.n
    dims[1] = 2
    arr = cnp.PyArray_SimpleNewFromData(2, dims, cnp.NPY_UINT64, owner.buf.data)
    cnp.set_array_base(arr, owner)
    return arr


cdef object c_array(object a, object dtype, int ndim, Py_ssize_t cols, str name):
    """``a`` when it is a C-contiguous ndarray of ``dtype`` with ``ndim``
    dimensions (and ``cols`` columns when 2-D), else ValueError. (Raw data
    pointers instead of typed memoryviews: the memoryview support code is
    ~22,000 lines of C per module, most of its compile time.)"""
    if (not isinstance(a, np.ndarray) or a.dtype != dtype or a.ndim != ndim
            or not a.flags.c_contiguous or (ndim == 2 and a.shape[1] != cols)):
        shape = f"(n, {cols})" if ndim == 2 else "(n,)"
        raise ValueError(f"{name} must be a C-contiguous {np.dtype(dtype).name} array of shape {shape}")
    return a


@cython.boundscheck(False)
@cython.wraparound(False)
def batch_generate(counts_, levels_, last_, bint pattern=False, bint wild_sf=True):
    """Native loop over many hands (validated by the caller: ``counts``
    uint8 (n, 54), ``levels`` int64 (n,), ``last`` uint64 (n or 0, 2)).
    Returns ``(offsets int64[n+1], moves uint64[m, 2])``; the GIL is released."""
    counts_ = c_array(counts_, np.uint8, 2, 54, "counts")
    levels_ = c_array(levels_, np.int64, 1, 0, "levels")
    last_ = c_array(last_, np.uint64, 2, 2, "last")
    cdef Py_ssize_t n = counts_.shape[0], i, f
    if levels_.shape[0] != n or last_.shape[0] not in (0, n):
        raise ValueError("one level (and none or one play to beat) per hand")
    cdef const uint8_t* counts = <const uint8_t*>cnp.PyArray_DATA(counts_)
    cdef const int64_t* levels = <const int64_t*>cnp.PyArray_DATA(levels_)
    cdef const uint64_t* last = <const uint64_t*>cnp.PyArray_DATA(last_)
    cdef MoveBuf buf
    cdef uint64_t one, two
    cdef int rc = 0, flags = _flags(pattern, wild_sf)
    cdef cnp.ndarray offsets = np.empty(n + 1, dtype=np.int64)
    cdef int64_t* off = <int64_t*>cnp.PyArray_DATA(offsets)
    cdef bint has_last = last_.shape[0] > 0
    cdef GenImpl* g = _take_gen()
    buf = _pool_take()
    off[0] = 0
    with nogil:
        rc = buf_reserve(&buf, n * (64 if pattern else 256) + 16)
        for i in range(n):
            if rc < 0:
                break
            _counts_to_masks(counts + 54 * i, &one, &two)
            if has_last:
                rc = _generate_with(g, one, two, <int>levels[i], last[2 * i], last[2 * i + 1], flags, &buf)
            else:
                rc = _generate_with(g, one, two, <int>levels[i], 0, 0, flags, &buf)
            off[i + 1] = buf.n
    _give_gen(g)
    if rc < 0:
        buf_free(&buf)
        raise MemoryError("move buffer allocation failed")
    return offsets, _owned_array(&buf)


cdef inline uint64_t _bytes_nonzero(uint64_t x) noexcept nogil:
    """Bit 0 of each byte: that byte of x is not zero (bits folded within bytes)."""
    x = ((x >> 4) & <uint64_t>0x0F0F0F0F0F0F0F0F) | (x & <uint64_t>0x0F0F0F0F0F0F0F0F)
    x = ((x >> 2) & <uint64_t>0x0303030303030303) | (x & <uint64_t>0x0303030303030303)
    return ((x >> 1) | x) & <uint64_t>0x0101010101010101


cdef inline void _counts_to_masks(const uint8_t* c, uint64_t* one, uint64_t* two) noexcept nogil:
    """The (one, two) words of 54 counts (>= 1: in one, >= 2: in two), eight
    counts per step: a per-byte test, the eight bits gathered by a multiply."""
    cdef uint64_t o = 0, t = 0, x
    cdef int i
    for i in range(7):
        if i < 6:
            memcpy(&x, c + 8 * i, 8)
        else:                           # faces 48..53
            x = <uint64_t>c[48] | (<uint64_t>c[49] << 8) | (<uint64_t>c[50] << 16) | (
                <uint64_t>c[51] << 24) | (<uint64_t>c[52] << 32) | (<uint64_t>c[53] << 40)
        o |= ((_bytes_nonzero(x) * <uint64_t>0x0102040810204080) >> 56) << (8 * i)
        t |= ((_bytes_nonzero(x & <uint64_t>0xFEFEFEFEFEFEFEFE) * <uint64_t>0x0102040810204080) >> 56) << (8 * i)
    one[0] = o
    two[0] = t


def make_movelist(words, int level):
    """A :class:`MoveList` holding the given ``(m, 2)`` move words (copied)."""
    cdef cnp.ndarray[cnp.uint64_t, ndim=2] w = np.ascontiguousarray(words, dtype=np.uint64).reshape(-1, 2)
    cdef MoveList ml = MoveList.__new__(MoveList)
    cdef Py_ssize_t n = w.shape[0]
    if level < 0 or level > 12:
        raise LevelError(f"level index must be 0..12, got {level}")
    ml._level = level
    if n:
        if buf_reserve(&ml.buf, n) < 0:
            raise MemoryError()
        memcpy(ml.buf.data, cnp.PyArray_DATA(w), n * 16)
        ml.buf.n = n
    return ml


# ---------------------------------------------------------------------------
# The contest platform's actionList order (docs/protocol.md, "actionList order")
# ---------------------------------------------------------------------------
#
# The generator lists moves by type in the platform's order and, within a
# type, by key in natural order. The v1006 platform orders the keys of
# non-sequence types by game value (the level rank after A, then the jokers)
# and the card choices of one key as combinations of the hand's cards of that
# rank, taken in handCards order (suits S H C D; wild hearts of the level rank
# after the naturals of another rank, in their heart place for the level rank
# itself): index tuples ascending in every place but the last, the last
# descending (pairs of 6 from S6 H6 C6 D6 + wild H2: S6H2, S6D6, S6C6, S6H6,
# H6H2, ...). Singles are in handCards order. Sequences keep the generator's
# order within a key. contest_sort_key is that order as one integer per move
# (ties keep the generator's order: the sort is stable).

cdef struct _Keyed:
    uint64_t key
    Py_ssize_t idx


cdef void _merge_sort(_Keyed* a, _Keyed* tmp, Py_ssize_t n) noexcept nogil:
    """Stable bottom-up merge sort by key (runs of the generator's order are
    long, so many merges are a plain copy)."""
    cdef Py_ssize_t width = 1, lo, mid, hi, i, j, k
    cdef _Keyed* src = a
    cdef _Keyed* dst = tmp
    cdef _Keyed* t
    while width < n:
        lo = 0
        while lo < n:
            mid = lo + width if lo + width < n else n
            hi = lo + 2 * width if lo + 2 * width < n else n
            if mid >= hi or src[mid - 1].key <= src[mid].key:
                memcpy(&dst[lo], &src[lo], (hi - lo) * sizeof(_Keyed))     # already in order
            else:
                i = lo
                j = mid
                k = lo
                while i < mid and j < hi:
                    if src[j].key < src[i].key:
                        dst[k] = src[j]
                        j += 1
                    else:
                        dst[k] = src[i]
                        i += 1
                    k += 1
                while i < mid:
                    dst[k] = src[i]
                    i += 1
                    k += 1
                while j < hi:
                    dst[k] = src[j]
                    j += 1
                    k += 1
            lo = hi
        t = src
        src = dst
        dst = t
        width *= 2
    if src != a:
        memcpy(a, src, n * sizeof(_Keyed))


cdef inline int _contest_group(int t, int size) noexcept nogil:
    """The type groups of the actionList, in order (bombs by size, the
    straight flush between 5- and 6-card bombs)."""
    if t == T_PASS:
        return 0
    if t <= T_STRAIGHT:
        return t                       # Single 1 .. Straight 7
    if t == T_BOMB:
        return 8 if size == 4 else (9 if size == 5 else 5 + size)   # 6..10 cards: 11..15
    if t == T_STRAIGHT_FLUSH:
        return 10
    if t == T_JOKER_BOMB:
        return 16
    return 17 + t                      # tribute / back (never mixed with plays)


cdef uint64_t _combo_key(uint64_t hone, uint64_t htwo, int L, int r, int m_one, int m_two,
                         int nwild) noexcept nogil:
    """Rank of one card choice of rank ``r`` among the combinations of the
    hand's cards of that rank (see above), as nibbles, first card first:
    ``m_one``/``m_two`` the choice's natural nibbles (the level rank's heart
    nibble excluded), ``nwild`` the wild hearts it uses."""
    cdef int c[5]
    cdef int m[5]
    cdef int start[5]
    cdef int s, j, nslots, k = 0, total = 0, last = -1, pos
    cdef int hb = 4 * L + 1
    cdef int hw = <int>((hone >> hb) & 1) + <int>((htwo >> hb) & 1)
    cdef uint64_t key = 0
    cdef int o = <int>((hone >> (4 * r)) & 15), t = <int>((htwo >> (4 * r)) & 15)
    for s in range(4):
        c[s] = ((o >> s) & 1) + ((t >> s) & 1)
        m[s] = ((m_one >> s) & 1) + ((m_two >> s) & 1)
    if r == L:
        c[1] = hw                      # the level rank's hearts are the wilds, in their place
        m[1] = nwild
        nslots = 4
    else:
        c[4] = hw                      # wilds after the naturals of another rank
        m[4] = nwild
        nslots = 5
    for s in range(nslots):
        start[s] = total
        total += c[s]
        k += m[s]
        if m[s]:
            last = s
    if k == 0:
        return 0
    j = 0
    for s in range(nslots):
        for pos in range(m[s]):
            j += 1
            if j < k:
                key = (key << 4) | <uint64_t>((start[s] + pos) & 15)
    # the last card: the later copy when one of two copies is taken
    pos = start[last] + m[last] - 1
    if m[last] == 1 and c[last] == 2:
        pos = start[last] + 1
    return (key << 4) | <uint64_t>((15 - pos) & 15)


cdef uint64_t contest_sort_key(uint64_t lo, uint64_t hi, uint64_t hone, uint64_t htwo,
                               int L) noexcept nogil:
    cdef int t = move_type(lo), k = move_key(hi)
    cdef int size = move_size(lo, hi)
    cdef int hb = 4 * L + 1
    cdef uint64_t one = lo & FACE_MASK, two = hi & FACE_MASK
    cdef uint64_t hbit = (<uint64_t>1) << hb
    cdef int nw = <int>((one >> hb) & 1) + <int>((two >> hb) & 1)
    cdef int g = _contest_group(t, size)
    cdef uint64_t sub = 0
    cdef int strength, r, p, nt, npair, tw, pw, o, tw_
    cdef uint64_t n1, n2
    if t == T_PASS or t >= T_TRIBUTE:
        return <uint64_t>g << 59
    if t == T_STRAIGHT or t == T_STRAIGHT_FLUSH or t == T_THREE_PAIR or t == T_TWO_TRIPS:
        return (<uint64_t>g << 59) | (<uint64_t>k << 54)
    strength = rank_strength(k, L)
    if t == T_SINGLE:
        sub = <uint64_t>(gd_ctz64(one) & 3) if k < 13 else 0
    elif t == T_JOKER_BOMB or k >= 13:
        sub = 0
    elif t == T_THREE_WITH_TWO:
        # split the cards into the triple (rank k) and the pair (another rank,
        # a joker pair, or two wilds: a pair of level cards)
        n1 = one & ~hbit
        n2 = two & ~hbit
        o = <int>((n1 >> (4 * k)) & 15)
        tw_ = <int>((n2 >> (4 * k)) & 15)
        nt = NIB_CNT[o] + NIB_CNT[tw_]
        tw = 3 - nt
        pw = nw - tw
        n1 &= ~((<uint64_t>15) << (4 * k))
        n2 &= ~((<uint64_t>15) << (4 * k))
        sub = _combo_key(hone, htwo, L, k, o, tw_, tw) << 13
        if n1 == 0:
            p = L                      # the pair is the two wilds
            sub |= (<uint64_t>rank_strength(p, L) << 8) | _combo_key(hone, htwo, L, p, 0, 0, pw)
        elif n1 >> 52:
            p = 13 if (n1 >> 52) & 1 else 14
            sub |= <uint64_t>rank_strength(p, L) << 8
        else:
            p = gd_ctz64(n1) >> 2
            sub |= (<uint64_t>rank_strength(p, L) << 8) | _combo_key(
                hone, htwo, L, p, <int>((n1 >> (4 * p)) & 15), <int>((n2 >> (4 * p)) & 15), pw)
    else:
        # pairs, triples, bombs: one rank; the level rank's own hearts are wilds
        n1 = one & ~hbit
        n2 = two & ~hbit
        sub = _combo_key(hone, htwo, L, k, <int>((n1 >> (4 * k)) & 15),
                         <int>((n2 >> (4 * k)) & 15), nw)
    return (<uint64_t>g << 59) | (<uint64_t>strength << 54) | (sub & ((<uint64_t>1 << 54) - 1))


cdef int contest_order_buf(MoveBuf* b, uint64_t hone, uint64_t htwo, int L) noexcept nogil:
    """Reorder the moves of ``b`` (plays of the hand (hone, htwo) at level
    index L) into the platform's actionList order; -1 out of memory."""
    cdef Py_ssize_t i, n = b.n
    cdef _Keyed* ks
    cdef uint64_t* tmp
    if n < 2:
        return 0
    ks = <_Keyed*>malloc(2 * n * sizeof(_Keyed))
    tmp = <uint64_t*>malloc(2 * n * sizeof(uint64_t))
    if ks == NULL or tmp == NULL:
        free(ks)
        free(tmp)
        return -1
    for i in range(n):
        ks[i].key = contest_sort_key(b.data[2 * i], b.data[2 * i + 1], hone, htwo, L)
        ks[i].idx = i
    _merge_sort(ks, ks + n, n)
    for i in range(n):
        tmp[2 * i] = b.data[2 * ks[i].idx]
        tmp[2 * i + 1] = b.data[2 * ks[i].idx + 1]
    memcpy(b.data, tmp, 2 * n * sizeof(uint64_t))
    free(ks)
    free(tmp)
    return 0


def contest_order(MoveList moves not None, Hand hand not None):
    """A new :class:`MoveList` with the moves of ``moves`` (the legal actions
    of ``hand``) in the contest platform's ``actionList`` order."""
    cdef MoveList out = MoveList.__new__(MoveList)
    cdef Py_ssize_t i, n = moves.buf.n
    cdef uint64_t hone = hand.one, htwo = hand.two
    cdef int rc
    for i in range(n):
        if (moves.buf.data[2 * i] & FACE_MASK & ~hone) or (moves.buf.data[2 * i + 1] & FACE_MASK & ~htwo):
            raise CardError(f"move {i} uses cards that are not in the hand")
    out._level = moves._level
    if n:
        if buf_reserve(&out.buf, n) < 0:
            raise MemoryError()
        memcpy(out.buf.data, moves.buf.data, n * 16)
        out.buf.n = n
    with nogil:
        rc = contest_order_buf(&out.buf, hone, htwo, out._level)
    if rc < 0:
        raise MemoryError()
    return out


# ---------------------------------------------------------------------------
# Profiling support (bench/movegen.py --phases, docs/profile.md)
# ---------------------------------------------------------------------------

cdef extern from "gdtime.h" nogil:
    long long gd_now_ns()


@cython.boundscheck(False)
@cython.wraparound(False)
def _phase_times(one_, two_, levels_, uint32_t types, bint pattern=False, int reps=1, last_=None):
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
    cdef GenImpl* g = <GenImpl*>malloc(sizeof(GenImpl))
    cdef MoveBuf buf
    cdef int rep, rc = 0
    cdef int64_t t0, spent = 0, total = 0
    cdef uint64_t cs = 0
    buf.data = NULL
    buf.n = 0
    buf.cap = 0
    if g == NULL or buf_reserve(&buf, 1 << 15) < 0:
        free(g)
        buf_free(&buf)
        raise MemoryError()
    with nogil:
        for rep in range(reps):
            for i in range(n):
                if levels[i] < 0 or levels[i] > 12:
                    rc = -2
                    break
                buf.n = 0
                t0 = <int64_t>gd_now_ns()
                rc = gen_setup(g, one[i], two[i], <int>levels[i], last[2 * i], last[2 * i + 1],
                               F_PATTERN if pattern else 0, &buf)
                g.types &= types
                if rc == 0:
                    rc = run_gen(g)
                spent += <int64_t>gd_now_ns() - t0
                if rc < 0:
                    break
                total += buf.n
                if buf.n:
                    cs ^= buf.data[2 * buf.n - 1]
            if rc < 0:
                break
    free(g)
    buf_free(&buf)
    if rc == -2:
        raise LevelError("level index must be 0..12")
    if rc < 0:
        raise MemoryError()
    return spent / 1e9, total, cs
