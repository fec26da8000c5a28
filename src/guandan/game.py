"""Whole games: :class:`Game`, a thin view over the native state machine
(``_engine.pyx``), with undo, copies, observations, records and replay.

>>> from guandan import Game
>>> g = Game(seed=7)
>>> g.phase, g.level, g.team_levels, [len(h) for h in g.hands]
('play', '2', ('2', '2'), [27, 27, 27, 27])
>>> m = g.legal_moves()[0]
>>> g.play(m); g.undo()
>>> g2 = Game.replay(g.record())
>>> g2.position == g.position
True
"""

from __future__ import annotations

import enum
import json
import random as _random
import threading
from functools import wraps
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core, _engine
from ._core import Hand
from ._checks import check_int, parse_int
from .errors import GuandanError, IllegalMoveError, InvalidMoveError, LevelError
from .moves import Move, MoveList, MoveType, parse_move
from .policies import native_code, parse_policy
from .rules import Rules

__all__ = ["Game", "Phase", "TrickPlay", "TributeState", "RoundResult", "perft",
           "tribute_choices", "return_choices", "PHASES", "RECORD_FORMAT"]


class Phase(str, enum.Enum):
    """The phase of a round; compares equal to its name (``Phase.PLAY == "play"``)."""

    TRIBUTE = "tribute"
    BACK = "back"          # returning a card for a tribute
    PLAY = "play"
    OVER = "over"          # the game is over

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:       # reads like the plain string it equals
        return repr(self.value)


PHASES = tuple(p.value for p in Phase)
_PHASE_OF = tuple(Phase)             # by native phase code (PH_TRIBUTE .. PH_OVER)


class TrickPlay(NamedTuple):
    """One action of the current trick (a play or a pass)."""

    seat: int
    move: Move


class TributeState(NamedTuple):
    """This round's tribute: who pays (``payers``), the card each paid
    (``paid``, ``None`` until paid), who receives it (``receivers``, ``None``
    until decided), the card returned to each payer (``returned``), and
    whether the payers refused by anti-tribute (``anti``: two big jokers)."""

    payers: Tuple[int, ...]
    paid: Tuple[Optional[str], ...]
    receivers: Tuple[Optional[int], ...]
    returned: Tuple[Optional[str], ...]
    anti: bool


class RoundResult(NamedTuple):
    """How the last finished round ended: the finishing ``order``, the
    ``banker_team`` (team of the first out), ``levels_up`` (levels that team
    went up), ``reward`` (the banker team's reward as VecGame and the env
    give it: ``levels_up``, 4 for winning the game, 0 for a level stop at
    ``max_rounds``; the other team gets the negative) and ``won_at_a`` (the
    round won the game by the A rule)."""

    order: Tuple[int, ...]
    banker_team: int
    levels_up: int
    reward: float
    won_at_a: bool
RECORD_FORMAT = "guandan-record/1"
_RANKS = _core.RANK_CHARS
_native_move = Move._from_native        # words read from the native state
_TAG_SHIFT = _core.MOVE_TAG_SHIFT
_FACE_MASK = _core.MOVE_FACE_MASK
_NOT_PLAYS = (MoveType.TRIBUTE, MoveType.BACK)
_R = _engine.REFUSALS                    # the native Refusal codes by name
_R_GAME_OVER, _R_TRIBUTE_DUE, _R_RETURN_DUE = _R["GAME_OVER"], _R["TRIBUTE_DUE"], _R["RETURN_DUE"]
_R_NOT_IN_HAND, _R_TRIBUTE_CARD, _R_RETURN_CARD = _R["NOT_IN_HAND"], _R["TRIBUTE_CARD"], _R["RETURN_CARD"]
_R_NOT_A_PLAY, _R_LEADER_PASS, _R_DOES_NOT_BEAT = _R["NOT_A_PLAY"], _R["LEADER_PASS"], _R["DOES_NOT_BEAT"]


def _cards_str(h: Hand, level: int) -> str:
    return "".join(h.cards(level + 2)) or "-"


def _parse_cards_str(s: str) -> Hand:
    if s == "-":
        return Hand()
    if len(s) % 2:
        raise GuandanError(f"bad hand in position: {s!r}")
    return Hand([s[i:i + 2] for i in range(0, len(s), 2)])


# -- validators of untrusted input (one per kind) -------------------------------

MAX_ROUND_INDEX = 30_000          # the native round counter is 16-bit


def _check_rules(rules: Any) -> Rules:
    if rules is None:
        return Rules.default()
    if not isinstance(rules, Rules):
        raise GuandanError(f"rules must be a guandan.Rules, got {type(rules).__name__}")
    return rules


def _check_seed(seed: Any) -> int:
    return check_int(seed, "seed", 0, (1 << 64) - 1)


def _check_level(level: Any, name: str) -> int:
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


class _Position:
    """A validated play-phase position: the arguments of the native
    ``set_position`` (``native``) and the trick as ``(seat, Move)`` pairs."""

    __slots__ = ("native", "trick")

    def __init__(self, native: tuple, trick: Tuple[Tuple[int, Move], ...]) -> None:
        self.native = native
        self.trick = trick


def _validated_position(hands: Any, level: Any, to_act: Any, team_levels: Any, owner: Any,
                        trick: Any, passes: Any, finished: Any, round_index: Any, a_fails: Any,
                        rules: Rules) -> _Position:
    """The validator of play-phase positions (from arguments, position strings
    and records): every value range-checked and the position one that can
    arise in a game, or a GuandanError saying why."""
    if not _is_seq(hands) or len(hands) != 4:
        raise GuandanError("a position needs 4 hands")
    hs = [_as_hand(h, f"hand {i}") for i, h in enumerate(hands)]
    lv = _check_level("2" if level is None else level, "level")
    if team_levels is None:
        tl = (lv, lv)
    else:
        if not _is_seq(team_levels) or len(team_levels) != 2:
            raise GuandanError("team_levels needs two levels")
        tl = tuple(_check_level(x, "team level") for x in team_levels)
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
    af = tuple(check_int(x, "a_fails", 0, (limit - 1) if limit else 100) for x in a_fails)
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
        m = mv if isinstance(mv, Move) else parse_move(mv, lv + 2, rules=rules)
        if m.type in (MoveType.TRIBUTE, MoveType.BACK):
            raise InvalidMoveError(f"trick entry {i}: {m} is not a play")
        if not m.is_pass:
            if m._level != lv or (m.type == MoveType.STRAIGHT_FLUSH and not rules.wild_straight_flush):
                m = Move.from_platform(m.to_platform(), lv + 2, rules=rules)
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
    native = (hs, lv, tl, owner, to_act, top_lo, top_hi, top_seat, np_, fin, round_index, af)
    return _Position(native, tuple(tl_list))


def _parse_position_string(s: str) -> Dict[str, Any]:
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
    hands = [_parse_cards_str(x) for x in hs]
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



def _locked(method: Callable[..., Any]) -> Callable[..., Any]:
    """Run a method under the game's lock: a Game shared between threads
    stays consistent (each call is atomic)."""
    @wraps(method)
    def run(self: "Game", *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)
    return run


class Game:
    """A game of Guandan from level 2 until a team passes A (or
    ``rules.max_rounds``), or from a given position.

    Seats 0..3; team 0 = seats 0 & 2, team 1 = seats 1 & 3. Every random
    thing (deals, the first leader) comes from ``seed``.
    """

    def __init__(self, rules: Optional[Rules] = None, seed: Optional[int] = None, *,
                 policy_seed: Optional[int] = None) -> None:
        r = _check_rules(rules)
        if seed is None:
            seed = _random.SystemRandom().getrandbits(63)
        self._init(r, _check_seed(seed))
        if policy_seed is not None:           # the built-in random policy's draws
            self._core.seed_policy(_check_seed(policy_seed))
        self._deals = [self._deal_strings()]  # cards dealt at each round start

    def _init(self, rules: Rules, seed: int) -> None:
        # the one constructor path (new games and positions)
        self.rules = rules
        self.seed = seed
        self._start: Optional[str] = None
        self._round_start: Optional[Dict[str, Any]] = None
        self._core = _engine.GameCore.new_game(seed, rules.native)
        self._lock = threading.RLock()
        self._log: List[Tuple[int, int, int, int, int]] = []   # (seat, lo, hi, level, round)
        self._tricks: List[Tuple[Tuple[int, Move], ...]] = []  # trick after each action
        self._initial_trick: Tuple[Tuple[int, Move], ...] = ()
        self._deals: List[List[str]] = []

    # -- construction -----------------------------------------------------------
    @classmethod
    def from_position(cls, position: Union[str, Sequence[Any]], level: Any = None, to_act: int = 0, *,
                      team_levels: Optional[Sequence[Any]] = None, owner: Optional[int] = None,
                      trick: Optional[Sequence[Tuple[int, Any]]] = None, passes: Optional[int] = None,
                      finished: Sequence[int] = (), round_index: int = 0,
                      a_fails: Sequence[int] = (0, 0), rules: Optional[Rules] = None,
                      seed: int = 0) -> "Game":
        """A game in the play phase from given hands (or a position string, see
        :attr:`position`).

        ``trick`` lists the plays of the current trick as ``(seat, move)``
        (passes included); the last non-pass is the play to beat, and the
        passes after it count towards the end of the trick (or give
        ``passes``). ``finished`` is this round's finishing order so far.

        Everything is validated (positions are exchanged between people, so
        they are untrusted input): a position that cannot arise in a game
        (more than two decks with the trick's cards, a round already over, a
        trick whose plays do not beat each other, a seat or count out of
        range) raises a :class:`GuandanError` saying why.

        >>> g = Game.from_position([["S3", "S4"], ["HA"], ["D5"], ["C9"]], level="2", to_act=0)
        >>> [str(m) for m in g.legal_moves()]
        ['Single 3 S3', 'Single 4 S4']
        >>> Game.from_position(g.position).position == g.position
        True
        """
        if isinstance(position, str):
            if level is not None or trick is not None or passes is not None or finished:
                raise GuandanError("give either a position string or hands with keyword fields, not both")
            kw = _parse_position_string(position)
            return cls.from_position(kw.pop("hands"), rules=rules, seed=seed, **kw)
        r = _check_rules(rules)
        seed = _check_seed(seed)
        pos = _validated_position(position, level, to_act, team_levels, owner, trick, passes,
                                  finished, round_index, a_fails, r)
        g = cls.__new__(cls)
        g._init(r, seed)
        g._core.set_position(*pos.native, seed, r.native)
        g._initial_trick = pos.trick
        g._deals = [g._deal_strings()]
        g._start = g.position
        return g

    @classmethod
    def from_deal(cls, seed: int, team_levels: Sequence[Any] = ("2", "2"), owner: int = 0,
                  last_order: Optional[Sequence[int]] = None, *,
                  rules: Optional[Rules] = None, policy_seed: Optional[int] = None) -> "Game":
        """A game at the start of one round, dealt from ``seed``: the teams at
        ``team_levels``, the round played at team ``owner``'s level, and, when
        ``last_order`` (the previous round's finishing order, its banker in
        team ``owner``) is given, the tribute phase that order calls for
        (tribute, return or anti-tribute, exactly as in a game). Without it
        the round starts like a first round (the leader drawn from the seed).

        The same arguments always give the same state (hands, levels, tribute
        state): the arena plays each such deal twice with the teams' seats
        swapped. ``policy_seed`` seeds the built-in random policy's draws
        (default: derived from ``seed``).

        >>> g = Game.from_deal(5, team_levels=("7", "K"), owner=1, last_order=[1, 0, 3, 2])
        >>> g.level, g.team_levels, g.phase, g.to_act
        ('K', ('7', 'K'), 'tribute', 2)
        >>> Game.replay(g.record()).position == g.position
        True
        """
        r = _check_rules(rules)
        seed = _check_seed(seed)
        if not _is_seq(team_levels) or len(team_levels) != 2:
            raise GuandanError("team_levels needs two levels")
        tl = [_check_level(x, "team level") for x in team_levels]
        owner = check_int(owner, "owner", 0, 1)
        order = None
        if last_order is not None:
            if not _is_seq(last_order) or len(last_order) != 4:
                raise GuandanError("last_order lists the four seats in finishing order")
            order = [check_int(x, "last_order seat", 0, 3) for x in last_order]
            if sorted(order) != [0, 1, 2, 3]:
                raise GuandanError(f"last_order {order} is not a permutation of the seats")
            if order[0] & 1 != owner:
                raise GuandanError(f"the previous banker (seat {order[0]}) must be in the owner "
                                   f"team {owner}: the round is played at the last winner's level")
        g = cls.__new__(cls)
        g._init(r, seed)
        g._core.start_round(seed, tl, owner, order, r.native)
        if policy_seed is not None:
            g._core.seed_policy(_check_seed(policy_seed))
        g._round_start = {"team_levels": [_RANKS[x] for x in tl], "owner": owner,
                          "last_order": order}
        g._deals = [g._deal_strings()]
        return g

    # -- state ----------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        """The :class:`Phase` (a ``str``: ``"tribute"``, ``"back"``, ``"play"`` or ``"over"``)."""
        return _PHASE_OF[self._core.phase]

    @property
    def to_act(self) -> int:
        """The seat (0..3) to act; meaningless once the game is over."""
        return self._core.to_act

    @property
    @_locked
    def hands(self) -> List[Hand]:
        return [self._core.hand(s) for s in range(4)]

    @property
    def level(self) -> str:
        """The round level (rank letter)."""
        return _RANKS[self._core.rlevel]

    @property
    def team_levels(self) -> Tuple[str, str]:
        a, b = self._core.levels
        return (_RANKS[a], _RANKS[b])

    @property
    @_locked
    def trick(self) -> List[TrickPlay]:
        """The plays of the current trick so far, ``(seat, move)``, passes included."""
        if self._tricks:
            return list(self._tricks[-1])
        return list(getattr(self, "_initial_trick", ()))

    @property
    def finish_order(self) -> List[int]:
        """Seats that went out this round, in order."""
        return self._core.fin

    @property
    def last_round_order(self) -> Optional[List[int]]:
        """The full finishing order of the last finished round."""
        return self._core.last_order

    @property
    def round_index(self) -> int:
        return self._core.round_index

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def winner(self) -> Optional[int]:
        """The winning team (0: seats 0 & 2, 1: seats 1 & 3) once over, else None."""
        w = self._core.winner
        return None if (w < 0 or not self.is_over) else w

    @property
    def card_counts(self) -> List[int]:
        return [self._core.hand_size(s) for s in range(4)]

    @property
    def level_index(self) -> int:
        """The round level as a rank index 0..12 (2..A), as in move words."""
        return self._core.rlevel

    @property
    def team_level_indices(self) -> Tuple[int, int]:
        """The team levels as rank indices 0..12."""
        return self._core.levels

    @property
    def top(self) -> Optional[TrickPlay]:
        """The play to beat and who made it (``None`` when leading)."""
        seat, lo, hi, _ = self._core.top
        return None if seat < 0 else TrickPlay(seat, _native_move(lo, hi, self._core.rlevel))

    @property
    def passes(self) -> int:
        """Passes since the play to beat."""
        return self._core.top[3]

    @property
    def owner(self) -> Optional[int]:
        """The team whose level this round is played at (None in the first round)."""
        o = self._core.owner
        return None if o < 0 else o

    @property
    def a_fails(self) -> Tuple[int, int]:
        """Failed rounds at its own A, per team."""
        return self._core.afail

    @property
    def decisions(self) -> int:
        """Actions taken in this game so far (native counter)."""
        return self._core.decisions

    @property
    def tribute(self) -> TributeState:
        """This round's tribute state (see :class:`TributeState`)."""
        n, payers, paid, recv, returned, anti = self._core.tribute
        face = lambda f: None if f < 0 else _core.FACE_STR[f]
        return TributeState(tuple(payers), tuple(face(f) for f in paid),
                            tuple(None if r < 0 else r for r in recv),
                            tuple(face(f) for f in returned), anti)

    @property
    def last_round(self) -> Optional[RoundResult]:
        """How the last finished round ended (None before the first one ends)."""
        c = self._core
        order = c.last_order
        if order is None:
            return None
        return RoundResult(tuple(order), order[0] & 1, c.last_delta, c.round_reward, c.last_won_a)

    def played_cards(self, seat: Optional[int] = None) -> Hand:
        """The cards played so far this round (public knowledge): by everyone,
        or by ``seat``."""
        if seat is None:
            return self._core.played()
        seat = check_int(seat, "seat", 0, 3)
        out = Hand()
        with self._lock:
            r = self._core.round_index
            for s, lo, hi, _, rnd in self._log:
                if s == seat and rnd == r and lo and (lo >> _TAG_SHIFT) & 15 not in _NOT_PLAYS:
                    out = out + Hand.from_masks(lo & _FACE_MASK, hi & _FACE_MASK)
        return out

    def observation_tensor(self, seat: Optional[int] = None) -> np.ndarray:
        """The observation of ``seat`` (default: the seat to act) as the
        float32 vector VecGame and the env give (layout in :mod:`guandan.vec`)."""
        seat = self._core.to_act if seat is None else check_int(seat, "seat", 0, 3)
        return self._core.observation_tensor(seat)

    @property
    @_locked
    def moves_played(self) -> List[Tuple[int, Move]]:
        """Every action of the game so far, ``(seat, move)``."""
        return [(s, _native_move(lo, hi, lv)) for s, lo, hi, lv, _ in self._log]

    @property
    @_locked
    def position(self) -> str:
        """A compact position string (play phase), like chess FEN; round-trips
        through :meth:`from_position`. Fields: the four hands (cards run
        together, ``-`` when empty), round level, team levels, owner team of
        the round level (``-`` for none), seat to act, the play to beat
        (``seat:Type:Rank:cards`` or ``-``), passes since it, finished seats,
        round index, failed rounds at A per team.

        In the tribute and return phases, and once the game is over, an 11th
        field names the phase and its state (``tribute:ORDER:PAID:RETURNED``,
        ``over:WINNER``): such strings identify the state exactly but cannot
        be loaded by :meth:`from_position`, which starts in the play phase
        (use :meth:`record` / :meth:`replay` for those)."""
        c = self._core
        lv = c.rlevel
        hands = "/".join(_cards_str(c.hand(s), lv) for s in range(4))
        seat, lo, hi, passes = c.top
        if seat < 0:
            top = "-"
        else:
            t, r, cards = _native_move(lo, hi, lv).to_platform()
            top = f"{seat}:{t}:{r}:{''.join(cards)}"
        a, b = c.levels
        own = "-" if c.owner < 0 else str(c.owner)
        fin = "".join(str(s) for s in c.fin) or "-"
        f0, f1 = c.afail
        pos = (f"{hands} {_RANKS[lv]} {_RANKS[a]},{_RANKS[b]} {own} {c.to_act} {top} {passes} "
               f"{fin} {c.round_index} {f0},{f1}")
        phase = _PHASE_OF[c.phase]
        if phase is Phase.PLAY:
            return pos
        if phase is Phase.OVER:
            return f"{pos} over:{'-' if self.winner is None else self.winner}"
        n, payers, paid, recv, returned, _ = c.tribute
        order = "".join(str(x) for x in (c.last_order or []))
        cards = lambda faces: ",".join(_core.FACE_STR[f] if f >= 0 else "-" for f in faces) or "-"
        return f"{pos} {self.phase}:{order}:{cards(paid)}:{cards(returned)}"

    # -- actions ----------------------------------------------------------------
    @_locked
    def legal_moves(self) -> MoveList:
        """The legal actions of the seat to act: plays (and the pass when
        following) in the play phase; tribute or return choices (moves of
        type TRIBUTE / BACK) in those phases; empty when the game is over."""
        return self._core.legal()

    def parse_action(self, action: Any) -> Move:
        """``action`` as a :class:`Move` read at this game's level: a Move, a
        platform triple, text (``"Pair 5 S5 D5"``, bare cards, ``"PASS"``) or
        an index into :meth:`legal_moves`. Raises :class:`IllegalMoveError`
        when it is not a valid action at this level (legality now is checked
        by :meth:`play`)."""
        if isinstance(action, int) and not isinstance(action, bool):
            moves = self.legal_moves()
            if not 0 <= action < len(moves):
                raise IllegalMoveError(f"action index {action} out of range ({len(moves)} legal actions)")
            return moves[action]
        return self._to_move(action)

    def _to_move(self, move: Any) -> Move:
        lv = self._core.rlevel
        if isinstance(move, Move):
            if move.type in (MoveType.TRIBUTE, MoveType.BACK) or move.is_pass or move._level == lv:
                return move
            move = move.to_platform()
        try:
            return parse_move(move, lv + 2, rules=self.rules)
        except InvalidMoveError as e:
            raise IllegalMoveError(f"not a valid play at level {_RANKS[lv]}: {e}") from None

    @_locked
    def play(self, move: Any) -> None:
        """Play an action for the seat to act: a :class:`Move`, a platform
        triple or text (``"Pair 5 S5 D5"``, ``"S5 D5"``, ``"PASS"``). Raises
        :class:`IllegalMoveError` saying why when it is not legal now; the
        state is then unchanged."""
        if self.is_over:
            raise IllegalMoveError("the game is over")
        m = self._to_move(move)
        lo, hi = m.words
        c = self._core
        seat, phase, r0 = c.to_act, self.phase, c.round_index
        was_leading = c.top[0] < 0
        if not c.apply(lo, hi, True):
            raise IllegalMoveError(self._why_illegal(m))
        self._log.append((seat, lo, hi, m._level, r0))
        prev = self._tricks[-1] if self._tricks else getattr(self, "_initial_trick", ())
        if phase is not Phase.PLAY or c.round_index != r0 or c.top[0] < 0:
            trick: Tuple[Tuple[int, Move], ...] = ()       # not a play, or the trick/round ended
        elif was_leading:
            trick = (TrickPlay(seat, m),)
        else:
            trick = tuple(prev) + (TrickPlay(seat, m),)
        self._tricks.append(trick)
        if c.round_index != r0 and not self.is_over:
            self._deals.append(self._deal_strings())

    def _why_illegal(self, m: Move) -> str:
        # the rule is native (st_refusal); here it is only put into words
        c = self._core
        lo, hi = m.words
        code = c.refusal(lo, hi)
        seat = c.to_act
        if code == _R_TRIBUTE_DUE or code == _R_RETURN_DUE:
            return f"seat {seat} must {'pay tribute' if code == _R_TRIBUTE_DUE else 'return a card'} now, not play {m}"
        if code == _R_NOT_IN_HAND:
            missing = _missing(c.hand(seat), m)
            return f"not in seat {seat}'s hand: {' '.join(missing)}"
        if code == _R_TRIBUTE_CARD or code == _R_RETURN_CARD:
            choices = ", ".join(x.cards[0] for x in self.legal_moves())
            if code == _R_TRIBUTE_CARD:
                return f"the tribute is the highest card in level order, never a wild: one of {choices}"
            return f"the return card must be of rank 2..10 and not a level card: one of {choices}"
        if code == _R_NOT_A_PLAY:
            return f"there is no {m.type.platform} in the play phase"
        if code == _R_LEADER_PASS:
            return "the leader cannot pass"
        if code == _R_DOES_NOT_BEAT:
            top = self.top
            assert top is not None
            return f"{m} does not beat {top.move} (played by seat {top.seat})"
        if code == _R_GAME_OVER:
            return "the game is over"
        return f"{m} is not legal here"

    @_locked
    def undo(self) -> None:
        """Take back the last action (exactly restores the state)."""
        if not self._log or self._core.history_len == 0:
            raise GuandanError("nothing to undo")
        self._core.undo()
        self._log.pop()
        self._tricks.pop()
        while len(self._deals) > self._core.round_index + 1:
            self._deals.pop()

    @_locked
    def copy(self) -> "Game":
        """An independent copy (native state copied; history kept)."""
        g = Game.__new__(Game)
        g._lock = threading.RLock()
        g.rules = self.rules
        g.seed = self.seed
        g._start = self._start
        g._round_start = self._round_start
        g._core = self._core.copy()
        g._log = list(self._log)
        g._tricks = list(self._tricks)
        g._deals = list(self._deals)
        if hasattr(self, "_initial_trick"):
            g._initial_trick = self._initial_trick
        return g

    @_locked
    def play_policy(self, policy: Union[str, Callable[..., Any]]) -> Move:
        """Let a policy act for the seat to act; returns the move played.
        ``"random"`` and ``"greedy"`` run natively; any callable
        ``(observation, legal_moves) -> move`` works too."""
        if isinstance(policy, str):
            lo, hi = self._core.pick(native_code(parse_policy(policy)[0]))
            m = _native_move(lo, hi, self._core.rlevel)
        else:
            m = self.parse_action(policy(self.observation(self.to_act), self.legal_moves()))
        self.play(m)
        return m

    @_locked
    def play_out(self, policies: Sequence[Union[str, Callable[..., Any]]] = ("greedy",) * 4, *,
                 until: str = "game") -> None:
        """Play with one policy per seat until the game (or this round) ends."""
        if len(policies) != 4:
            raise GuandanError("play_out needs one policy per seat")
        start = self.round_index
        while not self.is_over and (until == "game" or self.round_index == start):
            self.play_policy(policies[self.to_act])

    # -- information ------------------------------------------------------------
    @_locked
    def observation(self, seat: int) -> Dict[str, Any]:
        """What ``seat`` may know: its own hand, every player's card count,
        the current trick and the plays of this round, levels, the tribute of
        this round once resolved, and the last round's order. Nothing hidden."""
        if seat not in range(4):
            raise GuandanError(f"seat must be 0..3, got {seat}")
        c = self._core
        lv = c.rlevel
        seat_top, lo, hi, passes = c.top
        n, payers, paid, recv, returned, anti = c.tribute
        trib: Dict[str, Any] = {"anti": anti, "payers": payers if anti or n else []}
        phase = self.phase
        if phase is not Phase.TRIBUTE and not anti and n:
            trib["tribute"] = [[payers[i], recv[i], _core.FACE_STR[paid[i]]] for i in range(n)]
        if phase is Phase.PLAY and not anti and n:
            trib["back"] = [[recv[i], payers[i], _core.FACE_STR[returned[i]]] for i in range(n)]
        history = [[s, _native_move(l, h, v).to_platform()] for s, l, h, v, r in self._log
                   if r == c.round_index and (l >> _TAG_SHIFT) & 15 not in _NOT_PLAYS]
        a, b = c.levels
        return {
            "seat": seat,
            "phase": phase.value,
            "to_act": c.to_act,
            "hand": c.hand(seat).cards(lv + 2),
            "card_counts": self.card_counts,
            "level": _RANKS[lv],
            "team_levels": [_RANKS[a], _RANKS[b]],
            "my_team": seat & 1,
            "round_index": c.round_index,
            "leading": phase is Phase.PLAY and seat_top < 0,
            "top": None if seat_top < 0 else {"seat": seat_top,
                                               "move": _native_move(lo, hi, lv).to_platform()},
            "passes": passes,
            "trick": [[s, m.to_platform()] for s, m in self.trick],
            "history": history,
            "finish_order": c.fin,
            "tribute": trib,
            "last_round_order": c.last_order,
        }

    def _deal_strings(self) -> List[str]:
        return [" ".join(self._core.hand(s).cards(self._core.rlevel + 2)) for s in range(4)]

    @_locked
    def record(self) -> Dict[str, Any]:
        """A JSON-serialisable record of the whole game: rules, seed, start
        position (for games from a position), the deal of every round and
        every action as ``[seat, triple]``."""
        return {
            "format": RECORD_FORMAT,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "start": self._start,
            **({"round_start": self._round_start} if self._round_start else {}),
            "deals": [list(d) for d in self._deals],
            "actions": [[s, _native_move(lo, hi, lv).to_platform()] for s, lo, hi, lv, _ in self._log],
            "result": {
                "over": self.is_over,
                "winner": self.winner,
                "team_levels": list(self.team_levels),
                "rounds": self.round_index,
            },
        }

    @classmethod
    def replay(cls, record: Union[Dict[str, Any], str]) -> "Game":
        """Rebuild the identical game from :meth:`record` (a dict or JSON).

        Records are exchanged between people: everything in one is validated
        (any malformed or impossible record raises a :class:`GuandanError`
        naming the problem), so loading an untrusted record is safe."""
        rec = _validated_record(record)
        if rec["start"]:
            g = cls.from_position(rec["start"], rules=rec["rules"], seed=rec["seed"])
        elif rec["round_start"] is not None:
            rs = rec["round_start"]
            g = cls.from_deal(rec["seed"], rs["team_levels"], rs["owner"], rs["last_order"],
                              rules=rec["rules"])
        else:
            g = cls(rules=rec["rules"], seed=rec["seed"])
        for i, (seat, triple) in enumerate(rec["actions"]):
            if g.is_over:
                raise GuandanError(f"action {i}: the game is already over")
            if g.to_act != seat:
                raise GuandanError(f"action {i}: seat {seat} acts but seat {g.to_act} is to act")
            try:
                g.play(triple)
            except GuandanError as e:
                raise type(e)(f"action {i}: {e}") from None
        if rec["deals"] is not None and [list(d) for d in g._deals] != rec["deals"]:
            raise GuandanError("the replayed deals differ from the record's")
        return g

    def __repr__(self) -> str:
        return (f"<Game round {self.round_index} level {self.level} phase {self.phase} "
                f"to_act {self.to_act} levels {self.team_levels}>")


MAX_RECORD_ACTIONS = 1_000_000


def _validated_record(record: Any) -> Dict[str, Any]:
    """The validator of game records (:meth:`Game.record` output, from a file
    or the network): the fields replay needs, type-checked, or a GuandanError."""
    if isinstance(record, (bytes, bytearray)):
        try:
            record = record.decode("utf-8")
        except UnicodeDecodeError:
            raise GuandanError("a record is UTF-8 JSON") from None
    if isinstance(record, str):
        try:
            record = json.loads(record)
        except (ValueError, RecursionError):
            raise GuandanError("a record is a JSON object; this is not JSON") from None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise GuandanError(f"not a {RECORD_FORMAT} record")
    for key in ("rules", "seed", "actions"):
        if key not in record:
            raise GuandanError(f"the record has no {key!r} field")
    rules = Rules.from_dict(record["rules"])
    seed = _check_seed(record["seed"])
    start = record.get("start")
    if start is not None and not isinstance(start, str):
        raise GuandanError("the record's 'start' is a position string or null")
    actions = record["actions"]
    if not isinstance(actions, list) or len(actions) > MAX_RECORD_ACTIONS:
        raise GuandanError("the record's 'actions' is a list of [seat, move] pairs")
    out = []
    for i, a in enumerate(actions):
        if not isinstance(a, list) or len(a) != 2:
            raise GuandanError(f"action {i} is not a [seat, move] pair")
        out.append((check_int(a[0], f"action {i}'s seat", 0, 3), a[1]))
    rs = record.get("round_start")
    if rs is not None:
        if start is not None or not isinstance(rs, dict) or set(rs) != {"team_levels", "owner", "last_order"}:
            raise GuandanError("the record's 'round_start' is {team_levels, owner, last_order}")
    deals = record.get("deals")
    if deals is not None:
        if not isinstance(deals, list) or not all(
                isinstance(d, list) and len(d) == 4 and all(isinstance(x, str) for x in d) for d in deals):
            raise GuandanError("the record's 'deals' is a list of four card strings per round")
        deals = [list(d) for d in deals]
        if not deals:
            deals = None
    return {"rules": rules, "seed": seed, "start": start, "round_start": rs, "actions": out,
            "deals": deals}


def _missing(hand: Hand, m: Move) -> List[str]:
    need: Dict[str, int] = {}
    for c in m.cards:
        need[c] = need.get(c, 0) + 1
    return [c for c, k in need.items() if hand.count(c) < k]


def perft(game: Game, depth: int, *, divide: bool = False) -> Union[int, Dict[str, int]]:
    """The number of distinct action sequences of length ``depth`` from the
    position (as chess engines count), computed natively. With ``divide``, a
    breakdown ``{str(first move): count}``.

    >>> g = Game.from_position([["S3", "S4"], ["HA"], ["D5"], ["C9"]], level="2", to_act=0)
    >>> perft(g, 1), perft(g, 2)
    (2, 4)
    >>> perft(g, 2, divide=True)
    {'Single 3 S3': 2, 'Single 4 S4': 2}
    """
    depth = check_int(depth, "depth", 0, 64)
    if not divide:
        return game._core.perft(depth)
    if depth == 0:
        raise GuandanError("perft divide needs depth >= 1")
    out: Dict[str, int] = {}
    for m in game.legal_moves():
        c = game._core.copy()
        lo, hi = m.words
        c.apply(lo, hi, False)
        out[str(m)] = c.perft(depth - 1)
    return out


def tribute_choices(hand: Any, level: Any) -> List[str]:
    """The cards ``hand`` may pay as tribute at ``level``: its highest card in
    level order, never a wild (one entry per face of that strength).

    >>> tribute_choices("S3 HA DA H2", "2")      # H2 is a wild at level 2
    ['HA', 'DA']
    >>> tribute_choices("S3 HR SB", "2")
    ['HR']
    """
    h = hand if isinstance(hand, Hand) else Hand(hand)
    return _engine.tribute_options(h, _core.level_index(level))


def return_choices(hand: Any, level: Any) -> List[str]:
    """The cards a tribute receiver may return: rank 2..10 and not a level
    card; if it holds none, its lowest card in level order that is not a wild.

    >>> return_choices("S3 DT CJ H5 S5", "5")    # 5s are level cards at level 5
    ['S3', 'DT']
    >>> return_choices("SJ DJ CQ H2 S2 HR", "2")  # nothing of 2..10 but level cards
    ['SJ', 'DJ']
    """
    h = hand if isinstance(hand, Hand) else Hand(hand)
    return _engine.return_options(h, _core.level_index(level))
