# cython: language_level=3
"""C-level interface of the exact endgame solver (``_solve.pyx``), for other
native modules (the search player cimports it)."""

from libc.stdint cimport int8_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from guandan._gen cimport Gen, MoveBuf
from guandan._engine cimport State

cdef extern from "gdtime.h":
    double gd_now() noexcept nogil
    double gd_thread_cpu() noexcept nogil

cdef enum:
    MAXKIDS = 64

ctypedef struct TTE:                # 16 bytes: four to a cache line
    # data: the second key (32 bits) | best << 32 (index + 1 of the best
    # move found, 0: none) | lohi << 48 (proven bounds: (lo + 4) | (hi + 4)
    # << 4) | size << 56 (bit length of the nodes its subtree cost: the
    # replacement priority); check: the first key (64 bits) ^ data, so an
    # entry torn by two threads writing it at once matches no position
    uint64_t check
    uint64_t data

ctypedef struct Ply:
    MoveBuf moves
    int64_t* keys
    Py_ssize_t kcap
    uint64_t* hc               # suit-free move signatures seen at this node (open addressing)
    uint64_t* htk
    uint32_t* hstamp           # entry valid when equal to the node's stamp
    uint64_t hmask
    int* defer                 # moves put off at this node (another thread searches them), kcap of them
    int ready                  # moves holds this ply's list already (see only_pass)
    uint64_t ghash             # the hash of that list's context (hand, play to beat; 0: none)
    Py_ssize_t gslot           # its slot in the move-list cache (-1: none)
    uint32_t ggen              # the cache's generation then (a slot is valid while it is the same)
    State* kst                 # the children (after their forced passes), in search order, when computed first
    uint64_t* kk               # their keys, two words a child
    int* kcm                   # their modes (-1: the move ends the round)
    Py_ssize_t kscap
    uint64_t kid1[MAXKIDS]     # keys of the rank-free children searched at this node
    uint64_t kid2[MAXKIDS]

cdef enum:
    NO_TERM = 100              # RootJob.kterm: the child does not end the round

ctypedef struct RootJob:
    # one null-window test at the root, its children searched in order by
    # every solver (thread) at once: each works on the lowest child not yet
    # finished; a child that cuts lowers ``cut``, and no child after the
    # lowest cut is needed
    State* kids                # the root's children (after the move, before forced passes)
    int* kmode                 # their position modes
    int* kterm                 # their value when the move ends the round (else NO_TERM)
    int* kmove                 # their move's index in the root's move list
    int n
    int t                      # the test: value >= t
    int maxi                   # the root's side maximizes
    long cut                   # the lowest child that cut (n: none; atomic)
    int64_t nodes              # nodes of every solver, counted in steps of 1024 (atomic)
    int64_t max_nodes
    int limit_hit              # a solver stopped on the node or time limit
    long* done                 # per child: its search finished (atomic)

ctypedef struct Solver:
    TTE* tt
    void* tt_raw
    uint64_t mask              # entries - 1 (entries a power of two, buckets of 4)
    Gen* g
    Ply* plies                 # MAXPLY scratch move lists
    MoveBuf scratch            # forced-pass test
    int64_t nodes
    int64_t max_nodes
    double deadline            # gd_now() value after which we stop (0: none)
    int aborted
    int order_code             # native policy whose choice is tried first (0: none)
    uint32_t stamp             # node stamp of the move-signature sets
    uint64_t order_rng[4]
    RootJob* job               # the root test this solver works on
    int cur_root               # the root child it is searching
    uint64_t* busy             # shared with the other threads: keys of positions being searched
    uint64_t bmask             # busy entries - 1
    int defer_ply              # below this ply, a move another thread is searching is put off
    uint64_t* gc               # move-list cache (see gen_cached): GC_WORDS words a slot
    uint64_t* garena           # the cached lists, 2 words a move
    Py_ssize_t gfill           # slots in use
    Py_ssize_t gused           # moves in garena
    Py_ssize_t gslots          # its slots (a power of two; 2**GC_BITS unless a test asks for fewer)
    Py_ssize_t gmoves          # and room for moves
    int64_t gresets            # times it was emptied because full
    uint32_t ggen              # generation of the cache: one more at every reset
    int64_t* oarena            # cached base move orders (see order_moves), gmoves keys
    Py_ssize_t oused           # keys in oarena
    int cuts_shared            # cuts belongs to another solver of the same solve
    uint64_t* cuts             # per context hash: the move that cut there last, CUT_N words (shared by the threads)

ctypedef struct SolveOut:
    int lo                     # proven: lo <= value <= hi (exact when equal)
    int hi
    int has_best
    uint64_t best_lo           # a move achieving the exact value (or the proven bound)
    uint64_t best_hi
    int64_t nodes
    double seconds
    int aborted

cdef int terminal_value(const State* st, int seat) noexcept nogil
cdef void terminal_order(const State* st, int seat, int8_t* order) noexcept nogil
cdef int order_value(const int8_t* order) noexcept nogil
cdef bint ends_round(const State* st, uint64_t lo, uint64_t hi) noexcept nogil
cdef Solver* solver_new(int tt_bits) noexcept nogil
cdef void solver_free(Solver* S) noexcept nogil
cdef int solve_state(Solver* S, const State* st, int64_t max_nodes, double time_limit,
                     SolveOut* out) noexcept nogil
cdef int solve_state_mt(Solver* S, const State* st, int64_t max_nodes, double time_limit,
                        int threads, SolveOut* out) noexcept nogil
