"""The seeded schedule of duplicate deals and the pairings of a tournament.

Deal ``i`` of a match is drawn from ``numpy.random.SeedSequence(seed,
spawn_key=(i,))`` alone, so it is the same whatever the concurrency, the
batch sizes, or which pairing plays it (every pairing of a tournament plays
the same deals). A deal fixes everything about the start of a round that
depends on the *seats*: the four hands (from the deal seed), both team
levels, which team's level the round is played at, and the previous
finishing order that decides tribute. Both halves of a duplicate pair start
from this identical state; only who sits where changes: in half 0 the
first participant holds seats 0 and 2 (team 0), in half 1 seats 1 and 3.

>>> d = deal_spec(1, 0)
>>> d == deal_spec(1, 0), d.index, len(d.team_levels)
(True, 0, 2)
>>> [a for a, b in pairings(3, "round-robin")], pairings(3, "gauntlet")
([0, 0, 1], [(0, 1), (0, 2)])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

__all__ = ["DealSpec", "deal_spec", "pairings", "RANKS", "parse_levels"]

RANKS = "23456789TJQKA"


@dataclass(frozen=True)
class DealSpec:
    """The start of one duplicate deal (``unit="deal"``) or game
    (``unit="game"``: only ``seed`` is used; games start at level 2)."""

    index: int
    seed: int                                 # the Game seed: the hands (and a first leader)
    team_levels: Tuple[int, int]              # rank indices 0..12 (2..A)
    owner: int                                # team whose level the round is played at
    last_order: Optional[Tuple[int, int, int, int]]   # previous finishing order (tribute) or None
    policy_seed: int = 0                      # the built-in random policy's draws (per half)

    @property
    def level(self) -> str:
        return RANKS[self.team_levels[self.owner]]

    def to_dict(self) -> Dict[str, Any]:
        return {"index": self.index, "seed": self.seed,
                "team_levels": [RANKS[x] for x in self.team_levels], "owner": self.owner,
                "last_order": list(self.last_order) if self.last_order else None}

    def half_policy_seed(self, half: int) -> int:
        """The seed of the built-in random policy's draws in ``half``: the
        halves draw independently (identical stochastic participants are not
        forced into mirror-image games)."""
        return ((self.policy_seed ^ (0x9E3779B97F4A7C15 * (half + 1))) & ((1 << 64) - 1)) >> 1

    def game(self, rules: Any = None, unit: str = "deal", half: int = 0) -> Any:
        """A fresh :class:`guandan.Game` at this start, for ``half``."""
        from ..game import Game
        ps = self.half_policy_seed(half)
        if unit == "game":
            return Game(rules=rules, seed=self.seed, policy_seed=ps)
        return Game.from_deal(self.seed, [RANKS[x] for x in self.team_levels], self.owner,
                              list(self.last_order) if self.last_order else None, rules=rules,
                              policy_seed=ps)


def parse_levels(spec: Any) -> Optional[Tuple[int, int]]:
    """``"random"`` / None -> None (a seeded random level per team); ``"2"``,
    ``"K"`` -> that level for both teams; ``"2,K"`` -> one per team."""
    if spec is None or spec == "random":
        return None
    parts = [p.strip().upper() for p in str(spec).split(",")]
    if len(parts) == 1:
        parts = parts * 2
    if len(parts) != 2 or not all(len(p) == 1 and p in RANKS for p in parts):
        raise ValueError(f"levels are 'random', one rank 2..A, or two ranks 'L0,L1'; got {spec!r}")
    return (RANKS.index(parts[0]), RANKS.index(parts[1]))


def deal_spec(seed: int, index: int, *, levels: Optional[Tuple[int, int]] = None,
              tribute: bool = True) -> DealSpec:
    """Deal ``index`` of the schedule rooted at ``seed``.

    Drawn from ``SeedSequence(seed, spawn_key=(index,))``: the deal seed; a
    level 2..A for each team, uniform and independent (unless ``levels``
    fixes them); the owner team, uniform; the seed of the built-in random
    policy's draws; and with ``tribute`` a previous
    finishing order, uniform among the 12 orders whose banker is in the
    owner team (so single-down and double-down tribute and anti-tribute
    occur at their natural rates), else none (a first round: no tribute).
    """
    words = np.random.SeedSequence(int(seed), spawn_key=(int(index),)).generate_state(4, dtype=np.uint64)
    w = [int(x) for x in words]
    deal_seed = w[0] >> 1                     # < 2**63: fits everywhere
    if levels is None:
        tl = (w[1] % 13, (w[1] >> 8) % 13)
    else:
        tl = (int(levels[0]), int(levels[1]))
    owner = (w[1] >> 16) & 1
    order: Optional[Tuple[int, int, int, int]] = None
    if tribute:
        banker = owner + 2 * ((w[2] >> 0) & 1)
        rest = [s for s in range(4) if s != banker]
        k = (w[2] >> 1) % 6
        perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
        i0, i1, i2 = perms[k]
        order = (banker, rest[i0], rest[i1], rest[i2])
    return DealSpec(int(index), deal_seed, tl, owner, order, w[3] >> 1)


def pairings(n: int, mode: str) -> List[Tuple[int, int]]:
    """The pairings of ``n`` participants: ``"round-robin"`` (every pair),
    ``"gauntlet"`` (the first against each other one), ``"head-to-head"``
    (exactly two participants)."""
    if mode in ("round-robin", "roundrobin", "rr"):
        return [(i, j) for i in range(n) for j in range(i + 1, n)]
    if mode == "gauntlet":
        return [(0, j) for j in range(1, n)]
    if mode in ("head-to-head", "match", "h2h"):
        if n != 2:
            raise ValueError(f"a head-to-head match needs exactly two participants, got {n}")
        return [(0, 1)]
    raise ValueError(f"unknown tournament {mode!r}: round-robin, gauntlet or head-to-head")
