"""The exception hierarchy: every error the engine raises on bad input.

All of them derive from :class:`GuandanError`, itself a :class:`ValueError`,
so ``except ValueError`` and ``except GuandanError`` both catch them.

>>> from guandan import Hand, GuandanError
>>> try:
...     Hand("S2 S2 S2")
... except GuandanError as e:
...     print(type(e).__name__, "-", e)
TooManyCopiesError - 3 copies of S2 (at most 2: two decks)
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

__all__ = [
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
]


class GuandanError(ValueError):
    """Base class of every error raised by :mod:`guandan` for bad input."""


class CardError(GuandanError):
    """A card or a hand is malformed."""


class UnknownCardError(CardError):
    """A card string is not one of the 54 faces (``S2`` .. ``DA``, ``SB``, ``HR``)."""


class TooManyCopiesError(CardError):
    """A hand (or a play) holds more than two copies of one face."""


class LevelError(GuandanError):
    """A level is not a rank ``2`` .. ``A``."""


class MoveError(GuandanError):
    """Base class for problems with a play."""


class InvalidMoveError(MoveError):
    """A play is malformed: an unknown type, or cards that do not form that type and rank."""


class IllegalMoveError(MoveError):
    """A well-formed play that is not allowed now: not in the hand, does not beat
    the table, out of turn, or the wrong phase.

    Raised by ``Game.play``, it says why in fields as well as in words (what
    :func:`guandan.words.refusal_of` puts into a sentence): ``refusal`` (the
    name of a ``guandan.game.Refusal``, or ``"INVALID"``: the cards form no
    play, or ``"AMBIGUOUS"``: several readings are legal; None when not
    known), ``move`` (the play refused), ``top`` (the play to beat),
    ``missing`` (cards not in the hand), ``cards`` (the cards that form no
    play), ``choices`` (the allowed tribute or
    return cards) and ``readings`` (the legal readings)."""

    def __init__(self, message: str = "", *, refusal: Optional[str] = None, move: Any = None,
                 top: Any = None, missing: Sequence[str] = (), cards: Sequence[str] = (),
                 choices: Sequence[str] = (), readings: Sequence[Any] = ()) -> None:
        super().__init__(message)
        self.refusal = refusal
        self.move = move
        self.top = top
        self.missing = tuple(missing)
        self.cards = tuple(cards)
        self.choices = tuple(choices)
        self.readings = tuple(readings)


class ProtocolError(GuandanError):
    """A message of the contest protocol is malformed or arrives when it should not."""


class PolicyError(GuandanError):
    """A policy (a bot's callable) raised an exception or answered something
    that is not an action; the original exception is chained (``__cause__``)."""
