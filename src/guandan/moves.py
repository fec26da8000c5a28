"""Plays: :class:`Move`, :class:`MoveType`, the lazy :class:`MoveList`, and
the public entry points :func:`legal_moves`, :func:`classify` and
:func:`legal_moves_batch`.

A move is the triple (type, key rank, card multiset) of docs/rules.md. Internally
it is 16 bytes (two 64-bit words, see ``_gen.pyx``); :class:`Move` is a thin
view over them, built only when asked for.

>>> from guandan import legal_moves
>>> moves = legal_moves("S5 D5 H2 C6", "2")
>>> len(moves), str(moves[0])
(9, 'Single 2 H2')
>>> [str(m) for m in moves if m.type == MoveType.PAIR]
['Pair 5 S5 D5', 'Pair 5 S5 H2', 'Pair 5 D5 H2', 'Pair 6 C6 H2']
>>> follow = legal_moves("S5 D5 H2 C6", "2", last=["Pair", "4", ["S4", "C4"]])
>>> [str(m) for m in follow]
['PASS', 'Pair 5 S5 D5', 'Pair 5 S5 H2', 'Pair 5 D5 H2', 'Pair 6 C6 H2']
"""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence as _SequenceABC
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _contest, _core
from ._core import Hand
from .errors import CardError, GuandanError, InvalidMoveError, LevelError, TooManyCopiesError
from .rules import Rules

__all__ = [
    "MoveType", "Move", "MoveList", "MoveBatch",
    "legal_moves", "classify", "legal_moves_batch", "parse_move", "contest_order", "ORDERS",
]

ORDERS = ("generator", "contest")

_TAG = _core.MOVE_TAG_SHIFT
_FACE_MASK = _core.MOVE_FACE_MASK
_TYPE_MASK = 15           # the move type: 4 bits of the low word above the faces
_KEY_MASK = 31            # the move key: 5 bits of the high word above the faces


class MoveType(enum.IntEnum):
    """Combination types, valued in the platform's ``actionList`` order."""

    PASS = 0
    SINGLE = 1
    PAIR = 2
    TRIPS = 3
    THREE_PAIR = 4        # tube: three consecutive pairs
    THREE_WITH_TWO = 5    # full house
    TWO_TRIPS = 6         # plate: two consecutive triples
    STRAIGHT = 7
    STRAIGHT_FLUSH = 8
    BOMB = 9
    JOKER_BOMB = 10
    TRIBUTE = 11          # tribute card (game engine)
    BACK = 12             # return card (game engine)

    @property
    def platform(self) -> str:
        """The contest platform's type name (``"Single"``, ``"ThreeWithTwo"`` ...)."""
        return _core.TYPE_NAMES[self.value]

    @property
    def is_bomb(self) -> bool:
        """Bombs, straight flushes and the joker bomb beat any non-bomb."""
        return self in (MoveType.BOMB, MoveType.STRAIGHT_FLUSH, MoveType.JOKER_BOMB)


_TYPE_BY_NAME = {
    "Single": MoveType.SINGLE, "Pair": MoveType.PAIR, "Trips": MoveType.TRIPS,
    "ThreePair": MoveType.THREE_PAIR, "ThreeWithTwo": MoveType.THREE_WITH_TWO,
    "TwoTrips": MoveType.TWO_TRIPS, "Straight": MoveType.STRAIGHT,
    "StraightFlush": MoveType.STRAIGHT_FLUSH, "Bomb": MoveType.BOMB,
    "PASS": MoveType.PASS, "tribute": MoveType.TRIBUTE, "back": MoveType.BACK,
}
_TYPE_BY_LOWER = {k.lower(): k for k in _TYPE_BY_NAME}      # text input: any case
_RANK_LETTERS = set("23456789TJQKABR") | {"JOKER"}
_NOT_PLAYS = (MoveType.TRIBUTE, MoveType.BACK)
_new_move = object.__new__
_LEVEL_INDEX = {c: i for i, c in enumerate(_core.RANK_CHARS)}


# -- the move words' fields (the one reader of them in Python) -------------------------

def _word_type(lo: int) -> int:
    """The move type (a :class:`MoveType` value) of a move's low word."""
    return (lo >> _TAG) & _TYPE_MASK


def _word_key(hi: int) -> int:
    """The key (rank or strength) of a move's high word."""
    return (hi >> _TAG) & _KEY_MASK


def _word_types(lo: np.ndarray) -> np.ndarray:
    """:func:`_word_type` of an array of low words (``uint8``)."""
    return ((lo >> np.uint64(_TAG)) & np.uint64(_TYPE_MASK)).astype(np.uint8)


def _word_keys(hi: np.ndarray) -> np.ndarray:
    """:func:`_word_key` of an array of high words (``uint8``)."""
    return ((hi >> np.uint64(_TAG)) & np.uint64(_KEY_MASK)).astype(np.uint8)


def _is_play_word(lo: int) -> bool:
    """Whether a move's low word is a play or the pass (not a tribute or
    return card)."""
    return _word_type(lo) not in _NOT_PLAYS


# -- the level: an index 0..12 inside, the public ``level`` argument outside ------------

def _level_arg(lv: int) -> int:
    """The public ``level`` argument (the rank 2..14) of a level index: the one
    conversion from the internal currency back to the API's."""
    return lv + 2


def _parse_at(text: Any, lv: int, rules: Optional[Rules]) -> "Move":
    """:func:`parse_move` at level index ``lv``."""
    return parse_move(text, _level_arg(lv), rules=rules)


def _classify_at(cards: Any, lv: int, rules: Optional[Rules]) -> List["Move"]:
    """:func:`classify` at level index ``lv``."""
    return classify(cards, _level_arg(lv), rules=rules)


def _from_platform_at(triple: Any, lv: int, rules: Optional[Rules]) -> "Move":
    """:meth:`Move.from_platform` at level index ``lv``."""
    return Move.from_platform(triple, _level_arg(lv), rules=rules)


def _cards_at(hand: Hand, lv: int) -> List[str]:
    """The cards of ``hand`` in game order at level index ``lv``."""
    return hand.cards(_level_arg(lv))


def _wild_sf(rules: Optional[Rules]) -> bool:
    if rules is None:
        return True
    if not isinstance(rules, Rules):
        raise GuandanError(f"rules must be a guandan.Rules, got {type(rules).__name__}")
    return rules.wild_straight_flush


class Move:
    """One play: ``(type, rank, cards)``, at a given level.

    Build one with :meth:`from_platform` or :meth:`from_cards`, or take it
    from :func:`legal_moves`. Two moves are equal when type, rank and card
    multiset are equal.

    >>> m = Move.from_platform(["ThreeWithTwo", "4", ["H4", "C4", "H2", "S6", "D6"]], "2")
    >>> m.type, m.rank, m.cards
    (<MoveType.THREE_WITH_TWO: 5>, '4', ('H4', 'C4', 'H2', 'S6', 'D6'))
    >>> m.beats(Move.from_cards("S3 H3 D3 D9 S9", "2"))
    True
    >>> Move.from_platform(m.to_platform(), "2") == m
    True
    """

    __slots__ = ("_lo", "_hi", "_level")

    def __init__(self, lo: int, hi: int, level: int = 0) -> None:
        # Low-level constructor from the native words (see MoveBatch) and a
        # level index 0..12; validated: words that are not a move at that
        # level raise InvalidMoveError. Prefer from_platform/from_cards.
        self._lo, self._hi, self._level = _core.check_move_words(lo, hi, level)

    @classmethod
    def _from_native(cls, lo: int, hi: int, level: int) -> "Move":
        # Words the native code produced (always valid): no validation.
        m = _new_move(cls)
        m._lo = lo
        m._hi = hi
        m._level = level
        return m

    # -- constructors ---------------------------------------------------
    @classmethod
    def pass_move(cls) -> "Move":
        """The pass ``["PASS", "PASS", "PASS"]``."""
        return cls._from_native(0, 0, 0)

    @classmethod
    def from_platform(cls, triple: Any, level: Any, *, rules: Optional[Rules] = None) -> "Move":
        """Validate a platform triple ``[type, rank, cards]`` at ``level``.

        Raises :class:`InvalidMoveError` when the type is unknown or the cards
        do not form that type and rank (wild cards included), and
        :class:`UnknownCardError` / :class:`TooManyCopiesError` for bad cards.

        >>> Move.from_platform(["Straight", "5", ["H2", "S6", "S7", "S8", "D9"]], "2").rank
        '5'
        >>> Move.from_platform(["Pair", "5", ["S5", "S6"]], "2")
        Traceback (most recent call last):
        ...
        guandan.errors.InvalidMoveError: S5 S6 do not form Pair 5 at level 2 (they form: nothing)
        """
        lv = _core.level_index(level)
        if isinstance(triple, Move):
            triple = triple.to_platform()
        if isinstance(triple, str):
            try:
                triple = json.loads(triple)
            except (ValueError, RecursionError):
                raise InvalidMoveError(f"not a JSON triple: {triple[:80]!r}") from None
        if not isinstance(triple, (list, tuple)) or len(triple) != 3:
            raise InvalidMoveError(f"a move is [type, rank, cards], got {triple!r}")
        tname, rank, cards = triple
        if not isinstance(tname, str) or tname not in _TYPE_BY_NAME:
            raise InvalidMoveError(
                f"unknown move type {tname!r}; known: {', '.join(_TYPE_BY_NAME)}")
        t = _TYPE_BY_NAME[tname]
        if t == MoveType.PASS:
            if rank != "PASS" or not (cards is None or (isinstance(cards, (str, list, tuple))
                                                         and cards in ("PASS", [], ()))):
                raise InvalidMoveError(f"a pass is ['PASS', 'PASS', 'PASS'], got {triple!r}")
            return cls.pass_move()
        if not isinstance(rank, str) or rank not in _RANK_LETTERS | {"tribute", "back"}:
            raise InvalidMoveError(f"unknown rank {rank!r} in {triple!r}")
        if isinstance(cards, str) or not isinstance(cards, (list, tuple)):
            raise InvalidMoveError(f"the cards of a move are a list of card strings, got {cards!r}")
        one, two = _core._masks_from_cards(cards)
        if t in (MoveType.TRIBUTE, MoveType.BACK):
            if rank != tname or len(cards) != 1:
                raise InvalidMoveError(f"a {tname} is [{tname!r}, {tname!r}, [card]], got {triple!r}")
            return cls._from_native(one | (int(t) << _TAG), two, lv)
        if t == MoveType.BOMB and rank == "JOKER":
            t = MoveType.JOKER_BOMB
        readings = _core.classify_masks(one, two, lv, _wild_sf(rules))
        for lo, hi in readings:
            if _word_type(lo) == t and _core.move_rank(lo, hi) == rank:
                return cls._from_native(lo, hi, lv)
        found = ", ".join(str(cls._from_native(lo, hi, lv)) for lo, hi in readings) or "nothing"
        raise InvalidMoveError(
            f"{' '.join(map(str, cards)) or 'no cards'} do not form {tname} {rank} at level "
            f"{_core.RANK_CHARS[lv]} (they form: {found})")

    @classmethod
    def from_cards(cls, cards: Any, level: Any, *, rules: Optional[Rules] = None) -> "Move":
        """The default (highest) reading of exactly these cards.

        >>> str(Move.from_cards("SK DK H5 S2 D2", "5"))
        'ThreeWithTwo K SK DK H5 S2 D2'
        """
        readings = classify(cards, level, rules=rules)
        if not readings:
            raise InvalidMoveError(f"{' '.join(map(str, _as_list(cards)))} do not form any play "
                                   f"at level {level}")
        return readings[0]

    # -- attributes -------------------------------------------------------
    @property
    def type(self) -> MoveType:
        return MoveType(_word_type(self._lo))

    @property
    def rank(self) -> str:
        """The platform rank letter (sequences: the lowest card, ``A`` = ace-low)."""
        return _core.move_rank(self._lo, self._hi)

    @property
    def cards(self) -> Tuple[str, ...]:
        """The cards in the platform's order (sequences from the lowest rank up,
        a full house's triple then pair, wild cards where they fill)."""
        return tuple(_core.FACE_STR[f] for f in _core.move_faces(self._lo, self._hi, self._level))

    @property
    def level(self) -> str:
        """The level this move was read at (rank letter)."""
        return _core.RANK_CHARS[self._level]

    @property
    def words(self) -> Tuple[int, int]:
        """The two native 64-bit words ``(lo, hi)`` (see :class:`MoveBatch`)."""
        return (self._lo, self._hi)

    @property
    def is_pass(self) -> bool:
        return self._lo == 0

    @property
    def is_bomb(self) -> bool:
        return self.type.is_bomb

    def __len__(self) -> int:
        return _core.move_info(self._lo, self._hi)[2]

    def to_platform(self) -> List[Any]:
        """``[type, rank, [cards]]`` exactly as the platform writes it.

        >>> Move.pass_move().to_platform()
        ['PASS', 'PASS', 'PASS']
        >>> Move.from_cards("SB SB HR HR", "2").to_platform()
        ['Bomb', 'JOKER', ['SB', 'SB', 'HR', 'HR']]
        """
        return _core.move_platform(self._lo, self._hi, self._level)

    def hand(self) -> Hand:
        """The cards as a :class:`Hand`."""
        return Hand.from_masks(self._lo & _FACE_MASK, self._hi & _FACE_MASK)

    def beats(self, other: Union["Move", Sequence[Any], None]) -> bool:
        """Whether this play may follow ``other`` (``None`` or a pass: anything
        but a pass may lead). Compared at this move's level.

        >>> lv = "7"
        >>> Move.from_cards("S7 S7", lv).beats(Move.from_cards("SA DA", lv))
        True
        """
        if self.type in _NOT_PLAYS:
            raise InvalidMoveError(f"{self} is a {self.type.platform} action, not a play")
        if other is None:
            return not self.is_pass
        if not isinstance(other, Move):
            other = _from_platform_at(other, self._level, None)
        if other.type in _NOT_PLAYS:
            raise InvalidMoveError(f"{other} is a {other.type.platform} action, not a play to beat")
        return bool(_core.move_beats(self._lo, self._hi, other._lo, other._hi, self._level))

    # -- protocol -------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self._lo == other._lo and self._hi == other._hi
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self._lo, self._hi))

    def sort_key(self) -> Tuple[int, int, Tuple[int, ...]]:
        """The key moves sort by: type (:class:`MoveType` value), then
        strength (level order for rank-keyed types, the lowest card's natural
        position for sequences; bombs by size, then rank), then the cards
        (face indices in the move's card order). ``min(moves)`` is the lowest
        play of the lowest type."""
        t = _word_type(self._lo)
        key = _word_key(self._hi)
        if t in (MoveType.STRAIGHT, MoveType.STRAIGHT_FLUSH, MoveType.THREE_PAIR, MoveType.TWO_TRIPS):
            strength = key
        elif t == MoveType.PASS or t in _NOT_PLAYS:
            strength = 0
        else:
            strength = 13 if key == self._level else (key + 1 if key >= 13 else key)
            if t == MoveType.BOMB:
                strength += 16 * len(self)
        return (t, strength, tuple(_core.move_faces(self._lo, self._hi, self._level)))

    def __lt__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self.sort_key() < other.sort_key()
        return NotImplemented

    def __le__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self.sort_key() <= other.sort_key()
        return NotImplemented

    def __gt__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self.sort_key() > other.sort_key()
        return NotImplemented

    def __ge__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self.sort_key() >= other.sort_key()
        return NotImplemented

    def __str__(self) -> str:
        if self.is_pass:
            return "PASS"
        t, r, cards = self.to_platform()
        return f"{t} {r} {' '.join(cards)}"

    def __repr__(self) -> str:
        return f"Move({self.to_platform()!r}, level={self.level!r})"

    def __reduce__(self):
        return (Move, (self._lo, self._hi, self._level))


def _as_list(cards: Any) -> List[str]:
    return cards.split() if isinstance(cards, str) else list(cards)


def parse_move(text: Any, level: Any, *, rules: Optional[Rules] = None) -> Move:
    """A move from text: a JSON triple, ``"PASS"``, ``"TYPE RANK CARD..."`` as
    :class:`Move` prints (type, rank and cards in any case), or bare cards
    (their default reading; :meth:`Game.play` instead takes the one reading
    that is legal now).

    >>> str(parse_move("Pair 5 S5 D5", "2")), str(parse_move("S5 D5", "2"))
    ('Pair 5 S5 D5', 'Pair 5 S5 D5')
    >>> parse_move('["Single","A",["DA"]]', "2").cards
    ('DA',)
    """
    if isinstance(text, Move):
        return text
    if not isinstance(text, str):
        return Move.from_platform(text, level, rules=rules)
    s = text.strip()
    if s.startswith("["):
        return Move.from_platform(s, level, rules=rules)
    parts = s.split()
    if not parts or parts[0].upper() == "PASS" and len(parts) == 1:
        return Move.pass_move()
    tname = _TYPE_BY_LOWER.get(parts[0].lower())
    if tname is not None:
        if len(parts) < 3:
            raise InvalidMoveError(f"expected 'TYPE RANK CARD...', got {text!r:.80}")
        rank = parts[1] if parts[1] in _RANK_LETTERS or tname in ("tribute", "back") else parts[1].upper()
        return Move.from_platform([tname, rank, parts[2:]], level, rules=rules)
    return Move.from_cards(parts, level, rules=rules)


def _is_bare_cards(text: Any) -> bool:
    """Whether ``text`` is bare cards (no type and rank given): the plays
    :meth:`Game.play` reads by what is legal now."""
    if not isinstance(text, str):
        return False
    parts = text.split()
    return bool(parts) and not text.lstrip().startswith("[") and parts[0].lower() not in _TYPE_BY_LOWER


MoveList = _core.MoveList
_SequenceABC.register(MoveList)
_core._register_move_class(Move)


def _last_words(last: Any, lv: int, rules: Optional[Rules]) -> Tuple[int, int]:
    """The validator for a play to beat: a Move or a platform triple that is a
    play (or the pass) at level index ``lv`` under ``rules``."""
    if last is None:
        return 0, 0
    if isinstance(last, Move):
        if last.type in _NOT_PLAYS:
            raise InvalidMoveError(f"{last} is a {last.type.platform} action, not a play to beat")
        if last.is_pass:
            return 0, 0
        if last._level != lv or (last.type == MoveType.STRAIGHT_FLUSH and not _wild_sf(rules)):
            last = _from_platform_at(last.to_platform(), lv, rules)
        return last._lo, last._hi
    m = _from_platform_at(last, lv, rules)
    if m.type in _NOT_PLAYS:
        raise InvalidMoveError(f"{m} is a {m.type.platform} action, not a play to beat")
    return m._lo, m._hi


def contest_order(moves: MoveList, hand: Any) -> MoveList:
    """``moves`` (the legal actions of ``hand``) in the contest platform's
    ``actionList`` order, as a new :class:`MoveList` (native, about 25 µs
    for a 750-move lead). The server sends this order; the generator's own
    order differs only in how keys and card choices are sorted within a type
    (see docs/protocol.md, "actionList order").

    >>> h = Hand("S6 H6 C6 D6 H2")
    >>> [" ".join(m.cards) for m in contest_order(legal_moves(h, "2"), h) if m.type == MoveType.PAIR]
    ['S6 H2', 'S6 D6', 'S6 C6', 'S6 H6', 'H6 H2', 'H6 D6', 'H6 C6', 'C6 H2', 'C6 D6', 'D6 H2']
    """
    if not isinstance(moves, MoveList):
        raise GuandanError(f"contest_order takes a MoveList, got {type(moves).__name__}")
    if type(hand) is not Hand:
        hand = Hand(hand)
    return _contest.contest_order(moves, hand)


def legal_moves(hand: Any, level: Any, last: Any = None, *, mode: str = "full",
                rules: Optional[Rules] = None, order: str = "generator") -> MoveList:
    """Every legal play of ``hand`` at ``level``.

    Args:
        hand: a :class:`Hand` or anything ``Hand()`` accepts.
        level: the round level, ``"2"`` .. ``"A"`` (or 2..14).
        last: ``None`` when leading; otherwise the play to beat, a
            :class:`Move` or a platform triple (validated). A pass counts as
            leading.
        mode: ``"full"``: every distinct (type, rank, card multiset);
            ``"pattern"``: one representative per suit-merged pattern (type,
            rank, natural cards per rank, number of wilds, suit of a straight
            flush) - the first move of that pattern in full-mode order.
        rules: a :class:`Rules` (only ``wild_straight_flush`` matters here).
        order: ``"generator"`` (the default, the fastest): types in the
            platform's order, keys in natural order, card choices as the
            generator walks them; ``"contest"``: exactly the contest
            platform's ``actionList`` order (:func:`contest_order`).

    Leading: every legal play, no pass. Following: the pass first, then every
    play that beats ``last``.

    >>> len(legal_moves("S3 S4 S5 S6 S7", "2"))   # 5 singles + 1 straight flush
    6
    >>> len(legal_moves("S3 S4 S5 S6 S7", "2", mode="pattern"))
    6
    """
    if type(hand) is not Hand:
        hand = Hand(hand)
    lv = _LEVEL_INDEX.get(level) if type(level) is str else None
    if lv is None:
        lv = _core.level_index(level)
    if mode == "full":
        pattern = False
    elif mode == "pattern":
        pattern = True
    else:
        raise GuandanError(f"mode must be 'full' or 'pattern', got {mode!r}")
    if order not in ORDERS:
        raise GuandanError(f"order must be 'generator' or 'contest', got {order!r:.40}")
    if last is None:
        lo = hi = 0
    else:
        lo, hi = _last_words(last, lv, rules)
    moves = _core.generate_moves(hand, lv, lo, hi, pattern,
                                 True if rules is None else _wild_sf(rules))
    return moves if order == "generator" else _contest.contest_order(moves, hand)


def classify(cards: Any, level: Any, *, rules: Optional[Rules] = None) -> List[Move]:
    """Every reading of exactly these cards as one play, highest first (empty
    if none). The first reading is the default one. Order: bombs (strongest
    first), then other types (plate before tube), higher key first.

    >>> [str(m) for m in classify("SK DK H5 S2 D2", "5")]
    ['ThreeWithTwo K SK DK H5 S2 D2', 'ThreeWithTwo 2 S2 D2 H5 SK DK']
    >>> [m.type.name for m in classify("C7 C8 H5 CT CJ", "5")]
    ['STRAIGHT_FLUSH', 'STRAIGHT']
    >>> classify("S3 D4", "2")
    []
    """
    lv = _core.level_index(level)
    one, two = _core._masks_from_cards(cards)
    return [Move._from_native(lo, hi, lv) for lo, hi in _core.classify_masks(one, two, lv, _wild_sf(rules))]


class MoveBatch:
    """Moves of many hands in flat numpy buffers (see :func:`legal_moves_batch`).

    Encoding: ``words`` is a ``(m, 2)`` ``uint64`` array, one row per move:

    * ``words[:, 0]`` bits 0..53: the faces the move uses at least once;
      bits 56..59: the :class:`MoveType` value;
    * ``words[:, 1]`` bits 0..53: the faces it uses twice; bits 56..60: the
      key (a rank index 0..12 = 2..A, 13 = SB, 14 = HR, 15 = joker bomb, for
      rank-keyed types; the lowest card's natural position for sequences,
      0 = ace-low .. 12 = K).

    Face ``f = rank*4 + suit`` (ranks 2..A, suits S H C D), 52 = SB, 53 = HR.
    Moves of hand ``i`` are rows ``offsets[i]:offsets[i+1]``.
    """

    __slots__ = ("offsets", "words", "levels")

    def __init__(self, offsets: np.ndarray, words: np.ndarray, levels: np.ndarray) -> None:
        self.offsets = offsets
        self.words = words
        self.levels = levels

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def types(self) -> np.ndarray:
        """``uint8`` :class:`MoveType` value per move."""
        return _word_types(self.words[:, 0])

    @property
    def keys(self) -> np.ndarray:
        """``uint8`` key per move (see the class docstring)."""
        return _word_keys(self.words[:, 1])

    @property
    def counts(self) -> np.ndarray:
        """Moves per hand."""
        return np.diff(self.offsets)

    def moves(self, i: int) -> List[Move]:
        """The moves of hand ``i`` as :class:`Move` objects."""
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        lv = int(self.levels[i])
        return [Move(int(lo), int(hi), lv) for lo, hi in self.words[a:b].tolist()]


def legal_moves_batch(hands: Any, levels: Any, last: Any = None, *, mode: str = "full",
                      rules: Optional[Rules] = None) -> MoveBatch:
    """Legal moves of many hands in one native call (GIL released).

    Args:
        hands: a ``(n, 54)`` array of card counts (0..2, face order as in
            :class:`MoveBatch`), or a sequence of :class:`Hand` / card lists.
        levels: one level for all hands, or a sequence of ``n`` levels.
        last: ``None`` (leading), or a ``(n, 2)`` uint64 array of move words to
            beat (rows of zeros lead).
        mode: ``"full"`` or ``"pattern"``.

    Output memory: the moves are written into one buffer that the result's
    ``words`` array owns. When the batch is dropped (no array views that
    buffer any more) the buffer goes back to a one-buffer pool and the next
    call writes into it, memory already mapped, so a caller that consumes
    each batch before asking for the next pays no page faults for its
    output (about 12 KB per 27-card hand). A result that is kept is never
    reused or changed; while it is alive the next call takes fresh memory.
    Threads: the pool is taken and refilled under the GIL; calls running at
    the same time use their own buffers.

    >>> b = legal_moves_batch([Hand("S3 S3"), Hand("HR")], "2")
    >>> b.counts.tolist(), b.types.tolist()
    ([2, 1], [1, 2, 1])
    """
    if isinstance(hands, np.ndarray):
        arr = hands
        if arr.ndim != 2 or arr.shape[1] != 54:
            raise CardError(f"hands must be an (n, 54) array of counts, got shape {arr.shape}")
        if not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_):
            raise CardError(f"card counts must be integers, got dtype {arr.dtype}")
        if arr.size and (arr.min() < 0 or arr.max() > 2):
            raise TooManyCopiesError("card counts must be 0, 1 or 2 (two decks)")
        counts = np.ascontiguousarray(arr, dtype=np.uint8)
    else:
        if isinstance(hands, (str, bytes)) or not hasattr(hands, "__iter__"):
            raise CardError(f"hands must be an (n, 54) count array or a sequence of hands, "
                            f"got {type(hands).__name__}")
        hs = [h if isinstance(h, Hand) else Hand(h) for h in hands]
        counts = np.zeros((len(hs), 54), dtype=np.uint8)
        for i, h in enumerate(hs):
            counts[i] = h.counts()
    n = counts.shape[0]
    if isinstance(levels, (str, int, np.integer)):
        lv = np.full(n, _core.level_index(levels if isinstance(levels, str) else int(levels)), dtype=np.int64)
    else:
        if isinstance(levels, bytes) or not hasattr(levels, "__iter__"):
            raise LevelError(f"levels must be one level or a sequence of levels, got {levels!r}")
        if (isinstance(levels, np.ndarray) and np.issubdtype(levels.dtype, np.integer)
                and levels.ndim == 1):
            # integer levels 2..14, checked as one array (no Python loop)
            if levels.size and (levels.min() < 2 or levels.max() > 14):
                _core.level_index(levels[(levels < 2) | (levels > 14)][0])   # raises its LevelError
            lv = levels.astype(np.int64) - 2
        else:
            lv = np.array([_core.level_index(x) for x in levels], dtype=np.int64)
        if lv.shape != (n,):
            raise GuandanError(f"expected {n} levels, got {lv.shape[0]}")
    if mode not in ("full", "pattern"):
        raise GuandanError(f"mode must be 'full' or 'pattern', got {mode!r}")
    if last is None:
        lw = np.zeros((0, 2), dtype=np.uint64)
    else:
        try:
            raw = np.asarray(last)
        except (ValueError, TypeError):
            raise InvalidMoveError("last must be an (n, 2) array of move words") from None
        if raw.shape != (n, 2) or not np.issubdtype(raw.dtype, np.integer):
            raise InvalidMoveError(f"last must be an ({n}, 2) integer array of move words, "
                                   f"got shape {raw.shape} dtype {raw.dtype}")
        if raw.size and np.issubdtype(raw.dtype, np.signedinteger) and raw.min() < 0:
            raise InvalidMoveError("move words are unsigned")
        lw = np.ascontiguousarray(raw, dtype=np.uint64)
        _check_words(lw, lv, rules)
    offsets, words = _core.batch_generate(counts, lv, lw, mode == "pattern", _wild_sf(rules))
    return MoveBatch(offsets, words, lv)


def _check_words(lw: np.ndarray, lv: np.ndarray, rules: Optional[Rules]) -> None:
    """Every non-zero row of `last` must be a valid play at its level."""
    wild_sf = _wild_sf(rules)
    for i, (lo, hi) in enumerate(lw.tolist()):
        if lo == 0 and hi == 0:
            continue
        if not _is_play_word(lo):
            raise InvalidMoveError(f"row {i} of last is a tribute/return action, not a play to beat")
        try:
            _core.check_move_words(lo, hi, int(lv[i]), wild_sf)
        except InvalidMoveError:
            raise InvalidMoveError(f"row {i} of last is not a valid play at its level") from None
