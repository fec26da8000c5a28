# cython: language_level=3
"""The move generator: the bitboard card set, classification, generation
and comparison of Guandan plays, C-level and ``nogil`` (the other native
modules cimport it through ``_gen.pxd``; ``_core.pyx`` is its Python front).

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

from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset, memcpy
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int64_t

cdef extern from "bits.h":
    uint64_t* gd_emit_or(uint64_t* p, const uint64_t* src, Py_ssize_t n, uint64_t lo,
                         uint64_t hi) noexcept nogil

# ---------------------------------------------------------------------------
# The scratch state (opaque outside this module: ``Gen`` in _gen.pxd)
# ---------------------------------------------------------------------------

cdef enum:
    OPTMAX = 32           # slot options per (k, rank): at most 16 + 10 + 4 for triples
    SETUPS = 8            # the set-up cache's slots (F_SETUP_CACHE)
    SETUP_BYTES = 160     # room for a set-up (its two parts: hone .. bombable, wone .. suitpos)
    SLACK = 4             # moves of slack the chunked emitter may read / write past a list (bits.h)

ctypedef struct GenImpl:
    # the hand's set-up (gen_init) is a function of the hand and the level
    # alone: the fields from hone to bombable and from wone to suitpos,
    # which the set-up cache copies; the others are per call
    uint64_t hone, htwo          # the whole hand, wilds included
    uint8_t nat[16]              # natural state per rank (level hearts removed); 13..15 zero
    uint8_t ncnt[16]             # natural card count per rank; 13..15 zero
    int L, w, nsb, nhr
    int maxbomb                  # largest bomb size the hand can make
    uint32_t bombable            # ranks with at least 4 cards counting the wilds
    int pattern, wild_sf
    uint32_t types               # bit t set: generate type t
    int minkey                   # non-bombs: key strength must exceed this
    int bombmin                  # bombs: bomb value must exceed this
    int bombsize                 # 0, or the only bomb size wanted (classify)
    uint64_t wone[3]
    uint64_t wtwo[3]
    uint32_t natpos              # bit q: a natural card at natural position q (0..13)
    uint32_t suitpos[4]          # bit q: the natural card of that suit at position q
    # per (k, rank) slot options: k = 1 single card, 2 pair, 3 triple
    uint8_t optdone[4][13]
    uint8_t optn[4][13]
    uint8_t optseg[4][13][4]             # options with j wilds: optseg[j] .. optseg[j + 1] - 1
    uint64_t optw[4][13][2 * OPTMAX]     # natural cards of each option, interleaved (one, two)
    uint64_t optpad[2 * SLACK]           # the emitter's read slack past the last row
    uint8_t optnw[4][13][OPTMAX]
    MoveBuf* out
    # the set-up cache (F_SETUP_CACHE): the last hands' set-ups, by hand
    uint64_t skey[SETUPS][2]
    int slevel[SETUPS]
    uint8_t sbytes[SETUPS][SETUP_BYTES]

# ---------------------------------------------------------------------------
# Constants and tables
# ---------------------------------------------------------------------------

cdef int SB_FACE = 52
cdef int HR_FACE = 53
cdef int KEY_JOKER_BOMB = 15


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
    cdef int s, k, o, t, cS, cH, cC, cD, idx
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
                        c[0] = cS
                        c[1] = cH
                        c[2] = cC
                        c[3] = cD
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


cdef void _check_setup_room() except *:
    cdef GenImpl g
    if setup_size(&g) > SETUP_BYTES:
        raise RuntimeError("guandan._gen: SETUP_BYTES is smaller than a set-up")


_check_setup_room()

# ---------------------------------------------------------------------------
# Small helpers (card_count, rank_strength, bomb_value, ...: inline in _gen.pxd)
# ---------------------------------------------------------------------------

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


cdef int rank_at_position(int pos) noexcept nogil:
    """:func:`seq_rank` for the other modules (whose calls are not inlined)."""
    return seq_rank(pos)

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


cdef inline uint64_t _byte_popcounts(uint64_t v) noexcept nogil:
    v = v - ((v >> 1) & <uint64_t>0x5555555555555555)
    v = (v & <uint64_t>0x3333333333333333) + ((v >> 2) & <uint64_t>0x3333333333333333)
    return (v + (v >> 4)) & <uint64_t>0x0F0F0F0F0F0F0F0F


cdef inline uint64_t _bytes_max(uint64_t a, uint64_t b) noexcept nogil:
    """Byte-wise max of a and b (bytes < 128)."""
    cdef uint64_t H = <uint64_t>0x8080808080808080
    cdef uint64_t ge = (((a | H) - b) & H) >> 7           # 1 in each byte where a >= b
    cdef uint64_t m = ge * 0xFF
    return (a & m) | (b & ~m)


cdef inline uint64_t _nat_bytes(uint64_t n1, uint64_t n2, int shift) noexcept nogil:
    """Ranks shift/4 .. shift/4 + 7 of a hand without its wilds (first and
    second copies n1, n2) as bytes: the one nibble | the two nibble << 4."""
    return gd_nibble_bytes(n1 >> shift) | (gd_nibble_bytes(n2 >> shift) << 4)


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
    lo8 = _nat_bytes(n1, n2, 0)
    hi8 = _nat_bytes(n1, n2, 32)
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
        sp = (gd_nibble_bit0s(n1 >> r) & 0x1FFF) << 1
        g.suitpos[r] = sp | ((sp >> 13) & 1)
    g.natpos = g.suitpos[0] | g.suitpos[1] | g.suitpos[2] | g.suitpos[3]
    g.maxbomb = maxn + w
    g.wone[0] = 0
    g.wtwo[0] = 0
    g.wone[1] = (<uint64_t>1) << hb
    g.wtwo[1] = 0
    g.wone[2] = (<uint64_t>1) << hb
    g.wtwo[2] = (<uint64_t>1) << hb
    gen_per_call(g, flags)


cdef inline void gen_per_call(GenImpl* g, int flags) noexcept nogil:
    """The set-up's per-call part: the mode, every type, no bounds, no slot
    options built yet."""
    g.pattern = 1 if (flags & F_PATTERN) else 0
    g.wild_sf = 0 if (flags & F_NO_WILD_SF) else 1
    g.types = 0xFFFFFFFF
    g.minkey = -1
    g.bombmin = -1
    g.bombsize = 0
    memset(g.optdone, 0, sizeof(g.optdone))


cdef inline size_t setup_head(const GenImpl* g) noexcept nogil:
    """The set-up's first part: hone .. bombable (bytes from the start)."""
    return <size_t>(<const char*>&g.pattern - <const char*>g)


cdef inline size_t setup_tail_at(const GenImpl* g) noexcept nogil:
    return <size_t>(<const char*>&g.wone[0] - <const char*>g)


cdef inline size_t setup_tail(const GenImpl* g) noexcept nogil:
    """The set-up's second part: wone .. suitpos."""
    return <size_t>(<const char*>&g.suitpos[3] + sizeof(uint32_t) - <const char*>&g.wone[0])


cdef inline size_t setup_size(const GenImpl* g) noexcept nogil:
    return setup_head(g) + setup_tail(g)


cdef void gen_init_cached(GenImpl* g, uint64_t one, uint64_t two, int L, int flags) noexcept nogil:
    """gen_init through the set-up cache: a hand set up in one of the last
    calls (a player asked again with the hand it passed with) copies its
    set-up back instead of computing it; the same fields either way."""
    cdef int k = <int>(((one * <uint64_t>0x9E3779B97F4A7C15) ^ (two * <uint64_t>0xC2B2AE3D27D4EB4F)) >> 61)
    cdef size_t n = setup_head(g), at = setup_tail_at(g), m = setup_tail(g)
    cdef char* base = <char*>g
    if g.skey[k][0] == one and g.skey[k][1] == two and g.slevel[k] == L:
        memcpy(base, g.sbytes[k], n)
        memcpy(base + at, g.sbytes[k] + n, m)
        gen_per_call(g, flags)
        return
    gen_init(g, one, two, L, flags)
    memcpy(g.sbytes[k], base, n)
    memcpy(g.sbytes[k] + n, base + at, m)
    g.skey[k][0] = one
    g.skey[k][1] = two
    g.slevel[k] = L


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
    cdef int f, key
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
    cdef int r
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
    cdef int r, j, nk, i, off, cnt, sh
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
    cdef int pos, s, d, missing, npos = 15 - nslots
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


cdef inline uint64_t _windows_with(uint64_t sp, int k) noexcept nogil:
    """Bit p set when at least k of positions p..p+4 are set in sp (k = 3..5):
    a bit-sliced sum, bit by bit, so four 16-bit lanes (four suits' 14
    positions) are summed at once, each lane's bits 0..9 exact."""
    cdef uint64_t a = sp, b = sp >> 1, c = sp >> 2, d = sp >> 3, e = sp >> 4
    cdef uint64_t s1 = a ^ b ^ c, c1 = (a & b) | (c & (a ^ b))
    cdef uint64_t s2 = d ^ e, c2 = d & e
    cdef uint64_t low = s1 ^ s2, k0 = s1 & s2
    cdef uint64_t m0 = c1 ^ c2 ^ k0, m1 = (c1 & c2) | (k0 & (c1 ^ c2))
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
    cdef uint64_t wf, ws
    cdef uint32_t own = 0
    if g.bombsize and g.bombsize != 5:
        return 0
    # per suit, the windows (bit = low position) holding at least 5 - w of
    # the five cards: bit-sliced sum of the five shifted position masks, the
    # four suits in the four 16-bit lanes of one word
    ws = _windows_with(<uint64_t>g.suitpos[0] | (<uint64_t>g.suitpos[1] << 16)
                       | (<uint64_t>g.suitpos[2] << 32) | (<uint64_t>g.suitpos[3] << 48),
                       5 - g.w if g.wild_sf else 5)
    for suit in range(4):
        wins[suit] = <uint32_t>(ws >> (16 * suit)) & 0x3FF
        any_run |= wins[suit]
    if not g.wild_sf and g.w > 0:
        # a level heart in its own slot of a heart run stands for itself: the
        # run is natural (docs/rules.md), listed under every rule set
        own = (<uint32_t>1) << (g.L + 1)
        if g.L == 12:
            own |= 1                # the ace also sits at position 0 (ace-low)
        wins[1] = <uint32_t>_windows_with(g.suitpos[1] | own, 5) & 0x3FF
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
    if flags & F_SETUP_CACHE:
        gen_init_cached(g, one & FACE_MASK, two & FACE_MASK, level, flags)
    else:
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


# cannot_beat: per level and key, bit 7 of byte r (ranks 0..7 in the first
# word, 8..12 in the second) set when rank r is stronger than the key
cdef uint64_t STRONGER[13][15][2]
cdef uint64_t SUIT_FACES = <uint64_t>0x0001111111111111      # suit 0's faces of ranks 0..12


cdef void _build_stronger() noexcept:
    cdef int L, k, r
    for L in range(13):
        for k in range(15):
            STRONGER[L][k][0] = 0
            STRONGER[L][k][1] = 0
            for r in range(13):
                if rank_strength(r, L) > rank_strength(k, L):
                    STRONGER[L][k][r >> 3] |= (<uint64_t>0x80) << (8 * (r & 7))


_build_stronger()


cdef bint cannot_beat(uint64_t one, uint64_t two, int level, uint64_t top_lo,
                      uint64_t top_hi) noexcept nogil:
    """True only when no play of the hand (one, two) beats the play (top_lo,
    top_hi) at ``level``; False when a play may beat it (generate to know).
    Every test is an upper bound on what the hand can make: a rank's cards
    plus every wild for a group or a bomb, a suit's ranks plus every wild
    for a straight flush, the hand's size for a play of five or six cards."""
    cdef int t = move_type(top_lo), k = move_key(top_hi), need, ts, tv, w, nsb, nhr, s, r, m
    cdef int hb = 4 * level + 1
    cdef uint64_t hbit = (<uint64_t>1) << hb
    cdef uint64_t n1, n2, u, clo, chi, wv, add
    cdef uint64_t H = <uint64_t>0x8080808080808080
    cdef bint sf
    if t == T_JOKER_BOMB:
        return True                     # nothing beats the four jokers
    if t == T_PASS or t > T_JOKER_BOMB or k > 14 or not 0 <= level <= 12:
        return False
    nsb = <int>((one >> SB_FACE) & 1) + <int>((two >> SB_FACE) & 1)
    nhr = <int>((one >> HR_FACE) & 1) + <int>((two >> HR_FACE) & 1)
    if nsb + nhr == 4:
        return False                    # the joker bomb
    w = <int>((one >> hb) & 1) + <int>((two >> hb) & 1)
    n1 = one & ~hbit & ((<uint64_t>1 << 52) - 1)
    n2 = two & ~hbit & ((<uint64_t>1 << 52) - 1)
    u = n1 | n2
    sf = False
    for s in range(4):
        sf = sf or gd_popcount64(u & (SUIT_FACES << s)) + w >= 5
    # cards per rank (bytes: ranks 0..7, then 8..12), the wilds added
    clo = _byte_popcounts(_nat_bytes(n1, n2, 0))
    chi = _byte_popcounts(_nat_bytes(n1, n2, 32))
    wv = <uint64_t>w * <uint64_t>0x0101010101010101
    clo += wv
    chi = (chi + wv) & <uint64_t>0xFFFFFFFFFF
    add = <uint64_t>0x7C7C7C7C7C7C7C7C  # + 0x7C: bit 7 when 4 cards or more
    if is_bomb_type(t):
        tv = bomb_value(t, k, move_size(top_lo, top_hi), level)
        if sf and tv < 3 * 16:
            return False                # a straight flush may beat it
        if ((clo + add) | (chi + add)) & H:
            for r in range(13):
                m = <int>(((clo if r < 8 else chi) >> (8 * (r & 7))) & 0xFF)
                if m >= 4 and bomb_value(T_BOMB, r, m, level) > tv:
                    return False        # a bomb of rank r may beat it
        return True
    if sf or ((clo + add) | (chi + add)) & H:
        return False                    # a bomb may be there
    if t == T_STRAIGHT or t == T_THREE_PAIR or t == T_TWO_TRIPS:
        return card_count(one, two) < move_size(top_lo, top_hi)
    if t == T_THREE_WITH_TWO:
        if card_count(one, two) < 5:
            return True
        need = 3                        # a stronger triple
    else:
        need = t                        # a stronger single, pair or triple
    add = <uint64_t>(0x80 - need) * <uint64_t>0x0101010101010101
    if ((clo + add) & STRONGER[level][k][0]) | ((chi + add) & STRONGER[level][k][1]):
        return False
    ts = rank_strength(k, level)
    if (nsb >= need and rank_strength(13, level) > ts) or (nhr >= need and rank_strength(14, level) > ts):
        return False
    return True


cdef Gen* gen_new() noexcept nogil:
    """A generator scratch state (NULL when out of memory)."""
    cdef GenImpl* g = <GenImpl*>malloc(sizeof(GenImpl))
    cdef int k
    if g != NULL:
        for k in range(SETUPS):
            g.skey[k][0] = <uint64_t>0xFFFFFFFFFFFFFFFF     # no hand: faces are 54 bits
            g.skey[k][1] = <uint64_t>0xFFFFFFFFFFFFFFFF
            g.slevel[k] = -1
    return <Gen*>g


cdef void gen_free(Gen* g) noexcept nogil:
    free(g)


cdef int generate_with(Gen* g, uint64_t one, uint64_t two, int level,
                       uint64_t last_lo, uint64_t last_hi, int flags,
                       MoveBuf* out) noexcept nogil:
    """Append the legal plays of (one, two) at ``level`` answering ``last``
    (0, 0: leading) to ``out``, using the scratch ``g``; -1 out of memory."""
    return _generate_with(<GenImpl*>g, one, two, level, last_lo, last_hi, flags, out)


cdef int generate_types(Gen* g, uint64_t one, uint64_t two, int level,
                        uint64_t last_lo, uint64_t last_hi, int flags, uint32_t types,
                        MoveBuf* out) noexcept nogil:
    """:func:`generate_with` restricted to the move types of the bit mask
    ``types`` (bit t: type t; 0: the set-up alone): the plays of those types
    of the whole list, in its order. For profiling, and for a policy that
    knows which types it looks for (the expert's lead)."""
    cdef GenImpl* gi = <GenImpl*>g
    cdef int rc = gen_setup(gi, one, two, level, last_lo, last_hi, flags, out)
    gi.types &= types
    if rc == 0:
        rc = run_gen(gi)
    return rc


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


cdef int generate_batch(Gen* g, const uint8_t* counts, const int64_t* levels,
                        const uint64_t* last, bint has_last, Py_ssize_t n, int flags,
                        MoveBuf* out, int64_t* off) noexcept nogil:
    """The plays of ``n`` hands given as 54 card counts each (``counts``), hand
    i at ``levels[i]`` answering row i of ``last`` (when ``has_last``, else
    leading), appended to ``out``; ``off[i + 1]`` is ``out.n`` after hand i.
    -1 out of memory."""
    cdef GenImpl* gi = <GenImpl*>g
    cdef Py_ssize_t i
    cdef uint64_t one, two
    cdef int rc = 0
    for i in range(n):
        if rc < 0:
            break
        _counts_to_masks(counts + 54 * i, &one, &two)
        if has_last:
            rc = _generate_with(gi, one, two, <int>levels[i], last[2 * i], last[2 * i + 1], flags, out)
        else:
            rc = _generate_with(gi, one, two, <int>levels[i], 0, 0, flags, out)
        off[i + 1] = out.n
    return rc


cdef int classify_into(uint64_t one, uint64_t two, int level, int flags,
                       MoveBuf* out) noexcept nogil:
    """Append every reading of exactly the cards (one, two), highest first."""
    cdef GenImpl* g
    cdef int n = card_count(one, two), rc, i, j
    cdef Py_ssize_t start = out.n, k, m
    cdef uint64_t tl, th
    cdef int64_t vi
    one &= FACE_MASK
    two &= FACE_MASK
    if n < 1 or n > 10:
        return 0
    g = <GenImpl*>malloc(sizeof(GenImpl))
    if g == NULL:
        return -1
    gen_init(g, one, two, level, flags & ~F_PATTERN)
    g.out = out
    g.types = types_of_size(n)
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
# Move words from outside
# ---------------------------------------------------------------------------

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
