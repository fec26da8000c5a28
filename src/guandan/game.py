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

import json
import random as _random
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _core, _engine
from ._core import Hand
from .errors import GuandanError, IllegalMoveError, InvalidMoveError
from .moves import Move, MoveList, MoveType, parse_move
from .rules import Rules

__all__ = ["Game", "perft", "tribute_choices", "return_choices", "PHASES", "RECORD_FORMAT"]

PHASES = ("tribute", "back", "play", "over")
RECORD_FORMAT = "guandan-record/1"
_RANKS = _core.RANK_CHARS


def _rflags(rules: Rules) -> int:
    f = 0
    if rules.a_win_partner == "second":
        f |= 1
    if not rules.wild_straight_flush:
        f |= 2
    if rules.equal_tribute_leader == "banker_left":
        f |= 4
    return f


def _cards_str(h: Hand, level: int) -> str:
    return "".join(h.cards(level + 2)) or "-"


def _parse_cards_str(s: str) -> Hand:
    if s == "-":
        return Hand()
    if len(s) % 2:
        raise GuandanError(f"bad hand in position: {s!r}")
    return Hand([s[i:i + 2] for i in range(0, len(s), 2)])


class Game:
    """A game of Guandan from level 2 until a team passes A (or
    ``rules.max_rounds``), or from a given position.

    Seats 0..3; team 0 = seats 0 & 2, team 1 = seats 1 & 3. Every random
    thing (deals, the first leader) comes from ``seed``.
    """

    def __init__(self, rules: Optional[Rules] = None, seed: Optional[int] = None) -> None:
        self.rules = rules if rules is not None else Rules.default()
        if not isinstance(self.rules, Rules):
            raise GuandanError(f"rules must be a guandan.Rules, got {type(self.rules).__name__}")
        if seed is None:
            seed = _random.SystemRandom().getrandbits(63)
        if not isinstance(seed, int) or seed < 0 or seed >= 1 << 64:
            raise GuandanError(f"seed must be an int in [0, 2**64), got {seed!r}")
        self.seed = seed
        self._start: Optional[str] = None
        r = self.rules
        self._core = _engine.GameCore.new_game(seed, _rflags(r), r.a_fail_limit or 0, r.max_rounds or 0)
        self._log: List[Tuple[int, int, int, int, int]] = []   # (seat, lo, hi, level, round)
        self._tricks: List[Tuple[Tuple[int, Move], ...]] = []  # trick after each action
        self._deals: List[List[str]] = [self._deal_strings()]  # cards dealt at each round start

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

        >>> g = Game.from_position([["S3", "S4"], ["HA"], ["D5"], ["C9"]], level="2", to_act=0)
        >>> [str(m) for m in g.legal_moves()]
        ['Single 3 S3', 'Single 4 S4']
        >>> Game.from_position(g.position).position == g.position
        True
        """
        if isinstance(position, str):
            return cls._from_position_string(position, rules=rules, seed=seed)
        hands = [h if isinstance(h, Hand) else Hand(h) for h in position]
        if len(hands) != 4:
            raise GuandanError("a position needs 4 hands")
        total = Hand()
        for h in hands:
            total = total + h          # raises TooManyCopiesError beyond two decks
        lv = _core.level_index(level if level is not None else "2")
        tl = tuple(_core.level_index(x) for x in (team_levels or (lv + 2, lv + 2)))
        if len(tl) != 2:
            raise GuandanError("team_levels needs two levels")
        if owner is None:
            owner = 0 if tl[0] == lv else (1 if tl[1] == lv else -1)
        if owner not in (-1, 0, 1):
            raise GuandanError("owner must be -1, 0 or 1")
        if not 0 <= to_act <= 3:
            raise GuandanError(f"to_act must be a seat 0..3, got {to_act}")
        fin = list(finished)
        if len(set(fin)) != len(fin) or any(s not in range(4) for s in fin):
            raise GuandanError(f"bad finishing order {fin}")
        for s in range(4):
            if (len(hands[s]) == 0) != (s in fin):
                raise GuandanError(f"seat {s}: finished seats have no cards and others have some")
        if len(hands[to_act]) == 0:
            raise GuandanError(f"seat {to_act} to act has no cards")
        top_seat, top_lo, top_hi, np_ = -1, 0, 0, 0
        trick_list: List[Tuple[int, Move]] = []
        for seat, mv in (trick or ()):
            m = mv if isinstance(mv, Move) else parse_move(mv, lv + 2, rules=rules)
            trick_list.append((int(seat), m))
            if m.is_pass:
                np_ += 1
            else:
                top_seat, (top_lo, top_hi), np_ = int(seat), m.words, 0
        if passes is not None:
            np_ = passes
        if top_seat >= 0:
            # the trick must still be open, and the seat to act the next one to answer
            others = [s for s in range(4) if s != top_seat and len(hands[s]) > 0]
            if not 0 <= np_ < len(others):
                raise GuandanError(f"{np_} passes after seat {top_seat}'s play: the trick would be over "
                                   f"(at most {len(others) - 1})")
            expect = top_seat
            for _ in range(np_ + 1):
                expect = next(s for s in ((expect + k) % 4 for k in range(1, 5))
                              if len(hands[s]) > 0 and s != top_seat)
            if to_act != expect:
                raise GuandanError(f"seat {expect} is to act after seat {top_seat}'s play and "
                                   f"{np_} passes, not seat {to_act}")
        g = cls.__new__(cls)
        g.rules = rules if rules is not None else Rules.default()
        g.seed = seed
        r = g.rules
        g._core = _engine.GameCore.new_game(seed, _rflags(r), r.a_fail_limit or 0, r.max_rounds or 0)
        g._core.set_position(hands, lv, tl, owner, to_act, top_lo, top_hi, top_seat, np_, fin,
                             round_index, tuple(a_fails), seed, _rflags(r), r.a_fail_limit or 0,
                             r.max_rounds or 0)
        g._log = []
        g._tricks = []
        g._initial_trick = tuple(trick_list)
        g._deals = [g._deal_strings()]
        g._start = g.position
        return g

    @classmethod
    def _from_position_string(cls, s: str, rules: Optional[Rules], seed: int) -> "Game":
        parts = s.split()
        if len(parts) == 11:
            raise GuandanError(f"this position is in the {parts[10].split(':')[0]!r} phase; games "
                               f"start from play-phase positions only (use Game.replay(record))")
        if len(parts) != 10:
            raise GuandanError(f"a position string has 10 fields, got {len(parts)}: {s!r}")
        hands_s, lv, tls, own, act, top, passes, fin, rnd, afl = parts
        hands = [_parse_cards_str(x) for x in hands_s.split("/")]
        if len(hands) != 4:
            raise GuandanError("a position needs 4 hands separated by '/'")
        tl = tls.split(",")
        trick = None
        if top != "-":
            try:
                seat, tname, rank, cards = top.split(":")
            except ValueError:
                raise GuandanError(f"bad top play {top!r}: expected seat:Type:Rank:cards") from None
            trick = [(int(seat), [tname, rank, [cards[i:i + 2] for i in range(0, len(cards), 2)]])]
        return cls.from_position(
            hands, lv, int(act), team_levels=tl, owner=-1 if own == "-" else int(own), trick=trick,
            passes=int(passes), finished=[] if fin == "-" else [int(c) for c in fin],
            round_index=int(rnd), a_fails=tuple(int(x) for x in afl.split(",")), rules=rules,
            seed=seed)

    # -- state ----------------------------------------------------------------
    @property
    def phase(self) -> str:
        """``"tribute"``, ``"back"``, ``"play"`` or ``"over"``."""
        return PHASES[self._core.phase]

    @property
    def to_act(self) -> int:
        """The seat (0..3) to act; meaningless once the game is over."""
        return self._core.to_act

    @property
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
    def trick(self) -> List[Tuple[int, Move]]:
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
        return self._core.phase == 3

    @property
    def winner(self) -> Optional[int]:
        """The winning team (0: seats 0 & 2, 1: seats 1 & 3) once over, else None."""
        w = self._core.winner
        return None if (w < 0 or not self.is_over) else w

    @property
    def card_counts(self) -> List[int]:
        return [self._core.hand_size(s) for s in range(4)]

    @property
    def moves_played(self) -> List[Tuple[int, Move]]:
        """Every action of the game so far, ``(seat, move)``."""
        return [(s, Move(lo, hi, lv)) for s, lo, hi, lv, _ in self._log]

    @property
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
            t, r, cards = Move(lo, hi, lv).to_platform()
            top = f"{seat}:{t}:{r}:{''.join(cards)}"
        a, b = c.levels
        own = "-" if c.owner < 0 else str(c.owner)
        fin = "".join(str(s) for s in c.fin) or "-"
        f0, f1 = c.afail
        pos = (f"{hands} {_RANKS[lv]} {_RANKS[a]},{_RANKS[b]} {own} {c.to_act} {top} {passes} "
               f"{fin} {c.round_index} {f0},{f1}")
        if c.phase == 2:
            return pos
        if c.phase == 3:
            return f"{pos} over:{'-' if self.winner is None else self.winner}"
        n, payers, paid, recv, returned, _ = c.tribute
        order = "".join(str(x) for x in (c.last_order or []))
        cards = lambda faces: ",".join(_core.FACE_STR[f] if f >= 0 else "-" for f in faces) or "-"
        return f"{pos} {self.phase}:{order}:{cards(paid)}:{cards(returned)}"

    # -- actions ----------------------------------------------------------------
    def legal_moves(self) -> MoveList:
        """The legal actions of the seat to act: plays (and the pass when
        following) in the play phase; tribute or return choices (moves of
        type TRIBUTE / BACK) in those phases; empty when the game is over."""
        return self._core.legal()

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
        seat, phase, r0 = c.to_act, c.phase, c.round_index
        was_leading = c.top[0] < 0
        if not c.apply(lo, hi, True):
            raise IllegalMoveError(self._why_illegal(m))
        self._log.append((seat, lo, hi, m._level, r0))
        prev = self._tricks[-1] if self._tricks else getattr(self, "_initial_trick", ())
        if phase != 2 or c.round_index != r0 or c.top[0] < 0:
            trick: Tuple[Tuple[int, Move], ...] = ()       # not a play, or the trick/round ended
        elif was_leading:
            trick = ((seat, m),)
        else:
            trick = tuple(prev) + ((seat, m),)
        self._tricks.append(trick)
        if c.round_index != r0 and not self.is_over:
            self._deals.append(self._deal_strings())

    def _why_illegal(self, m: Move) -> str:
        c = self._core
        seat = c.to_act
        hand = c.hand(seat)
        phase = self.phase
        t = m.type
        if phase in ("tribute", "back"):
            want = MoveType.TRIBUTE if phase == "tribute" else MoveType.BACK
            choices = ", ".join(x.cards[0] for x in self.legal_moves())
            if t != want:
                return f"seat {seat} must {'pay tribute' if phase == 'tribute' else 'return a card'} now, not play {m}"
            if m.cards[0] not in hand:
                return f"{m.cards[0]} is not in seat {seat}'s hand"
            if phase == "tribute":
                return f"the tribute is the highest card in level order, never a wild: one of {choices}"
            return f"the return card must be of rank 2..10 and not a level card: one of {choices}"
        if t in (MoveType.TRIBUTE, MoveType.BACK):
            return f"there is no {t.platform} in the play phase"
        seat_top, lo, hi, _ = c.top
        if m.is_pass:
            return "the leader cannot pass"
        missing = [x for x in _missing(hand, m)]
        if missing:
            return f"not in seat {seat}'s hand: {' '.join(missing)}"
        if seat_top >= 0:
            top = Move(lo, hi, c.rlevel)
            return f"{m} does not beat {top} (played by seat {seat_top})"
        return f"{m} is not legal here"

    def undo(self) -> None:
        """Take back the last action (exactly restores the state)."""
        if not self._log or self._core.history_len == 0:
            raise GuandanError("nothing to undo")
        self._core.undo()
        self._log.pop()
        self._tricks.pop()
        while len(self._deals) > self._core.round_index + 1:
            self._deals.pop()

    def copy(self) -> "Game":
        """An independent copy (native state copied; history kept)."""
        g = Game.__new__(Game)
        g.rules = self.rules
        g.seed = self.seed
        g._start = self._start
        g._core = self._core.copy()
        g._log = list(self._log)
        g._tricks = list(self._tricks)
        g._deals = list(self._deals)
        if hasattr(self, "_initial_trick"):
            g._initial_trick = self._initial_trick
        return g

    def play_policy(self, policy: Union[str, Callable[..., Any]]) -> Move:
        """Let a policy act for the seat to act; returns the move played.
        ``"random"`` and ``"greedy"`` run natively; any callable
        ``(observation, legal_moves) -> move`` works too."""
        if isinstance(policy, str):
            lo, hi = self._core.pick(policy)
            m = Move(lo, hi, self._core.rlevel)
        else:
            m = self._to_move(policy(self.observation(self.to_act), self.legal_moves()))
        self.play(m)
        return m

    def play_out(self, policies: Sequence[Union[str, Callable[..., Any]]] = ("greedy",) * 4, *,
                 until: str = "game") -> None:
        """Play with one policy per seat until the game (or this round) ends."""
        if len(policies) != 4:
            raise GuandanError("play_out needs one policy per seat")
        start = self.round_index
        while not self.is_over and (until == "game" or self.round_index == start):
            self.play_policy(policies[self.to_act])

    # -- information ------------------------------------------------------------
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
        if c.phase != 0 and not anti and n:
            trib["tribute"] = [[payers[i], recv[i], _core.FACE_STR[paid[i]]] for i in range(n)]
        if c.phase == 2 and not anti and n:
            trib["back"] = [[recv[i], payers[i], _core.FACE_STR[returned[i]]] for i in range(n)]
        history = [[s, Move(l, h, v).to_platform()] for s, l, h, v, r in self._log
                   if r == c.round_index and (l >> 56) & 15 not in (MoveType.TRIBUTE, MoveType.BACK)]
        a, b = c.levels
        return {
            "seat": seat,
            "phase": self.phase,
            "to_act": c.to_act,
            "hand": c.hand(seat).cards(lv + 2),
            "card_counts": self.card_counts,
            "level": _RANKS[lv],
            "team_levels": [_RANKS[a], _RANKS[b]],
            "my_team": seat & 1,
            "round_index": c.round_index,
            "leading": c.phase == 2 and seat_top < 0,
            "top": None if seat_top < 0 else {"seat": seat_top,
                                               "move": Move(lo, hi, lv).to_platform()},
            "passes": passes,
            "trick": [[s, m.to_platform()] for s, m in self.trick],
            "history": history,
            "finish_order": c.fin,
            "tribute": trib,
            "last_round_order": c.last_order,
        }

    def _deal_strings(self) -> List[str]:
        return [" ".join(self._core.hand(s).cards(self._core.rlevel + 2)) for s in range(4)]

    def record(self) -> Dict[str, Any]:
        """A JSON-serialisable record of the whole game: rules, seed, start
        position (for games from a position), the deal of every round and
        every action as ``[seat, triple]``."""
        return {
            "format": RECORD_FORMAT,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "start": self._start,
            "deals": [list(d) for d in self._deals],
            "actions": [[s, Move(lo, hi, lv).to_platform()] for s, lo, hi, lv, _ in self._log],
            "result": {
                "over": self.is_over,
                "winner": self.winner,
                "team_levels": list(self.team_levels),
                "rounds": self.round_index,
            },
        }

    @classmethod
    def replay(cls, record: Union[Dict[str, Any], str]) -> "Game":
        """Rebuild the identical game from :meth:`record` (a dict or JSON)."""
        if isinstance(record, str):
            record = json.loads(record)
        if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
            raise GuandanError(f"not a {RECORD_FORMAT} record")
        rules = Rules.from_dict(record["rules"])
        if record.get("start"):
            g = cls.from_position(record["start"], rules=rules, seed=record["seed"])
        else:
            g = cls(rules=rules, seed=record["seed"])
        for i, (seat, triple) in enumerate(record["actions"]):
            if g.to_act != seat:
                raise GuandanError(f"action {i}: seat {seat} acts but seat {g.to_act} is to act")
            g.play(triple)
        if record.get("deals") and [list(d) for d in g._deals] != [list(d) for d in record["deals"]]:
            raise GuandanError("the replayed deals differ from the record's")
        return g

    def __repr__(self) -> str:
        return (f"<Game round {self.round_index} level {self.level} phase {self.phase} "
                f"to_act {self.to_act} levels {self.team_levels}>")


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
    if not divide:
        return game._core.perft(depth)
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
