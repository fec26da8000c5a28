"""Rule sets: the variant options of ``docs/rules.md`` as one frozen value.

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
from functools import cached_property, lru_cache
from typing import Any, Dict, Mapping, Optional, Tuple

from . import _engine
from .errors import GuandanError

__all__ = ["Rules", "PRESETS", "MAX_ROUNDS", "MAX_A_FAIL_LIMIT", "resolve_rules", "rules_of"]

MAX_ROUNDS = 10_000          # native round counters are 16-bit
MAX_A_FAIL_LIMIT = 100       # native A-failure counters are 8-bit


@dataclass(frozen=True)
class Rules:
    """The variant options of docs/rules.md ("Variants"); defaults are the China
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
        if not isinstance(self.name, str) or len(self.name) > 100:
            raise GuandanError(f"name must be a short string, got {self.name!r:.60}")
        if self.a_fail_limit is not None and (not isinstance(self.a_fail_limit, int)
                                              or isinstance(self.a_fail_limit, bool)
                                              or not 1 <= self.a_fail_limit <= MAX_A_FAIL_LIMIT):
            raise GuandanError(f"a_fail_limit must be None or an int 1..{MAX_A_FAIL_LIMIT}, "
                               f"got {self.a_fail_limit!r}")
        if not isinstance(self.wild_straight_flush, bool):
            raise GuandanError(f"wild_straight_flush must be a bool, got {self.wild_straight_flush!r}")
        if self.equal_tribute_leader not in ("payer", "banker_left"):
            raise GuandanError(
                f"equal_tribute_leader must be 'payer' or 'banker_left', got {self.equal_tribute_leader!r}")
        if self.max_rounds is not None and (not isinstance(self.max_rounds, int)
                                            or isinstance(self.max_rounds, bool)
                                            or not 1 <= self.max_rounds <= MAX_ROUNDS):
            raise GuandanError(f"max_rounds must be None or an int 1..{MAX_ROUNDS}, got {self.max_rounds!r}")

    @classmethod
    def default(cls) -> "Rules":
        """The CGRI entertainment rules (the defaults of docs/rules.md)."""
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

    @cached_property
    def native(self) -> Any:
        """The rules as the engine's native struct (built once per Rules)."""
        return _engine.NativeRules(self)

    def replace(self, **changes: Any) -> "Rules":
        """A copy with some options changed."""
        return replace(self, **changes)

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Rules":
        """The inverse of :meth:`to_dict` (validated: records come from strangers)."""
        if not isinstance(d, dict):
            raise GuandanError(f"rules must be a dict of options, got {type(d).__name__}")
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise GuandanError(f"unknown rules option(s): {', '.join(sorted(map(str, unknown)))[:200]}")
        return cls(**d)


PRESETS = {"default": Rules.default, "contest": Rules.contest}


def resolve_rules(rules: Any) -> Rules:
    """The validator of a ``rules`` argument: a :class:`Rules`, or None for
    the defaults (a preset by name is ``Rules.named(name)``)."""
    if rules is None:
        return Rules.default()
    if not isinstance(rules, Rules):
        raise GuandanError(f"rules must be a guandan.Rules (Rules.named(name) for a preset), "
                           f"got {type(rules).__name__}")
    return rules


@lru_cache(maxsize=64)
def _from_items(items: Tuple[Tuple[str, Any], ...]) -> Rules:
    return Rules.from_dict(dict(items))


def rules_of(observation: Mapping[str, Any], default: Optional[Rules] = None) -> Rules:
    """The rules an observation was made under: its ``"rules"`` field (the
    game's :meth:`Rules.to_dict`, validated by :meth:`Rules.from_dict`; a
    :class:`Rules` or a preset name also do), else ``default``, else the
    default rules.

    >>> from guandan import Game
    >>> rules_of(Game(rules=Rules.contest(), seed=1).observation(0)).name
    'contest'
    """
    r = observation.get("rules") if isinstance(observation, Mapping) else None
    if r is None:
        return resolve_rules(default)
    if isinstance(r, Rules):
        return r
    if isinstance(r, str):
        return Rules.named(r)
    if isinstance(r, dict):
        try:
            return _from_items(tuple(sorted(r.items())))
        except TypeError:                    # an unhashable value: validated uncached
            return Rules.from_dict(r)
    raise GuandanError(f"an observation's rules are a dict of options, got {type(r).__name__}")
