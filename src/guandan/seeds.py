"""The determinism contract: every seed the package derives from another.

* :func:`game_seed` - the deal seed of game ``k`` of a series (splitmix64,
  the native ``gd_mix_seed``, one implementation): the simulator's games of a chunk,
  :class:`guandan.VecGame`'s and the env's successive games, the sampled
  worlds of a search, the search seed of a game's decision.
* :func:`chunk_seeds` - the (game seed, policy seed) of a simulator chunk:
  the ``index``-th child of ``numpy.random.SeedSequence(seed)``.
* :func:`policy_seed` - the seed of the built-in random policy's draws of a
  game dealt from ``seed`` when none is given (``seed ^ POLICY_SALT``; the
  native state machine applies the same salt).

>>> game_seed(1, 0) == game_seed(1, 0), game_seed(1, 0) != game_seed(1, 1)
(True, True)
>>> policy_seed(0) == POLICY_SALT
True
"""

from __future__ import annotations

from typing import Tuple

import numpy as np

from . import _sim
from ._engine import POLICY_SALT

__all__ = ["game_seed", "chunk_seeds", "policy_seed", "POLICY_SALT", "MASK64"]

MASK64 = (1 << 64) - 1


def game_seed(base: int, k: int) -> int:
    """The deal seed of game ``k`` from a base seed (the native loop's
    splitmix64 mix): game ``k`` of a chunk with game seed ``base`` is
    ``Game(seed=game_seed(base, k))``."""
    return _sim.game_seed(base, k)


def chunk_seeds(seed: int, index: int) -> Tuple[int, int]:
    """(game seed, policy seed) of chunk ``index``: the ``index``-th child of
    ``SeedSequence(seed)``."""
    a, b = np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(2, dtype=np.uint64)
    return int(a), int(b)


def policy_seed(seed: int) -> int:
    """The built-in random policy's seed for a game dealt from ``seed``
    (when no policy seed is given)."""
    return (seed ^ POLICY_SALT) & MASK64
