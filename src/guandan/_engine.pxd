# cython: language_level=3
"""The native game state machine (round, trick, tribute, level) as a C struct
with nogil functions; the Python Game and the bulk simulator drive it."""

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint32_t, uint64_t
from guandan._gen cimport Gen, MoveBuf
from guandan._core cimport Hand

cdef enum:
    PH_TRIBUTE = 0
    PH_BACK = 1
    PH_PLAY = 2
    PH_OVER = 3

ctypedef struct RuleSet:
    # the variant options of guandan.Rules, built once by NativeRules
    uint8_t a_win_second_only      # at A, won only with the partner second
    uint8_t wild_sf                # a wild may complete a straight flush
    uint8_t equal_lead_banker_left  # equal tributes: the banker's left leads
    int8_t a_fail_limit            # failed rounds at A before falling to 2 (0: unlimited)
    int16_t max_rounds             # 0: unlimited
    # derived from the options above, once (NativeRules), for the native readers:
    uint32_t gen_flags             # the generator's flags (F_NO_WILD_SF without wild_sf)
    uint8_t key_bits               # the options that change a round's value (3 bits, in the solver's key)

cdef class NativeRules:
    cdef RuleSet r
    cdef readonly object rules     # the guandan.Rules it was built from

ctypedef struct Tribute:
    int8_t npay                # number of payers this round (0..2)
    int8_t payer[2]
    int8_t paid[2]             # face paid by payer i (-1: not yet)
    int8_t recv[2]             # receiver of payer i's tribute (-1: not decided)
    int8_t returned[2]         # face returned to payer i (-1: not yet)
    int8_t anti                # the paying side refused tribute this round

cdef inline void tribute_none(Tribute* t) noexcept nogil:
    """No tribute (yet): no payers, nothing paid, received or returned."""
    cdef int i
    t.npay = 0
    t.anti = 0
    for i in range(2):
        t.payer[i] = -1
        t.paid[i] = -1
        t.recv[i] = -1
        t.returned[i] = -1

ctypedef struct State:
    uint64_t one[4]            # hands (bitboard words)
    uint64_t two[4]
    uint64_t end_one[4]        # hands when the last round ended
    uint64_t end_two[4]
    uint64_t pby_one[4]        # cards each seat played this round (valid with pby_known)
    uint64_t pby_two[4]
    uint64_t deal_rng[4]       # xoshiro256** for deals and the first leader
    uint64_t top_lo, top_hi    # the play to beat (0: leading)
    int8_t level[2]            # team levels, rank index 0..12
    int8_t rlevel              # round level
    int8_t owner               # team whose level the round is played at (-1: first round)
    int8_t phase
    int8_t to_act
    int8_t top_seat            # seat of the top play (-1: leading)
    int8_t passes              # passes since the top play
    int8_t nfin
    int8_t fin[4]              # finishing order of this round
    int8_t last_order[4]       # full order of the last round (-1: none yet)
    int8_t last_delta          # levels the last round's banker team went up
    int8_t last_won_a          # the last round won the game by the A rule
    int8_t afail[2]            # failed rounds at own A
    int8_t winner              # -1: none / not over, 0/1: team
    Tribute tr                 # this round's tribute
    int8_t leader              # leads once tribute and return are done
    int8_t first_leader        # who led this round's first trick
    int16_t round_index
    RuleSet rules
    int32_t decisions          # actions taken this game
    int8_t pby_known           # pby_* cover the whole round (0: started from a position)

# This round's actions in order, and each seat's habits over the finished
# rounds of the game (what every player saw: the plays and, at a round's
# end, the cards left), kept by the loops that own a game (the simulator,
# VecGame, GameCore) and read by the searches through View.trail.
cdef enum:
    TRAIL_MAX = 480            # actions of one round a trail holds (beyond: invalid)
    NEV = 4                    # kinds of evidence (EV_*)
    EV_PASS = 0                # passed on an opponent's single/pair/triple holding a loose stronger one
    EV_BREAK = 1               # followed such a play from a bigger group, holding a loose stronger one
    EV_BOMB = 2                # bombed an opponent's non-bomb play while that opponent held 7+ cards
    EV_OVERTAKE = 3            # played over the partner's non-bomb play without going out

ctypedef struct TrailEntry:
    uint64_t one, two          # the action's cards (first and second copies of each face)
    uint8_t t, key             # its type and key (T_PASS: a pass)
    uint8_t top_t, top_key     # the play it answered (top_seat -1: it led)
    int8_t seat, top_seat, top_n, own_n   # cards held then by the top seat and by the seat

ctypedef struct Trail:
    int32_t round_index        # the round the entries belong to (-1: none yet)
    int32_t n
    int8_t valid               # the entries are the whole round so far
    int8_t level               # the round's level (rank index)
    int32_t opp[4][NEV]        # per seat over the finished rounds seen whole: chances
    int32_t hit[4][NEV]        # ... and how many it took
    int32_t early_bombs[4]     # this round: bombs on an opponent's non-bomb play (it held 10+, the bomber 6+ after)
    int32_t overtakes[4]       # this round: plays over the partner's non-bomb play, not going out
    TrailEntry e[TRAIL_MAX]

# -- native policies --------------------------------------------------------
# A native policy sees only what its seat may know (a View built from the
# state, or from an observation), never the other hands. Policies are
# registered in one table by code; names live in guandan.policies.

ctypedef struct View:
    uint64_t one, two          # own hand
    uint64_t pone, ptwo        # cards played so far this round (public)
    uint64_t top_lo, top_hi    # the play to beat (0: leading)
    int8_t seat
    int8_t phase
    int8_t rlevel              # round level (rank index)
    int8_t level[2]            # team levels
    int8_t top_seat            # -1: leading
    int8_t passes
    int8_t counts[4]           # cards held per seat
    int8_t nfin
    int8_t fin[4]              # finishing order so far
    RuleSet rules              # the rules of the game (public)
    # this round's tribute and who played what (public in the play phase);
    # only when tribute_known (a state that saw the whole round)
    int8_t tribute_known
    Tribute tr
    uint64_t pby_one[4]
    uint64_t pby_two[4]
    const Trail* trail         # this round's actions and the seats' habits (NULL: unknown)

# A policy is a function and the context it was registered with (a search
# configuration, a network's weights; NULL for the built-in policies).
ctypedef Py_ssize_t (*policy_fn)(const void* ctx, const View* v, MoveBuf* moves,
                                 uint64_t* rng) noexcept nogil

# A policy may also decide a play (a lead or a follow) from the state without
# the whole legal list (1 with the move's words, 0: ask it with the list,
# -1: out of memory).
ctypedef int (*play_fn)(const void* ctx, const State* st, Gen* g, MoveBuf* scratch,
                        uint64_t* lo, uint64_t* hi) noexcept nogil

ctypedef struct PolicyEntry:
    policy_fn fn               # NULL: no policy under this code
    const void* ctx
    int flags                  # POLF_*
    play_fn play               # NULL: plays are asked with the legal list

cdef enum:
    POL_RANDOM = 1
    POL_GREEDY = 2
    POL_EXPERT = 3
    POL_FIRST_FREE = 4         # policy_add hands out codes from here
    POL_SLOTS = 4096           # codes 1..4095 (the simulator's policy arrays are int16)
    POLF_SEARCH = 1            # a search: not a rollout policy (a search inside a search)

cdef enum:
    OBS_DIM = 227              # observation tensor (layout in guandan.vec)

cdef bint st_valid(const State* st) noexcept nogil
cdef void st_init_play(State* st, const RuleSet* rules, int rlevel, int l0, int l1, int owner,
                       int to_act, uint64_t top_lo, uint64_t top_hi, int top_seat, int passes,
                       const int8_t* fin, int nfin) noexcept nogil
cdef void view_of(const State* st, int seat, View* v) noexcept nogil
cdef void plays_by_seat(plays, uint64_t* one, uint64_t* two) except *
cdef void obs_fill(const View* v, float* out) noexcept nogil
cdef float st_round_reward(const State* st) noexcept nogil
cdef int policy_register(int code, policy_fn fn, const void* ctx, int flags) noexcept
cdef int policy_add(policy_fn fn, const void* ctx, int flags) noexcept
cdef bint policy_rollout_ok(int code) noexcept nogil
cdef bint policy_reads_trail(int code) noexcept nogil
cdef int policy_set_play(int code, play_fn fn) noexcept
cdef bint policy_has_play(int code) noexcept nogil
cdef int policy_play(int code, const State* st, Gen* g, MoveBuf* scratch, uint64_t* lo,
                     uint64_t* hi) noexcept nogil
cdef Py_ssize_t policy_choose(int code, const State* st, MoveBuf* moves, uint64_t* rng) noexcept nogil
cdef Py_ssize_t policy_choose_view(int code, const View* v, MoveBuf* moves, uint64_t* rng) noexcept nogil
cdef Py_ssize_t policy_choose_trail(int code, const State* st, const Trail* trail, MoveBuf* moves,
                                    uint64_t* rng) noexcept nogil
cdef enum:
    EVB_PASS_CHANCE = 1        # trail_pass_break: a loose stronger group was held
    EVB_PASSED = 2
    EVB_FOLLOWED = 4
    EVB_BROKE = 8

cdef inline void trail_unplay(uint64_t* one, uint64_t* two, const TrailEntry* e) noexcept nogil:
    """Give a hand back the cards of its action ``e`` (a hand rebuilt backwards)."""
    two[0] |= (one[0] & e.one & ~e.two) | e.two
    one[0] |= e.one

cdef int trail_pass_break(const Trail* T, const TrailEntry* e, uint64_t one, uint64_t two) noexcept nogil
cdef void trail_reset(Trail* T) noexcept nogil
cdef void trail_sync(Trail* T, const State* st) noexcept nogil
cdef void trail_add(Trail* T, int seat, uint64_t lo, uint64_t hi, int top_seat, uint64_t top_lo,
                    uint64_t top_hi, int top_n, int own_n) noexcept nogil
cdef void trail_note(Trail* T, const State* st, uint64_t lo, uint64_t hi) noexcept nogil
cdef void trail_rank_counts(uint64_t one, uint64_t two, int8_t* c) noexcept nogil
cdef bint trail_loose(const int8_t* c, int size, int top_key, int level) noexcept nogil

cdef inline uint64_t policy_salt() noexcept nogil:
    # a game's policy seed is its deal seed ^ this (guandan.seeds.policy_seed)
    return 0xA5A5A5A5DEADBEEFULL

cdef void st_seed(uint64_t* rng, uint64_t seed) noexcept nogil
cdef uint64_t rng_next(uint64_t* s) noexcept nogil
cdef uint64_t rng_below(uint64_t* s, uint64_t n) noexcept nogil
cdef void st_new_game(State* st, uint64_t seed, const RuleSet* rules) noexcept nogil
cdef void st_new_round(State* st, uint64_t seed, int l0, int l1, int owner,
                       const int8_t* last_order, const RuleSet* rules) noexcept nogil
cdef int st_legal(State* st, Gen* g, MoveBuf* out) noexcept nogil
cdef int st_apply(State* st, uint64_t lo, uint64_t hi) noexcept nogil
cdef int st_is_legal(State* st, Gen* g, MoveBuf* scratch, uint64_t lo, uint64_t hi) noexcept nogil

cdef enum Refusal:
    # why an action is refused (st_refusal); guandan.game words each one
    REFUSE_NONE = 0             # legal
    REFUSE_GAME_OVER = 1
    REFUSE_TRIBUTE_DUE = 2      # the tribute phase wants a tribute card
    REFUSE_RETURN_DUE = 3       # the return phase wants a return card
    REFUSE_NOT_IN_HAND = 4      # cards the seat does not hold
    REFUSE_TRIBUTE_CARD = 5     # not the highest card / a wild
    REFUSE_RETURN_CARD = 6      # not a card that may be returned
    REFUSE_NOT_A_PLAY = 7       # a tribute/return action in the play phase
    REFUSE_LEADER_PASS = 8      # the leader cannot pass
    REFUSE_DOES_NOT_BEAT = 9    # does not beat the play on the table
    REFUSE_OTHER = 10

cdef int st_refusal(State* st, Gen* g, MoveBuf* scratch, uint64_t lo, uint64_t hi) noexcept nogil


cdef class GameCore:
    # the native state plus an undo stack (guandan.Game wraps it; the search
    # tools and the solver read its state directly)
    cdef State st
    cdef State* stack
    cdef Py_ssize_t nstack
    cdef Py_ssize_t capstack
    cdef Gen* g
    cdef MoveBuf scratch
    cdef uint64_t prng[4]
    cdef Trail* trail          # built from the undo history for the searches (NULL: not yet)
    cdef Py_ssize_t trail_at   # the history length it was built at (-1: stale)
    cdef int _push(self) except -1
    cdef const Trail* _trail(self) noexcept


cdef class NativeView:
    # what one seat knows (a View), built once at the boundary: from an
    # observation's fields (range-checked) or from a GameCore
    cdef View v
    cdef Trail* trail          # this round's trail, built from the plays given (else NULL)
