"""Value types describing a game's state, as :class:`guandan.Game` returns
them: the :class:`Phase` of a round, a play of the current trick, the
round's tribute, and how the last round ended.

>>> Phase.PLAY == "play", str(Phase.TRIBUTE)
(True, 'tribute')
"""

from __future__ import annotations

import enum
from typing import NamedTuple, Optional, Tuple

from .moves import Move

__all__ = ["Phase", "PHASES", "TrickPlay", "TributeState", "RoundResult"]


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
PHASE_BY_CODE = tuple(Phase)          # by native phase code (PH_TRIBUTE .. PH_OVER)


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
