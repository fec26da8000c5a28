# cython: language_level=3
"""Bulk simulation: whole rounds and games with the built-in policies in a
native loop (no Python object per decision, GIL released), over the same
state machine as :class:`guandan.Game` (``_engine.pyx``)."""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset, memcpy

cimport cython
cimport numpy as cnp
import numpy as np

from guandan._core cimport MoveList
from guandan._gen cimport (
    Gen, gen_new, gen_free, MoveBuf, buf_reserve, buf_free, card_count, is_bomb_type, T_PASS, gd_ctz64,
    move_type, move_key, move_once, move_twice, FACE_MASK, mix_seed,
    beats,
)
from guandan._engine cimport (
    State, RuleSet, NativeRules, PH_TRIBUTE, PH_BACK, PH_PLAY, PH_OVER, st_seed, rng_next, rng_below,
    st_new_game, st_new_round, st_legal, st_apply, policy_choose, View, view_of, obs_fill, st_round_reward,
    OBS_DIM,
)
from guandan._engine import policy_available

cnp.import_array()

cdef extern from *:
    """
    #include <stdlib.h>
    #include <stdint.h>
    static inline uint64_t* realloc_u64(uint64_t* p, Py_ssize_t n) {
        return (uint64_t*)realloc(p, (size_t)n * sizeof(uint64_t));
    }
    """
    uint64_t* realloc_u64(uint64_t* p, Py_ssize_t n) noexcept nogil


cdef inline int push3(uint64_t** buf, Py_ssize_t* n, Py_ssize_t* cap, uint64_t a, uint64_t b,
                      uint64_t c) noexcept nogil:
    """Append (a, b, c) to a growable buffer; -1 when out of memory (the
    buffer is then left as it was, still owned by the caller)."""
    cdef uint64_t* p
    if n[0] + 3 > cap[0]:
        p = realloc_u64(buf[0], cap[0] * 2 + 1024)
        if p == NULL:
            return -1
        buf[0] = p
        cap[0] = cap[0] * 2 + 1024
    buf[0][n[0]] = a
    buf[0][n[0] + 1] = b
    buf[0][n[0] + 2] = c
    n[0] += 3
    return 0

DEAL_FIELDS = ("game", "round", "level", "order", "banker_team", "delta", "tribute", "anti",
               "decisions", "bombs", "game_over", "winner")
GAME_FIELDS = ("game", "rounds", "decisions", "bombs", "winner", "levels", "tributes",
               "anti_tributes")


cdef inline uint64_t _mix(uint64_t a, uint64_t b) noexcept nogil:
    return mix_seed(a, b)


CHECKS = {
    1: "a seat that is out, or not the seat to act, acted",
    2: "cards not conserved (hands + cards played this round != 108)",
    3: "a play does not beat the play on the table",
    4: "a play uses cards the seat does not hold",
    5: "the finishing order is not a permutation of the four seats",
    6: "the level change does not follow the partner's place",
    7: "a game lasted more than 1000 rounds",
    8: "the leader passed",
}


cdef int _check_step(State* a, State* z, uint64_t lo, uint64_t hi, int* played) noexcept nogil:
    """Invariants of one step from state a to state z (0: all hold)."""
    cdef int seat = a.to_act, t = move_type(lo), k, total, team, ppos = 0, i, seen = 0
    cdef int expect
    cdef uint64_t mo = move_once(lo), mt = move_twice(hi)
    if a.phase == PH_PLAY:
        if a.one[seat] == 0:
            return 1
        if t == T_PASS:
            if a.top_seat < 0:
                return 8
        else:
            if (mo & ~a.one[seat]) or (mt & ~a.two[seat]):
                return 4
            if a.top_seat >= 0 and not beats(lo, hi, a.top_lo, a.top_hi, a.rlevel):
                return 3
            played[0] += card_count(mo, mt)
    if z.round_index == a.round_index and z.phase != PH_OVER:
        total = played[0]
        for k in range(4):
            total += card_count(z.one[k], z.two[k])
        if total != 108:
            return 2
        return 0
    # the round ended with this step
    played[0] = 0
    for k in range(4):
        if z.last_order[k] < 0 or z.last_order[k] > 3:
            return 5
        seen |= 1 << z.last_order[k]
    if seen != 15:
        return 5
    team = z.last_order[0] & 1
    for i in range(1, 4):
        if z.last_order[i] == ((z.last_order[0] + 2) & 3):
            ppos = i
    expect = 4 - ppos
    if expect > 12 - a.level[team]:
        expect = 12 - a.level[team]
    if not (z.phase == PH_OVER and z.winner == team) and z.last_delta != expect:
        return 6
    if z.round_index > 1000:
        return 7
    if z.phase != PH_OVER:
        total = 0
        for k in range(4):
            total += card_count(z.one[k], z.two[k])
        if total != 108:
            return 2
    return 0


cdef inline Py_ssize_t _choose(State* st, MoveBuf* b, const int8_t* pol, uint64_t* prng) noexcept nogil:
    return policy_choose(pol[st.to_act], st, b, prng)


cdef enum:
    POL_PY_SEAT = 0    # policy code of a seat decided by a Python callback

PY_SEAT = POL_PY_SEAT


cdef Py_ssize_t _ask(object callback, Py_ssize_t game, const uint64_t* pend, Py_ssize_t pend_n,
                     MoveBuf* b, int level, list errors):
    """Ask the Python callback for a decision (-1 and the exception kept in
    ``errors`` when it fails)."""
    cdef Py_ssize_t k
    cdef MoveList ml = MoveList.__new__(MoveList)
    try:
        acts = np.empty(pend_n, dtype=np.uint64)
        for k in range(pend_n):
            acts[k] = pend[k]
        ml._level = level
        if buf_reserve(&ml.buf, b.n) < 0:
            raise MemoryError()
        memcpy(ml.buf.data, b.data, b.n * 16)
        ml.buf.n = b.n
        i = callback(game, acts.reshape(-1, 3), ml)
        if not 0 <= i < b.n:
            raise IndexError(f"callback answered {i} for {b.n} legal actions")
        return i
    except BaseException as e:
        errors.append(e)
        return -1


@cython.boundscheck(False)
@cython.wraparound(False)
def run_chunk(uint64_t seed, uint64_t policy_seed, Py_ssize_t n, int unit,
              policies_, NativeRules rules not None,
              Py_ssize_t record_games=0, bint check=False, object callback=None):
    """Simulate ``n`` deals (unit 0) or games (unit 1). Game ``k`` of the chunk
    is dealt from seed ``mix(seed, k)``; the random policy draws from one
    stream seeded with ``policy_seed``. Returns a dict of numpy arrays (one
    row per deal or game) and, for the first ``record_games`` games, their
    action words (to replay through :class:`guandan.Game`).

    With ``check``, every step is verified independently of the generator
    (see :func:`_check_step`); a violation raises ``AssertionError`` naming
    the game, the decision and the broken invariant.

    Seats with policy code ``PY_SEAT`` (0) are decided in Python: the loop
    calls ``callback(game, actions, legal)`` with the game's index in the
    chunk, the ``(k, 3)`` uint64 array ``[seat, lo, hi]`` of every action
    applied since the previous call (of this game, from its start when it is
    new), and the legal actions as a MoveList; it returns an index into
    ``legal``. The loop and its bookkeeping stay the same for every seat."""
    cdef Py_ssize_t rows = 0, i, game = 0, nrec = 0
    cdef State st
    cdef Gen* g = gen_new()
    cdef MoveBuf b
    cdef uint64_t prng[4]
    cdef int rc = 0, r0, k, t, lvl
    cdef int32_t dec = 0
    cdef int16_t bombs = 0
    cdef int8_t pol[4]
    cdef int32_t gdec = 0, gbombs = 0, gtrib = 0, ganti = 0
    cdef bint recording
    cdef State before
    cdef int bad = 0, played = 0
    cdef Py_ssize_t rec_n = 0, rec_cap = 0
    cdef uint64_t* rec = NULL
    cdef Py_ssize_t pend_n = 0, pend_cap = 0
    cdef uint64_t* pend = NULL           # actions since the last Python decision
    cdef bint asking = callback is not None
    errors = []
    if g == NULL:
        raise MemoryError()
    if (not isinstance(policies_, np.ndarray) or policies_.dtype != np.int8 or policies_.ndim != 1
            or policies_.shape[0] != 4):
        gen_free(g)
        raise ValueError("one policy code per seat (an int8 array of 4)")
    cdef int8_t policies[4]
    for k in range(4):
        policies[k] = policies_[k]
    for k in range(4):
        if not (policy_available(policies[k]) or (policies[k] == POL_PY_SEAT and callback is not None)):
            gen_free(g)
            raise ValueError(f"no native policy with code {policies[k]}")
        pol[k] = policies[k]
    b.data = NULL
    b.n = 0
    b.cap = 0
    if buf_reserve(&b, 1 << 15) < 0:
        gen_free(g)
        raise MemoryError()
    st_seed(prng, policy_seed)
    # outputs
    cdef cnp.ndarray a_game = np.zeros(n, dtype=np.int32)
    cdef cnp.ndarray a_round = np.zeros(n, dtype=np.int16)
    cdef cnp.ndarray a_level = np.zeros(n, dtype=np.int8)
    cdef cnp.ndarray a_order = np.zeros((n, 4), dtype=np.int8)
    cdef cnp.ndarray a_bteam = np.zeros(n, dtype=np.int8)
    cdef cnp.ndarray a_delta = np.zeros(n, dtype=np.int8)
    cdef cnp.ndarray a_trib = np.zeros(n, dtype=np.int8)
    cdef cnp.ndarray a_anti = np.zeros(n, dtype=np.int8)
    cdef cnp.ndarray a_dec = np.zeros(n, dtype=np.int32)
    cdef cnp.ndarray a_bombs = np.zeros(n, dtype=np.int32)
    cdef cnp.ndarray a_over = np.zeros(n, dtype=np.int8)
    cdef cnp.ndarray a_winner = np.full(n, -1, dtype=np.int8)
    cdef cnp.ndarray a_rounds = np.zeros(n, dtype=np.int16)
    cdef cnp.ndarray a_levels = np.zeros((n, 2), dtype=np.int8)
    cdef int32_t* v_game = <int32_t*>cnp.PyArray_DATA(a_game)
    cdef int16_t* v_round = <int16_t*>cnp.PyArray_DATA(a_round)
    cdef int8_t* v_level = <int8_t*>cnp.PyArray_DATA(a_level)
    cdef int8_t* v_order = <int8_t*>cnp.PyArray_DATA(a_order)
    cdef int8_t* v_bteam = <int8_t*>cnp.PyArray_DATA(a_bteam)
    cdef int8_t* v_delta = <int8_t*>cnp.PyArray_DATA(a_delta)
    cdef int8_t* v_trib = <int8_t*>cnp.PyArray_DATA(a_trib)
    cdef int8_t* v_anti = <int8_t*>cnp.PyArray_DATA(a_anti)
    cdef int32_t* v_dec = <int32_t*>cnp.PyArray_DATA(a_dec)
    cdef int32_t* v_bombs = <int32_t*>cnp.PyArray_DATA(a_bombs)
    cdef int8_t* v_over = <int8_t*>cnp.PyArray_DATA(a_over)
    cdef int8_t* v_winner = <int8_t*>cnp.PyArray_DATA(a_winner)
    cdef int16_t* v_rounds = <int16_t*>cnp.PyArray_DATA(a_rounds)
    cdef int8_t* v_levels = <int8_t*>cnp.PyArray_DATA(a_levels)
    recs = []
    with nogil:
        while rows < n and rc == 0:
            st_new_game(&st, _mix(seed, <uint64_t>game), &rules.r)
            recording = game < record_games
            rec_n = 0
            pend_n = 0
            gdec = 0
            gbombs = 0
            gtrib = 0
            ganti = 0
            while st.phase != PH_OVER and rows < n:
                # one round
                r0 = st.round_index
                lvl = st.rlevel
                dec = 0
                bombs = 0
                if st.tr.npay and not st.tr.anti:
                    gtrib += 1
                if st.tr.anti:
                    ganti += 1
                k = st.tr.npay if not st.tr.anti else 0
                t = st.tr.anti
                while st.round_index == r0 and st.phase != PH_OVER:
                    b.n = 0
                    if st_legal(&st, g, &b) < 0 or b.n == 0:
                        rc = -1
                        break
                    if pol[st.to_act] == POL_PY_SEAT:
                        with gil:
                            i = _ask(callback, game, pend, pend_n, &b, st.rlevel, errors)
                        pend_n = 0
                        if i < 0:
                            rc = -3
                            break
                    else:
                        i = _choose(&st, &b, pol, prng)
                    if i < 0 or i >= b.n:
                        rc = -1
                        break
                    if asking:
                        if push3(&pend, &pend_n, &pend_cap, st.to_act, b.data[2 * i], b.data[2 * i + 1]) < 0:
                            rc = -1
                            break
                    if recording:
                        if push3(&rec, &rec_n, &rec_cap, st.to_act, b.data[2 * i], b.data[2 * i + 1]) < 0:
                            rc = -1
                            break
                    if is_bomb_type(move_type(b.data[2 * i])):
                        bombs += 1
                    if check:
                        memcpy(&before, &st, sizeof(State))
                    st_apply(&st, b.data[2 * i], b.data[2 * i + 1])
                    dec += 1
                    if check:
                        bad = _check_step(&before, &st, b.data[2 * i], b.data[2 * i + 1], &played)
                        if bad:
                            rc = -2
                            break
                if rc != 0:
                    break
                gdec += dec
                gbombs += bombs
                if unit == 0:
                    v_game[rows] = <int32_t>game
                    v_round[rows] = <int16_t>r0
                    v_level[rows] = <int8_t>lvl
                    v_order[4 * rows + 0] = st.last_order[0]
                    v_order[4 * rows + 1] = st.last_order[1]
                    v_order[4 * rows + 2] = st.last_order[2]
                    v_order[4 * rows + 3] = st.last_order[3]
                    v_bteam[rows] = st.last_order[0] & 1
                    v_delta[rows] = st.last_delta
                    v_trib[rows] = <int8_t>k
                    v_anti[rows] = <int8_t>t
                    v_dec[rows] = dec
                    v_bombs[rows] = bombs
                    v_over[rows] = 1 if st.phase == PH_OVER else 0
                    v_winner[rows] = st.winner if st.phase == PH_OVER else -1
                    rows += 1
            if rc != 0:
                break
            if unit == 1:
                v_game[rows] = <int32_t>game
                v_rounds[rows] = st.round_index
                v_dec[rows] = gdec
                v_bombs[rows] = gbombs
                v_winner[rows] = st.winner
                v_levels[2 * rows + 0] = st.level[0]
                v_levels[2 * rows + 1] = st.level[1]
                v_trib[rows] = <int8_t>(gtrib if gtrib < 127 else 127)
                v_anti[rows] = <int8_t>(ganti if ganti < 127 else 127)
                rows += 1
            if recording:
                with gil:
                    arr = np.empty(rec_n, dtype=np.uint64)
                    for i in range(rec_n):
                        arr[i] = rec[i]
                    recs.append(arr.reshape(-1, 3))
            game += 1
    gen_free(g)
    free(rec)
    free(pend)
    buf_free(&b)
    if rc == -3:
        raise errors[0]
    if rc == -2:
        raise AssertionError(f"invariant {bad} ({CHECKS.get(bad, '?')}) broken in game {game}, "
                             f"round {st.round_index}, decision {st.decisions}")
    if rc != 0:
        raise MemoryError("simulation buffer allocation failed")
    if unit == 0:
        out = {"game": a_game, "round": a_round, "level": a_level, "order": a_order,
               "banker_team": a_bteam, "delta": a_delta, "tribute": a_trib, "anti": a_anti,
               "decisions": a_dec, "bombs": a_bombs, "game_over": a_over, "winner": a_winner}
    else:
        out = {"game": a_game, "rounds": a_rounds, "decisions": a_dec, "bombs": a_bombs,
               "winner": a_winner, "levels": a_levels, "tributes": a_trib,
               "anti_tributes": a_anti}
    return out, recs




@cython.boundscheck(False)
@cython.wraparound(False)
def run_setups(const uint64_t[::1] seeds, const uint64_t[::1] policy_seeds,
               const int8_t[:, ::1] levels, const int8_t[::1] owner,
               const int8_t[:, ::1] last_order, const int8_t[::1] policies, int unit,
               NativeRules rules not None, bint record=False):
    """Play each given start once with one native policy per seat: unit 0, the
    round started by ``st_new_round(seeds[i], levels[i], owner[i],
    last_order[i] or none when last_order[i, 0] < 0)``; unit 1, the whole game
    ``st_new_game(seeds[i])``. The policy RNG of start ``i`` is seeded with
    ``policy_seeds[i]`` exactly as ``GameCore.seed_policy`` seeds it, so these
    results equal a Python loop over ``Game.from_deal`` / ``Game(seed)`` with
    the same policy names and policy seeds. Returns a dict of numpy rows and, with ``record``,
    the ``(seat, lo, hi)`` words of every action of each start."""
    cdef Py_ssize_t n = seeds.shape[0], row, i
    cdef State st
    cdef Gen* g = gen_new()
    cdef MoveBuf b
    cdef uint64_t prng[4]
    cdef int rc = 0, r0, k, ppos, banker
    cdef int32_t dec
    cdef int32_t bombs
    cdef int8_t pol[4]
    cdef Py_ssize_t rec_n = 0, rec_cap = 0
    cdef uint64_t* rec = NULL
    if g == NULL:
        raise MemoryError()
    if policies.shape[0] != 4 or levels.shape[0] != n or owner.shape[0] != n \
            or policy_seeds.shape[0] != n \
            or last_order.shape[0] != n or levels.shape[1] != 2 or last_order.shape[1] != 4:
        gen_free(g)
        raise ValueError("run_setups: arrays of mismatched shapes")
    for k in range(4):
        if not policy_available(policies[k]):
            gen_free(g)
            raise ValueError(f"no native policy with code {policies[k]}")
        pol[k] = policies[k]
    for row in range(n):
        if not (0 <= levels[row, 0] <= 12 and 0 <= levels[row, 1] <= 12 and 0 <= owner[row] <= 1):
            gen_free(g)
            raise ValueError("run_setups: a level or owner out of range")
        if last_order[row, 0] >= 0:
            if sorted([last_order[row, k] for k in range(4)]) != [0, 1, 2, 3] \
                    or (last_order[row, 0] & 1) != owner[row]:
                gen_free(g)
                raise ValueError("run_setups: bad previous finishing order")
    b.data = NULL
    b.n = 0
    b.cap = 0
    if buf_reserve(&b, 1 << 15) < 0:
        gen_free(g)
        raise MemoryError()
    a_order = np.zeros((n, 4), dtype=np.int8)
    a_points = np.zeros(n, dtype=np.int8)
    a_trib = np.zeros(n, dtype=np.int8)
    a_anti = np.zeros(n, dtype=np.int8)
    a_dec = np.zeros(n, dtype=np.int32)
    a_bombs = np.zeros(n, dtype=np.int32)
    a_winner = np.full(n, -1, dtype=np.int8)
    a_rounds = np.zeros(n, dtype=np.int16)
    a_levels = np.zeros((n, 2), dtype=np.int8)
    cdef int8_t[:, ::1] v_order = a_order
    cdef int8_t[::1] v_points = a_points
    cdef int8_t[::1] v_trib = a_trib
    cdef int8_t[::1] v_anti = a_anti
    cdef int32_t[::1] v_dec = a_dec
    cdef int32_t[::1] v_bombs = a_bombs
    cdef int8_t[::1] v_winner = a_winner
    cdef int16_t[::1] v_rounds = a_rounds
    cdef int8_t[:, ::1] v_levels = a_levels
    recs = []
    with nogil:
        for row in range(n):
            if unit == 0:
                st_new_round(&st, seeds[row], levels[row, 0], levels[row, 1], owner[row],
                             &last_order[row, 0] if last_order[row, 0] >= 0 else NULL, &rules.r)
            else:
                st_new_game(&st, seeds[row], &rules.r)
            st_seed(prng, policy_seeds[row])
            v_trib[row] = st.tr.npay if not st.tr.anti else 0
            v_anti[row] = st.tr.anti
            r0 = st.round_index
            dec = 0
            bombs = 0
            rec_n = 0
            while st.phase != PH_OVER and (unit == 1 or st.round_index == r0):
                b.n = 0
                if st_legal(&st, g, &b) < 0 or b.n == 0:
                    rc = -1
                    break
                i = policy_choose(pol[st.to_act], &st, &b, prng)
                if i < 0 or i >= b.n:
                    rc = -1
                    break
                if record:
                    if push3(&rec, &rec_n, &rec_cap, st.to_act, b.data[2 * i], b.data[2 * i + 1]) < 0:
                        rc = -1
                        break
                if is_bomb_type(move_type(b.data[2 * i])):
                    bombs += 1
                st_apply(&st, b.data[2 * i], b.data[2 * i + 1])
                dec += 1
            if rc != 0:
                break
            for k in range(4):
                v_order[row, k] = st.last_order[k]
            banker = st.last_order[0]
            ppos = 3
            for k in range(1, 4):
                if st.last_order[k] == ((banker + 2) & 3):
                    ppos = k
            v_points[row] = 4 - ppos
            v_dec[row] = dec
            v_bombs[row] = bombs
            v_winner[row] = st.winner if st.phase == PH_OVER else -1
            v_rounds[row] = st.round_index
            v_levels[row, 0] = st.level[0]
            v_levels[row, 1] = st.level[1]
            if record:
                with gil:
                    arr = np.empty(rec_n, dtype=np.uint64)
                    for i in range(rec_n):
                        arr[i] = rec[i]
                    recs.append(arr.reshape(-1, 3))
    gen_free(g)
    free(rec)
    buf_free(&b)
    if rc != 0:
        raise MemoryError("simulation buffer allocation failed")
    out = {"order": a_order, "points": a_points, "tribute": a_trib, "anti": a_anti,
           "decisions": a_dec, "bombs": a_bombs, "winner": a_winner, "rounds": a_rounds,
           "levels": a_levels}
    return out, recs


def game_seed(uint64_t seed, uint64_t k):
    """The deal seed of game ``k`` of a chunk whose game seed is ``seed``."""
    return _mix(seed, k)
