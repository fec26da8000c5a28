# cython: language_level=3
"""The Python front of the move generator: card and level names, :class:`Hand`,
the move words' Python helpers (validation, faces, platform triples),
:class:`MoveList` and the batch entry point. The generator itself is
C-level, in ``_gen.pyx``; the contest platform's ``actionList`` order is in
``_contest.pyx``.
"""

from guandan._gen cimport (
    Gen, gen_new, gen_free, MoveBuf, buf_reserve, buf_free, generate_with, generate_batch,
    classify_into, beats, may_be_bomb, cannot_beat,
    words_shape_ok, move_type, move_key, move_size, card_count, is_seq_type, rank_at_position,
    gd_ctz64,
    FACE_MASK, TAG_SHIFT, T_PASS, T_SINGLE, T_PAIR, T_TRIPS, T_THREE_WITH_TWO, T_STRAIGHT,
    T_STRAIGHT_FLUSH, T_THREE_PAIR, T_BOMB, T_JOKER_BOMB, T_TRIBUTE, T_BACK, F_PATTERN, F_NO_WILD_SF,
)
from libc.stdlib cimport free
from libc.string cimport memcpy
from libc.stdint cimport uint8_t, uint64_t, int64_t

cimport cython
cimport numpy as cnp
import numpy as np
import operator

from .errors import (
    UnknownCardError, TooManyCopiesError, CardError, LevelError, InvalidMoveError,
)

cnp.import_array()

# ---------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------

RANK_CHARS = "23456789TJQKA"
MOVE_TAG_SHIFT = TAG_SHIFT         # move words: type (lo) / key (hi) start at this bit
MOVE_FACE_MASK = FACE_MASK         # move words: the face bits
SUIT_CHARS = "SHCD"
TYPE_NAMES = ("PASS", "Single", "Pair", "Trips", "ThreePair", "ThreeWithTwo",
              "TwoTrips", "Straight", "StraightFlush", "Bomb", "Bomb",
              "tribute", "back")

# Card strings of the 54 faces, and the reverse map.
FACE_STR = tuple([s + r for r in RANK_CHARS for s in SUIT_CHARS] + ["SB", "HR"])
cdef dict FACE_INDEX = {c: i for i, c in enumerate(FACE_STR)}

# ---------------------------------------------------------------------------
# Python-facing: levels, cards, hands
# ---------------------------------------------------------------------------

cdef dict _LEVEL_STR = {c: i for i, c in enumerate(RANK_CHARS)}
_LEVEL_STR["10"] = 8


cpdef int level_index(object level) except -1:
    """Rank index 0..12 of a level given as a rank letter ``'2'``..``'A'``
    (either case; ``'10'`` accepted for ``'T'``) or an integer 2..14.

    >>> level_index('2'), level_index('T'), level_index(14)
    (0, 8, 12)
    """
    cdef object r
    if isinstance(level, str):
        r = _LEVEL_STR.get(level.upper() if len(level) == 1 else level)
        if r is not None:
            return r
    elif isinstance(level, (int, np.integer)) and not isinstance(level, bool):
        if 2 <= level <= 14:
            return level - 2
    raise LevelError(f"level must be a rank letter 2-9, T, J, Q, K, A (or an int 2..14), "
                     f"got {level!r:.40}")


cpdef int face_index(object card) except -1:
    """Face index 0..53 of a card string (``'S2'`` .. ``'DA'``, ``'SB'``, ``'HR'``)."""
    cdef object f = FACE_INDEX.get(card) if isinstance(card, str) else None
    if f is None and isinstance(card, str) and len(card) == 2:
        f = FACE_INDEX.get(card.upper())          # lower case is accepted: 'h8', 'sb'
    if f is None:
        raise UnknownCardError(
            f"unknown card {card!r}: a card is a suit letter S/H/C/D followed by a rank "
            f"2-9/T/J/Q/K/A (e.g. 'S2', 'HT', 'DA'), or 'SB' (small joker) / 'HR' (big joker)")
    return f


cdef inline int _face_sort_key(int f, int level) noexcept:
    """Game order of faces: ranks 2..A with the level rank after A, then SB, HR;
    suits S, H, C, D within a rank. level < 0: natural order."""
    cdef int r
    if f >= 52:
        return f * 4 + 100
    r = f >> 2
    if r == level:
        return 13 * 4 + (f & 3)
    return f


def _masks_from_cards(cards):
    cdef uint64_t one = 0, two = 0, bit
    cdef int f
    if isinstance(cards, str):
        cards = cards.split()
    elif isinstance(cards, Hand):
        return (<Hand>cards).one, (<Hand>cards).two
    try:
        it = iter(cards)
    except TypeError:
        raise CardError(f"cards must be a string or an iterable of card strings, "
                        f"got {type(cards).__name__}") from None
    for c in it:
        f = face_index(c)
        bit = (<uint64_t>1) << f
        if two & bit:
            raise TooManyCopiesError(f"3 copies of {FACE_STR[f]} (at most 2: two decks)")
        if one & bit:
            two |= bit
        else:
            one |= bit
    return one, two


cdef list _faces_of(uint64_t one, uint64_t two):
    cdef list out = []
    cdef uint64_t m = one & FACE_MASK
    cdef int f
    while m:
        f = gd_ctz64(m)
        m &= m - 1
        out.append(f)
        if (two >> f) & 1:
            out.append(f)
    return out


cdef class Hand:
    """A multiset of cards (at most two copies of each of the 54 faces),
    stored as a bitboard.

    Accepts card strings in platform notation, as one space-separated string
    or an iterable; ``str()`` lists the cards in natural order and ``repr()``
    round-trips.

    >>> h = Hand("S2 H2 SB HR HR")
    >>> len(h), h.count("HR"), "S2" in h
    (5, 2, True)
    >>> h
    Hand('S2 H2 SB HR HR')
    >>> Hand(["DA", "S3"]).cards(level="3")
    ['DA', 'S3']
    """

    def __cinit__(self):
        self.one = 0
        self.two = 0

    def __init__(self, cards=()):
        self.one, self.two = _masks_from_cards(cards)

    @staticmethod
    def from_counts(counts):
        """A hand from 54 counts (0..2) indexed by face ``rank*4 + suit``
        (ranks 2..A, suits S H C D), 52 = SB, 53 = HR.

        >>> Hand.from_counts([1] + [0] * 52 + [2])
        Hand('S2 HR HR')
        """
        cdef Hand h = Hand.__new__(Hand)
        cdef int f, c
        cdef object x
        if isinstance(counts, (str, bytes)) or not hasattr(counts, "__iter__"):
            raise CardError(f"counts must be a sequence of 54 ints, got {type(counts).__name__}")
        counts = list(counts)
        if len(counts) != 54:
            raise CardError(f"counts must have 54 entries (one per face), got {len(counts)}")
        for f in range(54):
            x = counts[f]
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
                raise CardError(f"count for {FACE_STR[f]} must be an int 0..2, got {x!r}")
            x = int(x)
            if not 0 <= x <= 2:
                if x < 0:
                    raise CardError(f"negative count {x} for {FACE_STR[f]}")
                raise TooManyCopiesError(f"{x} copies of {FACE_STR[f]} (at most 2: two decks)")
            c = x
            if c < 0:
                raise CardError(f"negative count {c} for {FACE_STR[f]}")
            if c > 2:
                raise TooManyCopiesError(f"{c} copies of {FACE_STR[f]} (at most 2: two decks)")
            if c >= 1:
                h.one |= (<uint64_t>1) << f
            if c == 2:
                h.two |= (<uint64_t>1) << f
        return h

    @staticmethod
    def from_masks(one_, two_):
        """A hand from its two bitboard words (see :attr:`masks`)."""
        cdef Hand h = Hand.__new__(Hand)
        cdef uint64_t one, two
        one = _u64(one_, CardError, "masks")
        two = _u64(two_, CardError, "masks")
        if (one | two) & ~FACE_MASK or two & ~one:
            raise CardError("invalid masks: bits above 53 set, or a face in `two` missing from `one`")
        h.one = one
        h.two = two
        return h

    @property
    def masks(self):
        """``(one, two)``: faces held at least once, faces held twice (bit = face index)."""
        return (self.one, self.two)

    def counts(self):
        """The 54 counts as a ``numpy.uint8`` array (see :meth:`from_counts`)."""
        cdef cnp.ndarray[cnp.uint8_t, ndim=1] a = np.zeros(54, dtype=np.uint8)
        cdef int f
        for f in range(54):
            a[f] = ((self.one >> f) & 1) + ((self.two >> f) & 1)
        return a

    def __len__(self):
        return card_count(self.one, self.two)

    def __iter__(self):
        for f in _faces_of(self.one, self.two):
            yield FACE_STR[f]

    def __contains__(self, card):
        f = FACE_INDEX.get(card) if isinstance(card, str) else None
        if f is None and isinstance(card, str) and len(card) == 2:
            f = FACE_INDEX.get(card.upper())
        return f is not None and bool((self.one >> <int>f) & 1)

    def count(self, card):
        """How many copies of ``card`` the hand holds (0, 1 or 2)."""
        cdef int f = face_index(card)
        return <int>((self.one >> f) & 1) + <int>((self.two >> f) & 1)

    def cards(self, level=None):
        """The cards as a list of strings, in game order for ``level`` (the level
        rank after A, then SB, HR; suits S H C D), natural order if no level."""
        cdef int lv = -1 if level is None else level_index(level)
        faces = _faces_of(self.one, self.two)
        if lv >= 0:
            faces.sort(key=lambda f: _face_sort_key(f, lv))
        return [FACE_STR[f] for f in faces]

    def wilds(self, level):
        """Number of wild cards (hearts of the level rank) in the hand."""
        cdef int hb = 4 * level_index(level) + 1
        return <int>((self.one >> hb) & 1) + <int>((self.two >> hb) & 1)

    def __add__(self, other):
        cdef uint64_t o1, o2
        o1, o2 = _masks_from_cards(other)
        if self.two & o1 or o2 & self.one:
            raise TooManyCopiesError("adding these cards would give more than 2 copies of a face")
        return Hand.from_masks(self.one | o1, self.two | o2 | (self.one & o1))

    def __sub__(self, other):
        cdef uint64_t o1, o2, one = self.one, two = self.two, bit
        cdef int f
        o1, o2 = _masks_from_cards(other)
        for f in _faces_of(o1, o2):
            bit = (<uint64_t>1) << f
            if two & bit:
                two &= ~bit
            elif one & bit:
                one &= ~bit
            else:
                raise CardError(f"{FACE_STR[f]} is not in the hand")
        return Hand.from_masks(one, two)

    def __eq__(self, other):
        if not isinstance(other, Hand):
            return NotImplemented
        return self.one == (<Hand>other).one and self.two == (<Hand>other).two

    def __hash__(self):
        return hash((self.one, self.two))

    def __reduce__(self):
        return (Hand.from_masks, (self.one, self.two))

    def __str__(self):
        return " ".join(self)

    def __repr__(self):
        return f"Hand({str(self)!r})"

# ---------------------------------------------------------------------------
# Python-facing: move words, buffers, generation
# ---------------------------------------------------------------------------

cdef str _rank_letter(int t, int key):
    if t == T_PASS:
        return "PASS"
    if t == T_TRIBUTE:
        return "tribute"
    if t == T_BACK:
        return "back"
    if t == T_JOKER_BOMB:
        return "JOKER"
    if is_seq_type(t):
        return RANK_CHARS[rank_at_position(key)]
    if key == 13:
        return "B"
    if key == 14:
        return "R"
    return RANK_CHARS[key]


cdef list _group(list faces_of_rank, int r, int level, int nwild):
    """Cards of one group (an n-of-a-kind or a sequence slot) of rank r:
    naturals in suit order, then the wilds that fill it; for the level rank
    the level hearts sit in suit order (they stand for themselves)."""
    cdef list out = list(faces_of_rank)
    cdef int hb = 4 * level + 1
    out.extend([hb] * nwild)
    if r == level:
        out.sort()
    return out


cdef int words_valid(uint64_t lo, uint64_t hi, int level, bint wild_sf) noexcept nogil:
    """1 when (lo, hi) is a well-formed move at ``level``: the pass, a
    one-card tribute/return action, or one of the readings of its own cards;
    0 when not; -1 on allocation failure."""
    cdef MoveBuf buf
    cdef Py_ssize_t i
    cdef int rc, t = move_type(lo)
    if not words_shape_ok(lo, hi, level):
        return 0
    if t == T_PASS or t == T_TRIBUTE or t == T_BACK:
        return 1
    buf.data = NULL
    buf.n = 0
    buf.cap = 0
    rc = classify_into(lo & FACE_MASK, hi & FACE_MASK, level, _flags(False, wild_sf), &buf)
    if rc == 0:
        for i in range(buf.n):
            if buf.data[2 * i] == lo and buf.data[2 * i + 1] == hi:
                rc = 1
                break
    buf_free(&buf)
    return rc


cdef uint64_t _u64(object x, object error, str what) except? 0:
    """The validator of a 64-bit unsigned word from outside (ints and numpy
    integers, no bools), else ``error``."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise error(f"{what} must be 64-bit unsigned ints, got {type(x).__name__}")
    v = int(x)
    if not 0 <= v < (1 << 64):
        raise error(f"{what} must be 64-bit unsigned ints, got {v}")
    return <uint64_t>v


cdef inline uint64_t _word(object x, str what) except? 0:
    return _u64(x, InvalidMoveError, f"move {what}")


def check_move_words(lo, hi, level, bint wild_sf=True):
    """The validator for move words from outside: returns ``(lo, hi, level)``
    as ints when they are a well-formed move at level index ``level``
    (0..12), else raises :class:`InvalidMoveError` (:class:`LevelError` for
    the level). Used by ``Move(lo, hi, level)`` and every entry point that
    takes raw words."""
    cdef uint64_t a = _word(lo, "word lo"), b = _word(hi, "word hi")
    cdef int lv, rc
    if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, np.integer)) \
            or not 0 <= int(level) <= 12:
        raise LevelError(f"a move's level index must be an int 0..12, got {level!r:.40}")
    lv = int(level)
    rc = words_valid(a, b, lv, wild_sf)
    if rc < 0:
        raise MemoryError("move buffer allocation failed")
    if rc == 0:
        raise InvalidMoveError(f"not a valid move at level {RANK_CHARS[lv]}: words "
                               f"({a:#018x}, {b:#018x})")
    return (int(a), int(b), lv)


cdef int _shape_or_raise(uint64_t lo, uint64_t hi, int level) except -1:
    if not words_shape_ok(lo, hi, level):
        raise InvalidMoveError(f"malformed move words ({lo:#018x}, {hi:#018x}) at level index {level}")
    return 0


def move_faces(uint64_t lo, uint64_t hi, int level):
    """Face indices of a move's cards in the platform's order: sequences from
    the lowest rank up, a full house's triple then pair, other types in suit
    order with wilds last; each wild where it fills."""
    _shape_or_raise(lo, hi, level)
    cdef int t = move_type(lo)
    cdef int key = move_key(hi)
    cdef uint64_t one = lo & FACE_MASK, two = hi & FACE_MASK
    cdef int hb = 4 * level + 1, nw, f, r, s, per, nslots, need
    cdef list faces = _faces_of(one, two)
    cdef list nat, out, rest
    nw = <int>((one >> hb) & 1) + <int>((two >> hb) & 1)
    nat = [f for f in faces if f != hb]
    if t in (T_PASS, T_SINGLE, T_JOKER_BOMB, T_TRIBUTE, T_BACK) or key >= 13:
        return faces
    if t in (T_PAIR, T_TRIPS, T_BOMB):
        return _group(nat, key, level, nw)
    if t == T_THREE_WITH_TWO:
        trip = [f for f in nat if f >> 2 == key]
        rest = [f for f in nat if f >> 2 != key]
        need = 3 - len(trip)
        out = _group(trip, key, level, need)
        if rest:
            out.extend(_group(rest, rest[0] >> 2 if rest[0] < 52 else -1, level, nw - need))
        else:
            out.extend([hb] * (nw - need))
        return out
    per = 1 if t in (T_STRAIGHT, T_STRAIGHT_FLUSH) else (2 if t == T_THREE_PAIR else 3)
    nslots = 5 if per == 1 else (3 if per == 2 else 2)
    out = []
    for s in range(nslots):
        r = rank_at_position(key + s)
        grp = [f for f in nat if f >> 2 == r]
        out.extend(_group(grp, r, level, per - len(grp)))
    return out


def move_info(uint64_t lo, uint64_t hi):
    """``(type, key, size)`` of a move word pair."""
    _shape_or_raise(lo, hi, 0)
    return (<int>move_type(lo), <int>move_key(hi), move_size(lo, hi))


def move_rank(uint64_t lo, uint64_t hi):
    """The platform rank letter of a move."""
    _shape_or_raise(lo, hi, 0)
    return _rank_letter(move_type(lo), move_key(hi))


def move_platform(uint64_t lo, uint64_t hi, int level):
    """``[type, rank, [cards]]`` exactly as the contest platform writes it."""
    _shape_or_raise(lo, hi, level)
    cdef int t = move_type(lo)
    if t == T_PASS:
        return ["PASS", "PASS", "PASS"]
    return [TYPE_NAMES[t], _rank_letter(t, move_key(hi)),
            [FACE_STR[f] for f in move_faces(lo, hi, level)]]


def move_beats(uint64_t a_lo, uint64_t a_hi, uint64_t b_lo, uint64_t b_hi, int level):
    _shape_or_raise(a_lo, a_hi, level)
    _shape_or_raise(b_lo, b_hi, level)
    return beats(a_lo, a_hi, b_lo, b_hi, level)


# The Python Move class (guandan.moves registers it at import).
cdef object _MOVE_CLS = None
cdef object _MOVE_NEW = None        # trusted constructor (words known valid)


def _register_move_class(cls):
    global _MOVE_CLS, _MOVE_NEW
    _MOVE_CLS = cls
    _MOVE_NEW = cls._from_native


# One cached scratch Gen for calls made with the GIL held (taken and given back
# under the GIL, so concurrent threads simply allocate their own).
cdef Gen* _gen_cache = NULL


cdef Gen* _take_gen() except NULL:
    global _gen_cache
    cdef Gen* g = _gen_cache
    _gen_cache = NULL
    if g == NULL:
        g = gen_new()
        if g == NULL:
            raise MemoryError("generator scratch allocation failed")
    return g


cdef void _give_gen(Gen* g) noexcept:
    global _gen_cache
    if _gen_cache == NULL:
        _gen_cache = g
    else:
        gen_free(g)


cdef class MoveList:
    """The legal moves of one position: a lazy, indexable sequence of
    :class:`~guandan.Move`.

    The moves live in a native buffer of 16-byte words; a ``Move`` object is
    built only when an element is read. Order: the generator's (docs/rules.md,
    "Order of the move list"): the pass first when following, then the
    platform's types in order (Single, Pair, Trips, ThreePair, ThreeWithTwo,
    TwoTrips, Straight, 4-card bombs, 5-card bombs, StraightFlush, 6..10-card
    bombs, joker bomb), keys in natural order; :func:`contest_order` gives
    the platform's exact ``actionList`` order.
    """

    def __cinit__(self):
        self.buf.data = NULL
        self.buf.n = 0
        self.buf.cap = 0
        self._level = 0

    def __dealloc__(self):
        buf_free(&self.buf)

    def __len__(self):
        return self.buf.n

    @property
    def level(self):
        """The level (rank letter) the moves were generated at."""
        return RANK_CHARS[self._level]

    cdef object _move(self, Py_ssize_t i):
        # words from the generator: no validation needed
        return _MOVE_NEW(self.buf.data[2 * i], self.buf.data[2 * i + 1], self._level)

    def __getitem__(self, i):
        cdef Py_ssize_t k
        if isinstance(i, slice):
            return [self._move(k) for k in range(*i.indices(self.buf.n))]
        try:
            j = operator.index(i)
        except TypeError:
            raise TypeError(f"move indices must be integers or slices, not {type(i).__name__}") from None
        if j < 0:
            j += self.buf.n
        if j < 0 or j >= self.buf.n:
            raise IndexError("move index out of range")
        k = j
        return self._move(k)

    def __iter__(self):
        cdef Py_ssize_t k
        for k in range(self.buf.n):
            yield self._move(k)

    def __reversed__(self):
        cdef Py_ssize_t k
        for k in range(self.buf.n - 1, -1, -1):
            yield self._move(k)

    cpdef tuple raw(self, object i):
        """The native words ``(lo, hi)`` of move ``i``."""
        cdef Py_ssize_t k
        j = operator.index(i)
        if j < 0:
            j += self.buf.n
        if j < 0 or j >= self.buf.n:
            raise IndexError("move index out of range")
        k = j
        return (self.buf.data[2 * k], self.buf.data[2 * k + 1])

    def find(self, lo_, hi_):
        """Index of the move with words (lo, hi), or -1."""
        cdef Py_ssize_t i
        cdef uint64_t lo, hi
        try:
            lo = _u64(lo_, InvalidMoveError, "move words")
            hi = _u64(hi_, InvalidMoveError, "move words")
        except InvalidMoveError:
            return -1
        for i in range(self.buf.n):
            if self.buf.data[2 * i] == lo and self.buf.data[2 * i + 1] == hi:
                return i
        return -1

    def index_of(self, move):
        """Index of ``move`` (a Move or a platform triple), or -1."""
        if not isinstance(move, _MOVE_CLS):
            try:
                move = _MOVE_CLS.from_platform(move, self._level + 2)
            except ValueError:
                return -1
        lo, hi = move.words
        return self.find(lo, hi)

    def index(self, move, start=0, stop=None):
        """First index of ``move`` in ``[start, stop)`` (as ``list.index``)."""
        cdef Py_ssize_t i = self.index_of(move)
        cdef Py_ssize_t a, b
        a, b, _ = slice(start, stop).indices(self.buf.n)
        if i < 0 or not a <= i < b:
            raise ValueError(f"{move} is not in the list")
        return i

    def count(self, move):
        return 1 if self.index_of(move) >= 0 else 0

    def __contains__(self, move):
        return self.index_of(move) >= 0

    def to_numpy(self):
        """The moves as a read-only ``(n, 2)`` ``uint64`` array of (lo, hi)
        words, viewing this buffer (no copy); see :class:`~guandan.MoveBatch`."""
        cdef cnp.npy_intp dims[2]
        if self.buf.n == 0:
            return np.empty((0, 2), dtype=np.uint64)
        dims[0] = self.buf.n
        dims[1] = 2
        arr = cnp.PyArray_SimpleNewFromData(2, dims, cnp.NPY_UINT64, self.buf.data)
        cnp.set_array_base(arr, self)
        arr.flags.writeable = False
        return arr

    def to_platform(self):
        """Every move as a platform triple ``[type, rank, [cards]]`` (the
        ``actionList`` of an ``act`` message)."""
        cdef Py_ssize_t i
        return [move_platform(self.buf.data[2 * i], self.buf.data[2 * i + 1], self._level)
                for i in range(self.buf.n)]

    def __repr__(self):
        return f"<MoveList of {self.buf.n} moves at level {RANK_CHARS[self._level]}>"


cdef inline int _flags(bint pattern, bint wild_sf) noexcept nogil:
    return (F_PATTERN if pattern else 0) | (0 if wild_sf else F_NO_WILD_SF)


def generate_moves(Hand hand, int level, uint64_t last_lo=0, uint64_t last_hi=0,
                   bint pattern=False, bint wild_sf=True):
    """Native generation into a new :class:`MoveList` (no validation of
    ``last``: callers pass words of a classified move)."""
    cdef MoveList b = MoveList.__new__(MoveList)
    cdef int rc
    cdef int flags = _flags(pattern, wild_sf)
    cdef Gen* g
    if level < 0 or level > 12:
        raise LevelError(f"level index must be 0..12, got {level}")
    b._level = level
    g = _take_gen()
    with nogil:
        rc = generate_with(g, hand.one, hand.two, level, last_lo, last_hi, flags, &b.buf)
    _give_gen(g)
    if rc < 0:
        raise MemoryError("move buffer allocation failed")
    return b


def classify_masks(uint64_t one, uint64_t two, int level, bint wild_sf=True):
    """Every reading of exactly these cards as ``[(lo, hi), ...]``, highest first."""
    cdef MoveBuf buf
    cdef int rc
    cdef Py_ssize_t i
    buf.data = NULL
    buf.n = 0
    buf.cap = 0
    if level < 0 or level > 12:
        raise LevelError(f"level index must be 0..12, got {level}")
    with nogil:
        rc = classify_into(one, two, level, _flags(False, wild_sf), &buf)
    try:
        if rc < 0:
            raise MemoryError("move buffer allocation failed")
        return [(buf.data[2 * i], buf.data[2 * i + 1]) for i in range(buf.n)]
    finally:
        buf_free(&buf)


# ---------------------------------------------------------------------------
# Batch entry point
# ---------------------------------------------------------------------------

# The batch output pool. A batch's words live in one large buffer (12 KB per
# 27-card hand); fresh memory of that size comes from the kernel page by
# page, and the first touch of each page was 1-4 us per hand on top of the
# generator. So the buffer of a batch result goes back to this pool when
# the last array using it is freed, and the next batch generates into it,
# already mapped. Taken and given back with the GIL held (a dropped
# result's owner is deallocated under the GIL); a buffer is in the pool
# only when no array views it, so results are never invalidated, and
# threads that run batches at the same time simply allocate their own.
# One buffer of at most POOL_MAX_MOVES moves is kept (larger ones are freed).
cdef MoveBuf _batch_pool            # data NULL: empty
_batch_pool.data = NULL
_batch_pool.n = 0
_batch_pool.cap = 0
cdef Py_ssize_t POOL_MAX_MOVES = 1 << 22      # 64 MB


cdef MoveBuf _pool_take() noexcept:
    global _batch_pool
    cdef MoveBuf b = _batch_pool
    _batch_pool.data = NULL
    _batch_pool.n = 0
    _batch_pool.cap = 0
    b.n = 0
    return b


cdef void _pool_give(MoveBuf* b) noexcept:
    global _batch_pool
    if b.data != NULL and _batch_pool.data == NULL and b.cap <= POOL_MAX_MOVES:
        _batch_pool = b[0]
        _batch_pool.n = 0
    else:
        free(b.data)
    b.data = NULL
    b.n = 0
    b.cap = 0


cdef class _BatchWords:
    """Owner of a batch's word buffer (the base of its ``words`` array);
    gives the buffer back to the pool when freed."""
    cdef MoveBuf buf

    def __cinit__(self):
        self.buf.data = NULL
        self.buf.n = 0
        self.buf.cap = 0

    def __dealloc__(self):
        _pool_give(&self.buf)


cdef object _owned_array(MoveBuf* buf):
    """A (n, 2) uint64 array viewing `buf`'s data, which moves into an
    owner kept alive as the array's base (no copy)."""
    cdef _BatchWords owner
    cdef cnp.npy_intp dims[2]
    if buf.n == 0:
        _pool_give(buf)
        return np.empty((0, 2), dtype=np.uint64)
    owner = _BatchWords.__new__(_BatchWords)
    owner.buf = buf[0]
    buf.data = NULL
    buf.n = 0
    buf.cap = 0
    dims[0] = owner.buf.n
    dims[1] = 2
    arr = cnp.PyArray_SimpleNewFromData(2, dims, cnp.NPY_UINT64, owner.buf.data)
    cnp.set_array_base(arr, owner)
    return arr


cdef object c_array(object a, object dtype, int ndim, Py_ssize_t cols, str name):
    """``a`` when it is a C-contiguous ndarray of ``dtype`` with ``ndim``
    dimensions (and ``cols`` columns when 2-D), else ValueError. (Raw data
    pointers instead of typed memoryviews: the memoryview support code is
    ~22,000 lines of C per module, most of its compile time.)"""
    if (not isinstance(a, np.ndarray) or a.dtype != dtype or a.ndim != ndim
            or not a.flags.c_contiguous or (ndim == 2 and a.shape[1] != cols)):
        shape = f"(n, {cols})" if ndim == 2 else "(n,)"
        raise ValueError(f"{name} must be a C-contiguous {np.dtype(dtype).name} array of shape {shape}")
    return a


@cython.boundscheck(False)
@cython.wraparound(False)
def _may_be_bomb(uint64_t one, uint64_t two, int level):
    """The generator's quick test (``may_be_bomb`` in _gen.pxd), for tests:
    False when the cards cannot all be one bomb."""
    if level < 0 or level > 12:
        raise LevelError(f"level index must be 0..12, got {level}")
    return bool(may_be_bomb(one & FACE_MASK, two & FACE_MASK, level))


@cython.boundscheck(False)
@cython.wraparound(False)
def _cannot_beat(uint64_t one, uint64_t two, int level, uint64_t top_lo, uint64_t top_hi):
    """The generator's quick test (``cannot_beat`` in _gen.pxd), for tests:
    True only when nothing in the hand beats the play (top_lo, top_hi)."""
    if level < 0 or level > 12:
        raise LevelError(f"level index must be 0..12, got {level}")
    return bool(cannot_beat(one & FACE_MASK, two & FACE_MASK, level, top_lo, top_hi))


def batch_generate(counts_, levels_, last_, bint pattern=False, bint wild_sf=True):
    """Native loop over many hands (validated by the caller: ``counts``
    uint8 (n, 54), ``levels`` int64 (n,), ``last`` uint64 (n or 0, 2)).
    Returns ``(offsets int64[n+1], moves uint64[m, 2])``; the GIL is released."""
    counts_ = c_array(counts_, np.uint8, 2, 54, "counts")
    levels_ = c_array(levels_, np.int64, 1, 0, "levels")
    last_ = c_array(last_, np.uint64, 2, 2, "last")
    cdef Py_ssize_t n = counts_.shape[0]
    if levels_.shape[0] != n or last_.shape[0] not in (0, n):
        raise ValueError("one level (and none or one play to beat) per hand")
    cdef const uint8_t* counts = <const uint8_t*>cnp.PyArray_DATA(counts_)
    cdef const int64_t* levels = <const int64_t*>cnp.PyArray_DATA(levels_)
    cdef const uint64_t* last = <const uint64_t*>cnp.PyArray_DATA(last_)
    cdef MoveBuf buf
    cdef int rc = 0, flags = _flags(pattern, wild_sf)
    cdef cnp.ndarray offsets = np.empty(n + 1, dtype=np.int64)
    cdef int64_t* off = <int64_t*>cnp.PyArray_DATA(offsets)
    cdef bint has_last = last_.shape[0] > 0
    cdef Gen* g = _take_gen()
    buf = _pool_take()
    off[0] = 0
    with nogil:
        rc = buf_reserve(&buf, n * (64 if pattern else 256) + 16)
        if rc == 0:
            rc = generate_batch(g, counts, levels, last, has_last, n, flags, &buf, off)
    _give_gen(g)
    if rc < 0:
        buf_free(&buf)
        raise MemoryError("move buffer allocation failed")
    return offsets, _owned_array(&buf)


def make_movelist(words, int level):
    """A :class:`MoveList` holding the given ``(m, 2)`` move words (copied)."""
    cdef cnp.ndarray[cnp.uint64_t, ndim=2] w = np.ascontiguousarray(words, dtype=np.uint64).reshape(-1, 2)
    cdef MoveList ml = MoveList.__new__(MoveList)
    cdef Py_ssize_t n = w.shape[0]
    if level < 0 or level > 12:
        raise LevelError(f"level index must be 0..12, got {level}")
    ml._level = level
    if n:
        if buf_reserve(&ml.buf, n) < 0:
            raise MemoryError()
        memcpy(ml.buf.data, cnp.PyArray_DATA(w), n * 16)
        ml.buf.n = n
    return ml
