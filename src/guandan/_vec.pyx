# cython: language_level=3
"""The RL core: ``n`` games stepped together with numpy in and out
(:class:`guandan.VecGame` wraps it), over the same state machine as
:class:`guandan.Game` (``_engine.pyx``)."""

from libc.stdint cimport int8_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free

cimport numpy as cnp
import numpy as np

from guandan._gen cimport Gen, gen_new, gen_free, MoveBuf, buf_free, mix_seed
from guandan._engine cimport (
    State, RuleSet, NativeRules, PH_OVER, st_new_game, st_legal, st_apply, View, view_of,
    obs_fill, st_round_reward, OBS_DIM, policy_choose, policy_rollout_ok, st_seed, policy_salt,
)
from guandan._gen cimport buf_reserve

cnp.import_array()


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

    def __cinit__(self, Py_ssize_t n, uint64_t seed, int unit, NativeRules rules not None):
        cdef Py_ssize_t i
        self.n = n
        self.st = <State*>malloc(max(n, 1) * sizeof(State))
        self.off = <int64_t*>malloc((n + 1) * sizeof(int64_t))
        self.g = gen_new()
        self.buf.data = NULL
        self.buf.n = 0
        self.buf.cap = 0
        self.scratch.data = NULL
        self.scratch.n = 0
        self.scratch.cap = 0
        st_seed(self.prng, seed ^ policy_salt())
        if self.st == NULL or self.off == NULL or self.g == NULL:
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
        gen_free(self.g)
        buf_free(&self.buf)
        buf_free(&self.scratch)

    cdef void _new(self, Py_ssize_t i) noexcept nogil:
        st_new_game(&self.st[i], mix_seed(self.seed, self.games_started), &self.rules)
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
                st_apply(p, lo, hi)
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
