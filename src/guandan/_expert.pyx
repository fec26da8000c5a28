# cython: language_level=3
"""The native rule-based expert policy (``"expert"``, code ``POL_EXPERT``).

It decides from a :c:type:`View` only (own hand, card counts, the cards
played this round, the trick, levels, finishing order), without Python and
without looking at any other hand. Every decision comes from one named rule
(``RULE_NAMES``); :func:`explain_view` returns the chosen move with the rule.

The pieces, each a small nogil function:

* card counting (:func:`build_tab`): the cards still out (two decks minus
  the own hand minus the cards played), and for every type and key how many
  stronger plays could still be made from them (``h``). A group with
  ``h == 0`` is *control*: nothing still out beats it in its type.
* hand decomposition (:func:`best_split`): the split of the hand into plays
  that maximises ``sum(power) - K * groups`` - bombs, straight flushes and
  the joker bomb kept whole, straights / tubes / plates found by a pruned
  depth-first search over windows, wild cards assigned where they gain most
  (a triple into a bomb, a single into a pair, a sequence gap), triples
  carrying the weakest pairs as full houses. Power falls with ``h``.
* leading (:func:`lead`), following (:func:`follow`), tribute and return
  (:func:`tribute_pick`, :func:`back_pick`): named rules over the
  decomposition and the counts.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy
cimport cython

from guandan._core cimport MoveList, Hand
from guandan._gen cimport (
    Gen, MoveBuf, generate_types, generate_with, card_count, F_PATTERN, F_SETUP_CACHE, types_of_size, may_be_bomb,
    cannot_beat,
    rank_strength, is_bomb_type,
    gd_ctz64, gd_popcount64, gd_nibble_bytes, gd_nibble_bit0s, gd_compiler_barrier,
    T_PASS, T_SINGLE, T_PAIR, T_TRIPS, T_THREE_PAIR, T_THREE_WITH_TWO, T_TWO_TRIPS,
    T_STRAIGHT, T_STRAIGHT_FLUSH, T_BOMB, T_JOKER_BOMB, T_TRIBUTE, TAG_SHIFT,
)
from guandan._engine cimport (
    View, State, view_of, POL_EXPERT, PH_TRIBUTE, PH_BACK, PH_PLAY, policy_register, policy_add, policy_set_play,
    NativeView, rng_next,
)

cimport numpy as cnp
import numpy as np

from .errors import GuandanError

cnp.import_array()

cdef uint64_t FACE_MASK = (<uint64_t>1 << 54) - 1
cdef uint64_t RANK_MASK = (<uint64_t>1 << 52) - 1
cdef uint64_t M55 = <uint64_t>0x5555555555555555
cdef uint64_t M33 = <uint64_t>0x3333333333333333

# ---------------------------------------------------------------------------
# Rules (every decision names the one that fired)
# ---------------------------------------------------------------------------

cdef enum:
    R_NONE = 0
    R_ONLY_MOVE = 1
    R_GO_OUT = 2
    R_LEAD_WEAKEST = 3
    R_LEAD_CONTROL = 4
    R_LEAD_UNFOLLOWABLE = 5
    R_LEAD_STRONG = 6
    R_LEAD_FOR_PARTNER = 7
    R_LEAD_BOMB = 8
    R_LET_PARTNER = 9
    R_LET_PARTNER_OUT = 10
    R_FOLLOW = 11
    R_STOP = 12
    R_STOP_BOMB = 13
    R_BOMB_OUT = 14
    R_PASS = 15
    R_TRIBUTE = 16
    R_RETURN = 17
    R_FALLBACK = 18
    R_BLOCK = 19
    R_COUNT = 20

RULE_NAMES = (
    "none", "only-move", "go-out", "lead-weakest-group", "lead-control-then-out",
    "lead-unfollowable", "lead-strong-vs-short-opponent", "lead-for-partner", "lead-bomb",
    "let-partner-lead", "let-partner-go-out", "follow-without-breaking", "stop-opponent",
    "stop-opponent-with-bomb", "bomb-to-go-out", "pass-keep-hand", "tribute-forced",
    "return-cheapest", "fallback", "block-next-opponent",
)

# ---------------------------------------------------------------------------
# Parameters (integers; one point of power ~ one rank of strength x 4)
# ---------------------------------------------------------------------------

ctypedef struct Params:
    int K              # cost of one group (one turn to play it)
    int b1, s1, c1     # singles: base power, minus s1 per stronger rank still out, control bonus
    int b2, s2, c2     # pairs
    int b3, s3, c3     # triples and full houses
    int bs, ss, cs     # straights, tubes, plates
    int hcap           # cap on the count of stronger plays
    int bomb, bstep    # bomb power: bomb + bstep * (size - 4)
    int st_odd         # a straight window is tried when it takes this many odd ranks
    int tempo          # following: value of taking the trick
    int tempo_ctrl     # ... more when the play is control
    int follow_min     # follow when the gain exceeds this
    int stop           # an opponent on top with this many cards or fewer must be stopped
    int bomb_opp       # bombs allowed against an opponent on top with this many cards or fewer
    int lead_size      # lead priority per card of the group
    int danger         # an opponent with this many cards or fewer: lead what they cannot follow
    int feed           # partner with this many cards or fewer: lead for them
    int ret_str        # return: penalty per strength point of the returned card
    int nodes          # search budget (decomposition nodes)
    int max_eval       # following: plays evaluated beyond those that are whole groups
    int max_bombs      # following: bombs evaluated beyond those that are whole groups
    int urg, urg_from  # following an opponent with n < urg_from cards: tempo + urg * (urg_from - n)
    int bomb_out_max   # bomb to go out only with at most this many groups left (unless no bomb is out)
    int block          # the next opponent holds this many cards or fewer: play over a weak partner play
    int sfsets         # decomposition: sets of straight flushes tried (each with the node budget)

cdef Params P
cdef uint64_t P_GEN = 1             # bumped by every parameter change (cached splits invalid)

cdef void _default_params() noexcept:
    P.K = 30
    P.b1 = 0
    P.s1 = 4
    P.c1 = 16
    P.b2 = 4
    P.s2 = 4
    P.c2 = 16
    P.b3 = 8
    P.s3 = 4
    P.c3 = 16
    P.bs = 16
    P.ss = 4
    P.cs = 16
    P.hcap = 12
    P.bomb = 110
    P.bstep = 12
    P.st_odd = 3
    P.tempo = 8
    P.tempo_ctrl = 8
    P.follow_min = 0
    P.stop = 3
    P.bomb_opp = 6
    P.lead_size = 6
    P.danger = 4
    P.feed = 2
    P.ret_str = 1
    P.nodes = 60
    P.max_eval = 1000
    P.max_bombs = 1000
    P.urg = 16
    P.urg_from = 10
    P.bomb_out_max = 2
    P.block = 2
    P.sfsets = 8

_default_params()

# Derived from P once per parameter change (build_tab reads them per
# decision): the power of a group by the count of stronger plays still out
# (0..15) for singles, pairs, triples and sequences, and of bombs by size.
cdef int16_t PWT[4][16]
cdef int16_t BPWT[11]
cdef int16_t SFPW                   # a straight flush kept as a bomb (between 5- and 6-card bombs)
cdef int16_t JBPW                   # the joker bomb

# A leaf's sums (LB.k) packed in one word, so that adding or removing a
# group is one addition: the groups (bits 0..7), the control groups
# (8..15), the bombs (16..23), the pairs (24..31), the triples (32..39) and
# the score (40..63, signed: read with an arithmetic shift). Every count is
# 0..255 and the score fits when the sums are read (they are those of real
# counts then), so the word's carries and borrows cancel out.
cdef enum:
    LK_SC = 40
cdef uint64_t LK_H = 1
cdef uint64_t LK_NC = (<uint64_t>1) << 8
cdef uint64_t LK_NB = (<uint64_t>1) << 16
cdef uint64_t LK_NP = (<uint64_t>1) << 24
cdef uint64_t LK_NT = (<uint64_t>1) << 32
cdef uint64_t DKT[3][16]            # n (1..3) cards as one group, by the stronger plays out: [n - 1][h]
cdef uint64_t BKT[11]               # a bomb of n cards (4..10)
cdef uint64_t JBK                   # the joker bomb
cdef uint64_t SKT[16]               # a sequence (straight, tube, plate), by the stronger ones out
cdef uint64_t SFK                   # a straight flush kept as a bomb


cdef inline uint64_t lk_score(int sc) noexcept nogil:
    """A score in the packed sums' score field."""
    return (<uint64_t><int64_t>sc) << LK_SC


cdef inline int lk_sc(uint64_t k) noexcept nogil:
    """The score of packed sums."""
    return <int>((<int64_t>k) >> LK_SC)


cdef Style EXPERT_STYLE              # the expert's own style: its current parameters (_derive_params)


cdef void _derive_params() noexcept:
    global JBK, SFK, SFPW, JBPW
    cdef int h, k
    style_of_params(&EXPERT_STYLE)
    for h in range(16):
        PWT[0][h] = power(P.b1, P.s1, P.c1, h)
        PWT[1][h] = power(P.b2, P.s2, P.c2, h)
        PWT[2][h] = power(P.b3, P.s3, P.c3, h)
        PWT[3][h] = power(P.bs, P.ss, P.cs, h)
        for k in range(3):
            DKT[k][h] = (lk_score(<int16_t>(PWT[k][h] - P.K)) + LK_H + (LK_NC if h == 0 else 0)
                         + (LK_NP if k == 1 else 0) + (LK_NT if k == 2 else 0))
        SKT[h] = lk_score(<int16_t>(PWT[3][h] - P.K)) + LK_H + (LK_NC if h == 0 else 0)
    for k in range(11):
        BPWT[k] = <int16_t>(P.bomb + P.bstep * (k - 4 + (1 if k >= 6 else 0)))
        BKT[k] = lk_score(BPWT[k]) + LK_NB
    SFPW = <int16_t>(P.bomb + P.bstep * 3 // 2)
    JBPW = <int16_t>(P.bomb + P.bstep * 9)
    SFK = lk_score(SFPW) + LK_NB
    JBK = lk_score(JBPW) + LK_NB


_PARAM_NAMES = ("K", "b1", "s1", "c1", "b2", "s2", "c2", "b3", "s3", "c3", "bs", "ss", "cs",
                "hcap", "bomb", "bstep", "st_odd", "tempo", "tempo_ctrl", "follow_min", "stop",
                "bomb_opp", "lead_size", "danger", "feed", "ret_str", "nodes", "max_eval", "max_bombs", "urg",
                "urg_from", "bomb_out_max", "block", "sfsets")


assert len(_PARAM_NAMES) * sizeof(int) == sizeof(Params), "parameter names out of step"


def get_params():
    """The expert's tuning parameters (a dict of ints)."""
    cdef int* p = <int*>&P
    return {n: p[i] for i, n in enumerate(_PARAM_NAMES)}


def set_params(**kw):
    """Change tuning parameters (for measurements; not thread-safe)."""
    global P_GEN
    cdef int* p = <int*>&P
    cdef int cv
    vals = []
    for k, val in kw.items():             # every name and value checked before any is set
        if k not in _PARAM_NAMES:
            raise GuandanError(f"unknown expert parameter {k!r}")
        cv = int(val)
        vals.append((_PARAM_NAMES.index(k), cv))
    for i, cv in vals:
        p[i] = cv
    _derive_params()
    P_GEN += 1


def reset_params():
    global P_GEN
    _default_params()
    _derive_params()
    P_GEN += 1

# ---------------------------------------------------------------------------
# Card counting tables (per decision)
# ---------------------------------------------------------------------------


ctypedef struct Tab:
    int L
    int8_t ord[13]          # rank indices by ascending strength
    int8_t ks[13]           # strength of rank index (rank_strength)
    int8_t out[15]          # cards still out: ranks 0..12 (all suits), 13 SB, 14 HR
    int8_t h1[16]           # by strength: stronger ranks with a single / pair / triple still out
    int8_t h2[16]
    int8_t h3[16]
    int8_t hs[10]           # by key: stronger straights / tubes / plates still makeable
    int8_t ht[12]
    int8_t hp[13]           # (the powers: PWT[0..2][h1..h3[ks]], PWT[3][hs/ht/hp[key]], BPWT[size])
    int8_t bombs_out        # ranks (and the jokers) from which a bomb could still be out
    uint64_t dk[4][16]      # leaf: packed sums (LB.k) of n (0..3) cards of strength ks as one group ([n][ks])


cdef inline int rk(int q) noexcept nogil:
    """Rank index at natural position q (0 = ace-low .. 13 = ace-high)."""
    return 12 if q == 0 else q - 1


cdef inline uint64_t nib_counts(uint64_t x) noexcept nogil:
    """Per nibble, the number of set bits of that nibble."""
    x = x - ((x >> 1) & M55)
    return (x & M33) + ((x >> 2) & M33)


cdef inline uint64_t cards_sig(uint64_t one, uint64_t two, int L) noexcept nogil:
    """Card-count signature: natural count per rank (4 bits each, wilds apart),
    jokers at bits 52 and 54, wilds at bit 56."""
    cdef uint64_t wb = (<uint64_t>1) << (4 * L + 1)
    cdef uint64_t w = ((one & wb) != 0) + ((two & wb) != 0)
    cdef uint64_t n1 = one & ~wb & RANK_MASK, n2 = two & ~wb & RANK_MASK
    cdef uint64_t sig = nib_counts(n1) + nib_counts(n2)
    sig |= ((((one >> 52) & 1) + ((two >> 52) & 1)) << 52)
    sig |= ((((one >> 53) & 1) + ((two >> 53) & 1)) << 54)
    return sig | (w << 56)


cdef extern from *:
    """
    /* per-thread cache of hand splits (the simulator runs seats on several threads) */
    #if defined(_MSC_VER)
    #define GD_TLS __declspec(thread)
    #else
    #define GD_TLS __thread
    #endif
    /* 1,024 entries of 9 words (72 KB a thread): a rollout's four seats
       see dozens of hands, and the same hands again in the next rollout */
    static GD_TLS unsigned long long gd_split_cache[1024 * 9];
    static inline unsigned long long* gd_tls_split_cache(void) { return gd_split_cache; }
    """
    uint64_t* gd_tls_split_cache() noexcept nogil


cdef extern from *:
    """
    /* per-thread memo of a follow's rest values past the dedup's reach (see
       follow()): 2,048 entries, a stamp per call instead of clearing */
    typedef struct {
        unsigned long long k1, k2; unsigned stamp; int ok, best, pad; unsigned long long acc;
    } gd_qmemo_entry;
    static GD_TLS gd_qmemo_entry gd_qmemo[2048];
    static GD_TLS unsigned gd_qmemo_stamp;
    static inline gd_qmemo_entry* gd_tls_qmemo(void) { return gd_qmemo; }
    static inline unsigned gd_qmemo_next(void) {
        if (++gd_qmemo_stamp == 0) {
            memset(gd_qmemo, 0, sizeof gd_qmemo);
            gd_qmemo_stamp = 1;
        }
        return gd_qmemo_stamp;
    }
    """
    ctypedef struct gd_qmemo_entry:
        uint64_t k1
        uint64_t k2
        uint32_t stamp
        int ok
        int best
        uint64_t acc
    gd_qmemo_entry* gd_tls_qmemo() noexcept nogil
    uint32_t gd_qmemo_next() noexcept nogil


cdef enum:
    QMEMO = 2048          # follow(): entries of the rest-value memo (at most half filled)

cdef bint FOLLOW_MEMO = True


def set_follow_memo(bint on):
    """Turn the follow's rest-value memo on (the default) or off, for tests:
    the same choices either way, the memo only spares evaluating a suit
    variant again (not thread-safe)."""
    global FOLLOW_MEMO
    FOLLOW_MEMO = on


cdef bint SHORTCUTS = True


def set_shortcuts(bint on):
    """Turn on (the default) or off, for tests, the work the expert skips
    because it cannot change a choice: a following bomb's value when the
    play is decided without it or when the rest's groups are too many for
    the bomb to go out, a set of straight flushes whose rest an earlier set
    left. The same choices either way. Cached splits are searched again
    (not thread-safe)."""
    global SHORTCUTS, P_GEN
    SHORTCUTS = on
    P_GEN += 1


cdef inline int pop16(uint32_t x) noexcept nogil:
    return gd_popcount64(x & 0xFFFF)


cdef inline int clampi(int x, int hi) noexcept nogil:
    return x if x < hi else hi


cdef inline int16_t power(int base, int step, int ctrlb, int h) noexcept nogil:
    return <int16_t>(base - step * clampi(h, P.hcap) + (ctrlb if h == 0 else 0))


# by level: rank indices by ascending strength (the level rank last) and
# the strength of each rank index
cdef int8_t ORDT[13][13]
cdef int8_t KST[13][13]


cdef void _level_tables() noexcept:
    cdef int L, r, k
    for L in range(13):
        k = 0
        for r in range(13):
            if r != L:
                ORDT[L][k] = r
                k += 1
            KST[L][r] = <int8_t>rank_strength(r, L)
        ORDT[L][12] = L


_level_tables()
_derive_params()


cdef uint64_t EXP8[256]             # byte i of EXP8[v]: bit i of v


cdef void _exp8_table() noexcept:
    cdef int v, i
    for v in range(256):
        EXP8[v] = 0
        for i in range(8):
            EXP8[v] |= (<uint64_t>((v >> i) & 1)) << (8 * i)


_exp8_table()


cdef inline void suffix_counts(uint32_t m, uint64_t* lo, uint64_t* hi) noexcept nogil:
    """Byte s (lo: s 0..7, hi: s 8..15): the set bits of m above bit s."""
    cdef uint64_t ones = <uint64_t>0x0101010101010101
    cdef uint64_t pa = EXP8[m & 255] * ones                 # byte k: bits 0..k
    cdef uint64_t pb = EXP8[(m >> 8) & 255] * ones + (pa >> 56) * ones
    cdef uint64_t t = (pb >> 56) * ones
    lo[0] = t - pa
    hi[0] = t - pb


cdef inline void tab_powers(uint32_t m, int8_t* hs, uint64_t* dk, const uint64_t* dkt) noexcept nogil:
    """For the 16 strengths s: hs[s] the bits of m above s (stronger ranks
    out) and dk[s] = dkt[hs[s]] (the packed sums of the group)."""
    cdef uint64_t lo, hi
    cdef int s
    suffix_counts(m, &lo, &hi)
    memcpy(hs, &lo, 8)
    memcpy(hs + 8, &hi, 8)
    gd_compiler_barrier()
    for s in range(16):
        dk[s] = dkt[<uint8_t>hs[s]]


cdef inline void seq_counts(uint32_t m, int n, int8_t* hs) noexcept nogil:
    """For the n (9..16) sequence keys q: hs[q] the windows of m above q
    (stronger windows the cards out could fill)."""
    cdef uint64_t lo, hi
    suffix_counts(m, &lo, &hi)
    memcpy(hs, &lo, 8)
    memcpy(hs + 8, &hi, n - 8)


cdef void build_tab(Tab* tb, uint64_t one, uint64_t two, uint64_t pone, uint64_t ptwo,
                    int L) noexcept nogil:
    cdef int r, s, q, n
    cdef uint32_t o1 = 0, o2 = 0, o3 = 0, m1 = 0, m2 = 0, m3 = 0
    cdef uint64_t own = nib_counts(one & RANK_MASK) + nib_counts(two & RANK_MASK)
    cdef uint64_t pl = nib_counts(pone & RANK_MASK) + nib_counts(ptwo & RANK_MASK)
    cdef uint64_t x, g1, g2, g3
    cdef uint32_t a1, a2, a3, lb = (<uint32_t>1) << L
    cdef bint fast = (((two & pone) | (one & ptwo) | (two & ~one) | (ptwo & ~pone)) & RANK_MASK) == 0
    tb.L = L
    memcpy(tb.ord, ORDT[L], 13)
    memcpy(tb.ks, KST[L], 13)
    if fast:
        # at most two copies of a face between the hand and the plays: every
        # rank's count out (a nibble of x) is 0..8, computed word-wide
        x = <uint64_t>0x8888888888888 - own - pl
        g1 = gd_nibble_bytes(x)
        memcpy(tb.out, &g1, 8)
        g1 = gd_nibble_bytes(x >> 32)
        memcpy(tb.out + 8, &g1, 5)
        g1 = (x | (x >> 1) | (x >> 2) | (x >> 3)) & <uint64_t>0x1111111111111
        g2 = ((x >> 1) | (x >> 2) | (x >> 3)) & <uint64_t>0x1111111111111
        g3 = ((x >> 2) | (x >> 3) | ((x >> 1) & x)) & <uint64_t>0x1111111111111
        a1 = gd_nibble_bit0s(g1)
        a2 = gd_nibble_bit0s(g2)
        a3 = gd_nibble_bit0s(g3)
        # by strength (m: strength s has at least 1 / 2 / 3 cards out: the
        # level rank at 13), by natural position (o: the ace also at 0)
        m1 = (a1 & ~lb) | (((a1 >> L) & 1) << 13)
        m2 = (a2 & ~lb) | (((a2 >> L) & 1) << 13)
        m3 = (a3 & ~lb) | (((a3 >> L) & 1) << 13)
        o1 = (a1 << 1) | ((a1 >> 12) & 1)
        o2 = (a2 << 1) | ((a2 >> 12) & 1)
        o3 = (a3 << 1) | ((a3 >> 12) & 1)
    else:
        for r in range(13):
            n = 8 - <int>((own >> (4 * r)) & 15) - <int>((pl >> (4 * r)) & 15)
            tb.out[r] = <int8_t>n
            s = tb.ks[r]
            m1 |= <uint32_t>(n >= 1) << s
            m2 |= <uint32_t>(n >= 2) << s
            m3 |= <uint32_t>(n >= 3) << s
            q = r + 1
            o1 |= <uint32_t>(n >= 1) << q
            o2 |= <uint32_t>(n >= 2) << q
            o3 |= <uint32_t>(n >= 3) << q
        n = tb.out[12]
        o1 |= <uint32_t>(n >= 1)
        o2 |= <uint32_t>(n >= 2)
        o3 |= <uint32_t>(n >= 3)
    tb.out[13] = <int8_t>(2 - <int>((one >> 52) & 1) - <int>((two >> 52) & 1)
                          - <int>((pone >> 52) & 1) - <int>((ptwo >> 52) & 1))
    tb.out[14] = <int8_t>(2 - <int>((one >> 53) & 1) - <int>((two >> 53) & 1)
                          - <int>((pone >> 53) & 1) - <int>((ptwo >> 53) & 1))
    m1 |= (<uint32_t>(tb.out[13] >= 1) << 14) | (<uint32_t>(tb.out[14] >= 1) << 15)
    m2 |= (<uint32_t>(tb.out[13] >= 2) << 14) | (<uint32_t>(tb.out[14] >= 2) << 15)
    # stronger ranks still out (triples: ranks only), by strength, and their powers
    memset(tb.dk[0], 0, sizeof(tb.dk[0]))
    tab_powers(m1, tb.h1, tb.dk[1], DKT[0])
    tab_powers(m2, tb.h2, tb.dk[2], DKT[1])
    tab_powers(m3, tb.h3, tb.dk[3], DKT[2])
    # sequences: stronger windows that the cards still out could fill
    # (o1/o2/o3: natural positions with at least 1/2/3 cards out; bit q: window at q fits)
    seq_counts(o1 & (o1 >> 1) & (o1 >> 2) & (o1 >> 3) & (o1 >> 4) & 0x3FF, 10, tb.hs)
    seq_counts(o2 & (o2 >> 1) & (o2 >> 2) & 0xFFF, 12, tb.ht)
    seq_counts(o3 & (o3 >> 1) & 0x1FFF, 13, tb.hp)
    n = (tb.out[13] == 2 and tb.out[14] == 2)
    if fast:
        n += gd_popcount64(((x >> 2) | (x >> 3)) & <uint64_t>0x1111111111111)   # nibbles >= 4
    else:
        for r in range(13):
            n += tb.out[r] >= 4
    tb.bombs_out = <int8_t>n


# ---------------------------------------------------------------------------
# Hand counts
# ---------------------------------------------------------------------------

ctypedef struct HC:
    int8_t c[13]            # natural cards per rank (the wilds apart)
    int8_t w, sb, hr
    uint16_t s1[4]          # per suit: natural positions held (bit q), once / twice
    uint16_t s2[4]


cdef void hand_counts(uint64_t one, uint64_t two, int L, HC* h) noexcept nogil:
    """The counts of the hand (word-wide: no loop over its cards)."""
    cdef int hb = 4 * L + 1, s
    cdef uint64_t wb = (<uint64_t>1) << hb
    cdef uint64_t n1 = one & ~wb & RANK_MASK, n2 = two & ~wb & RANK_MASK
    cdef uint64_t cnt = nib_counts(n1) + nib_counts(n2)
    cdef uint64_t y
    cdef uint32_t q
    y = gd_nibble_bytes(cnt)
    memcpy(h.c, &y, 8)
    y = gd_nibble_bytes(cnt >> 32)
    memcpy(h.c + 8, &y, 5)
    h.w = <int8_t>(((one >> hb) & 1) + ((two >> hb) & 1))
    h.sb = <int8_t>(((one >> 52) & 1) + ((two >> 52) & 1))
    h.hr = <int8_t>(((one >> 53) & 1) + ((two >> 53) & 1))
    # per suit, bit q: natural position q held (rank q - 1; the ace also at 0)
    for s in range(4):
        q = gd_nibble_bit0s((n1 >> s) & <uint64_t>0x1111111111111) << 1
        h.s1[s] = <uint16_t>(q | ((q >> 13) & 1))
        q = gd_nibble_bit0s((n2 >> s) & <uint64_t>0x1111111111111) << 1
        h.s2[s] = <uint16_t>(q | ((q >> 13) & 1))


cdef extern from *:
    """
    /* Bit i of the result: byte i of x equals the byte k8 repeats (exact: no
       borrow between bytes). */
    static inline unsigned gd_bytes_eq(unsigned long long x, unsigned long long k8) {
        unsigned long long y = x ^ k8;
        unsigned long long t = ((y & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | y;
        t = ~t & 0x8080808080808080ULL;
        return (unsigned)(((t >> 7) * 0x0102040810204080ULL) >> 56);
    }
    /* m[k]: the ranks (bit r) of the 13 counts c[0..12] holding k cards
       (k = 4: four or more); reads the 16 bytes from c (HC: c, w, sb, hr). */
    #if defined(__SSE2__)
    static inline void gd_count_masks(const signed char* c, unsigned* m) {
        __m128i v = _mm_loadu_si128((const __m128i*)c);
        unsigned a;
        m[0] = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) & 0x1FFFu;
        m[1] = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(1))) & 0x1FFFu;
        m[2] = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(2))) & 0x1FFFu;
        m[3] = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(3))) & 0x1FFFu;
        a = m[0] | m[1] | m[2] | m[3];
        m[4] = ~a & 0x1FFFu;
    }
    #else
    static inline void gd_count_masks(const signed char* c, unsigned* m) {
        unsigned long long lo, hi;
        unsigned k, a = 0;
        memcpy(&lo, c, 8);
        memcpy(&hi, c + 8, 8);
        for (k = 0; k < 4; k++) {
            unsigned long long k8 = 0x0101010101010101ULL * k;
            m[k] = (gd_bytes_eq(lo, k8) | (gd_bytes_eq(hi, k8) << 8)) & 0x1FFFu;
            a |= m[k];
        }
        m[4] = ~a & 0x1FFFu;
    }
    #endif
    """
    void gd_count_masks(const int8_t* c, uint32_t* m) noexcept nogil


cdef inline void pos_masks(const int8_t* c, uint16_t* pm) noexcept nogil:
    """pm[k]: natural positions whose rank holds k cards (k = 4: four or more).
    ``c`` is an HC's counts (16 bytes are read)."""
    cdef uint32_t m[5]
    cdef int k
    gd_count_masks(c, m)
    for k in range(5):
        pm[k] = <uint16_t>((m[k] << 1) | ((m[k] >> 12) & 1))

# ---------------------------------------------------------------------------
# Decomposition search
# ---------------------------------------------------------------------------

ctypedef struct Acc:
    # the sums of a split's groups, packed as a leaf's are (LK_*: score,
    # groups, control groups, bombs; its pair and triple fields are not
    # read), so that adding a group or a leaf is one addition
    uint64_t k


cdef inline int acc_H(const Acc* a) noexcept nogil:
    return <int>(a.k & 255)


cdef inline int acc_nctrl(const Acc* a) noexcept nogil:
    return <int>((a.k >> 8) & 255)


cdef inline int acc_nbomb(const Acc* a) noexcept nogil:
    return <int>((a.k >> 16) & 255)

cdef enum:
    MAXPATH = 12

ctypedef struct LB:
    # a leaf: every single, pair, triple, bomb counted on its own, then pairs
    # carried by triples (full houses) taken off in finish()
    uint64_t k               # packed: score, groups, control groups, bombs, pairs, triples (LK_*)
    uint32_t pm              # pair strengths (bit ks), ascending from bit 0
    int p13                  # pairs of strength 13 (the level rank's and the wilds'): 0..2


ctypedef struct X:
    const Tab* tb
    HC h
    int nodes
    int best
    Acc bacc
    int npath
    int8_t path[MAXPATH]     # applied pieces: tt * 16 + q (tt 0..2 sequences), 48 + s * 16 + q: SF
    int bnpath
    int sfsets               # sets of straight flushes tried
    int8_t bpath[MAXPATH]
    int bopt                 # best leaf's wild option
    HC bh                    # the best leaf's counts (before its wild assignment)
    Acc bpacc                # the sequences' part of the best score
    int replayed             # taken / sfface filled for bpath
    int blb_ok               # blb holds the LB of bh (quick_rest, built on first use)
    LB blb
    int8_t taken[MAXPATH][14]    # cards each best-path entry takes per rank (13: wilds)
    uint64_t sfface[MAXPATH]     # faces of each straight flush of the best path
    uint64_t sfall               # ... and of them all
    uint16_t takenm[MAXPATH]     # the ranks (bit r) each best-path entry takes natural cards of
    uint32_t dok                 # bit i: dh[i] / dlb[i] hold the leaf with entry i dissolved into it
    HC dh[MAXPATH]               # (quick_core's first dissolve, the same for every move: kept
    LB dlb[MAXPATH]              # per split, reset with replayed)


cdef inline int opt_enc(int a, int b, int ws) noexcept nogil:
    return (a + 1) | ((b + 1) << 5) | (ws << 10)


cdef inline uint64_t lk_of(const Tab* tb, int n, int ks) noexcept nogil:
    """The packed leaf sums (LK_*) of a group of n (0..10) cards of strength
    ks (0: none; row 0 of the tables holds no group, so a count of 0 needs
    no branch of its own: it is as often 0 as not, a group taken whole or
    made)."""
    if n >= 4:
        return BKT[n if n <= 10 else 10]
    return tb.dk[n][ks]


cdef inline void lb_change(const Tab* tb, LB* b, int ks, int c0, int c1) noexcept nogil:
    """A group of strength ks goes from c0 to c1 cards (0: none): the leaf's
    packed sums and its pair strengths (pm, p13) follow."""
    cdef uint32_t bit = (<uint32_t>1) << ks
    b.k += lk_of(tb, c1, ks) - lk_of(tb, c0, ks)
    if c0 == 2:
        if b.pm & bit:
            if ks != 13 or b.p13 == 1:
                b.pm &= ~bit
            b.p13 -= ks == 13
        else:
            b.k += LK_NP        # a pair not counted: its count stays
    if c1 == 2:
        b.pm |= bit
        b.p13 += ks == 13


cdef inline void lb_add(const Tab* tb, LB* b, int ks, int n, int sign) noexcept nogil:
    """Add (sign 1) or remove (sign -1) a group of n cards of strength ks."""
    if sign > 0:
        lb_change(tb, b, ks, 0, n)
    else:
        lb_change(tb, b, ks, n, 0)


cdef void lb_build(const Tab* tb, const int8_t* c, int sb, int hr, int ws, LB* b) noexcept nogil:
    """The LB of the counts ``c`` (an HC's: 16 bytes are read) with ``ws``
    wilds alone and the jokers ``sb``/``hr``: the ranks of each count
    visited by masks (the sums do not depend on the order)."""
    cdef int r, n, ks
    cdef uint32_t pm = 0, cm[5], m
    cdef uint64_t k = 0
    gd_count_masks(c, cm)
    for n in range(1, 4):
        m = cm[n]
        while m:
            r = gd_ctz64(m)
            m &= m - 1
            ks = tb.ks[r]
            k += tb.dk[n][ks]
            if n == 2:
                pm |= (<uint32_t>1) << ks
    m = cm[4]
    while m:
        r = gd_ctz64(m)
        m &= m - 1
        n = c[r]
        k += BKT[n if n <= 10 else 10]
    b.k = k
    b.pm = pm
    b.p13 = (pm >> 13) & 1
    if ws:
        lb_add(tb, b, 13, ws, 1)
    if sb == 2 and hr == 2:
        b.k += JBK
    else:
        if sb:
            lb_add(tb, b, 14, sb, 1)
        if hr:
            lb_add(tb, b, 15, hr, 1)


cdef inline uint64_t lb_finish(const Tab* tb, const LB* b) noexcept nogil:
    """The packed sums of the leaf (an Acc's part): triples carry the
    weakest pairs while that gains (the pairs in ascending strength: the
    bits of pm, strength 13 p13 times), each carried pair's group taken
    off the sums."""
    cdef uint64_t bk = b.k, g
    cdef int k = 0, ks
    cdef int npr = <int>((bk >> 24) & 255), nt = <int>((bk >> 32) & 255)
    cdef int lim = npr if npr < nt else nt
    cdef int dup = b.p13 - 1
    cdef uint32_t m = b.pm
    while k < lim:
        ks = gd_ctz64(m)
        g = tb.dk[2][ks]
        if lk_sc(g) >= 0:           # pw2 - K
            break
        bk -= g
        k += 1
        if ks == 13 and dup > 0:
            dup -= 1
        else:
            m &= m - 1
    return bk


cdef inline void lb_move(const Tab* tb, LB* b, const int8_t* c, int r, int add) noexcept nogil:
    """Rank r goes from c[r] to c[r] + add cards."""
    lb_change(tb, b, tb.ks[r], c[r], c[r] + add)


cdef inline void try_lb(const Tab* tb, const LB* b, const Acc* acc, int opt, int* best,
                        Acc* bacc, int* bopt) noexcept nogil:
    cdef uint64_t k = acc.k + lb_finish(tb, b)
    cdef int s = lk_sc(k)
    if s > best[0]:
        best[0] = s
        bacc.k = k
        bopt[0] = opt


cdef inline int first_in_ord(uint32_t m, uint32_t lb, int L) noexcept nogil:
    """The first rank of the mask m in ascending strength (the level rank,
    bit lb, last); -1 if none."""
    if m & ~lb:
        return gd_ctz64(m & ~lb)
    return L if m & lb else -1


cdef inline int leaf_eval(const Tab* tb, const HC* h, const Acc* acc, const LB* base, Acc* bacc_out,
                          int* bopt_out) noexcept nogil:
    """leaf_eval_wild, inline for a leaf without wild cards (most leaves):
    its one option, every card as it is."""
    if h.w:
        return leaf_eval_wild(tb, h, acc, base, bacc_out, bopt_out)
    bacc_out.k = acc.k + lb_finish(tb, base)
    bopt_out[0] = opt_enc(-1, -1, 0)
    return lk_sc(bacc_out.k)


cdef int leaf_eval_wild(const Tab* tb, const HC* h, const Acc* acc, const LB* base, Acc* bacc_out,
                        int* bopt_out) noexcept nogil:
    """The best score of the rest of the hand (the counts ``h``, ``base``
    their LB with every wild left alone) after ``acc``, with its wild cards
    assigned where they gain most: left alone (level cards), or completing
    the weakest single (a pair), pair (a triple), triple (a bomb), or the
    largest bomb; the best option's sums in ``bacc_out``, its code in
    ``bopt_out`` (the first of equal scores)."""
    cdef int w = h.w, i, j, r
    cdef int best = -(1 << 30), bopt = 0
    cdef Acc bacc
    cdef const int8_t* c = h.c
    cdef int t[4]
    cdef int nt = 0
    cdef int t1 = -1, t2 = -1, t3 = -1, t4 = -1
    cdef uint32_t cm[5]
    cdef uint32_t m, lb
    cdef LB b0, b
    try_lb(tb, base, acc, opt_enc(-1, -1, w), &best, &bacc, &bopt)
    if w:
        # the first rank in ascending strength (tb.ord: the level rank last)
        # holding 1, 2, 3 cards, and the first of the most cards (4 or more)
        gd_count_masks(c, cm)
        lb = (<uint32_t>1) << tb.L
        t1 = first_in_ord(cm[1], lb, tb.L)
        t2 = first_in_ord(cm[2], lb, tb.L)
        t3 = first_in_ord(cm[3], lb, tb.L)
        m = cm[4] & ~lb
        while m:
            r = gd_ctz64(m)
            m &= m - 1
            if t4 < 0 or c[r] > c[t4]:
                t4 = r
        if (cm[4] & lb) and (t4 < 0 or c[tb.L] > c[t4]):
            t4 = tb.L
        if t1 >= 0:
            t[nt] = t1
            nt += 1
        if t2 >= 0:
            t[nt] = t2
            nt += 1
        if t3 >= 0:
            t[nt] = t3
            nt += 1
        if t4 >= 0:
            t[nt] = t4
            nt += 1
        # b0: one wild fewer left alone
        b0 = base[0]
        lb_add(tb, &b0, 13, w, -1)
        if w == 2:
            lb_add(tb, &b0, 13, 1, 1)
        for i in range(nt):
            b = b0
            lb_move(tb, &b, c, t[i], 1)
            try_lb(tb, &b, acc, opt_enc(t[i], -1, w - 1), &best, &bacc, &bopt)
        if w == 2:
            lb_add(tb, &b0, 13, 1, -1)          # no wild left alone
            for i in range(nt):
                b = b0
                lb_move(tb, &b, c, t[i], 2)
                try_lb(tb, &b, acc, opt_enc(t[i], t[i], 0), &best, &bacc, &bopt)
                for j in range(i + 1, nt):
                    b = b0
                    lb_move(tb, &b, c, t[i], 1)
                    lb_move(tb, &b, c, t[j], 1)
                    try_lb(tb, &b, acc, opt_enc(t[i], t[j], 0), &best, &bacc, &bopt)
    bacc_out[0] = bacc
    bopt_out[0] = bopt
    return best


cdef inline int leaf_from(X* x, Acc* acc, const LB* base) noexcept nogil:
    """Evaluate the rest of the hand (the counts x.h, ``base`` their LB with
    every wild left alone) with its wild cards assigned where they gain
    most (leaf_eval); the split's best so far when it scores more; returns
    the leaf's best score."""
    return leaf_from_h(x, &x.h, acc, base)


cdef inline int leaf_from_h(X* x, const HC* h, Acc* acc, const LB* base) noexcept nogil:
    """leaf_from of the counts ``h`` (a node's: the search keeps them apart
    from x.h)."""
    cdef int bopt
    cdef Acc bacc
    cdef int best = leaf_eval(x.tb, h, acc, base, &bacc, &bopt)
    if best > x.best:
        x.best = best
        x.bacc = bacc
        x.bopt = bopt
        x.bh = h[0]
        x.bpacc = acc[0]
        x.bnpath = x.npath
        memcpy(x.bpath, x.path, MAXPATH)      # fixed size: inlined (bnpath bounds what is read)
    return best


cdef inline int seq_pw(const Tab* tb, int tt, int q) noexcept nogil:
    if tt == 0:
        return PWT[3][tb.hs[q]]
    if tt == 1:
        return PWT[3][tb.ht[q]]
    return PWT[3][tb.hp[q]]


cdef inline int seq_h(const Tab* tb, int tt, int q) noexcept nogil:
    if tt == 0:
        return tb.hs[q]
    if tt == 1:
        return tb.ht[q]
    return tb.hp[q]


cdef inline bint promising(const uint16_t* pm, uint32_t odd, int w, int tt, int q) noexcept nogil:
    """Whether a window is worth trying: no bomb broken, gaps within the wilds,
    and it takes enough of what would otherwise be odd cards (singles, the
    third card of a triple) or pairs (tubes) or triples (plates). The rule
    as written; the search reads it for every window at once
    (promising_masks)."""
    cdef int need, n2
    if tt == 0:
        if q > 9 or ((pm[4] >> q) & 31) or gd_popcount64((odd >> q) & 31) < P.st_odd:
            return False
        return gd_popcount64((pm[0] >> q) & 31) <= w
    if tt == 1:
        if q > 11 or ((pm[4] >> q) & 7):
            return False
        n2 = gd_popcount64((pm[2] >> q) & 7)
        if n2 == 0:
            return False
        need = 2 * gd_popcount64((pm[0] >> q) & 7) + gd_popcount64((pm[1] >> q) & 7)
        return need <= w and (n2 >= 2 or need >= 1)
    if ((pm[3] >> q) & 3) == 0 or ((pm[4] >> q) & 3):
        return False
    need = (3 * gd_popcount64((pm[0] >> q) & 3) + 2 * gd_popcount64((pm[1] >> q) & 3)
            + gd_popcount64((pm[2] >> q) & 3))
    return need <= w


cdef inline uint32_t win_any(uint32_t m, int ln) noexcept nogil:
    """Bit q: some bit of m in the window q .. q + ln - 1."""
    cdef uint32_t a = 0
    cdef int i
    for i in range(ln):
        a |= m >> i
    return a


cdef inline void win_count(uint32_t m, int ln, uint32_t* c) noexcept nogil:
    """Bit q of c[0], c[1], c[2]: bits 0, 1, 2 of the count of m's bits in
    the window q .. q + ln - 1 (ln <= 7), bit-sliced."""
    cdef uint32_t a0 = 0, a1 = 0, a2 = 0, x, t
    cdef int i
    for i in range(ln):
        x = m >> i
        t = a0 & x
        a0 ^= x
        a2 |= a1 & t
        a1 ^= t
    c[0] = a0
    c[1] = a1
    c[2] = a2


cdef inline uint32_t count_ge(const uint32_t* c, int k) noexcept nogil:
    """Bit q: the bit-sliced count c (0..7) at q is at least k."""
    cdef uint32_t k0, k1, k2
    if k <= 0:
        return 0xFFFFFFFF
    if k > 7:
        return 0
    k0 = 0xFFFFFFFF if k & 1 else 0
    k1 = 0xFFFFFFFF if k & 2 else 0
    k2 = 0xFFFFFFFF if k & 4 else 0
    return ((c[2] & ~k2) | (~(c[2] ^ k2) & ((c[1] & ~k1) | (~(c[1] ^ k1) & (c[0] | ~k0)))))


cdef inline void promising_masks(const uint16_t* pm, uint32_t odd, int w, uint32_t* pr) noexcept nogil:
    """pr[tt], bit q: promising(pm, odd, w, tt, q), for every window at once
    (w 0..2: the wild cards of a hand)."""
    cdef uint32_t c0[3]
    cdef uint32_t c1[3]
    cdef uint32_t c2[3]
    cdef uint32_t z0, z1, z2, one1, none, m
    if w == 0:
        # no wild (most hands): no gap at all - every rank of the window
        # held, none a bomb; tubes of pairs or triples with two pairs at
        # least (two of the window's three ranks in pm[2]); plates of triples
        win_count(odd, 5, c0)
        pr[0] = ~win_any(pm[4] | pm[0], 5) & count_ge(c0, P.st_odd) & 0x3FF
        m = pm[2]
        pr[1] = (~win_any(pm[4] | pm[0] | pm[1], 3)
                 & ((m & (m >> 1)) | (m & (m >> 2)) | ((m >> 1) & (m >> 2))) & 0xFFF)
        pr[2] = win_any(pm[3], 2) & ~win_any(pm[4] | pm[0] | pm[1] | pm[2], 2) & 0x1FFF
        return
    # straights: no bomb broken, at least st_odd odd cards, gaps within the wilds
    win_count(odd, 5, c0)
    win_count(pm[0], 5, c1)
    pr[0] = ~win_any(pm[4], 5) & count_ge(c0, P.st_odd) & ~count_ge(c1, w + 1) & 0x3FF
    # tubes: need = 2 * (empty ranks) + (single ranks) <= w, a pair taken,
    # and two pairs or a card to complete
    win_count(pm[0], 3, c0)
    win_count(pm[1], 3, c1)
    win_count(pm[2], 3, c2)
    z0 = ~(c0[0] | c0[1] | c0[2])                 # no empty rank
    z1 = ~(c1[0] | c1[1] | c1[2])                 # no single
    one1 = c1[0] & ~c1[1] & ~c1[2]                # one single
    none = z0 & z1                                # need 0
    if w == 0:
        m = none
    elif w == 1:
        m = z0 & (z1 | one1)
    else:
        m = (z0 & ~count_ge(c1, 3)) | (c0[0] & ~c0[1] & ~c0[2] & z1)
    pr[1] = (~win_any(pm[4], 3) & win_any(pm[2], 3) & m & (count_ge(c2, 2) | ~none)) & 0xFFF
    # plates: a triple taken, no bomb broken, need = 3 * empty + 2 * single + pairs <= w
    win_count(pm[0], 2, c0)
    win_count(pm[1], 2, c1)
    win_count(pm[2], 2, c2)
    z0 = ~(c0[0] | c0[1])
    z1 = ~(c1[0] | c1[1])
    z2 = ~(c2[0] | c2[1])
    if w == 0:
        m = z0 & z1 & z2
    elif w == 1:
        m = z0 & z1 & ~c2[1]
    else:
        m = z0 & ((z1 & ~(c2[1] & c2[0])) | (c1[0] & ~c1[1] & z2))
    pr[2] = (win_any(pm[3], 2) & ~win_any(pm[4], 2) & m) & 0x1FFF


cdef inline void take_seq(HC* h, int tt, int q) noexcept nogil:
    cdef int k = tt + 1, ln = 5 if tt == 0 else (3 if tt == 1 else 2), i, r, tk
    for i in range(ln):
        r = rk(q + i)
        tk = h.c[r] if h.c[r] < k else k
        h.c[r] -= tk
        h.w -= k - tk


cdef inline void take_seq_lb(HC* h, LB* b, const Tab* tb, int tt, int q) noexcept nogil:
    """take_seq, keeping the leaf's LB (every wild alone) up to date (one
    call per type: each loop's length known, so it is unrolled)."""
    if tt == 0:
        take_win_lb(h, b, tb, q, 1, 5)
    elif tt == 1:
        take_win_lb(h, b, tb, q, 2, 3)
    else:
        take_win_lb(h, b, tb, q, 3, 2)


cdef inline void take_win_lb(HC* h, LB* b, const Tab* tb, int q, int k, int ln) noexcept nogil:
    """take_seq_lb of the window of ``ln`` ranks from q, ``k`` cards each."""
    cdef int i, r, tk, c, w0 = h.w
    for i in range(ln):
        r = rk(q + i)
        c = h.c[r]
        tk = c if c < k else k
        if tk:
            lb_change(tb, b, tb.ks[r], c, c - tk)
            h.c[r] = <int8_t>(c - tk)
        h.w -= k - tk
    if h.w != w0:
        lb_change(tb, b, 13, w0, h.w)


cdef void dfs(X* x, int p, int t, Acc acc) noexcept nogil:
    """Every set of sequences (windows in (position, type) order from (p, t)),
    each evaluated as a leaf."""
    cdef LB b
    lb_build(x.tb, x.h.c, x.h.sb, x.h.hr, x.h.w, &b)
    dfs_lb(x, p, t, acc, &b)


ctypedef struct Child:
    int8_t tt, q
    Acc acc
    HC h
    LB b


cdef enum:
    MAXCHILD = 24


cdef void dfs_lb(X* x, int p, int t, Acc acc, const LB* lb) noexcept nogil:
    x.nodes += 1
    leaf_from(x, &acc, lb)
    dfs_children(x, &x.h, p, t, &acc, lb)


cdef void dfs_children(X* x, const HC* h, int p, int t, const Acc* acc, const LB* lb) noexcept nogil:
    """The children of the node whose counts are ``h`` (one more window
    each), evaluated, then searched best first while the node budget
    lasts."""
    cdef uint16_t pm[5]
    cdef uint32_t odd, cand, pr[3]
    cdef int q, tt, n = 0, i, j, bi, bv, vj
    cdef Child ch[MAXCHILD]
    cdef int8_t idx[MAXCHILD]
    cdef int val[MAXCHILD]          # val[i]: the value of child idx[i]
    cdef Child* c
    cdef int k
    if x.nodes >= P.nodes or x.npath >= MAXPATH:
        return
    pos_masks(h.c, pm)
    odd = pm[1] | pm[3]
    if pop16(odd) < P.st_odd and pm[2] == 0 and pm[3] == 0:
        return
    # the promising windows of each type, from (p, t) on in (position, type) order
    promising_masks(pm, odd, h.w, pr)
    for tt in range(3):
        pr[tt] &= ~((<uint32_t>1 << p) - 1)
        if tt < t:
            pr[tt] &= ~(<uint32_t>1 << p)
    cand = pr[0] | pr[1] | pr[2]
    if cand == 0:
        return                   # most nodes: no window worth trying
    while cand and n < MAXCHILD:
        q = gd_ctz64(cand)
        cand &= cand - 1
        for tt in range(3):
            if not ((pr[tt] >> q) & 1):
                continue
            if n >= MAXCHILD or x.nodes >= P.nodes:
                break
            c = &ch[n]
            c.tt = <int8_t>tt
            c.q = <int8_t>q
            c.b = lb[0]
            c.h = h[0]
            take_seq_lb(&c.h, &c.b, x.tb, tt, q)
            c.acc.k = acc.k + SKT[seq_h(x.tb, tt, q)]
            x.path[x.npath] = <int8_t>(tt * 16 + q)
            x.npath += 1
            x.nodes += 1
            val[n] = leaf_from_h(x, &c.h, &c.acc, &c.b)
            x.npath -= 1
            idx[n] = <int8_t>n
            n += 1
    # best first (a selection sort of indices: the order the children
    # themselves would be sorted in, without moving them; the values
    # move along in val, and the first of the largest is found without
    # a branch)
    for i in range(n):
        bi = i
        bv = val[i]
        for j in range(i + 1, n):
            vj = val[j]
            bi = j if vj > bv else bi
            bv = vj if vj > bv else bv
        if bi != i:
            k = idx[i]
            idx[i] = idx[bi]
            idx[bi] = <int8_t>k
            val[bi] = val[i]
            val[i] = bv
        if x.nodes >= P.nodes:
            break
        c = &ch[idx[i]]
        x.path[x.npath] = <int8_t>(c.tt * 16 + c.q)
        x.npath += 1
        dfs_children(x, &c.h, c.q, c.tt, &c.acc, &c.b)
        x.npath -= 1


cdef inline int sf_need(const HC* h, int s, int q) noexcept nogil:
    return 5 - gd_popcount64((h.s1[s] >> q) & 31)


cdef void take_sf(HC* h, int s, int q) noexcept nogil:
    cdef int i, p, r
    cdef uint16_t bit
    for i in range(5):
        p = q + i
        bit = <uint16_t>(1 << p)
        if h.s1[s] & bit:
            r = rk(p)
            h.c[r] -= 1
            if r == 12:
                bit = <uint16_t>((1 << 13) | 1)
            if h.s2[s] & bit:
                h.s2[s] &= ~bit
            else:
                h.s1[s] &= ~bit
        else:
            h.w -= 1


cdef inline void sf_windows(const HC* h, uint64_t* win) noexcept nogil:
    """win[need], bit s * 10 + q: the straight-flush window q of suit s
    lacks ``need`` (0 or 1) cards (sf_need), a window lacking one only when
    the hand holds a wild to fill it; every window at once (win_count)."""
    cdef uint32_t c[3]
    cdef uint64_t full, four
    cdef int s
    win[0] = 0
    win[1] = 0
    for s in range(4):
        if pop16(h.s1[s]) < 3:
            continue
        win_count(h.s1[s], 5, c)
        full = count_ge(c, 5) & 0x3FF
        four = count_ge(c, 4) & 0x3FF
        win[0] |= full << (10 * s)
        win[1] |= (four & ~full) << (10 * s)
    if h.w < 1:
        win[1] = 0


cdef enum:
    SF_SEEN = 16          # sf_root: the sets of straight flushes whose rests are remembered


ctypedef struct SFSeen:
    int n
    uint64_t key[SF_SEEN][2]    # the rest's counts (HC's first 16 bytes: c, w, sb, hr) ...
    int8_t nsf[SF_SEEN]         # ... and how many straight flushes the set holds


cdef inline bint sf_seen(SFSeen* seen, const HC* h, int nsf) noexcept nogil:
    """Whether an earlier set of as many straight flushes left the same
    counts (then recorded, while there is room)."""
    cdef uint64_t k0, k1
    cdef int i
    memcpy(&k0, h.c, 8)
    memcpy(&k1, h.c + 8, 8)
    for i in range(seen.n):
        if seen.key[i][0] == k0 and seen.key[i][1] == k1 and seen.nsf[i] == nsf:
            return True
    if seen.n < SF_SEEN:
        seen.key[seen.n][0] = k0
        seen.key[seen.n][1] = k1
        seen.nsf[seen.n] = <int8_t>nsf
        seen.n += 1
    return False


cdef void sf_root(X* x, int j0, Acc acc, int nsf, SFSeen* seen) noexcept nogil:
    """Choose at most two straight flushes (kept as bombs; at most one wild
    each; natural ones first), then the sequences; every set of straight
    flushes gets the whole node budget, and at most P.sfsets sets are tried.
    A set whose rest has the same counts as an earlier set's (the same
    windows of other suits) is counted as tried but not searched again:
    the search reads only the counts, and with the same budget and score
    so far it would find the same leaves, none better than the best so
    far (a leaf replaces the best only when strictly better)."""
    cdef int j, s, q, pass_
    cdef HC save
    cdef Acc a
    cdef uint64_t win[2]
    cdef uint64_t m
    x.sfsets += 1
    if not (SHORTCUTS and sf_seen(seen, &x.h, nsf)):
        x.nodes = 0
        dfs(x, 0, 0, acc)
    if nsf >= 2 or x.npath >= MAXPATH:
        return
    sf_windows(&x.h, win)
    for pass_ in range(2):
        m = win[pass_] & ~((<uint64_t>1 << j0) - 1)
        while m:
            if x.sfsets >= P.sfsets:
                return
            j = gd_ctz64(m)
            m &= m - 1
            s = j // 10
            q = j % 10
            memcpy(&save, &x.h, sizeof(HC))
            take_sf(&x.h, s, q)
            a.k = acc.k + SFK
            x.path[x.npath] = <int8_t>(48 + s * 16 + q)
            x.npath += 1
            sf_root(x, j, a, nsf + 1, seen)
            x.npath -= 1
            memcpy(&x.h, &save, sizeof(HC))


cdef bint has_sf(const HC* h) noexcept nogil:
    """Some window of five natural positions of one suit (q 0..9) lacks at
    most one card (none without a wild): sf_need(h, s, q) <= min(w, 1),
    every window at once (win_count)."""
    cdef int s, k = 5 - (h.w if h.w < 1 else 1)
    cdef uint32_t c[3]
    for s in range(4):
        if pop16(h.s1[s]) < 3:
            continue
        win_count(h.s1[s], 5, c)
        if count_ge(c, k) & 0x3FF:
            return True
    return False


ctypedef struct CacheEntry:          # 72 bytes: 9 words of gd_split_cache
    uint64_t one
    uint64_t two
    uint64_t tkey                    # the parameters' generation the split was searched with
    int8_t level
    int8_t npath
    int8_t path[MAXPATH]
    int8_t pad[2]
    HC h                             # the hand's counts with the path's cards taken out


cdef inline CacheEntry* cache_slot(uint64_t one, uint64_t two, int L) noexcept nogil:
    cdef uint64_t hsh = (one * <uint64_t>0x9E3779B97F4A7C15) ^ (two * <uint64_t>0xC2B2AE3D27D4EB4F) ^ <uint64_t>L
    return <CacheEntry*>(gd_tls_split_cache() + 9 * <int>((hsh >> 54) & 1023))


cdef void entry_counts(CacheEntry* e, const HC* h) noexcept nogil:
    """The counts of the hand (``h``) with the cached path's cards taken out
    (once per entry)."""
    cdef int i, k
    memcpy(&e.h, h, sizeof(HC))
    for i in range(e.npath):
        k = e.path[i]
        if k >= 48:
            take_sf(&e.h, (k - 48) >> 4, k & 15)
        else:
            take_seq(&e.h, k >> 4, k & 15)


cdef void rescore(const Tab* tb, const CacheEntry* e, X* x) noexcept nogil:
    """The cached split of this hand, searched with these very tables: its
    sequences and straight flushes applied, its leaf evaluated again - the
    search's own result (so a decision never depends on what was cached).
    The leaf's LB (every wild alone) is kept in x.blb: the leaf's counts
    are the best leaf's (x.bh), whose LB quick_rest and follow() read."""
    cdef Acc acc
    cdef int i, k
    x.tb = tb
    x.replayed = 0
    x.dok = 0
    x.blb_ok = 0
    memcpy(&x.h, &e.h, sizeof(HC))
    x.nodes = 1
    x.best = -(1 << 30)
    acc.k = 0
    for i in range(e.npath):
        k = e.path[i]
        x.path[i] = k
        entry_acc(tb, k, &acc, 1)
    x.npath = e.npath
    lb_build(tb, x.h.c, x.h.sb, x.h.hr, x.h.w, &x.blb)
    leaf_from(x, &acc, &x.blb)
    x.blb_ok = 1


cdef inline bint split_has_sf(uint64_t one, uint64_t two, int L) noexcept nogil:
    """The split of the hand forms straight flushes (searched, and cached,
    when it is not cached yet)."""
    cdef X x
    cdef const CacheEntry* e = split_entry(one, two, L, &x)
    return e.npath > 0 and e.path[0] >= 48


cdef int best_split_cached(const Tab* tb, uint64_t one, uint64_t two, X* x) noexcept nogil:
    """The split of the hand: which sequences and straight flushes to form is
    searched with the tables of the hand alone (nothing played), so it is the
    same every time the hand is seen (cached per thread); the split is then
    scored, its leaf evaluated, with the current tables. A pure function of
    the hand and the tables: a decision never depends on what was cached."""
    rescore(tb, split_entry(one, two, tb.L, x), x)
    return x.best


cdef CacheEntry* split_entry(uint64_t one, uint64_t two, int L, X* x) noexcept nogil:
    """The cache entry of the hand's split at level L, searched (with the
    tables of the hand alone, ``x`` the search's scratch) when it is not
    cached."""
    cdef CacheEntry* e = cache_slot(one, two, L)
    cdef Tab st
    cdef HC h
    if not (e.one == one and e.two == two and e.level == L and e.tkey == P_GEN
            and e.npath >= 0):
        build_tab(&st, one, two, 0, 0, L)
        hand_counts(one, two, L, &h)
        best_split_counts(&st, &h, x)
        e.one = one
        e.two = two
        e.tkey = P_GEN
        e.level = <int8_t>L
        e.npath = <int8_t>x.bnpath
        memcpy(e.path, x.bpath, x.bnpath)
        entry_counts(e, &h)
    return e


cdef int best_split(const Tab* tb, uint64_t one, uint64_t two, X* x) noexcept nogil:
    """Search the best decomposition of the hand (one, two); returns its score
    (details in x: bacc, bpath, bopt)."""
    cdef HC h
    hand_counts(one, two, tb.L, &h)
    return best_split_counts(tb, &h, x)


cdef int best_split_counts(const Tab* tb, const HC* h, X* x) noexcept nogil:
    """best_split() of the hand whose counts are ``h``."""
    cdef Acc acc
    cdef SFSeen seen
    x.tb = tb
    x.replayed = 0
    x.dok = 0
    x.blb_ok = 0
    x.sfsets = 0
    memcpy(&x.h, h, sizeof(HC))
    x.nodes = 0
    x.best = -(1 << 30)
    x.npath = 0
    x.bnpath = 0
    x.bopt = 0
    acc.k = 0
    if has_sf(&x.h):
        seen.n = 0
        sf_root(x, 0, acc, 0, &seen)
    else:
        dfs(x, 0, 0, acc)
    return x.best


cdef inline void entry_acc(const Tab* tb, int e, Acc* a, int sign) noexcept nogil:
    """Add (sign 1) or remove (sign -1) one path entry's part of a score."""
    cdef uint64_t g = SFK if e >= 48 else SKT[seq_h(tb, e >> 4, e & 15)]
    a.k += <uint64_t>(<int64_t>sign) * g


cdef void replay(X* x0, uint64_t one, uint64_t two) noexcept nogil:
    """What each entry of the best path takes from the hand (once per split)."""
    cdef HC h
    cdef int i, e, r, s, q, k, tt, ln, n, tk
    cdef const Tab* tb = x0.tb
    hand_counts(one, two, tb.L, &h)
    for i in range(x0.bnpath):
        e = x0.bpath[i]
        for r in range(14):
            x0.taken[i][r] = 0
        x0.sfface[i] = 0
        if e >= 48:
            s = (e - 48) >> 4
            q = e & 15
            for k in range(5):
                if h.s1[s] & (1 << (q + k)):
                    r = rk(q + k)
                    x0.taken[i][r] += 1
                    x0.sfface[i] |= (<uint64_t>1) << (4 * r + s)
                else:
                    x0.taken[i][13] += 1
            take_sf(&h, s, q)
        else:
            tt = e >> 4
            q = e & 15
            k = tt + 1
            ln = 5 if tt == 0 else (3 if tt == 1 else 2)
            for n in range(ln):
                r = rk(q + n)
                tk = h.c[r] if h.c[r] < k else k
                h.c[r] -= tk
                h.w -= k - tk
                x0.taken[i][r] += tk
                x0.taken[i][13] += k - tk
    x0.sfall = 0
    for i in range(x0.bnpath):
        x0.sfall |= x0.sfface[i]
        k = 0
        for r in range(13):
            if x0.taken[i][r]:
                k |= 1 << r
        x0.takenm[i] = <uint16_t>k
    x0.replayed = 1


cdef inline uint32_t need_ranks(uint64_t sig) noexcept nogil:
    """The ranks (bit r) a card-count signature takes natural cards of."""
    cdef uint64_t t = sig & RANK_MASK
    return gd_nibble_bit0s((t | (t >> 1) | (t >> 2) | (t >> 3)) & <uint64_t>0x1111111111111)


cdef inline int count_deficit(const HC* h, uint64_t sig, int nw) noexcept nogil:
    """How many of the signature's ranks (and its wilds) h holds too few of:
    byte by byte, counts (0..8) against the signature's (0..8), the high
    bit of (count | 0x80) - need clear where the need is larger (no borrow
    between bytes)."""
    cdef uint64_t clo, chi, hb = <uint64_t>0x8080808080808080
    memcpy(&clo, h.c, 8)
    memcpy(&chi, h.c + 8, 8)
    return (<int>(nw > h.w)
            + gd_popcount64(~((clo | hb) - gd_nibble_bytes(sig)) & hb)
            + gd_popcount64(~((chi | hb) - gd_nibble_bytes((sig >> 32) & 0xFFFFF)) & (hb & <uint64_t>0xFFFFFFFFFF)))


def _word_wide_mismatches(int trials, uint64_t seed):
    """For tests: random hand counts (0..8 cards a rank, 0..2 wilds, counts
    of 0..4 most often), the word-wide forms against the rules as written -
    promising_masks against promising() for every window, has_sf and
    sf_windows against sf_need over the windows, count_deficit against a
    loop over the ranks;
    returns the number of disagreements (0)."""
    cdef HC h
    cdef uint16_t pm[5]
    cdef uint32_t pr[3]
    cdef uint32_t odd
    cdef uint64_t st = seed | 1, sig, v
    cdef int r, tt, q, s, bad = 0, want, d, nw, _
    cdef uint64_t win[2]
    cdef bint sf
    for _ in range(trials):
        memset(&h, 0, sizeof(HC))
        for r in range(13):
            st ^= st << 13
            st ^= st >> 7
            st ^= st << 17
            v = st % 16
            h.c[r] = <int8_t>(v if v < 5 else (v % 5 if v < 13 else v - 8))
        st ^= st << 13
        st ^= st >> 7
        st ^= st << 17
        h.w = <int8_t>(st % 3)
        for s in range(4):
            st ^= st << 13
            st ^= st >> 7
            st ^= st << 17
            h.s1[s] = <uint16_t>(st & 0x3FFE)
            h.s1[s] |= (h.s1[s] >> 13) & 1
        pos_masks(h.c, pm)
        odd = pm[1] | pm[3]
        promising_masks(pm, odd, h.w, pr)
        for tt in range(3):
            for q in range(10 if tt == 0 else (12 if tt == 1 else 13)):
                if ((pr[tt] >> q) & 1) != promising(pm, odd, h.w, tt, q):
                    bad += 1
        sf = False
        for s in range(4):
            if pop16(h.s1[s]) < 3:
                continue
            for q in range(10):
                if sf_need(&h, s, q) <= (h.w if h.w < 1 else 1):
                    sf = True
        bad += sf != has_sf(&h)
        sf_windows(&h, win)
        for s in range(4):
            for q in range(10):
                d = sf_need(&h, s, q)
                want = 0 if pop16(h.s1[s]) < 3 else (d == 0) | ((d == 1 and h.w >= 1) << 1)
                bad += <int>((win[0] >> (10 * s + q)) & 1) != (want & 1)
                bad += <int>((win[1] >> (10 * s + q)) & 1) != (want >> 1)
        sig = 0
        for r in range(13):
            st ^= st << 13
            st ^= st >> 7
            st ^= st << 17
            if st % 3 == 0:
                sig |= (st >> 8) % 9 << (4 * r)
        nw = <int>((st >> 20) % 3)
        sig |= (<uint64_t>nw) << 56
        want = nw > h.w
        for r in range(13):
            want += <int>((sig >> (4 * r)) & 15) > h.c[r]
        d = count_deficit(&h, sig, nw)
        bad += d != want
    return bad


def _rest_floor_check(Hand hand not None, int level, MoveList moves not None, Hand played=None):
    """For tests: the hand's split (its tables with the cards ``played``
    out of the game: none by default) and, for each move of the list,
    rest_h_floor against the groups of quick_split's split of the rest
    (when the floor finds that split); returns (moves
    checked, floors above those groups, quick evaluations that failed)."""
    cdef Tab tb
    cdef X x
    cdef X xr
    cdef LB lb0
    cdef Py_ssize_t i
    cdef uint64_t mo, mt, csig
    cdef int fl, checked = 0, bad = 0, failed = 0
    cdef bint sfs
    if level < 0 or level > 12:
        raise GuandanError(f"level index must be 0..12, got {level}")
    build_tab(&tb, hand.one, hand.two, played.one if played is not None else 0,
              played.two if played is not None else 0, level)
    best_split_cached(&tb, hand.one, hand.two, &x)
    sfs = x.bnpath > 0 and x.bpath[0] >= 48
    lb0 = x.blb
    for i in range(moves.buf.n):
        if mtype(&moves.buf, i) == T_PASS or mtype(&moves.buf, i) > T_JOKER_BOMB:
            continue
        mo = moves.buf.data[2 * i]
        mt = moves.buf.data[2 * i + 1]
        csig = cards_sig(mo, mt, level)
        fl = rest_h_floor(&x, hand.one, hand.two, csig, mo)
        if fl < 0:
            continue
        checked += 1
        if not quick_split(&x, &lb0, not sfs, hand.one, hand.two, csig, mo, &xr):
            failed += 1
        elif fl > acc_H(&xr.bacc):
            bad += 1
    return checked, bad, failed


cdef inline void dissolve(const X* x0, int i, HC* h, LB* b) noexcept nogil:
    """Entry i of x0's best path given back to the leaf: its cards added to
    the counts ``h`` and their sums ``b``."""
    cdef const Tab* tb = x0.tb
    cdef int r, c, t, w
    cdef uint32_t m = x0.takenm[i]
    while m:
        r = gd_ctz64(m)
        m &= m - 1
        c = h.c[r]
        t = x0.taken[i][r]
        lb_recount(tb, b, tb.ks[r], c, c + t)
        h.c[r] = <int8_t>(c + t)
    t = x0.taken[i][13]
    if t:
        w = h.w
        lb_recount(tb, b, 13, w, w + t)
        h.w = <int8_t>(w + t)


cdef inline bint may_dissolve(X* x0, uint64_t one, uint64_t two, uint64_t mo, int deficit) noexcept nogil:
    """Whether quick_core looks for entries of x0's path to give back to
    the leaf for a move (words ``mo``; the leaf lacking ``deficit`` of its
    cards): the leaf lacks some, or a straight flush of the split holds
    some of the move's cards. The path is replayed first when it may be
    needed (once per split)."""
    cdef bint sf = x0.bnpath > 0 and x0.bpath[0] >= 48
    if (deficit or sf) and not x0.replayed:
        replay(x0, one, two)
    return deficit or (sf and (mo & x0.sfall) != 0)


cdef inline bint must_dissolve(const X* x0, int i, const HC* h, uint64_t sig, uint64_t mo, uint32_t needm,
                               int nw, int deficit) noexcept nogil:
    """Whether quick_core gives entry i of x0's path (replayed) back to the
    leaf ``h`` for a move of the signature ``sig`` (words ``mo``, ranks
    ``needm``, ``nw`` wilds): a straight flush whose very cards the move
    plays, or, while the leaf lacks cards (``deficit``), an entry holding
    some the leaf lacks."""
    cdef uint32_t m
    cdef int r
    if x0.bpath[i] >= 48 and (x0.sfface[i] & mo):
        return True
    if not deficit:
        return False
    m = needm & x0.takenm[i]
    while m:
        r = gd_ctz64(m)
        m &= m - 1
        if <int>((sig >> (4 * r)) & 15) > h.c[r]:
            return True
    return nw > h.w and x0.taken[i][13] != 0


cdef bint quick_core(X* x0, const LB* lb, uint64_t one, uint64_t two, uint64_t sig, uint64_t mo,
                     X* x) noexcept nogil:
    """quick_rest / quick_value: x0's leaf (its LB ``lb``) minus the cards of
    the signature ``sig`` (the move's words ``mo``: the straight flushes of
    the split whose cards it plays are dissolved), by deltas on the LB. Sets
    x.best and x.bacc (the value of the rest's split and its sums) and
    x.h (the rest's leaf) only: x is not a split to search from."""
    cdef const Tab* tb = x0.tb
    cdef LB b
    cdef Acc acc
    cdef uint32_t drop = 0          # the path entries dissolved (bit i)
    cdef int r, n, c, w, i, e, deficit, nw = <int>((sig >> 56) & 3)
    cdef uint32_t needm = need_ranks(sig), m
    memcpy(&x.h, &x0.bh, sizeof(HC))
    memcpy(&b, lb, sizeof(LB))
    acc = x0.bpacc
    deficit = count_deficit(&x0.bh, sig, nw)     # x.h as copied (not read back from the copy)
    if may_dissolve(x0, one, two, mo, deficit):
        # dissolve, last first, the entries holding cards the leaf lacks
        # (and straight flushes whose very cards the move plays; none
        # when the move plays no card of theirs and the leaf lacks none)
        for i in range(x0.bnpath - 1, -1, -1):
            if not must_dissolve(x0, i, &x.h, sig, mo, needm, nw, deficit):
                continue
            e = x0.bpath[i]
            if drop == 0:
                # the first entry dissolved starts from the leaf as it is:
                # the same counts and sums for every move (kept per split)
                if not ((x0.dok >> i) & 1):
                    memcpy(&x0.dh[i], &x0.bh, sizeof(HC))
                    memcpy(&x0.dlb[i], lb, sizeof(LB))
                    dissolve(x0, i, &x0.dh[i], &x0.dlb[i])
                    x0.dok |= (<uint32_t>1) << i
                memcpy(&x.h, &x0.dh[i], sizeof(HC))
                memcpy(&b, &x0.dlb[i], sizeof(LB))
            else:
                dissolve(x0, i, &x.h, &b)
            drop |= (<uint32_t>1) << i
            entry_acc(tb, e, &acc, -1)
            deficit = count_deficit(&x.h, sig, nw)
        if deficit:
            return False
    m = needm
    while m:
        r = gd_ctz64(m)
        m &= m - 1
        n = <int>((sig >> (4 * r)) & 15)
        c = x.h.c[r]
        lb_recount(tb, &b, tb.ks[r], c, c - n)
        x.h.c[r] = <int8_t>(c - n)
    if nw:
        w = x.h.w
        lb_recount(tb, &b, 13, w, w - nw)
        x.h.w = <int8_t>(w - nw)
    n = <int>((sig >> 52) & 3)
    c = <int>((sig >> 54) & 3)
    if n or c:
        if n > x.h.sb or c > x.h.hr:
            return False
        lb_jokers(tb, &b, x.h.sb, x.h.hr, -1)
        x.h.sb -= n
        x.h.hr -= c
        lb_jokers(tb, &b, x.h.sb, x.h.hr, 1)
    x.best = leaf_eval(tb, &x.h, &acc, &b, &x.bacc, &i)
    return True


cdef bint quick_rest(X* x0, uint64_t one, uint64_t two, uint64_t mo, uint64_t mt,
                     X* x) noexcept nogil:
    """Value of the hand (one, two) minus a move's cards from its best split
    ``x0``, without a new search: the move's cards come from the split's leaf
    (singles, pairs, triples, bombs, free wilds); a sequence or straight flush
    that must give cards up is dissolved into the leaf; then the leaf is
    evaluated again. A lower bound of the best split of the rest (x.best,
    its sums x.bacc: all a caller reads of x). False when no such split is
    found. The leaf's LB is
    kept by deltas from the LB of x0's leaf (built once per split, x0.blb):
    the same sums as building it anew."""
    return quick_rest_sig(x0, one, two, cards_sig(mo & FACE_MASK, mt & FACE_MASK, x0.tb.L), mo, x)


cdef inline bint quick_rest_sig(X* x0, uint64_t one, uint64_t two, uint64_t sig, uint64_t mo,
                                X* x) noexcept nogil:
    """quick_rest of a move whose card signature ``sig`` is known."""
    if not x0.blb_ok:
        lb_build(x0.tb, x0.bh.c, x0.bh.sb, x0.bh.hr, x0.bh.w, &x0.blb)
        x0.blb_ok = 1
    return quick_core(x0, &x0.blb, one, two, sig, mo, x)


cdef inline void lb_jokers(const Tab* tb, LB* b, int sb, int hr, int sign) noexcept nogil:
    """Add (sign 1) or remove (sign -1) the jokers' groups (sb small, hr big)."""
    if sb == 2 and hr == 2:
        b.k += <uint64_t><int64_t>sign * JBK
    else:
        if sb:
            lb_add(tb, b, 14, sb, sign)
        if hr:
            lb_add(tb, b, 15, hr, sign)


cdef inline bint leaf_group(const X* x0, uint64_t sig) noexcept nogil:
    """Whether the cards (signature) are whole groups of the split's leaf:
    every rank they touch given up entirely (nothing broken)."""
    cdef int r, n
    for r in range(13):
        n = <int>((sig >> (4 * r)) & 15)
        if n and n != x0.bh.c[r]:
            return False
    n = <int>((sig >> 52) & 3)
    if n and n != x0.bh.sb:
        return False
    n = <int>((sig >> 54) & 3)
    if n and n != x0.bh.hr:
        return False
    return ((sig >> 56) & 3) <= <uint64_t>x0.bh.w


cdef inline void lb_recount(const Tab* tb, LB* b, int ks, int c0, int c1) noexcept nogil:
    """A rank (or the wilds, ks 13 with c the number left alone) goes from c0 to c1 cards."""
    if c0 != c1:
        lb_change(tb, b, ks, c0, c1)


cdef int rest_h_floor(X* x0, uint64_t one, uint64_t two, uint64_t sig, uint64_t mo) noexcept nogil:
    """A floor on the groups (acc_H) of quick_core's split of the hand
    (one, two) minus the cards of ``sig`` (the move's words ``mo``): the
    entries of x0's path quick_core dissolves (the same ones, found the
    same way, on the counts alone) given back to the leaf; then the kept
    sequences (H counts no straight flush and no bomb), and the leaf's
    groups of 1 to 3 cards less the pairs triples carry (at most
    min(pairs, triples)), where each wild left can remove a group (it
    makes a triple a bomb) and add a carry (it makes a single a pair or a
    pair a triple), or stand alone. -1 when quick_core finds no split."""
    cdef uint32_t cm[5], bit
    cdef uint32_t m, needm
    cdef int r, c, k, i, e, sb, hr, w, H = acc_H(&x0.bpacc), nw = <int>((sig >> 56) & 3)
    cdef int n[4]
    cdef HC h                               # the leaf's counts (c, w, sb, hr read)
    cdef int deficit = count_deficit(&x0.bh, sig, nw)
    memcpy(&h, &x0.bh, sizeof(HC))
    if may_dissolve(x0, one, two, mo, deficit):
        needm = need_ranks(sig)
        for i in range(x0.bnpath - 1, -1, -1):
            if not must_dissolve(x0, i, &h, sig, mo, needm, nw, deficit):
                continue
            e = x0.bpath[i]
            m = x0.takenm[i]
            while m:
                r = gd_ctz64(m)
                m &= m - 1
                h.c[r] += x0.taken[i][r]
            h.w += x0.taken[i][13]
            H -= e < 48
            deficit = count_deficit(&h, sig, nw)
        if deficit:
            return -1
    w = h.w - nw
    gd_count_masks(h.c, cm)
    m = need_ranks(sig)
    while m:
        r = gd_ctz64(m)
        m &= m - 1
        bit = (<uint32_t>1) << r
        c = h.c[r] - <int>((sig >> (4 * r)) & 15)
        for k in range(1, 4):
            cm[k] &= ~bit
        if 1 <= c <= 3:
            cm[c] |= bit
    n[1] = pop16(cm[1])
    n[2] = pop16(cm[2])
    n[3] = pop16(cm[3])
    sb = h.sb - <int>((sig >> 52) & 3)
    hr = h.hr - <int>((sig >> 54) & 3)
    if sb < 0 or hr < 0:
        return -1
    if not (sb == 2 and hr == 2):
        n[sb] += sb > 0
        n[hr] += hr > 0
    # groups less carries, each wild taking off at most two (a group and a carry)
    k = n[1] + (n[2] if n[2] > n[3] else n[3]) - 2 * w
    c = n[1] + n[2] + n[3] - w                 # ... and never below half the groups
    c = (c + 1) // 2 if c > 0 else 0
    return H + (k if k > c else c)


cdef bint quick_value(X* x0, const LB* lb0, uint64_t one, uint64_t two, uint64_t sig,
                      X* x) noexcept nogil:
    """quick_rest by deltas on the leaf's LB (lb0: the leaf of x0 with its
    wilds alone), for splits without straight flushes: the sequences that
    must give cards up are dissolved into the leaf, the play's cards taken
    out, the leaf evaluated. Fills x like quick_rest; False if no split."""
    return quick_core(x0, lb0, one, two, sig, 0, x)


cdef inline void add_group(Decomp* d, int t, int key, int size, int ctrl, int pw, uint64_t sig) noexcept nogil:
    cdef Group* g
    if d.ng >= MAXG:
        return
    g = &d.g[d.ng]
    d.ng += 1
    g.t = <uint8_t>t
    g.key = <uint8_t>key
    g.size = <uint8_t>size
    g.ctrl = <uint8_t>ctrl
    g.pw = <int16_t>pw
    g.sig = sig


cdef inline uint64_t rank_sig(int r, int nat, int wild) noexcept nogil:
    return ((<uint64_t>nat) << (4 * r)) | ((<uint64_t>wild) << 56)


cdef void decompose(const Tab* tb, uint64_t one, uint64_t two, Decomp* d, X* xp) noexcept nogil:
    """The best decomposition of the hand with its groups listed (the search
    itself in xp when given)."""
    cdef X xl
    cdef X* xx = xp if xp != NULL else &xl
    cdef X x
    cdef HC h
    cdef int i, e, tt, q, s, k, ln, r, tk, a, b, ws, n, ks, K = P.K
    cdef int8_t wc[13]
    cdef int8_t tr[13]
    cdef int8_t pr[16]
    cdef int nt = 0, npr = 0, np2
    cdef uint64_t sig, psig
    best_split_cached(tb, one, two, xx)
    memcpy(&x, xx, sizeof(X))
    d.score = x.best
    d.ngroups = acc_H(&x.bacc)
    d.nctrl = acc_nctrl(&x.bacc)
    d.nbomb = acc_nbomb(&x.bacc)
    d.ng = 0
    hand_counts(one, two, tb.L, &h)
    for i in range(13):
        wc[i] = 0
    for i in range(x.bnpath):
        e = x.bpath[i]
        if e >= 48:
            s = (e - 48) >> 4
            q = e & 15
            sig = 0
            for k in range(5):
                if h.s1[s] & (1 << (q + k)):
                    sig += rank_sig(rk(q + k), 1, 0)
                else:
                    sig += rank_sig(0, 0, 1)
            take_sf(&h, s, q)
            add_group(d, T_STRAIGHT_FLUSH, q, 5, 0, SFPW, sig)
            continue
        tt = e >> 4
        q = e & 15
        k = tt + 1
        ln = 5 if tt == 0 else (3 if tt == 1 else 2)
        sig = 0
        for s in range(ln):
            r = rk(q + s)
            tk = h.c[r] if h.c[r] < k else k
            h.c[r] -= tk
            h.w -= k - tk
            sig += rank_sig(r, tk, k - tk)
        add_group(d, T_STRAIGHT if tt == 0 else (T_THREE_PAIR if tt == 1 else T_TWO_TRIPS),
                  q, ln * k, seq_h(tb, tt, q) == 0, seq_pw(tb, tt, q), sig)
    # the leaf's wild assignment
    a = (x.bopt & 31) - 1
    b = ((x.bopt >> 5) & 31) - 1
    ws = x.bopt >> 10
    if a >= 0:
        h.c[a] += 1
        wc[a] += 1
    if b >= 0:
        h.c[b] += 1
        wc[b] += 1
    for i in range(13):
        r = tb.ord[i]
        n = h.c[r]
        if n == 0:
            continue
        ks = tb.ks[r]
        if n >= 4:
            add_group(d, T_BOMB, r, n, 0, BPWT[n if n <= 10 else 10], rank_sig(r, n - wc[r], wc[r]))
        elif n == 3:
            tr[nt] = r
            nt += 1
        elif n == 2:
            pr[npr] = r
            npr += 1
        else:
            add_group(d, T_SINGLE, r, 1, tb.h1[ks] == 0, PWT[0][tb.h1[ks]], rank_sig(r, 1 - wc[r], wc[r]))
    if ws == 1:
        add_group(d, T_SINGLE, tb.L, 1, tb.h1[13] == 0, PWT[0][tb.h1[13]], rank_sig(0, 0, 1))
    elif ws == 2:
        pr[npr] = 13 + 16          # the wild pair (level)
        npr += 1
    if h.sb == 2 and h.hr == 2:
        add_group(d, T_JOKER_BOMB, 15, 4, 0, JBPW, ((<uint64_t>2) << 52) | ((<uint64_t>2) << 54))
    else:
        if h.sb == 1:
            add_group(d, T_SINGLE, 13, 1, tb.h1[14] == 0, PWT[0][tb.h1[14]], (<uint64_t>1) << 52)
        elif h.sb == 2:
            pr[npr] = 14 + 16
            npr += 1
        if h.hr == 1:
            add_group(d, T_SINGLE, 14, 1, tb.h1[15] == 0, PWT[0][tb.h1[15]], (<uint64_t>1) << 54)
        elif h.hr == 2:
            pr[npr] = 15 + 16
            npr += 1
    # pair ids: 0..12 natural ranks, 29 wild pair, 30 SB pair, 31 HR pair
    np2 = 0
    while np2 < npr and np2 < nt and K - PWT[1][tb.h2[_pair_ks(tb, pr[np2])]] > 0:
        np2 += 1
    for i in range(nt):
        r = tr[i]
        ks = tb.ks[r]
        sig = rank_sig(r, 3 - wc[r], wc[r])
        if i < np2:
            psig = _pair_sig(pr[i], wc)
            add_group(d, T_THREE_WITH_TWO, r, 5, tb.h3[ks] == 0, PWT[2][tb.h3[ks]], sig + psig)
        else:
            add_group(d, T_TRIPS, r, 3, tb.h3[ks] == 0, PWT[2][tb.h3[ks]], sig)
    for i in range(np2, npr):
        ks = _pair_ks(tb, pr[i])
        add_group(d, T_PAIR, _pair_key(tb, pr[i]), 2, tb.h2[ks] == 0, PWT[1][tb.h2[ks]],
                  _pair_sig(pr[i], wc))


cdef inline int _pair_ks(const Tab* tb, int id) noexcept nogil:
    return id - 16 if id >= 16 else tb.ks[id]


cdef inline int _pair_key(const Tab* tb, int id) noexcept nogil:
    if id == 29:
        return tb.L
    if id == 30:
        return 13
    if id == 31:
        return 14
    return id


cdef inline uint64_t _pair_sig(int id, const int8_t* wc) noexcept nogil:
    if id == 29:
        return rank_sig(0, 0, 2)
    if id == 30:
        return (<uint64_t>2) << 52
    if id == 31:
        return (<uint64_t>2) << 54
    return rank_sig(id, 2 - wc[id], wc[id])

# ---------------------------------------------------------------------------
# Decisions
# ---------------------------------------------------------------------------

cdef inline int mtype(const MoveBuf* m, Py_ssize_t i) noexcept nogil:
    return <int>((m.data[2 * i] >> TAG_SHIFT) & 15)


cdef inline int mkey(const MoveBuf* m, Py_ssize_t i) noexcept nogil:
    return <int>((m.data[2 * i + 1] >> TAG_SHIFT) & 31)


cdef inline int msize(const MoveBuf* m, Py_ssize_t i) noexcept nogil:
    return card_count(m.data[2 * i], m.data[2 * i + 1])


cdef inline void minus(uint64_t one, uint64_t two, uint64_t mo, uint64_t mt,
                       uint64_t* ro, uint64_t* rt) noexcept nogil:
    mo &= FACE_MASK
    mt &= FACE_MASK
    ro[0] = (one & ~mo) | (two & mo & ~mt)
    rt[0] = two & ~mo


cdef int play_h(const Tab* tb, int t, int key) noexcept nogil:
    """Stronger plays of the same type still makeable from the cards out."""
    if t == T_SINGLE:
        return tb.h1[rank_strength(key, tb.L)]
    if t == T_PAIR:
        return tb.h2[rank_strength(key, tb.L)]
    if t == T_TRIPS or t == T_THREE_WITH_TWO:
        return tb.h3[rank_strength(key, tb.L)]
    if t == T_STRAIGHT:
        return tb.hs[key] if key < 10 else 0
    if t == T_THREE_PAIR:
        return tb.ht[key] if key < 12 else 0
    if t == T_TWO_TRIPS:
        return tb.hp[key] if key < 13 else 0
    return 0


cdef Py_ssize_t find_group_move(const View* v, X* x, MoveBuf* moves, const Group* g) noexcept nogil:
    """The legal move playing exactly the group, or -1. With straight flushes
    in the split, the suits are chosen to keep the best rest."""
    cdef Py_ssize_t i, best = -1
    cdef int bs = -(1 << 30)
    cdef X xr
    cdef bint sfs = x.bnpath > 0 and x.bpath[0] >= 48
    cdef const Tab* tb = x.tb
    for i in range(moves.n):
        if (mtype(moves, i) != g.t and not (g.t == T_STRAIGHT and mtype(moves, i) == T_STRAIGHT_FLUSH)) \
                or mkey(moves, i) != g.key:
            continue
        if cards_sig(moves.data[2 * i], moves.data[2 * i + 1], tb.L) != g.sig:
            continue
        if not sfs or g.t == T_STRAIGHT_FLUSH:
            return i
        if quick_rest_sig(x, v.one, v.two, g.sig, moves.data[2 * i], &xr) and xr.best > bs:
            bs = xr.best
            best = i
    return best


cdef Py_ssize_t go_out_move(MoveBuf* moves, int own, Py_ssize_t start) noexcept nogil:
    cdef Py_ssize_t i
    if own > 10:
        return -1
    for i in range(start, moves.n):
        if mtype(moves, i) != T_PASS and msize(moves, i) == own:
            return i
    return -1


cdef inline int lead_prio(const Style* S, const Group* g) noexcept nogil:
    return -g.pw + S.lead_size * g.size


cdef enum:
    # leading: which groups of the split a heuristic considers and how it
    # ranks them (lead_score)
    L_SMALLEST_BOMB = 0   # any group, the weakest first (the hand is all bombs)
    L_CONTROL = 1         # control non-bombs, more cards first, then the weakest
    L_LONGER = 2          # non-bombs of more than ``arg`` cards, by lead_prio
    L_STRONGEST = 3       # non-bombs, the strongest first, then more cards
    L_PARTNER = 4         # non-bombs of at most ``arg`` cards: ``arg`` cards first, then the weakest
    L_WEAKEST = 5         # non-bombs, by lead_prio
    L_ANY_LEFT = 6        # groups not struck out (T_PASS), by lead_prio, bombs last
    L_SKIP = -(1 << 30)   # lead_score of a group the heuristic does not consider


cdef inline int lead_score(const Style* S, const Group* g, int h, int arg) noexcept nogil:
    """The rank of group ``g`` under leading heuristic ``h`` (higher leads
    first), or L_SKIP when ``h`` does not consider it."""
    if h == L_SMALLEST_BOMB:
        return -g.pw
    if h == L_ANY_LEFT:
        if g.t == T_PASS:
            return L_SKIP
        return lead_prio(S, g) - (1 << 20) * is_bomb_type(g.t)
    if is_bomb_type(g.t):
        return L_SKIP
    if h == L_CONTROL:
        return g.size * 64 - g.pw if g.ctrl else L_SKIP
    if h == L_LONGER:
        return lead_prio(S, g) if g.size > arg else L_SKIP
    if h == L_STRONGEST:
        return g.pw * 64 + g.size
    if h == L_PARTNER:
        return (g.size == arg) * 100000 - g.pw if g.size <= arg else L_SKIP
    return lead_prio(S, g)


cdef inline int best_group(const Style* S, const Decomp* d, int h, int arg) noexcept nogil:
    """The group heuristic ``h`` (with its argument) leads: the highest
    lead_score, the first on ties; -1 when it considers none."""
    cdef int i, p, bi = -1, bp = L_SKIP
    for i in range(d.ng):
        p = lead_score(S, &d.g[i], h, arg)
        if p > bp:
            bp = p
            bi = i
    return bi


cdef int lead_first(const Style* S, const View* v, const Decomp* d, int* rule) noexcept nogil:
    """The group of the split ``d`` the leading heuristics pick first (and
    the rule that picks it); -1 when there is none."""
    cdef int seat = v.seat, i, s, o, omin = 99, pc, bi = -1, nb = 0, nc = 0
    for s in range(1, 4, 2):
        o = v.counts[(seat + s) & 3]
        if 0 < o < omin:
            omin = o
    pc = v.counts[(seat + 2) & 3]
    for i in range(d.ng):
        if not is_bomb_type(d.g[i].t):
            nb += 1
            nc += d.g[i].ctrl
    if nb == 0:
        # only bombs: the smallest first
        bi = best_group(S, d, L_SMALLEST_BOMB, 0)
        rule[0] = R_LEAD_BOMB
    elif nb - nc <= 1 and nc >= 1 and nb >= 2:
        # everything but one group is control: play the controls, then go out
        bi = best_group(S, d, L_CONTROL, 0)
        rule[0] = R_LEAD_CONTROL
    elif omin <= S.danger:
        # an opponent close to out: lead what they cannot follow (more cards than they hold)
        bi = best_group(S, d, L_LONGER, omin)
        rule[0] = R_LEAD_UNFOLLOWABLE
        if bi < 0:
            # all short: lead the strongest
            bi = best_group(S, d, L_STRONGEST, 0)
            rule[0] = R_LEAD_STRONG
    elif 0 < pc <= S.feed:
        # the partner is close to out: lead low plays of their size
        bi = best_group(S, d, L_PARTNER, pc)
        rule[0] = R_LEAD_FOR_PARTNER
    if bi < 0:
        bi = best_group(S, d, L_WEAKEST, 0)
        rule[0] = R_LEAD_WEAKEST
    return bi


cdef inline int lead_next(const Style* S, Decomp* d, int bi, int* rule) noexcept nogil:
    """Group ``bi`` is not a legal play under these rules (a wild straight
    flush on the contest server): strike it out and pick the next group by
    the default order (-1: none left)."""
    d.g[bi].t = T_PASS
    bi = best_group(S, d, L_ANY_LEFT, 0)
    rule[0] = R_LEAD_WEAKEST if bi >= 0 and not is_bomb_type(d.g[bi].t) else R_LEAD_BOMB
    return bi


cdef Py_ssize_t lead(const Style* S, const View* v, const Tab* tb, MoveBuf* moves, int* rule) noexcept nogil:
    cdef int own = card_count(v.one, v.two), bi
    cdef Py_ssize_t mi
    cdef Decomp d
    cdef X x
    mi = go_out_move(moves, own, 0)
    if mi >= 0:
        rule[0] = R_GO_OUT
        return mi
    decompose(tb, v.one, v.two, &d, &x)
    bi = lead_first(S, v, &d, rule)
    while bi >= 0:
        mi = find_group_move(v, &x, moves, &d.g[bi])
        if mi >= 0:
            return mi
        bi = lead_next(S, &d, bi, rule)
    rule[0] = R_FALLBACK
    return fallback_lead(tb, moves)


cdef inline bint lets_partner_play(const Style* S, int top_n, int nxt) noexcept nogil:
    """Following its partner's play (the partner holding ``top_n`` cards, the
    next opponent ``nxt``), the expert passes whatever it holds: the partner
    is close to out, or the next opponent is not. Otherwise it plays over a
    weak partner play (follow())."""
    return top_n <= S.feed or not (0 < nxt <= S.block)


cdef inline uint32_t group_types(int t) noexcept nogil:
    """The move types (bit t) among which find_group_move looks for a group
    of type ``t`` (a straight may be played as a straight flush)."""
    if t == T_STRAIGHT:
        return ((<uint32_t>1) << T_STRAIGHT) | ((<uint32_t>1) << T_STRAIGHT_FLUSH)
    return (<uint32_t>1) << t


cdef int expert_lead_words(const Style* S, const State* st, Gen* g, MoveBuf* scratch, uint64_t* lo,
                           uint64_t* hi) noexcept nogil:
    """The lead of the expert in style ``S`` from a state (the styled expert
    on the state's legal moves) without generating every legal move: a hand
    of at most 10 cards first looks for a play of all its cards among the
    plays of the types that size may have (lead()'s go_out_move: the first
    in the whole list's order); then each group the leading rules pick is
    looked for among the legal plays of its type alone (the same plays, in
    the same order, as in the whole list). Returns 1 with the move's words
    in ``lo``/``hi``; 0 when this is not a lead or no group of the split is
    a legal play (the fallback): the caller then asks the policy with the
    whole list; -1 out of memory."""
    cdef int seat = st.to_act, bi, rule, own
    cdef Py_ssize_t mi
    cdef View v
    cdef Tab tb
    cdef Decomp d
    cdef X x
    if st.phase != PH_PLAY or st.top_seat >= 0:
        return 0
    own = card_count(st.one[seat], st.two[seat])
    # a play of 4 or 7..10 cards is a bomb: a hand that cannot be one has no
    # play of all its cards, and nothing to generate
    if own <= 10 and ((own != 4 and own < 7) or may_be_bomb(st.one[seat], st.two[seat], st.rlevel)):
        scratch.n = 0
        if generate_types(g, st.one[seat], st.two[seat], st.rlevel, st.top_lo, st.top_hi,
                          st.rules.gen_flags | F_SETUP_CACHE, types_of_size(own), scratch) < 0:
            return -1
        mi = go_out_move(scratch, own, 0)
        if mi >= 0:
            lo[0] = scratch.data[2 * mi]
            hi[0] = scratch.data[2 * mi + 1]
            return 1
    view_of(st, seat, &v)
    build_tab(&tb, v.one, v.two, v.pone, v.ptwo, v.rlevel)
    decompose(&tb, v.one, v.two, &d, &x)
    bi = lead_first(S, &v, &d, &rule)
    while bi >= 0:
        scratch.n = 0
        if generate_types(g, st.one[seat], st.two[seat], st.rlevel, st.top_lo, st.top_hi,
                          st.rules.gen_flags | F_SETUP_CACHE, group_types(d.g[bi].t), scratch) < 0:
            return -1
        mi = find_group_move(&v, &x, scratch, &d.g[bi])
        if mi >= 0:
            lo[0] = scratch.data[2 * mi]
            hi[0] = scratch.data[2 * mi + 1]
            return 1
        bi = lead_next(S, &d, bi, &rule)
    return 0


cdef enum:
    PATTERN_MAX = 128     # follow(): a pattern list of more plays is not used (its dedup table's reach)


cdef int expert_follow_words(const Style* S, const State* st, Gen* g, MoveBuf* scratch, uint64_t* lo,
                             uint64_t* hi) noexcept nogil:
    """The follow of the expert in style ``S`` from a state (the styled
    expert on the state's legal moves) from the pattern list instead of the
    whole list: the same move (follow() evaluates one play per type and
    cards by rank, the first in the list's order, and the pattern list holds
    those). The partner's play is passed without any list when the expert
    would pass it anyway.
    When the split holds straight flushes (whose cards tell suit variants
    apart) it decides from the whole list itself. Returns 1 with the move's
    words in ``lo``/``hi``; 0 when the pattern list is longer than
    PATTERN_MAX: the caller then asks the policy with the whole list; -1
    out of memory."""
    cdef int seat = st.to_act, rule, own, ts = st.top_seat, nxt
    cdef Py_ssize_t mi
    cdef View v
    cdef bint pattern
    own = card_count(st.one[seat], st.two[seat])
    if (ts & 1) == (seat & 1) and own > 10:
        # decide()'s own pass for the partner (it cannot go out in one play)
        nxt = card_count(st.one[(seat + 1) & 3], st.two[(seat + 1) & 3])
        if lets_partner_play(S, card_count(st.one[ts], st.two[ts]), nxt):
            lo[0] = 0
            hi[0] = 0
            return 1
    if own <= 12 and cannot_beat(st.one[seat], st.two[seat], st.rlevel, st.top_lo, st.top_hi):
        # nothing beats the play (no list needed): the pass, decide()'s only
        # move (asked of small hands only: a big one can nearly always beat)
        lo[0] = 0
        hi[0] = 0
        return 1
    # the hand's split (cached for follow(), which needs it) with straight
    # flushes: follow() would ask for the whole list (-2), so it is
    # generated at once
    pattern = not split_has_sf(st.one[seat], st.two[seat], st.rlevel)
    scratch.n = 0
    if generate_with(g, st.one[seat], st.two[seat], st.rlevel, st.top_lo, st.top_hi,
                     st.rules.gen_flags | (F_PATTERN if pattern else 0) | F_SETUP_CACHE,
                     scratch) < 0:
        return -1
    if (pattern and scratch.n > PATTERN_MAX) or scratch.n == 0:
        return 0
    if scratch.n == 1:
        # nothing beats the play: the pass (decide()'s only move)
        lo[0] = scratch.data[0]
        hi[0] = scratch.data[1]
        return 1
    view_of(st, seat, &v)
    mi = decide(S, &v, scratch, &rule, pattern)
    if mi == -2:
        # straight flushes in the split: the whole list after all
        scratch.n = 0
        if generate_with(g, st.one[seat], st.two[seat], st.rlevel, st.top_lo, st.top_hi,
                         st.rules.gen_flags | F_SETUP_CACHE, scratch) < 0:
            return -1
        mi = decide(S, &v, scratch, &rule, False)
    if mi < 0 or mi >= scratch.n:
        return 0
    lo[0] = scratch.data[2 * mi]
    hi[0] = scratch.data[2 * mi + 1]
    return 1


cdef int expert_play(const void* ctx, const State* st, Gen* g, MoveBuf* scratch, uint64_t* lo,
                     uint64_t* hi) noexcept nogil:
    """The play function in the policy table of the expert (``ctx`` NULL:
    its current parameters) and of its styles (``ctx`` the Style; not the
    deviating ones, which draw at random from the list): leads by
    expert_lead_words, follows by expert_follow_words."""
    cdef const Style* S = <const Style*>ctx
    if st.phase != PH_PLAY:
        return 0
    if S == NULL:
        S = &EXPERT_STYLE
    elif S.deviate > 0:
        return 0
    if st.top_seat < 0:
        return expert_lead_words(S, st, g, scratch, lo, hi)
    return expert_follow_words(S, st, g, scratch, lo, hi)


cdef Py_ssize_t fallback_lead(const Tab* tb, MoveBuf* moves) noexcept nogil:
    """The lowest non-bomb play (more cards first)."""
    cdef Py_ssize_t i, best = 0
    cdef int t, v, bv = 1 << 30
    for i in range(moves.n):
        t = mtype(moves, i)
        if t == T_PASS or t > T_JOKER_BOMB:
            continue
        if is_bomb_type(t):
            v = 1 << 20
        else:
            v = (play_strength(t, mkey(moves, i), tb.L)) * 64 - msize(moves, i)
        if v < bv:
            bv = v
            best = i
    return best


cdef inline int play_strength(int t, int key, int L) noexcept nogil:
    if t == T_STRAIGHT or t == T_STRAIGHT_FLUSH or t == T_THREE_PAIR or t == T_TWO_TRIPS:
        return key
    return rank_strength(key, L)


cdef enum:
    SEEN = 256            # following: hash set of the distinct candidate plays


cdef enum:
    MAX_FULL = 3          # following: full searches for plays that break a sequence


cdef inline bint quick_split(X* x, const LB* lb0, bint lb0ok, uint64_t one, uint64_t two, uint64_t csig,
                             uint64_t mo, X* xr) noexcept nogil:
    """The split of the hand (one, two) minus a move's cards (``csig``, the
    words ``mo``) from the hand's split ``x`` without a new search:
    by deltas on its leaf (``lb0``, when ``lb0ok``: no straight flush in
    the split, where quick_rest would do the very same work and fail the
    same way), else from its groups; False when no split is found (a full
    search is then needed)."""
    if lb0ok:
        return quick_value(x, lb0, one, two, csig, xr)
    return quick_rest_sig(x, one, two, csig, mo, xr)


cdef Py_ssize_t follow(const Style* S, const View* v, const Tab* tb, MoveBuf* moves, int* rule,
                       bint pattern) noexcept nogil:
    """The follow (index into moves). ``pattern``: moves is the suit-merged
    pattern list (generate_with ... F_PATTERN: the first move of every
    pattern, in the whole list's order), which holds the first of every
    play this evaluates (one per type and cards by rank) unless the split
    has straight flushes, whose cards tell suit variants apart: then -2 (the
    caller asks again with the whole list)."""
    cdef int own = card_count(v.one, v.two), seat = v.seat, ts = v.top_seat
    cdef int i, j, t, v0, vr, gain, top_n, bg = -(1 << 30), bbg = -(1 << 30), nfull = 0
    cdef Py_ssize_t mi, bi = -1, bbi = -1, bout = -1
    cdef uint64_t sig, ro, rt, mo, mt
    cdef uint64_t seen[SEEN]
    cdef uint64_t csig, sfall
    cdef int nseen = 0, nbe = 0, nne = 0, urg, nxt, sbits = 4, stop = S.stop, bomb_opp = S.bomb_opp
    cdef int ps, bps = -(1 << 30), pc
    cdef bint partner_top, lb0ok
    cdef LB lb0
    cdef Acc qa
    cdef X x
    cdef X xr
    cdef bint sfs, bomb, ok
    cdef gd_qmemo_entry* qm = NULL
    cdef gd_qmemo_entry* qe
    cdef uint32_t qstamp = 0
    cdef int qn = 0, qj = 0
    cdef uint64_t qk2 = 0
    cdef int nsfe = 0
    mi = go_out_move(moves, own, 1)
    if mi >= 0:
        rule[0] = R_GO_OUT
        return mi
    top_n = v.counts[ts]
    partner_top = (ts & 1) == (seat & 1)
    pc = v.counts[(seat + 2) & 3]
    if not partner_top and 0 < pc <= S.guard:
        # the partner is close to out: an opponent's play is stopped at any cost
        stop = 27
        bomb_opp = 27
    if partner_top:
        rule[0] = R_LET_PARTNER_OUT if top_n <= S.feed else R_LET_PARTNER
        nxt = v.counts[(seat + 1) & 3]
        # pass, unless the next opponent is close to out and the partner's
        # play is one they may well beat (not control): then play over it
        if (lets_partner_play(S, top_n, nxt)
                or play_h(tb, (v.top_lo >> TAG_SHIFT) & 15, (v.top_hi >> TAG_SHIFT) & 31) == 0):
            return 0
    v0 = best_split_cached(tb, v.one, v.two, &x)
    # urgency: if we pass, the opponent on top leads; the closer to out, the worse
    urg = S.urg * (S.urg_from - top_n) if top_n < S.urg_from else 0
    if partner_top:
        urg = S.urg * (S.urg_from - nxt) if nxt < S.urg_from else 0
    sfs = x.bnpath > 0 and x.bpath[0] >= 48
    if sfs and pattern:
        return -2
    lb0ok = not sfs
    while sbits < 8 and (1 << sbits) < 2 * moves.n:
        sbits += 1               # at most half full: no more than moves.n entries
    memset(seen, 0, sizeof(uint64_t) << sbits)
    sfall = 0
    if sfs:
        replay(&x, v.one, v.two)
        sfall = x.sfall
        for j in range(x.bnpath):
            nsfe += x.bpath[j] >= 48      # the straight flushes lead the path
    if lb0ok:
        lb0 = x.blb              # the LB of x.bh (rescore)
    if (moves.n > SEEN // 2 or sfs) and FOLLOW_MEMO:
        # the rest values are memoised by what they depend on - the cards
        # by rank, and which of the split's straight flushes the play takes
        # cards of (those it dissolves): a list that may outrun the dedup
        # (its first SEEN // 2 distinct plays) evaluates suit variants
        # again past it, and with straight flushes in the split the dedup
        # tells apart variants that take other cards of the same ones
        qm = gd_tls_qmemo()
        qstamp = gd_qmemo_next()
    for i in range(1, moves.n):
        t = mtype(moves, i)
        if t == T_PASS or t > T_JOKER_BOMB:
            continue
        bomb = is_bomb_type(t)
        if bomb and SHORTCUTS and (partner_top or (bi >= 0 and (top_n <= stop or bg > S.follow_min))
                                   or (bout >= 0 and top_n > stop and top_n > bomb_opp)):
            # the decision no longer depends on a bomb's value: the play bi
            # is taken whatever they are worth, or (against an opponent
            # neither stopped nor bombed at any cost) only the first bomb
            # that goes out could be played, and it is found (bi, bg and
            # bout only grow, so this holds for the rest of the list, which
            # holds the bombs last)
            continue
        mo = moves.data[2 * i]
        mt = moves.data[2 * i + 1]
        csig = cards_sig(mo, mt, tb.L)
        if nseen < SEEN // 2:
            # one evaluation per distinct (type, cards by rank) - suits aside,
            # but for the straight flush cards of the split the play takes
            sig = csig ^ (<uint64_t>t << 58)
            if sfs:
                sig ^= (mo & sfall) * <uint64_t>0xD6E8FEB86659FD93
            j = <int>((sig * <uint64_t>0x9E3779B97F4A7C15) >> (64 - sbits))
            while seen[j] and seen[j] != sig:
                j = (j + 1) & ((1 << sbits) - 1)
            if seen[j]:
                continue
            seen[j] = sig
            nseen += 1
        if bomb:
            if nbe >= S.max_bombs and not leaf_group(&x, csig):
                continue
            nbe += 1
        else:
            if nne >= S.max_eval and not leaf_group(&x, csig):
                continue
            nne += 1
        if (bomb and SHORTCUTS and top_n > stop and top_n > bomb_opp and tb.bombs_out != 0
                and rest_h_floor(&x, v.one, v.two, csig, mo) > S.bomb_out_max):
            # only a bomb that goes out could be played here, and this one
            # leaves more groups than that allows (the split of the rest its
            # evaluation would find has no fewer than the floor, and the
            # evaluation finds one: no full search; its gain is not needed)
            continue
        qe = NULL
        if qm != NULL:
            qk2 = 0
            for j in range(nsfe):
                if x.sfface[j] & mo:
                    qk2 |= (<uint64_t>1) << j
            qj = <int>(((csig * <uint64_t>0x9E3779B97F4A7C15) ^ (qk2 * <uint64_t>0xC2B2AE3D27D4EB4F)) >> 53)
            while qm[qj].stamp == qstamp:
                if qm[qj].k1 == csig and qm[qj].k2 == qk2:
                    qe = &qm[qj]
                    break
                qj = (qj + 1) & (QMEMO - 1)
        if qe != NULL:
            ok = qe.ok
            xr.best = qe.best
            xr.bacc.k = qe.acc
        else:
            ok = quick_split(&x, &lb0, lb0ok, v.one, v.two, csig, mo, &xr)
            if qm != NULL and qn < QMEMO // 2:
                qe = &qm[qj]
                qe.stamp = qstamp
                qe.k1 = csig
                qe.k2 = qk2
                qe.ok = ok
                qe.best = xr.best
                qe.acc = xr.bacc.k
                qn += 1
        if not ok:
            if nfull >= MAX_FULL:
                continue
            nfull += 1
            minus(v.one, v.two, mo, mt, &ro, &rt)
            best_split(tb, ro, rt, &xr)
        vr = xr.best
        qa = xr.bacc
        gain = vr - v0
        if bomb:
            if (acc_H(&qa) - acc_nctrl(&qa) <= 1 and bout < 0
                    and (acc_H(&qa) <= S.bomb_out_max or tb.bombs_out == 0)):
                bout = i
            if gain > bbg:
                bbg = gain
                bbi = i
        else:
            gain += S.tempo + (S.tempo_ctrl if play_h(tb, t, mkey(moves, i)) == 0 else 0) + urg
            if S.follow_high:
                # the strongest play worth playing (the better split on ties)
                if gain > S.follow_min:
                    ps = play_strength(t, mkey(moves, i), tb.L)
                    if ps > bps or (ps == bps and gain > bg):
                        bps = ps
                        bg = gain
                        bi = i
            elif gain > bg:
                bg = gain
                bi = i
    mi = 0
    if partner_top:
        if bi >= 0 and bg > S.follow_min:
            rule[0] = R_BLOCK
            return bi
        return 0
    rule[0] = R_PASS
    if top_n <= stop and bi >= 0:
        rule[0] = R_STOP
        mi = bi
    elif top_n <= stop and bbi >= 0:
        rule[0] = R_STOP_BOMB
        mi = bbi
    elif bi >= 0 and bg > S.follow_min:
        rule[0] = R_FOLLOW
        mi = bi
    elif bout >= 0:
        rule[0] = R_BOMB_OUT
        mi = bout
    elif bbi >= 0 and top_n <= bomb_opp:
        rule[0] = R_STOP_BOMB
        mi = bbi
    return mi


cdef Py_ssize_t tribute_pick(const View* v, const Tab* tb, MoveBuf* moves, int* rule) noexcept nogil:
    """Tribute is forced (the highest card); among its suits, keep the best rest."""
    cdef Py_ssize_t i, best = 0
    cdef int bs = -(1 << 30)
    cdef X x
    cdef X xr
    rule[0] = R_TRIBUTE
    best_split_cached(tb, v.one, v.two, &x)
    for i in range(moves.n):
        if quick_rest(&x, v.one, v.two, moves.data[2 * i] & FACE_MASK, 0, &xr) and xr.best > bs:
            bs = xr.best
            best = i
    return best


cdef Py_ssize_t back_pick(const Style* S, const View* v, const Tab* tb, MoveBuf* moves, int* rule) noexcept nogil:
    """Return the card whose loss costs least (a lone low single), lowest on ties."""
    cdef Py_ssize_t i, best = 0
    cdef int s, bs = -(1 << 30), f, j, nseen = 0
    cdef uint64_t lo, sig, sfc, sfall = 0
    cdef uint64_t seen[64]
    cdef uint64_t seen_sf[64]
    cdef bint dup
    cdef X x
    cdef X xr
    rule[0] = R_RETURN
    best_split_cached(tb, v.one, v.two, &x)
    if x.bnpath > 0 and x.bpath[0] >= 48:
        replay(&x, v.one, v.two)
        sfall = x.sfall
    for i in range(moves.n):
        lo = moves.data[2 * i] & FACE_MASK
        # one evaluation per rank: the rest's value and the score depend on
        # the card's suit only when one of the split's straight flushes holds
        # it, and a later card of an equal score never replaces the first
        sig = cards_sig(lo, 0, tb.L)
        sfc = lo & sfall
        dup = False
        for j in range(nseen):
            if seen[j] == sig and seen_sf[j] == sfc:
                dup = True
                break
        if dup:
            continue
        if nseen < 64:
            seen[nseen] = sig
            seen_sf[nseen] = sfc
            nseen += 1
        f = gd_ctz64(lo)
        if not quick_rest(&x, v.one, v.two, lo, 0, &xr):
            continue
        s = xr.best * 16 - S.ret_str * 16 * rank_strength(f >> 2 if f < 52 else f - 39, tb.L)
        if s > bs:
            bs = s
            best = i
    return best


cdef Py_ssize_t expert_decide(const Style* S, const View* v, MoveBuf* moves, int* rule) noexcept nogil:
    """The expert's choice (index into moves) and the rule that fired."""
    return decide(S, v, moves, rule, False)


cdef Py_ssize_t decide(const Style* S, const View* v, MoveBuf* moves, int* rule,
                       bint pattern) noexcept nogil:
    """The expert's choice (index into moves) and the rule that fired.
    ``pattern``: a follow's moves are the pattern list (see follow(): -2
    when that will not do)."""
    cdef Tab tb
    cdef Py_ssize_t mi
    cdef int nxt
    rule[0] = R_NONE
    if moves.n == 0:
        return -1
    if moves.n == 1:
        rule[0] = R_ONLY_MOVE
        return 0
    if v.phase == PH_PLAY and v.top_seat >= 0 and (v.top_seat & 1) == (v.seat & 1):
        # the partner is on top: the common pass needs no tables
        mi = go_out_move(moves, card_count(v.one, v.two), 1)
        if mi >= 0:
            rule[0] = R_GO_OUT
            return mi
        nxt = v.counts[(v.seat + 1) & 3]
        if lets_partner_play(S, v.counts[v.top_seat], nxt):
            rule[0] = R_LET_PARTNER_OUT if v.counts[v.top_seat] <= S.feed else R_LET_PARTNER
            return 0
    build_tab(&tb, v.one, v.two, v.pone, v.ptwo, v.rlevel)
    if v.phase == PH_TRIBUTE:
        return tribute_pick(v, &tb, moves, rule)
    if v.phase == PH_BACK:
        return back_pick(S, v, &tb, moves, rule)
    if v.top_seat < 0:
        return lead(S, v, &tb, moves, rule)
    return follow(S, v, &tb, moves, rule, pattern)


cdef inline void style_of_params(Style* S) noexcept nogil:
    """The expert's own style: its current parameters."""
    S.feed = P.feed
    S.block = P.block
    S.urg = P.urg
    S.urg_from = P.urg_from
    S.max_eval = P.max_eval
    S.max_bombs = P.max_bombs
    S.bomb_out_max = P.bomb_out_max
    S.tempo = P.tempo
    S.tempo_ctrl = P.tempo_ctrl
    S.follow_min = P.follow_min
    S.stop = P.stop
    S.bomb_opp = P.bomb_opp
    S.danger = P.danger
    S.lead_size = P.lead_size
    S.ret_str = P.ret_str
    S.guard = 0
    S.follow_high = 0
    S.deviate = 0


cdef Py_ssize_t expert_policy(const void* ctx, const View* v, MoveBuf* moves, uint64_t* rng) noexcept nogil:
    cdef int rule
    return expert_decide(&EXPERT_STYLE, v, moves, &rule)


cdef Py_ssize_t styled_policy(const void* ctx, const View* v, MoveBuf* moves, uint64_t* rng) noexcept nogil:
    """A styled expert (ctx: its Style); a deviating style draws from the
    policy stream at every play-phase decision with a choice."""
    cdef int rule
    cdef const Style* S = <const Style*>ctx
    if S.deviate > 0 and v.phase == PH_PLAY and moves.n > 1:
        if <int>(rng_next(rng) % 1000) < S.deviate:
            return <Py_ssize_t>(rng_next(rng) % <uint64_t>moves.n)
    return expert_decide(S, v, moves, &rule)


policy_register(POL_EXPERT, expert_policy, NULL, 0)
policy_set_play(POL_EXPERT, expert_play)

# Styles by name: the opponent pool (bots unlike the expert, to measure
# searches against) and the rollout family of the search's opponent models.
# Each is the expert's hand evaluation with other decisions.
_STYLE_CHANGES = {
    # the pool
    "bomber": dict(bomb_opp=27, stop=6, bomb_out_max=27, follow_min=-24),
    "hoarder": dict(max_eval=0, max_bombs=0, bomb_opp=1, stop=1, urg=0, follow_min=8, bomb_out_max=1),
    "partner": dict(block=0, feed=12, guard=10, danger=2),
    "wobbly": dict(deviate=150),
    "rusher": dict(follow_high=1, follow_min=-60, lead_size=40, tempo=40),
    # the rollout family (FAM_*: expert, bomb early, keep, eager)
    "fam-bomb-early": dict(bomb_opp=20, stop=4, bomb_out_max=6),
    "fam-keep": dict(max_eval=0, max_bombs=0, bomb_opp=2, stop=2),
    "fam-eager": dict(follow_min=-40, follow_high=1, tempo=24),
}
_STYLE_FIELDS = ("feed", "block", "urg", "urg_from", "max_eval", "max_bombs", "bomb_out_max", "tempo",
                 "tempo_ctrl", "follow_min", "stop", "bomb_opp", "danger", "lead_size", "ret_str",
                 "guard", "follow_high", "deviate")
assert len(_STYLE_FIELDS) * sizeof(int) == sizeof(Style), "style fields out of step"

cdef Style STYLES[8]
cdef int FAMILY[NFAMILY]
#: style name -> native policy code
STYLE_CODES = {}


cdef void _register_styles() except *:
    cdef int k, code
    cdef int* f
    assert len(_STYLE_CHANGES) <= 8, "STYLES holds 8 styles"
    for k, (name, changes) in enumerate(_STYLE_CHANGES.items()):
        style_of_params(&STYLES[k])
        f = <int*>&STYLES[k]
        for key, val in changes.items():
            f[_STYLE_FIELDS.index(key)] = val
        code = policy_add(styled_policy, &STYLES[k], 0)
        if code < 0:
            raise GuandanError("the native policy table is full")
        if STYLES[k].deviate == 0 and policy_set_play(code, expert_play) != 0:
            raise GuandanError("the native policy table refused a play function")
        STYLE_CODES[name] = code
    FAMILY[FAM_EXPERT] = POL_EXPERT
    FAMILY[FAM_BOMB_EARLY] = STYLE_CODES["fam-bomb-early"]
    FAMILY[FAM_KEEP] = STYLE_CODES["fam-keep"]
    FAMILY[FAM_EAGER] = STYLE_CODES["fam-eager"]


_register_styles()


cdef int family_code(int k) noexcept nogil:
    """The native code of rollout style ``k`` (FAM_*)."""
    return FAMILY[k] if 0 <= k < NFAMILY else POL_EXPERT


def style_of(str name):
    """A style's decision parameters (a dict of ints): ``"expert"`` or a
    name of :data:`STYLE_CODES`."""
    cdef int* f
    if name == "expert":
        f = <int*>&EXPERT_STYLE
    elif name in STYLE_CODES:
        f = <int*>&STYLES[list(_STYLE_CHANGES).index(name)]
    else:
        raise GuandanError(f"unknown style {name!r}")
    return {n: f[i] for i, n in enumerate(_STYLE_FIELDS)}

# ---------------------------------------------------------------------------
# Python-facing: explanations and the decomposition
# ---------------------------------------------------------------------------


def explain_view(MoveList moves not None, NativeView view not None):
    """``(index into moves, rule name)`` of the expert's decision on a
    :class:`guandan._engine.NativeView` (as :func:`guandan._engine.choose_from_view`)."""
    cdef int rule = 0
    cdef Py_ssize_t i
    with nogil:
        i = expert_decide(&EXPERT_STYLE, &view.v, &moves.buf, &rule)
    return i, RULE_NAMES[rule]


_TYPE = ("PASS", "Single", "Pair", "Trips", "ThreePair", "ThreeWithTwo", "TwoTrips", "Straight",
         "StraightFlush", "Bomb", "Bomb")


def decompose_hand(Hand hand, int level, Hand played=None):
    """The expert's split of ``hand`` at round level ``level`` (rank index):
    ``{"score", "groups", "control", "bombs", "plays": [(type, key, size,
    control, power), ...]}``, given the cards ``played`` so far."""
    cdef Tab tb
    cdef Decomp d
    cdef uint64_t po = 0, pt = 0
    cdef int i
    if not 0 <= level <= 12:
        raise GuandanError(f"level index must be 0..12, got {level}")
    if played is not None:
        po = played.one
        pt = played.two
    build_tab(&tb, hand.one, hand.two, po, pt, level)
    with nogil:
        decompose(&tb, hand.one, hand.two, &d, NULL)
    plays = [(_TYPE[d.g[i].t], d.g[i].key, d.g[i].size, bool(d.g[i].ctrl), d.g[i].pw)
             for i in range(d.ng)]
    return {"score": d.score, "groups": d.ngroups, "control": d.nctrl, "bombs": d.nbomb,
            "plays": plays}


# ---------------------------------------------------------------------------
# The split features of moves (the learned policies' "guandan" rows)
# ---------------------------------------------------------------------------

cdef enum:
    SPLIT_SEEN = 512       # split_fill: hash set of the distinct (type, cards by rank) plays


cdef inline float _i8(int x) noexcept nogil:
    return <float>(-127 if x < -127 else (127 if x > 127 else x))


@cython.cdivision(True)     # C division in every build: the scores divided toward zero
cdef void split_fill(const View* v, const uint64_t* words, Py_ssize_t m, float* out,
                     Py_ssize_t stride) noexcept nogil:
    """The SPLIT_DIM features of each of the ``m`` moves ``words`` (two
    words a move) of the seat of ``v``, written to ``out + k * stride``
    (zeroed by the caller): the hand's best split before and after the
    move, as the expert values it (small integers, see SPLIT_FEATURES in
    guandan.policies). Moves that differ only by suits share one
    evaluation (but for the cards of a split's straight flushes)."""
    cdef Tab tb
    cdef X x
    cdef X xr
    cdef LB lb0
    cdef Acc a0, qa
    cdef int v0, vr, t, own, size, ph, j, nseen = 0
    cdef Py_ssize_t k
    cdef uint64_t lo, hi, mo, mt, ro, rt, csig, sig, sfall = 0
    cdef uint64_t seen[SPLIT_SEEN]
    cdef int32_t where[SPLIT_SEEN]
    cdef uint8_t used[SPLIT_SEEN]
    cdef bint sfs, lb0ok, bomb, found
    cdef float* row
    if m <= 0:
        return
    build_tab(&tb, v.one, v.two, v.pone, v.ptwo, v.rlevel)
    v0 = best_split_cached(&tb, v.one, v.two, &x)
    a0 = x.bacc
    own = card_count(v.one, v.two)
    sfs = x.bnpath > 0 and x.bpath[0] >= 48
    lb0ok = not sfs
    if sfs:
        replay(&x, v.one, v.two)
        sfall = x.sfall
    if lb0ok:
        lb0 = x.blb              # the LB of x.bh (rescore)
    memset(used, 0, sizeof(used))
    for k in range(m):
        lo = words[2 * k]
        hi = words[2 * k + 1]
        row = &out[k * stride]
        t = <int>((lo >> TAG_SHIFT) & 15)
        vr = v0
        qa = a0
        size = 0
        ph = 0
        if t != T_PASS:
            if t >= T_TRIBUTE:
                mo = lo & FACE_MASK     # tribute and return: one card
                mt = 0
            else:
                mo = lo & FACE_MASK
                mt = hi & FACE_MASK
            size = card_count(mo, mt)
            csig = cards_sig(mo, mt, tb.L)
            # the key too: with wilds the same cards can be plays of other keys,
            # whose beaters differ
            sig = csig ^ (<uint64_t>t << 58) ^ (((hi >> TAG_SHIFT) & 31) * <uint64_t>0x9E3779B97F4A7C15)
            if sfs:
                sig ^= (mo & sfall) * <uint64_t>0xD6E8FEB86659FD93
            j = <int>((sig * <uint64_t>0x9E3779B97F4A7C15) >> 55)
            found = False
            while used[j]:
                if seen[j] == sig:
                    found = True
                    break
                j = (j + 1) & (SPLIT_SEEN - 1)
            if found:
                memcpy(row, &out[where[j] * stride], SPLIT_DIM * sizeof(float))
                continue
            if nseen < SPLIT_SEEN // 2:
                nseen += 1
                used[j] = 1
                seen[j] = sig
                where[j] = <int32_t>k
            if not quick_split(&x, &lb0, lb0ok, v.one, v.two, csig, mo, &xr):
                minus(v.one, v.two, mo, mt, &ro, &rt)
                best_split_cached(&tb, ro, rt, &xr)
            vr = xr.best
            qa = xr.bacc
            bomb = is_bomb_type(t)
            if t < T_TRIBUTE and not bomb:
                ph = play_h(&tb, t, (hi >> TAG_SHIFT) & 31)
                row[11] = 1.0 if ph == 0 else 0.0
            row[9] = 1.0 if leaf_group(&x, csig) else 0.0
        row[0] = _i8((vr - v0) // 4)
        row[1] = _i8(v0 // 8)
        row[2] = _i8(vr // 8)
        row[3] = _i8(acc_H(&a0))
        row[4] = _i8(acc_H(&qa))
        row[5] = _i8(acc_nctrl(&a0))
        row[6] = _i8(acc_nctrl(&qa))
        row[7] = _i8(acc_nbomb(&a0))
        row[8] = _i8(acc_nbomb(&qa))
        row[10] = _i8(ph)
        row[12] = <float>(own - size)
        row[13] = 1.0 if size == own else 0.0


SPLIT_FEATURES_DIM = SPLIT_DIM


def split_rows(MoveList moves not None, NativeView view not None):
    """The split features (``(len(moves), SPLIT_DIM)`` float32) of the moves
    of the seat of ``view`` (:func:`split_fill`)."""
    cdef Py_ssize_t n = moves.buf.n
    out = np.zeros((n, SPLIT_DIM), dtype=np.float32)
    cdef float* o = <float*>cnp.PyArray_DATA(out)
    if n:
        with nogil:
            split_fill(&view.v, moves.buf.data, n, o, SPLIT_DIM)
    return out
