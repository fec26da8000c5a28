# cython: language_level=3
"""C-level interface of the native rule-based expert policy (``_expert.pyx``)."""

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint64_t
from guandan._gen cimport Gen, MoveBuf
from guandan._engine cimport State, View

cdef enum:
    SPLIT_DIM = 14             # split features of a move (split_fill)

cdef enum:
    MAXG = 40                  # groups in one decomposition (27 cards + wilds)

# one group (play) of a hand decomposition
ctypedef struct Group:
    uint8_t t                  # move type (T_SINGLE ..)
    uint8_t key                # move key, as in the move words
    uint8_t size               # cards
    uint8_t ctrl               # 1: nothing still out beats it in its type (bombs aside)
    int16_t pw                 # power (card-counting strength) of the group
    uint64_t sig               # card-count signature (see cards_sig)

ctypedef struct Decomp:
    int32_t score              # value of the whole decomposition (higher is better)
    int32_t ngroups            # non-bomb groups (turns to play out)
    int32_t nctrl              # non-bomb groups nothing can beat
    int32_t nbomb              # bombs, straight flushes, joker bomb
    int32_t ng                 # groups listed in g
    Group g[MAXG]

# how a player plays (the decision's parameters; the hand's evaluation is
# the expert's for every style): the expert's own, a pool bot's, a rollout
# family member's
ctypedef struct Style:
    int feed, block, urg, urg_from, max_eval, max_bombs, bomb_out_max, tempo, tempo_ctrl
    int follow_min, stop, bomb_opp, danger, lead_size, ret_str
    int guard                  # partner holding this many cards or fewer: stop every opponent play
    int follow_high            # 1: follow with the strongest play worth playing
    int deviate                # per mille of play-phase decisions: a uniformly random legal move

cdef enum:
    NFAMILY = 4                # rollout styles of the opponent models (family_code)
    FAM_EXPERT = 0
    FAM_BOMB_EARLY = 1
    FAM_KEEP = 2               # keeps its structures and its bombs
    FAM_EAGER = 3              # follows whenever it can, strongest first

cdef Py_ssize_t expert_decide(const Style* S, const View* v, MoveBuf* moves, int* rule) noexcept nogil
cdef int family_code(int k) noexcept nogil
cdef Py_ssize_t expert_policy(const void* ctx, const View* v, MoveBuf* moves, uint64_t* rng) noexcept nogil
cdef void split_fill(const View* v, const uint64_t* words, Py_ssize_t m, float* out,
                     Py_ssize_t stride) noexcept nogil
