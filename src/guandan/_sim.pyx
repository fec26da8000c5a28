# cython: language_level=3
"""Bulk simulation: whole rounds and games with the built-in policies in a
native loop (no Python object per decision, GIL released), over the same
state machine as :class:`guandan.Game` (``_engine.pyx``)."""

from libc.stdint cimport int8_t, int16_t, int32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

cimport cython
cimport numpy as cnp
import numpy as np

from guandan._core cimport MoveList, c_array
from guandan._gen cimport (
    Gen, gen_new, gen_free, MoveBuf, buf_reserve, buf_free, card_count, is_bomb_type, T_PASS,
    move_type, move_once, move_twice, mix_seed, beats,
)
from guandan._engine cimport (
    State, NativeRules, PH_PLAY, PH_OVER, st_seed, st_new_game, st_new_round, st_legal, st_apply,
    policy_choose, policy_choose_trail, policy_reads_trail, Trail, trail_reset, trail_sync, trail_note,
    policy_has_play, policy_play,
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
    buffer is then left as it was, still owned by its holder)."""
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


cdef enum:
    POL_PY_SEAT = 0    # policy code of a seat decided by a Python callback

PY_SEAT = POL_PY_SEAT


cdef Py_ssize_t _ask(object callback, Py_ssize_t game, const uint64_t* pend, Py_ssize_t pend_n,
                     MoveBuf* b, int level, list errors):
    """Ask the Python callback for a decision (-1 and the exception kept in
    ``errors`` when it fails)."""
    cdef MoveList ml = MoveList.__new__(MoveList)
    try:
        acts = _words(pend, pend_n)
        ml._level = level
        if buf_reserve(&ml.buf, b.n) < 0:
            raise MemoryError()
        memcpy(ml.buf.data, b.data, b.n * 16)
        ml.buf.n = b.n
        i = callback(game, acts, ml)
        if not 0 <= i < b.n:
            raise IndexError(f"callback answered {i} for {b.n} legal actions")
        return i
    except BaseException as e:
        errors.append(e)
        return -1


cdef object _words(const uint64_t* p, Py_ssize_t n):
    """A new ``(n / 3, 3)`` uint64 array of the action words ``[seat, lo, hi]``."""
    arr = np.empty(n, dtype=np.uint64)
    if n:
        memcpy(cnp.PyArray_DATA(arr), p, n * sizeof(uint64_t))
    return arr.reshape(-1, 3)


cdef enum:
    LOOP_OK = 0
    LOOP_FAILED = -1          # out of memory, no legal action, or a policy's answer out of range
    LOOP_BROKEN = -2          # an invariant broken (check mode): ``bad`` names it
    LOOP_RAISED = -3          # the Python callback raised: ``errors[0]``


@cython.final
@cython.auto_pickle(False)
cdef class _Loop:
    """The play loop of one simulation call and everything it owns: the
    generator scratch, the legal-action buffer, the policy RNG, the actions
    recorded for the caller and those pending for the Python seats. Freed
    with the object, so every exit of ``run_chunk`` and ``run_setups``
    gives its buffers back."""
    cdef Gen* g
    cdef MoveBuf b
    cdef uint64_t prng[4]
    cdef int16_t pol[4]
    cdef uint64_t* rec                # the actions of the game being recorded
    cdef Py_ssize_t rec_n, rec_cap
    cdef uint64_t* pend               # the actions since the last Python decision
    cdef Py_ssize_t pend_n, pend_cap
    cdef bint recording               # record this game's actions
    cdef bint asking                  # some seat is decided by ``callback``
    cdef bint check                   # verify every step (_check_step)
    cdef int bad, played              # check mode: the broken invariant, cards played this round
    cdef int32_t dec, bombs           # decisions and bombs since the caller last reset them
    cdef Py_ssize_t game              # the game's index, as the callback is told
    cdef object callback
    cdef list errors
    cdef Trail* trail                 # the game's trail, when a seat's policy reads it (else NULL)

    def __cinit__(self, policies, object callback=None, bint check=False):
        cdef int k
        self.g = NULL
        self.trail = NULL
        self.b.data = NULL
        self.b.n = 0
        self.b.cap = 0
        self.rec = NULL
        self.rec_n = 0
        self.rec_cap = 0
        self.pend = NULL
        self.pend_n = 0
        self.pend_cap = 0
        self.recording = False
        self.bad = 0
        self.played = 0
        self.dec = 0
        self.bombs = 0
        self.game = 0
        self.callback = callback
        self.asking = callback is not None
        self.check = check
        self.errors = []
        for k in range(4):
            if not (policy_available(policies[k]) or (policies[k] == POL_PY_SEAT and self.asking)):
                raise ValueError(f"no native policy with code {policies[k]}")
            self.pol[k] = policies[k]
        self.g = gen_new()
        if self.g == NULL or buf_reserve(&self.b, 1 << 15) < 0:
            raise MemoryError()
        for k in range(4):
            if self.trail == NULL and policy_reads_trail(self.pol[k]):
                self.trail = <Trail*>malloc(sizeof(Trail))
                if self.trail == NULL:
                    raise MemoryError()
                trail_reset(self.trail)

    def __dealloc__(self):
        gen_free(self.g)
        buf_free(&self.b)
        free(self.rec)
        free(self.pend)
        free(self.trail)

    cdef void new_game(self, Py_ssize_t game, bint recording) noexcept nogil:
        """Start the bookkeeping of a new game (its recorded and pending actions)."""
        self.game = game
        self.recording = recording
        self.rec_n = 0
        self.pend_n = 0
        if self.trail != NULL:
            trail_reset(self.trail)

    cdef int play_round(self, State* st) noexcept nogil:
        """Play the decisions of ``st`` until its round ends (or the game),
        counting them in ``dec`` and the bombs in ``bombs``. LOOP_OK, or
        why it stopped. A policy with a play function (the expert's and
        its styles') decides its plays without the whole legal list where
        it can: the same move."""
        cdef Py_ssize_t i
        cdef int r0 = st.round_index, k
        cdef MoveBuf* b = &self.b
        cdef State before
        cdef uint64_t lo, hi
        while st.round_index == r0 and st.phase != PH_OVER:
            k = 0
            if self.trail != NULL and self.pol[st.to_act] != POL_PY_SEAT:
                trail_sync(self.trail, st)
            if st.phase == PH_PLAY and policy_has_play(self.pol[st.to_act]):
                k = policy_play(self.pol[st.to_act], st, self.g, b, &lo, &hi)
                if k < 0:
                    return LOOP_FAILED
            if k == 0:
                b.n = 0
                if st_legal(st, self.g, b) < 0 or b.n == 0:
                    return LOOP_FAILED
                if self.pol[st.to_act] == POL_PY_SEAT:
                    with gil:
                        i = _ask(self.callback, self.game, self.pend, self.pend_n, b, st.rlevel, self.errors)
                    self.pend_n = 0
                    if i < 0:
                        return LOOP_RAISED
                elif self.trail != NULL:
                    i = policy_choose_trail(self.pol[st.to_act], st, self.trail, b, self.prng)
                else:
                    i = policy_choose(self.pol[st.to_act], st, b, self.prng)
                if i < 0 or i >= b.n:
                    return LOOP_FAILED
                lo = b.data[2 * i]
                hi = b.data[2 * i + 1]
            if self.trail != NULL:
                trail_note(self.trail, st, lo, hi)
            if self.asking:
                if push3(&self.pend, &self.pend_n, &self.pend_cap, st.to_act, lo, hi) < 0:
                    return LOOP_FAILED
            if self.recording:
                if push3(&self.rec, &self.rec_n, &self.rec_cap, st.to_act, lo, hi) < 0:
                    return LOOP_FAILED
            if is_bomb_type(move_type(lo)):
                self.bombs += 1
            if self.check:
                memcpy(&before, st, sizeof(State))
            st_apply(st, lo, hi)
            self.dec += 1
            if self.check:
                self.bad = _check_step(&before, st, lo, hi, &self.played)
                if self.bad:
                    return LOOP_BROKEN
        return LOOP_OK

    cdef object record(self):
        """The recorded actions of the game as a ``(k, 3)`` uint64 array ``[seat, lo, hi]``."""
        return _words(self.rec, self.rec_n)

    cdef object failure(self, int rc, State* st):
        """The exception for a loop that stopped with ``rc`` at ``st``."""
        if rc == LOOP_RAISED:
            return self.errors[0]
        if rc == LOOP_BROKEN:
            return AssertionError(f"invariant {self.bad} ({CHECKS.get(self.bad, '?')}) broken in game "
                                  f"{self.game}, round {st.round_index}, decision {st.decisions}")
        return MemoryError("simulation buffer allocation failed")


cdef object _policy_codes(policies):
    if (not isinstance(policies, np.ndarray) or policies.dtype != np.int16 or policies.ndim != 1
            or policies.shape[0] != 4):
        raise ValueError("one policy code per seat (an int16 array of 4)")
    return [int(policies[k]) for k in range(4)]


cdef inline void* _data(cnp.ndarray a) noexcept:
    return cnp.PyArray_DATA(a)


@cython.boundscheck(False)
@cython.wraparound(False)
def run_chunk(uint64_t seed, uint64_t policy_seed, Py_ssize_t n, int unit,
              policies, NativeRules rules not None,
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
    cdef _Loop loop = _Loop(_policy_codes(policies), callback, check)
    cdef Py_ssize_t rows = 0, game = 0
    cdef State st
    cdef int rc = LOOP_OK, r0, k, t, lvl
    cdef int32_t gdec = 0, gbombs = 0, gtrib = 0, ganti = 0
    st_seed(loop.prng, policy_seed)
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
    cdef int32_t* v_game = <int32_t*>_data(a_game)
    cdef int16_t* v_round = <int16_t*>_data(a_round)
    cdef int8_t* v_level = <int8_t*>_data(a_level)
    cdef int8_t* v_order = <int8_t*>_data(a_order)
    cdef int8_t* v_bteam = <int8_t*>_data(a_bteam)
    cdef int8_t* v_delta = <int8_t*>_data(a_delta)
    cdef int8_t* v_trib = <int8_t*>_data(a_trib)
    cdef int8_t* v_anti = <int8_t*>_data(a_anti)
    cdef int32_t* v_dec = <int32_t*>_data(a_dec)
    cdef int32_t* v_bombs = <int32_t*>_data(a_bombs)
    cdef int8_t* v_over = <int8_t*>_data(a_over)
    cdef int8_t* v_winner = <int8_t*>_data(a_winner)
    cdef int16_t* v_rounds = <int16_t*>_data(a_rounds)
    cdef int8_t* v_levels = <int8_t*>_data(a_levels)
    recs = []
    with nogil:
        while rows < n and rc == LOOP_OK:
            st_new_game(&st, _mix(seed, <uint64_t>game), &rules.r)
            loop.new_game(game, game < record_games)
            gdec = 0
            gbombs = 0
            gtrib = 0
            ganti = 0
            while st.phase != PH_OVER and rows < n:
                # one round
                r0 = st.round_index
                lvl = st.rlevel
                loop.dec = 0
                loop.bombs = 0
                if st.tr.npay and not st.tr.anti:
                    gtrib += 1
                if st.tr.anti:
                    ganti += 1
                k = st.tr.npay if not st.tr.anti else 0
                t = st.tr.anti
                rc = loop.play_round(&st)
                if rc != LOOP_OK:
                    break
                gdec += loop.dec
                gbombs += loop.bombs
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
                    v_dec[rows] = loop.dec
                    v_bombs[rows] = loop.bombs
                    v_over[rows] = 1 if st.phase == PH_OVER else 0
                    v_winner[rows] = st.winner if st.phase == PH_OVER else -1
                    rows += 1
            if rc != LOOP_OK:
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
            if loop.recording:
                with gil:
                    recs.append(loop.record())
            game += 1
    if rc != LOOP_OK:
        raise loop.failure(rc, &st)
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
def run_setups(seeds, policy_seeds, levels, owner, last_order, policies, int unit,
               NativeRules rules not None, bint record=False):
    """Play each given start once with one native policy per seat: unit 0, the
    round started by ``st_new_round(seeds[i], levels[i], owner[i],
    last_order[i] or none when last_order[i, 0] < 0)``; unit 1, the whole game
    ``st_new_game(seeds[i])``. The policy RNG of start ``i`` is seeded with
    ``policy_seeds[i]`` exactly as ``GameCore.seed_policy`` seeds it, so these
    results equal a Python loop over ``Game.from_deal`` / ``Game(seed)`` with
    the same policy names and policy seeds. Arrays: ``seeds`` and
    ``policy_seeds`` uint64 (n,), ``levels`` int8 (n, 2), ``owner`` int8 (n,),
    ``last_order`` int8 (n, 4), ``policies`` int16 (4,), all C-contiguous.
    Returns a dict of numpy rows and, with ``record``, the ``(seat, lo, hi)``
    words of every action of each start."""
    seeds = c_array(seeds, np.uint64, 1, 0, "seeds")
    policy_seeds = c_array(policy_seeds, np.uint64, 1, 0, "policy_seeds")
    levels = c_array(levels, np.int8, 2, 2, "levels")
    owner = c_array(owner, np.int8, 1, 0, "owner")
    last_order = c_array(last_order, np.int8, 2, 4, "last_order")
    policies = c_array(policies, np.int16, 1, 0, "policies")
    cdef Py_ssize_t n = seeds.shape[0], row
    if policies.shape[0] != 4 or levels.shape[0] != n or owner.shape[0] != n \
            or policy_seeds.shape[0] != n or last_order.shape[0] != n:
        raise ValueError("run_setups: arrays of mismatched shapes")
    cdef const uint64_t* p_seeds = <const uint64_t*>_data(seeds)
    cdef const uint64_t* p_policy_seeds = <const uint64_t*>_data(policy_seeds)
    cdef const int8_t* p_levels = <const int8_t*>_data(levels)
    cdef const int8_t* p_owner = <const int8_t*>_data(owner)
    cdef const int8_t* p_last_order = <const int8_t*>_data(last_order)
    cdef _Loop loop = _Loop([int(policies[k]) for k in range(4)])
    cdef State st
    cdef int rc = LOOP_OK, k, ppos, banker
    for row in range(n):
        if not (0 <= p_levels[2 * row] <= 12 and 0 <= p_levels[2 * row + 1] <= 12 and 0 <= p_owner[row] <= 1):
            raise ValueError("run_setups: a level or owner out of range")
        if p_last_order[4 * row] >= 0:
            if sorted([p_last_order[4 * row + k] for k in range(4)]) != [0, 1, 2, 3] \
                    or (p_last_order[4 * row] & 1) != p_owner[row]:
                raise ValueError("run_setups: bad previous finishing order")
    cdef cnp.ndarray a_order = np.zeros((n, 4), dtype=np.int8)
    cdef cnp.ndarray a_points = np.zeros(n, dtype=np.int8)
    cdef cnp.ndarray a_trib = np.zeros(n, dtype=np.int8)
    cdef cnp.ndarray a_anti = np.zeros(n, dtype=np.int8)
    cdef cnp.ndarray a_dec = np.zeros(n, dtype=np.int32)
    cdef cnp.ndarray a_bombs = np.zeros(n, dtype=np.int32)
    cdef cnp.ndarray a_winner = np.full(n, -1, dtype=np.int8)
    cdef cnp.ndarray a_rounds = np.zeros(n, dtype=np.int16)
    cdef cnp.ndarray a_levels = np.zeros((n, 2), dtype=np.int8)
    cdef int8_t* v_order = <int8_t*>_data(a_order)
    cdef int8_t* v_points = <int8_t*>_data(a_points)
    cdef int8_t* v_trib = <int8_t*>_data(a_trib)
    cdef int8_t* v_anti = <int8_t*>_data(a_anti)
    cdef int32_t* v_dec = <int32_t*>_data(a_dec)
    cdef int32_t* v_bombs = <int32_t*>_data(a_bombs)
    cdef int8_t* v_winner = <int8_t*>_data(a_winner)
    cdef int16_t* v_rounds = <int16_t*>_data(a_rounds)
    cdef int8_t* v_levels = <int8_t*>_data(a_levels)
    recs = []
    with nogil:
        for row in range(n):
            if unit == 0:
                st_new_round(&st, p_seeds[row], p_levels[2 * row], p_levels[2 * row + 1], p_owner[row],
                             &p_last_order[4 * row] if p_last_order[4 * row] >= 0 else NULL, &rules.r)
            else:
                st_new_game(&st, p_seeds[row], &rules.r)
            st_seed(loop.prng, p_policy_seeds[row])
            loop.new_game(row, record)
            v_trib[row] = st.tr.npay if not st.tr.anti else 0
            v_anti[row] = st.tr.anti
            loop.dec = 0
            loop.bombs = 0
            rc = loop.play_round(&st)
            while rc == LOOP_OK and unit == 1 and st.phase != PH_OVER:
                rc = loop.play_round(&st)
            if rc != LOOP_OK:
                break
            for k in range(4):
                v_order[4 * row + k] = st.last_order[k]
            banker = st.last_order[0]
            ppos = 3
            for k in range(1, 4):
                if st.last_order[k] == ((banker + 2) & 3):
                    ppos = k
            v_points[row] = 4 - ppos
            v_dec[row] = loop.dec
            v_bombs[row] = loop.bombs
            v_winner[row] = st.winner if st.phase == PH_OVER else -1
            v_rounds[row] = st.round_index
            v_levels[2 * row + 0] = st.level[0]
            v_levels[2 * row + 1] = st.level[1]
            if record:
                with gil:
                    recs.append(loop.record())
    if rc != LOOP_OK:
        raise loop.failure(rc, &st)
    out = {"order": a_order, "points": a_points, "tribute": a_trib, "anti": a_anti,
           "decisions": a_dec, "bombs": a_bombs, "winner": a_winner, "rounds": a_rounds,
           "levels": a_levels}
    return out, recs


def game_seed(uint64_t seed, uint64_t k):
    """The deal seed of game ``k`` of a chunk whose game seed is ``seed``."""
    return _mix(seed, k)
