"""Arena participants: built-in policies, in-process SDK bots, external programs.

A participant plays both seats of a team (its partner is a second copy).

* **Built-in** (``"greedy"``, ``"random"``, ``"search:ms=200"``): any name
  :mod:`guandan.policies` knows, resolved there, so policies added later
  work unchanged. A bare native name runs in the native simulator loop;
  a name with options runs through ``get_policy(spec)``.
* **In-process** (``"package.module:Class"``, as ``guandan bot`` takes it,
  or any :class:`guandan.bots.Bot` / callable given from Python): a fresh
  instance (a deep copy of the given object) per seat and per game.
* **External** (``Engine(name, cmd="python mybot.py {url}")``): a program
  started once per seat per table, given the URL of the table server it must
  connect to; it speaks the contest protocol (docs/protocol.md), in any language.

>>> [p.kind for p in parse_participants(["greedy", "random"])]
['builtin', 'builtin']
>>> parse_participants(["greedy", "greedy"])[1].name
'greedy#2'
>>> Engine.parse('name=mine cmd="python bot.py {url}"').cmd
'python bot.py {url}'
"""

from __future__ import annotations

import copy
import shlex
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from ..bots import load_class
from ..errors import GuandanError
from ..policies import check_policy, get_policy, native_code, parse_policy, policy_names

__all__ = ["Participant", "Builtin", "InProcess", "Engine", "parse_participant",
           "parse_participants"]


def _has_native_form(name: str) -> bool:
    """Whether the registered policy ``name`` has a native code (it can run
    in the native loop)."""
    try:
        native_code(name)
    except GuandanError:
        return False
    return True


class Participant:
    kind = "?"
    name: str = "?"

    @property
    def native(self) -> Optional[str]:
        """The native policy name when this participant can run in the
        native loop, else None."""
        return None

    def make(self, seed: int) -> Union[str, Callable[..., Any]]:
        """What plays a seat in this process (a built-in name or a callable);
        an external program plays through the table server instead."""
        raise GuandanError(f"participant {self.name!r} ({self.kind}) does not play in-process")

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "kind": self.kind}


class Builtin(Participant):
    """A policy from the registry :mod:`guandan.policies`: a name without
    options that has a native code runs in the native loop; any other spec
    runs as the registry's policy object, called ``(observation,
    legal_moves) -> move``."""

    kind = "builtin"

    def __init__(self, spec: str, name: Optional[str] = None) -> None:
        check_policy(spec)                      # unknown names and bad options fail here, with the list
        base, opts = parse_policy(spec)
        self.spec = spec
        self.base = base
        self.options = opts
        self.name = name or spec
        self._native = base if not opts and _has_native_form(base) else None

    @property
    def native(self) -> Optional[str]:
        return self._native

    def make(self, seed: int) -> Union[str, Callable[..., Any]]:
        """What plays a seat: the native name (``Game.play_policy`` picks
        natively) or the registry's callable for a name with options."""
        if self.native:
            return self.native
        return get_policy(self.spec, seed=seed)

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "spec": self.spec}


class InProcess(Participant):
    """An SDK bot (``module:Class``) or a Python object acting as a policy."""

    kind = "inprocess"

    def __init__(self, target: Any, name: Optional[str] = None) -> None:
        self.spec: Optional[str] = None
        self.template: Any = None
        if isinstance(target, str):
            if ":" not in target:
                raise GuandanError(f"expected module:Class, got {target!r}")
            self.spec = target
            _load_class(target)                 # fail now, not in a worker
            self.name = name or target.rsplit(":", 1)[1]
        else:
            if not callable(target) and not hasattr(target, "act"):
                raise GuandanError(f"{target!r} is not a bot: it needs act(observation, legal_moves)")
            self.template = target
            self.name = name or getattr(target, "name", None) or type(target).__name__
            if isinstance(target, type):
                self.name = name or target.__name__

    def make(self, seed: int) -> Callable[..., Any]:
        if self.spec is not None:
            obj = _load_class(self.spec)()
        elif isinstance(self.template, type):
            obj = self.template()
        else:
            obj = copy.deepcopy(self.template)
        if not callable(obj):
            act = obj.act
            return lambda observation, legal_moves: act(observation, legal_moves)
        return obj

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "spec": self.spec}


def _load_class(spec: str) -> Any:
    return load_class(spec)             # the one module:Class rule (the current folder included)


ENGINE_KEYS = ("name", "cmd", "dir")


def _engine_words(word: str) -> List[str]:
    """One argument of ``--engine``: the several ``KEY=VALUE`` words it
    holds when it is the whole quoted spec (``'name=x cmd="python x.py"'``),
    else the word itself (``cmd=python x.py {url}``: one value)."""
    try:
        parts = shlex.split(word)
    except ValueError:
        return [word]
    if len(parts) > 1 and all(p.partition("=")[0] in ENGINE_KEYS and "=" in p for p in parts):
        return parts
    return [word]


class Engine(Participant):
    """An external program speaking the contest protocol. ``cmd`` is a
    command line; ``{url}`` in it is replaced by the WebSocket URL of the
    seat's table (``ws://127.0.0.1:PORT/game/LABEL``), ``{seat}`` by the
    seat number; without ``{url}`` the URL is appended as the last argument.
    ``dir`` is its working directory."""

    kind = "external"

    def __init__(self, name: str, cmd: Union[str, Sequence[str]], dir: Optional[str] = None,
                 env: Optional[Dict[str, str]] = None) -> None:
        if not name:
            raise GuandanError("an engine needs a name")
        self.name = name
        self.cmd = cmd if isinstance(cmd, str) else shlex.join(cmd)
        if not self.cmd.strip():
            raise GuandanError(f"engine {name}: empty command")
        self.dir = dir
        self.env = dict(env or {})

    def argv(self, url: str, seat: int) -> List[str]:
        words = shlex.split(self.cmd)
        if not any("{url}" in w for w in words):
            words.append("{url}")
        return [w.replace("{url}", url).replace("{seat}", str(seat)) for w in words]

    @classmethod
    def parse(cls, spec: Union[str, Sequence[str]]) -> "Engine":
        """An engine from ``name=NAME cmd=COMMAND [dir=DIR]`` (cutechess
        style): one string (``'name=mybot cmd="python mybot.py {url}"'``,
        split as a shell would) or the words a shell gives for
        ``name=mybot cmd="python mybot.py {url}"`` (a list, one ``KEY=VALUE``
        each, the value kept whole). A word that is itself several
        ``KEY=VALUE`` words (the quoted form, as one argument) is split."""
        words = shlex.split(spec) if isinstance(spec, str) else list(spec)
        kw: Dict[str, str] = {}
        for word in words:
            for part in _engine_words(word):
                k, eq, v = part.partition("=")
                if not eq or k not in ENGINE_KEYS:
                    raise GuandanError(f"--engine takes name=NAME cmd=COMMAND [dir=DIR], got {part!r}")
                kw[k] = v
        if "cmd" not in kw:
            shown = spec if isinstance(spec, str) else " ".join(words)
            raise GuandanError(f"--engine needs cmd=COMMAND, got {shown!r}")
        try:
            last = shlex.split(kw["cmd"])[-1:]
        except ValueError as e:
            raise GuandanError(f"--engine cmd={kw['cmd']!r}: {e}") from None
        return cls(kw.get("name") or (last[0] if last else ""), kw["cmd"], kw.get("dir"))

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "cmd": self.cmd}


def parse_participant(x: Any) -> Participant:
    """A participant from a built-in policy spec, ``module:Class``, a Bot or
    callable, or an :class:`Engine` / :class:`Participant` (returned as is)."""
    if isinstance(x, Participant):
        return x
    if isinstance(x, str):
        base, _, rest = x.partition(":")
        if base in policy_names() or (rest == "" and ":" not in x) or "=" in rest:
            return Builtin(x)
        return InProcess(x)
    return InProcess(x)


def parse_participants(items: Sequence[Any]) -> List[Participant]:
    """Participants with unique names (a repeated name gets ``#2``, ``#3``...);
    renamed ones are copies, so a given object is never changed."""
    res: List[Participant] = []
    seen: Dict[str, int] = {}
    for x in items:
        p = parse_participant(x)
        k = seen.get(p.name, 0) + 1
        seen[p.name] = k
        if k > 1:
            p = copy.copy(p)
            p.name = f"{p.name}#{k}"
        res.append(p)
    return res
