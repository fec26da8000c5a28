# cython: language_level=3
"""The RL core: ``n`` games stepped together with numpy in and out
(:class:`guandan.VecGame` wraps it), over the same state machine as
:class:`guandan.Game` (``_engine.pyx``)."""

from libc.stdint cimport int8_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

cimport numpy as cnp
import numpy as np

from guandan._gen cimport (
    Gen, gen_new, gen_free, MoveBuf, buf_free, mix_seed, FACE_MASK, card_count, gd_ctz64, move_type, move_key,
)
from guandan._engine cimport (
    State, RuleSet, NativeRules, PH_OVER, PH_PLAY, st_new_game, st_legal, st_apply, View, view_of,
    obs_fill, st_round_reward, OBS_DIM, policy_choose, policy_rollout_ok, st_seed, policy_salt, policy_add,
)
from guandan._gen cimport buf_reserve

from guandan._expert cimport SPLIT_DIM, split_fill

cnp.import_array()

# -- the encodings (guandan.vec, docs/rl.md, docs/rl-encoding.md) ------------------

cdef enum:
    MOVE_DIM = 68              # move features: 54 card counts, 13 type one-hot, 1 key
    GD_DIM = OBS_DIM + MOVE_DIM + SPLIT_DIM    # 309: the "guandan" row (split features: _expert)
    DZ_STATE = 501             # DanZero's state vector
    DZ_ACTION = 54             # DanZero's action vector
    DZ_DIM = DZ_STATE + DZ_ACTION  # 555: the "danzero" row
    DZ_NONE = 0                # an entry of DanZero's action sequence: a pass, a skipped seat (zeros)
    DZ_CARDS = 1               # a play (its card counts)
    DZ_OUT = 2                 # the marker of a seat that has gone out (all -1)

cdef enum:
    ENC_GD = 0                 # encoding codes of VecCore.encode
    ENC_DZ = 1

ENCODINGS = {"guandan": (ENC_GD, GD_DIM), "danzero": (ENC_DZ, DZ_DIM)}

# DanZero's action sequence (docs/rl-encoding.md, "The action sequence"),
# kept as the newest entry of each seat and the seat of the newest entry of
# the whole sequence (it is always that seat's newest entry), plus the cards
# each seat played and the finishing order the bookkeeping follows.
ctypedef struct DzSeq:
    int8_t seat                # the observing seat (-1: every seat, the sequence of a whole round)
    int8_t stage               # 0 before the observer's first turn, 1, 2, 3 (see dz_feed)
    int8_t last                # seat of the newest entry (-1: the sequence is empty)
    int8_t kind[4]             # each seat's newest entry: DZ_NONE, DZ_CARDS, DZ_OUT
    uint64_t lo[4]             # its cards (faces once, twice)
    uint64_t hi[4]
    uint64_t pone[4]           # cards each seat played (faces once, twice)
    uint64_t ptwo[4]
    int8_t left[4]             # cards left per seat
    int8_t out[4]              # seats gone out, in order
    int8_t nout


cdef void dz_init(DzSeq* q, int seat, const int8_t* left, const int8_t* out, int nout) noexcept nogil:
    """An empty sequence: ``left`` cards per seat, ``out[:nout]`` already out."""
    cdef int s
    q.seat = <int8_t>seat
    q.last = -1
    for s in range(4):
        q.kind[s] = DZ_NONE
        q.lo[s] = 0
        q.hi[s] = 0
        q.pone[s] = 0
        q.ptwo[s] = 0
        q.left[s] = left[s]
        q.out[s] = -1
    if nout > 4:
        nout = 4
    q.nout = <int8_t>nout
    for s in range(nout):
        q.out[s] = out[s]
    if nout == 0:
        q.stage = 0 if seat >= 0 else 1
    elif nout == 1:
        q.stage = 2
    else:
        q.stage = 3


cdef inline void dz_add(DzSeq* q, int s, int kind, uint64_t lo, uint64_t hi) noexcept nogil:
    q.kind[s] = <int8_t>kind
    q.lo[s] = lo
    q.hi[s] = hi
    q.last = <int8_t>s


cdef inline bint dz_is_out(const DzSeq* q, int s) noexcept nogil:
    cdef int k
    for k in range(q.nout):
        if q.out[k] == s:
            return True
    return False


cdef void dz_feed(DzSeq* q, int s, uint64_t lo, uint64_t hi) noexcept nogil:
    """Seat ``s`` plays the cards of move words ``lo, hi`` (none: a pass):
    the entries DanZero's client appends for it, markers of out seats and
    empty entries of skipped seats included."""
    lo &= FACE_MASK
    hi &= FACE_MASK
    cdef bint played = lo != 0
    cdef int kind = DZ_CARDS if played else DZ_NONE
    cdef int first, before, nxt, nxt2
    if s == q.seat and q.stage == 0:
        q.stage = 1                             # the observer's first decision precedes its play
    if q.nout == 0:
        dz_add(q, s, kind, lo, hi)
    elif q.nout == 1:
        first = q.out[0]
        before = (first + 3) & 3
        if q.stage == 1 and played:
            q.stage = 2
            dz_add(q, s, kind, lo, hi)
            if s == before:
                dz_add(q, first, DZ_OUT, 0, 0)
        elif q.stage == 1 and s == before:
            # everybody passed on the out seat's last play: its partner leads, the seat after it is skipped
            q.stage = 2
            dz_add(q, s, kind, lo, hi)
            dz_add(q, first, DZ_OUT, 0, 0)
            dz_add(q, (s + 2) & 3, DZ_NONE, 0, 0)
        elif q.stage == 2 and s == before:
            dz_add(q, s, kind, lo, hi)
            dz_add(q, first, DZ_OUT, 0, 0)
        else:
            dz_add(q, s, kind, lo, hi)
    elif q.nout == 2:
        nxt = (s + 1) & 3
        nxt2 = (s + 2) & 3
        if q.stage <= 2 and played:
            q.stage = 3
            dz_add(q, s, kind, lo, hi)
            if dz_is_out(q, nxt):
                dz_add(q, nxt, DZ_OUT, 0, 0)
                dz_add(q, nxt2, DZ_OUT, 0, 0)
        elif q.stage <= 2 and dz_is_out(q, nxt):
            # both seats left passed on the second out seat's last play
            q.stage = 3
            dz_add(q, s, kind, lo, hi)
            dz_add(q, nxt, DZ_OUT, 0, 0)
            dz_add(q, nxt2, DZ_OUT, 0, 0)
            if s == ((q.out[1] + 2) & 3):
                dz_add(q, (s + 3) & 3, DZ_NONE, 0, 0)
        elif q.stage == 3 and dz_is_out(q, nxt):
            dz_add(q, s, kind, lo, hi)
            dz_add(q, nxt, DZ_OUT, 0, 0)
            dz_add(q, nxt2, DZ_OUT, 0, 0)
        else:
            dz_add(q, s, kind, lo, hi)
    # with three seats out the round is over: nothing is recorded
    q.ptwo[s] |= (q.pone[s] & lo) | hi
    q.pone[s] |= lo
    q.left[s] -= <int8_t>card_count(lo, hi)
    if q.left[s] == 0 and q.nout < 4 and not dz_is_out(q, s):
        q.out[q.nout] = <int8_t>s
        q.nout += 1


cdef inline int dz_index(int f) noexcept nogil:
    """DanZero's vector index of engine face ``f``: the same rank-major
    layout with the suits S, H swapped (DanZero orders H S C D)."""
    return f ^ 1 if f < 52 and (f & 3) < 2 else f


cdef inline void dz_counts(uint64_t one, uint64_t two, float* out) noexcept nogil:
    """The 54 card counts of a card set in DanZero's order (``out`` zeroed)."""
    cdef int f
    one &= FACE_MASK
    two &= FACE_MASK
    while one:
        f = gd_ctz64(one)
        out[dz_index(f)] = 2.0 if (two >> f) & 1 else 1.0
        one &= one - 1


cdef inline void dz_entry(const DzSeq* q, int s, float* out) noexcept nogil:
    cdef int f
    if q.kind[s] == DZ_OUT:
        for f in range(54):
            out[f] = -1.0
    elif q.kind[s] == DZ_CARDS:
        dz_counts(q.lo[s], q.hi[s], out)


cdef void dz_state(const DzSeq* q, int seat, uint64_t hand1, uint64_t hand2, const int8_t* counts,
                   int own_level, int opp_level, int rlevel, float* out) noexcept nogil:
    """DanZero's 501-float state vector of ``seat`` (``out`` zeroed):
    its hand, the other seats' cards (two decks minus the hand and every
    card played), the newest entry of the sequence and of the teammate's
    list, the cards the down, mate and up seats played, their cards left
    (one-hot 0..27) and the three levels (one-hot 2..A)."""
    cdef int down = (seat + 1) & 3, mate = (seat + 2) & 3, up = (seat + 3) & 3, f, s, c
    dz_counts(hand1, hand2, &out[0])
    for f in range(54):
        out[54 + f] = 2.0 - out[f]
    for s in range(4):
        c = 0
        for f in range(54):
            c = <int>(((q.pone[s] >> f) & 1) + ((q.ptwo[s] >> f) & 1))
            if c:
                out[54 + dz_index(f)] -= c
    if q.last >= 0:
        dz_entry(q, q.last, &out[108])
    dz_entry(q, mate, &out[162])
    dz_counts(q.pone[down], q.ptwo[down], &out[216])
    dz_counts(q.pone[mate], q.ptwo[mate], &out[270])
    dz_counts(q.pone[up], q.ptwo[up], &out[324])
    out[378 + _clamp(counts[down], 27)] = 1.0
    out[406 + _clamp(counts[mate], 27)] = 1.0
    out[434 + _clamp(counts[up], 27)] = 1.0
    out[462 + own_level] = 1.0
    out[475 + opp_level] = 1.0
    out[488 + rlevel] = 1.0


cdef inline int _clamp(int x, int hi) noexcept nogil:
    return 0 if x < 0 else (hi if x > hi else x)


cdef inline void move_fill(uint64_t lo, uint64_t hi, float* out) noexcept nogil:
    """The 68 move features of move words (``out`` zeroed): the card count
    of each face (engine order), the type one-hot, the key."""
    cdef uint64_t one = lo & FACE_MASK, two = hi & FACE_MASK
    cdef int f
    while one:
        f = gd_ctz64(one)
        out[f] = 2.0 if (two >> f) & 1 else 1.0
        one &= one - 1
    out[54 + move_type(lo)] = 1.0
    out[67] = <float>move_key(hi)


cdef void dz_reset_state(DzSeq* q, const State* st) noexcept nogil:
    """The empty sequence of the round ``st`` is at (its start)."""
    cdef int8_t left[4]
    cdef int s
    for s in range(4):
        left[s] = <int8_t>card_count(st.one[s], st.two[s])
    dz_init(q, -1, left, st.fin, st.nfin)


def danzero_rows(int seat, uint64_t hand1, uint64_t hand2, plays, left, finished, counts,
                 int own_level, int opp_level, int rlevel, words_):
    """DanZero rows (``(m, 555)`` float32) of one decision: the state of
    ``seat`` after ``plays`` (``(seat, lo, hi)`` move words, passes as 0,
    oldest first) from a round position with ``left`` cards per seat and
    the seats ``finished`` already out; ``counts``: the cards held now;
    then one row per move of ``words_`` (``(m, 2)`` uint64, C order)."""
    cdef DzSeq q
    cdef int8_t l4[4]
    cdef int8_t o4[4]
    cdef int8_t c4[4]
    cdef int s, nout = 0
    if not (0 <= seat < 4 and 0 <= own_level < 13 and 0 <= opp_level < 13 and 0 <= rlevel < 13):
        raise ValueError("seat or level out of range")
    if len(left) != 4 or len(counts) != 4 or len(finished) > 3:
        raise ValueError("left and counts hold 4 seats, finished at most 3")
    for s in range(4):
        l4[s] = <int8_t>min(max(int(left[s]), 0), 27)
        c4[s] = <int8_t>min(max(int(counts[s]), 0), 27)
        o4[s] = -1
    for s in finished:
        if not 0 <= s < 4:
            raise ValueError("a finished seat is 0..3")
        o4[nout] = <int8_t>s
        nout += 1
    dz_init(&q, seat, l4, o4, nout)
    for s, lo, hi in plays:
        if not 0 <= s < 4:
            raise ValueError("a play's seat is 0..3")
        dz_feed(&q, s, lo, hi)
    if (not isinstance(words_, np.ndarray) or words_.dtype != np.uint64 or words_.ndim != 2
            or words_.shape[1] != 2 or not words_.flags.c_contiguous):
        raise ValueError("words must be a C-contiguous uint64 array of shape (m, 2)")
    cdef Py_ssize_t m = words_.shape[0], k
    cdef const uint64_t* w = <const uint64_t*>cnp.PyArray_DATA(words_)
    x = np.zeros((m, DZ_DIM), dtype=np.float32)
    cdef float* vx = <float*>cnp.PyArray_DATA(x)
    cdef float row[DZ_STATE]
    memset(row, 0, sizeof(row))
    dz_state(&q, seat, hand1, hand2, c4, own_level, opp_level, rlevel, row)
    for k in range(m):
        memcpy(&vx[k * DZ_DIM], row, sizeof(row))
        dz_counts(w[2 * k], w[2 * k + 1], &vx[k * DZ_DIM + DZ_STATE])
    return x


cdef class VecCore:
    """``n`` independent games stepped together (see :class:`guandan.VecGame`)."""
    cdef State* st
    cdef Py_ssize_t n
    cdef Gen* g
    cdef MoveBuf buf
    cdef int64_t* off
    cdef uint64_t seed
    cdef uint64_t games_started
    cdef int unit
    cdef RuleSet rules
    cdef MoveBuf scratch
    cdef uint64_t prng[4]
    cdef DzSeq* dz             # DanZero's action sequence of each game's round
    cdef uint64_t* seeds       # each game's deal seed

    def __cinit__(self, Py_ssize_t n, uint64_t seed, int unit, NativeRules rules not None):
        cdef Py_ssize_t i
        self.n = n
        self.st = <State*>malloc(max(n, 1) * sizeof(State))
        self.off = <int64_t*>malloc((n + 1) * sizeof(int64_t))
        self.dz = <DzSeq*>malloc(max(n, 1) * sizeof(DzSeq))
        self.seeds = <uint64_t*>malloc(max(n, 1) * sizeof(uint64_t))
        self.g = gen_new()
        self.buf.data = NULL
        self.buf.n = 0
        self.buf.cap = 0
        self.scratch.data = NULL
        self.scratch.n = 0
        self.scratch.cap = 0
        st_seed(self.prng, seed ^ policy_salt())
        if self.st == NULL or self.off == NULL or self.g == NULL or self.dz == NULL or self.seeds == NULL:
            raise MemoryError()
        self.seed = seed
        self.games_started = 0
        self.unit = unit
        self.rules = rules.r
        for i in range(n):
            self._new(i)
        self._gen_legal()

    def __dealloc__(self):
        free(self.st)
        free(self.off)
        free(self.dz)
        free(self.seeds)
        gen_free(self.g)
        buf_free(&self.buf)
        buf_free(&self.scratch)

    cdef void _new(self, Py_ssize_t i) noexcept nogil:
        self.seeds[i] = mix_seed(self.seed, self.games_started)
        st_new_game(&self.st[i], self.seeds[i], &self.rules)
        dz_reset_state(&self.dz[i], &self.st[i])
        self.games_started += 1

    cdef int _gen_legal(self) except -1:
        cdef Py_ssize_t i
        cdef int rc = 0
        self.buf.n = 0
        self.off[0] = 0
        with nogil:
            for i in range(self.n):
                if st_legal(&self.st[i], self.g, &self.buf) < 0:
                    rc = -1
                    break
                self.off[i + 1] = self.buf.n
        if rc < 0:
            raise MemoryError()
        return 0

    def legal(self):
        """``(offsets int64[n+1], words uint64[m, 2])`` of every game's legal actions (copies)."""
        offs = np.empty(self.n + 1, dtype=np.int64)
        words = np.empty((self.buf.n, 2), dtype=np.uint64)
        cdef int64_t* vo = <int64_t*>cnp.PyArray_DATA(offs)
        cdef uint64_t* vw = <uint64_t*>cnp.PyArray_DATA(words)
        cdef Py_ssize_t i
        for i in range(self.n + 1):
            vo[i] = self.off[i]
        for i in range(2 * self.buf.n):
            vw[i] = self.buf.data[i]
        return offs, words

    def encode(self, int encoding, out_, offsets_):
        """Rows of every legal action of every game into ``out_`` (float32,
        C order, ``(rows >= legal actions, dim)``; dim 309 for encoding 0,
        ``guandan``, 555 for 1, ``danzero``) and the offsets into
        ``offsets_`` (int64, ``n + 1``); returns the number of rows written."""
        if encoding != ENC_GD and encoding != ENC_DZ:
            raise ValueError("encoding must be 0 (guandan) or 1 (danzero)")
        cdef Py_ssize_t dim = GD_DIM if encoding == ENC_GD else DZ_DIM
        cdef Py_ssize_t total = self.off[self.n]
        if (not isinstance(out_, np.ndarray) or out_.dtype != np.float32 or out_.ndim != 2
                or out_.shape[1] != dim or out_.shape[0] < total or not out_.flags.c_contiguous
                or not out_.flags.writeable):
            raise ValueError(f"out must be a writeable C-contiguous float32 array of shape "
                             f"(at least {total}, {dim})")
        if (not isinstance(offsets_, np.ndarray) or offsets_.dtype != np.int64 or offsets_.ndim != 1
                or offsets_.shape[0] != self.n + 1 or not offsets_.flags.c_contiguous
                or not offsets_.flags.writeable):
            raise ValueError(f"offsets must be a writeable C-contiguous int64 array of shape ({self.n + 1},)")
        cdef float* vx = <float*>cnp.PyArray_DATA(out_)
        cdef int64_t* vo = <int64_t*>cnp.PyArray_DATA(offsets_)
        cdef Py_ssize_t i, k, m, base
        cdef int seat, team, s
        cdef float* row
        cdef const State* p
        cdef int8_t counts[4]
        cdef View v
        cdef const uint64_t* w = self.buf.data
        with nogil:
            for i in range(self.n + 1):
                vo[i] = self.off[i]
            for i in range(self.n):
                base = self.off[i]
                m = self.off[i + 1] - base
                if m == 0:
                    continue
                p = &self.st[i]
                row = &vx[base * dim]
                memset(row, 0, dim * sizeof(float))
                if encoding == ENC_GD:
                    view_of(p, p.to_act, &v)
                    obs_fill(&v, row)
                    for k in range(m):
                        if k:
                            memcpy(&row[k * dim], row, OBS_DIM * sizeof(float))
                            memset(&row[k * dim + OBS_DIM], 0, (MOVE_DIM + SPLIT_DIM) * sizeof(float))
                        move_fill(w[2 * (base + k)], w[2 * (base + k) + 1], &row[k * dim + OBS_DIM])
                    split_fill(&v, &w[2 * base], m, &row[OBS_DIM + MOVE_DIM], dim)
                else:
                    seat = p.to_act
                    team = seat & 1
                    for s in range(4):
                        counts[s] = <int8_t>card_count(p.one[s], p.two[s])
                    dz_state(&self.dz[i], seat, p.one[seat], p.two[seat], counts,
                             p.level[team], p.level[1 - team], p.rlevel, row)
                    for k in range(m):
                        if k:
                            memcpy(&row[k * dim], row, DZ_STATE * sizeof(float))
                            memset(&row[k * dim + DZ_STATE], 0, DZ_ACTION * sizeof(float))
                        dz_counts(w[2 * (base + k)], w[2 * (base + k) + 1], &row[k * dim + DZ_STATE])
        return total

    def rows(self):
        """The number of legal actions of all games (rows of :meth:`encode`)."""
        return self.off[self.n]

    def state_bytes(self, Py_ssize_t i):
        """Game ``i``'s native state as bytes (``GameCore.load_state_bytes``)."""
        if not 0 <= i < self.n:
            raise IndexError(f"game {i} out of range")
        return (<char*>&self.st[i])[:sizeof(State)]

    def deal_seed(self, Py_ssize_t i):
        """The seed game ``i`` was dealt from."""
        if not 0 <= i < self.n:
            raise IndexError(f"game {i} out of range")
        return self.seeds[i]

    def observe(self):
        """``(seat int8[n], obs float32[n, 227], level int8[n])`` for the seat to act
        of each game (layout in :mod:`guandan.vec`)."""
        seat = np.empty(self.n, dtype=np.int8)
        level = np.empty(self.n, dtype=np.int8)
        obs = np.zeros((self.n, OBS_DIM), dtype=np.float32)
        cdef float* vo = <float*>cnp.PyArray_DATA(obs)
        cdef int8_t* vs = <int8_t*>cnp.PyArray_DATA(seat)
        cdef int8_t* vl = <int8_t*>cnp.PyArray_DATA(level)
        cdef Py_ssize_t i
        cdef View v
        with nogil:
            for i in range(self.n):
                view_of(&self.st[i], self.st[i].to_act, &v)
                vs[i] = v.seat
                vl[i] = v.rlevel
                obs_fill(&v, &vo[OBS_DIM * i])
        return seat, obs, level

    def step(self, actions_):
        """Apply action ``actions[i]`` (an index into game i's legal list) in
        every game; finished episodes restart. Returns ``(rewards float32[n, 4],
        done int8[n])``: on an episode's last step the banker's team gets the
        levels it gained (1..3, 4 for winning the game; 0 when a team at A
        stays at A or a max_rounds stop leaves the levels equal), the other
        team the negative."""
        if (not isinstance(actions_, np.ndarray) or actions_.dtype != np.int64 or actions_.ndim != 1
                or not actions_.flags.c_contiguous):
            raise ValueError("actions must be a C-contiguous int64 array of shape (n,)")
        cdef const int64_t* actions = <const int64_t*>cnp.PyArray_DATA(actions_)
        rewards = np.zeros((self.n, 4), dtype=np.float32)
        done = np.zeros(self.n, dtype=np.int8)
        cdef float* vr = <float*>cnp.PyArray_DATA(rewards)
        cdef int8_t* vd = <int8_t*>cnp.PyArray_DATA(done)
        cdef Py_ssize_t i, a, base
        cdef int r0, team, s
        cdef float rew
        cdef uint64_t lo, hi
        cdef State* p
        cdef int bad = -1
        if actions_.shape[0] != self.n:
            raise ValueError(f"expected {self.n} actions")
        with nogil:
            for i in range(self.n):
                a = actions[i]
                if a < 0 or a >= self.off[i + 1] - self.off[i]:
                    bad = <int>i
                    break
        if bad >= 0:
            raise IndexError(f"action {actions[bad]} out of range for game {bad}")
        with nogil:
            for i in range(self.n):
                p = &self.st[i]
                base = self.off[i] + actions[i]
                lo = self.buf.data[2 * base]
                hi = self.buf.data[2 * base + 1]
                r0 = p.round_index
                if p.phase == PH_PLAY:
                    dz_feed(&self.dz[i], p.to_act, lo, hi)
                st_apply(p, lo, hi)
                if p.round_index != r0:
                    dz_reset_state(&self.dz[i], p)
                if p.round_index != r0 or p.phase == PH_OVER:
                    team = p.last_order[0] & 1
                    rew = st_round_reward(p)
                    for s in range(4):
                        vr[4 * i + s] = rew if (s & 1) == team else -rew
                    if self.unit == 0 or p.phase == PH_OVER:
                        vd[i] = 1
                        if p.phase == PH_OVER or self.unit == 1:
                            self._new(i)
        self._gen_legal()
        return rewards, done

    def choose(self, int code):
        """``int64[n]``: the index native policy ``code`` (a rollout policy:
        not a search) picks in each game's legal list, from the view of the
        seat to act, drawing from this object's policy stream (seeded from
        the seed given at construction)."""
        if not policy_rollout_ok(code):
            raise ValueError(f"no native rollout policy with code {code}")
        out = np.empty(self.n, dtype=np.int64)
        cdef int64_t* vo = <int64_t*>cnp.PyArray_DATA(out)
        cdef Py_ssize_t i, j, m, k
        cdef int bad = 0
        with nogil:
            for i in range(self.n):
                m = self.off[i + 1] - self.off[i]
                self.scratch.n = 0
                if buf_reserve(&self.scratch, m) < 0:
                    bad = 1
                    break
                for j in range(2 * m):        # the policy may reorder its list: give it a copy
                    self.scratch.data[j] = self.buf.data[2 * self.off[i] + j]
                self.scratch.n = m
                k = policy_choose(code, &self.st[i], &self.scratch, self.prng)
                if k < 0 or k >= m:
                    bad = 2
                    break
                # map the choice back by its words (a reordering policy's index is into its copy)
                if self.scratch.data[2 * k] != self.buf.data[2 * (self.off[i] + k)] or \
                        self.scratch.data[2 * k + 1] != self.buf.data[2 * (self.off[i] + k) + 1]:
                    for j in range(m):
                        if self.scratch.data[2 * k] == self.buf.data[2 * (self.off[i] + j)] and \
                                self.scratch.data[2 * k + 1] == self.buf.data[2 * (self.off[i] + j) + 1]:
                            k = j
                            break
                vo[i] = k
        if bad == 1:
            raise MemoryError()
        if bad == 2:
            raise ValueError(f"native policy {code} made no choice")
        return out


# -- a Q network as a native policy (guandan.vec.NativeNet, the "net" policy's native form) --

cdef enum:
    NET_MAX_LAYERS = 16
    NET_MAX_WIDTH = 4096

ctypedef struct NetC:
    int nl                         # layers
    int size[NET_MAX_LAYERS + 1]   # size[0]: the row (GD_DIM), size[nl]: 1
    float* w[NET_MAX_LAYERS]       # (size[li], size[li + 1]) row-major
    float* b[NET_MAX_LAYERS]
    int maxw                       # the widest layer


cdef extern from "gdnet.h" nogil:
    void _axpy "gd_axpy"(float* y, float a, const float* x, int n)


cdef float net_q(const NetC* n, const float* h0, const float* row, float* ha, float* hb) noexcept nogil:
    """Q of one row, given ``h0``: the first layer's pre-activation of the
    row's state columns (identical for every move of a decision)."""
    cdef int li, i, w1 = n.size[1], out
    cdef float* t
    memcpy(ha, h0, w1 * sizeof(float))
    for i in range(OBS_DIM, GD_DIM):
        if row[i] != 0.0:
            _axpy(ha, row[i], &n.w[0][i * w1], w1)
    for li in range(1, n.nl):
        out = n.size[li + 1]
        memcpy(hb, n.b[li], out * sizeof(float))
        for i in range(n.size[li]):
            if ha[i] > 0.0:            # relu
                _axpy(hb, ha[i], &n.w[li][i * out], out)
        t = ha
        ha = hb
        hb = t
    return ha[0]


cdef Py_ssize_t net_policy(const void* ctx, const View* v, MoveBuf* moves, uint64_t* rng) noexcept nogil:
    """The move of highest Q (the first on ties) of the network ``ctx``
    (a NetC) over the "guandan" rows of the view's legal moves."""
    cdef const NetC* n = <const NetC*>ctx
    cdef Py_ssize_t m = moves.n, k, best = 0
    cdef int i, w1 = n.size[1]
    cdef float q, bq = 0.0
    cdef float* buf
    cdef float* row
    cdef float* split
    cdef float* h0
    cdef float* ha
    cdef float* hb
    if m <= 1:
        return 0
    buf = <float*>malloc(sizeof(float) * (GD_DIM + m * SPLIT_DIM + 3 * n.maxw))
    if buf == NULL:
        return 0
    row = buf
    split = &buf[GD_DIM]
    h0 = &split[m * SPLIT_DIM]
    ha = &h0[n.maxw]
    hb = &ha[n.maxw]
    memset(row, 0, GD_DIM * sizeof(float))
    obs_fill(v, row)
    memset(split, 0, m * SPLIT_DIM * sizeof(float))
    split_fill(v, moves.data, m, split, SPLIT_DIM)
    memcpy(h0, n.b[0], w1 * sizeof(float))
    for i in range(OBS_DIM):
        if row[i] != 0.0:
            _axpy(h0, row[i], &n.w[0][i * w1], w1)
    for k in range(m):
        memset(&row[OBS_DIM], 0, MOVE_DIM * sizeof(float))
        move_fill(moves.data[2 * k], moves.data[2 * k + 1], &row[OBS_DIM])
        memcpy(&row[OBS_DIM + MOVE_DIM], &split[k * SPLIT_DIM], SPLIT_DIM * sizeof(float))
        q = net_q(n, h0, row, ha, hb)
        if k == 0 or q > bq:
            bq = q
            best = k
    free(buf)
    return best


cdef class NativeNet:
    """A Q network over "guandan" rows (``(w, b)`` float32 pairs, validated
    by the caller: guandan.rl.checkpoint) as a native policy: :meth:`register`
    gives the code ``simulate``, ``VecGame.choose`` and ``Game.native_choice``
    run. Its weights are copied and live as long as the process (a code, once
    handed out, stays valid)."""

    cdef NetC c
    cdef int _code

    def __cinit__(self, layers):
        cdef int li, nl = len(layers)
        cdef cnp.ndarray w, b
        memset(&self.c, 0, sizeof(NetC))
        if not 1 <= nl <= NET_MAX_LAYERS:
            raise ValueError(f"a network has 1..{NET_MAX_LAYERS} layers, got {nl}")
        self.c.nl = nl
        self.c.size[0] = GD_DIM
        for li in range(nl):
            w = np.ascontiguousarray(layers[li][0], dtype=np.float32)
            b = np.ascontiguousarray(layers[li][1], dtype=np.float32)
            if (w.ndim != 2 or b.ndim != 1 or w.shape[0] != self.c.size[li] or w.shape[1] != b.shape[0]
                    or not 1 <= w.shape[1] <= NET_MAX_WIDTH):
                raise ValueError(f"layer {li}: weights of shape ({self.c.size[li]}, k) and a bias of k "
                                 f"(1..{NET_MAX_WIDTH}) expected")
            self.c.size[li + 1] = <int>w.shape[1]
            self.c.maxw = max(self.c.maxw, <int>w.shape[1])
            self.c.w[li] = <float*>malloc(w.nbytes)
            self.c.b[li] = <float*>malloc(b.nbytes)
            if self.c.w[li] == NULL or self.c.b[li] == NULL:
                raise MemoryError()
            memcpy(self.c.w[li], cnp.PyArray_DATA(w), w.nbytes)
            memcpy(self.c.b[li], cnp.PyArray_DATA(b), b.nbytes)
        if self.c.size[nl] != 1:
            raise ValueError("a Q network has one output")

    def __dealloc__(self):
        cdef int li
        if self._code:
            return                     # registered: the policy table points here for good
        for li in range(NET_MAX_LAYERS):
            free(self.c.w[li])
            free(self.c.b[li])

    def register(self):
        """The native policy code of this network (a new code the first
        time, while the policy table has room)."""
        cdef int code
        if self._code == 0:
            code = policy_add(net_policy, &self.c, 0)
            if code < 0:
                raise ValueError("the native policy table is full")
            _NETS.append(self)
            self._code = code
        return self._code

    @property
    def code(self):
        """The native policy code (0 until :meth:`register`)."""
        return self._code


_NETS = []          # registered networks: kept alive with their codes
