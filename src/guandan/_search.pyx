# cython: language_level=3
"""Native tools for search bots: sampling full positions consistent with
what one seat knows, rollouts to the end of the round with a native policy,
and determinized Monte-Carlo search (also registered as native policies).

World sampling
--------------
A seat knows its own hand, every seat's card count, the cards played this
round and by whom, and (in the play phase) the tribute and return cards of
this round. The sampler deals the unseen cards - two decks minus the own
hand minus the cards played - to the other seats by their counts.

Weighting: every *physical* deal of the unseen cards (the two copies of a
face told apart) consistent with the constraints is equally likely. So a
face whose two copies are unseen goes to two different seats with twice the
weight of both going to one seat, exactly as when the unseen cards are
shuffled and dealt by counts; with no constraint the sampler is that shuffle.
It does not weigh deals by how likely the other players were to play what
they played (no opponent model), nor by how likely the original 27-card
deal was (the posterior of the original shuffle would make a second copy of
a card a seat already played less likely).

Constraints, all exact, from the tribute of this round (public in the play
phase): a card a seat received (tribute or return) is in its hand unless it
played it since; a payer held no card stronger (level order) than its
tribute except the wilds; the payers did not hold both big jokers between
them (else anti-tribute); with anti-tribute they did; a receiver who
returned a card above 10 or a level card held no card of rank 2..10 other
than level cards, and nothing lower in level order than it except wilds.
Each is a bound on how many copies of a face a seat holds now (the joker
rule a bound on two seats together), and a deal is consistent when every
bound holds.

The sampler is exact: a dynamic program over the 54 faces, with the
remaining counts of two seats as the state (the third is implied), holds the
total weight of all consistent completions, and each sample draws a face's
split with probability proportional to (weight of the split) x (weight of
completing the rest). Building the table costs about 54 x 28 x 28 x 6
operations once per information set; each sample then costs 54 draws.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint64_t
from libc.math cimport log, exp
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset, memcpy

cimport numpy as cnp
import numpy as np

from guandan._core cimport Hand
from guandan._gen cimport (
    Gen, gen_new, gen_free, MoveBuf, buf_free, card_count, move_size, is_bomb_type,
    bomb_value, key_strength, rank_strength, T_PASS, T_JOKER_BOMB, TAG_SHIFT, mix_seed, words_shape_ok,
)
from guandan._engine cimport (
    Tribute, State, View, GameCore, NativeView, st_init_play, policy_salt, PH_PLAY, POL_SLOTS,
    POLF_SEARCH, view_of, st_seed, rng_next, st_apply, st_legal, policy_choose, policy_choose_view, policy_add,
    policy_rollout_ok, policy_play, plays_by_seat, POL_EXPERT, Trail, TrailEntry, trail_unplay, trail_pass_break,
    EV_PASS, EV_BREAK, EV_BOMB, EV_OVERTAKE, EVB_PASSED, EVB_BROKE, TRAIL_MAX,
)
from guandan._expert cimport (
    split_fill, SPLIT_DIM, family_code, FAM_EXPERT, FAM_BOMB_EARLY, FAM_KEEP, FAM_EAGER, NFAMILY,
)
from guandan._solve cimport (
    Solver, SolveOut, solver_new, solver_free, solve_state, ends_round, terminal_value,
    terminal_order, order_value, gd_now, gd_thread_cpu,
)

from .errors import GuandanError

cnp.import_array()

cdef int HR = 53
cdef uint64_t FACE_MASK = (<uint64_t>1 << 54) - 1

# the ways to split u unseen copies of a face among the three other seats,
# and the number of physical arrangements of each (copies told apart)
cdef int8_t OPTX[3][6][3]
cdef double MULT[3][6]
cdef int NOPT[3]


cdef void _init_tables() noexcept:
    cdef int a, b, c, u, n
    memset(OPTX, 0, sizeof(OPTX))
    for u in range(3):
        n = 0
        for a in range(u, -1, -1):
            for b in range(u - a, -1, -1):
                c = u - a - b
                OPTX[u][n][0] = a
                OPTX[u][n][1] = b
                OPTX[u][n][2] = c
                # u! / (a! b! c!)
                MULT[u][n] = 2.0 if (u == 2 and a < 2 and b < 2 and c < 2) else 1.0
                n += 1
        NOPT[u] = n


_init_tables()


cdef inline int nbits(uint64_t one, uint64_t two, int f) noexcept nogil:
    return <int>((one >> f) & 1) + <int>((two >> f) & 1)


cdef inline void add_copies(State* st, int seat, int f, int k) noexcept nogil:
    cdef uint64_t bit = (<uint64_t>1) << f
    while k > 0:
        if st.one[seat] & bit:
            st.two[seat] |= bit
        else:
            st.one[seat] |= bit
        k -= 1


cdef inline int face_strength(int f, int level) noexcept nogil:
    if f >= 52:
        return rank_strength(f - 39, level)
    return rank_strength(f >> 2, level)


cdef inline bint returnable(int f, int level) noexcept nogil:
    """A card a receiver may return when it has one: rank 2..10, not a level card."""
    return f < 36 and (f >> 2) != level


cdef inline int imax(int a, int b) noexcept nogil:
    return a if a > b else b


cdef inline int imin(int a, int b) noexcept nogil:
    return a if a < b else b


cdef inline double unif(uint64_t* rng) noexcept nogil:
    return <double>(rng_next(rng) >> 11) * (1.0 / 9007199254740992.0)

# ---------------------------------------------------------------------------
# Information sets and the sampler
# ---------------------------------------------------------------------------

cdef inline void tribute_of(const Tribute* tr, int i, int* p, int* r, int* t, int* b) noexcept nogil:
    """Payer ``i``'s tribute: the payer, the receiver, the card paid and the
    card returned (-1 where not decided yet)."""
    p[0] = tr.payer[i]
    r[0] = tr.recv[i]
    t[0] = tr.paid[i]
    b[0] = tr.returned[i]


ctypedef struct Bounds:
    # what the tribute of this round proves about the other seats' hands now
    int8_t lb[3][54]           # at least / at most this many copies of face f (others[k])
    int8_t ub[3][54]
    int jmask                  # the payers (bits), whose big jokers together lie in jlo..jhi
    int jlo, jhi
    int joff                   # big jokers the payers held then but not in the unseen split


cdef inline int info_template(Info* IS, const State* base, int seat, const int8_t* counts,
                              uint64_t pone, uint64_t ptwo) noexcept nogil:
    """The public template (own hand only), the other seats and their
    counts, and the unseen copies of each face; -1 if the counts do not
    match the unseen cards."""
    cdef int s, k, f, nu, total
    cdef uint64_t own1 = base.one[seat], own2 = base.two[seat]
    memcpy(&IS.base, base, sizeof(State))
    IS.seat = seat
    IS.G = NULL
    # nothing hidden stays in the template: not the other hands (below), not
    # the deal RNG (the next rounds' deals), not the last round's end hands
    st_seed(IS.base.deal_rng, <uint64_t>0x5EED5EED5EED5EED)
    memset(IS.base.end_one, 0, sizeof(IS.base.end_one))
    memset(IS.base.end_two, 0, sizeof(IS.base.end_two))
    k = 0
    for s in range(4):
        if s != seat:
            IS.others[k] = s
            IS.need[k] = counts[s]
            if counts[s] < 0 or counts[s] > 54:
                return -1
            IS.base.one[s] = 0
            IS.base.two[s] = 0
            k += 1
    total = 0
    for f in range(54):
        nu = 2 - nbits(own1, own2, f) - nbits(pone, ptwo, f)
        if nu < 0:
            return -1
        IS.u[f] = <int8_t>nu
        total += nu
    if total != IS.need[0] + IS.need[1] + IS.need[2]:
        return -1
    return 0


cdef inline int info_bounds(const Info* IS, const State* base, int seat, const uint64_t* pby_one,
                            const uint64_t* pby_two, bint use_tribute, Bounds* B) noexcept nogil:
    """The bounds the tribute of this round (and who played what since)
    puts on each other seat's copies of each face; -1 if the tribute is
    incomplete."""
    cdef int s, k, f, i, p, r, t, b, ts, bs, kp, kr, wild
    cdef int8_t off0[4][54]
    cdef int8_t off1[4][54]
    cdef uint64_t own1 = base.one[seat], own2 = base.two[seat]
    B.jmask = 0
    B.jlo = 0
    B.jhi = 2
    B.joff = 0
    # offsets: the hand now + off = the hand at an earlier time
    # off0: at the deal (before tribute), off1: after the tribute exchange, before returns
    memset(off0, 0, sizeof(off0))
    memset(off1, 0, sizeof(off1))
    if pby_one != NULL:
        for s in range(4):
            for f in range(54):
                i = nbits(pby_one[s], pby_two[s], f)
                off0[s][f] += i
                off1[s][f] += i
    for k in range(3):
        for f in range(54):
            B.lb[k][f] = 0
            B.ub[k][f] = 2
    if not (use_tribute and base.tr.npay > 0):
        return 0
    if base.tr.npay > 2:
        return -1
    for i in range(base.tr.npay):
        if base.tr.payer[i] < 0 or base.tr.payer[i] > 3:
            return -1
    if not base.tr.anti:
        for i in range(base.tr.npay):
            tribute_of(&base.tr, i, &p, &r, &t, &b)
            if r < 0 or r > 3 or t < 0 or t > 53 or b < 0 or b > 53:
                return -1                       # tribute or return not done yet
            off0[p][t] += 1                     # the payer gave t
            off0[r][t] -= 1                     # the receiver got it
            off0[r][b] += 1                     # the receiver returned b
            off0[p][b] -= 1
            off1[r][b] += 1
            off1[p][b] -= 1
    for k in range(3):
        s = IS.others[k]
        for f in range(54):
            B.lb[k][f] = <int8_t>imax(0, imax(-off0[s][f], -off1[s][f]))
            B.ub[k][f] = <int8_t>imin(2, imin(2 - off0[s][f], 2 - off1[s][f]))
    wild = 4 * base.rlevel + 1
    if not base.tr.anti:
        for i in range(base.tr.npay):
            tribute_of(&base.tr, i, &p, &r, &t, &b)
            kp = -1
            kr = -1
            for k in range(3):
                if IS.others[k] == p:
                    kp = k
                if IS.others[k] == r:
                    kr = k
            if kp >= 0:
                # the tribute is the payer's highest card, never a wild
                ts = face_strength(t, base.rlevel)
                for f in range(54):
                    if f != wild and face_strength(f, base.rlevel) > ts:
                        B.ub[kp][f] = <int8_t>imin(B.ub[kp][f], -off0[p][f])
            if kr >= 0 and not returnable(b, base.rlevel):
                # a return above 10 (or a level card): nothing returnable was
                # held, and nothing lower than it but wilds
                bs = face_strength(b, base.rlevel)
                for f in range(54):
                    if returnable(f, base.rlevel) or (f != wild and face_strength(f, base.rlevel) < bs):
                        B.ub[kr][f] = <int8_t>imin(B.ub[kr][f], -off1[r][f])
        B.jlo = 0
        B.jhi = 1                               # else it would have been anti-tribute
    else:
        B.jlo = 2
        B.jhi = 2                               # anti-tribute: the payers held both
    for i in range(base.tr.npay):
        p = base.tr.payer[i]
        B.jmask |= 1 << p
        B.joff += off0[p][HR]
        if p == seat:
            B.joff += nbits(own1, own2, HR)
    return 0


cdef inline void info_split_weights(Info* IS, const Bounds* B) noexcept nogil:
    """The weight of every split of every face's unseen copies: its physical
    arrangements, 0 where a bound rules it out."""
    cdef int f, o, k, nu, sm
    cdef double w
    for f in range(54):
        nu = IS.u[f]
        for o in range(6):
            IS.w[f][o] = 0.0
        for o in range(NOPT[nu]):
            w = MULT[nu][o]
            for k in range(3):
                if OPTX[nu][o][k] < B.lb[k][f] or OPTX[nu][o][k] > B.ub[k][f]:
                    w = 0.0
            if f == HR and B.jmask:
                sm = B.joff
                for k in range(3):
                    if (B.jmask >> IS.others[k]) & 1:
                        sm += OPTX[nu][o][k]
                if sm < B.jlo or sm > B.jhi:
                    w = 0.0
            IS.w[f][o] = w


cdef inline int info_completions(Info* IS) noexcept nogil:
    """The DP table of completion weights, from the last face back; -2 if
    no deal is consistent, -3 out of memory."""
    cdef int f, o, i, j, kk, nu, d0, d1
    cdef double w, acc
    cdef double* G
    cdef Py_ssize_t idx, nxt
    d0 = IS.need[0] + 1
    d1 = IS.need[1] + 1
    IS.d1 = d1
    IS.rem[54] = 0
    for f in range(53, -1, -1):
        IS.rem[f] = IS.rem[f + 1] + IS.u[f]
    G = <double*>malloc(55 * d0 * d1 * sizeof(double))
    if G == NULL:
        return -3
    IS.G = G
    for i in range(d0 * d1):
        G[54 * d0 * d1 + i] = 0.0
    G[54 * d0 * d1] = 1.0
    for f in range(53, -1, -1):
        nu = IS.u[f]
        for i in range(d0):
            for j in range(d1):
                idx = (f * d0 + i) * d1 + j
                kk = IS.rem[f] - i - j
                if kk < 0 or kk > IS.need[2]:
                    G[idx] = 0.0
                    continue
                acc = 0.0
                for o in range(NOPT[nu]):
                    w = IS.w[f][o]
                    if w == 0.0:
                        continue
                    if OPTX[nu][o][0] > i or OPTX[nu][o][1] > j or OPTX[nu][o][2] > kk:
                        continue
                    nxt = ((f + 1) * d0 + i - OPTX[nu][o][0]) * d1 + j - OPTX[nu][o][1]
                    acc += w * G[nxt]
                G[idx] = acc
    if not (G[(0 * d0 + IS.need[0]) * d1 + IS.need[1]] > 0.0):
        return -2
    return 0


cdef int info_init(Info* IS, const State* base, int seat, const int8_t* counts,
                   uint64_t pone, uint64_t ptwo, const uint64_t* pby_one,
                   const uint64_t* pby_two, bint use_tribute) noexcept nogil:
    """What ``seat`` knows: ``base`` is the public state (its own hand in
    ``base``; the other hands are ignored), ``counts`` every seat's card
    count, ``pone/ptwo`` the cards played this round, ``pby_*`` (or NULL)
    the cards each seat played this round (needed only with tribute
    constraints). Returns 0, -1 if the counts do not match the unseen cards
    or the tribute is incomplete, -2 if no deal is consistent, -3 out of
    memory."""
    cdef Bounds B
    cdef int rc = info_template(IS, base, seat, counts, pone, ptwo)
    if rc != 0:
        return rc
    rc = info_bounds(IS, base, seat, pby_one, pby_two, use_tribute, &B)
    if rc != 0:
        return rc
    info_split_weights(IS, &B)
    return info_completions(IS)


cdef void info_free(Info* IS) noexcept nogil:
    free(IS.G)
    IS.G = NULL


cdef inline int pick_split(const Info* IS, int f, int a, int b, int c, const double* nxt, int stride,
                           double r) noexcept nogil:
    """The split of face ``f``'s unseen copies (a, b, c at most to the three
    other seats) drawn in proportion to its weight times the weight of
    completing the rest (``nxt[(a - xa) * stride + b - xb]``), ``r`` uniform
    in [0, total); the last possible one when rounding leaves ``r`` at the
    top; -1 if none."""
    cdef int o, nu = IS.u[f], last = -1
    cdef double acc = 0.0, val
    for o in range(NOPT[nu]):
        if IS.w[f][o] == 0.0:
            continue
        if OPTX[nu][o][0] > a or OPTX[nu][o][1] > b or OPTX[nu][o][2] > c:
            continue
        val = IS.w[f][o] * nxt[(a - OPTX[nu][o][0]) * stride + b - OPTX[nu][o][1]]
        if val <= 0.0:
            continue
        last = o
        acc += val
        if r < acc:
            return o
    return last


cdef void info_world(const Info* IS, uint64_t* rng, State* out) noexcept nogil:
    """A full position drawn from the information set (see the module doc)."""
    cdef int f, nu, i = IS.need[0], j = IS.need[1], kk, pick, d1 = IS.d1
    cdef int d0 = IS.need[0] + 1
    cdef double r
    cdef const double* G = IS.G
    memcpy(out, &IS.base, sizeof(State))
    for f in range(54):
        nu = IS.u[f]
        if nu == 0:
            continue
        kk = IS.rem[f] - i - j
        r = unif(rng) * G[(f * d0 + i) * d1 + j]
        pick = pick_split(IS, f, i, j, kk, &G[(f + 1) * d0 * d1], d1, r)
        if pick < 0:
            continue                     # unreachable for a consistent table
        add_copies(out, IS.others[0], f, OPTX[nu][pick][0])
        add_copies(out, IS.others[1], f, OPTX[nu][pick][1])
        add_copies(out, IS.others[2], f, OPTX[nu][pick][2])
        i -= OPTX[nu][pick][0]
        j -= OPTX[nu][pick][1]


cdef void info_marginals(const Info* IS, double* out) noexcept nogil:
    """Expected copies of each face in each seat's hand (out: 4 x 54), exact
    (forward x backward over the DP)."""
    cdef int f, o, nu, i, j, kk, d1 = IS.d1, d0 = IS.need[0] + 1, k
    cdef double* F = <double*>calloc(d0 * d1 * 2, sizeof(double))
    cdef double* cur
    cdef double* nxt
    cdef double* tmp
    cdef double z = IS.G[IS.need[0] * d1 + IS.need[1]], val
    cdef const double* G = IS.G
    memset(out, 0, 4 * 54 * sizeof(double))
    for f in range(54):
        out[IS.seat * 54 + f] = nbits(IS.base.one[IS.seat], IS.base.two[IS.seat], f)
    if F == NULL:
        return
    cur = F
    nxt = F + d0 * d1
    cur[IS.need[0] * d1 + IS.need[1]] = 1.0
    for f in range(54):
        nu = IS.u[f]
        memset(nxt, 0, d0 * d1 * sizeof(double))
        for i in range(d0):
            for j in range(d1):
                if cur[i * d1 + j] == 0.0:
                    continue
                kk = IS.rem[f] - i - j
                for o in range(NOPT[nu]):
                    if IS.w[f][o] == 0.0:
                        continue
                    if OPTX[nu][o][0] > i or OPTX[nu][o][1] > j or OPTX[nu][o][2] > kk:
                        continue
                    val = cur[i * d1 + j] * IS.w[f][o]
                    nxt[(i - OPTX[nu][o][0]) * d1 + j - OPTX[nu][o][1]] += val
                    val *= G[((f + 1) * d0 + i - OPTX[nu][o][0]) * d1 + j - OPTX[nu][o][1]] / z
                    for k in range(3):
                        out[IS.others[k] * 54 + f] += val * OPTX[nu][o][k]
        tmp = cur
        cur = nxt
        nxt = tmp
    free(F)


cdef inline void base_from_view(State* st, const View* v) noexcept nogil:
    st_init_play(st, &v.rules, v.rlevel, v.level[0], v.level[1], -1, v.seat, v.top_lo, v.top_hi,
                 v.top_seat, v.passes, v.fin, v.nfin)
    st.one[v.seat] = v.one
    st.two[v.seat] = v.two
    st.tr = v.tr                        # (no tribute unless v.tribute_known)


cdef int info_from_view(Info* IS, const View* v) noexcept nogil:
    """The information set of a native policy's View, on the View's rules,
    with this round's tribute and return constraints when the View carries
    them (a state that saw the whole round; not a View built from an
    observation's fields)."""
    cdef State st
    base_from_view(&st, v)
    if v.tribute_known:
        return info_init(IS, &st, v.seat, v.counts, v.pone, v.ptwo, v.pby_one, v.pby_two, True)
    return info_init(IS, &st, v.seat, v.counts, v.pone, v.ptwo, NULL, NULL, False)

# ---------------------------------------------------------------------------
# Rollouts
# ---------------------------------------------------------------------------

cdef int rollout(State* st, Gen* g, MoveBuf* b, int code, uint64_t* rng,
                 int8_t* order) noexcept nogil:
    """Play the round to its end with native policy ``code`` at every seat
    (``st`` is modified). Returns the team-0 value and fills the finishing
    order; -100 on error."""
    cdef int codes[4]
    codes[0] = code
    codes[1] = code
    codes[2] = code
    codes[3] = code
    return rollout_seats(st, g, b, codes, rng, order)

# ---------------------------------------------------------------------------
# Determinized Monte-Carlo search
# ---------------------------------------------------------------------------

cdef int _cmp_i64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0], y = (<const int64_t*>b)[0]
    return -1 if x < y else (1 if x > y else 0)

from libc.stdlib cimport qsort


cdef inline bint _has(const Py_ssize_t* xs, int n, Py_ssize_t v) noexcept nogil:
    cdef int i
    for i in range(n):
        if xs[i] == v:
            return True
    return False


cdef int select_candidates(const MoveBuf* legal, Py_ssize_t p0, int K, int level, int handn,
                           Py_ssize_t* out, const float* feat) noexcept nogil:
    """Candidate moves, best guesses first: the rollout policy's choice; moves
    that go out; the pass; then round robin over move types (bombs one
    group), each type's moves ascending by strength with copies that differ
    only in suits dropped, taking the lowest, the highest, the second lowest,
    ... - or, given ``feat`` (each move's split features, SPLIT_DIM floats a
    move: split_fill), each type's moves by the expert's gain (the value of
    the hand left against the hand's, feature 0), best first, then by
    strength. All moves when there are at most K."""
    cdef Py_ssize_t n = legal.n, i, j
    cdef int k = 0, t, key, sz, nw, grp, r, any_left, wild = 4 * level + 1
    cdef uint64_t lo, hi
    cdef int64_t* keys
    cdef Py_ssize_t* uniq
    cdef int gs[12]
    cdef int ge[12]
    cdef int nu = 0, g
    cdef int64_t sk
    if K > MAXCAND:
        K = MAXCAND
    if K < 1:
        K = 1
    if 0 <= p0 < n:
        out[k] = p0
        k += 1
    if n <= K:
        for i in range(n):
            if i != p0:
                out[k] = i
                k += 1
        return k
    for i in range(n):
        if k >= K:
            return k
        lo = legal.data[2 * i]
        hi = legal.data[2 * i + 1]
        t = (lo >> TAG_SHIFT) & 15
        if t != T_PASS and move_size(lo, hi) == handn and not _has(out, k, i):
            out[k] = i
            k += 1
    for i in range(n):
        if k >= K:
            return k
        if ((legal.data[2 * i] >> TAG_SHIFT) & 15) == T_PASS and not _has(out, k, i):
            out[k] = i
            k += 1
    keys = <int64_t*>malloc(n * sizeof(int64_t))
    uniq = <Py_ssize_t*>malloc(n * sizeof(Py_ssize_t))
    if keys == NULL or uniq == NULL:
        free(keys)
        free(uniq)
        return k
    for i in range(n):
        lo = legal.data[2 * i]
        hi = legal.data[2 * i + 1]
        t = (lo >> TAG_SHIFT) & 15
        if t == T_PASS:
            keys[i] = (<int64_t>15 << 56) | i
            continue
        key = (hi >> TAG_SHIFT) & 31
        sz = move_size(lo, hi)
        nw = <int>((lo >> wild) & 1) + <int>((hi >> wild) & 1)
        if is_bomb_type(t):
            grp = 9
            sk = bomb_value(t, key, sz, level)
        else:
            grp = t
            sk = key_strength(t, key, level)
        sk = ((sk * 32 + sz) * 4 + nw) * 16 + t
        if feat != NULL:                # the gain (-128..127), best first, above the strength
            sk += (<int64_t>(127 - <int>feat[i * SPLIT_DIM])) << 28
        keys[i] = (<int64_t>grp << 56) | (sk << 20) | i
    qsort(keys, n, sizeof(int64_t), _cmp_i64)
    for g in range(12):
        gs[g] = -1
        ge[g] = -1
    j = -1
    for i in range(n):
        grp = <int>(keys[i] >> 56)
        if grp == 15:
            continue
        if j >= 0 and (keys[i] >> 20) == (keys[j] >> 20):
            continue                    # same group, type, key, size and wilds: a suit variant
        j = i
        if gs[grp] < 0:
            gs[grp] = nu
        uniq[nu] = i
        nu += 1
        ge[grp] = nu
    r = 0
    while k < K:
        any_left = 0
        for g in range(1, 10):
            if k >= K:
                break
            if gs[g] < 0:
                continue
            if feat != NULL:
                j = gs[g] + r
            elif r % 2 == 0:
                j = gs[g] + r // 2
            else:
                j = ge[g] - 1 - r // 2
            if j < gs[g] or j >= ge[g]:
                continue
            any_left = 1
            i = <Py_ssize_t>(keys[uniq[j]] & 0xFFFFF)
            if not _has(out, k, i):
                out[k] = i
                k += 1
        if not any_left:
            break
        r += 1
    free(keys)
    free(uniq)
    return k


# ---------------------------------------------------------------------------
# Opponent models: habits, likelihood of this round's plays, rollout styles
# ---------------------------------------------------------------------------

# what the expert does when it has the chance (the prior of every seat's
# rates; measured over the finished rounds of 60 six-round games against
# the expert: 111 passes in 887 chances, 167 breaks in 754)
cdef double PRIOR_PASS = 0.13
cdef double PRIOR_BREAK = 0.22
cdef int POLICY_SLACK = 4              # infer=2: mismatches behind the best world counted at most
cdef enum:
    PROPOSALS_MAX = 256                 # proposals per world (the configurations' range)
cdef double PRIOR_WEIGHT = 8.0          # the prior counts as this many chances
cdef double EPS_MIN = 0.05              # no play is ever ruled out


# ---------------------------------------------------------------------------
# Worlds tilted toward the groups players keep (keep > 0)
#
# Players keep their bombs, triples and pairs and play their loose cards
# first, so as a round goes on the hands still hidden hold far more
# groups than a uniform deal of the unseen cards gives them: in expert
# games, once a seat has played 10-14 cards, 1.1 bombs against 0.35. The
# tilted sampler weighs every deal of the unseen cards by
# exp(keep * sum over the other seats and ranks of TILT[played][group]),
# group the seat's copies of the rank (4 or more, 3, 2), played the cards
# the seat has played this round (0-4, 5-9, 10-14, 15-19, 20 or more). The
# weights were fitted (maximum likelihood of the real hands' groups over
# uniform worlds, per seat) on the hands of expert players in first rounds
# against expert, so that keep=1 worlds hold as many groups as theirs.
# Exact, not resampled: a DP over the 15 rank groups (13 ranks, two
# jokers) of the per-face DP's weights, each group's splits summed by the
# copies each seat gets. Range: at keep <= KEEP_MAX a world's tilt is at
# most exp(270) (three hands of up to 54 cards, 6.8 a rank), times at most
# 3**108 arrangements: far inside a double.
# ---------------------------------------------------------------------------

cdef double KEEP_MAX = 4.0
cdef double TILT[5][3]
TILT[0][:] = [1.7, 1.2, 0.7]
TILT[1][:] = [2.3, 1.2, 0.5]
TILT[2][:] = [4.2, 1.8, 0.7]
TILT[3][:] = [6.2, 3.1, 1.5]
TILT[4][:] = [10.0, 4.7, 2.4]

ctypedef struct Kept:
    double N[15][5][9][9]      # group g from its face k on: weight of a, b copies to others[0], [1]
    double W[15][9][9]         # group g's weight of a, b copies (c the rest), tilted
    int U[15][5]               # unseen copies in group g's faces k..
    int rem[16]                # unseen cards in groups g..
    int d0, d1
    double* G                  # 16 x d0 x d1: completion weights from group g on


cdef inline int group_face0(int g) noexcept nogil:
    return 4 * g if g < 13 else 39 + g


cdef inline int group_faces(int g) noexcept nogil:
    return 4 if g < 13 else 1


cdef void kept_free(Kept* K) noexcept nogil:
    if K != NULL:
        free(K.G)
        free(K)


cdef Kept* kept_new(const Info* IS, double keep) noexcept nogil:
    """The tilted sampler's tables for ``IS`` (NULL: out of memory, or no
    consistent deal)."""
    cdef Kept* K = <Kept*>calloc(1, sizeof(Kept))
    cdef int g, k, f, nf, nu, o, a, b, c, oa, ob, i, j, kk, bn, U
    cdef double acc
    cdef double t[3][9]
    if K == NULL:
        return NULL
    K.d0 = IS.need[0] + 1
    K.d1 = IS.need[1] + 1
    K.G = <double*>calloc(16 * K.d0 * K.d1, sizeof(double))
    if K.G == NULL:
        free(K)
        return NULL
    for k in range(3):
        bn = 27 - IS.need[k]
        bn = 0 if bn < 5 else (1 if bn < 10 else (2 if bn < 15 else (3 if bn < 20 else 4)))
        for c in range(9):
            t[k][c] = 1.0
            if c >= 4:
                t[k][c] = exp(keep * TILT[bn][0])
            elif c == 3:
                t[k][c] = exp(keep * TILT[bn][1])
            elif c == 2:
                t[k][c] = exp(keep * TILT[bn][2])
    K.rem[15] = 0
    for g in range(14, -1, -1):
        nf = group_faces(g)
        K.U[g][nf] = 0
        K.N[g][nf][0][0] = 1.0
        for k in range(nf - 1, -1, -1):
            f = group_face0(g) + k
            nu = IS.u[f]
            K.U[g][k] = K.U[g][k + 1] + nu
            for a in range(K.U[g][k] + 1):
                for b in range(K.U[g][k] - a + 1):
                    c = K.U[g][k] - a - b
                    acc = 0.0
                    for o in range(NOPT[nu]):
                        oa = OPTX[nu][o][0]
                        ob = OPTX[nu][o][1]
                        if IS.w[f][o] == 0.0 or oa > a or ob > b or OPTX[nu][o][2] > c:
                            continue
                        acc += IS.w[f][o] * K.N[g][k + 1][a - oa][b - ob]
                    K.N[g][k][a][b] = acc
        U = K.U[g][0]
        K.rem[g] = K.rem[g + 1] + U
        for a in range(U + 1):
            for b in range(U - a + 1):
                K.W[g][a][b] = K.N[g][0][a][b]
                if g < 13:
                    K.W[g][a][b] *= t[0][a] * t[1][b] * t[2][U - a - b]
    K.G[(15 * K.d0 + 0) * K.d1 + 0] = 1.0
    for g in range(14, -1, -1):
        U = K.U[g][0]
        for i in range(K.d0):
            for j in range(K.d1):
                kk = K.rem[g] - i - j
                if kk < 0 or kk > IS.need[2]:
                    continue
                acc = 0.0
                for a in range(imin(U, i) + 1):
                    for b in range(imin(U - a, j) + 1):
                        if U - a - b > kk or K.W[g][a][b] == 0.0:
                            continue
                        acc += K.W[g][a][b] * K.G[((g + 1) * K.d0 + i - a) * K.d1 + j - b]
                K.G[(g * K.d0 + i) * K.d1 + j] = acc
    if not (K.G[IS.need[0] * K.d1 + IS.need[1]] > 0.0):
        kept_free(K)
        return NULL
    return K


cdef void kept_world(const Info* IS, const Kept* K, uint64_t* rng, State* out) noexcept nogil:
    """A world drawn from the tilted weights (exact: group by group, then
    face by face within the group)."""
    cdef int g, k, f, nf, nu, a, b, c, i = IS.need[0], j = IS.need[1], kk, U, pa, pb, pick
    cdef int d0 = K.d0, d1 = K.d1
    cdef double r, acc, val
    memcpy(out, &IS.base, sizeof(State))
    for g in range(15):
        U = K.U[g][0]
        if U == 0:
            continue
        kk = K.rem[g] - i - j
        r = unif(rng) * K.G[(g * d0 + i) * d1 + j]
        acc = 0.0
        pa = -1
        pb = -1
        for a in range(imin(U, i) + 1):
            for b in range(imin(U - a, j) + 1):
                if U - a - b > kk:
                    continue
                val = K.W[g][a][b] * K.G[((g + 1) * d0 + i - a) * d1 + j - b]
                if val <= 0.0:
                    continue
                pa = a
                pb = b
                acc += val
                if r < acc:
                    break
            if r < acc:
                break
        if pa < 0:
            continue                     # unreachable for a consistent table
        a = pa
        b = pb
        c = U - a - b
        i -= a
        j -= b
        nf = group_faces(g)
        for k in range(nf):
            f = group_face0(g) + k
            nu = IS.u[f]
            if nu == 0:
                continue
            r = unif(rng) * K.N[g][k][a][b]
            pick = pick_split(IS, f, a, b, c, &K.N[g][k + 1][0][0], 9, r)
            if pick < 0:
                continue
            add_copies(out, IS.others[0], f, OPTX[nu][pick][0])
            add_copies(out, IS.others[1], f, OPTX[nu][pick][1])
            add_copies(out, IS.others[2], f, OPTX[nu][pick][2])
            a -= OPTX[nu][pick][0]
            b -= OPTX[nu][pick][1]
            c -= OPTX[nu][pick][2]


ctypedef struct Model:
    double lpass[4]                     # log P(pass | a loose stronger group) per seat
    double lbreak[4]                    # log P(follow from a bigger group | a loose one) per seat
    int codes[4]                        # rollout policy per seat
    int policy                          # infer=2: each action weighs 1 if the seat's model plays it, else eps
    double leps                         # log eps
    int depth                           # ... over the seat's last this many actions of the others
    double keep                         # the structure tilt's scale (0: none)
    Kept* kept                          # ... its sampler's tables (NULL: the uniform sampler)


cdef inline double rate(int32_t hit, int32_t opp, double prior) noexcept nogil:
    cdef double r = (hit + PRIOR_WEIGHT * prior) / (opp + PRIOR_WEIGHT)
    return EPS_MIN if r < EPS_MIN else (1.0 if r > 1.0 else r)


cdef int style_of_habits(const Trail* T, int s) noexcept nogil:
    """The rollout style (FAM_*) a seat's habits over the finished rounds show."""
    cdef const int32_t* o = T.opp[s]
    cdef const int32_t* h = T.hit[s]
    if T.early_bombs[s] >= 1:
        return FAM_BOMB_EARLY           # this round: bombed an opponent far from out
    if o[EV_BOMB] >= 2 and h[EV_BOMB] * 3 >= o[EV_BOMB]:
        return FAM_BOMB_EARLY           # bombs early a third of the times it can
    if o[EV_PASS] >= 8 and rate(h[EV_PASS], o[EV_PASS], PRIOR_PASS) >= PRIOR_PASS + 0.15:
        return FAM_KEEP                 # passes with a loose stronger group far more than the expert
    if o[EV_PASS] >= 12 and rate(h[EV_PASS], o[EV_PASS], PRIOR_PASS) <= PRIOR_PASS - 0.05:
        return FAM_EAGER                # follows with a loose group more readily than the expert
    if T.overtakes[s] >= 2 or (o[EV_OVERTAKE] >= 6 and h[EV_OVERTAKE] * 2 >= o[EV_OVERTAKE]):
        return FAM_EAGER                # plays over its partner half the time
    return FAM_EXPERT


cdef void model_build(const Info* IS, const Trail* T, const SearchCfg* cfg, Model* M) noexcept nogil:
    cdef int s
    for s in range(4):
        M.codes[s] = cfg.rollout_code
        M.lpass[s] = log(PRIOR_PASS)
        M.lbreak[s] = log(PRIOR_BREAK)
        if T == NULL:
            continue
        M.lpass[s] = log(rate(T.hit[s][EV_PASS], T.opp[s][EV_PASS], PRIOR_PASS))
        M.lbreak[s] = log(rate(T.hit[s][EV_BREAK], T.opp[s][EV_BREAK], PRIOR_BREAK))
        if cfg.model and s != IS.seat and cfg.rollout_code == POL_EXPERT:
            M.codes[s] = family_code(style_of_habits(T, s))
    M.policy = cfg.infer == 2 and T != NULL
    M.leps = log(cfg.peps if cfg.peps > 0 else 1e-9)
    M.depth = cfg.pdepth if cfg.pdepth > 0 else TRAIL_MAX
    M.keep = cfg.keep
    M.kept = NULL
    if cfg.keep > 0.0:
        M.kept = kept_new(IS, cfg.keep)       # NULL (out of memory): uniform worlds


cdef inline void model_free(Model* M) noexcept nogil:
    kept_free(M.kept)
    M.kept = NULL


cdef inline void world_sample(const Info* IS, const Model* M, uint64_t* rng, State* out) noexcept nogil:
    """A world from the information set: tilted toward kept groups when the
    model has the tables (kept_world), else uniform (info_world)."""
    if M.kept != NULL:
        kept_world(IS, M.kept, rng, out)
    else:
        info_world(IS, rng, out)


ctypedef struct Tricks:
    # per action of a trail: its top play (an index, -1: a lead), the passes
    # since it, the seats out before it (the first finn of fin)
    int16_t topj[TRAIL_MAX]
    int8_t pas[TRAIL_MAX]
    int8_t finn[TRAIL_MAX]
    int8_t fin[4]


cdef void trail_tricks(const Trail* T, Tricks* R) noexcept nogil:
    cdef int k, cur = -1, passes = 0, nfin = 0
    cdef const TrailEntry* e
    for k in range(4):
        R.fin[k] = -1
    for k in range(T.n):
        e = &T.e[k]
        R.topj[k] = <int16_t>(cur if e.top_seat >= 0 else -1)
        R.pas[k] = <int8_t>passes
        R.finn[k] = <int8_t>nfin
        if e.t == T_PASS:
            passes += 1
        else:
            cur = k
            passes = 0
            if e.t == 15 and nfin < 4 and 0 <= e.seat <= 3:
                R.fin[nfin] = e.seat
                nfin += 1


cdef inline bint hand_ok(uint64_t one, uint64_t two) noexcept nogil:
    return not ((one | two) & ~FACE_MASK) and not (two & ~one) and card_count(one, two) <= 27


cdef int trick_before(const Trail* T, const Tricks* R, int k, State* st) noexcept nogil:
    """Set the trick of ``st`` (the seat to act, the play to beat, passes,
    seats out) to what it was just before action ``k``; 0 when the trail
    cannot rebuild it (entries from outside)."""
    cdef const TrailEntry* e = &T.e[k]
    cdef int j = R.topj[k], r
    if e.top_seat >= 0 and (j < 0 or T.e[j].seat != e.top_seat or e.top_t == T_PASS
                            or e.top_t > T_JOKER_BOMB):
        return 0
    st.to_act = e.seat
    st.top_seat = e.top_seat
    if j >= 0:
        st.top_lo = T.e[j].one | ((<uint64_t>e.top_t) << TAG_SHIFT)
        st.top_hi = T.e[j].two | ((<uint64_t>e.top_key) << TAG_SHIFT)
        if not words_shape_ok(st.top_lo, st.top_hi, st.rlevel):
            return 0
    else:
        st.top_lo = 0
        st.top_hi = 0
    st.passes = R.pas[k]
    st.nfin = R.finn[k]
    for r in range(4):
        st.fin[r] = R.fin[r] if r < R.finn[k] else -1
    return 1


cdef int model_plays(const State* st, const TrailEntry* e, int code, Gen* g, MoveBuf* b,
                     uint64_t* prng) noexcept nogil:
    """1 if the native policy ``code`` plays action ``e`` at ``st``, 0 if
    not, -1 on error."""
    cdef uint64_t lo, hi
    cdef Py_ssize_t i
    cdef int r = policy_play(code, st, g, b, &lo, &hi)
    if r < 0:
        return -1
    if r == 0:
        b.n = 0
        if st_legal(<State*>st, g, b) < 0 or b.n == 0:
            return -1
        i = policy_choose(code, st, b, prng)
        if i < 0 or i >= b.n:
            return -1
        lo = b.data[2 * i]
        hi = b.data[2 * i + 1]
    return (lo & FACE_MASK) == e.one and (hi & FACE_MASK) == e.two


cdef inline int ask_at(const Info* IS, const Trail* T, const Tricks* R, const Model* M, int k,
                       int* n, State* st) noexcept nogil:
    """Whether the policy likelihood asks a model at action ``k`` (taken back
    from the latest; ``n``: the actions asked so far): an action of another
    seat, among the latest ``M.depth``, whose trick the trail rebuilds (into
    ``st``). 1: ask, 0: skip it, -1: ask nothing further."""
    if T.e[k].seat == IS.seat:
        return 0
    if n[0] >= M.depth:
        return -1
    if not trick_before(T, R, k, st):
        return 0
    n[0] += 1
    return 1


cdef int policy_misses(const Info* IS, const Trail* T, const Model* M, const State* w, int K,
                       Gen* g, MoveBuf* b, int* mis, int* nev) noexcept nogil:
    """For each of the K worlds ``w[0..K-1]``: how many of the other seats'
    last ``M.depth`` actions this round their models (``M.codes``) would
    not have played in it (``mis``). Each position before such an action is
    rebuilt backwards from the world (the seat's hand, the cards played,
    the trick) and the model asked there. The worlds are taken back
    together, latest action first; a world POLICY_SLACK misses behind the
    best is not asked further (its weight is peps**POLICY_SLACK of the
    best's at most). ``nev``: the actions asked. Returns 0, -1 on error."""
    cdef Tricks R
    cdef State st
    cdef uint64_t h1[PROPOSALS_MAX][4]
    cdef uint64_t h2[PROPOSALS_MAX][4]
    cdef int8_t alive[PROPOSALS_MAX]
    cdef uint64_t prng[4]
    cdef int k, s, p, r, best, n = 0, rc = 0, any_alive, a
    cdef const TrailEntry* e
    nev[0] = 0
    if K < 1 or K > PROPOSALS_MAX:
        return -1
    for p in range(K):
        mis[p] = 0
    st_seed(prng, <uint64_t>T.n)
    trail_tricks(T, &R)
    memcpy(&st, &w[0], sizeof(State))
    st.phase = PH_PLAY
    st.pby_known = 0
    for p in range(K):
        alive[p] = 1
        for s in range(4):
            h1[p][s] = w[p].one[s]
            h2[p][s] = w[p].two[s]
            if not hand_ok(h1[p][s], h2[p][s]):
                alive[p] = 0            # not a world (hands from outside): no evidence
    for k in range(T.n - 1, -1, -1):
        e = &T.e[k]
        s = e.seat
        if s < 0 or s > 3:
            break
        any_alive = 0
        for p in range(K):
            if alive[p] == 1:
                trail_unplay(&h1[p][s], &h2[p][s], e)
                if hand_ok(h1[p][s], h2[p][s]):
                    any_alive = 1
                else:
                    alive[p] = 0        # not a hand (a trail from outside): no more evidence
        if not any_alive:
            break
        a = ask_at(IS, T, &R, M, k, &n, &st)
        if a < 0:
            break
        if a == 0:
            continue
        best = 1 << 20
        for p in range(K):
            if alive[p] != 1:
                continue
            memcpy(st.one, h1[p], sizeof(st.one))
            memcpy(st.two, h2[p], sizeof(st.two))
            r = model_plays(&st, e, M.codes[s], g, b, prng)
            if r < 0:
                rc = -1
                break
            mis[p] += r == 0
            if mis[p] < best:
                best = mis[p]
        if rc < 0:
            break
        for p in range(K):
            if alive[p] == 1 and mis[p] >= best + POLICY_SLACK:
                alive[p] = 2            # left behind: at least POLICY_SLACK behind the best to the end
    # a world left behind counts at least POLICY_SLACK misses more than the
    # best one still asked at the end (the best only grows)
    best = 1 << 20
    for p in range(K):
        if alive[p] == 1 and mis[p] < best:
            best = mis[p]
    if best < (1 << 20):
        for p in range(K):
            if alive[p] == 2 and mis[p] < best + POLICY_SLACK:
                mis[p] = best + POLICY_SLACK
    nev[0] = n
    return rc


cdef double world_loglik(const Info* IS, const Trail* T, const Model* M, const State* w,
                         int* nev) noexcept nogil:
    """log likelihood (up to a constant) of this round's plays of the other
    seats given world ``w``: each hand rebuilt backwards to each action; a
    pass on an opponent's single, pair or triple while holding a loose
    stronger one (exactly that many cards of a stronger rank) weighs
    P(pass), a follow from a bigger group while holding a loose one
    P(break); everything else weighs 1."""
    cdef uint64_t h1[4]
    cdef uint64_t h2[4]
    cdef int k, s, ev, n = 0
    cdef double lw = 0.0
    cdef const TrailEntry* e
    for s in range(4):
        h1[s] = w.one[s]
        h2[s] = w.two[s]
    for k in range(T.n - 1, -1, -1):
        e = &T.e[k]
        s = e.seat
        trail_unplay(&h1[s], &h2[s], e)
        if s == IS.seat:
            continue
        ev = trail_pass_break(T, e, h1[s], h2[s])
        if ev & EVB_PASSED:
            lw += M.lpass[s]
            n += 1
        elif ev & EVB_BROKE:
            lw += M.lbreak[s]
            n += 1
    nev[0] = n
    return lw


cdef int policy_evidence(const Info* IS, const Trail* T, const Model* M) noexcept nogil:
    """The actions of the other seats the policy likelihood asks their
    models about (at most ``M.depth``, the latest)."""
    cdef int k, n = 0
    for k in range(T.n - 1, -1, -1):
        if T.e[k].seat != IS.seat and 0 <= T.e[k].seat <= 3:
            if n >= M.depth:
                break
            n += 1
    return n


cdef void draw_world(const Info* IS, const Trail* T, const Model* M, int K, uint64_t* rng,
                     State* out, double* ess, Gen* g=NULL, MoveBuf* b=NULL) noexcept nogil:
    """One world: with a trail, the pick of K sampled worlds drawn in
    proportion to their likelihood (importance resampling); else a uniform
    sample. ``ess``: the effective share of the K (1 when all weigh alike).
    With ``M.policy`` (and a generator ``g``) the likelihood is the policy
    term (draw_world_policy)."""
    cdef State cand
    cdef double wsum = 0.0, w2 = 0.0, wt, lw
    cdef int j, nev
    if T == NULL or K <= 1:
        world_sample(IS, M, rng, out)
        ess[0] = 1.0
        return
    if M.policy and g != NULL:
        draw_world_policy(IS, T, M, K, rng, out, ess, g, b)
        return
    for j in range(K):
        world_sample(IS, M, rng, &cand)
        lw = world_loglik(IS, T, M, &cand, &nev)
        wt = exp(lw if lw > -600.0 else -600.0)
        wsum += wt
        w2 += wt * wt
        if j == 0 or unif(rng) * wsum < wt:
            memcpy(out, &cand, sizeof(State))
    ess[0] = wsum * wsum / (w2 * K) if w2 > 0 else 1.0


cdef int seat_misses(const Info* IS, const Trail* T, const Model* M, const State* w, int mask,
                     int cap, Gen* g, MoveBuf* b, int* ms) noexcept nogil:
    """policy_misses() of one world for the seats in ``mask`` (bits): each
    seat's misses in ``ms`` (only those seats written); returns their sum,
    ``cap + 1`` as soon as the sum is over ``cap``, -1 on error. The
    actions asked are the same as policy_misses asks (the latest
    ``M.depth`` of the other seats)."""
    cdef Tricks R
    cdef State st
    cdef uint64_t h1[4]
    cdef uint64_t h2[4]
    cdef uint64_t prng[4]
    cdef int k, s, r, a, n = 0, tot = 0
    cdef const TrailEntry* e
    for s in range(4):
        if (mask >> s) & 1:
            ms[s] = 0
    st_seed(prng, <uint64_t>T.n)
    trail_tricks(T, &R)
    memcpy(&st, w, sizeof(State))
    st.phase = PH_PLAY
    st.pby_known = 0
    for s in range(4):
        h1[s] = w.one[s]
        h2[s] = w.two[s]
        if not hand_ok(h1[s], h2[s]):
            return 0
    for k in range(T.n - 1, -1, -1):
        e = &T.e[k]
        s = e.seat
        if s < 0 or s > 3:
            break
        trail_unplay(&h1[s], &h2[s], e)
        if not hand_ok(h1[s], h2[s]):
            break
        a = ask_at(IS, T, &R, M, k, &n, &st)
        if a < 0:
            break
        if a == 0 or not ((mask >> s) & 1):
            continue
        memcpy(st.one, h1, sizeof(st.one))
        memcpy(st.two, h2, sizeof(st.two))
        r = model_plays(&st, e, M.codes[s], g, b, prng)
        if r < 0:
            return -1
        if r == 0:
            ms[s] += 1
            tot += 1
            if tot > cap:
                return cap + 1
    return tot


cdef enum:
    STYLE_WORLDS = 8                    # model=2: worlds the styles are read in


cdef int style_misses(const Info* IS, const Trail* T, Model* Mm, const State* w, int s, int code,
                      int cap, Gen* g, MoveBuf* b) noexcept nogil:
    """Seat ``s``'s misses under policy ``code`` summed over the STYLE_WORLDS
    worlds ``w``; ``cap + 1`` once over ``cap``; -1 on error."""
    cdef int j, r, tot = 0
    cdef int ms[4]
    Mm.codes[s] = code
    for j in range(STYLE_WORLDS):
        r = seat_misses(IS, T, Mm, &w[j], 1 << s, cap - tot, g, b, ms)
        if r < 0:
            return -1
        tot += r
        if tot > cap:
            return cap + 1
    return tot


cdef int styles_by_plays(const Info* IS, const Trail* T, Model* M, int proposals,
                         uint64_t seed) noexcept nogil:
    """model=2: each other seat's rollout style read from its plays this
    round. In STYLE_WORLDS worlds drawn by the pass model, every member of
    the rollout family is asked at each of the seat's actions (as the policy
    likelihood asks, the positions rebuilt backwards); a seat is rolled out
    in the member that would have played the fewest of its actions
    differently, when that is at least one action a world fewer than the
    style its habits gave (``M.codes``). 0, or -1 on error (out of memory:
    the seats not yet read keep their styles)."""
    cdef State* w = <State*>malloc(STYLE_WORLDS * sizeof(State))
    cdef Gen* g = gen_new()
    cdef MoveBuf b
    cdef Model Mm
    cdef uint64_t rng[4]
    cdef int mis[NFAMILY]
    cdef int f, j, s, cur, best, lim, rc = 0, mask = 15 & ~(1 << IS.seat)
    cdef double ess
    b.data = NULL
    b.n = 0
    b.cap = 0
    if w == NULL or g == NULL:
        free(w)
        gen_free(g)
        return -1
    memcpy(&Mm, M, sizeof(Model))
    Mm.policy = 0
    st_seed(rng, mix_seed(seed, <uint64_t>0x5717E5))
    for j in range(STYLE_WORLDS):
        draw_world(IS, T, &Mm, proposals, rng, &w[j], &ess)
    for s in range(4):
        if not ((mask >> s) & 1):
            continue
        cur = -1
        for f in range(NFAMILY):
            if family_code(f) == M.codes[s]:
                cur = f
        if cur < 0:
            continue                    # not a family member (another rollout policy)
        # the style's own misses, then each other member's while it can
        # still be STYLE_WORLDS fewer (a member over that is never chosen)
        mis[cur] = style_misses(IS, T, &Mm, w, s, family_code(cur), 1 << 20, g, &b)
        if mis[cur] < 0:
            rc = -1
            break
        lim = mis[cur] - STYLE_WORLDS
        best = cur
        for f in range(NFAMILY):
            if f == cur or lim < 0:
                continue
            mis[f] = style_misses(IS, T, &Mm, w, s, family_code(f), lim, g, &b)
            if mis[f] < 0:
                rc = -1
                break
            if mis[f] <= lim and (best == cur or mis[f] < mis[best]):
                best = f
        if rc < 0:
            break
        M.codes[s] = family_code(best)
    buf_free(&b)
    gen_free(g)
    free(w)
    return rc


cdef void draw_world_policy(const Info* IS, const Trail* T, const Model* M, int K, uint64_t* rng,
                            State* out, double* ess, Gen* g, MoveBuf* b) noexcept nogil:
    """draw_world() by the policy likelihood: K worlds sampled, weighed
    together (policy_misses), one drawn in proportion to peps**misses."""
    cdef State* w = <State*>malloc(K * sizeof(State)) if K <= PROPOSALS_MAX else NULL
    cdef int mis[PROPOSALS_MAX]
    cdef double wsum = 0.0, w2 = 0.0, wt, lw
    cdef int j, nev, lo = 1 << 20
    if w == NULL:
        world_sample(IS, M, rng, out)
        ess[0] = 1.0
        return
    for j in range(K):
        world_sample(IS, M, rng, &w[j])
    if policy_misses(IS, T, M, w, K, g, b, mis, &nev) < 0:
        for j in range(K):
            mis[j] = 0
    for j in range(K):
        if mis[j] < lo:
            lo = mis[j]
    for j in range(K):
        lw = (mis[j] - lo) * M.leps         # relative to the best: no underflow
        wt = exp(lw if lw > -600.0 else -600.0)
        wsum += wt
        w2 += wt * wt
        if j == 0 or unif(rng) * wsum < wt:
            memcpy(out, &w[j], sizeof(State))
    ess[0] = wsum * wsum / (w2 * K) if w2 > 0 else 1.0
    free(w)


cdef int rollout_seats(State* st, Gen* g, MoveBuf* b, const int* codes, uint64_t* rng,
                       int8_t* order) noexcept nogil:
    """rollout() with a policy per seat. A policy with a play function (the
    expert's and its styles') decides its plays without the whole legal
    list where it can: the same move, most of the move generation spared."""
    cdef Py_ssize_t i
    cdef int steps = 0, k
    cdef uint64_t lo, hi
    while st.phase == PH_PLAY:
        k = policy_play(codes[st.to_act], st, g, b, &lo, &hi)
        if k < 0:
            return -100
        if k == 0:
            b.n = 0
            if st_legal(st, g, b) < 0 or b.n == 0:
                return -100
            i = policy_choose(codes[st.to_act], st, b, rng)
            if i < 0 or i >= b.n:
                return -100
            lo = b.data[2 * i]
            hi = b.data[2 * i + 1]
        if ends_round(st, lo, hi):
            terminal_order(st, st.to_act, order)
            return order_value(order)
        st_apply(st, lo, hi)
        steps += 1
        if steps > 100000:
            return -100
    return -100

# ---------------------------------------------------------------------------
# Determinized Monte-Carlo search (threads share the worlds by index)
# ---------------------------------------------------------------------------

cdef extern from "gdthread.h":
    ctypedef struct gd_thread:
        pass
    int gd_thread_start(gd_thread* t, void* (*fn)(void*) noexcept nogil, void* arg) noexcept nogil
    void gd_thread_join(gd_thread* t) noexcept nogil
    int64_t gd_atomic_add64(int64_t* p, int64_t v) noexcept nogil
    int gd_atomic_get(long* p) noexcept nogil
    void gd_atomic_set(long* p, long v) noexcept nogil

cdef enum:
    MAXTHREADS = 64


ctypedef struct Job:
    const Info* IS
    const Trail* T
    const Model* M
    const MoveBuf* legal
    const SearchCfg* cfg
    const SearchOut* shared             # ncand, cand
    uint64_t seed
    int64_t next_world                  # the next world index to take (atomic)
    int64_t max_worlds                  # with a rollout budget: the worlds to evaluate (else 0)
    double t0
    int use_solve
    long failed


ctypedef struct Part:                   # one thread's sums
    Job* job
    SearchOut out
    double ess_sum


cdef void* search_worker(void* arg) noexcept nogil:
    cdef Part* P = <Part*>arg
    cdef Job* J = P.job
    cdef const SearchCfg* cfg = J.cfg
    cdef const Info* IS = J.IS
    cdef const MoveBuf* legal = J.legal
    cdef SearchOut* out = &P.out
    cdef State world, child
    cdef Gen* g = gen_new()
    cdef MoveBuf b
    cdef Solver* S = NULL
    cdef SolveOut so
    cdef int8_t order[4]
    cdef uint64_t rng[4]
    cdef int64_t j
    cdef int c, v, v0 = 0, sign = 1 if (IS.seat & 1) == 0 else -1, seat = IS.seat
    cdef Py_ssize_t i
    cdef uint64_t lo, hi
    cdef double ess, c0 = gd_thread_cpu() if cfg.cpu_clock else 0.0, limit = cfg.ms / 1000.0
    cdef int K = cfg.proposals if (cfg.infer and J.T != NULL) else 1
    b.data = NULL
    b.n = 0
    b.cap = 0
    if g == NULL:
        gd_atomic_set(&J.failed, 1)
        return NULL
    if J.use_solve:
        S = solver_new(cfg.tt_bits)
    while not gd_atomic_get(&J.failed):
        j = gd_atomic_add64(&J.next_world, 1) - 1
        if J.max_worlds > 0:
            if j >= J.max_worlds:
                break
        elif j > 0 and (gd_thread_cpu() - c0 if cfg.cpu_clock else gd_now() - J.t0) >= limit:
            break
        if j >= 10000000:
            break
        st_seed(rng, mix_seed(J.seed, <uint64_t>j + 1))
        draw_world(IS, J.T, J.M, K, rng, &world, &ess, g, &b)
        if K > 1:
            out.weighed += 1
            P.ess_sum += ess
        for c in range(J.shared.ncand):
            i = J.shared.cand[c]
            lo = legal.data[2 * i]
            hi = legal.data[2 * i + 1]
            if ends_round(&world, lo, hi):
                v = terminal_value(&world, seat)
            else:
                memcpy(&child, &world, sizeof(State))
                st_apply(&child, lo, hi)
                v = -100
                if S != NULL:
                    if solve_state(S, &child, cfg.solve_nodes, 0.0, &so) == 0 and so.lo == so.hi:
                        v = so.lo
                        out.solved += 1
                    else:
                        out.solve_fail += 1
                if v == -100:
                    v = rollout_seats(&child, g, &b, J.M.codes, rng, order)
                    out.rollouts += 1
                    if v == -100:
                        gd_atomic_set(&J.failed, 1)
                        break
            v = sign * v
            out.sum[c] += v
            out.sumsq[c] += v * v
            out.cnt[c] += 1
            if c == 0:
                v0 = v
            else:
                out.sumd2[c] += (v - v0) * (v - v0)
        out.worlds += 1
    buf_free(&b)
    gen_free(g)
    solver_free(S)
    return NULL


cdef int search_decide(const Info* IS, const Trail* T, const MoveBuf* legal, const SearchCfg* cfg,
                       uint64_t seed, SearchOut* out) noexcept nogil:
    """Choose among ``legal`` (the seat to act's moves) for ``IS.seat``: draw
    worlds (by the likelihood of this round's plays when ``T`` is given and
    ``cfg.infer``), evaluate every candidate in each (common worlds for all)
    by a rollout - each seat in its modelled style with ``cfg.model`` - or
    exactly by the solver when few cards are left, and pick the best mean of
    the seat's team level points. World ``j`` is drawn and played from its
    own seed (``seed``, ``j``), so with a rollout budget the decision is the
    same on any number of threads. Returns 0, or -1 on error."""
    cdef Model M
    cdef int rc
    model_build(IS, T, cfg, &M)
    rc = search_decide_model(IS, T, legal, cfg, seed, out, &M)
    model_free(&M)
    return rc


cdef int search_decide_model(const Info* IS, const Trail* T, const MoveBuf* legal, const SearchCfg* cfg,
                             uint64_t seed, SearchOut* out, Model* Mp) noexcept nogil:
    """search_decide() with the model built (``Mp``, styles read into it)."""
    cdef uint64_t rng[4]
    cdef State world
    cdef Job J
    cdef Part* parts = NULL
    cdef gd_thread th[MAXTHREADS]
    cdef bint started[MAXTHREADS]
    cdef double t0 = gd_now(), best, m, ess, d, var
    cdef int seat = IS.seat, total = 0, handn, c, s, k, nth, rc = 0
    cdef Py_ssize_t p0
    cdef float* feat
    cdef View vw
    memset(out, 0, sizeof(SearchOut))
    if legal.n <= 0:
        return -1
    if cfg.dice:                        # another stream of every random choice below
        seed = mix_seed(seed, <uint64_t>0xD1CE000000000000 + <uint64_t>cfg.dice)
    if cfg.model == 2 and T != NULL and cfg.rollout_code == POL_EXPERT and legal.n > 1:
        styles_by_plays(IS, T, Mp, cfg.proposals, seed)
    for s in range(4):
        out.codes[s] = Mp.codes[s]
    if legal.n == 1:
        out.ncand = 1
        out.cand[0] = 0
        out.choice = 0
        out.seconds = gd_now() - t0
        return 0
    st_seed(rng, seed)
    draw_world(IS, T if cfg.infer else NULL, Mp, cfg.proposals, rng, &world, &ess)
    if T != NULL:
        if Mp.policy:
            out.evidence = policy_evidence(IS, T, Mp)
        else:
            world_loglik(IS, T, Mp, &world, &out.evidence)
    p0 = policy_choose(cfg.rollout_code, &world, <MoveBuf*>legal, rng)
    if p0 < 0 or p0 >= legal.n:
        p0 = 0
    handn = card_count(world.one[seat], world.two[seat])
    feat = NULL
    if cfg.cands == 1 and legal.n > cfg.topk:
        # the expert's split of the seat's own hand (the same in every world)
        feat = <float*>calloc(legal.n * SPLIT_DIM, sizeof(float))
        if feat != NULL:
            view_of(&world, seat, &vw)
            split_fill(&vw, legal.data, legal.n, feat, SPLIT_DIM)
    out.ncand = select_candidates(legal, p0, cfg.topk, world.rlevel, handn, out.cand, feat)
    free(feat)
    out.choice = out.cand[0] if out.ncand > 0 else p0
    if out.ncand <= 1:
        out.seconds = gd_now() - t0
        return 0
    for s in range(4):
        total += card_count(world.one[s], world.two[s])
    J.IS = IS
    J.T = T if cfg.infer else NULL
    J.M = Mp
    J.legal = legal
    J.cfg = cfg
    J.shared = out
    J.seed = seed
    J.next_world = 0
    J.max_worlds = (cfg.rollouts + out.ncand - 1) // out.ncand if cfg.rollouts > 0 else 0
    J.t0 = t0
    J.use_solve = cfg.solve_cards > 0 and total <= cfg.solve_cards
    J.failed = 0
    nth = cfg.threads if 1 <= cfg.threads <= MAXTHREADS else 1
    parts = <Part*>calloc(nth, sizeof(Part))
    if parts == NULL:
        return -1
    for k in range(nth):
        parts[k].job = &J
        started[k] = False
    for k in range(1, nth):
        started[k] = gd_thread_start(&th[k], search_worker, &parts[k]) == 0
    search_worker(&parts[0])
    for k in range(1, nth):
        if started[k]:
            gd_thread_join(&th[k])
    ess = 0.0
    for k in range(nth):
        for c in range(out.ncand):
            out.sum[c] += parts[k].out.sum[c]
            out.sumsq[c] += parts[k].out.sumsq[c]
            out.sumd2[c] += parts[k].out.sumd2[c]
            out.cnt[c] += parts[k].out.cnt[c]
        out.worlds += parts[k].out.worlds
        out.rollouts += parts[k].out.rollouts
        out.solved += parts[k].out.solved
        out.solve_fail += parts[k].out.solve_fail
        out.weighed += parts[k].out.weighed
        ess += parts[k].ess_sum
    free(parts)
    out.ess = ess / out.weighed if out.weighed > 0 else 1.0
    if J.failed:
        rc = -1
    # the best mean, unless it beats the rollout policy's own choice (candidate
    # 0, evaluated in the same worlds) by less than cfg.margin paired standard
    # errors: with many candidates and few worlds the best mean is mostly luck
    best = -1e300
    s = 0
    for c in range(out.ncand):
        if out.cnt[c] > 0:
            m = out.sum[c] / out.cnt[c]
            if m > best:
                best = m
                s = c
    if s != 0 and out.cnt[s] == out.cnt[0] and out.cnt[s] > 1 and cfg.margin > 0:
        d = (out.sum[s] - out.sum[0]) / out.cnt[s]
        var = (out.sumd2[s] / out.cnt[s] - d * d) / (out.cnt[s] - 1)
        if var < 0:
            var = 0
        if d * d <= cfg.margin * cfg.margin * var:
            s = 0
    out.choice = out.cand[s]
    out.seconds = gd_now() - t0
    return rc

# ---------------------------------------------------------------------------
# The search as native policies: one entry per configuration, its context
# the configuration (NativeSearchConfig)
# ---------------------------------------------------------------------------

cdef Py_ssize_t _search_policy(const void* ctx, const View* v, MoveBuf* moves,
                               uint64_t* rng) noexcept nogil:
    cdef Info IS
    cdef SearchOut o
    cdef int rc
    cdef const SearchCfg* cfg = <const SearchCfg*>ctx
    if moves.n == 0:
        return -1
    if moves.n == 1:
        return 0
    if v.phase != PH_PLAY:               # tribute / return: the rollout policy's choice
        rc = <int>policy_choose_view(cfg.rollout_code, v, moves, rng)
        return rc if 0 <= rc < moves.n else 0
    IS.G = NULL
    rc = info_from_view(&IS, v)
    if rc != 0:
        info_free(&IS)
        return 0
    rc = search_decide(&IS, v.trail, moves, cfg, rng_next(rng), &o)
    info_free(&IS)
    if rc != 0:
        return 0
    return o.choice


# every registered configuration, alive as long as the process (a native
# policy entry points at its SearchCfg)
_REGISTERED = []


cdef class NativeSearchConfig:
    """A search configuration as the native ``SearchCfg``, range-checked
    once (``guandan.search.SearchConfig.native``): the rollout policy's
    code, the budget (``rollouts`` evaluations, else ``ms`` per decision,
    thread CPU time with ``cpu_clock``), ``topk`` candidates, the exact
    solve threshold (``solve_cards``, ``solve_nodes``, ``tt_bits``) and the
    ``margin`` in paired standard errors."""

    cdef SearchCfg cfg
    cdef int _code

    def __init__(self, *, int rollout_code, int64_t rollouts, double ms, int topk, int solve_cards,
                 int64_t solve_nodes, int tt_bits, double margin, bint cpu_clock, int threads=1,
                 int infer=0, int proposals=8, int model=0, double peps=0.2, int pdepth=0, int dice=0, double keep=0.0,
                 int cands=0):
        if not 0 <= model <= 2:
            raise GuandanError(f"model must be 0, 1 or 2, got {model}")
        if not 0 <= infer <= 2:
            raise GuandanError(f"infer must be 0, 1 or 2, got {infer}")
        if not 0 < peps <= 1 or not 0 <= pdepth <= 480:
            raise GuandanError("peps must be in (0, 1], pdepth 0..480")
        if not policy_rollout_ok(rollout_code):
            raise GuandanError(f"the rollout policy must be a registered native policy that is not a "
                               f"search (code {rollout_code})")
        if rollouts < 0 or ms < 0 or (rollouts == 0 and ms <= 0):
            raise GuandanError("give a budget: rollouts > 0 or ms > 0")
        if not 1 <= topk <= MAXCAND:
            raise GuandanError(f"k (candidate moves) must be 1..{MAXCAND}, got {topk}")
        if not 0 <= solve_cards <= 108 or solve_nodes < 0 or not 4 <= tt_bits <= 30:
            raise GuandanError("solve threshold 0..108 cards, nodes >= 0, tt_bits 4..30")
        if not 0 <= margin <= 100:
            raise GuandanError(f"margin must be 0..100 standard errors, got {margin}")
        if not 1 <= threads <= MAXTHREADS:
            raise GuandanError(f"threads must be 1..{MAXTHREADS}, got {threads}")
        if not 0 <= dice <= 1000000:
            raise GuandanError(f"dice must be 0..1000000, got {dice}")
        check_keep(keep)
        if not 1 <= proposals <= PROPOSALS_MAX:
            raise GuandanError(f"proposals must be 1..{PROPOSALS_MAX}, got {proposals}")
        if cands not in (0, 1):
            raise GuandanError(f"cands must be 0 or 1, got {cands}")
        self.cfg.rollout_code = rollout_code
        self.cfg.rollouts = rollouts
        self.cfg.ms = ms
        self.cfg.topk = topk
        self.cfg.solve_cards = solve_cards
        self.cfg.solve_nodes = solve_nodes
        self.cfg.tt_bits = tt_bits
        self.cfg.margin = margin
        self.cfg.cpu_clock = cpu_clock
        self.cfg.threads = threads
        self.cfg.infer = infer
        self.cfg.proposals = proposals
        self.cfg.model = model
        self.cfg.peps = peps
        self.cfg.pdepth = pdepth
        self.cfg.dice = dice
        self.cfg.keep = keep
        self.cfg.cands = cands
        self._code = 0

    def register(self):
        """This configuration as a native policy: its code (the same code on
        every call; a new code the first time, while the table has room)."""
        cdef int code
        if self._code == 0:
            code = policy_add(_search_policy, &self.cfg, POLF_SEARCH)
            if code < 0:
                raise GuandanError(f"the native policy table is full ({POL_SLOTS - 1} codes); use "
                                   "fewer distinct search configurations in one process")
            _REGISTERED.append(self)
            self._code = code
        return self._code

    @property
    def code(self):
        """The native policy code (0 until :meth:`register`)."""
        return self._code

    def __reduce__(self):
        c = self.cfg
        return (_rebuild_config, (c.rollout_code, c.rollouts, c.ms, c.topk, c.solve_cards,
                                  c.solve_nodes, c.tt_bits, c.margin, bool(c.cpu_clock), c.threads,
                                  c.infer, c.proposals, c.model, c.peps, c.pdepth, c.dice, c.keep,
                                  c.cands))


def _rebuild_config(rollout_code, rollouts, ms, topk, solve_cards, solve_nodes, tt_bits, margin,
                    cpu_clock, threads=1, infer=0, proposals=8, model=0, peps=0.2, pdepth=0, dice=0, keep=0.0,
                    cands=0):
    return NativeSearchConfig(rollout_code=rollout_code, rollouts=rollouts, ms=ms, topk=topk,
                              solve_cards=solve_cards, solve_nodes=solve_nodes, tt_bits=tt_bits,
                              margin=margin, cpu_clock=cpu_clock, threads=threads, infer=infer,
                              proposals=proposals, model=model, peps=peps, pdepth=pdepth, dice=dice, keep=keep,
                              cands=cands)

# ---------------------------------------------------------------------------
# Python-facing
# ---------------------------------------------------------------------------


_INFO_ERRORS = {
    -1: "the card counts do not match the unseen cards, or the tribute of this round is "
        "incomplete (worlds are sampled in the play phase)",
    -2: "no deal is consistent with what the seat knows",
    -3: "out of memory",
}


cdef int check_keep(double keep) except -1:
    """The tilt strength ``keep`` of the kept-groups sampler: 0..KEEP_MAX (NaN refused)."""
    if not 0.0 <= keep <= KEEP_MAX:
        raise GuandanError(f"keep must be 0..{KEEP_MAX:g}, got {keep}")
    return 0


cdef int tools_model(const Info* IS, const Trail* T, int infer, double peps, int pdepth, Model* M,
                     MoveBuf* b, Gen** g, double keep=0.0) except -1:
    """The models of the inference tools (``InfoSet.draw_hands``,
    ``log_likelihoods``): the expert's, ``infer`` 1 or 2; with the policy
    likelihood a generator in ``g`` (the caller frees it and ``b``)."""
    cdef SearchCfg cfg
    memset(&cfg, 0, sizeof(SearchCfg))
    cfg.rollout_code = POL_EXPERT
    cfg.infer = infer
    cfg.peps = peps
    cfg.pdepth = pdepth
    cfg.keep = keep
    model_build(IS, T, &cfg, M)
    b.data = NULL
    b.n = 0
    b.cap = 0
    g[0] = NULL
    if M.policy:
        g[0] = gen_new()
        if g[0] == NULL:
            model_free(M)
            raise MemoryError()
    return 0


cdef class InfoSet:
    """What one seat knows in the play phase, ready to sample worlds from
    (built by :func:`guandan.search.sample_worlds` and the search player)."""

    cdef Info info
    cdef int8_t counts[4]

    def __cinit__(self):
        self.info.G = NULL

    def __dealloc__(self):
        info_free(&self.info)

    cdef _init(self, State* base, int seat, const int8_t* counts, uint64_t pone, uint64_t ptwo,
               plays, bint use_tribute):
        cdef uint64_t pb1[4]
        cdef uint64_t pb2[4]
        cdef int rc, s
        if base.phase != PH_PLAY:
            raise GuandanError("worlds are sampled in the play phase")
        if not 0 <= seat <= 3:
            raise GuandanError(f"seat must be 0..3, got {seat}")
        plays_by_seat(plays, pb1, pb2)
        for s in range(4):
            self.counts[s] = counts[s]
        info_free(&self.info)
        rc = info_init(&self.info, base, seat, counts, pone, ptwo, pb1, pb2, use_tribute)
        if rc != 0:
            info_free(&self.info)
            raise GuandanError(f"cannot sample worlds for seat {seat}: {_INFO_ERRORS.get(rc, rc)}")

    @staticmethod
    def from_view(NativeView view not None):
        """What a native policy deciding from ``view`` knows: the information
        set the search player builds inside ``simulate`` and ``VecGame``
        (``NativeView.of(core, seat)``) or from an observation
        (``guandan.search.info_from_observation``), with this round's tribute
        and return constraints when the view carries them."""
        cdef const View* v = &view.v
        cdef InfoSet s = InfoSet.__new__(InfoSet)
        cdef int k, rc
        if v.phase != PH_PLAY or v.nfin > 3:
            raise GuandanError("worlds are sampled in the play phase")
        for k in range(4):
            s.counts[k] = v.counts[k]
        rc = info_from_view(&s.info, v)
        if rc != 0:
            info_free(&s.info)
            raise GuandanError(f"cannot sample worlds for seat {v.seat}: {_INFO_ERRORS.get(rc, rc)}")
        return s

    @staticmethod
    def from_state(GameCore core not None, int seat, plays=(), bint use_tribute=True):
        """From a native state (a ``GameCore``): only the public
        parts and ``seat``'s hand are read (the counts, and the cards played
        as the complement of all hands). ``plays``: this round's plays as
        ``(seat, lo, hi)`` words (for the tribute constraints)."""
        cdef State st
        cdef InfoSet s = InfoSet.__new__(InfoSet)
        cdef int8_t counts[4]
        cdef uint64_t pone = 0, ptwo = 0, bit
        cdef int k, f, c
        memcpy(&st, &core.st, sizeof(State))
        for k in range(4):
            counts[k] = <int8_t>card_count(st.one[k], st.two[k])
        for f in range(54):
            bit = (<uint64_t>1) << f
            c = 2
            for k in range(4):
                c -= nbits(st.one[k], st.two[k], f)
            if c >= 1:
                pone |= bit
            if c >= 2:
                ptwo |= bit
        s._init(&st, seat, counts, pone, ptwo, plays, use_tribute)
        return s

    @property
    def seat(self):
        return self.info.seat

    @property
    def unseen(self):
        """The unseen cards (held by the other seats) as a Hand."""
        cdef uint64_t one = 0, two = 0
        cdef int f
        for f in range(54):
            if self.info.u[f] >= 1:
                one |= (<uint64_t>1) << f
            if self.info.u[f] >= 2:
                two |= (<uint64_t>1) << f
        return Hand.from_masks(one, two)

    @property
    def total_weight(self):
        """The total weight of the consistent deals: the number of physical
        deals of the unseen cards (copies told apart) meeting every constraint."""
        return self.info.G[self.info.need[0] * self.info.d1 + self.info.need[1]]

    def split_weights(self):
        """Per face, the weight of each split of its unseen copies over the
        other seats (``[(x_a, x_b, x_c, weight), ...]`` per face, seats as in
        ``others``); zero weight marks a split the constraints rule out."""
        cdef int f, o, nu
        out = []
        for f in range(54):
            nu = self.info.u[f]
            out.append([(OPTX[nu][o][0], OPTX[nu][o][1], OPTX[nu][o][2], self.info.w[f][o])
                        for o in range(NOPT[nu])])
        return out

    @property
    def others(self):
        return tuple(self.info.others[k] for k in range(3))

    def sample_hands(self, Py_ssize_t n, uint64_t seed, double keep=0.0):
        """``n`` worlds as hand masks: an array ``(n, 4, 2)`` of ``uint64``
        (one, two) per seat; the seat's own hand in every world. ``keep``
        (0..4) tilts the worlds toward the groups players keep, as the
        search's ``keep`` option does (0: every physical deal alike)."""
        cdef uint64_t rng[4]
        cdef State w
        cdef Py_ssize_t i
        cdef int s
        cdef Kept* K = NULL
        if n < 0 or n > 10_000_000:
            raise GuandanError("n must be 0..10,000,000")
        check_keep(keep)
        if keep > 0.0:
            K = kept_new(&self.info, keep)
            if K == NULL:
                raise MemoryError()
        out = np.zeros((n, 4, 2), dtype=np.uint64)
        cdef uint64_t[:, :, ::1] v = out
        st_seed(rng, seed)
        with nogil:
            for i in range(n):
                if K != NULL:
                    kept_world(&self.info, K, rng, &w)
                else:
                    info_world(&self.info, rng, &w)
                for s in range(4):
                    v[i, s, 0] = w.one[s]
                    v[i, s, 1] = w.two[s]
        kept_free(K)
        return out

    cdef const Trail* _game_trail(self, GameCore game) except? NULL:
        cdef const Trail* T = game._trail()
        if T == NULL:
            raise MemoryError()
        if not (T.valid and T.round_index == game.st.round_index):
            raise GuandanError("the game's trail does not cover this round (a game started from a position)")
        return T

    def draw_hands(self, Py_ssize_t n, uint64_t seed, GameCore game not None, int proposals=8,
                   int infer=1, double peps=0.2, int pdepth=0, double keep=0.0):
        """``n`` worlds as :meth:`sample_hands` gives them, each drawn as the
        search draws it with inference: the pick of ``proposals`` uniform
        samples in proportion to the likelihood of this round's plays of
        ``game`` (the game this information set was read from, with its
        history: ``Game.native_state(history=True)``) under the seats'
        models (``infer=2``: the policy likelihood, ``peps`` per action a
        seat's model would not have played, over the last ``pdepth``)."""
        cdef uint64_t rng[4]
        cdef State w
        cdef Model M
        cdef double ess
        cdef Py_ssize_t i
        cdef int s
        cdef Gen* g = NULL
        cdef MoveBuf b
        cdef uint64_t[:, :, ::1] v
        cdef const Trail* T = self._game_trail(game)
        if n < 0 or n > 10_000_000:
            raise GuandanError("n must be 0..10,000,000")
        if not 1 <= proposals <= PROPOSALS_MAX:
            raise GuandanError(f"proposals must be 1..{PROPOSALS_MAX}, got {proposals}")
        if infer not in (1, 2) or not 0 < peps <= 1 or not 0 <= pdepth <= 480:
            raise GuandanError("infer must be 1 or 2, peps in (0, 1], pdepth 0..480")
        check_keep(keep)
        tools_model(&self.info, T, infer, peps, pdepth, &M, &b, &g, keep)
        try:
            out = np.zeros((n, 4, 2), dtype=np.uint64)
            v = out
            st_seed(rng, seed)
            with nogil:
                for i in range(n):
                    draw_world(&self.info, T, &M, proposals, rng, &w, &ess, g, &b)
                    for s in range(4):
                        v[i, s, 0] = w.one[s]
                        v[i, s, 1] = w.two[s]
        finally:
            model_free(&M)
            buf_free(&b)
            gen_free(g)
        return out

    def log_likelihoods(self, hands, GameCore game not None, int infer=1, double peps=0.2,
                        int pdepth=0):
        """Per world of ``hands`` (an array ``(n, 4, 2)`` as :meth:`sample_hands`
        gives), the log likelihood (up to a constant) of this round's plays
        of the other seats of ``game`` under their models, and how many of
        them bore on it: ``(loglik, evidence)`` arrays. ``infer=2``: the
        policy term (``log(peps)`` per action the seat's model would not have
        played, of the latest ``pdepth``; evidence: the actions asked)."""
        cdef Model M
        cdef State w
        cdef Py_ssize_t i, n
        cdef int s, nev, mis
        cdef Gen* g = NULL
        cdef MoveBuf b
        cdef uint64_t[:, :, ::1] h
        cdef const Trail* T = self._game_trail(game)
        if infer not in (1, 2) or not 0 < peps <= 1 or not 0 <= pdepth <= 480:
            raise GuandanError("infer must be 1 or 2, peps in (0, 1], pdepth 0..480")
        arr = np.ascontiguousarray(hands, dtype=np.uint64)
        if arr.ndim != 3 or arr.shape[1] != 4 or arr.shape[2] != 2:
            raise GuandanError("hands must be an array (n, 4, 2) of uint64")
        n = arr.shape[0]
        tools_model(&self.info, T, infer, peps, pdepth, &M, &b, &g)
        try:
            ll = np.zeros(n, dtype=np.float64)
            ev = np.zeros(n, dtype=np.int32)
            h = arr
            memcpy(&w, &self.info.base, sizeof(State))
            for i in range(n):
                for s in range(4):
                    w.one[s] = h[i, s, 0]
                    w.two[s] = h[i, s, 1]
                if M.policy:
                    if policy_misses(&self.info, T, &M, &w, 1, g, &b, &mis, &nev) < 0:
                        raise MemoryError()
                    ll[i] = mis * M.leps
                else:
                    ll[i] = world_loglik(&self.info, T, &M, &w, &nev)
                ev[i] = nev
        finally:
            model_free(&M)
            buf_free(&b)
            gen_free(g)
        return ll, ev

    def expected_counts(self):
        """Exact expected copies of each face per seat, an array ``(4, 54)``
        (the seat's own row is its hand): the marginals of the sampler."""
        out = np.zeros((4, 54), dtype=np.float64)
        cdef double[:, ::1] v = out
        info_marginals(&self.info, &v[0, 0])
        return out

    def rollouts(self, int code, Py_ssize_t n, uint64_t seed):
        """``n`` rounds played to the end from fresh worlds with native policy
        ``code``: ``(orders (n, 4) int8, values (n,) int8)``."""
        return _rollouts(&self.info.base, &self.info, code, n, seed)

    def search(self, NativeSearchConfig config not None, uint64_t seed, GameCore game=None,
               NativeView view=None):
        """One search decision for the seat (which must be the seat to act).
        ``game``: the game this information set was read from, whose trail
        (this round's plays, the seats' habits) the opponent models read;
        or ``view``: the view this information set was built from, whose
        trail (this round's plays, from an observation) they read.
        Returns a dict: ``moves`` (the legal list as words), ``choice``
        (index), ``cand`` (candidate indices), ``sum``, ``sumsq``, ``cnt``
        (per candidate), ``worlds``, ``rollouts``, ``solved``, ``solve_fail``,
        ``seconds``, ``weighed`` (worlds drawn by likelihood), ``ess`` (their
        mean effective share of the proposals), ``evidence`` (this round's
        plays that bear on the hidden hands), ``codes`` (each seat's rollout
        policy)."""
        cdef SearchOut o
        cdef MoveBuf legal
        cdef Gen* g
        cdef int rc, c
        cdef Py_ssize_t i
        cdef const Trail* T = NULL
        if game is not None:
            T = game._trail()
            if T != NULL and not (T.valid and T.round_index == game.st.round_index):
                T = NULL
        elif view is not None:
            T = view.v.trail
        if self.info.base.to_act != self.info.seat:
            raise GuandanError(f"seat {self.info.seat} is not to act")
        g = gen_new()
        if g == NULL:
            raise MemoryError()
        legal.data = NULL
        legal.n = 0
        legal.cap = 0
        try:
            if st_legal(&self.info.base, g, &legal) < 0:
                raise MemoryError()
            if legal.n == 0:
                raise GuandanError("no legal move")
            with nogil:
                rc = search_decide(&self.info, T, &legal, &config.cfg, seed, &o)
            if rc != 0:
                raise GuandanError("the search failed (a rollout policy made no choice)")
            return {
                "moves": [(legal.data[2 * i], legal.data[2 * i + 1]) for i in range(legal.n)],
                "choice": o.choice,
                "cand": [o.cand[c] for c in range(o.ncand)],
                "sum": [o.sum[c] for c in range(o.ncand)],
                "sumsq": [o.sumsq[c] for c in range(o.ncand)],
                "cnt": [o.cnt[c] for c in range(o.ncand)],
                "worlds": o.worlds, "rollouts": o.rollouts, "solved": o.solved,
                "solve_fail": o.solve_fail, "seconds": o.seconds,
                "weighed": o.weighed, "ess": o.ess, "evidence": o.evidence,
                "codes": [o.codes[c] for c in range(4)],
            }
        finally:
            buf_free(&legal)
            gen_free(g)


cdef object _rollouts(const State* st, const Info* IS, int code, Py_ssize_t n, uint64_t seed):
    """The one rollout driver: ``n`` rounds to the end with native policy
    ``code`` at every seat, each from a new world of ``IS`` (or, when ``IS``
    is NULL, from ``st`` as it is)."""
    cdef State w
    cdef uint64_t rng[4]
    cdef Gen* g
    cdef MoveBuf b
    cdef Py_ssize_t i
    cdef int v, k, bad = 0
    cdef int8_t order[4]
    if not policy_rollout_ok(code):
        raise GuandanError(f"no native rollout policy with code {code}")
    if n < 0 or n > 100_000_000:
        raise GuandanError("n must be 0..100,000,000")
    orders = np.zeros((n, 4), dtype=np.int8)
    values = np.zeros(n, dtype=np.int8)
    cdef int8_t[:, ::1] vo = orders
    cdef int8_t[::1] vv = values
    g = gen_new()
    if g == NULL:
        raise MemoryError()
    b.data = NULL
    b.n = 0
    b.cap = 0
    st_seed(rng, seed)
    with nogil:
        for i in range(n):
            if IS != NULL:
                info_world(IS, rng, &w)
            else:
                memcpy(&w, st, sizeof(State))
            v = rollout(&w, g, &b, code, rng, order)
            if v == -100:
                bad = 1
                break
            vv[i] = v
            for k in range(4):
                vo[i, k] = order[k]
    buf_free(&b)
    gen_free(g)
    if bad:
        raise GuandanError("a rollout failed (policy made no choice)")
    return orders, values


def rollouts_from_state(GameCore core not None, int code, Py_ssize_t n, uint64_t seed):
    """``n`` rounds played to the end from a native state (all hands as they
    are) with native policy ``code`` at every seat; the policies' random
    stream is seeded with ``seed``. Returns ``(orders (n, 4) int8, values
    (n,) int8)`` (team-0 values)."""
    cdef State st
    memcpy(&st, &core.st, sizeof(State))
    if st.phase != PH_PLAY:
        raise GuandanError("rollouts start in the play phase")
    return _rollouts(&st, NULL, code, n, seed)


def position_state(GameCore base not None, hands, uint64_t seed):
    """The native state :meth:`guandan.Game.from_position` would build for
    ``base``'s public play-phase state with ``hands`` (four ``(one, two)``
    masks), as a new ``GameCore``: no tribute of this round, no previous
    round, no undo history, the RNGs seeded from ``seed``."""
    cdef const State* src = &base.st
    cdef GameCore out
    cdef State* st
    cdef int i
    if src.phase != PH_PLAY:
        raise GuandanError("positions are in the play phase")
    if len(hands) != 4:
        raise GuandanError("four hands")
    out = GameCore.__new__(GameCore)
    st_seed(out.prng, seed ^ policy_salt())
    st = &out.st
    st_init_play(st, &src.rules, src.rlevel, src.level[0], src.level[1], src.owner, src.to_act,
                 src.top_lo, src.top_hi, src.top_seat, src.passes, src.fin, src.nfin)
    st_seed(st.deal_rng, seed)
    for i in range(4):
        st.one[i] = hands[i][0]
        st.two[i] = hands[i][1]
        if st.two[i] & ~st.one[i] or st.one[i] & ~FACE_MASK:
            raise GuandanError("malformed hand masks")
    st.round_index = src.round_index
    st.afail[0] = src.afail[0]
    st.afail[1] = src.afail[1]
    return out
