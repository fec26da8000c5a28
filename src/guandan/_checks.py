"""Validators for plain values that come from outside (function arguments,
position strings, records, network messages) before they reach native code.

Every public entry point that takes a seat, a count or an index calls
:func:`check_int`, so no value is ever silently wrapped into a native
``int8``/``int16`` field or raises a non-:class:`GuandanError` exception.

>>> check_int(3, "seat", 0, 3)
3
>>> check_int(7, "seat", 0, 3)
Traceback (most recent call last):
...
guandan.errors.GuandanError: seat must be an int 0..3, got 7
"""

from __future__ import annotations

import operator
from typing import Any, Type

from .errors import GuandanError

__all__ = ["check_int", "parse_int"]


def check_int(value: Any, name: str, lo: int, hi: int, error: Type[GuandanError] = GuandanError) -> int:
    """``value`` as an ``int`` in ``lo..hi`` (ints and numpy integers only:
    no bools, floats or strings), else ``error`` naming ``name``."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        raise error(f"{name} must be an int {lo}..{hi}, got {value!r}")
    try:
        v = operator.index(value)
    except TypeError:
        raise error(f"{name} must be an int {lo}..{hi}, got {type(value).__name__} {value!r:.60}") from None
    if not lo <= v <= hi:
        raise error(f"{name} must be an int {lo}..{hi}, got {v}")
    return v


def parse_int(text: Any, name: str, lo: int, hi: int, error: Type[GuandanError] = GuandanError) -> int:
    """A decimal integer field of a text format (position strings), in ``lo..hi``."""
    if not isinstance(text, str) or not text.isascii() or not text.lstrip("-").isdigit() or len(text) > 12:
        raise error(f"{name} must be an integer {lo}..{hi}, got {str(text)[:40]!r}")
    return check_int(int(text), name, lo, hi, error)
