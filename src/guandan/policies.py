"""Built-in policies, and the registry of policy names.

A policy is an object with ``decide(game) -> Move`` (the decision for the
seat to act, from everything that seat knows and under the game's rules)
and ``explain(game)`` (the decision and why), and, for SDK bots,
``__call__(observation, legal_moves) -> move``; any plain callable
``(observation, legal_moves) -> move`` is a policy too. Every module that
accepts a policy name (``Game.choose``, ``simulate``, ``guandan serve
--bots``, ``guandan play --bots``, the arena) resolves it through
:func:`register`'s table (:mod:`guandan.registry`): the native policies
register here, the search in :mod:`guandan.search`, and any other policy
(a learned one) the same way::

    register("mybot", MyBot)     # MyBot(seed=None, **options) -> policy

The built-in ones are *native*: they run inside :class:`guandan.Game`, the
simulator, :class:`guandan.VecGame` and the table server without Python per
decision, and are also callable from an observation (:class:`NativePolicy`).

* ``"random"``: uniform over the full legal list.
* ``"greedy"``: the lowest play that beats, never over its partner, bombs
  kept for an opponent close to going out; tribute and return: the first
  allowed card (the lowest suit of the highest card, the lowest return card).
* ``"expert"``: rule-based (``guandan._expert``): hand decomposition, card
  counting, named rules for leading, following, tribute and return;
  :func:`explain` names the rule behind a decision.
* ``"search"``, ``"search:ms=200"``, ``"search:rollouts=500"``: the
  determinized Monte-Carlo search of :mod:`guandan.search` (options are
  :class:`guandan.search.SearchConfig` fields). ``Game.play_policy`` and
  :func:`get_policy` decide from everything the seat knows; native callers
  (``simulate``) get a native code (see
  :func:`guandan.search.native_search_code`).

A native policy decides from a *view* (its own hand, every seat's card
count, the cards played this round, the trick, the levels), never from the
other hands.

>>> from guandan import Game
>>> g = Game(seed=3)
>>> m = GreedyPolicy()(g.observation(g.to_act), g.legal_moves())
>>> m in g.legal_moves()
True
>>> native_code("greedy"), parse_policy("search:ms=200")
(2, ('search', {'ms': '200'}))
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Tuple

import numpy as np

from . import _core, _engine
from . import _expert  # noqa: F401  (registers the native "expert" policy)
from ._core import Hand
from .errors import GuandanError
from .moves import Move
from .registry import (check_policy, is_fixed_native, make_policy, native_code, parse_policy, policy_names,
                       policy_usages, register, unregister)
from .rules import resolve_rules, rules_of

if TYPE_CHECKING:
    from .game import Game

__all__ = ["RandomPolicy", "GreedyPolicy", "NativePolicy", "Explanation", "get_policy", "native_code",
           "rollout_code", "policy_names", "policy_usages", "parse_policy", "check_policy", "is_fixed_native",
           "register",
           "unregister",
           "explain", "observation_fields", "observation_view", "EXPERT_RULES",
           "SPLIT_FEATURES", "SPLIT_FEATURES_DIM", "split_features", "split_features_of"]

#: the names of the expert's rules (``Explanation.rule``; :mod:`guandan.words`
#: says each as a sentence)
EXPERT_RULES = _expert.RULE_NAMES

_PHASE_CODES = {"tribute": 0, "back": 1, "play": 2, "over": 3}


def rollout_code(policy: Any) -> int:
    """The native code of a rollout policy name: a native policy that is not
    a search (GuandanError otherwise)."""
    if not isinstance(policy, str) or parse_policy(policy)[0] == "search":
        raise GuandanError(f"a rollout policy is a native policy name (greedy, random, expert), "
                           f"got {policy!r:.60}")
    return native_code(parse_policy(policy)[0])


@dataclass(frozen=True)
class Explanation:
    """A policy's decision and the name of the rule behind it (``rule`` is
    the policy's name for a policy without named rules)."""

    seat: int
    move: Move
    rule: str

    def __str__(self) -> str:
        return f"seat {self.seat}: {self.move}  ({self.rule})"


class NativePolicy:
    """A native policy as an object. ``decide(game)`` is the native decision
    for the seat to act (the view the native loop builds from the game, the
    game's rules and policy stream: what ``Game.choose(name)`` plays).
    Called as ``(observation, legal_moves) -> move`` (SDK bots, the network
    client, Python loops) the decision is exactly the native one too: the
    observation is turned into the same view, under the observation's
    rules (:func:`guandan.rules.rules_of`; for an observation without them,
    ``rules``, else the default rules), with this object's seeded stream.
    ``code``: a native code to run under ``name`` (a network's,
    :func:`guandan.vec.net_code`) instead of the registered name's."""

    def __init__(self, name: str, seed: Optional[int] = None, rules: Any = None,
                 code: Optional[int] = None) -> None:
        self.name = name
        self.code = native_code(name) if code is None else int(code)
        self._rng = random.Random(seed)
        self.rules = None if rules is None else resolve_rules(rules)

    def decide(self, game: "Game") -> Move:
        """The move this policy picks for the seat to act in ``game``."""
        return game.native_choice(self.code)

    def explain(self, game: "Game") -> Explanation:
        """The decision and the rule behind it (the expert names its rules;
        the other native policies give their name). ``game`` is not changed:
        a policy with randomness draws from this object's stream."""
        if game.is_over:
            raise GuandanError("the game is over")
        if self.code == _EXPERT_CODE:
            move, rule = _expert_explain(game)
            return Explanation(game.to_act, move, rule)
        return Explanation(game.to_act, self(game.observation(game.to_act), game.legal_moves()), self.name)

    def __call__(self, observation: Dict[str, Any], legal_moves: Any) -> Any:
        if len(legal_moves) == 0:
            raise GuandanError("no legal move to choose from")
        if not isinstance(legal_moves, _core.MoveList):
            words = np.array([m.words for m in legal_moves], dtype=np.uint64).reshape(-1, 2)
            legal_moves = _core.make_movelist(words, _core.level_index(observation["level"]))
        i = _choose(self.code, observation, legal_moves, rules_of(observation, self.rules),
                    self._rng.getrandbits(64))
        if not 0 <= i < len(legal_moves):
            raise GuandanError(f"policy {self.name} made no choice")
        return legal_moves[i]


def observation_fields(obs: Dict[str, Any], rules: Any) -> Dict[str, Any]:
    """The native view's fields of an observation, by the names
    :class:`guandan._engine.NativeView` takes (the one reader of
    observations for native deciders: the native policies here and the
    search's information set): own hand, counts, the cards ``played`` this
    round, the trick, levels, finishing order, ``rules.native``, and the
    round's record: its ``plays`` by seat as move words and its ``tribute``
    ``(payers, paid, recv, returned, anti)``. A dict that is not an
    observation raises :class:`GuandanError`."""
    if not isinstance(obs, dict):
        raise GuandanError(f"an observation is a dict (Game.observation), got {type(obs).__name__}")
    try:
        return _observation_fields(obs, rules)
    except GuandanError:
        raise
    except (TypeError, KeyError, ValueError, AttributeError, IndexError, OverflowError) as e:
        raise GuandanError(f"not an observation (Game.observation): {type(e).__name__}: {e!s:.80}") from None


def _observation_fields(obs: Dict[str, Any], rules: Any) -> Dict[str, Any]:
    lv = _core.level_index(obs["level"])
    plays = []
    played = Hand()
    for s, triple in obs.get("history", ()):
        m = Move.from_platform(triple, obs["level"], rules=rules)
        plays.append((int(s), *m.words))            # passes too: the search's trail reads them
        if not m.is_pass:
            played = played + m.hand()
    top = obs.get("top")
    if top is not None:
        t = Move.from_platform(top["move"], obs["level"], rules=rules)
        top_seat, (top_lo, top_hi) = int(top["seat"]), t.words
    else:
        top_seat, top_lo, top_hi = -1, 0, 0
    trib = obs.get("tribute") or {}
    payers = [int(p) for p in trib.get("payers", [])]
    anti = bool(trib.get("anti", False))
    paid, recv, returned = [-1] * len(payers), [-1] * len(payers), [-1] * len(payers)
    if not anti:
        for i, p in enumerate(payers):
            for payer, receiver, card in trib.get("tribute", []):
                if payer == p:
                    paid[i], recv[i] = _core.face_index(card), int(receiver)
            for receiver, payer, card in trib.get("back", []):
                if payer == p:
                    returned[i] = _core.face_index(card)
    return dict(seat=int(obs["seat"]), phase=_PHASE_CODES[obs["phase"]], hand=Hand(obs["hand"]),
                counts=list(obs["card_counts"]), played=played, rlevel=lv,
                levels=tuple(_core.level_index(x) for x in obs["team_levels"]),
                top_seat=top_seat, top_lo=top_lo, top_hi=top_hi, passes=int(obs.get("passes", 0)),
                fin=list(obs.get("finish_order", ())), rules=rules.native,
                plays=plays, tribute=(payers, paid, recv, returned, anti))


def observation_view(obs: Dict[str, Any], rules: Any, record: bool = False) -> Any:
    """The :class:`guandan._engine.NativeView` of an observation under
    ``rules`` (the one conversion at the edge); with ``record``, with this
    round's plays by seat and its tribute (the world sampler's constraints:
    the observation's history must then be the round's complete history)."""
    f = observation_fields(obs, rules)
    if not record:
        del f["plays"], f["tribute"]
    try:
        return _engine.NativeView(**f)
    except GuandanError:
        raise
    except (TypeError, ValueError, OverflowError) as e:
        raise GuandanError(f"not an observation (Game.observation): {e!s:.80}") from None


def _choose(code: int, obs: Dict[str, Any], moves: Any, rules: Any, rng_seed: int) -> int:
    return _engine.choose_from_view(code, moves, observation_view(obs, rules), rng_seed)


class RandomPolicy:
    """Uniform over the legal moves. Over observations, from its own seeded
    RNG; ``decide(game)`` is the native random policy on the game's policy
    stream (what ``Game.choose("random")`` plays, so a game replays)."""

    name = "random"

    def __init__(self, seed: Optional[int] = None) -> None:
        self._rng = random.Random(seed)

    def decide(self, game: "Game") -> Move:
        return game.native_choice(_RANDOM_CODE)

    def explain(self, game: "Game") -> Explanation:
        if game.is_over:
            raise GuandanError("the game is over")
        return Explanation(game.to_act, self(game.observation(game.to_act), game.legal_moves()), self.name)

    def __call__(self, observation: Dict[str, Any], legal_moves: Any) -> Any:
        if len(legal_moves) == 0:
            raise GuandanError("no legal move to choose from")
        return legal_moves[self._rng.randrange(len(legal_moves))]


class GreedyPolicy(NativePolicy):
    """The native greedy rule (see the module docstring)."""

    def __init__(self, seed: Optional[int] = None, rules: Any = None) -> None:
        super().__init__("greedy", seed, rules)


def _expert_policy(seed: Optional[int] = None) -> NativePolicy:
    return NativePolicy("expert", seed)


_CODES: Dict[str, int] = dict(_engine.NATIVE_POLICY_CODES)   # name -> native code
_RANDOM_CODE = _CODES["random"]
_EXPERT_CODE = _CODES["expert"]
register("random", RandomPolicy, native=_RANDOM_CODE)
register("greedy", GreedyPolicy, native=_CODES["greedy"])
if _engine.policy_available(_EXPERT_CODE):
    register("expert", _expert_policy, native=_EXPERT_CODE)

#: The opponent pool: the expert's hand evaluation with other habits, to
#: measure bots against players unlike the expert (docs/bots.md).
POOL: Tuple[str, ...] = ("bomber", "hoarder", "partner", "wobbly", "rusher")
_POOL_HELP = {
    "bomber": "bombs any opponent play it cannot follow cheaply, early, and follows more readily",
    "hoarder": "never breaks a group of its split to follow and keeps its bombs until an opponent is about to go out",
    "partner": ("never plays over its partner; once the partner holds 10 cards or fewer, stops every "
                "opponent play and leads for it"),
    "wobbly": "the expert, except that 15% of its play-phase decisions are a uniformly random legal move",
    "rusher": "follows whenever it can, with its strongest play, and leads its longest groups first",
}


def _pool_factory(name: str) -> Callable[..., NativePolicy]:
    def make(seed: Optional[int] = None) -> NativePolicy:
        return NativePolicy(name, seed)
    make.__doc__ = _POOL_HELP[name]
    return make


for _name in POOL:
    register(_name, _pool_factory(_name), native=_expert.STYLE_CODES[_name])


def native_policy_name(code: int) -> str:
    """The name of a built-in native policy code (the pool's styles and the
    search's rollout styles included), else ``"native policy N"``."""
    names = {v: k for k, v in _CODES.items()}
    names.update({v: k for k, v in _expert.STYLE_CODES.items()})
    return names.get(int(code), f"native policy {code}")


def get_policy(name_or_callable: Any, seed: Optional[int] = None) -> Any:
    """A policy from a registered name (with options, e.g.
    ``"search:rollouts=200"``) with its own seeded stream, or a callable
    as it is."""
    if callable(name_or_callable):
        return name_or_callable
    return make_policy(name_or_callable, seed)


def _game_view(game: "Game") -> Any:
    """The native view of the seat to act (what the native loop builds)."""
    seat = game.to_act
    top = game.top
    top_lo, top_hi = top.move.words if top is not None else (0, 0)
    return _engine.NativeView(hand=game.hands[seat], played=game.played_cards(), seat=seat,
                              phase=_PHASE_CODES[game.phase], rlevel=game.level_index,
                              levels=game.team_level_indices, top_lo=top_lo, top_hi=top_hi,
                              top_seat=-1 if top is None else top.seat, passes=game.passes,
                              counts=game.card_counts, fin=game.finish_order,
                              rules=game.rules.native)


def _expert_explain(game: "Game") -> Tuple[Move, str]:
    moves = game.legal_moves()
    i, rule = _expert.explain_view(moves, _game_view(game))
    if not 0 <= i < len(moves):
        raise GuandanError("the expert made no choice")
    return moves[i], rule


#: The split features of a move (the last columns of the learned policies'
#: ``"guandan"`` rows, docs/rl.md): the acting seat's hand split into plays
#: as the expert values it (:func:`guandan._expert.decompose_hand`), before
#: and after the move, as small integers.
SPLIT_FEATURES: Tuple[str, ...] = (
    "gain",          # (split score after - before) / 4, rounded toward zero
    "score",         # the split score of the hand / 8, rounded toward zero
    "score_after",   # the split score of the rest / 8, rounded toward zero
    "groups",        # non-bomb groups of the hand's split (turns to play out)
    "groups_after",  # ... of the rest's split
    "control",       # groups of the hand's split nothing still out beats
    "control_after",
    "bombs",         # bombs (straight flushes, joker bomb) of the hand's split
    "bombs_after",
    "whole_group",   # 1: the move's cards are whole groups of the hand's split (nothing broken)
    "beaters",       # stronger plays of its type still makeable from the cards out (non-bomb plays)
    "is_control",    # 1: a non-bomb play nothing still out beats in its type
    "cards_after",   # cards left after the move
    "goes_out",      # 1: the move plays the last cards
)
SPLIT_FEATURES_DIM = len(SPLIT_FEATURES)
assert SPLIT_FEATURES_DIM == _expert.SPLIT_FEATURES_DIM


def _movelist(legal_moves: Any, level: Any) -> Any:
    if isinstance(legal_moves, _core.MoveList):
        return legal_moves
    words = np.array([m.words for m in legal_moves], dtype=np.uint64).reshape(-1, 2)
    return _core.make_movelist(words, _core.level_index(level))


def split_features(game: "Game", legal_moves: Any = None) -> np.ndarray:
    """The :data:`SPLIT_FEATURES` of each legal move of the seat to act
    (``(n, SPLIT_FEATURES_DIM)`` float32, legal-move order; ``legal_moves``:
    the game's, given to save generating them again). Computed from what
    the seat knows: its hand and the cards played.

    >>> from guandan import Game
    >>> g = Game.from_position([["S3", "H3", "DK"], ["HA"], ["D5"], ["C9"]], level="2")
    >>> f = split_features(g)
    >>> [str(m) for m in g.legal_moves()], f[:, SPLIT_FEATURES.index("cards_after")].tolist()
    (['Single 3 S3', 'Single 3 H3', 'Single K DK', 'Pair 3 S3 H3'], [2.0, 2.0, 2.0, 1.0])
    """
    if game.is_over:
        raise GuandanError("the game is over")
    moves = game.legal_moves() if legal_moves is None else _movelist(legal_moves, game.level)
    return _expert.split_rows(moves, _game_view(game))


def split_features_of(observation: Dict[str, Any], legal_moves: Any, rules: Any = None) -> np.ndarray:
    """:func:`split_features` from an observation (:meth:`guandan.Game.observation`)
    and its legal moves: the same values when the observation's history is
    the round's complete history (the cards played are read from it)."""
    view = observation_view(observation, rules_of(observation, rules))
    return _expert.split_rows(_movelist(legal_moves, observation["level"]), view)


def explain(game: "Game", name: str = "expert") -> Tuple[Move, str]:
    """``(move, rule)``: the move the native ``name`` policy (only ``"expert"``
    explains itself) picks for the seat to act in ``game``, and the name of the
    rule that fired (e.g. ``"lead-weakest-group"``, ``"stop-opponent-with-bomb"``).
    The view is the one the native loop builds (own hand, counts, cards
    played, trick, levels); no other hand is used.

    >>> from guandan import Game
    >>> g = Game.from_position([["S3", "H4", "S5", "S6", "S7", "DK"], ["HA"], ["D5"], ["C9"]], level="2")
    >>> m, rule = explain(g)
    >>> str(m), rule
    ('Straight 3 S3 H4 S5 S6 S7', 'lead-control-then-out')
    """
    if name != "expert":
        raise GuandanError(f"only the expert policy explains its decisions, not {name!r}")
    if game.is_over:
        raise GuandanError("the game is over")
    return _expert_explain(game)
