"""Rule sets: the variant options of ``RULES.md`` as one frozen value.

A game records the :class:`Rules` it was played under; the move generator
reads :attr:`Rules.wild_straight_flush`.

>>> from guandan import Rules
>>> Rules.default().wild_straight_flush, Rules.contest().wild_straight_flush
(True, False)
>>> Rules.named("contest").a_win_partner
'second'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Dict, Optional

from .errors import GuandanError

__all__ = ["Rules", "PRESETS"]


@dataclass(frozen=True)
class Rules:
    """The variant options of RULES.md ("Variants"); defaults are the China
    Guandan Research Institute's entertainment rules.

    Attributes:
        name: a label recorded with games.
        a_win_partner: at its own level A, a banker's team wins the game when
            the partner finishes ``"second_or_third"`` (default) or only
            ``"second"`` (the AI contest platform).
        a_fail_limit: failed rounds at level A before the team falls back to
            level 2; ``None`` = unlimited (default).
        equal_tribute_leader: who leads after a double-down with equal
            tributes: ``"payer"`` (the player who paid the banker, default) or
            ``"banker_left"`` (the banker's 上家, seed 002).
        wild_straight_flush: a wild may complete a straight flush (default);
            ``False`` omits those moves, as the v1006 contest server does.
        max_rounds: stop a game after this many rounds (``None``: play on
            until a team passes A).
    """

    name: str = "default"
    a_win_partner: str = "second_or_third"
    a_fail_limit: Optional[int] = None
    equal_tribute_leader: str = "payer"
    wild_straight_flush: bool = True
    max_rounds: Optional[int] = None

    def __post_init__(self) -> None:
        if self.a_win_partner not in ("second_or_third", "second"):
            raise GuandanError(
                f"a_win_partner must be 'second_or_third' or 'second', got {self.a_win_partner!r}")
        if self.a_fail_limit is not None and (not isinstance(self.a_fail_limit, int)
                                              or self.a_fail_limit < 1):
            raise GuandanError(f"a_fail_limit must be None or a positive int, got {self.a_fail_limit!r}")
        if self.equal_tribute_leader not in ("payer", "banker_left"):
            raise GuandanError(
                f"equal_tribute_leader must be 'payer' or 'banker_left', got {self.equal_tribute_leader!r}")
        if self.max_rounds is not None and (not isinstance(self.max_rounds, int) or self.max_rounds < 1):
            raise GuandanError(f"max_rounds must be None or a positive int, got {self.max_rounds!r}")

    @classmethod
    def default(cls) -> "Rules":
        """The CGRI entertainment rules (RULES.md defaults)."""
        return cls()

    @classmethod
    def contest(cls) -> "Rules":
        """The official AI competition platform (v1006): A won only with the
        partner second, three failed rounds at A fall back to 2, and no
        straight flushes completed by a wild."""
        return cls(name="contest", a_win_partner="second", a_fail_limit=3,
                   wild_straight_flush=False)

    @classmethod
    def named(cls, name: str) -> "Rules":
        """A preset by name: ``"default"`` or ``"contest"``."""
        try:
            return PRESETS[name]()
        except KeyError:
            raise GuandanError(f"unknown rules preset {name!r}; known: {', '.join(PRESETS)}") from None

    def replace(self, **changes: Any) -> "Rules":
        """A copy with some options changed."""
        return replace(self, **changes)

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Rules":
        return cls(**d)


PRESETS = {"default": Rules.default, "contest": Rules.contest}
