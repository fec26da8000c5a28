"""The web table's server: the page (``static/``) over plain HTTP and its
WebSocket (``/ws``) on the same port, with the ``websockets`` library.

One :class:`WebApp` serves any number of pages. Each connection is a
:class:`_Client`: it may watch one table, own one game against the bots
(only that connection may act in it) and step one replay. Every frame is
read by :func:`guandan.web.messages.parse_message`; a bad one is answered
with ``{"type": "error"}`` and the connection stays open. The message kinds
are in docs/web.md.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import functools
import hashlib
import json
import logging
import os
import re
import threading
import time
from http import HTTPStatus
from importlib import resources
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .._aio import within
from ..errors import GuandanError
from ..feed import Spectators
from ..records import read_record_file
from ..rules import Rules
from ..server import origin_allowed
from ..server.connections import Bucket, bounded_connection
from .page import INDEX_HTML
from .messages import MAX_FRAME, WebMessageError, parse_message
from .session import DEFAULT_BOTS, BotTable, PlaySession, Replay, ReplayBuilder, check_bot, hint, refusal_words
from .views import move_view, table_view

__all__ = ["WebApp", "serve_web", "run_with_tables"]

log = logging.getLogger("guandan.web")

_STATIC = {"/": (None, "text/html; charset=utf-8"),
           "/index.html": (None, "text/html; charset=utf-8"),
           "/app.js": ("app.js", "text/javascript; charset=utf-8"),
           "/style.css": ("style.css", "text/css; charset=utf-8"),
           "/favicon.svg": ("favicon.svg", "image/svg+xml")}
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}(/[A-Za-z0-9_.-]{1,100}){0,3}$")
_MAX_LISTED = 500                  # record names offered
_MAX_SCANNED = 20_000              # folder entries looked at for them (one listing)
_LIST_TTL = 2.0                    # seconds one listing of the records folder is reused
_MAX_RECORD_FILE = 16 << 20        # bytes of a record file the page may replay
_MAX_KEPT = 20                     # finished contest games kept in memory for replay
#: per page: uploads it keeps, messages and bytes queued for it before it is
#: dropped, seconds one message may take to go out, frames a second it may send
MAX_UPLOADS = 4
MAX_QUEUE = 256
MAX_QUEUE_BYTES = 2 << 20
SEND_TIMEOUT = 10.0
RATE, RATE_BURST = 20.0, 60
#: bytes a second a page may send (bursts: one largest frame and as much again)
BYTE_RATE, BYTE_BURST = 1 << 20, 2 << 20
#: the bytes of every page's frames together, a second and in bursts
#: (decoding a frame holds the event loop: about 45 ms a MiB)
ALL_RATE, ALL_BURST = 2 << 20, 8 << 20
#: frames over those limits a page may send before it is closed (code 1008)
FLOOD_RATE, FLOOD_BURST = 2 * RATE, 4 * RATE_BURST
#: pages connected at once (more are answered 503)
MAX_CLIENTS = 64
#: the pages' heavy work (records opened, replay jumps, the folder's
#: listing) runs one job at a time in one worker thread, pages in turn, and
#: takes at most WORK_SHARE of the time (its thread's CPU seconds, lent
#: WORK_BURST at once): pure Python work there holds the interpreter lock
#: the event loop needs, so without the share eight pages jumping a replay
#: back and forth took a contest table from 341 to 26 decisions a second
WORK_SHARE, WORK_BURST = 0.05, 1.0
#: records being opened at once (each a half-built replay in memory, up to
#: MAX_REPLAY_ACTIONS actions); more wait their turn
MAX_OPENING = 4
#: replay steps one job takes at most (about 10 µs each in a jump, 25 µs
#: opening a record): a long jump, and the opening of a long record, are
#: several jobs, each waiting its turn
JUMP_STEPS = 2000


@functools.lru_cache(maxsize=None)
def _static(name: Optional[str]) -> bytes:
    """A file of the page (None: the HTML document itself, ``page.INDEX_HTML``);
    only the names of ``_STATIC`` are ever asked for (read once)."""
    if name is None:
        return INDEX_HTML.encode("utf-8")
    return resources.files("guandan.web").joinpath("static").joinpath(name).read_bytes()


class _Client:
    """One page's connection: what it watches, plays and replays, and its
    bounded outbox (:meth:`send`; a page that does not read is dropped)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.queue: asyncio.Queue = asyncio.Queue()
        self.queued = 0                      # bytes waiting in the queue
        self.watching: Optional[str] = None
        self.watch_hands = False
        self.play: Optional[PlaySession] = None
        self.play_id: Optional[str] = None
        self.bots_task: Optional[asyncio.Task] = None
        self.replay: Optional[Replay] = None
        self.uploads: Dict[str, Dict[str, Any]] = {}   # this page's own records
        self.gone = False
        self.warned = 0.0
        self.frames = Bucket(RATE, RATE_BURST)
        self.bytes = Bucket(BYTE_RATE, BYTE_BURST)
        self.flood = Bucket(FLOOD_RATE, FLOOD_BURST)   # frames not taken, before a disconnect

    def send(self, msg: Any) -> None:
        """Queue one message (a dict, or its JSON text already encoded)."""
        if self.gone:
            return
        text = msg if isinstance(msg, str) else _encode(msg)
        if self.queue.qsize() >= MAX_QUEUE or self.queued + len(text) > MAX_QUEUE_BYTES:
            self.drop()                      # the page does not read
            return
        self.queued += len(text)
        self.queue.put_nowait(text)

    def here(self) -> bool:
        """Whether the page is still connected (its socket open, not dropped)."""
        state = getattr(self.ws, "state", None)
        return not self.gone and getattr(state, "name", "OPEN") == "OPEN"

    def drop(self) -> None:
        if not self.gone:
            self.gone = True
            self.queue.put_nowait(None)


def _game_of(table: Any) -> Any:
    return table.game


def _encode(msg: Dict[str, Any]) -> str:
    return json.dumps(msg, separators=(",", ":"))


class WebApp:
    """The web table. ``records``: a folder of game records offered for
    replay (``guandan serve --record``, ``arena --records`` output);
    ``bots``: the bot specs the page may choose; ``watch``: bot-vs-bot
    tables to start (each a list of four specs or one); ``watch_delay`` /
    ``bot_delay``: seconds between two actions of a watched table / of the
    bots in a game against a person; ``spectators``: a hub shared with
    table servers (:meth:`guandan.server.TableServer.publish_to`).

    ``program_hands``: spectators of contest tables (``serve --web``,
    ``arena --web``: the seats are external programs) may ask for every
    hand. Off by default: a program at the table could watch the page and
    read its opponents' cards, so those hands stay hidden until the round
    ends. The built-in bot tables (``watch``) always show them.

    What each viewer gets is in docs/web.md ("What each viewer can see");
    every page's resources are bounded (:data:`MAX_CLIENTS`,
    :data:`MAX_QUEUE_BYTES`, :data:`RATE`), and the work a frame can ask for
    (a record to read and replay, a jump, the records folder's listing) runs
    in a worker thread, never in the event loop that the contest tables of
    ``serve --web`` share."""

    def __init__(self, host: str = "127.0.0.1", port: int = 8765, *,
                 records: Optional[str] = None, bots: Sequence[str] = DEFAULT_BOTS,
                 watch: Sequence[Sequence[str]] = (), watch_delay: float = 0.8,
                 bot_delay: float = 0.6, seed: int = 0, rules: Optional[Rules] = None,
                 spectators: Optional[Spectators] = None, origins: Sequence[str] = (),
                 program_hands: bool = False, max_clients: int = MAX_CLIENTS) -> None:
        self.host = host
        self.port = port
        self.records_dir = os.path.realpath(records) if records else None
        if self.records_dir is not None and not os.path.isdir(self.records_dir):
            raise GuandanError(f"--records {records}: not a folder")
        self.bots = [check_bot(b) for b in bots]
        self.rules = rules
        self.seed = seed
        self.watch_delay = watch_delay
        self.bot_delay = bot_delay
        self.origins = list(origins)
        self.program_hands = program_hands
        self.max_clients = max_clients
        self.spectators = spectators or Spectators()
        self.bot_tables = [BotTable(w, seed=(seed + 1000 * i) % (1 << 63), rules=rules)
                           for i, w in enumerate(watch)]
        self._bot_table_ids: Dict[str, BotTable] = {}
        self._contest: Dict[str, Any] = {}        # table id -> its contest Table (run_with_tables)
        self._kept: Dict[str, Dict[str, Any]] = {}   # finished contest games' records, by name
        self._all = Bucket(ALL_RATE, ALL_BURST)     # every page's frames' bytes together
        self._kept_games: Dict[str, Any] = {}     # table id -> the last Game kept
        self.clients: List[_Client] = []
        self.bound_port: Optional[int] = None
        self._server: Any = None
        self._tasks: List[asyncio.Task] = []
        self._dirty: set = set()
        self._seen: set = set()               # table ids the pages' lists already hold
        self._flush: Optional[asyncio.TimerHandle] = None
        self._token: Optional[int] = None
        self._pool = cf.ThreadPoolExecutor(max_workers=2, thread_name_prefix="guandan-web-bot")
        # a page's heavy work (records read and replayed, jumps, the folder's
        # listing): one job at a time, in turn, within WORK_SHARE
        self._work = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="guandan-web-work")
        self._work_turn: Optional[asyncio.Lock] = None      # made in start(), in the serving loop
        self._opening: Optional[asyncio.Semaphore] = None
        self._closing: Optional[asyncio.Event] = None
        self._work_time = Bucket(WORK_SHARE, WORK_BURST)
        self._listing: List[str] = []
        self._listed_at = -1e9
        self._listing_task: Optional[asyncio.Future] = None
        self._relist_after = False            # a page asked while a walk was under way
        self._loop: Optional[asyncio.AbstractEventLoop] = None

    # -- lifecycle ------------------------------------------------------------------
    async def start(self) -> None:
        try:
            from websockets.asyncio.server import serve as ws_serve
        except ImportError:
            raise GuandanError("the web table needs websockets >= 13: pip install '.[server]' in the "
                               "guandan folder") from None
        self._loop = asyncio.get_running_loop()
        self._work_turn = asyncio.Lock()
        self._opening = asyncio.Semaphore(MAX_OPENING)
        self._closing = asyncio.Event()
        self._token = self.spectators.listen(self._loop, self._changed)
        # incoming: a frame of at most MAX_FRAME, two waiting (then the socket
        # is not read: TCP holds the rest); no compression (its buffers are
        # per connection and a compressed frame costs more to read than to send)
        self._server = await ws_serve(self._handler, self.host, self.port, max_size=MAX_FRAME,
                                      max_queue=2, compression=None,
                                      process_request=self._process_request,
                                      create_connection=bounded_connection())
        await self._first_listing()
        self.bound_port = next(iter(self._server.sockets)).getsockname()[1]
        for i, bt in enumerate(self.bot_tables):
            t = self.spectators.add(f"bots {i + 1}: {', '.join(bt.bots)}", functools.partial(_game_of, bt),
                                    bt.names, open_hands=True, kind="bots")
            self._bot_table_ids[t.id] = bt
            self._tasks.append(asyncio.ensure_future(self._run_bot_table(t.id, bt)))

    async def stop(self) -> None:
        if self._closing is not None:
            self._closing.set()             # queued heavy work gives up (_off_loop)
        for t in self._tasks:
            t.cancel()
        for c in self.clients:
            if c.bots_task is not None:
                c.bots_task.cancel()
        if self._token is not None:
            self.spectators.unlisten(self._token)
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._work.shutdown(wait=False, cancel_futures=True)

    def start_thread(self) -> Callable[[], None]:
        """Serve from a daemon thread with its own event loop (a blocking
        program's companion: ``guandan arena --web``, tests); returns the
        function that stops it."""
        loop = asyncio.new_event_loop()
        ready = threading.Event()
        failed: List[BaseException] = []

        def main() -> None:
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self.start())
            except BaseException as e:            # reported to the caller
                failed.append(e)
                ready.set()
                return
            ready.set()
            loop.run_forever()

        th = threading.Thread(target=main, name="guandan-web", daemon=True)
        th.start()
        ready.wait(30)
        if failed:
            raise failed[0]

        def stop() -> None:
            asyncio.run_coroutine_threadsafe(self.stop(), loop).result(10)
            loop.call_soon_threadsafe(loop.stop)
            th.join(10)
        return stop

    async def run(self, announce: Optional[Callable[[str], None]] = None) -> None:
        """Serve until cancelled; ``announce(url)`` is called once the socket
        listens (default: the URL is logged at INFO level)."""
        await self.start()
        url = f"http://{self.host}:{self.bound_port}/"
        if announce is not None:
            announce(url)
        else:
            log.info("web table on %s", url)
        try:
            await asyncio.Future()
        finally:
            await self.stop()

    # -- HTTP -----------------------------------------------------------------------
    def _process_request(self, connection: Any, request: Any) -> Any:
        from websockets.datastructures import Headers
        from websockets.http11 import Response
        path = request.path.split("?", 1)[0]
        if path == "/ws":
            if len(self.clients) >= self.max_clients:
                return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, "too many pages connected\n")
            origins = request.headers.get_all("Origin")
            if not origins or (len(origins) == 1 and origin_allowed(
                    origins[0], request.headers.get("Host"), self.origins)):
                return None
            return connection.respond(HTTPStatus.FORBIDDEN, "Origin not allowed\n")
        if path not in _STATIC:
            return connection.respond(HTTPStatus.NOT_FOUND, "not found\n")
        name, ctype = _STATIC[path]
        body = _static(name)
        headers = Headers([("Content-Type", ctype), ("Content-Length", str(len(body))),
                           ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff")])
        return Response(200, "OK", headers, body)

    # -- WebSocket ------------------------------------------------------------------
    async def _handler(self, ws: Any) -> None:
        c = _Client(ws)
        self.clients.append(c)
        writer = asyncio.ensure_future(self._writer(c))
        try:
            async for raw in ws:
                if c.gone:
                    break
                why = self._over(c, raw)
                if why is not None:            # ignored, said once a second
                    if not c.flood.take():
                        log.warning("a page sent more than %d messages over its limits: closed",
                                    FLOOD_BURST)
                        # the close frame, then the socket cut: its frames
                        # fill the queue, so the page's answer is not read
                        try:
                            await within(ws.close(1008, "too many messages"), 0.5)
                        except Exception:
                            pass
                        transport = getattr(ws, "transport", None)
                        if transport is not None:
                            transport.abort()
                        break
                    now = time.monotonic()
                    if now - c.warned >= 1.0:
                        c.warned = now
                        c.send({"type": "error", "kind": "WebMessageError", "message": why})
                else:
                    await self.handle(c, raw)
                await asyncio.sleep(0)         # frames already received wait while others run
        except Exception:
            pass                               # the connection broke
        finally:
            c.gone = True
            if c in self.clients:
                self.clients.remove(c)
            self._end_play(c)
            writer.cancel()

    def _over(self, c: _Client, raw: Any) -> Optional[str]:
        """Why a page's frame is not taken (None: it is): more frames or bytes
        a second than a page may send, or more bytes than all pages together
        may (decoding a frame holds the loop)."""
        if not c.frames.take():
            return f"too many messages: at most {RATE:g} a second"
        n = len(raw)
        if not c.bytes.take(n):
            return f"too much data: at most {BYTE_RATE >> 20} MiB a second"
        if not self._all.take(n):
            return "the server is busy reading other pages' messages: try again in a few seconds"
        return None

    async def handle(self, c: _Client, raw: Any) -> None:
        """One frame from a page: validated, acted on; a bad one is answered
        with ``{"type": "error"}`` (the entry point the fuzz test drives)."""
        try:
            await self._dispatch(c, parse_message(raw))
        except _Dropped:
            pass                            # the page left, or the server stops
        except GuandanError as e:
            c.send({"type": "error", "kind": type(e).__name__, "message": str(e)[:500]})
        except Exception as e:              # a bug must not close the server
            log.exception("web message failed")
            c.send({"type": "error", "kind": "internal", "message": type(e).__name__})

    async def _writer(self, c: _Client) -> None:
        """Send a page its queue; a page that does not take a message within
        :data:`SEND_TIMEOUT`, or lets :data:`MAX_QUEUE_BYTES` pile up, is
        dropped (its connection aborted, its queue freed)."""
        while True:
            text = await c.queue.get()
            if text is None:
                break
            c.queued -= len(text)
            try:
                await within(c.ws.send(text), SEND_TIMEOUT)
            except Exception:
                break
        c.gone = True
        while not c.queue.empty():
            c.queue.get_nowait()
        c.queued = 0
        transport = getattr(c.ws, "transport", None)
        if transport is not None:
            transport.abort()

    async def _dispatch(self, c: _Client, msg: Dict[str, Any]) -> None:
        kind = msg["type"]
        if kind in ("hello", "list"):
            self._relist_soon()
            c.send(self._welcome(c) if kind == "hello" else self._lists(c))
        elif kind == "watch":
            t = self.spectators.get(msg["table"])
            if t is None:
                raise WebMessageError(f"no table {msg['table']!r}")
            c.watching = t.id
            c.watch_hands = bool(msg["hands"])
            c.send(self._table_msg(t.id, c.watch_hands))
        elif kind == "unwatch":
            c.watching = None
        elif kind == "new_game":
            self._new_game(c, msg)
        elif kind in ("select", "play", "pass", "undo", "hint", "next_round"):
            await self._act(c, kind, msg)
        elif kind == "replay_open":
            await self._replay_open(c, msg)
        elif kind == "replay_goto":
            r = c.replay
            if r is None:
                raise WebMessageError("open a record first (replay_open)")
            view = None
            while view is None and c.replay is r and c.here():
                view = await self._off_loop(_goto_view, r, msg["step"], JUMP_STEPS, page=c)
            if view is not None and c.replay is r:
                c.send({"type": "replay", "state": view})

    async def _off_loop(self, fn: Callable[..., Any], *args: Any, page: Optional["_Client"] = None) -> Any:
        """A page's heavy work, in the worker thread: the loop (and the
        contest tables in it) goes on meanwhile. One job at a time, in the
        order asked (``asyncio.Lock`` is first come, first served), each
        starting once the work of the last seconds is within
        :data:`WORK_SHARE`; dropped (:class:`_Dropped`) if ``page`` left
        or the server stops before it starts."""
        loop = asyncio.get_running_loop()
        assert self._work_turn is not None and self._closing is not None, "start() first"
        async with self._work_turn:
            wait = self._work_time.wait_time(loop.time())
            if wait > 0 and not self._closing.is_set():
                try:
                    await within(self._closing.wait(), wait)
                except asyncio.TimeoutError:
                    pass
            if self._closing.is_set() or (page is not None and not page.here()):
                raise _Dropped()
            cpu, ok, value = await loop.run_in_executor(self._work, _timed, fn, args)
            self._work_time.charge(cpu, loop.time())
        if not ok:
            raise value
        return value

    def _welcome(self, c: _Client) -> Dict[str, Any]:
        return {**self._lists(c), "type": "welcome", "bots": self.bots}

    def _open_hands(self, t: Any) -> bool:
        """Whether a spectator of table ``t`` may ask for its hands: built-in
        bot tables, and contest tables (programs) with ``program_hands``;
        never a table where a person plays."""
        return bool(t.open_hands) and (t.kind == "bots" or (t.kind == "contest" and self.program_hands))

    def _tables(self) -> List[Dict[str, Any]]:
        return [{"id": t.id, "title": t.title, "kind": t.kind, "open_hands": self._open_hands(t),
                 "names": t.names()} for t in self.spectators.tables()]

    def _lists(self, c: Optional[_Client] = None) -> Dict[str, Any]:
        """The tables and the records offered to page ``c`` (its own uploads
        first; None: what every page is offered)."""
        own = list(c.uploads) if c is not None else []
        return {"type": "lists", "tables": self._tables(), "records": own + self._record_names()}

    def _broadcast_lists(self) -> None:
        """Every page's lists: encoded once for the pages without uploads."""
        common = None
        for c in list(self.clients):
            if c.uploads:
                c.send(self._lists(c))
            else:
                common = common or _encode(self._lists())
                c.send(common)

    # -- contest tables (serve --web) -------------------------------------------------------
    def add_contest_table(self, table_id: str, table: Any) -> None:
        """Tell the page about the contest :class:`~guandan.server.Table`
        published as ``table_id`` (in this loop): before its session starts
        the page says which seats wait for a program and at which URL, and
        each finished game is offered for replay (:meth:`keep_games`)."""
        self._contest[table_id] = table

    def keep_games(self, finished_only: bool = True) -> None:
        """Keep the contest tables' current games for replay (once each; the
        last :data:`_MAX_KEPT`): finished ones, or with ``finished_only``
        False every last game (a session that ended early). Their views
        never carry the seed."""
        added = False
        for tid, table in list(self._contest.items()):
            g = table.game
            if g is None or self._kept_games.get(tid) is g or (finished_only and not g.is_over):
                continue
            self._kept_games[tid] = g
            n = sum(1 for k in self._kept if k.startswith(tid + "-")) + 1
            self._kept[f"{tid}-game{n}"] = g.record()
            while len(self._kept) > _MAX_KEPT:
                self._kept.pop(next(iter(self._kept)))
            added = True
        if added:
            self._broadcast_lists()

    def _contest_status(self, table: Any) -> Dict[str, Any]:
        """What a contest table waits for: ``status`` (``waiting`` for its
        programs, ``playing``, ``over``), the client seats, the game port,
        its host as configured (a page shows its own host for a wildcard),
        and the games played of how many."""
        status = "over" if table.done else ("playing" if table.started else "waiting")
        return {"status": status, "seats": [i for i in range(4) if i not in table.bots],
                "host": table.host, "port": table.bound_port or table.port,
                "games": table.games, "played": table.games_played}

    # -- watch ----------------------------------------------------------------------
    def _changed(self, table_id: str) -> None:
        """A table changed (in this loop): views go out at most every 0.1 s."""
        if table_id in self._contest:
            self.keep_games()
        self._dirty.add(table_id)
        if self._flush is None and self._loop is not None:
            self._flush = self._loop.call_later(0.1, self._send_dirty)

    def _send_dirty(self) -> None:
        self._flush = None
        dirty, self._dirty = self._dirty, set()
        known = {t.id for t in self.spectators.tables()}
        if dirty - known or any(self._is_new(t) for t in dirty):
            self._broadcast_lists()
        for tid in dirty & known:
            cache: Dict[bool, str] = {}
            for c in list(self.clients):
                if c.watching == tid:
                    if c.watch_hands not in cache:
                        cache[c.watch_hands] = _encode(self._table_msg(tid, c.watch_hands))
                    c.send(cache[c.watch_hands])

    def _is_new(self, tid: str) -> bool:
        if tid in self._seen:
            return False
        self._seen.add(tid)
        return True

    def _table_msg(self, tid: str, hands: bool) -> Dict[str, Any]:
        """A watched table's view: hands only where :meth:`_open_hands`
        allows them; the deal seed only on a built-in bot table shown with
        its hands (elsewhere it would deal the hidden hands, or those of the
        server's next game)."""
        t = self.spectators.get(tid)
        if t is None:
            return {"type": "table", "table": tid, "state": None}
        g = t.game()
        open_hands = self._open_hands(t)
        show = range(4) if (hands and open_hands) else ()
        state = None if g is None else table_view(g, t.names(), visible=show,
                                                  show_seed=bool(show) and t.kind == "bots")
        msg = {"type": "table", "table": tid, "title": t.title, "kind": t.kind,
               "open_hands": open_hands, "hands": bool(show) and open_hands, "state": state}
        if tid in self._contest:
            msg["contest"] = self._contest_status(self._contest[tid])
        return msg

    async def _run_bot_table(self, tid: str, bt: BotTable) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                if bt.game.is_over:
                    await asyncio.sleep(max(3 * self.watch_delay, 0.05))
                    bt.next_game()
                    self._broadcast_lists()           # its record is offered for replay
                else:
                    r = bt.game.round_index
                    at, m = await loop.run_in_executor(self._pool, bt.choice)
                    bt.apply(at, m)
                    if bt.game.round_index != r:     # the round's result stays in view a while
                        self.spectators.changed(tid)
                        await asyncio.sleep(4 * self.watch_delay)
            except GuandanError as e:            # (a bot's fault): the next game
                log.error("bot table %s: %s; dealing the next game", tid, e)
                bt.next_game()
            self.spectators.changed(tid)
            await asyncio.sleep(self.watch_delay)

    # -- play -----------------------------------------------------------------------
    def _new_game(self, c: _Client, msg: Dict[str, Any]) -> None:
        for b in msg["bots"]:
            if b not in self.bots:
                raise WebMessageError(f"bot {b[:60]!r} is not offered here; bots: {', '.join(self.bots)}")
        self._end_play(c)
        seat = msg["seat"] or 0
        c.play = PlaySession(msg["bots"], seat, msg["seed"], practice=bool(msg["practice"]),
                             rules=self.rules)
        p = c.play
        t = self.spectators.add(f"person vs {', '.join(sorted(set(p.bot_specs.values())))}",
                                lambda: p.game, lambda: p.names, open_hands=False, kind="people")
        c.play_id = t.id
        self._send_play(c)
        self._start_bots(c)

    def _end_play(self, c: _Client) -> None:
        if c.bots_task is not None:
            c.bots_task.cancel()
            c.bots_task = None
        if c.play_id is not None:
            self.spectators.remove(c.play_id)
        c.play = None
        c.play_id = None

    def _send_play(self, c: _Client, **extra: Any) -> None:
        if c.play is not None and c.play_id is not None:
            c.send({"type": "play", "game": c.play_id, "state": c.play.view(), **extra})
            self.spectators.changed(c.play_id)

    async def _act(self, c: _Client, kind: str, msg: Dict[str, Any]) -> None:
        p = c.play
        if p is None:
            raise WebMessageError("no game: start one (new_game)")
        if msg["game"] is not None and msg["game"] != c.play_id:
            raise WebMessageError("that game is not yours: only the page that started a game "
                                  "acts in it")
        if kind == "select":
            ms = p.matches(msg["cards"])
            c.send({"type": "matches", "cards": msg["cards"],
                    "moves": [move_view(m, p.game.level) for m in ms]})
            return
        if kind == "hint":
            bot = msg["bot"] or "expert"
            if bot not in self.bots:
                raise WebMessageError(f"bot {bot[:60]!r} is not offered here")
            if not p.my_turn:
                raise WebMessageError("hints are for your turn")
            loop = asyncio.get_running_loop()
            h = await loop.run_in_executor(self._pool, hint, p.game, bot)
            c.send({"type": "hint", **h})
            return
        try:
            if kind == "play":
                m = p.play(msg["cards"], msg["choice"])
                extra: Dict[str, Any] = {"played": move_view(m)}
            elif kind == "pass":
                p.pass_turn()
                extra = {"played": None}
            elif kind == "next_round":
                p.next_round()
                extra = {}
            else:
                extra = {"undone": p.undo()}
        except GuandanError as e:
            c.send({"type": "refused", "message": str(e)[:500], "text": refusal_words(e)})
            return
        self._send_play(c, **extra)
        self._start_bots(c)

    def _start_bots(self, c: _Client) -> None:
        if c.bots_task is not None:
            c.bots_task.cancel()
        c.bots_task = asyncio.ensure_future(self._run_bots(c, c.play))

    async def _run_bots(self, c: _Client, p: Optional[PlaySession]) -> None:
        loop = asyncio.get_running_loop()
        while p is not None and c.play is p and p.bot_spec() is not None:
            await asyncio.sleep(self.bot_delay)
            at, m = await loop.run_in_executor(self._pool, p.bot_choice)
            if c.play is not p or not p.bot_play(at, m):
                return
            self._send_play(c)          # a round's end holds the game (PlaySession.round_end)

    # -- replay ---------------------------------------------------------------------
    def _record_names(self) -> List[str]:
        """The records every page is offered: the bot tables' last games and
        the records folder's files (its listing, cached: :meth:`_relist_soon`)."""
        names: List[str] = list(reversed(self._kept))          # the latest first
        for tid, bt in self._bot_table_ids.items():
            names += [f"{tid}-game{bt.games - len(bt.records) + k + 1}" for k in range(len(bt.records))]
        return names + self._listing

    async def _first_listing(self) -> None:
        """(start) The records folder's listing, before the first page."""
        if self.records_dir is not None:
            loop = asyncio.get_running_loop()
            self._listing = await loop.run_in_executor(self._work, _scan_records, self.records_dir)
            self._listed_at = time.monotonic()

    def _relist_soon(self) -> None:
        """List the records folder again, in the background, if the listing
        is older than :data:`_LIST_TTL` seconds: one walk at a time, in the
        worker thread, of at most :data:`_MAX_SCANNED` entries, however many
        pages ask (outside the pages' share, so a page's ``hello`` never
        waits behind their work); pages are answered from the listing they
        have and sent the new one when it differs. A page that asks while
        a walk is under way gets one more walk, :data:`_LIST_TTL` seconds
        after it (that walk may have passed the file the page looks for)."""
        if self._listing_task is not None:
            self._relist_after = True
            return
        if (self.records_dir is None or self._loop is None
                or (self._closing is not None and self._closing.is_set())
                or time.monotonic() - self._listed_at < _LIST_TTL):
            return
        try:
            fut = self._loop.run_in_executor(self._work, _scan_records, self.records_dir)
        except RuntimeError:                # the worker is shut down: the server stops
            return
        self._listing_task = fut
        self._relist_after = False
        fut.add_done_callback(self._listed)

    def _listed(self, fut: "asyncio.Future[List[str]]") -> None:
        self._listing_task = None
        self._listed_at = time.monotonic()
        if self._relist_after and self._loop is not None:   # the walk asked for during this one
            self._loop.call_later(_LIST_TTL, self._relist_soon)
        if fut.cancelled() or fut.exception() is not None:
            return
        names = fut.result()
        if names != self._listing:
            self._listing = names
            self._broadcast_lists()

    def _find_named(self, c: _Client, name: str) -> Tuple[Any, Optional[str]]:
        """A record offered to ``c`` by name: ``(record, None)`` for one in
        memory (its uploads, the bot tables', the kept contest games: looked
        up here, in the loop, which changes them), ``(None, path)`` for a
        file of the records folder (read in the worker thread)."""
        if name in c.uploads:
            return c.uploads[name], None
        if name in self._kept:
            return self._kept[name], None
        m = re.match(r"^(t\d+)-game(\d+)$", name)
        if m and m.group(1) in self._bot_table_ids:
            bt = self._bot_table_ids[m.group(1)]
            k = int(m.group(2)) - (bt.games - len(bt.records)) - 1
            if 0 <= k < len(bt.records):
                return bt.records[k], None
        d = self.records_dir
        if d is None or not _NAME.match(name) or ".." in name.split("/"):
            raise WebMessageError(f"no record {name[:100]!r}")
        path = os.path.realpath(os.path.join(d, name))
        if os.path.commonpath([path, d]) != d or not os.path.isfile(path):
            raise WebMessageError(f"no record {name[:100]!r}")
        if os.path.getsize(path) > _MAX_RECORD_FILE:
            raise WebMessageError(f"{name[:100]} is larger than {_MAX_RECORD_FILE >> 20} MiB: "
                                  "too long for the web table (guandan replay FILE reads it)")
        return None, path

    async def _replay_open(self, c: _Client, msg: Dict[str, Any]) -> None:
        if msg["record"] is not None:
            # a page's own record: kept for that page only (the fields a replay
            # reads, nothing else it sent), its seed shown to it
            replay = await self._replayed(c, _open_upload, msg["record"])
            name, rec = replay.name, replay.record
            c.uploads.pop(name, None)
            c.uploads[name] = rec
            while len(c.uploads) > MAX_UPLOADS:
                c.uploads.pop(next(iter(c.uploads)))
        else:
            name = msg["name"]
            if name in c.uploads:
                replay = await self._replayed(c, _open_replay, None, c.uploads[name], name, True)
            else:
                rec, path = self._find_named(c, name)      # in the loop: the tables' records change there
                replay = await self._replayed(c, _open_replay, path, rec, name, False)
        c.replay = replay
        c.send({"type": "replay", "state": replay.view()})

    async def _replayed(self, c: _Client, opener: Callable[..., ReplayBuilder], *args: Any) -> Replay:
        """A record opened for page ``c`` in jobs of the pages' heavy work:
        read and checked in one, then replayed :data:`JUMP_STEPS` actions a
        job (other pages' jobs take their turns in between); at most
        :data:`MAX_OPENING` records at once."""
        assert self._opening is not None, "start() first"
        async with self._opening:
            b = await self._off_loop(opener, *args, page=c)
            while True:
                r = await self._off_loop(b.advance, JUMP_STEPS, page=c)
                if r is not None:
                    return r


def _open_upload(rec: Any) -> ReplayBuilder:
    """(worker thread) A :class:`ReplayBuilder` of a record a page sent,
    keeping only the fields a replay reads (the rest of what the page sent
    is not held), named by their hash."""
    if isinstance(rec, dict):
        rec = {k: rec[k] for k in _RECORD_FIELDS if k in rec}
    text = json.dumps(rec, sort_keys=True, separators=(",", ":"))
    name = "upload-" + hashlib.sha256(text.encode()).hexdigest()[:12]
    return ReplayBuilder(rec, name, show_seed=True)


#: the fields of a record a replay reads (Game.record's, but the result)
_RECORD_FIELDS = ("format", "rules", "seed", "start", "round_start", "deals", "actions")


def _open_replay(path: Optional[str], rec: Any, name: str, own: bool) -> ReplayBuilder:
    """(worker thread) A :class:`ReplayBuilder` of ``rec`` or of the record file ``path``."""
    return ReplayBuilder(read_record_file(path, shown=name) if path is not None else rec, name, show_seed=own)


class _Dropped(Exception):
    """A page's heavy job not started: the page left, or the server stops."""


def _timed(fn: Callable[..., Any], args: Tuple[Any, ...]) -> Tuple[float, bool, Any]:
    """(worker thread) ``fn(*args)`` and the thread's CPU seconds it took:
    ``(seconds, True, result)`` or ``(seconds, False, exception)``."""
    t0 = time.thread_time()
    try:
        value, ok = fn(*args), True
    except Exception as e:
        value, ok = e, False
    return time.thread_time() - t0, ok, value


def _goto_view(r: Replay, step: int, most: int) -> Optional[Dict[str, Any]]:
    """(worker thread) Step a replay at most ``most`` steps towards ``step``:
    its view once there, else None (the caller asks again)."""
    here = r.pos
    target = max(0, min(step, len(r)))
    r.goto(max(here - most, min(here + most, target)))
    return r.view() if r.pos == target else None


def _scan_records(d: str) -> List[str]:
    """(worker thread) The ``*.json`` files under ``d`` (four levels deep,
    names :data:`_NAME` admits), sorted, at most :data:`_MAX_LISTED`,
    looking at no more than :data:`_MAX_SCANNED` folder entries."""
    found: List[str] = []
    seen = 0

    def walk(folder: str, rel: str, depth: int) -> None:
        nonlocal seen
        try:
            with os.scandir(folder) as it:
                entries = []
                for e in it:
                    seen += 1
                    if seen > _MAX_SCANNED:
                        break
                    entries.append(e)
        except OSError:
            return
        entries.sort(key=lambda e: e.name)
        dirs = []
        for e in entries:                    # a folder's files first, then its folders
            name = rel + e.name
            try:
                if e.name.endswith(".json") and e.is_file() and _NAME.match(name):
                    found.append(name)
                elif depth < 3 and e.is_dir(follow_symlinks=False) and _NAME.match(name):
                    dirs.append((e.path, name))
            except OSError:
                continue
        for path, name in dirs:
            if len(found) >= _MAX_LISTED:
                return
            walk(path, name + "/", depth + 1)

    walk(d, "", 0)
    return found[:_MAX_LISTED]


def serve_web(host: str = "127.0.0.1", port: int = 8765, *, announce: Optional[Callable[[str], None]] = None,
              **kwargs: Any) -> None:
    """Run a :class:`WebApp` until interrupted (blocking). ``announce(url)``
    is called once the socket listens."""
    app = WebApp(host, port, **kwargs)
    asyncio.run(app.run(announce))


async def run_with_tables(server: Any, app: WebApp, *, linger: bool = False,
                          announce: Optional[Callable[[str], None]] = None) -> Any:
    """Run a contest table server (:class:`~guandan.server.TableServer` or
    :class:`~guandan.server.MultiTableServer`) with ``app`` watching its
    tables (``guandan serve --web PORT``); returns what the server's ``run``
    returns. The web table stops with the server, or with ``linger`` stays
    up once the games are over (until cancelled: Ctrl-C), the last tables
    viewable and their games offered for replay; ``announce(text)`` is told
    so."""
    tables = getattr(server, "tables", None) or [server]
    for i, t in enumerate(tables):
        app.add_contest_table(t.publish_to(app.spectators, f"contest table {i + 1}"), t)
    await app.start()
    line = f"web table on http://{app.host}:{app.bound_port}/ (watch the contest tables)"
    if announce is not None:
        announce(line)
    else:
        log.info("%s", line)
    try:
        result = await server.run()
        if not linger:
            return result
        app.keep_games(finished_only=False)
        for tid in list(app._contest):
            app.spectators.changed(tid)          # the pages see the tables are over
        if announce is not None:
            announce(f"the games are over; the web table stays up on "
                     f"http://{app.host}:{app.bound_port}/ with the last tables and their "
                     f"records (Ctrl-C stops)")
        await asyncio.Future()
        return result
    finally:
        await app.stop()
