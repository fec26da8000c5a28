# cython: language_level=3
"""Bulk simulation: whole rounds and games with the built-in policies in a
native loop (no Python object per decision, GIL released), over the same
state machine as :class:`guandan.Game` (``_engine.pyx``)."""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset

cimport cython
cimport numpy as cnp
import numpy as np

from guandan._core cimport (
    Gen, MoveBuf, buf_reserve, buf_free, card_count, is_bomb_type, TAG_SHIFT, T_PASS,
)
from guandan._engine cimport (
    State, PH_TRIBUTE, PH_BACK, PH_PLAY, PH_OVER, st_seed, rng_next, rng_below,
    st_new_game, st_legal, st_apply, policy_greedy,
)

cnp.import_array()

cdef extern from *:
    """
    #include <stdlib.h>
    static inline unsigned long long* realloc_u64(unsigned long long* p, Py_ssize_t n) {
        return (unsigned long long*)realloc(p, (size_t)n * sizeof(unsigned long long));
    }
    """
    uint64_t* realloc_u64(uint64_t* p, Py_ssize_t n) noexcept nogil


cdef enum:
    POL_RANDOM = 1
    POL_GREEDY = 2

DEAL_FIELDS = ("game", "round", "level", "order", "banker_team", "delta", "tribute", "anti",
               "decisions", "bombs", "game_over", "winner")
GAME_FIELDS = ("game", "rounds", "decisions", "bombs", "winner", "levels", "tributes",
               "anti_tributes")


cdef inline uint64_t _mix(uint64_t a, uint64_t b) noexcept nogil:
    """A per-game seed from a chunk seed and the game number (splitmix64)."""
    cdef uint64_t z = a + (b + 1) * <uint64_t>0x9E3779B97F4A7C15
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline Py_ssize_t _choose(State* st, MoveBuf* b, const int8_t* pol, uint64_t* prng) noexcept nogil:
    if pol[st.to_act] == POL_GREEDY:
        return policy_greedy(st, b)
    return <Py_ssize_t>rng_below(prng, b.n)


@cython.boundscheck(False)
@cython.wraparound(False)
def run_chunk(uint64_t seed, uint64_t policy_seed, Py_ssize_t n, int unit,
              const int8_t[::1] policies, int rflags=0, int a_fail_limit=0, int max_rounds=0,
              Py_ssize_t record_games=0):
    """Simulate ``n`` deals (unit 0) or games (unit 1). Game ``k`` of the chunk
    is dealt from seed ``mix(seed, k)``; the random policy draws from one
    stream seeded with ``policy_seed``. Returns a dict of numpy arrays (one
    row per deal or game) and, for the first ``record_games`` games, their
    action words (to replay through :class:`guandan.Game`)."""
    cdef Py_ssize_t rows = 0, i, game = 0, nrec = 0
    cdef State st
    cdef Gen* g = <Gen*>malloc(sizeof(Gen))
    cdef MoveBuf b
    cdef uint64_t prng[4]
    cdef int rc = 0, r0, k, t, lvl
    cdef int32_t dec = 0
    cdef int16_t bombs = 0
    cdef int8_t pol[4]
    cdef int32_t gdec = 0, gbombs = 0, gtrib = 0, ganti = 0
    cdef bint recording
    cdef Py_ssize_t rec_n = 0, rec_cap = 0
    cdef uint64_t* rec = NULL
    if g == NULL:
        raise MemoryError()
    if policies.shape[0] != 4:
        free(g)
        raise ValueError("one policy code per seat")
    for k in range(4):
        pol[k] = policies[k]
    b.data = NULL
    b.n = 0
    b.cap = 0
    if buf_reserve(&b, 1 << 15) < 0:
        free(g)
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
    cdef int32_t[::1] v_game = a_game
    cdef int16_t[::1] v_round = a_round
    cdef int8_t[::1] v_level = a_level
    cdef int8_t[:, ::1] v_order = a_order
    cdef int8_t[::1] v_bteam = a_bteam
    cdef int8_t[::1] v_delta = a_delta
    cdef int8_t[::1] v_trib = a_trib
    cdef int8_t[::1] v_anti = a_anti
    cdef int32_t[::1] v_dec = a_dec
    cdef int32_t[::1] v_bombs = a_bombs
    cdef int8_t[::1] v_over = a_over
    cdef int8_t[::1] v_winner = a_winner
    cdef int16_t[::1] v_rounds = a_rounds
    cdef int8_t[:, ::1] v_levels = a_levels
    recs = []
    with nogil:
        while rows < n and rc == 0:
            st_new_game(&st, _mix(seed, <uint64_t>game), <uint8_t>rflags, a_fail_limit, max_rounds)
            recording = game < record_games
            rec_n = 0
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
                if st.npay and not st.anti:
                    gtrib += 1
                if st.anti:
                    ganti += 1
                k = st.npay if not st.anti else 0
                t = st.anti
                while st.round_index == r0 and st.phase != PH_OVER:
                    b.n = 0
                    if st_legal(&st, g, &b) < 0 or b.n == 0:
                        rc = -1
                        break
                    i = _choose(&st, &b, pol, prng)
                    if recording:
                        if rec_n + 3 > rec_cap:
                            rec_cap = rec_cap * 2 + 1024
                            rec = <uint64_t*>realloc_u64(rec, rec_cap)
                            if rec == NULL:
                                rc = -1
                                break
                        rec[rec_n] = st.to_act
                        rec[rec_n + 1] = b.data[2 * i]
                        rec[rec_n + 2] = b.data[2 * i + 1]
                        rec_n += 3
                    if is_bomb_type((b.data[2 * i] >> TAG_SHIFT) & 15):
                        bombs += 1
                    st_apply(&st, b.data[2 * i], b.data[2 * i + 1])
                    dec += 1
                if rc != 0:
                    break
                gdec += dec
                gbombs += bombs
                if unit == 0:
                    v_game[rows] = <int32_t>game
                    v_round[rows] = <int16_t>r0
                    v_level[rows] = <int8_t>lvl
                    v_order[rows, 0] = st.last_order[0]
                    v_order[rows, 1] = st.last_order[1]
                    v_order[rows, 2] = st.last_order[2]
                    v_order[rows, 3] = st.last_order[3]
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
                v_levels[rows, 0] = st.level[0]
                v_levels[rows, 1] = st.level[1]
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
    free(g)
    free(rec)
    buf_free(&b)
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




def game_seed(uint64_t seed, uint64_t k):
    """The deal seed of game ``k`` of a chunk whose game seed is ``seed``."""
    return _mix(seed, k)
