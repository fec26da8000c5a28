"""Position strings and the validator of play-phase positions.

A position string (:attr:`guandan.Game.position`, like chess FEN) has ten
fields: the four hands (cards run together, ``-`` when empty, ``/``
between seats), round level, team levels (``A,B``), owner team (``-`` for
none), seat to act, the play to beat (``seat:Type:Rank:cards`` or ``-``),
passes since it, finished seats, round index, failed rounds at A (``a,b``).

Positions come from strangers (files, messages): :func:`validate_position`
and :func:`parse_position_string` are the one way in, and every value is
range-checked and the position checked to be one that can arise in a game
before anything reaches native code.

>>> parse_position_string("S3S4/HA/D5/C9 2 2,2 0 0 - 0 - 0 0,0")["to_act"]
0
>>> parse_position_string("S3S4/HA/D5/C9 2 2,2 0 0 - 0 - 0 0")
Traceback (most recent call last):
...
guandan.errors.GuandanError: failed rounds at A are two counts separated by ',', got '0'
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

from . import _core
from ._checks import check_int, parse_int
from ._core import Hand
from .errors import GuandanError, InvalidMoveError, LevelError
from .moves import Move, MoveType, _cards_at, _from_platform_at, _parse_at
from .rules import Rules
from .state import TrickPlay

__all__ = ["Position", "validate_position", "parse_position_string", "cards_str",
           "parse_cards_str", "check_seed", "check_level", "MAX_ROUND_INDEX"]

_RANKS = _core.RANK_CHARS


def cards_str(h: Hand, level: int) -> str:
    return "".join(_cards_at(h, level)) or "-"


def parse_cards_str(s: str) -> Hand:
    if s == "-":
        return Hand()
    if len(s) % 2:
        raise GuandanError(f"bad hand in position: {s!r}")
    return Hand([s[i:i + 2] for i in range(0, len(s), 2)])


MAX_ROUND_INDEX = 30_000          # the native round counter is 16-bit


def check_seed(seed: Any) -> int:
    return check_int(seed, "seed", 0, (1 << 64) - 1)


def check_level(level: Any, name: str) -> int:
    try:
        return _core.level_index(level)
    except (TypeError, OverflowError):
        raise LevelError(f"{name} must be a rank 2..A, got {level!r:.40}") from None


def _as_hand(h: Any, what: str) -> Hand:
    if isinstance(h, Hand):
        return h
    if isinstance(h, (list, tuple, str)):
        return Hand(h)
    raise GuandanError(f"{what} must be a Hand, a card string or a list of cards, got {type(h).__name__}")


def _is_seq(x: Any) -> bool:
    return isinstance(x, (list, tuple))


# the arguments of the native set_position before the seed and the rules:
# hands, level, team levels, owner, to act, top lo, top hi, top seat,
# passes, finishing order, round index, A failures
NativePosition = Tuple[List[Hand], int, Tuple[int, int], int, int, int, int, int, int, List[int], int,
                       Tuple[int, int]]


class Position:
    """A validated play-phase position: the arguments of the native
    ``set_position`` (``native``) and the trick as ``(seat, Move)`` pairs."""

    __slots__ = ("native", "trick")

    def __init__(self, native: "NativePosition", trick: Tuple[Tuple[int, Move], ...]) -> None:
        self.native = native
        self.trick = trick


def validate_position(hands: Any, level: Any, to_act: Any, team_levels: Any, owner: Any,
                        trick: Any, passes: Any, finished: Any, round_index: Any, a_fails: Any,
                        rules: Rules) -> Position:
    """The validator of play-phase positions (from arguments, position strings
    and records): every value range-checked and the position one that can
    arise in a game, or a GuandanError saying why."""
    if not _is_seq(hands) or len(hands) != 4:
        raise GuandanError("a position needs 4 hands")
    hs = [_as_hand(h, f"hand {i}") for i, h in enumerate(hands)]
    lv = check_level("2" if level is None else level, "level")
    if team_levels is None:
        tl = (lv, lv)
    else:
        if not _is_seq(team_levels) or len(team_levels) != 2:
            raise GuandanError("team_levels needs two levels")
        tl = (check_level(team_levels[0], "team level"), check_level(team_levels[1], "team level"))
    if owner is None:
        owner = 0 if tl[0] == lv else (1 if tl[1] == lv else -1)
    owner = check_int(owner, "owner", -1, 1)
    if owner >= 0 and tl[owner] != lv:
        raise GuandanError(f"the round is played at the owner's level: team {owner} is at "
                           f"{_RANKS[tl[owner]]}, the round at {_RANKS[lv]}")
    to_act = check_int(to_act, "to_act", 0, 3)
    round_index = check_int(round_index, "round_index", 0, MAX_ROUND_INDEX)
    if not _is_seq(a_fails) or len(a_fails) != 2:
        raise GuandanError(f"a_fails needs two counts (one per team), got {a_fails!r:.60}")
    limit = rules.a_fail_limit
    top_fail = (limit - 1) if limit else 100
    af = (check_int(a_fails[0], "a_fails", 0, top_fail), check_int(a_fails[1], "a_fails", 0, top_fail))
    if not _is_seq(finished):
        raise GuandanError(f"finished must be a sequence of seats, got {finished!r:.60}")
    fin = [check_int(x, "finished seat", 0, 3) for x in finished]
    if len(set(fin)) != len(fin):
        raise GuandanError(f"bad finishing order {fin}: a seat twice")
    if len(fin) >= 3 or any(s in fin and (s ^ 2) in fin for s in range(2)):
        raise GuandanError(f"finishing order {fin}: the round is already over")
    for s in range(4):
        if (len(hs[s]) == 0) != (s in fin):
            raise GuandanError(f"seat {s}: finished seats have no cards and others have some")
    if len(hs[to_act]) == 0:
        raise GuandanError(f"seat {to_act} to act has no cards")
    total = Hand()
    for h in hs:
        total = total + h          # TooManyCopiesError beyond two decks
    # the trick: (seat, move) pairs; each play beats the one before
    if trick is None:
        trick = ()
    if not _is_seq(trick):
        raise GuandanError(f"trick must be a sequence of (seat, move) pairs, got {type(trick).__name__}")
    top_seat, top, np_ = -1, None, 0
    tl_list: List[Tuple[int, Move]] = []
    for i, entry in enumerate(trick):
        if not _is_seq(entry) or len(entry) != 2:
            raise GuandanError(f"trick entry {i} must be a (seat, move) pair, got {entry!r:.60}")
        seat = check_int(entry[0], f"trick entry {i}'s seat", 0, 3)
        mv = entry[1]
        m = mv if isinstance(mv, Move) else _parse_at(mv, lv, rules)
        if m.type in (MoveType.TRIBUTE, MoveType.BACK):
            raise InvalidMoveError(f"trick entry {i}: {m} is not a play")
        if not m.is_pass:
            if m._level != lv or (m.type == MoveType.STRAIGHT_FLUSH and not rules.wild_straight_flush):
                m = _from_platform_at(m.to_platform(), lv, rules)
            if top is not None and not m.beats(top):
                raise GuandanError(f"trick entry {i}: {m} does not beat {top}")
            try:
                total = total + m.hand()
            except GuandanError:
                raise GuandanError(f"trick entry {i}: the hands and the trick's cards exceed "
                                   f"two decks") from None
            top_seat, top, np_ = seat, m, 0
        elif top is None:
            raise GuandanError(f"trick entry {i}: a trick starts with a play, not a pass")
        else:
            np_ += 1
        tl_list.append(TrickPlay(seat, m))
    if passes is not None:
        np_ = check_int(passes, "passes", 0, 3)
    if top is None:
        if np_:
            raise GuandanError(f"{np_} passes but no play to beat")
        top_lo = top_hi = 0
    else:
        top_lo, top_hi = top.words
        # the trick must still be open, and the seat to act the next one to answer
        others = [s for s in range(4) if s != top_seat and len(hs[s]) > 0]
        if not 0 <= np_ < len(others):
            raise GuandanError(f"{np_} passes after seat {top_seat}'s play: the trick would be over "
                               f"(at most {len(others) - 1})")
        expect = top_seat
        for _ in range(np_ + 1):
            expect = next(s for s in ((expect + k) % 4 for k in range(1, 5))
                          if len(hs[s]) > 0 and s != top_seat)
        if to_act != expect:
            raise GuandanError(f"seat {expect} is to act after seat {top_seat}'s play and "
                               f"{np_} passes, not seat {to_act}")
    native: NativePosition = (hs, lv, tl, owner, to_act, top_lo, top_hi, top_seat, np_, fin, round_index, af)
    return Position(native, tuple(tl_list))


def parse_position_string(s: str) -> Dict[str, Any]:
    """The validator of position strings (:attr:`Game.position`): the fields
    as :meth:`Game.from_position` keywords, or a GuandanError."""
    if len(s) > 1000:
        raise GuandanError("a position string is at most 1000 characters")
    parts = s.split()
    if len(parts) == 11:
        raise GuandanError(f"this position is in the {parts[10].split(':')[0][:20]!r} phase; games "
                           f"start from play-phase positions only (use Game.replay(record))")
    if len(parts) != 10:
        raise GuandanError(f"a position string has 10 fields, got {len(parts)}: {s[:80]!r}")
    hands_s, lv, tls, own, act, top, passes, fin, rnd, afl = parts
    hs = hands_s.split("/")
    if len(hs) != 4:
        raise GuandanError("a position needs 4 hands separated by '/'")
    hands = [parse_cards_str(x) for x in hs]
    tl = tls.split(",")
    if len(tl) != 2:
        raise GuandanError(f"team levels are two ranks separated by ',', got {tls[:20]!r}")
    trick = None
    if top != "-":
        fields = top.split(":")
        if len(fields) != 4 or len(fields[3]) % 2:
            raise GuandanError(f"bad top play {top[:60]!r}: expected seat:Type:Rank:cards")
        seat, tname, rank, cards = fields
        trick = [(parse_int(seat, "the top play's seat", 0, 3),
                  [tname, rank, [cards[i:i + 2] for i in range(0, len(cards), 2)]])]
    if fin != "-" and not (fin.isascii() and fin.isdigit()):
        raise GuandanError(f"finished seats are digits 0..3 or '-', got {fin[:20]!r}")
    af = afl.split(",")
    if len(af) != 2:
        raise GuandanError(f"failed rounds at A are two counts separated by ',', got {afl[:20]!r}")
    return dict(
        hands=hands, level=lv, to_act=parse_int(act, "seat to act", 0, 3), team_levels=tl,
        owner=-1 if own == "-" else parse_int(own, "owner", 0, 1), trick=trick,
        passes=parse_int(passes, "passes", 0, 3),
        finished=[] if fin == "-" else [parse_int(c, "finished seat", 0, 3) for c in fin],
        round_index=parse_int(rnd, "round index", 0, MAX_ROUND_INDEX),
        a_fails=tuple(parse_int(x, "failed rounds at A", 0, 100) for x in af))
