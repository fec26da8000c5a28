# cython: language_level=3
"""Native game state machine: deal, trick play with pass and 接风, finishing
order, promotion and the A rule, tribute / return / anti-tribute, and the
built-in greedy policy. One implementation of the rules: the Python ``Game``
and the bulk simulator both drive these functions.

Seats 0..3 play in order s -> s+1; teams are seats 0 & 2 (team 0) and 1 & 3
(team 1). Levels are rank indices 0..12 (2..A).
"""

from libc.stdint cimport int8_t, int64_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset, memcpy

import numpy as np
from guandan._core cimport MoveList, Hand
from guandan._gen cimport (
    Gen, gen_new, gen_free, MoveBuf, buf_reserve, buf_free, generate_with, move_type, move_key, FACE_MASK,
    card_count, move_size, rank_strength, is_bomb_type, bomb_value, key_strength, gd_ctz64,
    words_shape_ok, hand_minus,
    T_PASS, T_SINGLE, T_TRIPS, T_TRIBUTE, T_BACK, TAG_SHIFT, F_NO_WILD_SF, gd_popcount64,
)

from .errors import GuandanError, LevelError

cdef int HR_FACE = 53

# ---------------------------------------------------------------------------
# Random numbers: splitmix64 seeding, xoshiro256**
# ---------------------------------------------------------------------------

cdef inline uint64_t _splitmix(uint64_t* x) noexcept nogil:
    cdef uint64_t z
    x[0] += <uint64_t>0x9E3779B97F4A7C15
    z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef void st_seed(uint64_t* rng, uint64_t seed) noexcept nogil:
    cdef uint64_t x = seed
    rng[0] = _splitmix(&x)
    rng[1] = _splitmix(&x)
    rng[2] = _splitmix(&x)
    rng[3] = _splitmix(&x)


cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef uint64_t rng_next(uint64_t* s) noexcept nogil:
    cdef uint64_t result = _rotl(s[1] * 5, 7) * 9
    cdef uint64_t t = s[1] << 17
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


cdef uint64_t rng_below(uint64_t* s, uint64_t n) noexcept nogil:
    """Uniform integer in [0, n) (multiply-shift on the top 32 bits; n < 2**32)."""
    return ((rng_next(s) >> 32) * n) >> 32

# ---------------------------------------------------------------------------
# Card helpers
# ---------------------------------------------------------------------------

cdef inline int face_count(uint64_t one, uint64_t two, int f) noexcept nogil:
    return <int>((one >> f) & 1) + <int>((two >> f) & 1)


cdef inline void add_face(State* st, int seat, int f) noexcept nogil:
    cdef uint64_t bit = (<uint64_t>1) << f
    if st.one[seat] & bit:
        st.two[seat] |= bit
    else:
        st.one[seat] |= bit


cdef inline void remove_face(State* st, int seat, int f) noexcept nogil:
    cdef uint64_t bit = (<uint64_t>1) << f
    if st.two[seat] & bit:
        st.two[seat] &= ~bit
    else:
        st.one[seat] &= ~bit


cdef inline void remove_cards(State* st, int seat, uint64_t mo, uint64_t mt) noexcept nogil:
    """Hand minus a move's cards (the move is known to be in the hand)."""
    hand_minus(&st.one[seat], &st.two[seat], mo, mt)


cdef inline int face_strength(int f, int level) noexcept nogil:
    """Level order of a single card: 2..A, level cards, SB, HR."""
    if f >= 52:
        return rank_strength(f - 39, level)
    return rank_strength(f >> 2, level)


cdef inline int hand_size(State* st, int seat) noexcept nogil:
    return card_count(st.one[seat], st.two[seat])


cdef inline bint is_out(State* st, int seat) noexcept nogil:
    return st.one[seat] == 0


cdef inline int next_active(State* st, int seat) noexcept nogil:
    cdef int i, s
    for i in range(1, 4):
        s = (seat + i) & 3
        if not is_out(st, s):
            return s
    return seat

# ---------------------------------------------------------------------------
# Rounds
# ---------------------------------------------------------------------------

cdef void st_deal(State* st) noexcept nogil:
    """Shuffle the 108 cards with the deal RNG and give 27 to each seat."""
    cdef int8_t deck[108]
    cdef int i, j, f, k = 0
    cdef int8_t tmp
    for f in range(54):
        deck[k] = f
        deck[k + 1] = f
        k += 2
    for i in range(107, 0, -1):
        j = <int>rng_below(st.deal_rng, i + 1)
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp
    for i in range(4):
        st.one[i] = 0
        st.two[i] = 0
    for i in range(108):
        add_face(st, i // 27, deck[i])


cdef void st_reset_trick(State* st) noexcept nogil:
    st.top_lo = 0
    st.top_hi = 0
    st.top_seat = -1
    st.passes = 0


cdef void st_start_round(State* st) noexcept nogil:
    """Deal, then set up tribute (from the second round) or the first lead."""
    cdef int i, hr = 0, banker
    st_deal(st)
    st_reset_trick(st)
    st.nfin = 0
    for i in range(4):
        st.pby_one[i] = 0
        st.pby_two[i] = 0
    st.pby_known = 1
    for i in range(4):
        st.fin[i] = -1
    tribute_none(&st.tr)
    if st.last_order[0] < 0:
        # first round: the opening leader is drawn at random
        st.leader = <int8_t>rng_below(st.deal_rng, 4)
        st.first_leader = st.leader
        st.phase = PH_PLAY
        st.to_act = st.leader
        return
    banker = st.last_order[0]
    if (st.last_order[1] & 1) == (banker & 1):
        st.tr.npay = 2                                # double-down: both losers pay
        st.tr.payer[0] = st.last_order[2]
        st.tr.payer[1] = st.last_order[3]
    else:
        st.tr.npay = 1
        st.tr.payer[0] = st.last_order[3]
    for i in range(st.tr.npay):
        hr += face_count(st.one[st.tr.payer[i]], st.two[st.tr.payer[i]], HR_FACE)
    if hr == 2:
        # anti-tribute: the paying side holds both big jokers
        st.tr.anti = 1
        st.leader = banker
        st.first_leader = banker
        st.phase = PH_PLAY
        st.to_act = banker
        return
    st.phase = PH_TRIBUTE
    st.to_act = st.tr.payer[0]


cdef void st_new_game(State* st, uint64_t seed, const RuleSet* rules) noexcept nogil:
    cdef int i
    memset(st, 0, sizeof(State))
    st_seed(st.deal_rng, seed)
    st.level[0] = 0
    st.level[1] = 0
    st.rlevel = 0
    st.owner = -1
    st.winner = -1
    st.rules = rules[0]
    for i in range(4):
        st.last_order[i] = -1
    st.last_delta = 0
    st_start_round(st)


cdef void st_new_round(State* st, uint64_t seed, int l0, int l1, int owner,
                       const int8_t* last_order, const RuleSet* rules) noexcept nogil:
    """A fresh state at the start of one round: team levels ``l0``/``l1``, the
    round played at team ``owner``'s level, and (when ``last_order`` is not
    NULL) the previous round's finishing order, so that the tribute phase
    follows exactly as in a game. The deal (and the first leader when there
    is no previous order) is drawn from ``seed`` as in :func:`st_new_game`."""
    cdef int i
    memset(st, 0, sizeof(State))
    st_seed(st.deal_rng, seed)
    st.level[0] = l0
    st.level[1] = l1
    st.owner = owner
    st.rlevel = st.level[owner] if owner >= 0 else 0
    st.winner = -1
    st.rules = rules[0]
    for i in range(4):
        st.last_order[i] = last_order[i] if last_order != NULL else -1
    st.last_delta = 0
    st_start_round(st)


cdef bint round_over(State* st) noexcept nogil:
    if st.nfin >= 3:
        return True
    return st.nfin == 2 and (st.fin[0] & 1) == (st.fin[1] & 1)


cdef void st_end_round(State* st) noexcept nogil:
    """Finishing order, promotion, the A rule, failed rounds at A, game end;
    then the next round is dealt."""
    cdef int i, s, k, banker, team, ppos = 0, delta, partner
    cdef int8_t before[2]
    cdef bint won = False
    cdef int8_t order[4]
    for i in range(st.nfin):
        order[i] = st.fin[i]
    k = st.nfin
    for s in range(4):
        if is_out(st, s):
            continue
        order[k] = s
        k += 1
    for i in range(4):
        st.last_order[i] = order[i]
        st.end_one[i] = st.one[i]
        st.end_two[i] = st.two[i]
    banker = order[0]
    team = banker & 1
    partner = (banker + 2) & 3
    for i in range(1, 4):
        if order[i] == partner:
            ppos = i
    delta = 4 - ppos                       # partner 2nd: +3, 3rd: +2, last: +1
    before[0] = st.level[0]
    before[1] = st.level[1]
    if st.level[team] == 12 and st.rlevel == 12:
        if ppos == 1 or (ppos == 2 and not st.rules.a_win_second_only):
            won = True
            st.winner = team
    st.last_delta = 0
    st.last_won_a = won
    if not won:
        st.level[team] = st.level[team] + delta if st.level[team] + delta <= 12 else 12
        st.last_delta = st.level[team] - before[team]
    if st.owner >= 0 and before[st.owner] == 12 and st.rlevel == 12 and not won:
        st.afail[st.owner] += 1
        if st.rules.a_fail_limit and st.afail[st.owner] >= st.rules.a_fail_limit:
            st.level[st.owner] = 0
            st.afail[st.owner] = 0
    st.round_index += 1
    st_reset_trick(st)
    if won:
        st.phase = PH_OVER
        return
    if st.rules.max_rounds and st.round_index >= st.rules.max_rounds:
        st.phase = PH_OVER
        st.winner = 0 if st.level[0] > st.level[1] else (1 if st.level[1] > st.level[0] else -1)
        return
    st.rlevel = st.level[team]
    st.owner = team
    st_start_round(st)

# ---------------------------------------------------------------------------
# Tribute and return
# ---------------------------------------------------------------------------

cdef int tribute_choices(State* st, int seat, MoveBuf* out) noexcept nogil:
    """The payer's highest card in level order, never a wild; one choice per
    face of that strength."""
    cdef uint64_t m = st.one[seat] & ~((<uint64_t>1) << (4 * st.rlevel + 1))
    cdef uint64_t mm = m
    cdef int f, best = -1, s
    while mm:
        f = gd_ctz64(mm)
        mm &= mm - 1
        s = face_strength(f, st.rlevel)
        if s > best:
            best = s
    if buf_reserve(out, 4) < 0:
        return -1
    while m:
        f = gd_ctz64(m)
        m &= m - 1
        if face_strength(f, st.rlevel) == best:
            out.data[2 * out.n] = ((<uint64_t>1) << f) | ((<uint64_t>T_TRIBUTE) << TAG_SHIFT)
            out.data[2 * out.n + 1] = 0
            out.n += 1
    return 0


cdef int back_choices(State* st, int seat, MoveBuf* out) noexcept nogil:
    """A card of rank 2..10 that is not a level card; if there is none, the
    lowest card in level order that is not a wild."""
    cdef uint64_t m = st.one[seat]
    cdef uint64_t lvl = (<uint64_t>15) << (4 * st.rlevel)
    cdef uint64_t ok = m & ((<uint64_t>1 << 36) - 1) & ~lvl       # ranks 2..10
    cdef int f, best = 99, s
    cdef uint64_t mm
    if buf_reserve(out, 54) < 0:
        return -1
    if ok == 0:
        ok = m & ~((<uint64_t>1) << (4 * st.rlevel + 1))
        mm = ok
        while mm:
            f = gd_ctz64(mm)
            mm &= mm - 1
            s = face_strength(f, st.rlevel)
            if s < best:
                best = s
        mm = ok
        ok = 0
        while mm:
            f = gd_ctz64(mm)
            mm &= mm - 1
            if face_strength(f, st.rlevel) == best:
                ok |= (<uint64_t>1) << f
    while ok:
        f = gd_ctz64(ok)
        ok &= ok - 1
        out.data[2 * out.n] = ((<uint64_t>1) << f) | ((<uint64_t>T_BACK) << TAG_SHIFT)
        out.data[2 * out.n + 1] = 0
        out.n += 1
    return 0


cdef void resolve_tribute(State* st) noexcept nogil:
    """All tributes paid: decide who receives which, hand the cards over."""
    cdef int banker = st.last_order[0], follower = st.last_order[1], s0, s1, i
    if st.tr.npay == 1:
        st.tr.recv[0] = banker
        st.leader = st.tr.payer[0]
    else:
        s0 = face_strength(st.tr.paid[0], st.rlevel)
        s1 = face_strength(st.tr.paid[1], st.rlevel)
        if s0 > s1:
            st.tr.recv[0] = banker
            st.tr.recv[1] = follower
            st.leader = st.tr.payer[0]
        elif s1 > s0:
            st.tr.recv[1] = banker
            st.tr.recv[0] = follower
            st.leader = st.tr.payer[1]
        else:
            # equal tributes: 贡左还右 - each payer gives to the opponent on
            # their left (上家), receivers return to their right (下家)
            st.tr.recv[0] = (st.tr.payer[0] + 3) & 3
            st.tr.recv[1] = (st.tr.payer[1] + 3) & 3
            if st.rules.equal_lead_banker_left:
                st.leader = (banker + 3) & 3
            else:
                st.leader = st.tr.payer[0] if st.tr.recv[0] == banker else st.tr.payer[1]
    for i in range(st.tr.npay):
        remove_face(st, st.tr.payer[i], st.tr.paid[i])
        add_face(st, st.tr.recv[i], st.tr.paid[i])
    st.first_leader = st.leader
    st.phase = PH_BACK
    # the banker returns first
    st.to_act = banker

# ---------------------------------------------------------------------------
# Legal actions and applying them
# ---------------------------------------------------------------------------

cdef int st_legal(State* st, Gen* g, MoveBuf* out) noexcept nogil:
    """Append the legal actions of the seat to act (nothing when over)."""
    cdef int seat = st.to_act
    if st.phase == PH_PLAY:
        return generate_with(g, st.one[seat], st.two[seat], st.rlevel, st.top_lo, st.top_hi,
                             st.rules.gen_flags, out)
    if st.phase == PH_TRIBUTE:
        return tribute_choices(st, seat, out)
    if st.phase == PH_BACK:
        return back_choices(st, seat, out)
    return 0


cdef int st_is_legal(State* st, Gen* g, MoveBuf* scratch, uint64_t lo, uint64_t hi) noexcept nogil:
    """1 if (lo, hi) is a legal action now, 0 if not, -1 out of memory."""
    cdef Py_ssize_t i
    scratch.n = 0
    if st_legal(st, g, scratch) < 0:
        return -1
    for i in range(scratch.n):
        if scratch.data[2 * i] == lo and scratch.data[2 * i + 1] == hi:
            return 1
    return 0


cdef int st_refusal(State* st, Gen* g, MoveBuf* scratch, uint64_t lo, uint64_t hi) noexcept nogil:
    """Why (lo, hi) is not legal now (a Refusal code; REFUSE_NONE when it is
    legal; -1 out of memory). The rules' own reasons, in the order a player
    would be told them."""
    cdef int t = move_type(lo), seat = st.to_act, rc
    cdef uint64_t one = lo & FACE_MASK, two = hi & FACE_MASK
    rc = st_is_legal(st, g, scratch, lo, hi)
    if rc != 0:
        return REFUSE_NONE if rc == 1 else -1
    if st.phase == PH_OVER:
        return REFUSE_GAME_OVER
    if st.phase == PH_TRIBUTE and t != T_TRIBUTE:
        return REFUSE_TRIBUTE_DUE
    if st.phase == PH_BACK and t != T_BACK:
        return REFUSE_RETURN_DUE
    if (one & ~st.one[seat]) or (two & ~st.two[seat]):
        return REFUSE_NOT_IN_HAND
    if st.phase == PH_TRIBUTE:
        return REFUSE_TRIBUTE_CARD
    if st.phase == PH_BACK:
        return REFUSE_RETURN_CARD
    if t == T_TRIBUTE or t == T_BACK:
        return REFUSE_NOT_A_PLAY
    if t == T_PASS and st.top_seat < 0:
        return REFUSE_LEADER_PASS
    if st.top_seat >= 0:
        return REFUSE_DOES_NOT_BEAT
    return REFUSE_OTHER


cdef int st_apply(State* st, uint64_t lo, uint64_t hi) noexcept nogil:
    """Apply a legal action of the seat to act (not checked here)."""
    cdef int seat = st.to_act, t = move_type(lo), i, f, others, s
    st.decisions += 1
    if st.phase == PH_TRIBUTE:
        # the card stays in the payer's hand until every tribute is chosen
        f = gd_ctz64(lo & FACE_MASK)
        for i in range(st.tr.npay):
            if st.tr.payer[i] == seat and st.tr.paid[i] < 0:
                st.tr.paid[i] = f
                break
        for i in range(st.tr.npay):
            if st.tr.paid[i] < 0:
                st.to_act = st.tr.payer[i]
                return 0
        resolve_tribute(st)
        return 0
    if st.phase == PH_BACK:
        f = gd_ctz64(lo & FACE_MASK)
        for i in range(st.tr.npay):
            if st.tr.recv[i] == seat and st.tr.returned[i] < 0:
                remove_face(st, seat, f)
                add_face(st, st.tr.payer[i], f)
                st.tr.returned[i] = f
                break
        for i in range(st.tr.npay):
            if st.tr.returned[i] < 0:
                st.to_act = st.tr.recv[i]
                return 0
        st.phase = PH_PLAY
        st.to_act = st.leader
        return 0
    if st.phase != PH_PLAY:
        return -1
    if t == T_PASS:
        st.passes += 1
    else:
        remove_cards(st, seat, lo & FACE_MASK, hi & FACE_MASK)
        # the cards it has played this round: a second copy goes to two
        st.pby_two[seat] |= (st.pby_one[seat] & lo & FACE_MASK) | (hi & FACE_MASK)
        st.pby_one[seat] |= lo & FACE_MASK
        st.top_lo = lo
        st.top_hi = hi
        st.top_seat = seat
        st.passes = 0
        if st.one[seat] == 0:
            st.fin[st.nfin] = seat
            st.nfin += 1
            if round_over(st):
                st_end_round(st)
                return 1
    # the trick ends when every other seat still holding cards has passed
    others = 0
    for s in range(4):
        if s != st.top_seat and not is_out(st, s):
            others += 1
    if st.passes >= others:
        s = st.top_seat
        if is_out(st, s):
            s = (s + 2) & 3                 # 接风: the partner leads
        st_reset_trick(st)
        st.to_act = s
    else:
        st.to_act = next_active(st, seat)
    return 0

# ---------------------------------------------------------------------------
# Greedy policy
# ---------------------------------------------------------------------------

cdef enum:
    # the greedy rule's scoring (lower plays first)
    GREEDY_NO_TOP_COUNT = 27       # "cards of the top player" when leading: a full hand
    GREEDY_KEY_WEIGHT = 64         # key strength outweighs the number of cards (at most 10)
    GREEDY_GO_OUT_BONUS = 100000   # a play that empties the hand comes first
    GREEDY_BOMB_OUT_BONUS = 1000   # a bomb that empties the hand comes first among bombs
    GREEDY_BOMB_THREAT = 10        # bomb an opponent holding this many cards or fewer

cdef Py_ssize_t greedy_pick(MoveBuf* moves, int level, bint leading, bint partner_on_top,
                            int top_count, int own_count) noexcept nogil:
    """A sensible rule-based choice among legal play moves (index):
    leading, the lowest non-bomb (more cards first on ties); following, the
    lowest non-bomb that beats, never over the partner; a bomb only against
    an opponent close to going out (10 cards or fewer) or to go out ourselves."""
    cdef Py_ssize_t i, best = -1, bomb = -1
    cdef int t, k, sz, v, bestv = 1 << 30, bombv = 1 << 30
    cdef uint64_t lo, hi
    if moves.n == 0:
        return -1
    if not leading and partner_on_top:
        return 0
    for i in range(moves.n):
        lo = moves.data[2 * i]
        hi = moves.data[2 * i + 1]
        t = move_type(lo)
        if t == T_PASS or t > T_BACK:
            continue
        k = move_key(hi)
        sz = move_size(lo, hi)
        if is_bomb_type(t):
            v = bomb_value(t, k, sz, level)
            if sz == own_count:
                v -= GREEDY_BOMB_OUT_BONUS
            if v < bombv:
                bombv = v
                bomb = i
            continue
        v = key_strength(t, k, level) * GREEDY_KEY_WEIGHT - sz
        if sz == own_count:
            v -= GREEDY_GO_OUT_BONUS
        if v < bestv:
            bestv = v
            best = i
    if best >= 0:
        return best
    if bomb >= 0 and (leading or top_count <= GREEDY_BOMB_THREAT or own_count <= move_size(
            moves.data[2 * bomb], moves.data[2 * bomb + 1])):
        return bomb
    return 0 if not leading else bomb


cdef Py_ssize_t policy_greedy(const void* ctx, const View* v, MoveBuf* moves, uint64_t* rng) noexcept nogil:
    cdef int seat = v.seat
    if v.phase != PH_PLAY:
        return 0 if moves.n else -1
    return greedy_pick(moves, v.rlevel, v.top_seat < 0,
                       v.top_seat >= 0 and (v.top_seat & 1) == (seat & 1),
                       v.counts[v.top_seat] if v.top_seat >= 0 else GREEDY_NO_TOP_COUNT,
                       v.counts[seat])


cdef Py_ssize_t policy_random(const void* ctx, const View* v, MoveBuf* moves, uint64_t* rng) noexcept nogil:
    if moves.n == 0:
        return -1
    return <Py_ssize_t>rng_below(rng, moves.n)

# ---------------------------------------------------------------------------
# The native policy registry and the view a policy decides from
# ---------------------------------------------------------------------------

cdef PolicyEntry POLICY_TABLE[POL_SLOTS]
memset(POLICY_TABLE, 0, sizeof(POLICY_TABLE))


cdef int policy_register(int code, policy_fn fn, const void* ctx, int flags) noexcept:
    """Install a native policy (its function, its context, ``POLF_*`` flags)
    under ``code`` (1..POL_SLOTS-1); 0 on success. Under the GIL; an entry
    is written once, before its code is handed out, and never changes (the
    context must live as long as the process)."""
    if code <= 0 or code >= POL_SLOTS or fn == NULL or POLICY_TABLE[code].fn != NULL:
        return -1
    POLICY_TABLE[code].ctx = ctx
    POLICY_TABLE[code].flags = flags
    POLICY_TABLE[code].fn = fn
    return 0


cdef int policy_add(policy_fn fn, const void* ctx, int flags) noexcept:
    """Install a native policy under the first free code from POL_FIRST_FREE;
    the code, or -1 when the table is full."""
    cdef int code
    for code in range(POL_FIRST_FREE, POL_SLOTS):
        if POLICY_TABLE[code].fn == NULL:
            return code if policy_register(code, fn, ctx, flags) == 0 else -1
    return -1


cdef int policy_set_play(int code, play_fn fn) noexcept:
    """Give registered policy ``code`` a play function (once, under the GIL,
    before the code is used): it decides the policy's plays - leads and
    follows - from the state without the whole legal list, the same move as
    the policy would pick from the list, or declines. 0 on success."""
    if code <= 0 or code >= POL_SLOTS or POLICY_TABLE[code].fn == NULL or fn == NULL \
            or POLICY_TABLE[code].play != NULL:
        return -1
    POLICY_TABLE[code].play = fn
    return 0


cdef bint policy_has_play(int code) noexcept nogil:
    """Whether policy ``code`` has a play function."""
    return 0 < code < POL_SLOTS and POLICY_TABLE[code].play != NULL


cdef int policy_play(int code, const State* st, Gen* g, MoveBuf* scratch, uint64_t* lo,
                     uint64_t* hi) noexcept nogil:
    """Policy ``code``'s play from ``st`` (play phase) through its play
    function: 1 with the move's words in ``lo``/``hi``; 0 when it has none
    or declines (ask it with the legal list); -1 out of memory. ``scratch``
    is overwritten."""
    if not policy_has_play(code):
        return 0
    return POLICY_TABLE[code].play(POLICY_TABLE[code].ctx, st, g, scratch, lo, hi)


cdef bint policy_reads_trail(int code) noexcept nogil:
    """Whether policy ``code`` reads the game's trail (the searches do)."""
    return 0 < code < POL_SLOTS and POLICY_TABLE[code].fn != NULL \
        and (POLICY_TABLE[code].flags & POLF_SEARCH) != 0


cdef bint policy_rollout_ok(int code) noexcept nogil:
    """Whether ``code`` is a registered policy that may play rollouts (not a
    search)."""
    return 0 < code < POL_SLOTS and POLICY_TABLE[code].fn != NULL \
        and not (POLICY_TABLE[code].flags & POLF_SEARCH)


cdef Py_ssize_t policy_choose(int code, const State* st, MoveBuf* moves, uint64_t* rng) noexcept nogil:
    """Index of policy ``code``'s choice among ``moves`` for the seat to act
    (-1: unknown policy or no move)."""
    return policy_choose_trail(code, st, NULL, moves, rng)


cdef Py_ssize_t policy_choose_view(int code, const View* v, MoveBuf* moves, uint64_t* rng) noexcept nogil:
    """Index of policy ``code``'s choice among ``moves`` from a View (-1:
    unknown policy or no move)."""
    if code <= 0 or code >= POL_SLOTS or POLICY_TABLE[code].fn == NULL or moves.n == 0:
        return -1
    return POLICY_TABLE[code].fn(POLICY_TABLE[code].ctx, v, moves, rng)


cdef Py_ssize_t policy_choose_trail(int code, const State* st, const Trail* trail, MoveBuf* moves,
                                    uint64_t* rng) noexcept nogil:
    """policy_choose with the game's trail in the view (the owner has noted
    every action so far; a trail of another round is not passed on)."""
    cdef View v
    if code <= 0 or code >= POL_SLOTS or POLICY_TABLE[code].fn == NULL or moves.n == 0:
        return -1
    if code == POL_RANDOM:             # needs no view: skip building one (the hot path of bulk runs)
        return <Py_ssize_t>rng_below(rng, moves.n)
    view_of(st, st.to_act, &v)
    if trail != NULL and trail.valid and trail.round_index == st.round_index:
        v.trail = trail
    return POLICY_TABLE[code].fn(POLICY_TABLE[code].ctx, &v, moves, rng)

# ---------------------------------------------------------------------------
# Trails: this round's actions and the seats' habits (public knowledge)
# ---------------------------------------------------------------------------


cdef void trail_reset(Trail* T) noexcept nogil:
    """An empty trail: no round, no habits seen."""
    memset(T, 0, sizeof(Trail) - sizeof(T.e))
    T.round_index = -1


cdef void trail_rank_counts(uint64_t one, uint64_t two, int8_t* c) noexcept nogil:
    """Cards per rank (0..12, 13 small joker, 14 big joker) of a hand."""
    cdef int r
    for r in range(13):
        c[r] = <int8_t>(gd_popcount64((one >> (4 * r)) & 15) + gd_popcount64((two >> (4 * r)) & 15))
    c[13] = <int8_t>(((one >> 52) & 1) + ((two >> 52) & 1))
    c[14] = <int8_t>(((one >> 53) & 1) + ((two >> 53) & 1))


cdef bint trail_loose(const int8_t* c, int size, int top_key, int level) noexcept nogil:
    """Whether a hand with rank counts ``c`` holds exactly ``size`` cards of
    a rank stronger than ``top_key`` (a single, pair or triple it could play
    without breaking a bigger group)."""
    cdef int r, ts = rank_strength(top_key, level)
    for r in range(15):
        if c[r] == size and rank_strength(r, level) > ts:
            return True
    return False


cdef int trail_pass_break(const Trail* T, const TrailEntry* e, uint64_t one, uint64_t two) noexcept nogil:
    """The pass and break evidence of entry ``e``, its seat holding (one,
    two) then: 0 when it is no chance (a lead, a partner's play on top, not a
    single, pair or triple on top, no loose stronger one held, going out),
    else EVB_PASS_CHANCE, with EVB_PASSED when it passed, or with
    EVB_FOLLOWED (followed in kind) and EVB_BROKE (from a bigger group)."""
    cdef int8_t c[15]
    cdef int size, out
    if e.top_seat < 0 or e.t == 15 or (e.top_seat & 1) == (e.seat & 1):
        return 0
    if not (T_SINGLE <= e.top_t <= T_TRIPS) or (e.t != T_PASS and e.t != e.top_t):
        return 0
    if e.top_key >= 15 or e.key >= 15:
        return 0                        # not a rank key (words from outside): no evidence
    trail_rank_counts(one, two, c)
    size = e.top_t
    if not trail_loose(c, size, e.top_key, T.level):
        return 0
    out = EVB_PASS_CHANCE
    if e.t == T_PASS:
        return out | EVB_PASSED
    out |= EVB_FOLLOWED
    if c[e.key] > size:
        out |= EVB_BROKE
    return out


cdef void _trail_learn(Trail* T, const State* st) noexcept nogil:
    """The finished round's evidence, every hand known (the cards left at its
    end, ``st.end_*``, and the plays): each action's hand rebuilt backwards."""
    cdef uint64_t h1[4]
    cdef uint64_t h2[4]
    cdef int8_t c[15]
    cdef int k, s, bomb, r, ev
    cdef const TrailEntry* e
    for s in range(4):
        h1[s] = st.end_one[s]
        h2[s] = st.end_two[s]
    for k in range(T.n - 1, -1, -1):
        e = &T.e[k]
        s = e.seat
        trail_unplay(&h1[s], &h2[s], e)
        if e.top_seat < 0 or e.t == 15:
            continue
        if (e.top_seat & 1) == (s & 1):
            if not is_bomb_type(e.top_t):
                T.opp[s][EV_OVERTAKE] += 1
                T.hit[s][EV_OVERTAKE] += e.t != T_PASS
            continue
        ev = trail_pass_break(T, e, h1[s], h2[s])
        if ev:
            T.opp[s][EV_PASS] += 1
            T.hit[s][EV_PASS] += (ev & EVB_PASSED) != 0
            if ev & EVB_FOLLOWED:
                T.opp[s][EV_BREAK] += 1
                T.hit[s][EV_BREAK] += (ev & EVB_BROKE) != 0
        trail_rank_counts(h1[s], h2[s], c)
        if not is_bomb_type(e.top_t) and e.top_n >= 7:
            bomb = c[13] == 2 and c[14] == 2
            for r in range(13):
                bomb = bomb or c[r] >= 4
            if bomb:
                T.opp[s][EV_BOMB] += 1
                T.hit[s][EV_BOMB] += is_bomb_type(e.t)


cdef void trail_sync(Trail* T, const State* st) noexcept nogil:
    """Catch up with ``st``'s round: a new round first turns the finished one
    into habits (when it was seen whole), then starts empty (valid when
    nothing of it has been played yet)."""
    cdef int k, s
    cdef bint fresh
    if st.round_index != T.round_index:
        if T.valid and T.n > 0 and T.round_index >= 0:
            _trail_learn(T, st)
        fresh = st.phase != PH_PLAY      # tribute first: the round seen from its start
        if not fresh:
            k = 0                         # else valid when no card of it has been played yet
            for s in range(4):
                k += card_count(st.one[s], st.two[s])
            fresh = k == 108
        T.round_index = st.round_index
        T.n = 0
        T.valid = fresh
        for k in range(4):
            T.early_bombs[k] = 0
            T.overtakes[k] = 0
        T.level = st.rlevel


cdef void trail_add(Trail* T, int seat, uint64_t lo, uint64_t hi, int top_seat, uint64_t top_lo,
                    uint64_t top_hi, int top_n, int own_n) noexcept nogil:
    """Append an action of this round (after trail_sync)."""
    cdef TrailEntry* e
    if not T.valid:
        return
    if T.n >= TRAIL_MAX:
        T.valid = 0
        return
    e = &T.e[T.n]
    T.n += 1
    e.one = lo & FACE_MASK
    e.two = hi & FACE_MASK
    e.t = (lo >> TAG_SHIFT) & 15
    e.key = (hi >> TAG_SHIFT) & 31
    e.seat = seat
    e.own_n = <int8_t>own_n
    if e.t != T_PASS and card_count(e.one, e.two) == e.own_n:
        e.t = 15                        # went out
    e.top_seat = top_seat
    if top_seat >= 0:
        e.top_t = (top_lo >> TAG_SHIFT) & 15
        e.top_key = (top_hi >> TAG_SHIFT) & 31
        e.top_n = <int8_t>top_n
        if e.t != T_PASS and e.t != 15 and not is_bomb_type(e.top_t):
            if (top_seat & 1) == (seat & 1):
                T.overtakes[seat] += 1
            elif is_bomb_type(e.t) and e.top_n >= 10 and e.own_n - card_count(e.one, e.two) >= 6:
                T.early_bombs[seat] += 1
    else:
        e.top_t = 0
        e.top_key = 0
        e.top_n = 0


cdef void trail_note(Trail* T, const State* st, uint64_t lo, uint64_t hi) noexcept nogil:
    """Note the action (lo, hi) the seat to act takes in ``st``, before it is
    applied (a pass is (0, 0))."""
    cdef int seat = st.to_act
    trail_sync(T, st)
    if st.phase != PH_PLAY or not T.valid:
        return
    trail_add(T, seat, lo, hi, st.top_seat, st.top_lo, st.top_hi,
              card_count(st.one[st.top_seat], st.two[st.top_seat]) if st.top_seat >= 0 else 0,
              card_count(st.one[seat], st.two[seat]))


cdef int trail_of_plays(Trail* T, plays, const int8_t* counts_now, int rlevel) except -1:
    """The trail of a round known only by its plays (an observation's
    history: ``(seat, lo, hi)``, passes included, from the round's first
    lead) and the counts now: who was on top at each action follows from the
    plays (a trick ends when its top player leads again, or when every other
    player still holding cards has passed). No habits."""
    cdef int cnt[4]
    cdef int s, k, top_seat = -1, passes = 0, active, n
    cdef uint64_t lo, hi, top_lo = 0, top_hi = 0
    trail_reset(T)
    T.round_index = 0
    T.valid = 1
    T.level = rlevel
    for k in range(4):
        cnt[k] = counts_now[k]
    for entry in plays:                 # (checked by plays_by_seat)
        cnt[<int>entry[0]] += card_count(<uint64_t>entry[1] & FACE_MASK, <uint64_t>entry[2] & FACE_MASK)
    for entry in plays:
        s = entry[0]
        lo = entry[1]
        hi = entry[2]
        if top_seat >= 0:
            active = 0
            for k in range(4):
                if k != top_seat and cnt[k] > 0:
                    active += 1
            if s == top_seat or passes >= active:
                top_seat = -1
                passes = 0
        trail_add(T, s, lo, hi, top_seat, top_lo, top_hi, cnt[top_seat] if top_seat >= 0 else 0, cnt[s])
        if ((lo >> TAG_SHIFT) & 15) == T_PASS:
            passes += 1
        else:
            n = card_count(lo & FACE_MASK, hi & FACE_MASK)
            cnt[s] -= n
            top_seat = s
            top_lo = lo
            top_hi = hi
            passes = 0
    return 0


cdef void rules_derive(RuleSet* r) noexcept nogil:
    """The values native readers take from the rule options, derived once:
    the generator's flags and the solver's key bits."""
    r.gen_flags = 0 if r.wild_sf else F_NO_WILD_SF
    r.key_bits = (r.a_win_second_only & 1) | ((r.wild_sf & 1) << 1) | ((r.equal_lead_banker_left & 1) << 2)


cdef bint rules_valid(const RuleSet* r) noexcept nogil:
    """Whether a RuleSet's fields are in range and its derived values match
    its options (a RuleSet inside state bytes handed in from outside)."""
    cdef RuleSet d = r[0]
    if r.a_win_second_only > 1 or r.wild_sf > 1 or r.equal_lead_banker_left > 1 \
            or r.a_fail_limit < 0 or r.max_rounds < 0:
        return False
    rules_derive(&d)
    return d.gen_flags == r.gen_flags and d.key_bits == r.key_bits


cdef inline bint _in(int x, int lo, int hi) noexcept nogil:
    return lo <= x <= hi


cdef bint st_valid(const State* st) noexcept nogil:
    """Whether every field of a state is in the range native code indexes or
    shifts by (the one check of state bytes handed in from outside:
    ``GameCore.load_state_bytes``, the one loader)."""
    cdef int s
    cdef uint64_t h1 = 0, h2 = 0, x
    for s in range(4):
        if (st.one[s] | st.two[s] | st.end_one[s] | st.end_two[s] | st.pby_one[s] | st.pby_two[s]) & ~FACE_MASK:
            return False
        if (st.two[s] & ~st.one[s]) or (st.end_two[s] & ~st.end_one[s]) or (st.pby_two[s] & ~st.pby_one[s]):
            return False
        # at most two copies of a card in all hands
        x = st.one[s]
        if h2 & x:
            return False
        h2 |= h1 & x
        h1 |= x
        x = st.two[s]
        if h2 & x:
            return False
        h2 |= h1 & x
        h1 |= x
    if not (_in(st.level[0], 0, 12) and _in(st.level[1], 0, 12) and _in(st.rlevel, 0, 12)
            and _in(st.owner, -1, 1) and _in(st.phase, 0, 3) and _in(st.to_act, 0, 3)
            and _in(st.top_seat, -1, 3) and _in(st.passes, 0, 3) and _in(st.nfin, 0, 4)
            and _in(st.winner, -1, 1) and _in(st.tr.npay, 0, 2) and _in(st.leader, -1, 3)
            and _in(st.first_leader, -1, 3) and _in(st.last_delta, 0, 3) and st.afail[0] >= 0
            and st.afail[1] >= 0 and st.round_index >= 0 and rules_valid(&st.rules)):
        return False
    for s in range(4):
        if not (_in(st.fin[s], 0, 3) if s < st.nfin else st.fin[s] == -1):
            return False
        if not _in(st.last_order[s], -1, 3):
            return False
    for s in range(2):
        if not (_in(st.tr.payer[s], -1, 3) and _in(st.tr.recv[s], -1, 3) and _in(st.tr.paid[s], -1, 53)
                and _in(st.tr.returned[s], -1, 53)):
            return False
    if (st.top_seat >= 0) != (st.top_lo != 0):
        return False
    if st.top_lo != 0 and not words_shape_ok(st.top_lo, st.top_hi, st.rlevel):
        return False
    return True


cdef void st_init_play(State* st, const RuleSet* rules, int rlevel, int l0, int l1, int owner,
                       int to_act, uint64_t top_lo, uint64_t top_hi, int top_seat, int passes,
                       const int8_t* fin, int nfin) noexcept nogil:
    """The one builder of a play-phase state from its public parts: the
    levels, the trick and the finishing order given; no hands (the caller
    deals them), no tribute, no previous round, the deal RNG zero (the
    caller seeds it when it matters); the leader is whoever leads the trick."""
    cdef int s
    memset(st, 0, sizeof(State))
    st.rlevel = rlevel
    st.level[0] = l0
    st.level[1] = l1
    st.owner = owner
    st.to_act = to_act
    st.top_lo = top_lo
    st.top_hi = top_hi
    st.top_seat = top_seat
    st.passes = passes
    st.nfin = nfin
    for s in range(4):
        st.fin[s] = fin[s] if s < nfin else -1
        st.last_order[s] = -1
    st.winner = -1
    st.rules = rules[0]
    st.phase = PH_PLAY
    st.leader = to_act if top_seat < 0 else top_seat
    st.first_leader = st.leader
    tribute_none(&st.tr)


cdef inline void view_fill(View* v, const State* st, int seat, uint64_t pone, uint64_t ptwo,
                           const int8_t* counts) noexcept nogil:
    """The one builder of a View: ``seat``'s hand and the public parts of
    ``st`` (trick, levels, finishing order, rules; this round's tribute and
    who played what when ``st`` saw the whole round in the play phase), with
    the cards played and the counts given."""
    cdef int s
    v.one = st.one[seat]
    v.two = st.two[seat]
    v.pone = pone
    v.ptwo = ptwo
    v.top_lo = st.top_lo
    v.top_hi = st.top_hi
    v.seat = seat
    v.phase = st.phase
    v.rlevel = st.rlevel
    v.level[0] = st.level[0]
    v.level[1] = st.level[1]
    v.top_seat = st.top_seat
    v.passes = st.passes
    for s in range(4):
        v.counts[s] = counts[s]
        v.fin[s] = st.fin[s]
    v.nfin = st.nfin
    v.rules = st.rules
    v.tribute_known = st.pby_known != 0 and st.phase == PH_PLAY
    if v.tribute_known:
        v.tr = st.tr
    else:
        tribute_none(&v.tr)
    for s in range(4):
        v.pby_one[s] = st.pby_one[s]
        v.pby_two[s] = st.pby_two[s]
    v.trail = NULL


cdef void view_of(const State* st, int seat, View* v) noexcept nogil:
    """What ``seat`` may know of ``st``: its hand, every count, the cards
    played this round (two decks minus all hands), the trick and levels."""
    cdef int s
    cdef uint64_t held1 = 0, held2 = 0, x
    cdef int8_t counts[4]
    # copies held in all hands, bit-sliced: held1 = at least one, held2 = two
    # (a face has two copies in all: played = 2 - held)
    for s in range(4):
        x = st.one[s]
        held2 |= held1 & x
        held1 |= x
        x = st.two[s]
        held2 |= held1 & x
        held1 |= x
        counts[s] = <int8_t>card_count(st.one[s], st.two[s])
    if st.phase == PH_OVER:          # nothing is in play once the game is over
        view_fill(v, st, seat, 0, 0, counts)
    else:
        view_fill(v, st, seat, ~held2 & FACE_MASK, ~held1 & FACE_MASK, counts)


cdef inline void _counts54(uint64_t one, uint64_t two, float* out) noexcept nogil:
    cdef int f
    for f in range(54):
        out[f] = <float>(((one >> f) & 1) + ((two >> f) & 1))


cdef void obs_fill(const View* v, float* out) noexcept nogil:
    """The observation tensor of a view (OBS_DIM floats; ``out`` zeroed by
    the caller). The one implementation: Game, VecGame and the env read it.
    Layout in ``guandan.vec``."""
    cdef int s = v.seat, k, t, team = v.seat & 1
    _counts54(v.one, v.two, &out[0])                                # 0..53 own hand
    for k in range(4):                                              # 54..57 card counts
        out[54 + k] = v.counts[(s + k) & 3]
    if v.top_seat >= 0:
        _counts54(v.top_lo & FACE_MASK, v.top_hi & FACE_MASK, &out[58])   # 58..111 top cards
        t = move_type(v.top_lo)
        out[112 + t] = 1.0                                          # 112..124 top type
        out[125] = <float>move_key(v.top_hi)            # 125 top key
        out[126 + ((v.top_seat - s) & 3)] = 1.0                     # 126..129 top seat
    out[130 + v.rlevel] = 1.0                                       # 130..142 round level
    out[143 + v.level[team]] = 1.0                                  # 143..155 own team
    out[156 + v.level[1 - team]] = 1.0                              # 156..168 opponents
    out[169 + v.phase] = 1.0                                        # 169..172 phase
    _counts54(v.pone, v.ptwo, &out[173])                            # 173..226 played


cdef float st_round_reward(const State* st) noexcept nogil:
    """The reward of the round that just ended, for the banker's team (the
    other team gets the negative): the levels it went up, 4 for winning the
    game, 0 when the game ended level (max_rounds)."""
    cdef int team = st.last_order[0] & 1
    if st.phase == PH_OVER and st.winner == team:
        return 4.0
    if st.phase == PH_OVER and st.winner < 0:
        return 0.0
    return <float>st.last_delta


policy_register(POL_RANDOM, policy_random, NULL, 0)
policy_register(POL_GREEDY, policy_greedy, NULL, 0)

# The refusal reasons by name (guandan.game words them).
REFUSALS = {"NONE": REFUSE_NONE, "GAME_OVER": REFUSE_GAME_OVER, "TRIBUTE_DUE": REFUSE_TRIBUTE_DUE,
            "RETURN_DUE": REFUSE_RETURN_DUE, "NOT_IN_HAND": REFUSE_NOT_IN_HAND,
            "TRIBUTE_CARD": REFUSE_TRIBUTE_CARD, "RETURN_CARD": REFUSE_RETURN_CARD,
            "NOT_A_PLAY": REFUSE_NOT_A_PLAY, "LEADER_PASS": REFUSE_LEADER_PASS,
            "DOES_NOT_BEAT": REFUSE_DOES_NOT_BEAT, "OTHER": REFUSE_OTHER}

# a game's policy seed is its deal seed ^ this (guandan.seeds.policy_seed)
cdef uint64_t _POLICY_SALT = policy_salt()
POLICY_SALT = _POLICY_SALT

# Built-in native policies by code (guandan.policies names them).
NATIVE_POLICY_CODES = {"random": POL_RANDOM, "greedy": POL_GREEDY, "expert": POL_EXPERT}


def policy_available(int code):
    """Whether a native policy is registered under ``code``."""
    return 0 < code < POL_SLOTS and POLICY_TABLE[code].fn != NULL


cdef void plays_by_seat(plays, uint64_t* one, uint64_t* two) except *:
    """Accumulate ``(seat, lo, hi)`` play words into per-seat card sets."""
    cdef int s, f
    cdef uint64_t lo, hi, m, bit
    for s in range(4):
        one[s] = 0
        two[s] = 0
    for entry in plays:
        s = entry[0]
        lo = entry[1]
        hi = entry[2]
        if not 0 <= s <= 3:
            raise GuandanError("a play's seat must be 0..3")
        m = lo & FACE_MASK
        while m:
            f = gd_ctz64(m)
            m &= m - 1
            bit = (<uint64_t>1) << f
            for _ in range(1 + <int>((hi >> f) & 1)):
                if one[s] & bit:
                    if two[s] & bit:
                        raise GuandanError("more than two copies of a card played by one seat")
                    two[s] |= bit
                else:
                    one[s] |= bit


cdef class NativeView:
    """What one seat knows, as the native ``View`` a policy decides from,
    built once at the boundary: from values given by name (a policy deciding
    from an observation, ``guandan.policies.observation_view``; the expert
    explaining a game), every range checked because the values come from
    callers, or from a native state (:meth:`of`).

    ``plays`` (this round's complete history as ``(seat, lo, hi)`` move
    words) and ``tribute`` (``(payers, paid, recv, returned, anti)``: faces
    and seats, -1 for not yet) add who played what and this round's tribute,
    the constraints of the world sampler; ``played`` must then be the union
    of the plays."""

    def __init__(self, *, Hand hand not None, Hand played not None, int seat, int phase,
                 int rlevel, levels, uint64_t top_lo, uint64_t top_hi, int top_seat, int passes,
                 counts, fin, NativeRules rules not None, plays=None, tribute=None):
        cdef State st
        cdef int8_t nf[4]
        cdef int8_t cs[4]
        cdef uint64_t pone = 0, ptwo = 0, c1, c2
        cdef int s
        if not (0 <= seat <= 3 and 0 <= phase <= 3 and 0 <= rlevel <= 12 and -1 <= top_seat <= 3
                and 0 <= passes <= 3 and len(counts) == 4 and len(fin) <= 4 and len(levels) == 2
                and all(0 <= c <= 54 for c in counts) and all(0 <= x <= 3 for x in fin)
                and all(0 <= x <= 12 for x in levels) and (top_seat >= 0) == (top_lo != 0)):
            raise GuandanError("policy view: a value is out of range")
        if top_lo and not words_shape_ok(top_lo, top_hi, rlevel):
            raise GuandanError("policy view: malformed top play")
        for s in range(len(fin)):
            nf[s] = fin[s]
        for s in range(4):
            cs[s] = counts[s]
        st_init_play(&st, &rules.r, rlevel, levels[0], levels[1], -1, seat, top_lo, top_hi,
                     top_seat, passes, nf, len(fin))
        st.phase = phase
        st.one[seat] = hand.one
        st.two[seat] = hand.two
        if plays is not None:
            plays_by_seat(plays, st.pby_one, st.pby_two)
            for s in range(4):       # the union of the plays, counting copies to two
                c1 = st.pby_one[s]
                c2 = st.pby_two[s]
                if (ptwo & c1) | (pone & c2) | (ptwo & c2):
                    raise GuandanError("policy view: more than two copies of a card played")
                ptwo |= (pone & c1) | c2
                pone |= c1
            if pone != played.one or ptwo != played.two:
                raise GuandanError("policy view: the cards played are not the union of the plays")
            st.pby_known = 1
            if tribute is not None:
                _tribute_fill(&st.tr, tribute)
        view_fill(&self.v, &st, seat, played.one, played.two, cs)
        if plays is not None and phase == PH_PLAY:
            self.trail = <Trail*>malloc(sizeof(Trail))
            if self.trail == NULL:
                raise MemoryError()
            trail_of_plays(self.trail, plays, cs, rlevel)
            self.v.trail = self.trail

    def __cinit__(self):
        self.trail = NULL

    def __dealloc__(self):
        free(self.trail)

    @staticmethod
    def of(GameCore core not None, int seat):
        """The View of ``seat`` in a native state (``view_of``: this round's
        tribute and who played what included when the state saw the whole
        round)."""
        cdef NativeView nv = NativeView.__new__(NativeView)
        if not 0 <= seat <= 3:
            raise GuandanError(f"seat must be 0..3, got {seat}")
        view_of(&core.st, seat, &nv.v)
        return nv

    @property
    def seat(self):
        return self.v.seat

    @property
    def phase(self):
        return self.v.phase

    def trail_entries(self):
        """This round's actions as the search's trail holds them (as
        ``GameCore.trail_info``'s entries); None without a trail."""
        cdef const Trail* T = self.v.trail
        cdef int k
        if T == NULL:
            return None
        return [(T.e[k].seat, T.e[k].t, T.e[k].key, T.e[k].top_seat, T.e[k].top_t, T.e[k].top_key,
                 T.e[k].top_n, T.e[k].own_n, T.e[k].one, T.e[k].two) for k in range(T.n)]

    @property
    def tribute_known(self):
        """Whether the view carries this round's tribute and who played what."""
        return bool(self.v.tribute_known)


cdef int _tribute_fill(Tribute* tr, tribute) except -1:
    payers, paid, recv, returned, anti = tribute
    cdef int k
    if not (len(payers) <= 2 and len(paid) == len(recv) == len(returned) == len(payers)):
        raise GuandanError("policy view: tribute values out of range")
    tribute_none(tr)
    tr.npay = len(payers)
    tr.anti = bool(anti)
    for k in range(tr.npay):
        if not (0 <= payers[k] <= 3 and -1 <= paid[k] <= 53 and -1 <= recv[k] <= 3
                and -1 <= returned[k] <= 53):
            raise GuandanError("policy view: tribute values out of range")
        tr.payer[k] = payers[k]
        tr.paid[k] = paid[k]
        tr.recv[k] = recv[k]
        tr.returned[k] = returned[k]
    return 0


def choose_from_view(int code, MoveList moves not None, NativeView view not None, uint64_t rng_seed=0):
    """Run native policy ``code`` on a :class:`NativeView`. Returns an index
    into ``moves`` (-1 if none)."""
    cdef uint64_t rng[4]
    if not policy_available(code):
        raise GuandanError(f"no native policy with code {code}")
    st_seed(rng, rng_seed)
    return policy_choose_view(code, &view.v, &moves.buf, rng)


# ---------------------------------------------------------------------------
# Perft: count action sequences of a given depth (native recursion)
# ---------------------------------------------------------------------------

cdef int64_t _perft(State* st, Gen* g, MoveBuf* bufs, int depth, int stop_round) noexcept nogil:
    # stop_round >= 0: positions after the end of round stop_round are
    # terminal (like the end of the game: they count 0 below depth 0)
    cdef MoveBuf* b = &bufs[depth]
    cdef Py_ssize_t i, n
    cdef int64_t total = 0, sub
    cdef State child
    if st.phase == PH_OVER:
        return 0
    if stop_round >= 0 and st.round_index != stop_round:
        return 0
    b.n = 0
    if st_legal(st, g, b) < 0:
        return -1
    n = b.n
    if depth == 1:
        return n
    for i in range(n):
        memcpy(&child, st, sizeof(State))
        st_apply(&child, b.data[2 * i], b.data[2 * i + 1])
        if stop_round >= 0 and child.round_index != stop_round:
            continue                   # the round ended with this action: a leaf of no descendants
        sub = _perft(&child, g, bufs, depth - 1, stop_round)
        if sub < 0:
            return -1
        total += sub
    return total

# ---------------------------------------------------------------------------
# Python-facing wrapper
# ---------------------------------------------------------------------------

cdef class NativeRules:
    """The rules as the native RuleSet struct, built once from a
    :class:`guandan.Rules` (``Rules.native``); the only place where rule
    options are turned into native values."""

    def __init__(self, rules):
        if not (rules.a_fail_limit is None or 1 <= rules.a_fail_limit <= 127) or \
                not (rules.max_rounds is None or 1 <= rules.max_rounds <= 32767):
            raise GuandanError("rules out of the native range")
        self.rules = rules
        self.r.a_win_second_only = rules.a_win_partner == "second"
        self.r.wild_sf = bool(rules.wild_straight_flush)
        self.r.equal_lead_banker_left = rules.equal_tribute_leader == "banker_left"
        self.r.a_fail_limit = rules.a_fail_limit or 0
        self.r.max_rounds = rules.max_rounds or 0
        rules_derive(&self.r)

    def __reduce__(self):
        return (NativeRules, (self.rules,))


cdef void _action_between(const State* a, const State* b, uint64_t* lo, uint64_t* hi) noexcept nogil:
    """The action that took state ``a`` to ``b`` as the trail notes it: a
    pass (0, 0), the play on top of ``b``, or, when it ended the round, the
    seat's whole hand (its type and key are not noted for a seat going out)."""
    cdef int seat = a.to_act
    lo[0] = 0
    hi[0] = 0
    if a.phase != PH_PLAY:
        return
    if b.round_index != a.round_index or b.phase != PH_PLAY:
        lo[0] = a.one[seat] | (<uint64_t>T_SINGLE << TAG_SHIFT)
        hi[0] = a.two[seat]
    elif a.one[seat] != b.one[seat] or a.two[seat] != b.two[seat]:
        lo[0] = b.top_lo
        hi[0] = b.top_hi


cdef class GameCore:
    """The native state plus an undo stack; :class:`guandan.Game` wraps it."""

    def __cinit__(self):
        self.stack = NULL
        self.nstack = 0
        self.trail_at = -1
        self.capstack = 0
        self.g = gen_new()
        self.scratch.data = NULL
        self.scratch.n = 0
        self.scratch.cap = 0
        self.trail = NULL
        self.trail_at = -1
        if self.g == NULL:
            raise MemoryError()
        memset(&self.st, 0, sizeof(State))
        self.st.phase = PH_OVER
        self.st.winner = -1

    def __dealloc__(self):
        free(self.stack)
        free(self.trail)
        gen_free(self.g)
        buf_free(&self.scratch)

    @staticmethod
    def new_game(uint64_t seed, NativeRules rules not None):
        cdef GameCore c = GameCore.__new__(GameCore)
        st_new_game(&c.st, seed, &rules.r)
        st_seed(c.prng, seed ^ _POLICY_SALT)
        return c

    def seed_policy(self, uint64_t seed):
        """Seed the RNG the built-in random policy draws from."""
        st_seed(self.prng, seed)

    def follows(self, NativeRules rules not None):
        """Whether this state plays under exactly ``rules`` (the state holds
        its own copy of its game's rules, which the engine follows)."""
        cdef const RuleSet* a = &self.st.rules
        cdef const RuleSet* b = &rules.r
        return (a.a_win_second_only == b.a_win_second_only and a.wild_sf == b.wild_sf
                and a.equal_lead_banker_left == b.equal_lead_banker_left
                and a.a_fail_limit == b.a_fail_limit and a.max_rounds == b.max_rounds
                and a.gen_flags == b.gen_flags and a.key_bits == b.key_bits)

    def copy(self, bint history=True):
        """A copy of the current state (with the undo history unless told not)."""
        cdef GameCore c = GameCore.__new__(GameCore)
        memcpy(&c.st, &self.st, sizeof(State))
        memcpy(c.prng, self.prng, sizeof(self.prng))
        if history and self.nstack:
            c.stack = <State*>malloc(self.nstack * sizeof(State))
            if c.stack == NULL:
                raise MemoryError()
            memcpy(c.stack, self.stack, self.nstack * sizeof(State))
            c.nstack = self.nstack
            c.capstack = self.nstack
        return c

    def trick_span(self):
        """``(k, continued)``: the current trick is the last ``k`` actions of
        the undo history, preceded by plays made before the history began when
        ``continued`` (a game loaded from a position mid-trick). ``(0, False)``
        when no trick is open."""
        cdef Py_ssize_t i
        if self.st.phase != PH_PLAY or self.st.top_seat < 0:
            return (0, False)
        for i in range(self.nstack - 1, -1, -1):
            if self.stack[i].phase == PH_PLAY and self.stack[i].top_seat < 0 \
                    and self.stack[i].round_index == self.st.round_index:
                return (self.nstack - i, False)
        return (self.nstack, True)

    def state_bytes(self):
        """The whole native state as bytes (exact comparisons, pickling)."""
        return (<char*>&self.st)[:sizeof(State)]

    def load_state_bytes(self, bytes data):
        cdef State st
        if len(data) != sizeof(State):
            raise GuandanError("state bytes of the wrong size")
        memcpy(&st, <char*>data, sizeof(State))
        if not st_valid(&st):
            raise GuandanError("state bytes out of range")
        memcpy(&self.st, &st, sizeof(State))

    # -- actions ----------------------------------------------------------------
    def legal(self):
        """The legal actions of the seat to act as a MoveList."""
        cdef MoveList ml = MoveList.__new__(MoveList)
        cdef int rc
        ml._level = self.st.rlevel
        # The GIL stays held: self.g is this object's one scratch generator, so
        # releasing it would let two threads sharing the object use it at once.
        rc = st_legal(&self.st, self.g, &ml.buf)
        if rc < 0:
            raise MemoryError()
        return ml

    def refusal(self, uint64_t lo, uint64_t hi):
        """The Refusal code of (lo, hi) now (0: legal)."""
        cdef int rc = st_refusal(&self.st, self.g, &self.scratch, lo, hi)
        if rc < 0:
            raise MemoryError()
        return rc

    def is_legal(self, uint64_t lo, uint64_t hi):
        cdef int rc = st_is_legal(&self.st, self.g, &self.scratch, lo, hi)
        if rc < 0:
            raise MemoryError()
        return rc == 1

    cdef int _push(self) except -1:
        cdef State* p
        cdef Py_ssize_t cap
        if self.nstack == self.capstack:
            cap = self.capstack * 2 if self.capstack else 64
            p = <State*>realloc(self.stack, cap * sizeof(State))
            if p == NULL:
                raise MemoryError()
            self.stack = p
            self.capstack = cap
        memcpy(&self.stack[self.nstack], &self.st, sizeof(State))
        self.nstack += 1
        return 0

    def apply(self, uint64_t lo, uint64_t hi, bint check=True):
        """Apply an action; with ``check`` it must be legal (else returns False
        and changes nothing). Returns True when applied."""
        if self.st.phase == PH_OVER:
            return False
        if check and not self.is_legal(lo, hi):
            return False
        if self.trail != NULL and self.trail_at == self.nstack:
            trail_note(self.trail, &self.st, lo, hi)
            self.trail_at = self.nstack + 1
        else:
            self.trail_at = -1
        self._push()
        st_apply(&self.st, lo, hi)
        return True

    cdef const Trail* _trail(self) noexcept:
        """The game's trail, from the undo history (rebuilt after an undo or
        a load; kept up by apply); NULL when out of memory."""
        cdef Py_ssize_t k
        cdef uint64_t lo, hi
        if self.trail == NULL:
            self.trail = <Trail*>malloc(sizeof(Trail))
            if self.trail == NULL:
                return NULL
            self.trail_at = -1
        if self.trail_at != self.nstack:
            trail_reset(self.trail)
            for k in range(self.nstack):
                _action_between(&self.stack[k], &self.stack[k + 1] if k + 1 < self.nstack else &self.st,
                                &lo, &hi)
                trail_note(self.trail, &self.stack[k], lo, hi)
            self.trail_at = self.nstack
        trail_sync(self.trail, &self.st)
        return self.trail

    def undo(self):
        """Restore the state before the last applied action."""
        if self.nstack == 0:
            raise GuandanError("nothing to undo")
        self.nstack -= 1
        self.trail_at = -1
        memcpy(&self.st, &self.stack[self.nstack], sizeof(State))

    def trail_info(self):
        """The game's trail as the searches read it: ``(valid, entries,
        opp, hit)`` - this round's actions ``(seat, type, key, top_seat,
        top_type, top_key, top_n, own_n, one, two)`` and per seat the
        chances and takings of each kind of evidence (EV_PASS, EV_BREAK,
        EV_BOMB, EV_OVERTAKE) over the finished rounds seen whole."""
        cdef const Trail* T = self._trail()
        cdef int k, s
        if T == NULL:
            raise MemoryError()
        ents = [(T.e[k].seat, T.e[k].t, T.e[k].key, T.e[k].top_seat, T.e[k].top_t, T.e[k].top_key,
                 T.e[k].top_n, T.e[k].own_n, T.e[k].one, T.e[k].two) for k in range(T.n)]
        return (bool(T.valid), ents, [[T.opp[s][k] for k in range(NEV)] for s in range(4)],
                [[T.hit[s][k] for k in range(NEV)] for s in range(4)])

    @property
    def history_len(self):
        return self.nstack

    def pick(self, policy):
        """(lo, hi) chosen by a native policy (its code, or built-in name)."""
        cdef Py_ssize_t i
        cdef int code = NATIVE_POLICY_CODES.get(policy, 0) if isinstance(policy, str) else policy
        if not policy_available(code):
            raise GuandanError(f"no native policy with code {code}")
        self.scratch.n = 0
        if st_legal(&self.st, self.g, &self.scratch) < 0:
            raise MemoryError()
        if self.scratch.n == 0:
            raise GuandanError("no legal action: the game is over")
        if POLICY_TABLE[code].flags & POLF_SEARCH:
            i = policy_choose_trail(code, &self.st, self._trail(), &self.scratch, self.prng)
        else:
            i = policy_choose(code, &self.st, &self.scratch, self.prng)
        if i < 0 or i >= self.scratch.n:
            raise GuandanError(f"native policy {code} made no choice")
        return (self.scratch.data[2 * i], self.scratch.data[2 * i + 1])

    def pick_play(self, int code):
        """(lo, hi) of policy ``code``'s play function here (the loops ask it
        before generating the legal list), or None when the policy has none,
        this is not the play phase, or it declines; the same move as
        :meth:`pick` must give."""
        cdef uint64_t lo = 0, hi = 0
        cdef int k
        if not policy_available(code):
            raise GuandanError(f"no native policy with code {code}")
        if self.st.phase != PH_PLAY:
            return None
        k = policy_play(code, &self.st, self.g, &self.scratch, &lo, &hi)
        if k < 0:
            raise MemoryError()
        return (lo, hi) if k == 1 else None

    def perft(self, int depth, int stop_round=-1):
        """Number of action sequences of length ``depth`` from here; with
        ``stop_round >= 0``, sequences that go past the end of that round
        are not counted (the end of the round is terminal)."""
        cdef MoveBuf* bufs
        cdef int64_t n
        cdef int i
        cdef State start
        cdef Gen* g
        if depth < 0 or depth > 64:
            raise GuandanError(f"perft depth must be 0..64, got {depth}")
        if depth == 0:
            return 1
        bufs = <MoveBuf*>malloc((depth + 1) * sizeof(MoveBuf))
        g = gen_new()
        if bufs == NULL or g == NULL:
            free(bufs)
            gen_free(g)
            raise MemoryError()
        memset(bufs, 0, (depth + 1) * sizeof(MoveBuf))
        # The GIL is released: work on a private copy of the state and a
        # private generator, so other threads may use this object meanwhile.
        memcpy(&start, &self.st, sizeof(State))
        with nogil:
            n = _perft(&start, g, bufs, depth, stop_round)
        for i in range(depth + 1):
            buf_free(&bufs[i])
        free(bufs)
        gen_free(g)
        if n < 0:
            raise MemoryError()
        return n

    # -- position setup -------------------------------------------------------
    def set_position(self, hands, int rlevel, levels, int owner, int to_act, uint64_t top_lo,
                     uint64_t top_hi, int top_seat, int passes, fin, int round_index, afail,
                     uint64_t seed, NativeRules rules not None):
        """Start from a play-phase position (validated by the caller:
        ``Game.from_position``); every value is range-checked again here so
        that nothing out of range ever reaches the state."""
        cdef int i
        cdef int8_t nf[4]
        if len(hands) != 4 or len(levels) != 2 or len(afail) != 2 or len(fin) > 4:
            raise GuandanError("set_position: wrong number of hands, levels, a_fails or finished seats")
        for i in range(4):
            if not isinstance(hands[i], Hand):
                raise GuandanError("set_position: a hand is a guandan.Hand")
        if not (0 <= rlevel <= 12 and 0 <= levels[0] <= 12 and 0 <= levels[1] <= 12
                and -1 <= owner <= 1 and 0 <= to_act <= 3 and -1 <= top_seat <= 3
                and 0 <= passes <= 3 and 0 <= round_index <= 32767
                and 0 <= afail[0] <= 127 and 0 <= afail[1] <= 127
                and all(0 <= x <= 3 for x in fin)
                and (top_seat >= 0) == (top_lo != 0)):
            raise GuandanError("set_position: a value is out of range")
        if top_lo != 0 and not words_shape_ok(top_lo, top_hi, rlevel):
            raise GuandanError("set_position: malformed top play")
        for i in range(len(fin)):
            nf[i] = fin[i]
        st_init_play(&self.st, &rules.r, rlevel, levels[0], levels[1], owner, to_act, top_lo, top_hi,
                     top_seat, passes, nf, len(fin))
        st_seed(self.st.deal_rng, seed)
        st_seed(self.prng, seed ^ _POLICY_SALT)
        for i in range(4):
            self.st.one[i] = (<Hand>hands[i]).one
            self.st.two[i] = (<Hand>hands[i]).two
        self.st.round_index = round_index
        self.st.afail[0] = afail[0]
        self.st.afail[1] = afail[1]
        self.nstack = 0
        self.trail_at = -1

    def start_round(self, uint64_t seed, levels, int owner, last_order,
                    NativeRules rules not None):
        """Start one round (validated by the caller: ``Game.from_deal``): team
        levels, the owner team whose level the round is played at, and the
        previous finishing order (None: no tribute, a random first leader)."""
        cdef int8_t order[4]
        cdef int i
        if len(levels) != 2 or not (0 <= levels[0] <= 12 and 0 <= levels[1] <= 12
                                    and 0 <= owner <= 1):
            raise GuandanError("start_round: a value is out of range")
        if last_order is not None:
            if sorted(last_order) != [0, 1, 2, 3] or (last_order[0] & 1) != owner:
                raise GuandanError("start_round: bad previous finishing order")
            for i in range(4):
                order[i] = last_order[i]
        st_new_round(&self.st, seed, levels[0], levels[1], owner,
                     order if last_order is not None else NULL, &rules.r)
        st_seed(self.prng, seed ^ _POLICY_SALT)
        self.nstack = 0
        self.trail_at = -1

    # -- read access ------------------------------------------------------------
    @property
    def phase(self):
        return self.st.phase

    @property
    def to_act(self):
        return self.st.to_act

    @property
    def rlevel(self):
        return self.st.rlevel

    @property
    def levels(self):
        return (self.st.level[0], self.st.level[1])

    @property
    def owner(self):
        return self.st.owner

    @property
    def round_index(self):
        return self.st.round_index

    @property
    def top(self):
        return (self.st.top_seat, self.st.top_lo, self.st.top_hi, self.st.passes)

    @property
    def fin(self):
        return [self.st.fin[i] for i in range(self.st.nfin)]

    @property
    def last_order(self):
        return [self.st.last_order[i] for i in range(4)] if self.st.last_order[0] >= 0 else None

    @property
    def last_delta(self):
        return self.st.last_delta

    @property
    def winner(self):
        return self.st.winner

    @property
    def afail(self):
        return (self.st.afail[0], self.st.afail[1])

    @property
    def decisions(self):
        return self.st.decisions

    @property
    def leader(self):
        return self.st.leader

    @property
    def first_leader(self):
        return self.st.first_leader

    @property
    def tribute(self):
        """(npay, payers, paid faces, receivers, returned faces, anti)."""
        n = self.st.tr.npay
        return (n, [self.st.tr.payer[i] for i in range(n)], [self.st.tr.paid[i] for i in range(n)],
                [self.st.tr.recv[i] for i in range(n)], [self.st.tr.returned[i] for i in range(n)],
                bool(self.st.tr.anti))

    def observation_tensor(self, int seat):
        """The OBS_DIM float32 observation of ``seat`` (obs_fill)."""
        cdef View v
        cdef float vo[OBS_DIM]
        memset(vo, 0, sizeof(vo))
        view_of(&self.st, seat & 3, &v)
        obs_fill(&v, vo)
        return np.frombuffer((<char*>vo)[:sizeof(vo)], dtype=np.float32).copy()

    def played(self):
        """The cards played so far this round (public), as a Hand."""
        cdef View v
        view_of(&self.st, 0, &v)
        return Hand.from_masks(v.pone, v.ptwo)

    @property
    def round_reward(self):
        """st_round_reward: the last round's reward for its banker's team."""
        return st_round_reward(&self.st)

    @property
    def last_won_a(self):
        return bool(self.st.last_won_a)

    def hand(self, int seat):
        return Hand.from_masks(self.st.one[seat & 3], self.st.two[seat & 3])

    def end_hand(self, int seat):
        return Hand.from_masks(self.st.end_one[seat & 3], self.st.end_two[seat & 3])

    def hand_size(self, int seat):
        return card_count(self.st.one[seat & 3], self.st.two[seat & 3])


def _choices(Hand hand, int level, bint tribute):
    cdef State st
    cdef MoveBuf b
    cdef int rc
    cdef Py_ssize_t i
    from ._core import FACE_STR
    if level < 0 or level > 12:
        raise LevelError(f"level index must be 0..12, got {level}")
    memset(&st, 0, sizeof(State))
    st.one[0] = hand.one
    st.two[0] = hand.two
    st.rlevel = level
    b.data = NULL
    b.n = 0
    b.cap = 0
    rc = tribute_choices(&st, 0, &b) if tribute else back_choices(&st, 0, &b)
    try:
        if rc < 0:
            raise MemoryError()
        return [FACE_STR[gd_ctz64(b.data[2 * i] & FACE_MASK)] for i in range(b.n)]
    finally:
        buf_free(&b)


def tribute_options(Hand hand, int level):
    """The cards a payer may give: the highest in level order, never a wild."""
    return _choices(hand, level, True)


def return_options(Hand hand, int level):
    """The cards a receiver may return: rank 2..10 and not a level card; if
    there is none, the lowest card in level order that is not a wild."""
    return _choices(hand, level, False)
