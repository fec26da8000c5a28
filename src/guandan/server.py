"""A table server for the official Guandan AI-contest protocol
(``docs/protocol.md``): JSON over WebSocket, so bots written for the
contest platform (``guandan_offline_v1006``) play against this engine
unchanged.

    guandan serve --port 23456 --games 3 --bots 1=greedy,3=greedy

Every message sent is one the protocol defines (no extra fields, no other
messages). Robustness rules, for faulty or hostile clients:

*Seats.* Before the game, connections wait in connection order. A connection
that closes before the game starts frees its place (the next live connection
moves up), so dead connections neither keep a seat nor end an ``abort``
session. The game starts once the first N waiting connections (N = the seats
not taken by built-in bots) are open, the last of them connected at least
``start_delay`` (0.2 s) ago; they get those seats in connection order. Up to
``MAX_WAITING`` (16) more may wait in case one leaves; when the game starts
they, and any later connection, are refused (close code 1013 "table full"),
as are connections beyond that cap.

*Answers.* Anything a client sends out of turn, malformed or out of range is
logged and ignored (the server keeps waiting, as the reference server does);
binary frames are never answers (ignored, logged). A frame over ``max_frame``
bytes (64 KiB; answers are tiny) makes the WebSocket layer close the
connection with code 1009, and the seat counts as disconnected. Ignored frames
are logged with the reason (the first 20 of each connection, then every 1000th).

*Timeout.* A seat that does not answer within ``timeout`` seconds plays the
*default action*. Default 30 s: the contest protocol (docs/protocol.md) sets no limit (the reference server
waits forever, so one hung bot freezes its table); 30 s is far more than a
contest bot thinks per move yet bounds a hung one. ``0`` or ``None`` waits
forever. The default action is index 0 of its ``actionList`` (the pass when
following; otherwise the first listed move, the lowest-suited lowest single
when leading, or the first allowed tribute/return card). A seat that leaves ``max_misses`` (default 5)
questions in a row without any answer, not even a late one, is hung: it is
closed (code 1008) and counts as disconnected (``0``: never).

*Late answers.* The protocol has no request ids, so an answer that arrives
after its timeout would otherwise be taken as the answer to the seat's next
question. Rule: after a timeout the seat owes one stale answer. The first
answer it sends before its next question that would have been valid for the
timed-out question (``{"actIndex": N}``, N in its range) is that stale answer
and is discarded (logged); its next question is held until the stale
answer has arrived, or ``late_grace`` seconds (default: equal to ``timeout``)
have passed since the timeout, whichever comes first. After that the debt is
forgotten and answers count again (a seat that simply never answered is then
asked normally).

*Sending.* Every connection has its own writer task and a bounded outgoing
queue (``send_queue`` messages, default 1024), so a broadcast never waits for
a slow seat. A seat whose queue overflows, or one of whose messages cannot be
handed to the network within ``send_timeout`` seconds (default 10: the client
is not reading), is disconnected.

*Disconnects.* A seat that disconnects (or is disconnected by the rules
above) is played by the built-in greedy bot from then on
(``on_disconnect="bot"``), or the session ends: the other connections get
what was already queued and are closed without further messages (``"abort"``).

*Origin.* Browsers send the page's ``Origin`` with WebSocket connections; a
page on another site must not drive a local table. Accepted: no Origin (most
bots); ``ws://``/``wss://`` origins (ws4py sends the server's URL; never a
browser); loopback pages (``http(s)://127.0.0.1``, ``localhost``, ``[::1]``,
any port); ``http(s)://HOST[:PORT]`` equal to the request's ``Host`` when HOST
is an IP address (websocket-client's default; such a page could only come
from this server, and a DNS name could be rebound to us by a foreign page);
and the origins listed in ``origins`` (``"*"``: any). Others get HTTP 403.

*Records.* Each game's record (the engine's record format) is written to
``record_dir`` as it ends, atomically (a temporary file in the same folder,
then ``os.replace``): a record file is complete or absent. Only the last
``keep_records`` (default 10) stay in memory (``records``, returned by
``run``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import ipaddress
import random
from collections import deque
from http import HTTPStatus
from typing import Any, Callable, Deque, Dict, Iterable, List, Optional
from urllib.parse import urlsplit

from ._files import atomic_write
from .errors import GuandanError
from .game import Game
from .policies import native_code, parse_policy, policy_names
from .rules import Rules

__all__ = ["TableServer", "serve", "parse_bots", "origin_allowed", "DEFAULT_TIMEOUT"]

log = logging.getLogger("guandan.server")
_NULL = [None, None, None]

DEFAULT_TIMEOUT = 30.0          # seconds per decision (the platform has none: it waits forever)
_LOG_IGNORED = 20               # ignored frames logged per connection (then every 1000th)
MAX_WAITING = 16                # connections waiting before the start beyond the free seats
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_CLOSE = object()               # writer queue sentinel: flush, then close


def parse_bots(spec: Optional[str]) -> Dict[int, str]:
    """``"1=greedy,3=random"`` -> ``{1: "greedy", 3: "random"}`` (any built-in
    policy name of :mod:`guandan.policies`)."""
    out: Dict[int, str] = {}
    if not spec:
        return out
    for part in spec.split(","):
        try:
            seat_s, pol = part.split("=")
            seat = int(seat_s)
        except ValueError:
            raise GuandanError(f"--bots takes SEAT=POLICY,... (e.g. 1=greedy,3=random), got {part!r}") from None
        if seat not in range(4):
            raise GuandanError(f"bad bot {part!r}: seats are 0..3")
        try:
            native_code(parse_policy(pol)[0])
        except GuandanError:
            raise GuandanError(f"bad bot {part!r}: the built-in policies are "
                               f"{', '.join(policy_names())}") from None
        out[seat] = pol
    if len(out) == 4:
        raise GuandanError("all four seats are bots: nothing to serve")
    return out


def _norm_origin(origin: str) -> str:
    return origin.strip().rstrip("/").lower()


def _ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def origin_allowed(origin: str, host: Optional[str] = None, extra: Iterable[str] = ()) -> bool:
    """Whether a WebSocket handshake with this ``Origin`` header (and ``Host``
    header) is accepted; see the module docstring. ``extra``: more allowed
    origins (normalised, ``"*"`` for any)."""
    extra = [_norm_origin(o) for o in extra]
    if "*" in extra or _norm_origin(origin) in extra:
        return True
    try:
        u = urlsplit(origin.strip())
        hostname, _ = u.hostname, u.port        # .port raises on a bad port
    except ValueError:
        return False
    if u.scheme in ("ws", "wss"):
        return True             # not a browser: ws4py sends the server's URL
    if u.scheme not in ("http", "https") or not hostname or u.username or u.password \
            or u.path not in ("", "/") or u.query or u.fragment:
        return False
    if hostname in _LOOPBACK:
        return True             # a page on this machine's loopback interface
    # websocket-client sends http://HOST[:PORT] of the server it connects to; a
    # browser page can have that origin only if this server served it. Only
    # for IP literals: a DNS name could be rebound to us by a foreign page.
    return (host is not None and _ip_literal(hostname)
            and u.netloc.lower() == host.strip().lower())


class _Conn:
    """One accepted connection: its socket, its writer task and outgoing queue."""

    def __init__(self, ws: Any, label: str, queue_size: int) -> None:
        self.ws = ws
        self.label = label
        self.joined = asyncio.get_running_loop().time()
        self.seat: Optional[_Seat] = None
        self.queue: asyncio.Queue = asyncio.Queue(queue_size + 1)    # + the close sentinel
        self.writer: Optional[asyncio.Task] = None
        self.open = True
        self.ignored = 0

    def who(self) -> str:
        if self.seat is not None:
            return f"seat {self.seat.index} ({self.label})"
        return f"client {self.label!r} (not seated)"


class _Seat:
    def __init__(self, index: int, policy: Optional[str]) -> None:
        self.index = index
        self.policy = policy            # built-in policy name, or None for a client
        self.conn: Optional[_Conn] = None
        self.label = ""
        self.waiting: Optional[asyncio.Future] = None
        self.range = -1
        self.owed_until: Optional[float] = None    # a stale answer is owed until then
        self.owed_range = -1                       # indexRange of the question it answers
        self.misses = 0                            # questions in a row without any answer
        self.late: Optional[asyncio.Event] = None  # set when it has arrived (or the seat left)

    @property
    def ws(self) -> Any:
        return self.conn.ws if self.conn is not None else None


class TableServer:
    """The server. ``await TableServer(...).run()`` serves the whole session.

    ``timeout``: seconds a client may think (default 30; 0 or None: forever);
    ``late_grace``: how long a seat's next question waits for its late answer
    after a timeout (default: ``timeout``); ``send_timeout`` / ``send_queue``:
    a seat is disconnected when one message cannot be sent within this many
    seconds, or this many messages wait for it; ``max_frame``: the largest
    frame accepted (bytes); ``origins``: browser Origins accepted besides
    loopback pages (``"*"``: all); ``keep_records``: records kept in memory;
    ``max_misses``: a seat leaving this many questions in a row without any
    answer (not even late) is disconnected (default 5; 0: never).
    See the module docstring for the rules.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 23456, *, games: int = 1,
                 rules: Optional[Rules] = None, bots: Optional[Dict[int, str]] = None,
                 timeout: Optional[float] = DEFAULT_TIMEOUT, record_dir: Optional[str] = None,
                 on_disconnect: str = "bot", seed: Optional[int] = None,
                 start_delay: float = 0.2, late_grace: Optional[float] = None,
                 send_timeout: Optional[float] = 10.0, send_queue: int = 1024,
                 max_frame: int = 64 * 1024, origins: Optional[Iterable[str]] = None,
                 keep_records: int = 10, max_misses: int = 5) -> None:
        if on_disconnect not in ("bot", "abort"):
            raise GuandanError("on_disconnect must be 'bot' or 'abort'")
        if games < 1:
            raise GuandanError("games must be at least 1")
        for name, v in (("timeout", timeout), ("late_grace", late_grace),
                        ("send_timeout", send_timeout)):
            if v is not None and v < 0:
                raise GuandanError(f"{name} must be >= 0")
        if send_queue < 1 or max_frame < 1024 or keep_records < 0 or max_misses < 0:
            raise GuandanError("send_queue >= 1, max_frame >= 1024, keep_records >= 0, "
                               "max_misses >= 0")
        self.host = host
        self.port = port
        self.games = games
        self.rules = rules or Rules.contest()
        self.bots = dict(bots or {})
        self.timeout = timeout or None
        self.late_grace = late_grace if late_grace is not None else (self.timeout or 0.0)
        self.send_timeout = send_timeout or None
        self.send_queue = send_queue
        self.max_frame = max_frame
        self.max_misses = max_misses
        self._background: set = set()
        self.origins = [_norm_origin(o) for o in (origins or ()) if o.strip()]
        self.record_dir = record_dir
        self.on_disconnect = on_disconnect
        self.seed = seed if seed is not None else random.SystemRandom().getrandbits(62)
        self.start_delay = start_delay
        self.seats = [_Seat(i, self.bots.get(i)) for i in range(4)]
        self._free = [i for i in range(4) if i not in self.bots]
        self._pending: List[_Conn] = []     # connections waiting for the start, in order
        self._full: Optional[asyncio.Event] = None   # at least as many as free seats
        self._refused = 0
        self._started = False
        self._aborted = False
        self._done = False
        self.game: Optional[Game] = None
        self.records: Deque[Dict[str, Any]] = deque(maxlen=keep_records)
        self.games_played = 0
        self.bound_port: Optional[int] = None
        self.spectators: Any = None         # a guandan.feed.Spectators hub (publish_to)
        self.watch_id: Optional[str] = None

    # -- spectators ---------------------------------------------------------------
    def publish_to(self, spectators: Any, title: Optional[str] = None,
                   names: Optional[List[str]] = None) -> str:
        """Let ``spectators`` (a :class:`guandan.feed.Spectators` hub, e.g. the
        web table's) watch this table: it is told after every action. The
        seats are programs, so spectators may see the hands. ``names``: the
        four seats' names (default: bot policies and connection labels).
        Returns the table's id in the hub."""
        t = spectators.add(title or f"contest table :{self.port}", lambda: self.game,
                           (lambda: list(names)) if names else self._seat_names,
                           open_hands=True, kind="contest")
        self.spectators, self.watch_id = spectators, t.id
        return t.id

    def _seat_names(self) -> List[str]:
        return [s.policy if isinstance(s.policy, str) else
                (s.conn.label if s.conn is not None else ("bot" if s.policy else "(waiting)"))
                for s in self.seats]

    def _spectate(self) -> None:
        if self.spectators is not None:
            self.spectators.changed(self.watch_id)

    # -- connections --------------------------------------------------------------
    def _process_request(self, connection: Any, request: Any) -> Any:
        origins = request.headers.get_all("Origin")
        if not origins:
            return None                 # not a browser: most bots send no Origin
        host = request.headers.get("Host")
        if len(origins) == 1 and origin_allowed(origins[0], host, self.origins):
            return None
        self._refuse_log("connection to %.100r refused (HTTP 403): Origin %.200s is not allowed: "
                         "a web page from another site may not drive this table (a bot that "
                         "sends this Origin: start the server with --origin %.100s)",
                         request.path, ", ".join(map(repr, origins)), origins[0])
        return connection.respond(HTTPStatus.FORBIDDEN, "Origin not allowed\n")

    def _refuse_log(self, fmt: str, *args: Any) -> None:
        self._refused += 1
        n = self._refused
        if n <= _LOG_IGNORED or n % 1000 == 0:
            log.warning(fmt + (f" ({n} refused so far)" if n > _LOG_IGNORED else ""), *args)
        elif n == _LOG_IGNORED + 1:
            log.warning("%d connections refused; logging only every 1000th from now on", n)

    async def _handler(self, ws: Any) -> None:
        path = getattr(getattr(ws, "request", None), "path", "") or ""
        if not path.startswith("/game/"):
            self._refuse_log("connection to %.100r refused: the path is /game/{label}", path)
            await ws.close(1008, "path must be /game/{label}")
            return
        if self._started or self._done or len(self._pending) >= len(self._free) + MAX_WAITING:
            self._refuse_log("connection %.100r refused: the table is full", path)
            await ws.close(1013, "table full")
            return
        conn = _Conn(ws, path[len("/game/"):], self.send_queue)
        self._pending.append(conn)
        log.info("%s connected (%d waiting for %d client seats)", conn.label, len(self._pending),
                 len(self._free))
        if len(self._pending) >= len(self._free):
            self._full.set()
        try:
            async for raw in ws:
                self._on_message(conn, raw)
        except Exception:               # connection errors end the reader; reported below
            pass
        finally:
            conn.open = False
            why = self._close_reason(ws)
            if conn.seat is None:
                if conn in self._pending:
                    self._pending.remove(conn)
                    if len(self._pending) < len(self._free):
                        self._full.clear()
                    log.warning("%s left before the game started (%s): its place is free again",
                                conn.who(), why)
            elif conn.seat.conn is conn:
                self._on_disconnect(conn.seat, why)
            if conn.ignored > _LOG_IGNORED:
                log.info("%s: %d messages ignored in all", conn.who(), conn.ignored)
            if conn.writer is not None and not conn.writer.done():
                conn.writer.cancel()

    @staticmethod
    def _close_reason(ws: Any) -> str:
        proto = getattr(ws, "protocol", None)
        rcvd = getattr(proto, "close_rcvd", None)
        sent = getattr(proto, "close_sent", None)
        if sent is not None and (rcvd is None or not getattr(proto, "close_rcvd_then_sent", True)):
            return f"closed by the server with code {sent.code} ({sent.reason or 'no reason'})"
        if rcvd is not None:
            return f"the client closed with code {rcvd.code} ({rcvd.reason or 'no reason'})"
        return "connection lost without a close frame"

    def _ignore(self, conn: _Conn, why: str, raw: Any) -> None:
        conn.ignored += 1
        n = conn.ignored
        if n <= _LOG_IGNORED or n % 1000 == 0:
            log.warning("%s: %s, ignored: %.100r%s", conn.who(), why, raw,
                        f" ({n} ignored so far)" if n > _LOG_IGNORED else "")
        elif n == _LOG_IGNORED + 1:
            log.warning("%s: %d messages ignored; logging only every 1000th from now on",
                        conn.who(), n)

    def _on_message(self, conn: _Conn, raw: Any) -> None:
        if not isinstance(raw, str):
            self._ignore(conn, "binary frame (answers are JSON text frames)", raw)
            return
        seat = conn.seat
        if seat is None or seat.conn is not conn:
            self._ignore(conn, "message before the game started", raw)
            return
        asked = seat.waiting is not None and not seat.waiting.done()
        if not asked and seat.owed_until is None:
            self._ignore(conn, "message while not asked", raw)
            return
        try:
            msg = json.loads(raw)
        except (ValueError, TypeError, RecursionError):
            self._ignore(conn, "not JSON", raw)
            return
        idx = msg.get("actIndex") if isinstance(msg, dict) else None
        if not asked:
            if type(idx) is int and 0 <= idx <= seat.owed_range:
                seat.owed_until = None
                seat.misses = 0
                seat.late.set()
                log.warning("%s: late answer %.100r to the question that timed out, discarded",
                            conn.who(), raw)
            else:
                self._ignore(conn, "message while not asked", raw)
            return
        if type(idx) is not int or not 0 <= idx <= seat.range:
            self._ignore(conn, f"invalid answer (need {{\"actIndex\": 0..{seat.range}}}), still "
                         "waiting", raw)
            return
        seat.misses = 0
        seat.waiting.set_result(idx)

    def _on_disconnect(self, seat: _Seat, why: str = "") -> None:
        conn, seat.conn = seat.conn, None
        seat.late.set()
        if self._done:
            return
        log.warning("seat %d (%s) disconnected: %s", seat.index, conn.label if conn else "?", why)
        if self.on_disconnect == "abort":
            self._aborted = True
            if seat.waiting is not None and not seat.waiting.done():
                seat.waiting.set_result(-1)
            return
        seat.policy = "greedy"
        log.warning("seat %d is played by the greedy bot from now on", seat.index)
        if seat.waiting is not None and not seat.waiting.done():
            seat.waiting.set_result(self._bot_index(seat))

    def _drop(self, conn: _Conn, why: str, close: Optional[int] = None) -> None:
        """Disconnect a connection the server gives up on: at once (it is not
        reading), or with a close frame of code ``close`` sent in the background."""
        if not conn.open:
            return
        conn.open = False
        log.warning("%s: %s", conn.who(), why)
        if close is not None:
            if conn.writer is not None and not conn.writer.done():
                conn.writer.cancel()
            task = asyncio.ensure_future(self._close_conn(conn, close, why[:120]))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        else:
            transport = getattr(conn.ws, "transport", None)
            if transport is not None:
                transport.abort()
        if conn.seat is not None and conn.seat.conn is conn:
            self._on_disconnect(conn.seat, why)

    async def _close_conn(self, conn: _Conn, code: int, reason: str) -> None:
        try:
            await asyncio.wait_for(conn.ws.close(code, reason), 2.0)
        except Exception:
            transport = getattr(conn.ws, "transport", None)
            if transport is not None:
                transport.abort()

    async def _wait_for_players(self) -> None:
        """Until the first len(free seats) waiting connections are alive, the
        last of them start_delay old; then seat them, refuse the others."""
        from websockets.protocol import State

        loop = asyncio.get_running_loop()
        nfree = len(self._free)
        while True:
            await self._full.wait()
            for c in list(self._pending):
                if not c.open or c.ws.state is not State.OPEN:
                    c.open = False
                    self._pending.remove(c)
                    log.warning("%s left before the game started: its place is free again",
                                c.who())
            if len(self._pending) < nfree:
                self._full.clear()
                continue
            wait = self._pending[nfree - 1].joined + self.start_delay - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            break
        self._started = True
        seated, extra = self._pending[:nfree], self._pending[nfree:]
        self._pending = []
        for i, conn in zip(self._free, seated):
            seat = self.seats[i]
            seat.conn, seat.label, conn.seat = conn, conn.label, seat
            conn.writer = asyncio.ensure_future(self._writer(conn))
            log.info("seat %d: %s", i, conn.label)
        for conn in extra:
            self._refuse_log("%s refused: the table is full (the game starts)", conn.who())
            conn.writer = asyncio.ensure_future(conn.ws.close(1013, "table full"))

    # -- sending ----------------------------------------------------------------------
    async def _writer(self, conn: _Conn) -> None:
        from websockets.exceptions import ConnectionClosed

        ws = conn.ws
        while True:
            frame = await conn.queue.get()
            try:
                if frame is _CLOSE:
                    await asyncio.wait_for(ws.close(), self.send_timeout)
                    return
                await asyncio.wait_for(ws.send(frame), self.send_timeout)
            except asyncio.TimeoutError:
                self._drop(conn, f"a message could not be sent within {self.send_timeout:g}s "
                           "(the client is not reading): treated as disconnected")
                return
            except ConnectionClosed:
                return                  # the reader reports the disconnect
            except Exception as e:
                self._drop(conn, f"send failed ({e}): treated as disconnected")
                return

    def _enqueue(self, seat: _Seat, text: str) -> None:
        conn = seat.conn
        if conn is None or not conn.open:
            return
        if conn.queue.qsize() >= self.send_queue:
            self._drop(conn, f"{self.send_queue} messages waiting to be sent (the client is not "
                       "reading): treated as disconnected")
            return
        conn.queue.put_nowait(text)

    async def _send(self, seat: _Seat, msg: Dict[str, Any]) -> None:
        self._enqueue(seat, json.dumps(msg))
        await asyncio.sleep(0)          # let the writers run

    async def _broadcast(self, msg: Dict[str, Any]) -> None:
        self._spectate()
        text = json.dumps(msg)
        for s in self.seats:
            self._enqueue(s, text)
        await asyncio.sleep(0)

    async def _close_all(self) -> None:
        """Flush every queue, then close every connection (bounded in time)."""
        writers = []
        for s in self.seats:
            conn = s.conn
            if conn is not None and conn.open and conn.writer is not None:
                conn.queue.put_nowait(_CLOSE)
                writers.append(conn.writer)
        if not writers:
            return
        bound = 2 * (self.send_timeout or 10.0) + 1.0
        done, pending = await asyncio.wait(writers, timeout=bound)
        for s in self.seats:
            if s.conn is not None and s.conn.writer in pending:
                self._drop(s.conn, "not closed in time")

    # -- decisions --------------------------------------------------------------------
    def _bot_index(self, seat: _Seat) -> int:
        g = self.game
        assert g is not None
        return g.legal_moves(order="contest").index_of(g.choose(seat.policy or "greedy"))

    async def _decide(self, seat: _Seat, msg: Dict[str, Any], n: int) -> int:
        loop = asyncio.get_running_loop()
        if seat.owed_until is not None and seat.conn is not None and seat.policy is None:
            left = seat.owed_until - loop.time()
            if left > 0 and not seat.late.is_set():
                try:
                    await asyncio.wait_for(seat.late.wait(), left)
                except asyncio.TimeoutError:
                    log.info("seat %d: no late answer within the %.3gs grace period; asking "
                             "the next question", seat.index, self.late_grace)
            seat.owed_until = None
            if self._aborted:
                return 0
        if seat.policy is not None or seat.conn is None:
            if seat.policy is None:
                seat.policy = "greedy"
            return self._bot_index(seat)
        seat.range = n - 1
        seat.waiting = fut = loop.create_future()
        await self._send(seat, msg)
        try:
            if self.timeout:
                idx = await asyncio.wait_for(asyncio.shield(fut), self.timeout)
            else:
                idx = await fut
        except asyncio.TimeoutError:
            if fut.done() and not fut.cancelled():
                idx = fut.result()          # answered (or left) as the timer fired
            else:
                log.warning("seat %d: no answer within %.3gs, default action 0", seat.index,
                            self.timeout)
                idx = 0
                seat.misses += 1
                if seat.conn is not None and self.max_misses and seat.misses >= self.max_misses:
                    self._drop(seat.conn, f"{seat.misses} questions in a row without an answer "
                               "(not even late): treated as disconnected", close=1008)
                elif seat.conn is not None and self.late_grace > 0:
                    seat.owed_until = loop.time() + self.late_grace
                    seat.owed_range = n - 1
                    seat.late.clear()
        finally:
            if not fut.done():
                fut.cancel()
            seat.waiting = None
        if idx < 0:            # aborted
            return 0
        return idx

    # -- messages -----------------------------------------------------------------------
    def _public_info(self) -> List[Dict[str, Any]]:
        g = self.game
        areas: Dict[int, Any] = {}
        for s, m in g.trick:
            areas[s] = m.to_platform()
        return [{"rest": g.card_counts[i], "playArea": areas.get(i)} for i in range(4)]

    def _act(self, seat: int, stage: str, actions: List[Any]) -> Dict[str, Any]:
        g = self.game
        top = g.top
        if stage != "play" or top is None:
            cur_pos, cur_act, gr_pos, gr_act = -1, _NULL, -1, _NULL
        else:
            s, m = g.trick[-1]
            cur_pos, cur_act = s, m.to_platform()
            gr_pos, gr_act = top.seat, top.move.to_platform()
        team = seat & 1
        return {
            "type": "act", "stage": stage,
            "handCards": g.hands[seat].cards(g.level),
            "publicInfo": self._public_info(),
            "selfRank": g.team_levels[team], "oppoRank": g.team_levels[1 - team],
            "curRank": g.level,
            "curPos": cur_pos, "curAction": cur_act,
            "greaterPos": gr_pos, "greaterAction": gr_act,
            "actionList": actions,
            "indexRange": len(actions) - 1,
        }

    async def _round(self) -> None:
        g = self.game
        assert g is not None
        rnd = g.round_index
        for s in self.seats:
            team = s.index & 1
            lv = [x + 2 for x in g.team_level_indices]       # the protocol's rank numbers 2..14
            await self._send(s, {"type": "notify", "stage": "beginning",
                                 "handCards": g.hands[s.index].cards(g.level), "myPos": s.index,
                                 "selfRank": lv[team], "oppoRank": lv[1 - team],
                                 "curRank": g.level_index + 2})
        self._spectate()
        trib = g.tribute
        if trib.anti:
            pos = [p for p in trib.payers if g.hands[p].count("HR") > 0]
            await self._broadcast({"type": "notify", "stage": "anti-tribute", "antiNums": len(pos),
                                   "antiNum": len(pos), "antiPos": pos})
        elif g.phase == "tribute":
            await self._exchange("tribute")
            await self._exchange("back")
        while not self._aborted and not g.is_over and g.round_index == rnd:
            seat = self.seats[g.to_act]
            legal = g.legal_moves(order="contest")        # the platform's actionList order
            actions = legal.to_platform()
            top_before = g.top
            idx = await self._decide(seat, self._act(seat.index, "play", actions), len(actions))
            if self._aborted:
                return
            move = legal[idx]
            g.play(move)
            if move.is_pass:
                if top_before is None:
                    gr_pos, gr_act = -1, _NULL
                else:
                    gr_pos, gr_act = top_before.seat, top_before.move.to_platform()
            else:
                gr_pos, gr_act = seat.index, move.to_platform()
            await self._broadcast({"type": "notify", "stage": "play", "curPos": seat.index,
                                   "curAction": move.to_platform(), "greaterPos": gr_pos,
                                   "greaterAction": gr_act})
        if self._aborted:
            return
        order = g.last_round_order
        hands = g.round_end_hands
        rest = [[s, hands[s].cards(self._round_rank)] for s in order if len(hands[s])]
        await self._broadcast({"type": "notify", "stage": "episodeOver", "order": order,
                               "curRank": self._round_rank, "restCards": rest})

    async def _exchange(self, stage: str) -> None:
        g = self.game
        while not self._aborted and g.phase == stage:
            seat = self.seats[g.to_act]
            legal = g.legal_moves()
            actions = legal.to_platform()
            idx = await self._decide(seat, self._act(seat.index, stage, actions), len(actions))
            if self._aborted:
                return
            g.play(legal[idx])
        if self._aborted:
            return
        t = g.tribute
        if stage == "tribute":
            result = [[p, r, c] for p, r, c in zip(t.payers, t.receivers, t.paid)]
        else:
            result = [[r, p, c] for p, r, c in zip(t.payers, t.receivers, t.returned)]
        await self._broadcast({"type": "notify", "stage": stage, "result": result})

    # -- session ------------------------------------------------------------------------
    # what a session plays (the arena's tables, guandan.tables.Table, change them):
    # game i from game_factory(i) (None: a new game from rules and seed + i), to its
    # end (until="game") or for one round (until="round": a duplicate deal, won by
    # the banker's team)
    game_factory: Optional[Callable[[int], Game]] = None
    until = "game"

    async def _session(self) -> None:
        victory = [0, 0, 0, 0]
        draws = [0, 0, 0, 0]
        for gi in range(self.games):
            if self._aborted:
                break
            if self.game_factory is not None:
                self.game = self.game_factory(gi)
            else:
                self.game = Game(rules=self.rules, seed=(self.seed + gi) % (1 << 63))
            first = self.game.round_index
            while not self._aborted and not self.game.is_over and (
                    self.until == "game" or self.game.round_index == first):
                self._round_rank = self.game.level
                await self._round()
            if self._aborted:
                break
            w = self.game.winner
            if self.until == "round" and w is None and self.game.last_round_order:
                w = self.game.last_round_order[0] & 1       # the banker's team wins the deal
            for s in range(4):
                if w is None:
                    draws[s] += 1
                elif (s & 1) == w:
                    victory[s] += 1
            self._save_record(gi)
            await self._broadcast({"type": "notify", "stage": "gameOver", "curTimes": gi + 1,
                                   "settingTimes": self.games})
        if not self._aborted:
            await self._broadcast({"type": "notify", "stage": "gameResult", "victoryNum": victory,
                                   "draws": draws})

    def _save_record(self, gi: int) -> None:
        rec = self.game.record()
        self.games_played = gi + 1
        self.records.append(rec)
        if self.record_dir:
            path = os.path.join(self.record_dir, f"game_{gi + 1:03d}_seed_{rec['seed']}.json")
            try:
                os.makedirs(self.record_dir, exist_ok=True)
                with atomic_write(path, "w") as f:
                    json.dump(rec, f)
            except OSError as e:
                log.error("record of game %d not written to %s: %s", gi + 1, path, e)
            else:
                log.info("record written to %s", path)

    async def run(self) -> List[Dict[str, Any]]:
        """Serve until the last game is over (or the session is aborted); the
        last ``keep_records`` records."""
        try:
            from websockets.asyncio.server import serve as ws_serve
        except ImportError:
            raise GuandanError("the server needs websockets >= 13: pip install 'guandan[server]' "
                               "(from a clone of the repository: pip install '.[server]')") from None

        self._full = asyncio.Event()            # created in the running loop
        for seat in self.seats:
            seat.late = asyncio.Event()
        async with ws_serve(self._handler, self.host, self.port, ping_interval=None,
                            max_size=self.max_frame, process_request=self._process_request) \
                as server:
            sock = next(iter(server.sockets))
            self.bound_port = sock.getsockname()[1]
            log.warning("listening on ws://%s:%d/game/{label} (%d seats for clients, %d games)",
                        self.host, self.bound_port, len(self._free), self.games)
            try:
                await self._wait_for_players()
                await self._session()
            finally:
                self._done = True
                await self._close_all()
        return list(self.records)


def serve(host: str = "127.0.0.1", port: int = 23456, **kwargs: Any) -> List[Dict[str, Any]]:
    """Run a :class:`TableServer` to completion (blocking)."""
    return asyncio.run(TableServer(host, port, **kwargs).run())
