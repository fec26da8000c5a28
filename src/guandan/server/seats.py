"""Seats of a contest table and what a seat does when it fails.

A :class:`Seat` is played by a client connection, a built-in policy (a
name of :mod:`guandan.policies`) or a Python policy ``(observation,
legal_moves) -> move``. Its :class:`FaultPolicy` says what a fault costs:

* ``on_timeout``: ``"default"`` (the default action, index 0 of the
  ``actionList``; the late answer rule follows) or ``"forfeit"``;
* ``on_invalid``: ``"ignore"`` (logged, the table keeps waiting) or ``"forfeit"``;
* ``on_disconnect``: ``"bot"`` (the greedy bot plays the seat from then
  on), ``"abort"`` (the session ends) or ``"forfeit"`` (it ends, the seat named);
* ``max_misses``: questions in a row without any answer that make a seat
  hung (disconnected with code 1008; 0: never);
* ``game_time``: a seat's thinking seconds in the whole session (then it forfeits).

The functions here are the parts of a decision that need no socket: the
answer parsed once (:func:`parse_answer`) and a Python policy's answer
turned into a legal :class:`~guandan.moves.Move` (:func:`policy_move`).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any, Optional

from ..errors import GuandanError
from ..moves import Move, MoveList

__all__ = ["Seat", "FaultPolicy", "parse_answer", "policy_move"]


@dataclass(frozen=True)
class FaultPolicy:
    """What a table does about a seat's faults (module docstring)."""

    on_timeout: str = "default"
    on_invalid: str = "ignore"
    on_disconnect: str = "bot"
    max_misses: int = 5
    game_time: Optional[float] = None

    def __post_init__(self) -> None:
        if self.on_disconnect not in ("bot", "abort", "forfeit"):
            raise GuandanError("on_disconnect must be 'bot', 'abort' or 'forfeit'")
        if self.on_timeout not in ("default", "forfeit") or self.on_invalid not in ("ignore", "forfeit"):
            raise GuandanError("on_timeout is 'default' or 'forfeit'; on_invalid 'ignore' or 'forfeit'")
        if self.max_misses < 0:
            raise GuandanError("max_misses must be >= 0")

    @property
    def forfeits_on_time(self) -> bool:
        """A late seat forfeits (so no late answer can follow)."""
        return self.on_timeout == "forfeit" or bool(self.game_time)


class Seat:
    """One seat: who plays it and the state of its current question."""

    def __init__(self, index: int, policy: Any) -> None:
        self.index = index
        self.policy = policy            # built-in name, Python policy, or None for a client
        self.conn: Any = None           # its connections.Conn while a client holds it
        self.label = ""
        self.waiting: Optional[asyncio.Future] = None   # the answer awaited
        self.range = -1                            # indexRange of the question asked
        self.owed_until: Optional[float] = None    # a stale answer is owed until then
        self.owed_range = -1                       # indexRange of the question it answers
        self.misses = 0                            # questions in a row without any answer
        self.late: Optional[asyncio.Event] = None  # set when it has arrived (or the seat left)
        self.think = 0.0                           # seconds it took to answer, in all

    @property
    def ws(self) -> Any:
        return self.conn.ws if self.conn is not None else None

    @property
    def is_client(self) -> bool:
        return self.policy is None and self.conn is not None

    @property
    def asked(self) -> bool:
        return self.waiting is not None and not self.waiting.done()


def parse_answer(raw: Any) -> Optional[int]:
    """The index of an answer frame ``{"actIndex": N}`` (None when it is not
    one: not text, not JSON, no integer ``actIndex``). Range is the caller's."""
    if not isinstance(raw, str):
        return None
    try:
        msg = json.loads(raw)
    except (ValueError, TypeError, RecursionError):
        return None
    idx = msg.get("actIndex") if isinstance(msg, dict) else None
    return idx if type(idx) is int else None


def policy_move(answer: Any, legal: MoveList, level: str) -> Move:
    """A Python policy's answer (a :class:`Move`, a platform triple or an
    index into ``legal``) as one of ``legal``; GuandanError when it is none."""
    if isinstance(answer, bool):
        raise GuandanError("a bool is not a move")
    if isinstance(answer, int):
        if not 0 <= answer < len(legal):
            raise GuandanError(f"index {answer} outside 0..{len(legal) - 1}")
        return legal[answer]
    try:
        m = answer if isinstance(answer, Move) else Move.from_platform(answer, level)
    except (TypeError, ValueError, IndexError, KeyError) as e:
        raise GuandanError(str(e)) from None
    i = legal.index_of(m)
    if i < 0:
        raise GuandanError(f"{m} is not a legal move now")
    return legal[i]
