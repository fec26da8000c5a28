"""Several tables on one port, and the arena's table rules, on top of
:class:`guandan.server.TableServer` (whose file this module does not change).

``guandan serve --tables N`` runs a :class:`MultiTableServer`: one port, N
independent tables, each its own game(s). A connection to ``/game/{label}``
joins the first table that still has a free client seat -- tables fill in
order: the first four client connections (fewer with ``--bots``) play at
table 0, the next at table 1, and so on -- so an existing contest bot
connects exactly as to a single table, and every table follows all the rules
of the single-table server (late answers, timeouts, disconnects, records).
Table ``t`` deals from ``seed + t * games`` on (no two tables share a deal).
The server ends when every table has ended.

:class:`Table` adds the options the arena needs (all off by default, so a
``Table`` without them behaves as a ``TableServer``):

* ``seat_labels``: the label each client seat is reserved for; a connection
  with that label takes that seat whatever the connection order (the arena
  starts each program with its seat's URL), other labels are refused.
* ``game_factory(i)``: game ``i`` (default ``Game(rules, seed + i)``);
  ``until="round"``: each game ends after one round (a duplicate deal).
* forfeits: ``on_timeout="forfeit"``, ``on_invalid="forfeit"`` (an answer
  that is not ``{"actIndex": N}`` with N in range), ``on_disconnect=
  "forfeit"`` and ``game_time`` (a seat's thinking seconds in the whole
  session): the first fault ends the session, ``forfeit`` names the seat
  and the reason, the other connections are closed without further
  messages (as with ``on_disconnect="abort"``); :meth:`Table.abort` lets a
  supervisor end it the same way (a program that never connected ...).
* a seat of ``bots`` may hold a Python policy ``(observation, legal_moves)
  -> move``: it runs in a daemon thread under the same time limits.

This module was written while ``server.py`` was being hardened elsewhere;
its overrides of ``TableServer``'s private methods (``_handler``,
``_on_message``, ``_on_disconnect``, ``_wait_for_players``, ``_decide``,
``_session``) are the places to fold into ``server.py`` later.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import threading
import time
from http import HTTPStatus
from typing import Any, Callable, Dict, Iterable, List, Optional

from .errors import GuandanError
from .game import Game
from .moves import Move
from .server import _LOG_IGNORED, TableServer, origin_allowed, _norm_origin

__all__ = ["Table", "MultiTableServer", "serve_tables"]

log = logging.getLogger("guandan.server")


class Table(TableServer):
    """A :class:`TableServer` with the arena's options (module docstring)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 23456, *,
                 game_factory: Optional[Callable[[int], Game]] = None, until: str = "game",
                 seat_labels: Optional[Dict[int, str]] = None, on_timeout: str = "default",
                 on_invalid: str = "ignore", on_disconnect: str = "bot",
                 game_time: Optional[float] = None, **kwargs: Any) -> None:
        if on_disconnect not in ("bot", "abort", "forfeit"):
            raise GuandanError("on_disconnect must be 'bot', 'abort' or 'forfeit'")
        if on_timeout not in ("default", "forfeit") or on_invalid not in ("ignore", "forfeit"):
            raise GuandanError("on_timeout is 'default' or 'forfeit'; on_invalid 'ignore' or 'forfeit'")
        if until not in ("game", "round"):
            raise GuandanError("until must be 'game' or 'round'")
        bots = kwargs.pop("bots", None) or {}
        names = {s: (p if isinstance(p, str) else "greedy") for s, p in bots.items()}
        super().__init__(host, port, bots=names,
                         on_disconnect="abort" if on_disconnect == "forfeit" else on_disconnect,
                         **kwargs)
        for s, p in bots.items():               # Python policies sit in their seats
            self.seats[s].policy = p
            self.bots[s] = p
        self.forfeit_on_disconnect = on_disconnect == "forfeit"
        self.game_factory = game_factory
        self.until = until
        self.on_timeout = on_timeout
        self.on_invalid = on_invalid
        self.game_time = game_time or None
        self.seat_labels = {int(k): str(v) for k, v in (seat_labels or {}).items()}
        if self.seat_labels and sorted(self.seat_labels) != self._free:
            raise GuandanError("seat_labels must name every client seat (the seats without bots)")
        if len(set(self.seat_labels.values())) != len(self.seat_labels):
            raise GuandanError("seat labels must differ")
        self.forfeit: Optional[Dict[str, Any]] = None   # {"seat", "reason"} once a seat forfeits
        self.think = [0.0] * 4                           # seconds each seat took to answer

    # -- state for supervisors ----------------------------------------------------------
    def _prepare(self) -> None:
        """Create the asyncio events (in the running loop) before any connection."""
        if self._full is None:
            self._full = asyncio.Event()
            for seat in self.seats:
                seat.late = asyncio.Event()

    @property
    def started(self) -> bool:
        return self._started

    @property
    def done(self) -> bool:
        return self._done

    def connected(self, seat: int) -> bool:
        """A client holds (or, before the start, waits for) ``seat``."""
        s = self.seats[seat]
        if s.conn is not None:
            return True
        label = self.seat_labels.get(seat)
        return label is not None and any(c.open and c.label == label for c in self._pending)

    def accepts(self, label: str) -> bool:
        """Whether a new connection with ``label`` would get a seat here."""
        if self._started or self._done or self._aborted:
            return False
        if self.seat_labels:
            return label in self.seat_labels.values() and not any(
                c.open and c.label == label for c in self._pending)
        return len(self._pending) < len(self._free)

    def _forfeit(self, seat: int, reason: str) -> None:
        if self.forfeit is None and not self._done:
            self.forfeit = {"seat": seat, "reason": reason}
            log.warning("seat %d forfeits: %s", seat, reason)
        self._aborted = True
        for s in self.seats:
            if s.waiting is not None and not s.waiting.done():
                s.waiting.set_result(-1)
        if self._full is not None:
            self._full.set()               # a table still waiting for players stops waiting

    def abort(self, seat: int, reason: str) -> None:
        """End the session now, ``seat`` forfeiting for ``reason``."""
        self._forfeit(seat, reason)

    # -- connections ------------------------------------------------------------------
    async def _handler(self, ws: Any) -> None:
        path = getattr(getattr(ws, "request", None), "path", "") or ""
        if self.seat_labels and path.startswith("/game/") and not self.accepts(path[len("/game/"):]):
            self._refuse_log("connection %.100r refused: no free seat has this label", path)
            await ws.close(1013, "table full")
            return
        await super()._handler(ws)

    def _on_message(self, conn: Any, raw: Any) -> None:
        seat = conn.seat
        if (self.on_invalid == "forfeit" and isinstance(raw, str) and seat is not None
                and seat.conn is conn and seat.waiting is not None and not seat.waiting.done()):
            try:
                msg = json.loads(raw)
            except (ValueError, TypeError, RecursionError):
                msg = None
            idx = msg.get("actIndex") if isinstance(msg, dict) else None
            if type(idx) is not int or not 0 <= idx <= seat.range:
                self._forfeit(seat.index, f"invalid answer {raw!r:.80} (need "
                              f"{{\"actIndex\": 0..{seat.range}}})")
                return
        super()._on_message(conn, raw)

    def _on_disconnect(self, seat: Any, why: str = "") -> None:
        if not self.forfeit_on_disconnect:
            super()._on_disconnect(seat, why)
            return
        conn, seat.conn = seat.conn, None
        seat.late.set()
        if not self._done:
            log.warning("seat %d (%s) disconnected: %s", seat.index, conn.label if conn else "?",
                        why)
            self._forfeit(seat.index, f"disconnected: {why}")

    async def _wait_for_players(self) -> None:
        if not self.seat_labels:
            await self._wait_or_abort(super()._wait_for_players())
            return
        from websockets.protocol import State

        loop = asyncio.get_running_loop()
        want = set(self.seat_labels.values())
        while True:
            await self._full.wait()
            if self._aborted:
                return
            for c in list(self._pending):
                if not c.open or c.ws.state is not State.OPEN:
                    c.open = False
                    self._pending.remove(c)
            have = {c.label for c in self._pending}
            if not want <= have:
                self._full.clear()
                continue
            wait = max(c.joined for c in self._pending) + self.start_delay - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            break
        self._started = True
        by_label = {c.label: c for c in self._pending}
        self._pending = []
        for i in self._free:
            conn = by_label[self.seat_labels[i]]
            seat = self.seats[i]
            seat.conn, seat.label, conn.seat = conn, conn.label, seat
            conn.writer = asyncio.ensure_future(self._writer(conn))
            log.info("seat %d: %s", i, conn.label)

    async def _wait_or_abort(self, waiting: Any) -> None:
        """The base class's wait for players, ended early by :meth:`abort`."""
        task = asyncio.ensure_future(waiting)
        while not task.done():
            await asyncio.wait([task], timeout=0.05)
            if self._aborted and not task.done():
                task.cancel()
                try:
                    await task
                except (asyncio.CancelledError, Exception):
                    pass
                return
        task.result()

    # -- decisions ------------------------------------------------------------------------
    def _limit(self, seat: Any) -> Optional[float]:
        lim = self.timeout
        if self.game_time:
            left = max(0.0, self.game_time - self.think[seat.index])
            lim = left if lim is None else min(lim, left)
        return lim

    async def _decide(self, seat: Any, msg: Dict[str, Any], n: int) -> int:
        if self._aborted:
            return -1
        if seat.policy is not None and not isinstance(seat.policy, str):
            return await self._python_bot(seat)
        if seat.policy is not None or seat.conn is None or (
                self.on_timeout != "forfeit" and not self.game_time):
            return await super()._decide(seat, msg, n)
        # the arena's rule: no answer in time forfeits (so no late answer can follow)
        loop = asyncio.get_running_loop()
        limit = self._limit(seat)
        seat.range = n - 1
        seat.waiting = fut = loop.create_future()
        await self._send(seat, msg)
        t0 = loop.time()
        try:
            idx = await (asyncio.wait_for(asyncio.shield(fut), limit) if limit is not None else fut)
        except asyncio.TimeoutError:
            if fut.done() and not fut.cancelled():
                idx = fut.result()
            else:
                what = (f"no answer within {limit:.3g}s" if limit == self.timeout else
                        f"{self.game_time:g}s of thinking in the game used up")
                self._forfeit(seat.index, f"timeout: {what}")
                idx = -1
        finally:
            if not fut.done():
                fut.cancel()
            seat.waiting = None
            self.think[seat.index] += loop.time() - t0
        return idx

    async def _python_bot(self, seat: Any) -> int:
        """A Python policy's answer, computed in a daemon thread (one that never
        returns cannot block the table) under the same limits."""
        g = self.game
        loop = asyncio.get_running_loop()
        obs, legal = g.observation(seat.index), g.legal_moves()
        fut = loop.create_future()
        policy = seat.policy

        def work() -> None:
            try:
                r: Any = ("ok", policy(obs, legal))
            except BaseException as e:          # reported as a forfeit below
                r = ("error", e)
            loop.call_soon_threadsafe(lambda: fut.done() or fut.set_result(r))

        t0 = time.monotonic()
        threading.Thread(target=work, daemon=True, name=f"guandan-seat-{seat.index}").start()
        limit = self._limit(seat)
        try:
            kind, val = await asyncio.wait_for(asyncio.shield(fut), limit)
        except asyncio.TimeoutError:
            self.think[seat.index] += time.monotonic() - t0
            self._forfeit(seat.index, f"timeout: no answer within {limit:.3g}s")
            return -1
        self.think[seat.index] += time.monotonic() - t0
        if kind == "error":
            self._forfeit(seat.index, f"crash: {type(val).__name__}: {str(val)[:200]}")
            return -1
        try:
            if isinstance(val, bool):
                raise GuandanError("a bool is not a move")
            if isinstance(val, int):
                if not 0 <= val < len(legal):
                    raise GuandanError(f"index {val} outside 0..{len(legal) - 1}")
                return val
            m = val if isinstance(val, Move) else Move.from_platform(val, g.level)
            i = legal.index_of(m)
            if i < 0:
                raise GuandanError(f"{m} is not a legal move now")
            return i
        except (GuandanError, TypeError, ValueError, IndexError, KeyError) as e:
            self._forfeit(seat.index, f"illegal move: {str(e)[:200]}")
            return -1

    async def serve_table(self) -> List[Dict[str, Any]]:
        """Play this table's session on the connections its :meth:`_handler`
        receives (from :meth:`run`'s listener or a :class:`MultiTableServer`)."""
        self._prepare()
        try:
            await self._wait_for_players()
            if not self._aborted:
                await self._session()
        finally:
            self._done = True
            await self._close_all()
            for c in list(self._pending):          # connections still waiting: closed
                if c.open:
                    try:
                        await asyncio.wait_for(c.ws.close(1013, "table closed"), 2)
                    except Exception:
                        pass
            self._pending = []
        return list(self.records)

    async def run(self) -> List[Dict[str, Any]]:
        srv = MultiTableServer(self.host, self.port, tables=0, max_frame=self.max_frame)
        srv.add_table(self)
        await srv.start()
        try:
            return await self.serve_table()
        finally:
            await srv.stop()


class MultiTableServer:
    """Several tables on one port (module docstring). ``tables`` tables are
    made with ``table_kwargs`` (:class:`Table` / :class:`TableServer`
    options); ``await run()`` serves until every table has ended and returns
    each table's records. A supervisor that opens tables as it goes (the
    arena): ``tables=0``, ``await start()``, :meth:`add_table`, ``await
    table.serve_table()``, :meth:`remove_table`, ``await stop()``."""

    def __init__(self, host: str = "127.0.0.1", port: int = 23456, *, tables: int = 1,
                 seed: Optional[int] = None, origins: Optional[Iterable[str]] = None,
                 max_frame: int = 64 * 1024, **table_kwargs: Any) -> None:
        if tables < 0:
            raise GuandanError("tables must be >= 0")
        self.host = host
        self.port = port
        self.max_frame = max_frame
        self.origins = [_norm_origin(o) for o in (origins or ()) if o.strip()]
        base = seed if seed is not None else random.SystemRandom().getrandbits(62)
        games = int(table_kwargs.get("games", 1))
        self.tables: List[Table] = [
            Table(host, port, seed=(base + t * games) % (1 << 63), origins=origins,
                  max_frame=max_frame, **table_kwargs) for t in range(tables)]
        self._server: Any = None
        self.bound_port: Optional[int] = None
        self._refused = 0

    def add_table(self, table: Table) -> Table:
        table._prepare()
        self.tables.append(table)
        if self.bound_port is not None:
            table.bound_port = self.bound_port
        return table

    def remove_table(self, table: Table) -> None:
        if table in self.tables:
            self.tables.remove(table)

    def _route(self, label: str) -> Optional[Table]:
        for t in self.tables:                       # a label reserved by a table
            if t.seat_labels and t.accepts(label):
                return t
        for t in self.tables:                       # table by table, in connection order
            if not t.seat_labels and t.accepts(label):
                return t
        for t in self.tables:                       # every seat taken: wait at the first open
            if not t.seat_labels and not t.started and not t.done:
                return t
        return None

    def _process_request(self, connection: Any, request: Any) -> Any:
        origins = request.headers.get_all("Origin")
        if not origins or (len(origins) == 1 and origin_allowed(
                origins[0], request.headers.get("Host"), self.origins)):
            return None
        log.warning("connection to %.100r refused (HTTP 403): Origin %.200s is not allowed",
                    request.path, ", ".join(map(repr, origins)))
        return connection.respond(HTTPStatus.FORBIDDEN, "Origin not allowed\n")

    async def _handler(self, ws: Any) -> None:
        path = getattr(getattr(ws, "request", None), "path", "") or ""
        if not path.startswith("/game/"):
            await ws.close(1008, "path must be /game/{label}")
            return
        table = self._route(path[len("/game/"):])
        if table is None:
            self._refused += 1
            if self._refused <= _LOG_IGNORED or self._refused % 1000 == 0:
                log.warning("connection %.100r refused: every table is full", path)
            await ws.close(1013, "table full")
            return
        await table._handler(ws)

    async def start(self) -> None:
        try:
            from websockets.asyncio.server import serve as ws_serve
        except ImportError:
            raise GuandanError("the server needs websockets >= 13: pip install 'guandan[server]'") from None
        for t in self.tables:
            t._prepare()
        self._server = await ws_serve(self._handler, self.host, self.port, ping_interval=None,
                                      max_size=self.max_frame,
                                      process_request=self._process_request)
        self.bound_port = next(iter(self._server.sockets)).getsockname()[1]
        for t in self.tables:
            t.bound_port = self.bound_port

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def run(self) -> List[List[Dict[str, Any]]]:
        """Serve every table to its end; the records of each table."""
        await self.start()
        log.warning("listening on ws://%s:%d/game/{label}: %d tables", self.host,
                    self.bound_port, len(self.tables))
        try:
            return list(await asyncio.gather(*(t.serve_table() for t in self.tables)))
        finally:
            await self.stop()


def serve_tables(host: str = "127.0.0.1", port: int = 23456, *, tables: int = 2,
                 **kwargs: Any) -> List[List[Dict[str, Any]]]:
    """Run a :class:`MultiTableServer` to completion (blocking)."""
    return asyncio.run(MultiTableServer(host, port, tables=tables, **kwargs).run())
