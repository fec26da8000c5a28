"""One contest table: its seats, the session it plays (games, rounds,
tribute exchanges; each decision is one :meth:`~.seats.Seat.decide`) and
the records it writes. The rules it follows are in :mod:`guandan.server`;
the messages it sends are :mod:`.messages`, its connections
:mod:`.connections`, its seats and their fault policy :mod:`.seats`. A
table listens on no port: a :class:`~.listener.Listener` routes connections
to it (and refuses those it cannot take, with :meth:`Table.refusal`), and
:class:`~.listener.TableServer` is a table on a listener of its own."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import re
import secrets
from collections import deque
from typing import Any, Callable, Deque, Dict, Iterable, List, Optional

from .._aio import within
from .._files import atomic_write
from ..errors import GuandanError
from ..game import Game
from ..policies import check_policy
from ..rules import Rules
from . import messages
from .connections import CLOSE, LOG_IGNORED, Conn, Refusals, close_reason, norm_origin
from .seats import FaultPolicy, Seat

__all__ = ["Table", "parse_bots", "DEFAULT_TIMEOUT", "MAX_WAITING"]

log = logging.getLogger("guandan.server")

DEFAULT_TIMEOUT = 30.0          # seconds per decision (the platform has none: it waits forever)
MAX_WAITING = 16                # connections waiting before the start beyond the free seats


def parse_bots(spec: Optional[str]) -> Dict[int, str]:
    """``"1=greedy,3=random"`` -> ``{1: "greedy", 3: "random"}`` (any policy
    spec :func:`guandan.policies.check_policy` accepts; a spec's own options
    follow it: ``"1=search:cpu_ms=200,k=5,3=greedy"`` -> ``{1:
    "search:cpu_ms=200,k=5", 3: "greedy"}``, a new seat starting at each
    ``DIGIT=``)."""
    out: Dict[int, str] = {}
    if not spec:
        return out
    parts: List[str] = []
    for piece in spec.split(","):
        if parts and not re.match(r"^\s*\d+\s*=", piece):
            parts[-1] += "," + piece            # an option of the previous seat's spec
        else:
            parts.append(piece)
    for part in parts:
        try:
            seat_s, pol = part.split("=", 1)
            seat = int(seat_s)
        except ValueError:
            raise GuandanError(f"--bots takes SEAT=POLICY,... (e.g. 1=greedy,3=random), got {part!r}") from None
        if seat not in range(4):
            raise GuandanError(f"bad bot {part!r}: seats are 0..3")
        try:
            check_policy(pol)
        except GuandanError as e:
            raise GuandanError(f"bad bot {part!r}: {e}") from None
        out[seat] = pol
    if len(out) == 4:
        raise GuandanError("all four seats are bots: nothing to serve")
    return out



def record_file_name(tag: str, gi: int) -> str:
    """The file name of game ``gi``'s record (0-based) at a table whose
    records carry ``tag``: ``game_001_<tag>.json``. A table draws its tag at
    random (:func:`record_tag`), so that tables and runs sharing a folder do
    not overwrite each other and the name says nothing of the seed, which
    would deal the table's next game (records are offered to spectators by
    name): not even a hash of it, which a small ``--seed`` would give away."""
    return f"game_{gi + 1:03d}_{tag}.json"


def record_tag() -> str:
    """12 random hex digits, drawn from the system's random source."""
    return secrets.token_hex(6)

class Table:
    """One table: ``await table.serve_table()`` plays its whole session on
    the connections a :class:`~.listener.Listener` routes to it (several
    tables share one port); :class:`~.listener.TableServer` serves one on a
    port of its own (``await TableServer(...).run()``).

    ``timeout``: seconds a client may think (default 30; 0 or None: forever);
    ``late_grace``: how long a seat's next question waits for its late answer
    after a timeout (default: ``timeout``); ``send_timeout`` / ``send_queue``:
    a seat is disconnected when one message cannot be sent within this many
    seconds, or this many messages wait for it; ``max_frame``: the largest
    frame accepted (bytes); ``origins``: browser Origins accepted besides
    loopback pages (``"*"``: all); ``keep_records``: records kept in memory;
    ``on_timeout`` / ``on_invalid`` / ``on_disconnect`` / ``max_misses`` /
    ``game_time``: the seats' :class:`~.seats.FaultPolicy`; ``announce(line)``:
    told the start-up line and one line per finished game (winner, levels,
    rounds, record file; default: logged at INFO level).

    The arena's options (all off by default): ``seat_labels`` (the label
    each client seat is reserved for; other labels are refused),
    ``game_factory(i)`` (game ``i``; default ``Game(rules, seed + i)``),
    ``until="round"`` (each game ends after one round, won by the banker's
    team), a Python policy in ``bots`` (run in a daemon thread under the
    same time limits). A forfeit ends the session: ``forfeit`` names the
    seat and the reason; :meth:`abort` ends it the same way.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 23456, *, games: int = 1,
                 rules: Optional[Rules] = None, bots: Optional[Dict[int, Any]] = None,
                 timeout: Optional[float] = DEFAULT_TIMEOUT, record_dir: Optional[str] = None,
                 on_disconnect: str = "bot", seed: Optional[int] = None,
                 start_delay: float = 0.2, late_grace: Optional[float] = None,
                 send_timeout: Optional[float] = 10.0, send_queue: int = 1024,
                 max_frame: int = 64 * 1024, origins: Optional[Iterable[str]] = None,
                 keep_records: int = 10, max_misses: int = 5,
                 game_factory: Optional[Callable[[int], Game]] = None, until: str = "game",
                 seat_labels: Optional[Dict[int, str]] = None, on_timeout: str = "default",
                 on_invalid: str = "ignore", game_time: Optional[float] = None,
                 announce: Optional[Callable[[str], None]] = None) -> None:
        self.announce = announce
        self.faults = FaultPolicy(on_timeout, on_invalid, on_disconnect, max_misses,
                                  game_time or None)
        if games < 1:
            raise GuandanError("games must be at least 1")
        if until not in ("game", "round"):
            raise GuandanError("until must be 'game' or 'round'")
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
        self.origins = [norm_origin(o) for o in (origins or ()) if o.strip()]
        self.record_dir = record_dir
        self._record_tag: Optional[str] = None      # the records' file names (record_tag)
        self.seed = seed if seed is not None else random.SystemRandom().getrandbits(62)
        self.start_delay = start_delay
        self.game_factory = game_factory
        self.until = until
        self.seats = [Seat(i, self.bots.get(i), self) for i in range(4)]
        self._free = [i for i in range(4) if i not in self.bots]
        self.seat_labels = {int(k): str(v) for k, v in (seat_labels or {}).items()}
        if self.seat_labels and sorted(self.seat_labels) != self._free:
            raise GuandanError("seat_labels must name every client seat (the seats without bots)")
        if len(set(self.seat_labels.values())) != len(self.seat_labels):
            raise GuandanError("seat labels must differ")
        self._pending: List[Conn] = []      # connections waiting for the start, in order
        self._full_event: Optional[asyncio.Event] = None   # made in the running loop
        self._background: set = set()
        self.refusals = Refusals()
        self._started = False
        self._aborted = False
        self._done = False
        self.game: Optional[Game] = None
        self.records: Deque[Dict[str, Any]] = deque(maxlen=keep_records)
        self.games_played = 0
        self.bound_port: Optional[int] = None
        self.spectators: Any = None         # a guandan.feed.Spectators hub (publish_to)
        self.watch_id: Optional[str] = None
        self.forfeit: Optional[Dict[str, Any]] = None   # {"seat", "reason"} once a seat forfeits
        self.title = ""                     # "table 2" on a listener of several tables

    # -- options read back --------------------------------------------------------------
    @property
    def on_disconnect(self) -> str:
        return self.faults.on_disconnect

    @property
    def on_timeout(self) -> str:
        return self.faults.on_timeout

    @property
    def on_invalid(self) -> str:
        return self.faults.on_invalid

    @property
    def max_misses(self) -> int:
        return self.faults.max_misses

    @property
    def game_time(self) -> Optional[float]:
        return self.faults.game_time

    @property
    def think(self) -> List[float]:
        """Seconds each seat took to answer."""
        return [s.think for s in self.seats]

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
        """Each seat's bot policy or program's label; a program that left is
        still named ("(left)" added), a seat nobody has taken yet is
        "(waiting)"."""
        return [s.policy if isinstance(s.policy, str) else
                (s.conn.label if s.conn is not None else
                 ("bot" if s.policy else (f"{s.label} (left)" if s.label else "(waiting)")))
                for s in self.seats]

    def _spectate(self) -> None:
        if self.spectators is not None:
            self.spectators.changed(self.watch_id)

    # -- state for supervisors ----------------------------------------------------------
    def _prepare(self) -> None:
        """Create the asyncio event (in the running loop) before any connection."""
        if self._full_event is None:
            self._full_event = asyncio.Event()

    @property
    def _full(self) -> asyncio.Event:
        """Set while at least as many connections wait as there are client seats."""
        if self._full_event is None:
            self._full_event = asyncio.Event()
        return self._full_event

    @property
    def started(self) -> bool:
        return self._started

    @property
    def done(self) -> bool:
        return self._done

    @property
    def aborted(self) -> bool:
        """The session is ending early (a forfeit, an abort)."""
        return self._aborted

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

    def waits_for_anyone(self) -> bool:
        """A connection with any label may wait here for a seat to free up."""
        return not self.seat_labels and not self._started and not self._done

    def _forfeit(self, seat: int, reason: str) -> None:
        if self.forfeit is None and not self._done:
            self.forfeit = {"seat": seat, "reason": reason}
            log.warning("seat %d forfeits: %s", seat, reason)
        self.end_session()

    def end_session(self) -> None:
        """End the session now (every question asked is answered with nothing)."""
        self._aborted = True
        for s in self.seats:
            s.interrupt()
        if self._full_event is not None:
            self._full_event.set()         # a table still waiting for players stops waiting

    def abort(self, seat: int, reason: str) -> None:
        """End the session now, ``seat`` forfeiting for ``reason``."""
        self._forfeit(seat, reason)

    # -- connections --------------------------------------------------------------
    def refusal(self, label: str) -> Optional[str]:
        """Why a new connection with ``label`` may not wait here for a seat
        (None: it may). The listener refuses it with this reason."""
        if self.seat_labels and not self.accepts(label):
            return "no free seat has this label"
        if self._started or self._done or len(self._pending) >= len(self._free) + MAX_WAITING:
            return "the table is full"
        return None

    async def serve_connection(self, ws: Any, label: str) -> None:
        """Serve one connection the listener admitted here (:meth:`refusal`
        was None just before, with no await between), until it closes: it
        waits for the start, then holds its seat."""
        conn = Conn(ws, label, self.send_queue)
        self._pending.append(conn)
        log.info("%s connected (%d waiting for %d client seats)", conn.label, len(self._pending),
                 len(self._free))
        if len(self._pending) >= len(self._free):
            self._full.set()
        try:
            async for raw in ws:
                self._on_message(conn, raw)
                await asyncio.sleep(0)  # frames already received wait while others run
        except Exception:               # connection errors end the reader; reported below
            pass
        finally:
            conn.open = False
            why = close_reason(ws)
            if conn.seat is None:
                if conn in self._pending:
                    self._pending.remove(conn)
                    if len(self._pending) < len(self._free):
                        self._full.clear()
                    log.warning("%s left before the game started (%s): its place is free again",
                                conn.who(), why)
            elif conn.seat.conn is conn:
                conn.seat.lost(why)
            if conn.ignored > LOG_IGNORED:
                log.info("%s: %d messages ignored in all", conn.who(), conn.ignored)
            if conn.writer is not None and not conn.writer.done():
                conn.writer.cancel()

    def _on_message(self, conn: Conn, raw: Any) -> None:
        """One frame from a client: the answer to its question, a late answer
        owed after a timeout, or something ignored (or forfeited for)."""
        if not isinstance(raw, str):
            conn.ignore("binary frame (answers are JSON text frames)", raw)
            return
        seat = conn.seat
        if seat is None or seat.conn is not conn:
            conn.ignore("message before the game started", raw)
            return
        seat.hear(raw)

    def drop(self, conn: Conn, why: str, close: Optional[int] = None) -> None:
        """Disconnect a connection the server gives up on: at once (it is not
        reading), or with a close frame of code ``close`` sent in the background."""
        if not conn.open:
            return
        conn.open = False
        log.warning("%s: %s", conn.who(), why)
        if close is not None:
            if conn.writer is not None and not conn.writer.done():
                conn.writer.cancel()
            task = asyncio.ensure_future(conn.close(close, why[:120]))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        else:
            conn.abort()
        if conn.seat is not None and conn.seat.conn is conn:
            conn.seat.lost(why)

    def _seat_conn(self, seat: Seat, conn: Conn) -> None:
        seat.take(conn)
        conn.start_writer(self.send_timeout, self.drop)
        log.info("seat %d: %s", seat.index, conn.label)

    def _prune(self) -> None:
        from websockets.protocol import State

        for c in list(self._pending):
            if not c.open or c.ws.state is not State.OPEN:
                c.open = False
                self._pending.remove(c)
                if not self.seat_labels:
                    log.warning("%s left before the game started: its place is free again",
                                c.who())

    async def _wait_for_players(self) -> None:
        """Until every client seat has its live connection (the first
        len(free seats) waiting ones, or the reserved labels), the last of
        them start_delay old; then seat them and refuse the others."""
        loop = asyncio.get_running_loop()
        nfree = len(self._free)
        want = set(self.seat_labels.values())
        while True:
            await self._full.wait()
            if self._aborted:
                return
            self._prune()
            if self.seat_labels:
                ready = want <= {c.label for c in self._pending}
                last = max((c.joined for c in self._pending), default=0.0)
            else:
                ready = len(self._pending) >= nfree
                last = self._pending[nfree - 1].joined if ready else 0.0
            if not ready:
                self._full.clear()
                continue
            wait = last + self.start_delay - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            break
        self._started = True
        if self.seat_labels:
            by_label = {c.label: c for c in self._pending}
            self._pending = []
            for i in self._free:
                self._seat_conn(self.seats[i], by_label[self.seat_labels[i]])
            return
        seated, extra = self._pending[:nfree], self._pending[nfree:]
        self._pending = []
        for i, conn in zip(self._free, seated):
            self._seat_conn(self.seats[i], conn)
        for conn in extra:
            self.refusals.log("%s refused: the table is full (the game starts)", conn.who())
            conn.writer = asyncio.ensure_future(conn.ws.close(1013, "table full"))

    # -- sending ----------------------------------------------------------------------
    async def _broadcast(self, msg: Dict[str, Any]) -> None:
        self._spectate()
        text = json.dumps(msg)
        for s in self.seats:
            s.enqueue(text)
        await asyncio.sleep(0)

    async def _close_all(self) -> None:
        """Flush every queue, then close every connection (bounded in time)."""
        writers = []
        for s in self.seats:
            conn = s.conn
            if conn is not None and conn.open and conn.writer is not None:
                conn.queue.put_nowait(CLOSE)
                writers.append(conn.writer)
        if not writers:
            return
        bound = 2 * (self.send_timeout or 10.0) + 1.0
        done, pending = await asyncio.wait(writers, timeout=bound)
        for s in self.seats:
            if s.conn is not None and s.conn.writer in pending:
                self.drop(s.conn, "not closed in time")

    # -- the session --------------------------------------------------------------------
    async def _round(self, g: Game) -> None:
        rnd, rank = g.round_index, g.level
        for s in self.seats:
            await s.send(messages.beginning(g, s.index))
        self._spectate()
        if g.tribute.anti:
            await self._broadcast(messages.anti_tribute(g))
        elif g.phase == "tribute":
            await self._exchange(g, "tribute")
            await self._exchange(g, "back")
        while not self._aborted and not g.is_over and g.round_index == rnd:
            move = await self.seats[g.to_act].decide(g, "play")
            if move is None or self._aborted:
                return
            note = messages.played(g, move)
            g.play(move)
            await self._broadcast(note)
        if self._aborted:
            return
        await self._broadcast(messages.episode_over(g, rank))

    async def _exchange(self, g: Game, stage: str) -> None:
        while not self._aborted and g.phase == stage:
            move = await self.seats[g.to_act].decide(g, stage)
            if move is None or self._aborted:
                return
            g.play(move)
        if self._aborted:
            return
        await self._broadcast(messages.exchanged(g, stage))

    async def _session(self) -> None:
        victory = [0, 0, 0, 0]
        draws = [0, 0, 0, 0]
        for gi in range(self.games):
            if self._aborted:
                break
            if self.game_factory is not None:
                g = self.game_factory(gi)
            else:
                g = Game(rules=self.rules, seed=(self.seed + gi) % (1 << 63))
            self.game = g
            first = g.round_index
            while not self._aborted and not g.is_over and (
                    self.until == "game" or g.round_index == first):
                await self._round(g)
            if self._aborted:
                break
            w = g.winner
            if self.until == "round" and w is None and g.last_round_order:
                w = g.last_round_order[0] & 1       # the banker's team wins the deal
            for s in range(4):
                if w is None:
                    draws[s] += 1
                elif (s & 1) == w:
                    victory[s] += 1
            path = self._save_record(g, gi)
            self.tell(self._result_line(g, gi, w, path))
            await self._broadcast(messages.game_over(gi + 1, self.games))
        if not self._aborted:
            await self._broadcast(messages.game_result(victory, draws))

    def tell(self, line: str) -> None:
        """A line for the operator: ``announce(line)``, else logged (INFO)."""
        if self.announce is not None:
            self.announce(line)
        else:
            log.info("%s", line)

    def _result_line(self, g: Game, gi: int, w: Optional[int], path: Optional[str]) -> str:
        rounds = g.round_index
        lv = g.team_levels
        who = "no winner" if w is None else f"team {w} (seats {w} and {w + 2}) wins"
        where = f"; record {path}" if path else ""
        title = f"{self.title}: " if self.title else ""
        return (f"{title}game {gi + 1} of {self.games} over after {rounds} round"
                f"{'' if rounds == 1 else 's'}: {who}, levels {lv[0]} / {lv[1]}{where}")

    def _save_record(self, g: Game, gi: int) -> Optional[str]:
        """Keep the record of game ``gi``; the file it was written to, if any."""
        rec = g.record()
        self.games_played = gi + 1
        self.records.append(rec)
        if self.record_dir:
            if self._record_tag is None:
                self._record_tag = record_tag()
            path = os.path.join(self.record_dir, record_file_name(self._record_tag, gi))
            try:
                os.makedirs(self.record_dir, exist_ok=True)
                with atomic_write(path, "w") as f:
                    json.dump(rec, f)
            except OSError as e:
                log.error("record of game %d not written to %s: %s", gi + 1, path, e)
            else:
                return path
        return None

    async def serve_table(self) -> List[Dict[str, Any]]:
        """Play this table's session on the connections routed to it; the
        last ``keep_records`` records."""
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
                        await within(c.ws.close(1013, "table closed"), 2)
                    except Exception:
                        pass
            self._pending = []
        return list(self.records)
