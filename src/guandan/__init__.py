"""guandan: the fastest correct Guandan (掼蛋) engine.

A Cython bitboard core enumerates every legal play (wild cards included);
thin Python views wrap it.

>>> import guandan
>>> hand = guandan.Hand("S3 H3 D3 S4 D4 H2")
>>> moves = guandan.legal_moves(hand, "2")
>>> moves[0].to_platform()
['Single', '2', ['H2']]
>>> [str(m) for m in guandan.classify("S3 H3 D3 S4 D4", "2")]
['ThreeWithTwo 3 S3 H3 D3 S4 D4']
"""

from ._core import Hand
from .errors import (
    CardError,
    GuandanError,
    IllegalMoveError,
    InvalidMoveError,
    LevelError,
    MoveError,
    PolicyError,
    ProtocolError,
    TooManyCopiesError,
    UnknownCardError,
)
from .moves import (
    Move,
    MoveBatch,
    MoveList,
    MoveType,
    classify,
    contest_order,
    legal_moves,
    legal_moves_batch,
    parse_move,
)
from .rules import PRESETS, Rules
from .game import (Game, Phase, RoundResult, TributeState, TrickPlay, perft, return_choices,
                   tribute_choices)
from .policies import GreedyPolicy, RandomPolicy, get_policy
from . import search  # noqa: F401  (registers the "search" policy)
from .simulation import SimulationResult, simulate
from .vec import VecGame, move_features
from . import rl  # noqa: F401  (registers the "net" policy)

__version__ = "0.1.0"

__all__ = [
    "Hand",
    "Move",
    "MoveBatch",
    "MoveList",
    "MoveType",
    "Rules",
    "PRESETS",
    "Game",
    "perft",
    "tribute_choices",
    "return_choices",
    "RandomPolicy",
    "GreedyPolicy",
    "get_policy",
    "simulate",
    "SimulationResult",
    "VecGame",
    "move_features",
    "classify",
    "contest_order",
    "legal_moves",
    "legal_moves_batch",
    "parse_move",
    "GuandanError",
    "CardError",
    "UnknownCardError",
    "TooManyCopiesError",
    "LevelError",
    "MoveError",
    "InvalidMoveError",
    "IllegalMoveError",
    "ProtocolError",
    "PolicyError",
    "Phase",
    "RoundResult",
    "TributeState",
    "TrickPlay",
    "__version__",
]
