"""Spectator feeds: live tables tell their watchers when they change.

A :class:`Spectators` hub holds the tables that may be watched (the contest
table server's tables, the web table's own bot tables and games with people
playing) and the listeners (the web table). A table calls
:meth:`Spectators.changed` after every action, from any thread; each
listener's callback then runs in the listener's own event loop with the
table's id, and the listener reads the table's :class:`~guandan.Game`
(public API) to show it.

Whether a spectator may see the hands is the table's ``open_hands``: true for
tables of programs (bots), false for tables with people playing. The web
table enforces it when it builds what it sends (:mod:`guandan.web.views`).

>>> hub = Spectators()
>>> t = hub.add("demo", lambda: None, lambda: ["a", "b", "c", "d"], open_hands=True)
>>> [x.title for x in hub.tables()], hub.get(t.id) is t
(['demo'], True)
>>> hub.remove(t.id); hub.tables()
[]
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

__all__ = ["Spectators", "WatchedTable"]


@dataclass
class WatchedTable:
    """One watchable table: ``game()`` returns its current Game (or None
    before the first deal), ``names()`` the four seats' names."""

    id: str
    title: str
    game: Callable[[], Any]
    names: Callable[[], List[str]]
    open_hands: bool
    kind: str = "bots"
    status: str = "live"
    extra: Dict[str, Any] = field(default_factory=dict)


class Spectators:
    """The hub of watchable tables and their listeners (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tables: Dict[str, WatchedTable] = {}
        self._listeners: Dict[int, Tuple[asyncio.AbstractEventLoop, Callable[[str], None]]] = {}
        self._ids = itertools.count(1)
        self._tokens = itertools.count(1)

    def add(self, title: str, game: Callable[[], Any], names: Callable[[], List[str]], *,
            open_hands: bool, kind: str = "bots") -> WatchedTable:
        with self._lock:
            t = WatchedTable(f"t{next(self._ids)}", title, game, names, open_hands, kind)
            self._tables[t.id] = t
        self.changed(t.id)
        return t

    def remove(self, table_id: str) -> None:
        with self._lock:
            self._tables.pop(table_id, None)
        self.changed(table_id)

    def get(self, table_id: str) -> Optional[WatchedTable]:
        with self._lock:
            return self._tables.get(table_id)

    def tables(self) -> List[WatchedTable]:
        with self._lock:
            return list(self._tables.values())

    def listen(self, loop: asyncio.AbstractEventLoop, callback: Callable[[str], None]) -> int:
        """``callback(table_id)`` runs in ``loop`` after each change; returns a token."""
        with self._lock:
            token = next(self._tokens)
            self._listeners[token] = (loop, callback)
            return token

    def unlisten(self, token: int) -> None:
        with self._lock:
            self._listeners.pop(token, None)

    def changed(self, table_id: str) -> None:
        """A table changed (any thread)."""
        with self._lock:
            listeners = list(self._listeners.values())
        for loop, cb in listeners:
            try:
                loop.call_soon_threadsafe(cb, table_id)
            except RuntimeError:          # that loop is closed
                pass
