"""The one table of policy names.

Every module that takes a policy by name (``Game.choose`` and
``Game.play_out``, ``simulate``, ``VecGame``, the table server, the web table,
the arena, the CLI) resolves it here. A name is registered once, by the module
that implements it: :mod:`guandan.policies` registers the native policies
(``random``, ``greedy``, ``expert``), :mod:`guandan.search` registers
``search``; a learned policy registers itself the same way::

    from guandan.policies import register
    register("mybot", MyBot)                 # MyBot(seed=None, **options)

A *spec* is a name with optional options, ``"name"`` or
``"name:key=value,key=value"`` (options only for a policy registered with
``options=True``).

The table lives at the bottom of the package (it knows nothing about games)
so that :class:`guandan.Game`, below the policies, can resolve a name the
policies above it registered; the public face of it is
:mod:`guandan.policies`.

>>> parse_policy("search:ms=200")
('search', {'ms': '200'})
>>> "greedy" in policy_names()
True
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from .errors import GuandanError

__all__ = ["register", "unregister", "parse_policy", "policy_names", "policy_usages", "native_code", "check_policy",
           "is_fixed_native",
           "make_policy", "decider", "Entry"]

NativeSpec = Union[None, int, Callable[[Dict[str, str]], int]]


@dataclass(frozen=True)
class Entry:
    """One registered policy: ``factory(seed=None, **options)`` builds it;
    ``native`` is its native policy code (or a function of its options that
    returns one: a search registers one native configuration per distinct
    option set), ``None`` for a Python-only policy; ``options``: whether
    the spec may carry options; ``usage``: how a spec is written, for help
    texts (``"search:rollouts=N|ms=MS,..."``; default: the name)."""

    name: str
    factory: Callable[..., Any]
    native: NativeSpec = None
    options: bool = False
    usage: str = ""


_TABLE: Dict[str, Entry] = {}
_DECIDERS: Dict[str, Any] = {}
_LOCK = threading.Lock()
_MAX_DECIDERS = 256


def register(name: str, factory: Callable[..., Any], *, native: NativeSpec = None,
             options: bool = False, replace: bool = False, usage: str = "") -> None:
    """Register ``factory`` under ``name``. ``factory(seed=None, **options)``
    returns a policy: an object with ``decide(game) -> Move`` (and, for SDK
    bots, ``__call__(observation, legal_moves) -> move``). ``native``: the
    native code (or a function of the options giving one) that native
    callers (``simulate``, ``VecGame``, built-in seats) run. A name is
    registered once unless ``replace``. ``Game.choose(name)`` decides with
    one object per spec shared by every game and thread (:func:`decider`),
    so its ``decide(game)`` takes any randomness from the game (its seed,
    :attr:`guandan.Game.decisions`), not from the object; its answer is
    checked as any policy's. ``usage``: how its spec is written, shown by
    the command line's help (:func:`policy_usages`)."""
    if not isinstance(name, str) or not name or not name.replace("_", "").replace("-", "").isalnum():
        raise GuandanError(f"a policy name is letters, digits, '-' and '_', got {name!r}")
    if not callable(factory):
        raise GuandanError(f"the factory of policy {name!r} is not callable")
    if native is not None and not callable(native) and not isinstance(native, int):
        raise GuandanError(f"native of policy {name!r} is a native code or a function of the options")
    with _LOCK:
        if name in _TABLE and not replace:
            raise GuandanError(f"policy {name!r} is already registered")
        _TABLE[name] = Entry(name, factory, native, bool(options), str(usage or ""))
        for spec in [s for s in _DECIDERS if s.partition(":")[0] == name]:
            del _DECIDERS[spec]


def unregister(name: str) -> None:
    """Remove a registered name (GuandanError if it is not registered)."""
    with _LOCK:
        if _TABLE.pop(name, None) is None:
            raise GuandanError(f"policy {name!r} is not registered")
        for spec in [s for s in _DECIDERS if s.partition(":")[0] == name]:
            del _DECIDERS[spec]


def policy_names() -> Tuple[str, ...]:
    """The registered policy names, in the order they were registered."""
    return tuple(_TABLE)


def policy_usages(native_only: bool = False) -> Tuple[str, ...]:
    """How each registered policy's spec is written (``"greedy"``,
    ``"search:rollouts=N|ms=MS,..."``, ``"net:path=FILE"``), in the order
    they were registered: the list the command line's help shows.
    ``native_only``: only the policies with a native form (what
    ``simulate`` runs)."""
    return tuple(e.usage or (f"{e.name}:KEY=VALUE,..." if e.options else e.name)
                 for e in _TABLE.values() if not native_only or e.native is not None)


def parse_policy(spec: str) -> Tuple[str, Dict[str, str]]:
    """``"name"`` or ``"name:key=value,key=value"`` -> ``(name, options)``."""
    if not isinstance(spec, str) or not spec:
        raise GuandanError(f"a policy name is a non-empty string, got {spec!r}")
    name, _, rest = spec.partition(":")
    opts: Dict[str, str] = {}
    for part in filter(None, rest.split(",")):
        k, eq, v = part.partition("=")
        if not eq or not k:
            raise GuandanError(f"policy options are key=value, got {part!r} in {spec!r}")
        opts[k] = v
    return name, opts


def _entry(spec: str) -> Tuple[Entry, Dict[str, str]]:
    name, opts = parse_policy(spec)
    e = _TABLE.get(name)
    if e is None:
        raise GuandanError(f"unknown policy {name!r}; built-in: {', '.join(policy_names())}")
    if opts and not e.options:
        raise GuandanError(f"policy {name!r} takes no options, got {spec!r}")
    return e, opts


def native_code(spec: str) -> int:
    """The native code of a policy spec (GuandanError for an unknown name or
    a policy that has no native form)."""
    if not isinstance(spec, str):
        raise GuandanError(f"unknown policy {spec!r}; built-in: {', '.join(policy_names())}")
    e, opts = _entry(spec)
    if e.native is None:
        raise GuandanError(f"policy {e.name!r} has no native form; native policies: "
                           f"{', '.join(n for n, x in _TABLE.items() if x.native is not None)}")
    return e.native if isinstance(e.native, int) else int(e.native(opts))


def is_fixed_native(spec: str) -> bool:
    """Whether ``spec`` names a policy with one fixed native code and no
    options (``random``, ``greedy``, ``expert``): a decision of microseconds,
    fine to take inside an event loop. A search (its budget is its own) or a
    Python policy is not."""
    try:
        e, opts = _entry(spec)
    except GuandanError:
        return False
    return isinstance(e.native, int) and not opts


def split_specs(text: str) -> List[str]:
    """A comma-separated list of policy specs, a spec's own options following
    it: ``"search:rollouts=200,k=4,greedy"`` -> ``["search:rollouts=200,k=4",
    "greedy"]`` (a piece ``KEY=VALUE`` without ``:`` continues the spec
    before it, when that spec has options). The specs are not checked
    (:func:`check_policy` does that).

    >>> split_specs("search:rollouts=200,k=4,greedy, expert")
    ['search:rollouts=200,k=4', 'greedy', 'expert']
    """
    out: List[str] = []
    for piece in str(text).split(","):
        p = piece.strip()
        if out and ":" in out[-1] and "=" in p and ":" not in p.split("=", 1)[0]:
            out[-1] += "," + p
        elif p:
            out.append(p)
    return out


def check_policy(spec: str) -> str:
    """``spec`` if it names a registered policy with valid options (its
    options are checked by building it once), else GuandanError."""
    e, opts = _entry(spec)
    if opts:
        e.factory(None, **opts)
    return spec


def make_policy(spec: str, seed: Optional[int] = None) -> Any:
    """A new policy object for ``spec`` with its own seeded stream."""
    e, opts = _entry(spec)
    return e.factory(seed, **opts)


def decider(spec: str) -> Any:
    """The shared policy object that decides for ``Game.choose(spec)``: a
    policy deciding from a game takes its randomness from the game (its
    policy stream or its seed), so one object per spec serves every game
    (and every thread). An object built from a registration that was
    replaced while it was built is not kept."""
    d = _DECIDERS.get(spec)
    if d is not None:
        return d
    e, opts = _entry(spec)
    d = e.factory(None, **opts)                   # outside the lock: a factory may take its time
    with _LOCK:
        current = _TABLE.get(e.name) is e
        if current:
            if len(_DECIDERS) >= _MAX_DECIDERS:
                _DECIDERS.clear()
            return _DECIDERS.setdefault(spec, d)
    return decider(spec)                          # replaced or removed meanwhile: not cached
