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

import random as _random
import threading
from enum import IntEnum
from functools import wraps
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, TypeVar, Union, cast

import numpy as np

from . import _core, _engine
from ._core import Hand
from ._checks import check_int
from .errors import GuandanError, IllegalMoveError, InvalidMoveError, PolicyError
from .moves import (ORDERS, Move, MoveList, MoveType, _cards_at, _classify_at, _is_bare_cards,
                    _is_play_word, _parse_at, contest_order)
from .positions import cards_str, check_level, check_seed, parse_position_string, validate_position
from .records import RECORD_FORMAT, validate_record
from .registry import decider
from .state import PHASE_BY_CODE, PHASES, Phase, RoundResult, TributeState, TrickPlay
from .rules import Rules, resolve_rules
from .seeds import policy_seed

__all__ = ["Game", "Phase", "TrickPlay", "TributeState", "RoundResult", "perft",
           "tribute_choices", "return_choices", "PHASES", "RECORD_FORMAT"]


_RANKS = _core.RANK_CHARS
_native_move = Move._from_native        # words read from the native state
_FACE_MASK = _core.MOVE_FACE_MASK


class Refusal(IntEnum):
    """Why the native state machine refused an action: its codes
    (``_engine.REFUSALS``), by name."""

    NONE = _engine.REFUSALS["NONE"]
    GAME_OVER = _engine.REFUSALS["GAME_OVER"]
    TRIBUTE_DUE = _engine.REFUSALS["TRIBUTE_DUE"]
    RETURN_DUE = _engine.REFUSALS["RETURN_DUE"]
    NOT_IN_HAND = _engine.REFUSALS["NOT_IN_HAND"]
    TRIBUTE_CARD = _engine.REFUSALS["TRIBUTE_CARD"]
    RETURN_CARD = _engine.REFUSALS["RETURN_CARD"]
    NOT_A_PLAY = _engine.REFUSALS["NOT_A_PLAY"]
    LEADER_PASS = _engine.REFUSALS["LEADER_PASS"]
    DOES_NOT_BEAT = _engine.REFUSALS["DOES_NOT_BEAT"]
    OTHER = _engine.REFUSALS["OTHER"]


if {r.name: r.value for r in Refusal} != dict(_engine.REFUSALS):   # the native table is the source
    raise ImportError("guandan.game.Refusal does not match the native refusal codes; rebuild the package")


def _check_trick(trick: Any, core: Any) -> Tuple[TrickPlay, ...]:
    """``trick`` as TrickPlays, if it is ``(seat, move)`` plays whose last
    play is the native state's play to beat, or empty (plays not given);
    else GuandanError."""
    if isinstance(trick, (str, bytes)):
        raise GuandanError(f"a trick is a sequence of (seat, move) plays, got {trick!r:.40}")
    plays = []
    for p in trick:
        if not (isinstance(p, tuple) and len(p) == 2 and isinstance(p[1], Move)
                and isinstance(p[0], int) and not isinstance(p[0], bool) and 0 <= p[0] <= 3):
            raise GuandanError(f"a trick is a sequence of (seat, move) plays, got {p!r:.60}")
        plays.append(TrickPlay(p[0], p[1]))
    top_seat, top_lo, top_hi, _ = core.top
    last = next((p for p in reversed(plays) if not p.move.is_pass), None)
    if plays and (last is None or (last.seat, *last.move.words) != (top_seat, top_lo, top_hi)):
        raise GuandanError("the trick does not end in the state's play to beat")
    return tuple(plays)


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _locked(method: _Method) -> _Method:
    """Run a method under the game's lock: a Game shared between threads
    stays consistent (each call is atomic). The method keeps its signature
    (for ``inspect`` and for type checkers)."""
    @wraps(method)
    def run(self: "Game", *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)
    return cast(_Method, run)


class Game:
    """A game of Guandan from level 2 until a team passes A (or
    ``rules.max_rounds``), or from a given position.

    Seats 0..3; team 0 = seats 0 & 2, team 1 = seats 1 & 3. Every random
    thing (deals, the first leader) comes from ``seed``.
    """

    def __init__(self, rules: Optional[Rules] = None, seed: Optional[int] = None, *,
                 policy_seed: Optional[int] = None) -> None:
        r = resolve_rules(rules)
        if seed is None:
            seed = _random.SystemRandom().getrandbits(63)
        seed = check_seed(seed)
        core = _engine.GameCore.new_game(seed, r.native)
        if policy_seed is not None:           # the built-in random policy's draws
            core.seed_policy(check_seed(policy_seed))
        self._setup(core, r, seed, round0=0)

    def _setup(self, core: Any, rules: Rules, seed: int, *, start: Optional[str] = None,
               round_start: Optional[Dict[str, Any]] = None,
               initial_trick: Tuple[Tuple[int, Move], ...] = (),
               log: Optional[List[Tuple[int, int, int, int, int]]] = None,
               deals: Optional[List[List[str]]] = None, round0: Optional[int] = None) -> None:
        # the one constructor path: every Game (new, position, deal, copy,
        # sampled world) is its native core plus these fields
        self.rules = rules
        self.seed = seed
        self._core = core
        self._lock = threading.RLock()
        self._start: Optional[str] = start
        self._round_start: Optional[Dict[str, Any]] = round_start
        self._log: List[Tuple[int, int, int, int, int]] = [] if log is None else log  # (seat, lo, hi, level, round)
        self._initial_trick: Tuple[Tuple[int, Move], ...] = initial_trick
        self._round0 = core.round_index if round0 is None else round0   # the round the game starts at
        # cards dealt at each round start
        self._deals: List[List[str]] = [self._deal_strings()] if deals is None else deals

    @classmethod
    def _from_core(cls, core: Any, rules: Rules, seed: int, **fields: Any) -> "Game":
        """A Game around a native core already in its state (the private
        constructor; ``fields`` as :meth:`_setup`)."""
        g = cls.__new__(cls)
        g._setup(core, rules, seed, **fields)
        return g

    # -- construction -----------------------------------------------------------
    @classmethod
    def from_position(cls, position: Union[str, Sequence[Any]], level: Any = None, to_act: int = 0, *,
                      team_levels: Optional[Sequence[Any]] = None, owner: Optional[int] = None,
                      trick: Optional[Sequence[Tuple[int, Any]]] = None, passes: Optional[int] = None,
                      finished: Sequence[int] = (), round_index: int = 0,
                      a_fails: Sequence[int] = (0, 0), rules: Optional[Rules] = None,
                      seed: int = 0, policy_seed: Optional[int] = None) -> "Game":
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
        range) raises a :class:`GuandanError` saying why. ``policy_seed``
        seeds the built-in random policy's draws (default: from ``seed``).

        >>> g = Game.from_position([["S3", "S4"], ["HA"], ["D5"], ["C9"]], level="2", to_act=0)
        >>> [str(m) for m in g.legal_moves()]
        ['Single 3 S3', 'Single 4 S4']
        >>> Game.from_position(g.position).position == g.position
        True
        """
        if isinstance(position, str):
            if level is not None or trick is not None or passes is not None or finished:
                raise GuandanError("give either a position string or hands with keyword fields, not both")
            kw = parse_position_string(position)
            return cls.from_position(kw.pop("hands"), rules=rules, seed=seed, policy_seed=policy_seed, **kw)
        r = resolve_rules(rules)
        seed = check_seed(seed)
        pos = validate_position(position, level, to_act, team_levels, owner, trick, passes,
                                  finished, round_index, a_fails, r)
        core = _engine.GameCore.new_game(seed, r.native)
        core.set_position(*pos.native, seed, r.native)
        if policy_seed is not None:
            core.seed_policy(check_seed(policy_seed))
        g = cls._from_core(core, r, seed, initial_trick=pos.trick)
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
        r = resolve_rules(rules)
        seed = check_seed(seed)
        if not isinstance(team_levels, (list, tuple)) or len(team_levels) != 2:
            raise GuandanError("team_levels needs two levels")
        tl = [check_level(x, "team level") for x in team_levels]
        owner = check_int(owner, "owner", 0, 1)
        order = None
        if last_order is not None:
            if not isinstance(last_order, (list, tuple)) or len(last_order) != 4:
                raise GuandanError("last_order lists the four seats in finishing order")
            order = [check_int(x, "last_order seat", 0, 3) for x in last_order]
            if sorted(order) != [0, 1, 2, 3]:
                raise GuandanError(f"last_order {order} is not a permutation of the seats")
            if order[0] & 1 != owner:
                raise GuandanError(f"the previous banker (seat {order[0]}) must be in the owner "
                                   f"team {owner}: the round is played at the last winner's level")
        core = _engine.GameCore.new_game(seed, r.native)
        core.start_round(seed, tl, owner, order, r.native)
        if policy_seed is not None:
            core.seed_policy(check_seed(policy_seed))
        return cls._from_core(core, r, seed, round_start={"team_levels": [_RANKS[x] for x in tl],
                                                          "owner": owner, "last_order": order},
                               round0=0)

    # -- state ----------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        """The :class:`Phase` (a ``str``: ``"tribute"``, ``"back"``, ``"play"`` or ``"over"``)."""
        return PHASE_BY_CODE[self._core.phase]

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
        k, continued = self._core.trick_span()     # from the native undo history
        head = list(self._initial_trick) if continued else []
        tail = self._log[len(self._log) - k:] if k else []
        return ([TrickPlay(s, m) for s, m in head]
                + [TrickPlay(s, _native_move(lo, hi, lv)) for s, lo, hi, lv, _ in tail])

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
    @_locked
    def deals(self) -> List[List[str]]:
        """The cards dealt at the start of each round of this game so far
        (from the start position for games from a position), four card
        strings per round."""
        return [list(d) for d in self._deals]

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

    @property
    def round_end_hands(self) -> Optional[List[Hand]]:
        """The cards each seat still held when the last round ended (the
        platform's ``restCards``); None before the first round ends."""
        if self._core.last_order is None:
            return None
        return [self._core.end_hand(s) for s in range(4)]

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
                if s == seat and rnd == r and lo and _is_play_word(lo):
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
        hands = "/".join(cards_str(c.hand(s), lv) for s in range(4))
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
        phase = PHASE_BY_CODE[c.phase]
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
    def legal_moves(self, order: str = "generator") -> MoveList:
        """The legal actions of the seat to act: plays (and the pass when
        following) in the play phase; tribute or return choices (moves of
        type TRIBUTE / BACK) in those phases; empty when the game is over.
        ``order="contest"``: plays in the contest platform's ``actionList``
        order (what the server sends; see :func:`guandan.moves.contest_order`)."""
        if order not in ORDERS:
            raise GuandanError(f"order must be 'generator' or 'contest', got {order!r:.40}")
        moves = self._core.legal()
        if order == "contest" and self.phase is Phase.PLAY:
            moves = contest_order(moves, self._core.hand(self._core.to_act))
        return moves

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
            if _is_bare_cards(move) and self.phase is Phase.PLAY:
                return self._read_cards(move)
            return _parse_at(move, lv, self.rules)
        except InvalidMoveError as e:
            cards: Any = ()
            if _is_bare_cards(move):
                cards = move.split()
            elif isinstance(move, (list, tuple)) and len(move) == 3 and isinstance(move[2], (list, tuple)):
                cards = [str(c) for c in move[2]]
            raise IllegalMoveError(f"not a valid play at level {_RANKS[lv]}: {e}",
                                   refusal="INVALID", cards=cards) from None

    def _read_cards(self, text: str) -> Move:
        """Bare cards: the one reading that is legal now; the default
        (highest) reading when none is (its refusal says why); several legal
        readings are refused with the list, to be given as ``TYPE RANK CARDS``."""
        readings = _classify_at(text.split(), self._core.rlevel, self.rules)
        if not readings:
            return _parse_at(text, self._core.rlevel, self.rules)   # raises: no play
        legal = self._core.legal()
        ok = [m for m in readings if legal.find(*m.words) >= 0]
        if len(ok) == 1:
            return ok[0]
        if len(ok) > 1:
            raise IllegalMoveError(f"{text.strip()} can be played as {' or '.join(map(str, ok))}: "
                                   f"say which (type, rank and cards)", refusal="AMBIGUOUS", readings=ok)
        return readings[0]

    @_locked
    def play(self, move: Any) -> None:
        """Play an action for the seat to act: a :class:`Move`, a platform
        triple or text (``"Pair 5 S5 D5"``, ``"S5 D5"``, ``"PASS"``). Raises
        :class:`IllegalMoveError` saying why when it is not legal now; the
        state is then unchanged."""
        if self.is_over:
            raise IllegalMoveError("the game is over", refusal=Refusal.GAME_OVER.name)
        m = self._to_move(move)
        lo, hi = m.words
        c = self._core
        seat, r0 = c.to_act, c.round_index
        if not c.apply(lo, hi, True):
            raise self._why_illegal(m)
        self._log.append((seat, lo, hi, m._level, r0))
        if c.round_index != r0 and not self.is_over:
            self._deals.append(self._deal_strings())

    def _why_illegal(self, m: Move) -> IllegalMoveError:
        # the rule is native (st_refusal); here it is only put into words and fields
        c = self._core
        lo, hi = m.words
        code = Refusal(c.refusal(lo, hi))
        seat = c.to_act
        top = self.top
        fields: Dict[str, Any] = {"refusal": code.name, "move": m,
                                  "top": None if top is None else top.move}
        if code in (Refusal.TRIBUTE_DUE, Refusal.RETURN_DUE):
            due = "pay tribute" if code == Refusal.TRIBUTE_DUE else "return a card"
            text = f"seat {seat} must {due} now, not play {m}"
        elif code == Refusal.NOT_IN_HAND:
            hand = c.hand(seat)
            missing = _missing(hand, m)
            once = [x for x in missing if hand.count(x) == 1]
            note = f" ({' '.join(once)} held once, needed twice)" if once else ""
            text = f"not in seat {seat}'s hand: {' '.join(missing)}{note}"
            fields["missing"] = missing
        elif code == Refusal.TRIBUTE_CARD or code == Refusal.RETURN_CARD:
            fields["choices"] = [x.cards[0] for x in self.legal_moves()]
            choices = ", ".join(fields["choices"])
            if code == Refusal.TRIBUTE_CARD:
                text = f"the tribute is the highest card in level order, never a wild: one of {choices}"
            else:
                text = f"the return card must be of rank 2..10 and not a level card: one of {choices}"
        elif code == Refusal.NOT_A_PLAY:
            text = f"there is no {m.type.platform} in the play phase"
        elif code == Refusal.LEADER_PASS:
            text = "the leader cannot pass"
        elif code == Refusal.DOES_NOT_BEAT:
            assert top is not None
            text = f"{m} does not beat {top.move} (played by seat {top.seat})"
        elif code == Refusal.GAME_OVER:
            text = "the game is over"
        else:
            text = f"{m} is not legal here"
        return IllegalMoveError(text, **fields)

    @_locked
    def undo(self) -> None:
        """Take back the last action (exactly restores the state)."""
        if not self._log or self._core.history_len == 0:
            raise GuandanError("nothing to undo")
        self._core.undo()
        self._log.pop()
        while len(self._deals) > self._core.round_index - self._round0 + 1:
            self._deals.pop()

    @_locked
    def copy(self) -> "Game":
        """An independent copy (native state and undo history copied)."""
        return Game._from_core(self._core.copy(), self.rules, self.seed, start=self._start,
                               round_start=self._round_start, initial_trick=self._initial_trick,
                               log=list(self._log), deals=list(self._deals), round0=self._round0)

    @_locked
    def choose(self, policy: Any) -> Move:
        """The action a policy picks for the seat to act, without playing it:
        a registered name (``"random"``, ``"greedy"``, ``"expert"``,
        ``"search:ms=200"`` ...; see :mod:`guandan.policies`), a policy object
        (``decide(game) -> move``: it decides from this game, with
        everything the seat knows and the game's rules) or a callable
        ``(observation, legal_moves) -> move``."""
        if self.is_over:
            raise IllegalMoveError("the game is over")
        label = policy
        if isinstance(policy, str):                  # the registered object, checked as any other
            policy = decider(policy)
        decide = getattr(policy, "decide", None)
        if not callable(decide) and not callable(policy):
            raise GuandanError(f"a policy is a registered name, an object with decide(game) or a callable "
                               f"(observation, legal_moves) -> move, got {type(policy).__name__}")
        try:
            answer = decide(self) if callable(decide) else policy(self.observation(self.to_act),
                                                                  self.legal_moves())
        except GuandanError:
            raise
        except Exception as e:
            raise PolicyError(f"policy {label!r:.60} raised {type(e).__name__}: {e}") from e
        return self.parse_action(answer)

    def native_choice(self, code: int) -> Move:
        """The move the native policy ``code`` (:func:`guandan.policies.native_code`)
        picks for the seat to act: from the view the native loop builds (own
        hand, counts, cards played, trick, levels, the tribute of the round),
        under the game's rules, drawing from the game's policy stream."""
        if self.is_over:
            raise IllegalMoveError("the game is over")
        with self._lock:
            lo, hi = self._core.pick(check_int(code, "policy code", 0, 32767))
            return _native_move(lo, hi, self._core.rlevel)

    @_locked
    def play_policy(self, policy: Union[str, Callable[..., Any]]) -> Move:
        """Let a policy act for the seat to act (see :meth:`choose`); returns
        the move played."""
        m = self.choose(policy)
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

    # -- the native state, for native tools (guandan.search) --------------------
    def round_plays(self) -> List[Tuple[int, int, int]]:
        """This round's plays as ``(seat, lo, hi)`` move words (passes,
        tribute and return left out), the start position's trick included:
        the plays an information set is built from."""
        with self._lock:
            r = self._core.round_index
            plays = [(s, lo, hi) for s, lo, hi, lv, rr in self._log
                     if rr == r and lo and _is_play_word(lo)]
            if r == self._round0:
                plays = [(s, *m.words) for s, m in self._initial_trick if not m.is_pass] + plays
            return plays

    @property
    def lock(self) -> Any:
        """The game's reentrant lock. Every method holds it while it runs;
        hold it (``with game.lock:``) to make several calls one step that no
        other thread's play comes between (the search tools read the state,
        this round's plays and the trick under it)."""
        return self._lock

    def native_state(self, history: bool = False) -> "_engine.GameCore":
        """A snapshot of the native state, for the native tools
        (:mod:`guandan.search`: worlds, rollouts, the solver): an opaque
        native object that they take directly; ``state_bytes()`` gives its
        bytes. ``history``: with the game's actions so far (what the
        search's opponent models read: this round's plays, each seat's
        habits)."""
        with self._lock:
            return self._core.copy(history=bool(history))

    @classmethod
    def from_native_state(cls, state: Union["_engine.GameCore", bytes], seed: int, *,
                          rules: Optional[Rules] = None, trick: Sequence[TrickPlay] = ()) -> "Game":
        """A game started at a native state (a :meth:`native_state` snapshot,
        one the native tools built from it, or its bytes), as
        :meth:`from_position` builds one: no history before it, its trick
        ``trick`` (``(seat, move)`` plays ending in the state's play to
        beat; empty: not given). Bytes and the trick are checked
        (GuandanError); the policy stream is seeded from ``seed``.
        ``rules`` are the rules of the game the state comes from
        (``game.rules``; default: the default rules): the state carries its
        own copy, which the engine follows, and a state under other rules is
        refused (GuandanError), so ``game.rules`` and the observations always
        say the rules the game is played under."""
        r = resolve_rules(rules)
        seed = check_seed(seed)
        if isinstance(state, _engine.GameCore):
            core = state.copy(history=False)
        elif isinstance(state, bytes):
            core = _engine.GameCore.new_game(seed, r.native)
            core.load_state_bytes(state)
        else:
            raise GuandanError(f"a native state is a native_state() snapshot or its bytes, "
                               f"got {type(state).__name__}")
        if core.decisions < 0:
            raise GuandanError("state bytes out of range (a negative action count)")
        if not core.follows(r.native):
            raise GuandanError("the native state is played under other rules than the ones given "
                               "(pass rules=, the rules of the game it comes from)")
        core.seed_policy(policy_seed(seed))
        g = cls._from_core(core, r, seed, initial_trick=_check_trick(trick, core))
        g._start = g.position
        return g

    # -- information ------------------------------------------------------------
    @_locked
    def observation(self, seat: int) -> Dict[str, Any]:
        """What ``seat`` may know: its own hand, every player's card count,
        the current trick and the plays of this round, levels, the tribute of
        this round once resolved, the last round's order and the game's rules
        (``"rules"``: :meth:`Rules.to_dict`, read back by
        :func:`guandan.rules.rules_of`). Nothing hidden."""
        seat = check_int(seat, "seat", 0, 3)
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
                   if r == c.round_index and _is_play_word(l)]
        a, b = c.levels
        return {
            "seat": seat,
            "phase": phase.value,
            "to_act": c.to_act,
            "hand": _cards_at(c.hand(seat), lv),
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
            "rules": self.rules.to_dict(),
        }

    def _deal_strings(self) -> List[str]:
        return [" ".join(_cards_at(self._core.hand(s), self._core.rlevel)) for s in range(4)]

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
        g = None
        for _, g in cls.replay_steps(record):
            pass
        assert g is not None
        return g

    @classmethod
    def replay_steps(cls, record: Union[Dict[str, Any], str]) -> Iterator[Tuple[int, "Game"]]:
        """:meth:`replay` an action at a time, for a caller that spreads a
        long record over several turns (the web table opens replays so):
        yields ``(i, game)`` with the game before action ``i`` of the record,
        then ``(len(actions), game)`` once every action is played and the
        deals are checked; the same game object throughout. Raises what
        :meth:`replay` raises, when it reaches the fault (the record's form
        before the first step).

        >>> g = Game(seed=3)
        >>> g.play(g.legal_moves()[0])
        >>> [i for i, _ in Game.replay_steps(g.record())]
        [0, 1]
        """
        rec = validate_record(record)
        if rec["start"]:
            g = cls.from_position(rec["start"], rules=rec["rules"], seed=rec["seed"])
        elif rec["round_start"] is not None:
            rs = rec["round_start"]
            g = cls.from_deal(rec["seed"], rs["team_levels"], rs["owner"], rs["last_order"],
                              rules=rec["rules"])
        else:
            g = cls(rules=rec["rules"], seed=rec["seed"])
        for i, (seat, triple) in enumerate(rec["actions"]):
            yield i, g
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
        yield len(rec["actions"]), g

    def __repr__(self) -> str:
        levels = f"{self.team_levels[0]}/{self.team_levels[1]}"
        if self.is_over:
            w = self.winner
            return (f"<Game over after {self.round_index} rounds: "
                    f"{'no winner' if w is None else f'team {w} won'} (teams {levels})>")
        top = self.top
        table = f", to beat: {top.move} (seat {top.seat})" if top is not None else ""
        return (f"<Game round {self.round_index + 1}, level {self.level} (teams {levels}), "
                f"{self.phase}, seat {self.to_act} to act, cards "
                f"{'/'.join(map(str, self.card_counts))}{table}>")

    def _repr_html_(self) -> str:
        """The table of the game for Jupyter: per seat its cards, count and
        the plays of the current trick."""
        import html
        with self._lock:
            trick: Dict[int, List[str]] = {}
            for s, m in self.trick:
                trick.setdefault(s, []).append(str(m))
            lv = self._core.rlevel
            rows = []
            for seat in range(4):
                mark = " &#9664;" if seat == self.to_act and not self.is_over else ""
                cards = " ".join(_cards_at(self._core.hand(seat), lv))
                plays = "; ".join(trick.get(seat, []))
                rows.append(f"<tr><td>{seat} (team {seat & 1}){mark}</td><td>{self.card_counts[seat]}</td>"
                            f"<td><code>{html.escape(cards)}</code></td><td>{html.escape(plays)}</td></tr>")
        head = html.escape(repr(self))
        return (f"<div><p>{head}</p><table><thead><tr><th>seat</th><th>cards</th><th>hand</th>"
                f"<th>this trick</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>")


def _missing(hand: Hand, m: Move) -> List[str]:
    need: Dict[str, int] = {}
    for c in m.cards:
        need[c] = need.get(c, 0) + 1
    return [c for c, k in need.items() if hand.count(c) < k]


def perft(game: Game, depth: int, *, divide: bool = False,
          stop_at_round_end: bool = False) -> Union[int, Dict[str, int]]:
    """The number of distinct action sequences of length ``depth`` from the
    position (as chess engines count), computed natively. With ``divide``, a
    breakdown ``{str(first move): count}``.

    The end of the game is terminal (a sequence cannot go past it). By
    default the end of a *round* is not: sequences continue into the next
    deal (its tribute and play), whose cards come from the game's seed, so
    such counts depend on the seed. ``stop_at_round_end=True`` makes the end
    of the current round terminal too: a sequence that ends the round at its
    last action counts, one that would go on does not.

    >>> g = Game.from_position([["S3", "S4"], ["HA"], ["D5"], ["C9"]], level="2", to_act=0)
    >>> perft(g, 1), perft(g, 2)
    (2, 4)
    >>> perft(g, 2, divide=True)
    {'Single 3 S3': 2, 'Single 4 S4': 2}
    """
    depth = check_int(depth, "depth", 0, 64)
    stop = game._core.round_index if stop_at_round_end else -1
    if not divide:
        return game._core.perft(depth, stop)
    if depth == 0:
        raise GuandanError("perft divide needs depth >= 1")
    out: Dict[str, int] = {}
    for m in game.legal_moves():
        c = game._core.copy()
        lo, hi = m.words
        c.apply(lo, hi, False)
        if stop >= 0 and c.round_index != stop:
            out[str(m)] = 1 if depth == 1 else 0
        else:
            out[str(m)] = c.perft(depth - 1, stop)
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
