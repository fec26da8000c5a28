"""The one validator of what a web page sends (docs/web.md lists the kinds).

:func:`parse_message` turns one WebSocket frame into a clean ``dict`` with
the fields of its kind, or raises :class:`WebMessageError` (the server
answers ``{"type": "error", ...}`` and keeps the connection). Rules: a text
frame holding one JSON object; ``type`` one of :data:`KINDS`; each field of
the kind type-checked (ints by :func:`guandan._checks.check_int`, strings
and lists bounded); fields a kind does not define are ignored; a missing
optional field is ``None``. What the values mean (cards, moves, records) is
checked by the engine afterwards.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Tuple

from .._checks import check_int
from ..errors import GuandanError

__all__ = ["parse_message", "WebMessageError", "KINDS", "MAX_FRAME"]

MAX_FRAME = 1 << 20               # bytes of one frame (a record upload is the largest)
_SEED_MAX = (1 << 63) - 1


class WebMessageError(GuandanError):
    """A malformed message from a page."""


def _str(limit: int) -> Callable[[Any, str], Any]:
    def check(v: Any, name: str) -> str:
        if not isinstance(v, str) or not 0 < len(v) <= limit:
            raise WebMessageError(f"{name} must be a string of 1..{limit} characters")
        return v
    return check


def _int(lo: int, hi: int) -> Callable[[Any, str], Any]:
    return lambda v, name: check_int(v, name, lo, hi, WebMessageError)


def _bool(v: Any, name: str) -> bool:
    if not isinstance(v, bool):
        raise WebMessageError(f"{name} must be true or false")
    return v


def _cards(v: Any, name: str) -> list:
    if not isinstance(v, list) or len(v) > 27 or not all(
            isinstance(c, str) and 0 < len(c) <= 3 for c in v):
        raise WebMessageError(f"{name} must be a list of at most 27 cards (strings like \"S3\")")
    return list(v)


def _bots(v: Any, name: str) -> list:
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or len(v) not in (1, 3) or not all(
            isinstance(b, str) and 0 < len(b) <= 60 for b in v):
        raise WebMessageError(f"{name} must be a bot name or a list of three")
    return list(v)


def _record(v: Any, name: str) -> dict:
    if not isinstance(v, dict):
        raise WebMessageError(f"{name} must be a game record (a JSON object)")
    return v


_GAME = ("game", _str(20), False)
# kind -> (field, check, required)
KINDS: Dict[str, Tuple[Tuple[str, Callable[[Any, str], Any], bool], ...]] = {
    "hello": (),
    "list": (),
    "watch": (("table", _str(20), True), ("hands", _bool, False)),
    "unwatch": (),
    "new_game": (("bots", _bots, True), ("seat", _int(0, 3), False),
                 ("seed", _int(0, _SEED_MAX), False), ("practice", _bool, False)),
    "select": (("cards", _cards, True), _GAME),
    "play": (("cards", _cards, True), ("choice", _int(0, 63), False), _GAME),
    "pass": (_GAME,),
    "undo": (_GAME,),
    "next_round": (_GAME,),
    "hint": (("bot", _str(60), False), _GAME),
    "replay_open": (("name", _str(200), False), ("record", _record, False)),
    "replay_goto": (("step", _int(0, 10_000_000), True),),
}


def parse_message(raw: Any) -> Dict[str, Any]:
    """One frame from a page as ``{"type": KIND, field: value ...}``.

    >>> parse_message('{"type": "select", "cards": ["S3", "H3"], "colour": "red"}')
    {'type': 'select', 'cards': ['S3', 'H3'], 'game': None}
    >>> parse_message('{"type": "replay_goto", "step": -1}')
    Traceback (most recent call last):
    ...
    guandan.web.messages.WebMessageError: step must be an int 0..10000000, got -1
    """
    if not isinstance(raw, str):
        raise WebMessageError("messages are JSON text frames")
    if len(raw) > MAX_FRAME:
        raise WebMessageError(f"a message is at most {MAX_FRAME} bytes")
    try:
        msg = json.loads(raw)
    except (ValueError, RecursionError):
        raise WebMessageError("not JSON") from None
    if not isinstance(msg, dict):
        raise WebMessageError("a message is a JSON object")
    kind = msg.get("type")
    if not isinstance(kind, str) or kind not in KINDS:
        raise WebMessageError(f"unknown message type {str(kind)[:30]!r}; known: {', '.join(KINDS)}")
    out: Dict[str, Any] = {"type": kind}
    for name, check, required in KINDS[kind]:
        if name not in msg or msg[name] is None:
            if required:
                raise WebMessageError(f"a {kind} message needs {name!r}")
            out[name] = None
            continue
        out[name] = check(msg[name], name)
    if kind == "replay_open" and (out["name"] is None) == (out["record"] is None):
        raise WebMessageError("replay_open takes a record name or a record")
    return out
