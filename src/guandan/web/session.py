"""The web table's three uses as plain objects (no sockets here):
:class:`PlaySession` (one person against built-in bots), :class:`Replay`
(a game record stepped move by move) and :class:`BotTable` (a bot-vs-bot
table to watch). All of them use the public :class:`~guandan.Game` API:
legality, readings of a card selection and refusal reasons are the
engine's."""

from __future__ import annotations

import math
import os
from collections import Counter
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..errors import GuandanError, IllegalMoveError
from ..game import Game, Phase
from ..moves import Move
from ..words import LANGS, message, reason, refusal_of
from ..play import explain_greedy, greedy_reason, undo_own
from ..policies import explain as expert_explain
from ..policies import GreedyPolicy, check_policy, parse_policy
from ..records import RECORD_FORMAT
from ..rules import Rules
from .views import cards_view, move_view, table_view

__all__ = ["PlaySession", "Replay", "ReplayBuilder", "BotTable", "check_bot", "hint", "refusal_words", "DEFAULT_BOTS",
           "MAX_REPLAY_ACTIONS"]

#: the longest record the web table steps through (a 100-round game has
#: about 12,000 actions); longer ones are refused (``guandan replay`` reads any)
MAX_REPLAY_ACTIONS = 50_000

#: the bots offered to the page (``guandan web --bots`` changes the list)
DEFAULT_BOTS = ("greedy", "expert", "random", "search:ms=300", "search:rollouts=200")


def _said(cls: Any, name: str, **fields: Any) -> Exception:
    """An error whose message is the English of ``words.MESSAGES[name]``,
    carrying the name and fields so the page gets every language."""
    e = cls(message(name, "en", **fields))
    e.say = (name, fields)
    return e


def check_bot(spec: str) -> str:
    """A bot spec the engine knows (``greedy``, ``search:ms=300`` ...)."""
    if not isinstance(spec, str):
        raise GuandanError("a bot is a policy name")
    return check_policy(spec)


def _same_cards(m: Move, want: Counter) -> bool:
    return Counter(m.cards) == want


def _sentences(rule: str) -> Dict[str, str]:
    return {lang: reason(rule, lang) for lang in LANGS}


def refusal_words(e: BaseException) -> Dict[str, str]:
    """A refusal as a sentence in every language (:func:`guandan.words.refusal_of`)."""
    return {lang: refusal_of(e, lang) for lang in LANGS}


def hint(g: Game, bot: str) -> Dict[str, Any]:
    """What ``bot`` would play for the seat to act, and why (``--hint``
    style): the expert names its rule, the search its candidates' values,
    greedy its rule in words; ``reason``: the why as a sentence in every
    language. Runs on a copy (``g`` is not changed)."""
    g = g.copy()
    name, _ = parse_policy(bot)
    if name == "expert":
        m, rule = expert_explain(g)
        why: Dict[str, Any] = {"rule": rule, "reason": _sentences(rule)}
    elif name == "search":
        from ..search import SearchConfig, explain
        res = explain(g, SearchConfig.from_spec(bot))
        m = res.move
        cands = sorted(res.candidates, key=lambda c: -c.value if not math.isnan(c.value) else 1e9)
        why = {"candidates": [{"move": move_view(c.move), "value": None if math.isnan(c.value)
                               else round(c.value, 3), "n": c.n} for c in cands[:5]],
               "worlds": res.worlds,
               "reason": _sentences("only-move" if res.legal == 1 else "search-best-value")}
    elif name == "greedy":
        m = GreedyPolicy()(g.observation(g.to_act), g.legal_moves())
        why = {"text": explain_greedy(g, m), "reason": _sentences(greedy_reason(g, m))}
    else:
        m = g.choose(bot)
        why = {"reason": _sentences(name)}
    return {"bot": bot, "move": move_view(m, g.level), **why}


class PlaySession:
    """One person at ``seat`` against ``bots`` (one spec, or one per other
    seat in seat order). The bots' decisions are made by :meth:`bot_choice`
    on a copy (so a slow search can run in a thread) and played by
    :meth:`bot_play`. ``practice``: :meth:`undo` is allowed.

    ``seed`` None deals from 63 random bits (a seed of fewer bits could be
    found by trying them all against the person's own hand). The seed deals
    every hand, so :meth:`view` shows it only when the person chose it
    (``seed`` given) or once the game is over.

    When a round ends the session holds (:attr:`round_end`: the last
    trick, the finishing order, the cards left and the levels before and
    after): neither the person nor the bots act until :meth:`next_round`,
    so the page shows the result until the person moves on."""

    def __init__(self, bots: Sequence[str], seat: int = 0, seed: Optional[int] = None, *,
                 practice: bool = False, rules: Optional[Rules] = None,
                 name: str = "you") -> None:
        if len(bots) == 1:
            bots = list(bots) * 3
        if len(bots) != 3:
            raise GuandanError("bots: one spec, or one for each of the three other seats")
        self.seat = seat
        self.bot_specs = {s: check_bot(b) for s, b in zip([x for x in range(4) if x != seat], bots)}
        self.practice = practice
        self.seed_chosen = seed is not None
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "big") >> 1
        self.seed = seed
        self.game = Game(rules=rules, seed=seed, policy_seed=seed)
        self.names = [name if s == seat else self.bot_specs[s] for s in range(4)]
        self.round_end: Optional[Dict[str, Any]] = None

    # -- state ----------------------------------------------------------------------
    @property
    def held(self) -> bool:
        """A round has ended and the person has not moved on yet (:meth:`next_round`)."""
        return self.round_end is not None and not self.game.is_over

    @property
    def my_turn(self) -> bool:
        g = self.game
        return not g.is_over and not self.held and g.to_act == self.seat

    def view(self) -> Dict[str, Any]:
        g = self.game
        v = table_view(g, self.names, visible=[self.seat], show_seed=self.seed_chosen or g.is_over)
        v.update(you=self.seat, your_turn=self.my_turn, practice=self.practice,
                 can_pass=self.my_turn and any(m.is_pass for m in g.legal_moves()),
                 can_undo=self.practice and any(s == self.seat for s, _ in g.moves_played),
                 bots=[self.bot_specs.get(s) for s in range(4)],
                 held=self.held, round_end=self.round_end, exchange=self._exchange())
        return v

    def _exchange(self) -> Optional[Dict[str, Any]]:
        """When the person must pay tribute or return a card: the stage, the
        rule that applies (``tribute``; ``back``: rank 2..10, not a level
        card; ``back_lowest``: none held, so the lowest card that is not a
        wild), the cards the engine allows, to whom, and (returning) the
        tribute received. None otherwise."""
        g = self.game
        if not self.my_turn or g.phase not in (Phase.TRIBUTE, Phase.BACK):
            return None
        lv = g.level
        legal = {c for m in g.legal_moves() if not m.is_pass for c in m.cards}
        hand = g.hands[self.seat].cards(lv)
        allowed = list(dict.fromkeys(c for c in hand if c in legal))      # in hand order, once
        tr = g.tribute
        if g.phase is Phase.TRIBUTE:
            i = tr.payers.index(self.seat) if self.seat in tr.payers else -1
            to = tr.receivers[i] if i >= 0 else None
            last = g.last_round
            if to is None and len(tr.payers) == 1 and last is not None:
                to = last.order[0]                  # single-down: the banker receives
            return {"stage": "tribute", "rule": "tribute", "allowed": cards_view(allowed, lv),
                    "to": to, "received": None}
        i = next((k for k, r in enumerate(tr.receivers)
                  if r == self.seat and tr.returned[k] is None), -1)
        plain = any(c[1] in "23456789T" and c[1] != lv for c in hand)
        paid = tr.paid[i] if i >= 0 else None
        return {"stage": "back", "rule": "back" if plain else "back_lowest",
                "allowed": cards_view(allowed, lv), "to": tr.payers[i] if i >= 0 else None,
                "received": cards_view([paid], lv)[0] if paid else None}

    def _apply(self, move: Any) -> Move:
        """Play ``move`` for the seat to act; when it ends the round, keep
        the round's end (:attr:`round_end`) and hold."""
        g = self.game
        r, lv, levels, seat, trick = g.round_index, g.level, g.team_levels, g.to_act, g.trick
        g.play(move)
        m = g.moves_played[-1][1]
        if g.round_index != r:
            last = g.last_round
            end = g.round_end_hands or []
            self.round_end = {
                "round": r + 1, "level": lv, "levels_before": list(levels),
                "levels_after": list(g.team_levels),
                "trick": [{"seat": s, **move_view(x, lv)} for s, x in list(trick) + [(seat, m)]],
                "order": list(last.order) if last else [], "banker_team": last.banker_team if last else None,
                "levels_up": last.levels_up if last else 0, "won_at_a": bool(last and last.won_at_a),
                "rest": {str(s): cards_view(end[s].cards(lv), lv) for s in range(len(end)) if len(end[s])},
                "over": g.is_over, "winner": g.winner}
        return m

    def next_round(self) -> None:
        """Move on from a round's end: the next round is played."""
        if not self.held:
            raise GuandanError("no round result to move on from")
        self.round_end = None

    # -- the person -----------------------------------------------------------------
    def _own_turn(self) -> Game:
        if self.game.is_over:
            raise IllegalMoveError("the game is over")
        if self.held:
            raise _said(IllegalMoveError, "ROUND_HELD")
        if not self.my_turn:
            raise _said(IllegalMoveError, "NOT_YOUR_TURN", who=self.names[self.game.to_act])
        return self.game

    def matches(self, cards: Sequence[str]) -> List[Move]:
        """The legal actions made of exactly the selected cards (several
        readings of the same cards are several moves); empty when none."""
        g = self.game
        if not self.my_turn or not cards:
            return []
        want = Counter(cards)
        return [m for m in g.legal_moves() if not m.is_pass and _same_cards(m, want)]

    def play(self, cards: Sequence[str], choice: Optional[int] = None) -> Move:
        """Play the selected cards: the one legal reading, or reading
        ``choice`` of :meth:`matches`. When none is legal the engine says why
        (its :class:`IllegalMoveError`); several readings and no choice: the
        refusal lists them."""
        g = self._own_turn()
        ms = self.matches(cards)
        if choice is not None:
            if not 0 <= choice < len(ms):
                raise _said(IllegalMoveError, "NO_READING", choice=choice)
            m = ms[choice]
        elif len(ms) == 1:
            m = ms[0]
        elif ms:
            raise IllegalMoveError("these cards can be played as " + " or ".join(map(str, ms))
                                   + ": choose one", refusal="AMBIGUOUS", readings=ms)
        else:
            text: Any = " ".join(cards)
            if g.phase in (Phase.TRIBUTE, Phase.BACK):
                text = [g.phase.value, g.phase.value, list(cards)]
            return self._apply(text)              # refused: the engine's reason
        return self._apply(m)

    def pass_turn(self) -> None:
        self._own_turn()
        self._apply("PASS")

    def undo(self) -> int:
        if not self.practice:
            raise _said(GuandanError, "UNDO_PRACTICE")
        n = undo_own(self.game, self.seat)
        if not n:
            raise _said(GuandanError, "NOTHING_TO_UNDO")
        self.round_end = None
        return n

    # -- the bots -------------------------------------------------------------------
    def bot_spec(self) -> Optional[str]:
        g = self.game
        if g.is_over or self.held or g.to_act == self.seat:
            return None
        return self.bot_specs[g.to_act]

    def bot_choice(self) -> Tuple[int, Move]:
        """``(actions so far, move)``: the bot's decision on a copy (thread-safe)."""
        g = self.game.copy()
        return len(g.moves_played), g.choose(self.bot_specs[g.to_act])

    def bot_play(self, at: int, m: Move) -> bool:
        """Play a decision of :meth:`bot_choice` if the game is still where
        it was decided (an undo or a new game in between: dropped)."""
        g = self.game
        if len(g.moves_played) != at or self.bot_spec() is None:
            return False
        self._apply(m)
        return True


class Replay:
    """A game record stepped move by move: position ``0..len(actions)``,
    every hand shown, opened at position 0. ``rounds``/``tricks``: the
    positions where each round the record plays and each trick starts. ``show_seed``: the views carry the record's
    seed (a record the viewer brought themselves); else ``seed`` is None, as
    a seed can tell the deals of games still being played (a table server
    deals game ``k + 1`` from game ``k``'s seed plus one). Built at once
    here, or a number of actions at a time by :class:`ReplayBuilder`."""

    name: str
    show_seed: bool
    record: Any
    actions: List[Move]
    rounds: List[int]
    tricks: List[int]
    result: Dict[str, Any]
    game: Game
    pos: int

    def __init__(self, record: Any, name: str = "", *, show_seed: bool = False) -> None:
        r = ReplayBuilder(record, name, show_seed=show_seed).advance(MAX_REPLAY_ACTIONS + 1)
        assert r is not None
        self.__dict__.update(vars(r))

    @classmethod
    def _built(cls, b: "ReplayBuilder", g: Game) -> "Replay":
        """The replay of ``b``'s record, ``g`` its game at the record's end."""
        r = cls.__new__(cls)
        r.name = b.name
        r.show_seed = b.show_seed
        r.record = b.record
        r.actions = [a for _, a in g.moves_played]
        r.rounds = b.rounds
        r.tricks = b.tricks
        r.result = {"over": g.is_over, "winner": g.winner, "rounds": len(b.rounds)}
        r.game = Game.replay(dict(b.record, actions=[], deals=None))      # at position 0
        r.pos = 0
        return r

    def __len__(self) -> int:
        return len(self.actions)

    def goto(self, pos: int) -> None:
        pos = max(0, min(pos, len(self.actions)))
        g = self.game
        while self.pos > pos:
            g.undo()
            self.pos -= 1
        while self.pos < pos:
            g.play(self.actions[self.pos])
            self.pos += 1

    def view(self) -> Dict[str, Any]:
        v = table_view(self.game, ("",) * 4, visible=range(4), show_seed=self.show_seed)
        v.update(step=self.pos, steps=len(self.actions), rounds=self.rounds, tricks=self.tricks,
                 name=self.name, result=self.result)
        return v


class ReplayBuilder:
    """A :class:`Replay` made a number of actions at a time (:meth:`advance`),
    so that opening a long record is several short jobs: the record's form
    is checked here, every action as it is replayed (``Game.replay_steps``),
    the positions where rounds and tricks start noted on the way."""

    def __init__(self, record: Any, name: str = "", *, show_seed: bool = False) -> None:
        if not isinstance(record, dict):
            raise GuandanError(f"not a {RECORD_FORMAT} record")
        self._steps = Game.replay_steps(record)
        # the first step now: the record's form is checked (validate_record,
        # in replay_steps) in this job, and the replay reads its own checked
        # copy from here on
        self._next: Optional[Tuple[int, Game]] = next(self._steps)
        n = len(record["actions"])
        if n > MAX_REPLAY_ACTIONS:
            raise GuandanError(f"the record has {n:,} actions: the web table "
                               f"replays at most {MAX_REPLAY_ACTIONS:,} (guandan replay FILE reads any)")
        self.name = name
        self.show_seed = show_seed
        self.record = record
        self.rounds: List[int] = [0]
        self.tricks: List[int] = []
        self._n = n
        self._round = -1

    def __len__(self) -> int:
        return self._n

    def advance(self, most: int) -> Optional[Replay]:
        """Replay at most ``most`` more actions (at least one step); the
        :class:`Replay` once the record's end is reached, else None."""
        if self._next is None:
            raise GuandanError("this replay is built already, or failed")
        for _ in range(max(1, most)):
            i, g = self._next
            self._next = None
            # a round is listed where its first action is (a record ending at a
            # round's end has no action of the next round: that one is not listed)
            if self._round < 0:
                self._round = g.round_index
            elif g.round_index != self._round:
                self._round = g.round_index
                if i < self._n:
                    self.rounds.append(i)
            if g.phase is Phase.PLAY and g.top is None and not g.trick:
                self.tricks.append(i)
            if i == self._n:
                return Replay._built(self, g)
            self._next = next(self._steps)
        return None


class BotTable:
    """A bot-vs-bot table that plays game after game (seeds ``seed``,
    ``seed + 1`` ...), one action per :meth:`step`."""

    def __init__(self, bots: Sequence[str], seed: int = 0, *, rules: Optional[Rules] = None,
                 keep_records: int = 20) -> None:
        if len(bots) == 1:
            bots = list(bots) * 4
        if len(bots) != 4:
            raise GuandanError("--watch takes one bot for all seats or four (seats 0..3)")
        self.bots = [check_bot(b) for b in bots]
        self.rules = rules
        self.seed = seed
        self.games = 0
        self.records: List[Dict[str, Any]] = []
        self.keep_records = keep_records
        self.game = Game(rules=rules, seed=seed, policy_seed=seed)

    def names(self) -> List[str]:
        return list(self.bots)

    def choice(self) -> Tuple[int, Move]:
        g = self.game.copy()
        return len(g.moves_played), g.choose(self.bots[g.to_act])

    def apply(self, at: int, m: Move) -> None:
        if len(self.game.moves_played) == at and not self.game.is_over:
            self.game.play(m)

    def next_game(self) -> None:
        """Keep the finished game's record and deal the next game."""
        self.records.append(self.game.record())
        del self.records[:-self.keep_records]
        self.games += 1
        s = (self.seed + self.games) % (1 << 63)
        self.game = Game(rules=self.rules, seed=s, policy_seed=s)
