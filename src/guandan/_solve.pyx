# cython: language_level=3
"""Exact perfect-information endgame solver for the current round.

All four hands are known. The value of a finished round, from team 0's view
(seats 0 & 2), is the banker team's promotion: +3 / +2 / +1 when the banker's
partner finished 2nd / 3rd / last, positive when the banker is in team 0 and
negative otherwise (so it is never 0). The level cap at A and the game win at
A are ignored: the value is the round's level points. Seats 0 and 2 maximize,
seats 1 and 3 minimize.

The rules come from the engine itself: moves from ``st_legal`` and
transitions from ``st_apply`` (pass, trick end, 接风 when a player goes out
and the others pass), so the solver never re-implements them. Only the end
of the round is detected before ``st_apply`` (a play that empties the hand
and leaves three players out, or both players of one team), so a leaf
costs no new deal.

Search: fail-soft alpha-beta over integer values in [-3, 3], driven by
null-window tests that bisect the value range; every completed test proves
a bound, so a search stopped by the node or time limit still reports proven
bounds ``lo <= value <= hi``. Static bounds: once the banker is known the
value's sign is fixed and its size is at most 4 - (players out).

Threads: a test searches the root's children in a fixed order (no table
move at the root), and ``threads`` solvers sharing one table all work on
the lowest child not yet finished. Near the top of its tree (the first
``DEFER_PLY`` plies) a solver puts off a move whose position another solver
is searching (a small shared table of busy positions) and takes the next
one, coming back to it at the end (ABDADA, Weill 1996): so they split the
child's moves among them instead of searching the same ones. The first to
finish the child publishes its answer; the others leave it. Table entries
are written as a checked pair of words, so that one torn by two writers
matches no position. A test's answer is its lowest
child that cuts (children before it are always finished, children after it
abandoned) or all of them. Only that answer (value >= t or not) is kept,
never the fail-soft value behind it, which depends on what the shared table
held when; so the tests made, the value, the bounds and the best move (the
first child in that order reaching the value) are the same for any number
of threads, of a search that finishes (where a node or time limit stops one
depends on timing); only the nodes searched differ.

Transposition table: four 16-byte entries to a cache line, the entry with
the cheapest subtree (fewest nodes) replaced; keyed on the position - the four hands, the seat
to act, the play to beat, its seat, the passes since it, the finishing order
so far, the round level and the wild straight flush rule - by two hashes
of the key's words (64 + 32 bits stored, so a false match is astronomically
unlikely); stores proven bounds and the best move.

Suit-free positions: suits matter only for straight flushes. Once no hand
can make one (hands only shrink, so never again), positions are keyed on
rank counts (wilds and jokers apart) and the play to beat on its type, key
and size, and of the moves that differ only in suits one is searched.

Rank-free positions: once no hand can make a sequence (straight, straight
flush, tube, plate) either, every combination left is compared by level
order alone, so the value depends on the ranks only through their order:
positions are keyed on the ranks in play squeezed together (the level rank
keeping its place while a wild is held), the play to beat on where it falls
among the other three players' ranks (which of their cards beat it is all
its rank decides), and of two moves that reach the same squeezed position
(two singles no other card lies between) one is searched.

Transposition cutoffs (ETC): at a node with at least ``ETC_CARDS`` cards
left, every child is made first (after its forced passes) and its table
bucket loaded while the next is made; a child the table already proves
good enough cuts the node before any subtree is searched, and otherwise
the children made are the ones searched. On the hardest stress deals this
takes a quarter of the nodes away; with fewer cards left the subtrees are
too small to pay for making every child.

Forced passes (a follower with no card that beats) are played at once, not
searched as nodes.

Move lists: the generator is a pure function of the hand, the level, the
play to beat and the rule flags, and a search meets the same few hands
against the same few plays millions of times, so each solver keeps the
lists it generated (a hash table of them, emptied when full) and copies a
kept list instead of generating it again: the same list in the same order,
so the search is the same.

Sure exits: a player holding two cards, one of which it can play now and no
opponent can beat (bombs included), goes out next whatever the opponents do
(it plays that card, its partner may pass, it plays the other). The
finishing order that line guarantees bounds the position's value, which
often ends the search of the node at once; otherwise that card is tried
first.

Move ordering: the table's move, then the move that last cut in the same
context - the same hand against the same play to beat, in whatever
position (a table of them shared by the threads; the generator's list for
a context is always the same, so a move is its index there) - then a move
that goes out, then (when the partner is on top) the pass, then non-bombs
with the most cards first (those that break up a rank later, lower ones
first among equals), then the pass, then bombs (smallest first);
optionally a native policy's choice first.
"""

from libc.stdint cimport int8_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, calloc, free, qsort
from libc.string cimport memset, memcpy

from guandan._gen cimport (
    gen_new, gen_free, MoveBuf, buf_reserve, buf_free, generate_with, is_bomb_type, bomb_value,
    key_strength, gd_popcount64, gd_squeeze4, T_PASS, T_SINGLE, T_PAIR, T_TRIPS, T_THREE_WITH_TWO, T_BOMB,
    TAG_SHIFT, gd_prefetch,
)
from guandan._engine cimport (
    GameCore,
    State, PH_PLAY, st_legal, st_apply, policy_choose, st_seed, POL_SLOTS,
)

from .errors import GuandanError

cdef extern from *:
    int __builtin_clzll(unsigned long long) noexcept nogil
    int __builtin_ctzll(unsigned long long) noexcept nogil

cdef extern from "gdthread.h":
    ctypedef struct gd_thread:
        pass
    int gd_thread_start(gd_thread* t, void* (*fn)(void*) noexcept nogil, void* arg) noexcept nogil
    void gd_thread_join(gd_thread* t) noexcept nogil
    uint64_t gd_load64(const uint64_t* p) noexcept nogil
    void gd_store64(uint64_t* p, uint64_t v) noexcept nogil
    int gd_atomic_get(long* p) noexcept nogil
    void gd_atomic_set(long* p, long v) noexcept nogil
    void gd_atomic_min(long* p, int v) noexcept nogil
    int64_t gd_atomic_add64(int64_t* p, int64_t v) noexcept nogil
    void* gd_swap_ptr(void** p, void* v) noexcept nogil
    int gd_put_ptr(void** p, void* v) noexcept nogil

cdef extern from "gdmem.h":
    void* gd_table_alloc(size_t nbytes, void** raw) noexcept nogil

cdef enum:
    MAXPLY = 768
    NPLIES = MAXPLY + 1         # S.plies: a node at ply p < MAXPLY - 1 uses plies p to p + 2
    BUSY_N = 1 << 14            # entries of the threads' table of busy positions
    DEFER_PLY = 32              # plies (from the root) at which they put off busy moves
    NO_LO = -4
    NO_HI = 4
    # move-list cache: 2**GC_BITS slots (half of them used at most) and
    # 2**(GC_BITS + 3) moves (see Solver.gslots)
    GC_BITS = 16
    GC_WORDS = 8                # one cache line a slot: the context (5 words), the list, two orders
    CUT_N = 1 << 17             # entries of the table of moves that cut
    ETC_CARDS = 10              # cards left (all hands) from which children are probed first

cdef int64_t INT64_BIG = 0x7FFFFFFFFFFFFFFF
cdef uint64_t FACE_MASK = (<uint64_t>1 << 54) - 1


cdef inline int pc64(uint64_t x) noexcept nogil:
    """Popcount (the popcnt instruction where the build uses it, else a few
    shifts and adds: see bits.h)."""
    return gd_popcount64(x)


cdef inline int ncards(uint64_t one, uint64_t two) noexcept nogil:
    return pc64(one & FACE_MASK) + pc64(two & FACE_MASK)

# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------

cdef int order_value(const int8_t* order) noexcept nogil:
    """Team-0 value of a full finishing order (banker first)."""
    cdef int b = order[0], p = (order[0] + 2) & 3, i, pos = 3
    for i in range(1, 4):
        if order[i] == p:
            pos = i
            break
    return (4 - pos) if (b & 1) == 0 else -(4 - pos)


cdef inline bint out_ends_round(const State* st, int seat) noexcept nogil:
    """Whether ``seat`` going out next ends the round (as st_apply would
    have it: then three players are out, or both players of one team)."""
    cdef int n = st.nfin + 1
    return n >= 3 or (n == 2 and (st.fin[0] & 1) == (seat & 1))


cdef bint ends_round(const State* st, uint64_t lo, uint64_t hi) noexcept nogil:
    """Whether the seat to act playing (lo, hi) ends the round: the play
    empties its hand and that ends the round."""
    cdef int seat = st.to_act
    if ((lo >> TAG_SHIFT) & 15) == T_PASS:
        return False
    if ncards(lo, hi) != ncards(st.one[seat], st.two[seat]):
        return False
    return out_ends_round(st, seat)


cdef int terminal_value(const State* st, int seat) noexcept nogil:
    """Team-0 value when ``seat`` goes out now and that ends the round."""
    cdef int8_t order[4]
    terminal_order(st, seat, order)
    return order_value(order)


cdef void terminal_order(const State* st, int seat, int8_t* order) noexcept nogil:
    """The full finishing order when ``seat`` goes out now and that ends the
    round (the players still holding cards follow in seat order, as
    st_end_round does)."""
    cdef int k = 0, i, s
    cdef bint seen
    for i in range(st.nfin):
        order[k] = st.fin[i]
        k += 1
    order[k] = seat
    k += 1
    for s in range(4):
        seen = False
        for i in range(k):
            if order[i] == s:
                seen = True
        if not seen:
            order[k] = s
            k += 1


cdef inline void order_bounds(int first, int nout, int* lo, int* hi) noexcept nogil:
    """Bounds every continuation respects once ``nout`` >= 1 players are out,
    ``first`` (the banker) the first of them: the banker fixes the sign, the
    players out cap the partner's place."""
    cdef int m = 4 - nout
    if (first & 1) == 0:
        lo[0] = 1
        hi[0] = m
    else:
        lo[0] = -m
        hi[0] = -1


cdef inline void static_bounds(const State* st, int* lo, int* hi) noexcept nogil:
    """Bounds every continuation of the position respects."""
    if st.nfin == 0:
        lo[0] = -3
        hi[0] = 3
    else:
        order_bounds(st.fin[0], st.nfin, lo, hi)

# ---------------------------------------------------------------------------
# Suit-free (canonical) positions
# ---------------------------------------------------------------------------
# Suits matter only for straight flushes. Once no hand can make one (hands
# only shrink, so never again), two positions that differ only in suits have
# the same value, and two moves that differ only in suits lead to such
# positions: the solver then keys positions on rank counts and tries one move
# of each suit-free kind.

cdef uint64_t M55 = <uint64_t>0x5555555555555555
cdef uint64_t M33 = <uint64_t>0x3333333333333333
cdef uint64_t NAT52 = (<uint64_t>1 << 52) - 1


cdef inline uint64_t nibpop(uint64_t x) noexcept nogil:
    """Popcount of every 4-bit nibble, in place."""
    x = x - ((x >> 1) & M55)
    return (x & M33) + ((x >> 2) & M33)


cdef inline uint64_t canon(uint64_t one, uint64_t two, int level) noexcept nogil:
    """A hand (or a move's cards) without suits: natural cards per rank (4
    bits each, the wild apart), then the wilds, small and big jokers."""
    cdef int wf = 4 * level + 1
    cdef uint64_t nat = NAT52 & ~((<uint64_t>1) << wf)
    cdef uint64_t c = nibpop(one & nat) + nibpop(two & nat)
    c |= (<uint64_t>(((one >> wf) & 1) + ((two >> wf) & 1))) << 52
    c |= (<uint64_t>(((one >> 52) & 1) + ((two >> 52) & 1))) << 54
    c |= (<uint64_t>(((one >> 53) & 1) + ((two >> 53) & 1))) << 56
    return c


cdef inline bint hand_can_sf(uint64_t one, int level, bint wild_sf) noexcept nogil:
    """Whether some 5-card window of one suit (A low or high) can be filled
    with this hand's naturals and wilds."""
    cdef int wf = 4 * level + 1, w = <int>((one >> wf) & 1), s, r, start
    cdef uint32_t m, m14
    cdef uint64_t nat = one & ~((<uint64_t>1) << wf)
    if not wild_sf:
        w = 0
    for s in range(4):
        m = 0
        for r in range(13):
            m |= (<uint32_t>((nat >> (4 * r + s)) & 1)) << r
        if pc64(m) + w < 5:
            continue
        m14 = (m << 1) | ((m >> 12) & 1)
        for start in range(10):
            if pc64((m14 >> start) & 31) + w >= 5:
                return True
    return False


cdef inline bint sf_free(const State* st) noexcept nogil:
    cdef int s
    cdef bint wsf = st.rules.wild_sf
    for s in range(4):
        if hand_can_sf(st.one[s] | st.two[s], st.rlevel, wsf):
            return False
    return True


cdef inline bint run_fillable(const int* cnt, int w, int width, int copies) noexcept nogil:
    """Whether some ``width`` consecutive ranks (natural order, ``cnt[0]`` the
    ace low, ``cnt[13]`` high) hold ``copies`` cards each, ``w`` wilds filling
    the gaps."""
    cdef int i, j, need
    for i in range(14 - width + 1):
        need = 0
        for j in range(i, i + width):
            if cnt[j] < copies:
                need += copies - cnt[j]
        if need <= w:
            return True
    return False


cdef inline bint hand_can_seq(uint64_t c) noexcept nogil:
    """Whether a hand (``canon`` form) can make a straight, a tube or a plate
    (natural order, A low or high, wilds filling gaps). Straight flushes are
    straights, so a hand that cannot make any of these is also suit-free."""
    cdef int w = <int>((c >> 52) & 3), n = w, i
    cdef int cnt[14]
    for i in range(13):
        cnt[i + 1] = <int>((c >> (4 * i)) & 15)
        n += cnt[i + 1]
    if n < 5:
        return False
    cnt[0] = cnt[13]                    # the ace, low
    if run_fillable(cnt, w, 5, 1):      # straight
        return True
    return n >= 6 and (run_fillable(cnt, w, 3, 2) or run_fillable(cnt, w, 2, 3))   # tube, plate


cdef inline bint seq_free(const State* st) noexcept nogil:
    """No hand can make a sequence (straight, straight flush, tube, plate):
    ranks then matter only through their level order (see rank_keys)."""
    cdef int s
    for s in range(4):
        if hand_can_seq(canon(st.one[s], st.two[s], st.rlevel)):
            return False
    return True


cdef inline int position_mode(const State* st) noexcept nogil:
    """0: suits and ranks matter; 1: suit-free (no straight flush can be made);
    2: rank-free as well (no sequence can be made). Hands only shrink, so a
    mode once reached holds for every later position of the round."""
    if seq_free(st):
        return 2
    if sf_free(st):
        return 1
    return 0


# ---------------------------------------------------------------------------
# Keys and the transposition table
# ---------------------------------------------------------------------------

cdef inline uint64_t fmix(uint64_t z) noexcept nogil:
    z ^= z >> 33
    z *= <uint64_t>0xFF51AFD7ED558CCD
    z ^= z >> 33
    z *= <uint64_t>0xC4CEB9FE1A85EC53
    z ^= z >> 33
    return z


cdef uint64_t ZS[12]                    # per word position: salts of the first hash
cdef uint64_t ZM[12]                    # and odd multipliers of the second
cdef int _zi
for _zi in range(12):
    ZS[_zi] = fmix(<uint64_t>0x243F6A8885A308D3 + <uint64_t>(_zi + 1) * <uint64_t>0x9E3779B97F4A7C15)
    ZM[_zi] = fmix(<uint64_t>0x13198A2E03707344 + <uint64_t>(_zi + 1) * <uint64_t>0xD6E8FEB86659FD93) | 1


cdef inline void mix_in(uint64_t* a, uint64_t* b, uint64_t x, int pos) noexcept nogil:
    """Fold the key's word at position ``pos`` into its two hashes. Each word
    is mixed on its own (so the words of a key are hashed in parallel, not in
    one chain), salted and multiplied by its position's constants (so no
    difference between two words maps one onto the other): the first hash is the xor of the
    mixed words (as Zobrist hashing xors one random word per feature), the
    second a sum of them times per-position odd multipliers, mixed once more
    in keys_out."""
    cdef uint64_t u = fmix((x ^ ZS[pos]) * ZM[pos])
    a[0] ^= u
    b[0] += u * ZM[pos]


cdef inline void keys_out(uint64_t a, uint64_t b, uint64_t* k1, uint64_t* k2) noexcept nogil:
    b = fmix(b)
    if a == 0 and <uint32_t>b == 0:
        a = 1                      # (0, 0) marks an empty entry (32 bits of b are stored)
    k1[0] = a
    k2[0] = b


cdef inline uint64_t small_word(const State* st) noexcept nogil:
    cdef uint64_t w = <uint64_t>st.to_act
    cdef int i
    w |= (<uint64_t>(st.top_seat + 1)) << 2
    w |= (<uint64_t>st.passes) << 5
    w |= (<uint64_t>st.nfin) << 7
    for i in range(4):
        w |= (<uint64_t>(st.fin[i] + 1)) << (10 + 3 * i)
    w |= (<uint64_t>st.rlevel) << 22
    w |= (<uint64_t>st.rules.key_bits) << 26
    return w


cdef inline void canon_keys(const State* st, uint64_t* k1, uint64_t* k2) noexcept nogil:
    """Keys of a suit-free position (see sf_free): hands by rank counts, the
    play to beat by type, key and size."""
    cdef uint64_t a = <uint64_t>0x452821E638D01377, b = <uint64_t>0xBE5466CF34E90C6C
    cdef uint64_t w, c
    cdef int s
    for s in range(4):
        c = canon(st.one[s], st.two[s], st.rlevel)
        mix_in(&a, &b, c, s)
    c = ((st.top_lo >> TAG_SHIFT) & 15) | (((st.top_hi >> TAG_SHIFT) & 31) << 4)
    c |= (<uint64_t>ncards(st.top_lo, st.top_hi)) << 9
    w = small_word(st) | (c << 34) | (<uint64_t>1 << 63)
    mix_in(&a, &b, w, 4)
    keys_out(a, b, k1, k2)


cdef inline void rank_keys(const State* st, uint64_t* k1, uint64_t* k2) noexcept nogil:
    """Keys of a rank-free position: see rank_keys_lv."""
    cdef uint64_t c[4]
    cdef uint64_t lv[4]
    cdef int s
    for s in range(4):
        c[s] = canon(st.one[s], st.two[s], st.rlevel)
        lv[s] = level_order(c[s], 4 * st.rlevel)
    rank_keys_lv(st, c, lv, k1, k2)


cdef inline uint64_t level_order(uint64_t x, int L) noexcept nogil:
    """A hand's rank nibbles (``canon`` form) in level order: the level rank
    (``L`` = 4 * level) lifted above A."""
    return (x & ((<uint64_t>1 << L) - 1)) | (((x & NAT52) >> (L + 4)) << L) | (((x >> L) & 15) << 48)


cdef inline uint64_t present_nibbles(uint64_t x) noexcept nogil:
    """The low bit of every non-zero nibble of ``x`` (the 13 rank nibbles)."""
    x = x | (x >> 1)
    return (x | (x >> 2)) & <uint64_t>0x1111111111111


cdef inline uint64_t top_word(const State* st, uint64_t others) noexcept nogil:
    """The play to beat in a rank-free key: its type, its size and, for the
    types compared by one rank (single, pair, trips, three with two, bomb),
    the number of ranks the other players hold at or below its rank in
    level order (``others``: the ranks they hold, one bit a nibble, the
    level rank's set while one of them holds a wild; bit 52 set when one of
    them holds a small joker, bit 53 a big one). The ranks they hold above
    it are the plays that can beat it, which is all its rank decides (the
    player who made it plays again only once the trick is over): so a 9 and
    a 10 that the same cards beat are one play to beat, and so are an ace
    and a small joker that nobody else can beat."""
    cdef int t = (st.top_lo >> TAG_SHIFT) & 15, k = (st.top_hi >> TAG_SHIFT) & 31, tslot
    cdef uint64_t tk = 0
    if t == T_SINGLE or t == T_PAIR or t == T_TRIPS or t == T_THREE_WITH_TWO or t == T_BOMB:
        if k < 13:
            tslot = 12 if k == st.rlevel else (k if k < st.rlevel else k - 1)
            tk = <uint64_t>pc64(others & ((<uint64_t>1 << (4 * tslot + 4)) - 1))
        elif k == 13:                           # small joker(s)
            tk = <uint64_t>pc64(others & ((<uint64_t>1 << 53) - 1))
        else:                                   # big joker(s)
            tk = <uint64_t>pc64(others)
    # (sequences, joker bomb: nobody can make another of that type, no key)
    return (<uint64_t>t) | (tk << 4) | ((<uint64_t>ncards(st.top_lo, st.top_hi)) << 9)


cdef inline void rank_keys_lv(const State* st, const uint64_t* hc, const uint64_t* lv, uint64_t* k1,
                              uint64_t* k2) noexcept nogil:
    """Keys of a rank-free position (see seq_free): with no sequence possible
    every combination is compared by level order alone, so two positions whose
    hands match after an order-preserving renaming of the ranks held (the
    level rank kept while a wild is held) have the same value, when their
    plays to beat are beaten by the same ranks held. The hands are keyed on
    their rank counts with the absent ranks squeezed out (gd_squeeze4), the
    play to beat on its type, size and the number of ranks the other
    players hold at or below its rank (top_word). ``hc``: the four hands in
    ``canon`` form; ``lv``: their rank nibbles in level order (level_order)."""
    cdef uint64_t a = <uint64_t>0x082EFA98EC4E6C89, b = <uint64_t>0xA4093822299F31D0
    cdef uint64_t v[4]
    cdef uint64_t x, present = 0, jokers = 0, others = 0, ojokers = 0
    cdef int s
    for s in range(4):
        jokers |= hc[s]
        v[s] = lv[s]
        present |= v[s]
        if s != st.top_seat:
            others |= v[s]
            ojokers |= hc[s]
    present = present_nibbles(present)
    others = present_nibbles(others)
    if (jokers >> 52) & 3:
        present |= <uint64_t>1 << 48            # a wild plays as the level rank
    if (ojokers >> 52) & 3:
        others |= <uint64_t>1 << 48
    others |= (<uint64_t>(((ojokers >> 54) & 3) != 0) << 52) | (<uint64_t>(((ojokers >> 56) & 3) != 0) << 53)
    x = top_word(st, others)
    gd_squeeze4(v, present)
    for s in range(4):
        mix_in(&a, &b, v[s] | (hc[s] & (<uint64_t>63 << 52)), s)   # wilds, small and big jokers
    if (jokers >> 52) & 3:
        # a wild played alone is a level card: the level rank (the highest
        # rank in play, as one is held) must keep its place
        x |= (<uint64_t>pc64(present)) << 20
    mix_in(&a, &b, small_word(st) | (x << 34) | (<uint64_t>1 << 62), 4)
    keys_out(a, b, k1, k2)


cdef inline void mode_keys(const State* st, int mode, uint64_t* k1, uint64_t* k2) noexcept nogil:
    if mode == 2:
        rank_keys(st, k1, k2)
    elif mode == 1:
        canon_keys(st, k1, k2)
    else:
        pos_keys(st, k1, k2)


cdef inline void pos_keys(const State* st, uint64_t* k1, uint64_t* k2) noexcept nogil:
    cdef uint64_t a = <uint64_t>0x243F6A8885A308D3, b = <uint64_t>0x13198A2E03707344
    cdef uint64_t w
    cdef int s
    for s in range(4):
        mix_in(&a, &b, st.one[s], s)
        mix_in(&a, &b, st.two[s], 4 + s)
    mix_in(&a, &b, st.top_lo, 8)
    mix_in(&a, &b, st.top_hi, 9)
    w = small_word(st)
    mix_in(&a, &b, w, 10)
    keys_out(a, b, k1, k2)


cdef inline int tt_lo(uint64_t d) noexcept nogil:
    return <int>((d >> 48) & 15) - 4


cdef inline int tt_hi(uint64_t d) noexcept nogil:
    return <int>((d >> 52) & 15) - 4


cdef inline uint64_t tt_probe(Solver* S, uint64_t k1, uint32_t k2) noexcept nogil:
    """The data word of a position's entry in its 4-entry bucket (one cache
    line), or 0. The table may be shared by the threads of one solve."""
    cdef TTE* e = &S.tt[(k1 & S.mask) & ~(<uint64_t>3)]
    cdef int i
    cdef uint64_t d
    for i in range(4):
        d = gd_load64(&e[i].data)
        if <uint32_t>d == k2 and (gd_load64(&e[i].check) ^ d) == k1:
            return d
    return 0


cdef inline void tt_store(Solver* S, uint64_t k1, uint32_t k2, int lo, int hi, int best,
                          int size) noexcept nogil:
    cdef TTE* e = &S.tt[(k1 & S.mask) & ~(<uint64_t>3)]
    cdef TTE* t = NULL
    cdef int i, tb = 0
    cdef uint64_t d = 0, od
    for i in range(4):
        od = gd_load64(&e[i].data)
        if <uint32_t>od == k2 and (gd_load64(&e[i].check) ^ od) == k1:
            t = &e[i]
            d = od
            break
    if t != NULL:
        # both are proven bounds of the same position: keep the intersection
        if lo < tt_lo(d):
            lo = tt_lo(d)
        if hi > tt_hi(d):
            hi = tt_hi(d)
        tb = <int>((d >> 32) & 0xFFFF)
        if size < <int>(d >> 56):
            size = <int>(d >> 56)
    else:
        # replace the entry whose subtree cost the fewest nodes, the first on ties
        t = &e[0]
        for i in range(1, 4):
            if (gd_load64(&e[i].data) >> 56) < (gd_load64(&t.data) >> 56):
                t = &e[i]
    if 0 <= best < 65535:
        tb = best + 1
    if size > 255:
        size = 255
    d = (<uint64_t>k2 | (<uint64_t>tb << 32) | (<uint64_t>((lo + 4) | ((hi + 4) << 4)) << 48)
         | (<uint64_t>size << 56))
    gd_store64(&t.data, d)
    gd_store64(&t.check, k1 ^ d)

# ---------------------------------------------------------------------------
# Move lists, cached
# ---------------------------------------------------------------------------
# generate_with is a pure function of (hand, level, play to beat, flags), and
# a search meets the same few hands (subsets of four small ones) against the
# same few plays millions of times: the solver keeps the lists it generated.
# A hit copies the very list the generator would append, in its order, so
# the search is the same with or without the cache.

cdef void gc_reset(Solver* S) noexcept nogil:
    memset(S.gc, 0, S.gslots * GC_WORDS * sizeof(uint64_t))
    S.gfill = 0
    S.gused = 0
    S.oused = 0
    S.ggen += 1                         # slots remembered by plies are stale now
    S.gresets += 1


cdef inline int gen_cached(Solver* S, uint64_t one, uint64_t two, int level, uint64_t lo, uint64_t hi,
                           int flags, MoveBuf* out, uint64_t* ctx, Py_ssize_t* slot) noexcept nogil:
    """Append generate_with(one, two, level, lo, hi, flags) to ``out``, from
    the cache when it holds that list (-1: out of memory). ``ctx``: set to
    the hash of the arguments, the context's name in the table of moves
    that cut (odd; 0 when the cache could not be allocated); ``slot``: the
    list's slot in the cache (-1: not kept), valid while ``S.ggen`` stays.
    This is the hit (inline); gen_miss makes and keeps a list."""
    cdef uint64_t tag = (<uint64_t>level << 1) | (<uint64_t>(flags & 0xFFFF) << 8) | 1
    cdef uint64_t h0, h
    cdef uint64_t* e
    cdef uint64_t* dst
    cdef const uint64_t* src
    cdef Py_ssize_t n, i
    if S.gc == NULL:
        return gen_miss(S, one, two, level, lo, hi, flags, out, ctx, slot, 0, 0)
    h0 = fmix((one * <uint64_t>0x9E3779B97F4A7C15) ^ (two * <uint64_t>0xC2B2AE3D27D4EB4F)
              ^ (lo * <uint64_t>0x165667B19E3779F9) ^ ((hi + tag) * <uint64_t>0x27D4EB2F165667C5))
    h = h0
    ctx[0] = h0 | 1
    while True:
        e = &S.gc[GC_WORDS * (h & (S.gslots - 1))]
        if e[4] == 0:
            return gen_miss(S, one, two, level, lo, hi, flags, out, ctx, slot, h0, h)
        if e[0] == one and e[1] == two and e[2] == lo and e[3] == hi and e[4] == tag:
            slot[0] = <Py_ssize_t>(h & (S.gslots - 1))
            n = <Py_ssize_t>(<uint32_t>e[5])
            if out.n + n > out.cap and buf_reserve(out, n) < 0:
                return -1
            dst = &out.data[2 * out.n]
            src = &S.garena[2 * (e[5] >> 32)]
            if n <= 8:
                # most lists are short: a plain copy, no library call
                for i in range(2 * n):
                    dst[i] = src[i]
            else:
                memcpy(dst, src, n * 2 * sizeof(uint64_t))
            out.n += n
            return 0
        h += 1


cdef int gen_miss(Solver* S, uint64_t one, uint64_t two, int level, uint64_t lo, uint64_t hi,
                  int flags, MoveBuf* out, uint64_t* ctx, Py_ssize_t* slot, uint64_t h0,
                  uint64_t h) noexcept nogil:
    """gen_cached of a list the cache does not hold: generate it and keep it
    in the empty slot ``h`` (of the arguments' hash ``h0``); the cache is
    made at the first call."""
    cdef uint64_t tag = (<uint64_t>level << 1) | (<uint64_t>(flags & 0xFFFF) << 8) | 1
    cdef uint64_t* e
    cdef Py_ssize_t n, n0
    if S.gc == NULL:
        # the slots must read empty (calloc); the lists and orders are
        # written before they are read
        S.gc = <uint64_t*>calloc(S.gslots * GC_WORDS, sizeof(uint64_t))
        S.garena = <uint64_t*>malloc(S.gmoves * 2 * sizeof(uint64_t))
        S.oarena = <int64_t*>malloc(S.gmoves * sizeof(int64_t))
        if S.gc == NULL or S.garena == NULL or S.oarena == NULL:
            cache_drop(S)
            ctx[0] = 0
            slot[0] = -1
            return generate_with(S.g, one, two, level, lo, hi, flags, out)
        return gen_cached(S, one, two, level, lo, hi, flags, out, ctx, slot)
    e = &S.gc[GC_WORDS * (h & (S.gslots - 1))]
    n0 = out.n
    slot[0] = -1
    if generate_with(S.g, one, two, level, lo, hi, flags, out) < 0:
        return -1
    n = out.n - n0
    if n > 4096:
        return 0                        # not worth a place
    if 2 * S.gfill >= S.gslots or S.gused + n > S.gmoves:
        gc_reset(S)                     # full: start again
        h = h0
        e = &S.gc[GC_WORDS * (h0 & (S.gslots - 1))]
    slot[0] = <Py_ssize_t>(h & (S.gslots - 1))
    memcpy(&S.garena[2 * S.gused], &out.data[2 * n0], n * 2 * sizeof(uint64_t))
    e[0] = one
    e[1] = two
    e[2] = lo
    e[3] = hi
    e[4] = tag
    e[5] = (<uint64_t>S.gused << 32) | <uint64_t>n
    e[6] = 0                            # no base orders yet (see order_moves)
    e[7] = 0
    S.gused += n
    S.gfill += 1
    return 0


cdef inline int legal_cached(Solver* S, const State* st, Ply* P) noexcept nogil:
    """st_legal of a play-phase position into ``P.moves``, through the
    cache (``P.ghash``, ``P.gslot``, ``P.ggen``: the list's context and slot)."""
    cdef int seat = st.to_act, rc
    if st.phase != PH_PLAY:
        P.ghash = 0
        P.gslot = -1
        return st_legal(<State*>st, S.g, &P.moves)
    rc = gen_cached(S, st.one[seat], st.two[seat], st.rlevel, st.top_lo, st.top_hi,
                    st.rules.gen_flags, &P.moves, &P.ghash, &P.gslot)
    P.ggen = S.ggen
    return rc


cdef inline void note_cut(Solver* S, uint64_t ctx, int bi) noexcept nogil:
    """Remember move ``bi`` (its index in the context's list) as the one that
    cut at a node of this context (``ctx``: from gen_cached; 0: none). One
    word an entry, the context's hash above the index, so a word written
    by two threads at once is one or the other."""
    if ctx == 0 or S.cuts == NULL or bi < 0 or bi >= 65535:
        return
    gd_store64(&S.cuts[(ctx >> 1) & (CUT_N - 1)], (ctx & ~(<uint64_t>0xFFFF)) | <uint64_t>(bi + 1))


cdef inline int cut_move(Solver* S, uint64_t ctx) noexcept nogil:
    """The move that last cut in this context (-1: none known)."""
    cdef uint64_t x
    if ctx == 0 or S.cuts == NULL:
        return -1
    x = gd_load64(&S.cuts[(ctx >> 1) & (CUT_N - 1)])
    if (x ^ ctx) & ~(<uint64_t>0xFFFF):
        return -1
    return <int>(x & 0xFFFF) - 1

# ---------------------------------------------------------------------------
# Move ordering
# ---------------------------------------------------------------------------

cdef int _cmp_desc(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0], y = (<const int64_t*>b)[0]
    return -1 if x > y else (1 if x < y else 0)


cdef inline int64_t move_score(uint64_t lo, uint64_t hi, int handn, int level) noexcept nogil:
    """A move's base score (higher first); the pass when the partner is on
    top is moved up by order_moves."""
    cdef int t = (lo >> TAG_SHIFT) & 15, sz, k
    if t == T_PASS:
        return 300
    sz = ncards(lo, hi)
    if sz == handn:
        return 2000
    k = (hi >> TAG_SHIFT) & 31
    if is_bomb_type(t):
        return 250 - bomb_value(t, k, sz, level)
    return 500 + sz * 32 - key_strength(t, k, level)


cdef inline int broken_ranks(uint64_t h, uint64_t m) noexcept nogil:
    """Ranks (and the wild, the jokers) a move takes some but not all of:
    ``h`` the hand, ``m`` the move's cards (``canon`` form)."""
    cdef uint64_t rem = h - m, touched, left, x
    # a nibble (2-bit fields for wilds and jokers) is touched / left when non-zero
    x = m | (m >> 1)
    x = x | (x >> 2)
    touched = x & <uint64_t>0x0111111111111 | (x & (<uint64_t>0x15 << 52))
    x = rem | (rem >> 1)
    x = x | (x >> 2)
    left = x & <uint64_t>0x0111111111111 | (x & (<uint64_t>0x15 << 52))
    return pc64(touched & left)


cdef inline bint seen_sig(Ply* P, uint64_t c, uint64_t tk, uint32_t stamp) noexcept nogil:
    """Insert a suit-free move signature into the ply's set; True if present."""
    cdef uint64_t h = fmix(c ^ (tk * <uint64_t>0x9E3779B97F4A7C15)) & P.hmask
    while P.hstamp[h] == stamp:
        if P.hc[h] == c and P.htk[h] == tk:
            return True
        h = (h + 1) & P.hmask
    P.hstamp[h] = stamp
    P.hc[h] = c
    P.htk[h] = tk
    return False


cdef Py_ssize_t order_base(Solver* S, const State* st, Ply* P, bint cf) noexcept nogil:
    """The base order of the ply's moves into P.keys: (score << 20 | (0xFFFFF
    - index)), best first, by the scores of a node with no table move, no
    move that cut, no policy choice and the partner not on top - a
    function of the list's context (hand, play to beat) and ``cf`` alone.
    In a suit-free position (cf) moves that differ only in suits after the
    first get score 0 and are not counted. Returns the number of moves to
    try (-1: out of memory)."""
    cdef Py_ssize_t n = P.moves.n, i, j, m = n
    cdef int64_t sc
    cdef int seat = st.to_act, handn = ncards(st.one[seat], st.two[seat])
    cdef uint64_t lo, hi, hc, mc
    cdef size_t hsz
    if cf and (P.hc == NULL or 2 * n > <Py_ssize_t>(P.hmask + 1)):
        hsz = 256
        while hsz < <size_t>(2 * n):
            hsz *= 2
        free(P.hc)
        free(P.htk)
        free(P.hstamp)
        P.hc = <uint64_t*>malloc(hsz * sizeof(uint64_t))
        P.htk = <uint64_t*>malloc(hsz * sizeof(uint64_t))
        P.hstamp = <uint32_t*>calloc(hsz, sizeof(uint32_t))
        P.hmask = hsz - 1
        if P.hc == NULL or P.htk == NULL or P.hstamp == NULL:
            return -1
    if cf:
        S.stamp += 1
        if S.stamp == 0:
            for j in range(NPLIES):
                if S.plies[j].hstamp != NULL:
                    memset(S.plies[j].hstamp, 0, (S.plies[j].hmask + 1) * sizeof(uint32_t))
            S.stamp = 1
    hc = canon(st.one[seat], st.two[seat], st.rlevel)
    for i in range(n):
        lo = P.moves.data[2 * i]
        hi = P.moves.data[2 * i + 1]
        mc = canon(lo & FACE_MASK, hi & FACE_MASK, st.rlevel)
        if cf and seen_sig(P, mc, ((lo >> TAG_SHIFT) & 15) | (((hi >> TAG_SHIFT) & 31) << 4), S.stamp):
            sc = 0
            m -= 1
        else:
            sc = move_score(lo, hi, handn, st.rlevel)
            if 500 <= sc < 1500:
                # a non-bomb that breaks up a rank (takes some of its cards) later
                sc -= 40 * broken_ranks(hc, mc)
                if sc < 310:
                    sc = 310
        P.keys[i] = (sc << 20) | (0xFFFFF - i)
    sort_keys(P.keys, n)
    return m


cdef inline void sort_keys(int64_t* keys, Py_ssize_t n) noexcept nogil:
    """Descending (the keys are distinct)."""
    cdef Py_ssize_t i, j
    cdef int64_t x
    if n <= 24:
        for i in range(1, n):
            x = keys[i]
            j = i - 1
            while j >= 0 and keys[j] < x:
                keys[j + 1] = keys[j]
                j -= 1
            keys[j + 1] = x
    else:
        qsort(keys, n, sizeof(int64_t), _cmp_desc)


cdef Py_ssize_t order_moves(Solver* S, const State* st, Ply* P, int ttbest, bint cf) noexcept nogil:
    """Fill P.keys with (score << 20 | (0xFFFFF - index)), best first: the
    base order (order_base; kept with the list in the move-list cache, so
    made once a context), then the table's move (``ttbest``), the move that
    last cut in the context, a policy's choice and - when the partner is on
    top - the pass moved up to their places. Returns the number of moves to
    try (-1: out of memory)."""
    cdef Py_ssize_t n = P.moves.n, i, j, cap, m
    cdef int64_t sc, nsc
    cdef int seat = st.to_act
    cdef bint partner_top = st.top_seat >= 0 and (st.top_seat & 1) == (seat & 1)
    cdef Py_ssize_t pick = -1
    cdef int64_t* p
    cdef uint64_t* e = NULL
    cdef uint64_t w
    cdef int kill
    cdef bint moved = False, cached = False
    if n > P.kcap:
        cap = n * 2 if n > 64 else 128
        p = <int64_t*>malloc(cap * sizeof(int64_t))
        if p == NULL:
            return -1
        free(P.keys)
        P.keys = p
        free(P.defer)
        P.defer = <int*>malloc(cap * sizeof(int))
        if P.defer == NULL:
            P.kcap = 0
            return -1
        P.kcap = cap
    if S.order_code > 0 and n > 1:
        pick = policy_choose(S.order_code, st, &P.moves, S.order_rng)
    kill = cut_move(S, P.ghash)
    if P.gslot >= 0 and P.ggen == S.ggen and S.oarena != NULL:
        e = &S.gc[GC_WORDS * P.gslot]
        w = e[6 + (1 if cf else 0)]
        if w != 0:
            memcpy(P.keys, &S.oarena[(w >> 32) - 1], n * sizeof(int64_t))
            m = <Py_ssize_t>(<uint32_t>w)
            cached = True
    if not cached:
        m = order_base(S, st, P, cf)
        if m < 0:
            return -1
        if e != NULL and S.oused + n <= S.gmoves:
            memcpy(&S.oarena[S.oused], P.keys, n * sizeof(int64_t))
            e[6 + (1 if cf else 0)] = ((<uint64_t>(S.oused + 1)) << 32) | <uint64_t>m
            S.oused += n
    if ttbest >= 0 or kill >= 0 or pick >= 0 or partner_top:
        for j in range(n):
            sc = P.keys[j] >> 20
            if sc == 0:
                continue                # a suit variant of a move before it: stays last
            i = 0xFFFFF - (P.keys[j] & 0xFFFFF)
            if i == ttbest:
                nsc = 4000
            elif i == kill:
                nsc = 3500
            elif i == pick:
                nsc = 3000
            elif partner_top and ((P.moves.data[2 * i] >> TAG_SHIFT) & 15) == T_PASS:
                nsc = 1500
            else:
                continue
            P.keys[j] = (nsc << 20) | (0xFFFFF - i)
            moved = True
        if moved:
            sort_keys(P.keys, n)
    return m


# ---------------------------------------------------------------------------
# Sure exits
# ---------------------------------------------------------------------------

cdef inline bint opp_can_beat(Solver* S, const State* st, uint64_t lo, uint64_t hi) noexcept nogil:
    """Whether an opponent of the seat to act could beat the play (lo, hi)
    (the generator's follow list holds more than the pass)."""
    cdef int seat = st.to_act, o, k, nc, sz = ncards(lo & FACE_MASK, hi & FACE_MASK)
    cdef Py_ssize_t i
    cdef uint64_t ctxo
    cdef Py_ssize_t slot
    for k in range(2):
        o = (seat + 1 + 2 * k) & 3
        nc = ncards(st.one[o], st.two[o])
        if nc == 0 or (nc < 4 and nc < sz):
            continue                    # out, or too few cards to match it and no bomb
        S.scratch.n = 0
        if gen_cached(S, st.one[o], st.two[o], st.rlevel, lo, hi,
                      st.rules.gen_flags, &S.scratch, &ctxo, &slot) < 0:
            return True                 # out of memory: claim nothing
        for i in range(S.scratch.n):
            if ((S.scratch.data[2 * i] >> TAG_SHIFT) & 15) != T_PASS:
                return True
    return False


cdef Py_ssize_t sure_exit(Solver* S, const State* st, const Ply* P, Py_ssize_t n) noexcept nogil:
    """Position in the ordered moves (``P.keys[:n]``) of a sure exit's first
    card: the seat to act holds two cards and may play one of them that no
    opponent can beat (-1: none)."""
    cdef int seat = st.to_act
    cdef Py_ssize_t j, i
    cdef uint64_t lo, hi
    if ncards(st.one[seat], st.two[seat]) != 2:
        return -1
    for j in range(n):
        i = 0xFFFFF - (P.keys[j] & 0xFFFFF)
        lo = P.moves.data[2 * i]
        hi = P.moves.data[2 * i + 1]
        if ((lo >> TAG_SHIFT) & 15) == T_PASS or ncards(lo & FACE_MASK, hi & FACE_MASK) != 1:
            continue
        if not opp_can_beat(S, st, lo, hi):
            return j
    return -1


cdef inline void exit_bounds(const State* st, int seat, int* lo, int* hi) noexcept nogil:
    """Bounds of the position when ``seat`` is sure to be the next player out
    (equal: the exact value, when that ends the round - then in the best
    place left for its team)."""
    if out_ends_round(st, seat):
        lo[0] = terminal_value(st, seat)
        hi[0] = lo[0]
    else:
        order_bounds(st.fin[0] if st.nfin > 0 else seat, st.nfin + 1, lo, hi)


cdef inline void key_to_front(Ply* P, Py_ssize_t j) noexcept nogil:
    """Move the ordered move at position ``j`` of ``P.keys`` to the front."""
    cdef int64_t x = P.keys[j]
    while j > 0:
        P.keys[j] = P.keys[j - 1]
        j -= 1
    P.keys[0] = x

# ---------------------------------------------------------------------------
# Alpha-beta
# ---------------------------------------------------------------------------

cdef inline bint only_pass(Solver* S, State* st, Ply* P) noexcept nogil:
    """Whether the seat to act is following and can only pass (so the pass
    is played without making a search node of it). When it can do more, its
    moves are left in ``P.moves`` (the next ply's list) with ``P.ready`` set,
    so that node does not generate them again."""
    cdef int seat = st.to_act, n
    P.ready = 0
    if st.top_seat < 0:
        return False
    n = ncards(st.one[seat], st.two[seat])
    if n < 4 and n < ncards(st.top_lo, st.top_hi):
        return True                     # too few cards to match it, and no bomb
    P.moves.n = 0
    if legal_cached(S, st, P) < 0:
        return False
    if P.moves.n == 1:
        return True
    P.ready = 1
    return False


cdef inline bint seen_kid(Ply* P, uint64_t k1, uint64_t k2, int* nkids) noexcept nogil:
    """Whether a rank-free child with these keys was already searched at this
    node; if not, it is recorded (up to MAXKIDS of them)."""
    cdef int i, n = nkids[0]
    for i in range(n):
        if P.kid1[i] == k1 and P.kid2[i] == k2:
            return True
    if n < MAXKIDS:
        P.kid1[n] = k1
        P.kid2[n] = k2
        nkids[0] = n + 1
    return False


cdef inline int child_mode(const State* child, int mode) noexcept nogil:
    """The mode of a child of a position in ``mode`` (modes only rise)."""
    cdef int m
    if mode == 2:
        return 2
    m = position_mode(child)
    return m if m > mode else mode


cdef inline bint play_forced_passes(Solver* S, State* child, Ply* next) noexcept nogil:
    """Play the passes of followers who can do nothing else; True if there
    were any (the child's key then changed). ``next``: the child's ply."""
    if not only_pass(S, child, next):
        return False
    st_apply(child, 0, 0)
    while only_pass(S, child, next):
        st_apply(child, 0, 0)
    return True


cdef int kids_reserve(Ply* P, Py_ssize_t n) noexcept nogil:
    """Room for ``n`` computed children at this ply (-1: out of memory)."""
    cdef Py_ssize_t cap
    if n <= P.kscap:
        return 0
    cap = n * 2 if n > 32 else 64
    free(P.kst)
    free(P.kk)
    free(P.kcm)
    P.kst = <State*>malloc(cap * sizeof(State))
    P.kk = <uint64_t*>malloc(cap * 2 * sizeof(uint64_t))
    P.kcm = <int*>malloc(cap * sizeof(int))
    if P.kst == NULL or P.kk == NULL or P.kcm == NULL:
        P.kscap = 0
        return -1
    P.kscap = cap
    return 0


ctypedef struct Node:
    # one alpha-beta node, as its phases narrow it (see ab)
    int alpha, beta             # the window (the child loop narrows it further)
    int a0, b0                  # the window the child loop started from
    int slo, shi                # proven bounds of the value
    uint64_t k1, k2             # the position's keys
    int ttbest                  # the table's move (-1: none)
    int best, bi                # the best value found and its move (index in the ply's list; -1: none)
    int v                       # the value, when a phase settles the node


ctypedef struct ChildOrder:
    # the order in which a node's children are searched: the moves in order
    # (P.keys), then those put off because another thread was searching them
    Py_ssize_t n                # moves in order
    Py_ssize_t jj               # the next of them
    int nd                      # moves put off (P.defer)
    int dj                      # the next of those


cdef inline bint take_ready(Solver* S, int ply) noexcept nogil:
    """Whether the node's moves were already generated by the parent's
    forced-pass test (only_pass); the flag is cleared."""
    cdef bint ready = False
    if ply < MAXPLY:
        ready = S.plies[ply].ready != 0
        S.plies[ply].ready = 0
    return ready


cdef inline bint out_of_budget(Solver* S, int ply) noexcept nogil:
    """Whether the search stops at this node (S.aborted set): the node or
    time limit, the ply cap, or (with threads) a root child not needed."""
    if S.nodes > S.max_nodes or ply >= MAXPLY - 1:
        S.aborted = 1
        return True
    if (S.nodes & 1023) == 0:
        if S.deadline > 0 and gd_now() > S.deadline:
            S.aborted = 1
            return True
        if S.job != NULL:
            if gd_atomic_add64(&S.job.nodes, 1024) > S.job.max_nodes:
                S.aborted = 1
                return True
            if S.cur_root > gd_atomic_get(&S.job.cut) or gd_atomic_get(&S.job.done[S.cur_root]):
                S.aborted = 2           # a root child before this one cut, or another
                return True             # thread finished this one: not needed
    return False


cdef inline bint static_window(const State* st, Node* nd) noexcept nogil:
    """The static bounds: True when they settle the node (``nd.v``), else
    the window is narrowed to them."""
    static_bounds(st, &nd.slo, &nd.shi)
    if nd.slo >= nd.beta:
        nd.v = nd.slo
        return True
    if nd.shi <= nd.alpha:
        nd.v = nd.shi
        return True
    if nd.alpha < nd.slo - 1:
        nd.alpha = nd.slo - 1
    if nd.beta > nd.shi + 1:
        nd.beta = nd.shi + 1
    return False


cdef inline bint table_window(Solver* S, Node* nd) noexcept nogil:
    """The table's entry: True when its bounds settle the node (``nd.v``),
    else they narrow the window and its move is ``nd.ttbest``."""
    cdef uint64_t e = tt_probe(S, nd.k1, <uint32_t>nd.k2)
    cdef int elo, ehi
    if e == 0:
        return False
    elo = tt_lo(e)
    ehi = tt_hi(e)
    if elo >= nd.beta:
        nd.v = elo
        return True
    if ehi <= nd.alpha:
        nd.v = ehi
        return True
    if elo == ehi:
        nd.v = elo
        return True
    if elo > nd.alpha:
        nd.alpha = elo
    if ehi < nd.beta:
        nd.beta = ehi
    nd.ttbest = <int>((e >> 32) & 0xFFFF) - 1
    return False


cdef inline Py_ssize_t node_moves(Solver* S, const State* st, Ply* P, bint ready, int ttbest,
                                  bint cf) noexcept nogil:
    """The node's moves in ``P.moves`` (generated unless ``ready``) and in
    search order in ``P.keys``: their count, or -1 (S.aborted set)."""
    cdef Py_ssize_t n
    if not ready:
        P.moves.n = 0
        if legal_cached(S, st, P) < 0:
            S.aborted = 1
            return -1
    if P.moves.n == 0:
        S.aborted = 1
        return -1
    if ttbest >= P.moves.n:
        ttbest = -1
    n = order_moves(S, st, P, ttbest, cf)
    if n < 0:
        S.aborted = 1
        return -1
    return n


cdef inline bint exit_window(Solver* S, const State* st, Ply* P, Py_ssize_t n, bint maxi,
                             Node* nd) noexcept nogil:
    """A sure exit of the seat to act: True when its bounds settle the node
    (``nd.v``), else they narrow the bounds and the window, and its first
    card is searched first."""
    cdef int elo, ehi
    cdef Py_ssize_t j = sure_exit(S, st, P, n)
    if j < 0:
        return False
    exit_bounds(st, st.to_act, &elo, &ehi)
    if elo == ehi:
        nd.v = elo
        return True
    if maxi:
        if elo >= nd.beta:
            nd.v = elo
            return True
        if elo > nd.slo:
            nd.slo = elo
            if nd.alpha < nd.slo - 1:
                nd.alpha = nd.slo - 1
    else:
        if ehi <= nd.alpha:
            nd.v = ehi
            return True
        if ehi < nd.shi:
            nd.shi = ehi
            if nd.beta > nd.shi + 1:
                nd.beta = nd.shi + 1
    key_to_front(P, j)              # try that card first
    return False


cdef inline bint etc_worth(const State* st, Py_ssize_t n) noexcept nogil:
    """Whether the node makes its children first (enhanced transposition
    cutoff): more than one move, and at least ETC_CARDS cards left."""
    return n > 1 and (ncards(st.one[0], st.two[0]) + ncards(st.one[1], st.two[1])
                      + ncards(st.one[2], st.two[2]) + ncards(st.one[3], st.two[3]) >= ETC_CARDS)


cdef inline int make_children(Solver* S, const State* st, Ply* P, Py_ssize_t n, int ply, int mode,
                              bint oer) noexcept nogil:
    """Every child of the node (after its forced passes) in ``P.kst``, its
    keys in ``P.kk`` and mode in ``P.kcm`` (-1: the move ends the round),
    its table bucket loading while the next is made. Returns the next ply's
    ``ready`` flag as child 0's forced-pass test left it (-1: out of memory)."""
    cdef int seat = st.to_act, s, cmode, ready0
    cdef Py_ssize_t jj, i
    cdef uint64_t lo, hi
    cdef State* kid
    cdef uint64_t hcan[4]                # the node's hands (canon form, and in level order)
    cdef uint64_t hlv[4]
    cdef uint64_t ccan[4]                # a child's
    cdef uint64_t clv[4]
    if kids_reserve(P, n) < 0:
        return -1
    for s in range(4):
        hcan[s] = canon(st.one[s], st.two[s], st.rlevel)
        hlv[s] = level_order(hcan[s], 4 * st.rlevel)
    # child 0 first, its table bucket then loading longest; the other
    # children's forced-pass tests use the ply after next, so that the
    # next ply's moves, which child 0's test leaves there, are still
    # child 0's when its search starts (ready0)
    for jj in range(n):
        i = 0xFFFFF - (P.keys[jj] & 0xFFFFF)
        lo = P.moves.data[2 * i]
        hi = P.moves.data[2 * i + 1]
        if oer and ends_round(st, lo, hi):
            P.kcm[jj] = -1
            continue
        kid = &P.kst[jj]
        memcpy(kid, st, sizeof(State))
        st_apply(kid, lo, hi)
        cmode = child_mode(kid, mode)
        play_forced_passes(S, kid, &S.plies[ply + 1 if jj == 0 else ply + 2])
        if cmode == 2:
            # only the mover's hand changed
            memcpy(ccan, hcan, sizeof(ccan))
            memcpy(clv, hlv, sizeof(clv))
            ccan[seat] = canon(kid.one[seat], kid.two[seat], kid.rlevel)
            clv[seat] = level_order(ccan[seat], 4 * kid.rlevel)
            rank_keys_lv(kid, ccan, clv, &P.kk[2 * jj], &P.kk[2 * jj + 1])
        else:
            mode_keys(kid, cmode, &P.kk[2 * jj], &P.kk[2 * jj + 1])
        P.kcm[jj] = cmode
        gd_prefetch(&S.tt[(P.kk[2 * jj] & S.mask) & ~(<uint64_t>3)])
    ready0 = S.plies[ply + 1].ready
    S.plies[ply + 1].ready = 0
    S.plies[ply + 2].ready = 0
    return ready0


cdef inline bint etc_cut(Solver* S, const Ply* P, Py_ssize_t n, bint maxi, Node* nd) noexcept nogil:
    """The lowest child the table already proves good enough: True when
    there is one (it cuts the node: stored, the value in ``nd.v``)."""
    cdef Py_ssize_t jj
    cdef uint64_t e
    for jj in range(n):
        if P.kcm[jj] < 0:
            continue
        # the entry as probed: another thread may replace it
        e = tt_probe(S, P.kk[2 * jj], <uint32_t>P.kk[2 * jj + 1])
        if e != 0 and ((maxi and tt_lo(e) >= nd.beta) or (not maxi and tt_hi(e) <= nd.alpha)):
            if maxi:
                nd.v = tt_lo(e)
                tt_store(S, nd.k1, <uint32_t>nd.k2, nd.v, nd.shi, <int>(0xFFFFF - (P.keys[jj] & 0xFFFFF)), 1)
            else:
                nd.v = tt_hi(e)
                tt_store(S, nd.k1, <uint32_t>nd.k2, nd.slo, nd.v, <int>(0xFFFFF - (P.keys[jj] & 0xFFFFF)), 1)
            return True
    return False


cdef inline bint next_child(const Ply* P, ChildOrder* o, Py_ssize_t* j, bint* later) noexcept nogil:
    """The next child to search (its position in ``P.keys``; ``later``: one
    put off): the moves in order, then those put off. False when none is left."""
    if o.jj < o.n:
        j[0] = o.jj
        o.jj += 1
        later[0] = False
    elif o.dj < o.nd:
        j[0] = P.defer[o.dj]
        o.dj += 1
        later[0] = True
    else:
        return False
    return True


cdef inline int make_child(const State* st, uint64_t lo, uint64_t hi, int mode, State* child,
                           uint64_t* ck1, uint64_t* ck2) noexcept nogil:
    """The child after the move (lo, hi), its keys; returns its mode."""
    cdef int cmode
    memcpy(child, st, sizeof(State))
    st_apply(child, lo, hi)
    cmode = child_mode(child, mode)
    mode_keys(child, cmode, ck1, ck2)
    return cmode


cdef inline bint put_off(Solver* S, Ply* P, ChildOrder* o, Py_ssize_t j, bint later, int searched,
                         uint64_t ck1, uint64_t ck2, uint64_t* bk, uint64_t** bslot) noexcept nogil:
    """Threads, near the root: True when another thread is searching the
    child (with keys ck1, ck2), which is then put off (unless it was, or is
    the node's first); else it is marked busy (``bk`` in ``bslot``)."""
    bk[0] = (ck1 ^ (ck2 << 32)) | 1
    bslot[0] = &S.busy[(bk[0] >> 1) & S.bmask]
    if not later and searched > 0 and gd_load64(bslot[0]) == bk[0]:
        P.defer[o.nd] = <int>j          # another thread is on it: later
        o.nd += 1
        return True
    gd_store64(bslot[0], bk[0])
    return False


cdef inline bint child_cuts(Solver* S, const Ply* P, bint maxi, int v, int i, Node* nd) noexcept nogil:
    """Take the child's value ``v`` (move ``i``): True when it cuts the node
    (the move is noted as the context's cut)."""
    if maxi:
        if v > nd.best:
            nd.best = v
            nd.bi = i
            if nd.best > nd.alpha:
                nd.alpha = nd.best
            if nd.alpha >= nd.beta or nd.best >= nd.shi:
                note_cut(S, P.ghash, nd.bi)
                return True
    else:
        if v < nd.best:
            nd.best = v
            nd.bi = i
            if nd.best < nd.beta:
                nd.beta = nd.best
            if nd.alpha >= nd.beta or nd.best <= nd.slo:
                note_cut(S, P.ghash, nd.bi)
                return True
    return False


cdef inline bint search_children(Solver* S, const State* st, Ply* P, Py_ssize_t n, int ply, int mode,
                                 bint maxi, bint etc, bint oer, int ready0, Node* nd) noexcept nogil:
    """Search the node's children in order until one cuts: the best value
    and move in ``nd.best``, ``nd.bi``. False when the search stopped
    (S.aborted)."""
    cdef int seat = st.to_act, v, cmode, nkids = 0, searched = 0
    cdef Py_ssize_t j, i
    cdef uint64_t lo, hi, ck1, ck2
    cdef State child
    cdef State* kid
    cdef ChildOrder o
    cdef bint may_defer = ply < S.defer_ply, later
    cdef uint64_t bk = 0
    cdef uint64_t* bslot = NULL
    o.n = n
    o.jj = 0
    o.nd = 0
    o.dj = 0
    nd.best = -100 if maxi else 100
    while next_child(P, &o, &j, &later):
        i = 0xFFFFF - (P.keys[j] & 0xFFFFF)
        lo = P.moves.data[2 * i]
        hi = P.moves.data[2 * i + 1]
        if (etc and P.kcm[j] < 0) or (not etc and oer and ends_round(st, lo, hi)):
            v = terminal_value(st, seat)
        else:
            if etc:
                kid = &P.kst[j]
                cmode = P.kcm[j]
                ck1 = P.kk[2 * j]
                ck2 = P.kk[2 * j + 1]
            else:
                kid = &child
                cmode = make_child(st, lo, hi, mode, &child, &ck1, &ck2)
            if cmode == 2 and not later:
                # two moves that reach the same rank-free position (say two
                # singles no other card lies between) have the same value:
                # search the first
                if seen_kid(P, ck1, ck2, &nkids):
                    continue
            if may_defer and put_off(S, P, &o, j, later, searched, ck1, ck2, &bk, &bslot):
                continue
            if not etc:
                # start loading the child's table bucket now: the forced-pass
                # test below (a move generation) runs while it arrives
                gd_prefetch(&S.tt[(ck1 & S.mask) & ~(<uint64_t>3)])
                if play_forced_passes(S, &child, &S.plies[ply + 1]):
                    ck1 = 0                 # the child computes its own key
                    ck2 = 0
            elif j == 0 and not later:
                # the first child's moves are still in the next ply (make_children)
                S.plies[ply + 1].ready = ready0
            v = ab(S, kid, nd.alpha, nd.beta, ply + 1, cmode, ck1, ck2)
            if may_defer and gd_load64(bslot) == bk:
                gd_store64(bslot, 0)
            if S.aborted:
                return False
        searched += 1
        if child_cuts(S, P, maxi, v, <int>i, nd):
            break
    return True


cdef inline void store_node(Solver* S, const Node* nd, int64_t n0) noexcept nogil:
    """Store the bounds the search proved (fail-soft: against the window it
    started from) and the best move; the subtree's size is its node count's
    bit length (n0: the node's number)."""
    cdef int lo_new, hi_new
    if nd.best <= nd.a0:
        lo_new = nd.slo
        hi_new = nd.best
    elif nd.best >= nd.b0:
        lo_new = nd.best
        hi_new = nd.shi
    else:
        lo_new = nd.best
        hi_new = nd.best
    if lo_new < nd.slo:
        lo_new = nd.slo
    if hi_new > nd.shi:
        hi_new = nd.shi
    tt_store(S, nd.k1, <uint32_t>nd.k2, lo_new, hi_new, nd.bi,
             64 - __builtin_clzll(<uint64_t>(S.nodes - n0 + 1)))


cdef int ab(Solver* S, const State* st, int alpha, int beta, int ply, int mode,
            uint64_t pk1, uint64_t pk2) noexcept nogil:
    """Fail-soft alpha-beta (team-0 value). ``mode``: the position's mode
    (see position_mode); ``pk1``, ``pk2``: its keys when the parent computed
    them (0, 0: compute them here).

    The phases, in order: the node and time limits; the static bounds; the
    table; the moves, generated and ordered; a sure exit; with many cards
    left, every child made first and a child the table proves good enough
    (ETC); the children searched until one cuts; the bounds stored."""
    cdef bint maxi = (st.to_act & 1) == 0
    cdef bint ready, etc
    cdef bint oer = out_ends_round(st, st.to_act)    # going out now would end the round
    cdef int ready0 = 0
    cdef int64_t n0
    cdef Py_ssize_t n
    cdef Ply* P
    cdef Node nd

    S.nodes += 1
    n0 = S.nodes
    ready = take_ready(S, ply)
    if out_of_budget(S, ply):
        return 0
    nd.alpha = alpha
    nd.beta = beta
    nd.ttbest = -1
    nd.bi = -1
    if static_window(st, &nd):
        return nd.v
    if pk1 != 0 or pk2 != 0:
        nd.k1 = pk1                     # computed by the parent
        nd.k2 = pk2
    else:
        mode_keys(st, mode, &nd.k1, &nd.k2)
    if table_window(S, &nd):
        return nd.v
    P = &S.plies[ply]
    n = node_moves(S, st, P, ready, nd.ttbest, mode > 0)
    if n < 0:
        return 0
    if exit_window(S, st, P, n, maxi, &nd):
        return nd.v
    etc = etc_worth(st, n)
    if etc:
        ready0 = make_children(S, st, P, n, ply, mode, oer)
        if ready0 < 0:
            S.aborted = 1
            return 0
        if etc_cut(S, P, n, maxi, &nd):
            return nd.v
    nd.a0 = nd.alpha
    nd.b0 = nd.beta
    if not search_children(S, st, P, n, ply, mode, maxi, etc, oer, ready0, &nd):
        return 0
    store_node(S, &nd, n0)
    return nd.best

# ---------------------------------------------------------------------------
# Solver objects and the driver
# ---------------------------------------------------------------------------

cdef void cache_drop(Solver* S) noexcept nogil:
    """Free the move-list cache (it is made again at its next use)."""
    free(S.gc)
    free(S.garena)
    free(S.oarena)
    S.gc = NULL
    S.garena = NULL
    S.oarena = NULL
    S.gfill = 0
    S.gused = 0
    S.oused = 0


cdef void solver_cache_size(Solver* S, int bits) noexcept nogil:
    """The move-list cache's size: 2**bits slots, room for 2**(bits + 3)
    moves (a cache of another size is dropped)."""
    if S.gslots == ((<Py_ssize_t>1) << bits):
        return
    cache_drop(S)
    S.ggen += 1                         # slots remembered by plies are stale
    S.gslots = (<Py_ssize_t>1) << bits
    S.gmoves = (<Py_ssize_t>1) << (bits + 3)


cdef void* SOLVER_POOL = NULL           # one Solver* left by solver_free (or NULL), swapped atomically
cdef enum:
    POOL_TT_BITS = 21                   # solvers with a larger table are not kept


cdef Solver* solver_new(int tt_bits) noexcept nogil:
    """A solver with an empty table of 2**tt_bits entries: the one the last
    solver_free left, when it has that size (see solver_free), else a new
    one."""
    cdef Solver* S
    if tt_bits < 4:
        tt_bits = 4
    if tt_bits > 30:
        tt_bits = 30
    S = <Solver*>gd_swap_ptr(&SOLVER_POOL, NULL)
    if S != NULL:
        if S.mask == ((<uint64_t>1) << tt_bits) - 1:
            solver_reset(S)
            return S
        solver_destroy(S)
    S = <Solver*>calloc(1, sizeof(Solver))
    if S == NULL:
        return NULL
    # entries in 64-byte-aligned buckets of four
    S.tt = <TTE*>gd_table_alloc((((<size_t>1) << tt_bits) + 4) * sizeof(TTE), &S.tt_raw)
    S.mask = ((<uint64_t>1) << tt_bits) - 1
    solver_cache_size(S, GC_BITS)
    S.g = gen_new()
    S.plies = <Ply*>calloc(NPLIES, sizeof(Ply))
    S.cuts = <uint64_t*>calloc(CUT_N, sizeof(uint64_t))
    if S.tt == NULL or S.g == NULL or S.plies == NULL or S.cuts == NULL:
        solver_destroy(S)
        return NULL
    return S


cdef void solver_reset(Solver* S) noexcept nogil:
    """A kept solver as solver_new makes one: the table and the moves that
    cut emptied (so a solve searches the same nodes as on a new solver),
    the limits, threads and flags cleared. Its buffers stay, and so does
    its move-list cache: the lists and their base orders are a pure
    function of their contexts."""
    cdef int i
    memset(S.tt, 0, ((S.mask + 1) + 4) * sizeof(TTE))
    memset(S.cuts, 0, CUT_N * sizeof(uint64_t))
    for i in range(NPLIES):
        S.plies[i].ready = 0
    solver_cache_size(S, GC_BITS)       # after a test's small cache: the usual size
    S.nodes = 0
    S.max_nodes = 0
    S.deadline = 0.0
    S.aborted = 0
    S.order_code = 0
    memset(S.order_rng, 0, sizeof(S.order_rng))
    S.job = NULL
    S.cur_root = 0
    S.busy = NULL
    S.bmask = 0
    S.defer_ply = 0
    S.gresets = 0


cdef void solver_free(Solver* S) noexcept nogil:
    """Done with ``S``: kept for the next solver_new (one solver is kept,
    with a table of at most 2**POOL_TT_BITS entries), else freed. A process
    that solves one position after another (the bench, the search player's
    decisions, a loop over positions) so reuses the memory that a small
    solve would otherwise spend most of its time allocating, zeroing and
    faulting in (the table, the move-list cache, the plies' buffers)."""
    if S == NULL:
        return
    if (not S.cuts_shared and S.mask < ((<uint64_t>1) << POOL_TT_BITS) and S.tt != NULL
            and S.g != NULL and S.plies != NULL and S.cuts != NULL):
        if gd_put_ptr(&SOLVER_POOL, S):
            return
    solver_destroy(S)


cdef void solver_destroy(Solver* S) noexcept nogil:
    cdef int i
    if S == NULL:
        return
    if S.plies != NULL:
        for i in range(NPLIES):
            buf_free(&S.plies[i].moves)
            free(S.plies[i].keys)
            free(S.plies[i].defer)
            free(S.plies[i].hc)
            free(S.plies[i].htk)
            free(S.plies[i].hstamp)
            free(S.plies[i].kst)
            free(S.plies[i].kk)
            free(S.plies[i].kcm)
    free(S.plies)
    buf_free(&S.scratch)
    cache_drop(S)
    if not S.cuts_shared:
        free(S.cuts)
    free(S.tt_raw)
    gen_free(S.g)
    free(S)


cdef void* root_worker(void* arg) noexcept nogil:
    """Search root children of ``S.job``, the lowest unfinished one before
    the lowest cut each time, until none is left. The threads all work on
    that child, splitting its moves among them (a move another thread is
    searching is put off: see ``busy`` in ab); the first to finish it
    publishes its answer and the others leave it."""
    cdef Solver* S = <Solver*>arg
    cdef RootJob* J = S.job
    cdef int j, v, c, i, last
    cdef State child
    cdef uint64_t ck1, ck2
    while True:
        c = gd_atomic_get(&J.cut)
        last = c if c < J.n - 1 else J.n - 1
        j = -1
        for i in range(last + 1):
            if not gd_atomic_get(&J.done[i]):
                j = i
                break
        if j < 0:
            break
        if J.kterm[j] != NO_TERM:
            v = J.kterm[j]
        else:
            memcpy(&child, &J.kids[j], sizeof(State))
            mode_keys(&child, J.kmode[j], &ck1, &ck2)
            if play_forced_passes(S, &child, &S.plies[1]):
                ck1 = 0
                ck2 = 0
            S.cur_root = j
            v = ab(S, &child, J.t - 1, J.t, 1, J.kmode[j], ck1, ck2)
            if S.aborted == 2:
                S.aborted = 0           # another thread finished it, or one before it cut
                continue
            if S.aborted:
                J.limit_hit = 1
                gd_atomic_min(&J.cut, -1)       # the others stop too
                break
        if (J.maxi and v >= J.t) or (not J.maxi and v < J.t):
            gd_atomic_min(&J.cut, j)
        gd_atomic_set(&J.done[j], 1)
    return NULL


cdef int root_children(Solver* S, const State* st, int mode, RootJob* J, int* lo, int* hi,
                       int* sure_best) noexcept nogil:
    """The root's moves in search order as ``J``'s children (suit-free and
    rank-free duplicates left out, a sure exit first); tightens the bounds
    by a sure exit (``sure_best``: its move index, or -1). -1: out of memory."""
    cdef Ply* P = &S.plies[0]
    cdef Py_ssize_t n, j, i
    cdef int seat = st.to_act, elo, ehi, c = 0, nkids = 0
    cdef bint maxi = (seat & 1) == 0
    cdef uint64_t lo_w, hi_w, ck1, ck2
    sure_best[0] = -1
    P.moves.n = 0
    P.ghash = 0
    P.gslot = -1
    if st_legal(<State*>st, S.g, &P.moves) < 0:
        return -1
    n = order_moves(S, st, P, -1, mode > 0)
    if n < 0:
        return -1
    j = sure_exit(S, st, P, n)
    if j >= 0:
        sure_best[0] = <int>(0xFFFFF - (P.keys[j] & 0xFFFFF))
        exit_bounds(st, seat, &elo, &ehi)
        if elo == ehi:
            lo[0] = elo
            hi[0] = elo
            return 0
        if maxi and elo > lo[0]:
            lo[0] = elo
        if not maxi and ehi < hi[0]:
            hi[0] = ehi
        key_to_front(P, j)
    J.kids = <State*>malloc((n + 1) * sizeof(State))
    J.kmode = <int*>malloc((n + 1) * sizeof(int))
    J.kterm = <int*>malloc((n + 1) * sizeof(int))
    J.kmove = <int*>malloc((n + 1) * sizeof(int))
    J.done = <long*>calloc(n + 1, sizeof(long))
    if J.kids == NULL or J.kmode == NULL or J.kterm == NULL or J.kmove == NULL or J.done == NULL:
        return -1
    for j in range(n):
        i = 0xFFFFF - (P.keys[j] & 0xFFFFF)
        lo_w = P.moves.data[2 * i]
        hi_w = P.moves.data[2 * i + 1]
        J.kmove[c] = <int>i
        if ends_round(st, lo_w, hi_w):
            J.kterm[c] = terminal_value(st, seat)
            J.kmode[c] = mode
            c += 1
            continue
        J.kterm[c] = NO_TERM
        memcpy(&J.kids[c], st, sizeof(State))
        st_apply(&J.kids[c], lo_w, hi_w)
        J.kmode[c] = child_mode(&J.kids[c], mode)
        if J.kmode[c] == 2:
            # two moves that reach the same rank-free position: one is searched
            mode_keys(&J.kids[c], 2, &ck1, &ck2)
            if seen_kid(P, ck1, ck2, &nkids):
                continue
        c += 1
    J.n = c
    J.maxi = maxi
    return 0


cdef void root_job_free(RootJob* J) noexcept nogil:
    free(J.kids)
    free(J.kmode)
    free(J.kterm)
    free(J.kmove)
    free(J.done)


cdef int solve_state(Solver* S, const State* st, int64_t max_nodes, double time_limit,
                     SolveOut* out) noexcept nogil:
    """Solve ``st`` (play phase) on one thread: see solve_state_mt."""
    return solve_state_mt(S, st, max_nodes, time_limit, 1, out)


cdef int solve_state_mt(Solver* S, const State* st, int64_t max_nodes, double time_limit,
                        int threads, SolveOut* out) noexcept nogil:
    """Solve ``st`` (play phase). Returns 0, or -1 when the state is not in
    the play phase or memory ran out. ``max_nodes`` <= 0 and ``time_limit``
    <= 0 mean no limit; the node count and deadline cover this call.

    The value is found by null-window tests ("value >= t"), each a search
    of the root's children in a fixed order: ``threads`` solvers (``S`` and
    threads - 1 helpers sharing its table) work together on the lowest
    child not yet finished (see root_worker), and a test's answer is its
    lowest child that cuts, or all of them. Of a finished search, the
    value, bounds and best move (the first child in that order that reaches
    the value) are the same for any number of threads; the nodes searched
    are not, nor where a node or time limit stops a search."""
    cdef int lo, hi, t, k, sure_best = -1, nh = 0
    cdef bint maxi = (st.to_act & 1) == 0
    cdef double t0 = gd_now()
    cdef int best_move = -1
    cdef int mode = position_mode(st)
    cdef RootJob J
    cdef Solver* H[7]
    cdef gd_thread th[7]
    cdef int started[7]
    cdef int rc = 0
    cdef int64_t helper_nodes = 0
    cdef uint64_t* busy = NULL
    cdef Solver* X
    cdef Ply* P
    memset(out, 0, sizeof(SolveOut))
    memset(&J, 0, sizeof(RootJob))
    if st.phase != PH_PLAY:
        return -1
    if threads < 1:
        threads = 1
    if threads > 8:
        threads = 8
    S.nodes = 0
    S.aborted = 0
    S.max_nodes = max_nodes if max_nodes > 0 else INT64_BIG
    S.deadline = t0 + time_limit if time_limit > 0 else 0.0
    static_bounds(st, &lo, &hi)
    if root_children(S, st, mode, &J, &lo, &hi, &sure_best) < 0:
        root_job_free(&J)
        return -1
    best_move = sure_best
    J.max_nodes = S.max_nodes
    if threads > 1 and lo < hi:
        for k in range(threads - 1):
            H[nh] = solver_new(4)
            if H[nh] == NULL:
                break
            H[nh].tt = S.tt             # one table for all (see tt_probe)
            H[nh].mask = S.mask
            free(H[nh].cuts)            # and one table of the moves that cut
            H[nh].cuts = S.cuts
            H[nh].cuts_shared = 1
            H[nh].order_code = S.order_code
            solver_cache_size(H[nh], __builtin_ctzll(<uint64_t>S.gslots))
            st_seed(H[nh].order_rng, 12345 + k)
            H[nh].max_nodes = INT64_BIG
            H[nh].deadline = S.deadline
            H[nh].job = &J
            nh += 1
        if nh > 0:
            S.max_nodes = INT64_BIG     # the job's shared count limits the nodes
            busy = <uint64_t*>calloc(BUSY_N, sizeof(uint64_t))
            if busy == NULL:
                # without the busy table the helpers would only repeat the
                # search: one thread
                for k in range(nh):
                    solver_free(H[k])
                nh = 0
                S.max_nodes = max_nodes if max_nodes > 0 else INT64_BIG
            else:
                for k in range(nh + 1):
                    X = S if k == nh else H[k]
                    X.busy = busy
                    X.bmask = BUSY_N - 1
                    X.defer_ply = DEFER_PLY
    S.job = &J
    while lo < hi:
        # test "value >= t": each completed test proves a bound
        if hi < 0:
            # the mirror image of the positive side's order: first whether
            # team 1's partner is last (value -1), as there whether team 0's is
            t = hi - (hi - lo + 1) // 2 + 1
        else:
            t = lo + (hi - lo + 1) // 2
        J.t = t
        J.cut = J.n
        memset(J.done, 0, (J.n + 1) * sizeof(long))
        for k in range(nh):
            started[k] = gd_thread_start(&th[k], root_worker, H[k]) == 0
        root_worker(S)
        for k in range(nh):
            if started[k]:
                gd_thread_join(&th[k])
            else:
                root_worker(H[k])
        if J.limit_hit or S.aborted:
            S.aborted = 1
            break
        # the test's answer is a proven fact, the same for any number of
        # threads; the fail-soft values behind it are not (they depend on
        # what the shared table held when), so only the answer is kept and
        # the tests that follow are the same for any number of threads
        if (J.cut < J.n) == (maxi != 0):
            lo = t if t != 0 else 1     # value >= t (0 is not a value)
        else:
            hi = t - 1 if t != 1 else -1
        if J.cut < J.n:
            best_move = J.kmove[J.cut]
    S.job = NULL
    S.busy = NULL
    S.defer_ply = 0
    free(busy)
    for k in range(nh):
        helper_nodes += H[k].nodes
        solver_free(H[k])
    P = &S.plies[0]
    P.moves.n = 0
    if st_legal(<State*>st, S.g, &P.moves) < 0:
        rc = -1
    elif P.moves.n > 0:
        if best_move < 0 or best_move >= P.moves.n:
            # every move reaches the proven value (it is the static bound),
            # or the search stopped before a move was proven: the first in
            # search order
            best_move = J.kmove[0] if J.n > 0 else 0
        out.has_best = 1
        out.best_lo = P.moves.data[2 * best_move]
        out.best_hi = P.moves.data[2 * best_move + 1]
    root_job_free(&J)
    out.lo = lo
    out.hi = hi
    out.nodes = S.nodes + helper_nodes
    out.aborted = S.aborted
    out.seconds = gd_now() - t0
    return rc

# ---------------------------------------------------------------------------
# Python-facing
# ---------------------------------------------------------------------------

cdef class SolveOptions:
    """The solver's options, range-checked once: ``max_nodes`` and
    ``time_limit`` (seconds; 0: none) cover the whole call; ``tt_bits``: the
    transposition table holds 2**tt_bits entries (4..30); ``per_move``: solve
    every legal move too; ``order_policy``: a native policy code whose choice
    is tried first at every node (0: the built-in ordering only);
    ``threads`` (1..8): solvers searching the root's children together on
    one table (the same answers for any number, when the search finishes);
    ``cache_bits`` (4..GC_BITS; 0: GC_BITS): the move-list cache's size, for
    tests of its reset (the search is the same for any size)."""

    cdef readonly int64_t max_nodes
    cdef readonly double time_limit
    cdef readonly int tt_bits
    cdef readonly bint per_move
    cdef readonly int order_policy
    cdef readonly int threads
    cdef readonly int cache_bits

    def __init__(self, *, int64_t max_nodes=0, double time_limit=0.0, int tt_bits=20,
                 bint per_move=False, int order_policy=0, int threads=1, int cache_bits=0):
        if tt_bits < 4 or tt_bits > 30:
            raise GuandanError("solve: tt_bits must be 4..30")
        if order_policy < 0 or order_policy >= POL_SLOTS:
            raise GuandanError("solve: order_policy must be a native policy code")
        if threads < 1 or threads > 8:
            raise GuandanError("solve: threads must be 1..8")
        if cache_bits != 0 and (cache_bits < 4 or cache_bits > GC_BITS):
            raise GuandanError(f"solve: cache_bits must be 0 or 4..{GC_BITS}")
        self.max_nodes = max_nodes
        self.time_limit = time_limit
        self.tt_bits = tt_bits
        self.per_move = per_move
        self.order_policy = order_policy
        self.threads = threads
        self.cache_bits = cache_bits


cdef SolveOptions _DEFAULT_OPTIONS = SolveOptions()


def solve(GameCore core not None, SolveOptions options=None):
    """Solve a native state (a ``GameCore``, play phase) with
    :class:`SolveOptions` (the defaults when None).

    Returns a dict: ``lo``, ``hi`` (proven bounds of the team-0 value; exact
    when equal), ``best`` (move words ``(lo, hi)`` achieving the exact value,
    or the best found when stopped), ``nodes``, ``seconds``, ``aborted``;
    with ``per_move``, ``moves``: one ``(lo, hi, vlo, vhi)`` per legal move in
    generation order, each child solved with the budget left (the limits cover
    the whole call); ``cache_resets`` counts the resets of the main solver's
    move-list cache."""
    cdef SolveOptions opt = options if options is not None else _DEFAULT_OPTIONS
    cdef int64_t max_nodes = opt.max_nodes
    cdef double time_limit = opt.time_limit
    cdef int threads = opt.threads
    cdef State st
    cdef Solver* S
    cdef SolveOut o, oc
    cdef MoveBuf root
    cdef State child
    cdef Py_ssize_t i
    cdef int rc = 0, v
    cdef int64_t left, total_nodes = 0
    cdef double t0, tl = time_limit, left_t
    cdef list moves = []
    memcpy(&st, &core.st, sizeof(State))
    if st.phase != PH_PLAY:
        raise GuandanError("solve: the position is not in the play phase")
    S = solver_new(opt.tt_bits)
    if S == NULL:
        raise MemoryError()
    if opt.cache_bits:
        solver_cache_size(S, opt.cache_bits)
    S.order_code = opt.order_policy
    st_seed(S.order_rng, 12345)
    root.data = NULL
    root.n = 0
    root.cap = 0
    try:
        t0 = gd_now()
        with nogil:
            rc = solve_state_mt(S, &st, max_nodes, time_limit, threads, &o)
        if rc < 0:
            raise MemoryError()
        res = {"lo": o.lo, "hi": o.hi, "best": (o.best_lo, o.best_hi) if o.has_best else None,
               "nodes": o.nodes, "seconds": o.seconds, "aborted": bool(o.aborted)}
        if opt.per_move:
            total_nodes = o.nodes
            if st_legal(&st, S.g, &root) < 0:
                raise MemoryError()
            for i in range(root.n):
                if ends_round(&st, root.data[2 * i], root.data[2 * i + 1]):
                    v = terminal_value(&st, st.to_act)
                    moves.append((root.data[2 * i], root.data[2 * i + 1], v, v))
                    continue
                memcpy(&child, &st, sizeof(State))
                st_apply(&child, root.data[2 * i], root.data[2 * i + 1])
                left = max_nodes - total_nodes if max_nodes > 0 else 0
                left_t = tl - (gd_now() - t0) if tl > 0 else 0.0
                if (max_nodes > 0 and left <= 0) or (tl > 0 and left_t <= 0):
                    moves.append((root.data[2 * i], root.data[2 * i + 1], -3, 3))
                    res["aborted"] = True
                    continue
                with nogil:
                    rc = solve_state_mt(S, &child, left, left_t, threads, &oc)
                if rc < 0:
                    raise MemoryError()
                total_nodes += oc.nodes
                if oc.aborted:
                    res["aborted"] = True
                moves.append((root.data[2 * i], root.data[2 * i + 1], oc.lo, oc.hi))
            res["moves"] = moves
            res["nodes"] = total_nodes
            res["seconds"] = gd_now() - t0
        res["cache_resets"] = S.gresets
        return res
    finally:
        buf_free(&root)
        solver_free(S)


def _rank_free_key(GameCore core not None):
    """The rank-free key of a native state (see rank_keys), or None when a
    sequence can still be made. For tests."""
    cdef State st
    cdef uint64_t k1, k2
    memcpy(&st, &core.st, sizeof(State))
    if position_mode(&st) != 2:
        return None
    rank_keys(&st, &k1, &k2)
    return (k1, k2)
