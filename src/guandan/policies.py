"""Built-in policies. A policy is any callable ``(observation, legal_moves) -> move``.

``"random"`` plays uniformly over the full legal list; ``"greedy"`` is a
sensible rule-based player (lowest play that beats, never over its partner,
bombs kept for an opponent close to going out, tribute and return: the first
allowed card, i.e. the lowest suit of the highest card, and the lowest
return card). Both also run natively inside :class:`guandan.Game` and the
simulator when given by name.

>>> from guandan import Game
>>> g = Game(seed=3)
>>> m = GreedyPolicy()(g.observation(g.to_act), g.legal_moves())
>>> m in g.legal_moves()
True
"""

from __future__ import annotations

import random
from typing import Any, Dict, Optional

from . import _core, _engine
from .errors import GuandanError

__all__ = ["RandomPolicy", "GreedyPolicy", "get_policy", "BUILTIN"]

BUILTIN = ("random", "greedy")


class RandomPolicy:
    """Uniform over the legal moves, from its own seeded RNG."""

    name = "random"

    def __init__(self, seed: Optional[int] = None) -> None:
        self._rng = random.Random(seed)

    def __call__(self, observation: Dict[str, Any], legal_moves: Any) -> Any:
        if len(legal_moves) == 0:
            raise GuandanError("no legal move to choose from")
        return legal_moves[self._rng.randrange(len(legal_moves))]


class GreedyPolicy:
    """The native greedy rule (see the module docstring), from an observation."""

    name = "greedy"

    def __call__(self, observation: Dict[str, Any], legal_moves: Any) -> Any:
        if len(legal_moves) == 0:
            raise GuandanError("no legal move to choose from")
        if observation["phase"] != "play":
            return legal_moves[0]
        if not isinstance(legal_moves, _core.MoveList):
            import numpy as np
            words = np.array([m.words for m in legal_moves], dtype=np.uint64).reshape(-1, 2)
            legal_moves = _core.make_movelist(words, _core.level_index(observation["level"]))
        seat = observation["seat"]
        top = observation["top"]
        counts = observation["card_counts"]
        i = _engine.greedy_index(
            legal_moves, _core.level_index(observation["level"]), top is None,
            top is not None and top["seat"] % 2 == seat % 2,
            counts[top["seat"]] if top is not None else 27, counts[seat])
        return legal_moves[i]


def get_policy(name_or_callable: Any, seed: Optional[int] = None) -> Any:
    """A policy callable from a built-in name or a callable."""
    if callable(name_or_callable):
        return name_or_callable
    if name_or_callable == "random":
        return RandomPolicy(seed)
    if name_or_callable == "greedy":
        return GreedyPolicy()
    raise GuandanError(f"unknown policy {name_or_callable!r}; built-in: {', '.join(BUILTIN)}")
