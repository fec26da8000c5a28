# cython: language_level=3
"""C-level interface of the search tools (``_search.pyx``): the world
sampler, native rollouts and the determinized Monte-Carlo search, for other
native modules to cimport."""

from libc.stdint cimport int8_t, int64_t, uint8_t, uint64_t
from guandan._gen cimport Gen, MoveBuf
from guandan._engine cimport State, View, RuleSet, Trail

cdef enum:
    MAXCAND = 64               # candidate moves evaluated by one search decision

# What one seat knows, ready to sample full positions ("worlds") from.
ctypedef struct Info:
    State base                 # the public state with the seat's own hand; other hands empty
    int seat
    int others[3]              # the other seats, in seat order
    int need[3]                # their card counts
    int8_t u[54]               # unseen copies of each face (not in the own hand, not played)
    double w[54][6]            # weight of each way to split face f's unseen copies (0: impossible)
    double* G                  # DP table: 55 x (need[0]+1) x (need[1]+1) completion weights
    int d1                     # need[1] + 1
    int rem[55]                # unseen cards in faces f..53

ctypedef struct SearchCfg:
    int rollout_code           # native policy of the rollouts (and of the candidate order)
    int64_t rollouts           # evaluations per decision (0: use ms)
    double ms                  # time per decision when rollouts == 0
    int cpu_clock              # ms is the thread's CPU time, not wall time
    int topk                   # candidate moves (all when at most this many)
    int solve_cards            # solve exactly when the hands hold at most this many cards (0: never)
    int64_t solve_nodes        # node limit of one exact solve (over it: a rollout instead)
    int tt_bits                # transposition table of the solver: 2**tt_bits entries
    # leave the rollout policy's choice only for a candidate better by
    # more than margin paired standard errors
    double margin
    int threads                # worker threads of one decision (the same decision for any number)
    int infer                  # worlds drawn by the likelihood of the other seats' plays this round
    int proposals              # ... each the pick of this many sampled worlds (importance resampling)
    int model                  # each other seat's rollouts in the style its habits show (expert rollouts)
    double peps                # infer=2: the weight of an action the seat's model would not have played
    int pdepth                 # ... over the others' last this many actions (0: all)
    int dice                   # another stream of the decisions' random choices (0: the default)
    double keep                # worlds tilted toward the groups players keep (0: off; 1: the expert's measure)
    int cands                  # each move type's candidates: 0 lowest, highest, ...; 1 by the expert's gain

ctypedef struct SearchOut:
    int ncand
    Py_ssize_t cand[MAXCAND]   # indices into the legal list
    double sum[MAXCAND]        # sum of the seat's team level points over evaluations
    double sumsq[MAXCAND]
    double sumd2[MAXCAND]      # sum of squared differences to candidate 0 (the policy's choice)
    int64_t cnt[MAXCAND]
    int64_t worlds
    int64_t rollouts
    int64_t solved             # evaluations by the exact solver
    int64_t solve_fail         # solves over the node limit (a rollout was used)
    Py_ssize_t choice          # index into the legal list
    double seconds
    int64_t weighed            # worlds drawn by likelihood
    double ess                 # mean effective share of the proposals (1: the weighting changed nothing)
    int codes[4]               # the rollout policy of each seat
    int evidence               # entries of this round's trail that bear on the other hands

cdef int info_init(Info* IS, const State* base, int seat, const int8_t* counts,
                   uint64_t pone, uint64_t ptwo, const uint64_t* pby_one,
                   const uint64_t* pby_two, bint use_tribute) noexcept nogil
cdef void info_free(Info* IS) noexcept nogil
cdef void info_world(const Info* IS, uint64_t* rng, State* out) noexcept nogil
cdef int info_from_view(Info* IS, const View* v) noexcept nogil
cdef int rollout(State* st, Gen* g, MoveBuf* b, int code, uint64_t* rng,
                 int8_t* order) noexcept nogil
cdef int search_decide(const Info* IS, const Trail* T, const MoveBuf* legal, const SearchCfg* cfg,
                       uint64_t seed, SearchOut* out) noexcept nogil
