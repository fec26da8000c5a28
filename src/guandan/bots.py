"""Bot SDK: write a bot once as a class with ``act(observation, legal_moves)``
and run it in three places — against a contest-protocol server over the
network (:func:`run_bot`, ``guandan bot module:Class --url ...``), in-process
as a :class:`guandan.Game` policy, and in :func:`guandan.simulate`.

>>> from guandan import Game
>>> class Lowest(Bot):
...     def act(self, observation, legal_moves):
...         return legal_moves[-1] if observation["leading"] else legal_moves[0]
>>> g = Game(seed=2)
>>> g.play_out([Lowest(), "greedy", Lowest(), "greedy"], until="round")
>>> g.round_index
1

``act`` may return a :class:`Move` from ``legal_moves``, its index, or a
platform triple. The observation has the keys of :meth:`Game.observation`
that the protocol carries: ``seat``, ``phase``, ``hand``, ``card_counts``,
``level``, ``team_levels``, ``my_team``, ``round_index``, ``leading``,
``top`` (``{"seat", "move"}`` or None), ``trick``, ``history`` (this
round's plays), ``finish_order`` and ``rules`` (the game's rules as
:meth:`guandan.Rules.to_dict`, read back by :func:`guandan.rules.rules_of`);
over the network also ``message`` (the raw ``act`` message). The contest
protocol does not send the rules: the client assumes the contest preset
(``Rules.contest()``) unless told otherwise (``run_bot(..., rules=...)``,
``guandan bot --rules``).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import os
import sys
from typing import Any, Callable, Dict, List, Optional, Union
from urllib.parse import urlsplit

from .errors import GuandanError, ProtocolError
from .moves import Move
from .policies import GreedyPolicy
from .rules import Rules, resolve_rules

__all__ = ["Bot", "run_bot", "load_bot", "check_url", "ProtocolClient", "BotInterrupted", "MISSING_SERVER_EXTRA"]

RANK_CHARS = "23456789TJQKA"      # the protocol's rank numbers 2..14

MISSING_SERVER_EXTRA = ("pip install '.[server]' in the guandan folder (a clone of the "
                        "repository)")

log = logging.getLogger("guandan.bots")
_RANKS = "23456789TJQKA"


class Bot:
    """Base class. Override :meth:`act`; the default plays like the built-in
    greedy policy. Optional hooks: :meth:`notify` (every protocol message),
    :meth:`on_game_over`."""

    def act(self, observation: Dict[str, Any], legal_moves: Any) -> Any:
        """Choose a move: a Move of ``legal_moves``, its index, or a triple."""
        return GreedyPolicy()(observation, legal_moves)

    def notify(self, message: Dict[str, Any]) -> None:
        """Called with every message received from a server (no answer)."""

    def on_game_over(self, message: Dict[str, Any]) -> None:
        """Called on ``gameOver``."""

    def __call__(self, observation: Dict[str, Any], legal_moves: Any) -> Any:
        """A bot is a policy: ``Game.play_policy(bot)``, ``simulate(policies=[bot, ...])``."""
        choice = self.act(observation, legal_moves)
        if isinstance(choice, int) and not isinstance(choice, bool):
            return legal_moves[choice]
        return choice


def _index_of(choice: Any, legal: List[Move], triples: List[Any], level: str, rules: Rules) -> int:
    if isinstance(choice, bool):
        raise GuandanError("act returned a bool, not a move")
    if isinstance(choice, int):
        if not 0 <= choice < len(legal):
            raise GuandanError(f"act returned index {choice}, outside 0..{len(legal) - 1}")
        return choice
    if isinstance(choice, Move):
        if choice in legal:
            return legal.index(choice)
        choice = choice.to_platform()
    if isinstance(choice, (list, tuple)):
        t = [choice[0], choice[1], list(choice[2]) if isinstance(choice[2], (list, tuple)) else choice[2]]
        if t in triples:
            return triples.index(t)
        m = Move.from_platform(t, level, rules=rules)
        if m in legal:
            return legal.index(m)
    raise GuandanError(f"act returned {choice!r}, which is not one of the legal moves")


def _client_rules(rules: Union[Rules, str, None]) -> Rules:
    """The rules of a protocol client: a :class:`Rules`, a preset name, or
    None for the contest preset."""
    if rules is None:
        return Rules.contest()
    return Rules.named(rules) if isinstance(rules, str) else resolve_rules(rules)


class ProtocolClient:
    """Plays one seat for a :class:`Bot` over the contest protocol, under
    ``rules`` (a :class:`guandan.Rules` or a preset name; default: the
    contest preset, the rules of a contest-protocol server), which it reads
    moves with and puts into every observation."""

    def __init__(self, bot: Bot, rules: Union[Rules, str, None] = None,
                 announce: Optional[Callable[[str], None]] = None) -> None:
        self.bot = bot
        self.rules = _client_rules(rules)
        self._rules_dict = self.rules.to_dict()
        self.announce = announce
        self.seat = -1
        self.round_index = -1
        self.history: List[List[Any]] = []
        self.finish_order: List[int] = []
        self.games_played = 0
        self._rounds = 0                    # rounds of the current game
        self._levels: List[Any] = [None, None]
        self._last_order: List[int] = []

    def _game_line(self, msg: Dict[str, Any]) -> str:
        """One line on a finished game: who won (the team of its last
        round's banker), the levels of that round, the rounds played."""
        def rank(x: Any) -> str:
            return RANK_CHARS[x - 2] if isinstance(x, int) and 2 <= x <= 14 else str(x)
        order = self._last_order
        who = ("your team wins" if (order[0] & 1) == (self.seat & 1) else "the other team wins") \
            if order and self.seat >= 0 else "over"
        n = msg.get("curTimes", self.games_played)
        of = msg.get("settingTimes")
        return (f"game {n}{f' of {of}' if of else ''} over after {self._rounds} round"
                f"{'' if self._rounds == 1 else 's'}: {who} (levels at its last round: yours "
                f"{rank(self._levels[0])}, theirs {rank(self._levels[1])})")

    def observation(self, msg: Dict[str, Any]) -> Dict[str, Any]:
        seat = self.seat
        level = msg.get("curRank")
        team = seat & 1 if seat >= 0 else 0
        self_rank, oppo_rank = msg.get("selfRank"), msg.get("oppoRank")
        team_levels = [self_rank, oppo_rank] if team == 0 else [oppo_rank, self_rank]
        info = msg.get("publicInfo") or []
        gp = msg.get("greaterPos", -1)
        top = None
        if isinstance(gp, int) and gp >= 0:
            top = {"seat": gp, "move": msg.get("greaterAction")}
        trick = [[i, p["playArea"]] for i, p in enumerate(info)
                 if isinstance(p, dict) and p.get("playArea")]
        return {
            "seat": seat, "phase": msg.get("stage"), "hand": list(msg.get("handCards") or []),
            "card_counts": [p.get("rest") for p in info if isinstance(p, dict)],
            "level": level, "team_levels": team_levels, "my_team": team,
            "round_index": self.round_index, "leading": top is None, "top": top,
            "trick": trick, "history": list(self.history), "finish_order": list(self.finish_order),
            "rules": dict(self._rules_dict), "message": msg,
        }

    def handle(self, msg: Dict[str, Any]) -> Optional[Dict[str, int]]:
        """Process one server message; returns the answer for ``act`` messages."""
        if not isinstance(msg, dict) or "type" not in msg or "stage" not in msg:
            raise ProtocolError(f"not a protocol message: {msg!r:.200}")
        kind, stage = msg["type"], msg["stage"]
        if kind == "notify":
            if stage == "beginning":
                self.seat = int(msg.get("myPos", self.seat))
                self.round_index += 1
                self.history = []
                self.finish_order = []
                self._rounds += 1
                self._levels = [msg.get("selfRank"), msg.get("oppoRank")]
            elif stage == "play":
                self.history.append([msg.get("curPos"), msg.get("curAction")])
            elif stage == "episodeOver":
                order = msg.get("order")
                self._last_order = [int(x) for x in order if isinstance(x, int)] \
                    if isinstance(order, list) else []
            elif stage == "gameOver":
                self.games_played += 1
                if self.announce is not None:
                    self.announce(self._game_line(msg))
                self._rounds = 0
                self.bot.on_game_over(msg)
            self.bot.notify(msg)
            return None
        if kind != "act":
            raise ProtocolError(f"unknown message type {kind!r}")
        triples = msg.get("actionList")
        if not isinstance(triples, list) or not triples:
            raise ProtocolError("act message without an actionList")
        level = msg.get("curRank")
        if not isinstance(level, str):
            raise ProtocolError("act message without a curRank")
        legal = [Move.from_platform(t, level, rules=self.rules) for t in triples]
        obs = self.observation(msg)
        choice = self.bot.act(obs, legal)
        return {"actIndex": _index_of(choice, legal, triples, level, self.rules)}


def check_url(url: Any) -> str:
    """The validator of a server URL: ``ws://`` or ``wss://`` with a host."""
    if not isinstance(url, str):
        raise GuandanError(f"a server URL is a string, got {type(url).__name__}")
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise GuandanError(f"the server URL must be ws://HOST:PORT/game/NAME (or wss://), got {url!r:.80}")
    return url


async def _run(bot: Bot, url: str, rules: Union[Rules, str, None] = None,
               client: Optional[ProtocolClient] = None) -> None:
    try:
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidHandshake, InvalidURI
    except ImportError:
        raise GuandanError(f"bots over the network need websockets >= 13: {MISSING_SERVER_EXTRA}") from None

    client = client or ProtocolClient(bot, rules)
    try:
        ws_cm = connect(url, ping_interval=None, max_size=2 ** 22, open_timeout=10)
        async with ws_cm as ws:
            async for raw in ws:
                msg = json.loads(raw)
                answer = client.handle(msg)
                if answer is not None:
                    await ws.send(json.dumps(answer))
    except InvalidURI as e:
        raise GuandanError(f"bad server URL {url!r:.80}: {e}") from None
    except InvalidHandshake as e:
        raise GuandanError(f"{url} is not a contest-protocol server ({e})") from None
    except (OSError, asyncio.TimeoutError) as e:
        why = getattr(e, "strerror", None) or str(e) or "timed out"
        raise GuandanError(f"cannot connect to {url}: {why} (is 'guandan serve' running?)") from None


def run_bot(bot: Bot, url: str = "ws://127.0.0.1:23456/game/guandan", *,
            rules: Union[Rules, str, None] = None,
            announce: Optional[Callable[[str], None]] = None) -> int:
    """Connect ``bot`` to a contest-protocol server and play until it closes;
    returns the number of games played. ``rules``: the server's rules (a
    :class:`guandan.Rules` or a preset name; default: the contest preset),
    given to the bot in every observation; ``announce(line)``: told one
    line per finished game (winner, levels, rounds). A URL that is not
    ``ws://``/``wss://`` or a server that cannot be reached raises a
    :class:`GuandanError`; on Ctrl-C, :class:`BotInterrupted` says how many
    games were played."""
    r = _client_rules(rules)
    client = ProtocolClient(bot, r, announce)
    try:
        asyncio.run(_run(bot, check_url(url), r, client))
    except KeyboardInterrupt:
        raise BotInterrupted(client.games_played) from None
    return client.games_played


class BotInterrupted(KeyboardInterrupt):
    """Ctrl-C in :func:`run_bot`: ``games`` games were played to their end."""

    def __init__(self, games: int) -> None:
        super().__init__(f"interrupted after {games} games")
        self.games = games


def load_class(spec: str) -> Any:
    """``"package.module:ClassName"`` -> that class (or object): the one
    loading rule of every command that takes ``module:Class`` (``guandan
    bot``, the arena's in-process participants). Modules are looked up in
    the current folder too, so ``my_module:MyBot`` finds ``./my_module.py``."""
    if not isinstance(spec, str) or ":" not in spec:
        raise GuandanError(f"expected module:Class, got {spec!r:.80}")
    mod_name, cls_name = spec.rsplit(":", 1)
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return getattr(importlib.import_module(mod_name), cls_name)
    except (ImportError, AttributeError) as e:
        raise GuandanError(f"cannot load {spec!r}: {e}") from None


def load_bot(spec: str) -> Bot:
    """``"package.module:ClassName"`` -> an instance of that class, loaded
    by :func:`load_class` (``guandan bot my_module:MyBot`` finds
    ``./my_module.py``)."""
    cls = load_class(spec)
    if not isinstance(cls, type):
        raise GuandanError(f"{spec} is not a class (a Bot subclass with act(observation, legal_moves))")
    try:
        bot = cls()
    except Exception as e:
        raise GuandanError(f"cannot create {spec}(): {type(e).__name__}: {e}") from None
    if not callable(getattr(bot, "act", None)):
        raise GuandanError(f"{spec} has no act(observation, legal_moves) method")
    return bot
