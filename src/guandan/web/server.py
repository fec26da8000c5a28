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
import hashlib
import json
import logging
import os
import re
import threading
from http import HTTPStatus
from importlib import resources
from typing import Any, Callable, Dict, List, Optional, Sequence

from ..errors import GuandanError
from ..feed import Spectators
from ..records import read_record_file, validate_record
from ..rules import Rules
from ..server import origin_allowed
from .page import INDEX_HTML
from .messages import MAX_FRAME, WebMessageError, parse_message
from .session import DEFAULT_BOTS, BotTable, PlaySession, Replay, check_bot, hint
from .views import move_view, table_view

__all__ = ["WebApp", "serve_web", "run_with_tables"]

log = logging.getLogger("guandan.web")

_STATIC = {"/": (None, "text/html; charset=utf-8"),
           "/index.html": (None, "text/html; charset=utf-8"),
           "/app.js": ("app.js", "text/javascript; charset=utf-8"),
           "/style.css": ("style.css", "text/css; charset=utf-8")}
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}(/[A-Za-z0-9_.-]{1,100}){0,3}$")
_MAX_LISTED = 500
_MAX_UPLOADS = 20
_QUEUE = 512                       # messages waiting for one page: then it is dropped


def _static(name: Optional[str]) -> bytes:
    """A file of the page (None: the HTML document itself, ``page.INDEX_HTML``)."""
    if name is None:
        return INDEX_HTML.encode("utf-8")
    return resources.files("guandan.web").joinpath("static", name).read_bytes()


class _Client:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.queue: asyncio.Queue = asyncio.Queue()
        self.watching: Optional[str] = None
        self.watch_hands = False
        self.play: Optional[PlaySession] = None
        self.play_id: Optional[str] = None
        self.bots_task: Optional[asyncio.Task] = None
        self.replay: Optional[Replay] = None
        self.gone = False

    def send(self, msg: Dict[str, Any]) -> None:
        if self.gone:
            return
        if self.queue.qsize() >= _QUEUE:         # the page does not read: dropped
            self.gone = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(json.dumps(msg, separators=(",", ":")))


class WebApp:
    """The web table. ``records``: a folder of game records offered for
    replay (``guandan serve --record``, ``arena --records`` output);
    ``bots``: the bot specs the page may choose; ``watch``: bot-vs-bot
    tables to start (each a list of four specs or one); ``watch_delay`` /
    ``bot_delay``: seconds between two actions of a watched table / of the
    bots in a game against a person; ``spectators``: a hub shared with
    table servers (:meth:`guandan.server.TableServer.publish_to`)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 8765, *,
                 records: Optional[str] = None, bots: Sequence[str] = DEFAULT_BOTS,
                 watch: Sequence[Sequence[str]] = (), watch_delay: float = 0.8,
                 bot_delay: float = 0.6, seed: int = 0, rules: Optional[Rules] = None,
                 spectators: Optional[Spectators] = None, origins: Sequence[str] = ()) -> None:
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
        self.spectators = spectators or Spectators()
        self.bot_tables = [BotTable(w, seed=(seed + 1000 * i) % (1 << 63), rules=rules)
                           for i, w in enumerate(watch)]
        self._bot_table_ids: Dict[str, BotTable] = {}
        self.uploads: Dict[str, Dict[str, Any]] = {}
        self.clients: List[_Client] = []
        self.bound_port: Optional[int] = None
        self._server: Any = None
        self._tasks: List[asyncio.Task] = []
        self._dirty: set = set()
        self._seen: set = set()               # table ids the pages' lists already hold
        self._flush: Optional[asyncio.TimerHandle] = None
        self._token: Optional[int] = None
        self._pool = cf.ThreadPoolExecutor(max_workers=2, thread_name_prefix="guandan-web-bot")
        self._loop: Optional[asyncio.AbstractEventLoop] = None

    # -- lifecycle ------------------------------------------------------------------
    async def start(self) -> None:
        try:
            from websockets.asyncio.server import serve as ws_serve
        except ImportError:
            raise GuandanError("the web table needs websockets >= 13: pip install 'guandan[server]'") from None
        self._loop = asyncio.get_running_loop()
        self._token = self.spectators.listen(self._loop, self._changed)
        self._server = await ws_serve(self._handler, self.host, self.port, max_size=MAX_FRAME,
                                      process_request=self._process_request)
        self.bound_port = next(iter(self._server.sockets)).getsockname()[1]
        for i, bt in enumerate(self.bot_tables):
            t = self.spectators.add(f"bots {i + 1}: {', '.join(bt.bots)}", lambda bt=bt: bt.game,
                                    bt.names, open_hands=True, kind="bots")
            self._bot_table_ids[t.id] = bt
            self._tasks.append(asyncio.ensure_future(self._run_bot_table(t.id, bt)))

    async def stop(self) -> None:
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

    async def run(self) -> None:
        await self.start()
        log.warning("web table on http://%s:%d/", self.host, self.bound_port)
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
                await self.handle(c, raw)
        except Exception:
            pass                               # the connection broke
        finally:
            c.gone = True
            if c in self.clients:
                self.clients.remove(c)
            self._end_play(c)
            writer.cancel()

    async def handle(self, c: _Client, raw: Any) -> None:
        """One frame from a page: validated, acted on; a bad one is answered
        with ``{"type": "error"}`` (the entry point the fuzz test drives)."""
        try:
            await self._dispatch(c, parse_message(raw))
        except GuandanError as e:
            c.send({"type": "error", "kind": type(e).__name__, "message": str(e)[:500]})
        except Exception as e:              # a bug must not close the server
            log.exception("web message failed")
            c.send({"type": "error", "kind": "internal", "message": type(e).__name__})

    async def _writer(self, c: _Client) -> None:
        while True:
            text = await c.queue.get()
            if text is None:
                await c.ws.close(1008, "too slow")
                return
            try:
                await c.ws.send(text)
            except Exception:
                return

    async def _dispatch(self, c: _Client, msg: Dict[str, Any]) -> None:
        kind = msg["type"]
        if kind in ("hello", "list"):
            c.send(self._welcome() if kind == "hello" else self._lists())
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
        elif kind in ("select", "play", "pass", "undo", "hint"):
            await self._act(c, kind, msg)
        elif kind == "replay_open":
            self._replay_open(c, msg)
        elif kind == "replay_goto":
            if c.replay is None:
                raise WebMessageError("open a record first (replay_open)")
            c.replay.goto(msg["step"])
            c.send({"type": "replay", "state": c.replay.view()})

    def _welcome(self) -> Dict[str, Any]:
        return {**self._lists(), "type": "welcome", "bots": self.bots}

    def _lists(self) -> Dict[str, Any]:
        tables = [{"id": t.id, "title": t.title, "kind": t.kind, "open_hands": t.open_hands,
                   "names": t.names()} for t in self.spectators.tables()]
        return {"type": "lists", "tables": tables, "records": self._record_names()}

    # -- watch ----------------------------------------------------------------------
    def _changed(self, table_id: str) -> None:
        """A table changed (in this loop): views go out at most every 0.1 s."""
        self._dirty.add(table_id)
        if self._flush is None and self._loop is not None:
            self._flush = self._loop.call_later(0.1, self._send_dirty)

    def _send_dirty(self) -> None:
        self._flush = None
        dirty, self._dirty = self._dirty, set()
        known = {t.id for t in self.spectators.tables()}
        if dirty - known or any(self._is_new(t) for t in dirty):
            lists = self._lists()
            for c in self.clients:
                c.send(lists)
        for tid in dirty & known:
            cache: Dict[bool, Dict[str, Any]] = {}
            for c in self.clients:
                if c.watching == tid:
                    if c.watch_hands not in cache:
                        cache[c.watch_hands] = self._table_msg(tid, c.watch_hands)
                    c.send(cache[c.watch_hands])

    def _is_new(self, tid: str) -> bool:
        if tid in self._seen:
            return False
        self._seen.add(tid)
        return True

    def _table_msg(self, tid: str, hands: bool) -> Dict[str, Any]:
        """A watched table's view: hands only where the table allows it."""
        t = self.spectators.get(tid)
        if t is None:
            return {"type": "table", "table": tid, "state": None}
        g = t.game()
        show = range(4) if (hands and t.open_hands) else ()
        state = None if g is None else table_view(g, t.names(), visible=show)
        return {"type": "table", "table": tid, "title": t.title, "open_hands": t.open_hands,
                "hands": bool(show), "state": state}

    async def _run_bot_table(self, tid: str, bt: BotTable) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                if bt.game.is_over:
                    await asyncio.sleep(max(3 * self.watch_delay, 0.05))
                    bt.next_game()
                    lists = self._lists()             # its record is offered for replay
                    for c in self.clients:
                        c.send(lists)
                else:
                    at, m = await loop.run_in_executor(self._pool, bt.choice)
                    bt.apply(at, m)
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
        seed = msg["seed"] if msg["seed"] is not None else int.from_bytes(os.urandom(4), "big")
        c.play = PlaySession(msg["bots"], seat, seed, practice=bool(msg["practice"]), rules=self.rules)
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
        if c.play is not None:
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
            else:
                extra = {"undone": p.undo()}
        except GuandanError as e:
            c.send({"type": "refused", "message": str(e)[:500]})
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
            r = p.game.round_index
            await asyncio.sleep(self.bot_delay)
            at, m = await loop.run_in_executor(self._pool, p.bot_choice)
            if c.play is not p or not p.bot_play(at, m):
                return
            self._send_play(c)
            if p.game.round_index != r:
                await asyncio.sleep(3 * self.bot_delay)      # the round's result stays in view

    # -- replay ---------------------------------------------------------------------
    def _record_names(self) -> List[str]:
        names = list(self.uploads)
        for tid, bt in self._bot_table_ids.items():
            names += [f"{tid}-game{bt.games - len(bt.records) + k + 1}" for k in range(len(bt.records))]
        d = self.records_dir
        if d is not None:
            found = []
            for root, dirs, files in os.walk(d):
                dirs.sort()
                for f in sorted(files):
                    if f.endswith(".json"):
                        rel = os.path.relpath(os.path.join(root, f), d).replace(os.sep, "/")
                        if _NAME.match(rel):
                            found.append(rel)
                if len(found) >= _MAX_LISTED:
                    break
            names += found[:_MAX_LISTED]
        return names

    def _load_named(self, name: str) -> Any:
        if name in self.uploads:
            return self.uploads[name]
        m = re.match(r"^(t\d+)-game(\d+)$", name)
        if m and m.group(1) in self._bot_table_ids:
            bt = self._bot_table_ids[m.group(1)]
            k = int(m.group(2)) - (bt.games - len(bt.records)) - 1
            if 0 <= k < len(bt.records):
                return bt.records[k]
        d = self.records_dir
        if d is None or not _NAME.match(name) or ".." in name.split("/"):
            raise WebMessageError(f"no record {name[:100]!r}")
        path = os.path.realpath(os.path.join(d, name))
        if os.path.commonpath([path, d]) != d or not os.path.isfile(path):
            raise WebMessageError(f"no record {name[:100]!r}")
        return read_record_file(path)

    def _replay_open(self, c: _Client, msg: Dict[str, Any]) -> None:
        if msg["record"] is not None:
            rec = msg["record"]
            validate_record(rec)
            text = json.dumps(rec, sort_keys=True, separators=(",", ":"))
            name = "upload-" + hashlib.sha256(text.encode()).hexdigest()[:12]
        else:
            name = msg["name"]
            rec = self._load_named(name)
        c.replay = Replay(rec, name)
        if msg["record"] is not None:
            self.uploads[name] = rec
            while len(self.uploads) > _MAX_UPLOADS:
                self.uploads.pop(next(iter(self.uploads)))
        c.send({"type": "replay", "state": c.replay.view()})


def serve_web(host: str = "127.0.0.1", port: int = 8765, *, announce: Optional[Callable[[str], None]] = None,
              **kwargs: Any) -> None:
    """Run a :class:`WebApp` until interrupted (blocking). ``announce(url)``
    is called once the options are checked, before serving."""
    app = WebApp(host, port, **kwargs)
    if announce is not None:
        announce(f"http://{host}:{port}/")
    asyncio.run(app.run())


async def run_with_tables(server: Any, app: WebApp) -> Any:
    """Run a contest table server (:class:`~guandan.server.TableServer` or
    :class:`~guandan.tables.MultiTableServer`) with ``app`` watching its
    tables (``guandan serve --web PORT``); returns what the server's ``run``
    returns. The web table stops with the server."""
    tables = getattr(server, "tables", None) or [server]
    for i, t in enumerate(tables):
        t.publish_to(app.spectators, f"contest table {i + 1}")
    await app.start()
    log.warning("web table on http://%s:%d/ (watch the contest tables)", app.host, app.bound_port)
    try:
        return await server.run()
    finally:
        await app.stop()
