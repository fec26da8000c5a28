"""Seats of a contest table and what a seat does when it fails.

A :class:`Seat` is played by a client connection, a built-in policy (a
name of :mod:`guandan.policies`) or a Python policy ``(observation,
legal_moves) -> move``. :meth:`Seat.decide` is the one question a table
asks a seat: the legal :class:`~guandan.moves.Move` it plays, whoever
plays it, with its :class:`FaultPolicy` applied on the way:

* ``on_timeout``: ``"default"`` (the default action, index 0 of the
  ``actionList``; the late answer rule follows) or ``"forfeit"``;
* ``on_invalid``: ``"ignore"`` (logged, the table keeps waiting) or ``"forfeit"``;
* ``on_disconnect``: ``"bot"`` (the greedy bot plays the seat from then
  on), ``"abort"`` (the session ends) or ``"forfeit"`` (it ends, the seat named);
* ``max_misses``: questions in a row without any answer that make a seat
  hung (disconnected with code 1008; 0: never);
* ``game_time``: a seat's thinking seconds in the whole session (then it forfeits).

A client seat hears its connection's frames (:meth:`Seat.hear`: the
answer to its question, the late answer owed after a timeout, or a frame
ignored) and its disconnection (:meth:`Seat.lost`). What the seat needs
from its table (the limits, ending the session, dropping a connection) is
the :class:`SeatHost` protocol.

The parts of a decision that need no socket are plain functions: the
answer parsed once (:func:`parse_answer`) and a Python policy's answer
turned into a legal move (:func:`policy_move`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Protocol, Union

from .._aio import within
from ..errors import GuandanError
from ..game import Game
from ..moves import Move, MoveList
from ..policies import is_fixed_native
from . import messages
from .connections import Conn

__all__ = ["Seat", "SeatHost", "FaultPolicy", "parse_answer", "policy_move"]

log = logging.getLogger("guandan.server")

PythonPolicy = Callable[[Dict[str, Any], MoveList], Any]

MAX_ANSWER = 1024               # characters of the longest frame read as an answer
_END = -1                       # the question's answer when the session ends
_BOT = -2                       # ... when the seat left and the bot plays it


@dataclass(frozen=True)
class FaultPolicy:
    """What a table does about a seat's faults (module docstring)."""

    on_timeout: str = "default"
    on_invalid: str = "ignore"
    on_disconnect: str = "bot"
    max_misses: int = 5
    game_time: Optional[float] = None

    def __post_init__(self) -> None:
        if self.on_disconnect not in ("bot", "abort", "forfeit"):
            raise GuandanError("on_disconnect must be 'bot', 'abort' or 'forfeit'")
        if self.on_timeout not in ("default", "forfeit") or self.on_invalid not in ("ignore", "forfeit"):
            raise GuandanError("on_timeout is 'default' or 'forfeit'; on_invalid 'ignore' or 'forfeit'")
        if self.max_misses < 0:
            raise GuandanError("max_misses must be >= 0")

    @property
    def forfeits_on_time(self) -> bool:
        """A late seat forfeits (so no late answer can follow)."""
        return self.on_timeout == "forfeit" or bool(self.game_time)


class SeatHost(Protocol):
    """What a seat needs from its table (:class:`~.table.Table` is one)."""

    faults: FaultPolicy
    timeout: Optional[float]        # seconds a client may think (None: forever)
    late_grace: float               # seconds a late answer is waited for

    @property
    def aborted(self) -> bool:
        """The session is ending: questions are answered with nothing."""

    @property
    def done(self) -> bool:
        """The session is over."""

    def abort(self, seat: int, reason: str) -> None:
        """End the session, ``seat`` forfeiting for ``reason`` (as :meth:`end_session`)."""

    def end_session(self) -> None:
        """End the session without naming a seat: ``aborted`` is set and every
        question asked is answered with nothing (:meth:`Seat.interrupt`)."""

    def drop(self, conn: Conn, why: str, close: Optional[int] = None) -> None:
        """Disconnect ``conn`` (with a close frame of code ``close``, or cut)."""


class Seat:
    """One seat: who plays it (``policy``: a built-in name, a Python policy,
    or None for a client holding ``conn``) and the state of its question."""

    def __init__(self, index: int, policy: Union[None, str, PythonPolicy],
                 host: Optional[SeatHost] = None) -> None:
        self.index = index
        self.policy = policy
        self.host = host
        self.conn: Optional[Conn] = None    # its connection while a client holds it
        self.label = ""
        self.waiting: Optional[asyncio.Future] = None   # the answer awaited
        self.range = -1                            # indexRange of the question asked
        self.owed_until: Optional[float] = None    # a stale answer is owed until then
        self.owed_range = -1                       # indexRange of the question it answers
        self.misses = 0                            # questions in a row without any answer
        self._late: Optional[asyncio.Event] = None  # set when it has arrived (or the seat left)
        self.think = 0.0                           # seconds it took to answer, in all

    @property
    def ws(self) -> Any:
        return self.conn.ws if self.conn is not None else None

    @property
    def is_client(self) -> bool:
        return self.policy is None and self.conn is not None

    @property
    def asked(self) -> bool:
        return self.waiting is not None and not self.waiting.done()

    @property
    def late(self) -> asyncio.Event:
        """Set once the late answer owed has arrived (or the seat left);
        made in the running loop on first use."""
        if self._late is None:
            self._late = asyncio.Event()
        return self._late

    def _table(self) -> SeatHost:
        if self.host is None:
            raise GuandanError(f"seat {self.index} is at no table")
        return self.host

    def take(self, conn: Conn) -> None:
        """``conn`` holds this seat from now on."""
        self.conn, self.label, conn.seat = conn, conn.label, self

    def interrupt(self, answer: int = _END) -> None:
        """Answer the question asked, if any, with ``answer`` (the session ends)."""
        fut = self.waiting
        if fut is not None and not fut.done():
            fut.set_result(answer)

    # -- sending --------------------------------------------------------------------
    def enqueue(self, text: str) -> None:
        """Queue ``text`` for the client (none: nothing); an overflow drops it."""
        conn = self.conn
        if conn is None:
            return
        why = conn.enqueue(text)
        if why is not None:
            self._table().drop(conn, why)

    async def send(self, msg: Dict[str, Any]) -> None:
        self.enqueue(json.dumps(msg))
        await asyncio.sleep(0)          # let the writers run

    # -- the decision ---------------------------------------------------------------
    async def decide(self, game: Game, stage: str) -> Optional[Move]:
        """The move of this seat, the seat to act in ``game``, in ``stage``
        (``"play"``, ``"tribute"``, ``"back"``); None when the session ends
        meanwhile. The legal list is generated once (none for a built-in
        bot), a client's answer parsed once (:meth:`hear`)."""
        host = self._table()
        if host.aborted:
            return None
        policy = self.policy
        if policy is not None and not isinstance(policy, str):
            return await self._python_move(game, policy)
        if policy is None and self.conn is not None and self.owed_until is not None:
            await self._wait_late(self.owed_until)
            if host.aborted:
                return None
        if self.policy is None and self.conn is not None:
            return await self._client_move(game, stage)
        if not isinstance(self.policy, str):
            self.policy = "greedy"
        return await self._named_move(game, self.policy)

    async def _named_move(self, game: Game, spec: str) -> Move:
        """A named policy's move: a fixed native policy (microseconds) in
        the loop, anything else (a search with its budget, a registered
        Python policy) in a worker thread, so that no table's bot stalls the
        loop the other connections share."""
        if is_fixed_native(spec):
            return game.choose(spec)
        return await asyncio.to_thread(game.choose, spec)

    async def _client_move(self, game: Game, stage: str) -> Optional[Move]:
        # contest order: the platform's actionList order (tribute/back: the generator's)
        legal = game.legal_moves(order="contest") if stage == "play" else game.legal_moves()
        actions = legal.to_platform()
        idx = await self._ask(messages.act(game, self.index, stage, actions), len(actions))
        if idx == _BOT:                     # disconnected while asked: the bot answers
            return await self._named_move(game, self.policy if isinstance(self.policy, str) else "greedy")
        if idx < 0:
            return None
        return legal[idx]

    def _limit(self) -> Optional[float]:
        host = self._table()
        lim = host.timeout
        game_time = host.faults.game_time
        if game_time:
            left = max(0.0, game_time - self.think)
            lim = left if lim is None else min(lim, left)
        return lim

    async def _wait_late(self, until: float) -> None:
        """Hold the next question until the late answer owed after a timeout
        has arrived, or the grace period is over."""
        left = until - asyncio.get_running_loop().time()
        if left > 0 and not self.late.is_set():
            try:
                await within(self.late.wait(), left)
            except asyncio.TimeoutError:
                log.info("seat %d: no late answer within the %.3gs grace period; asking "
                         "the next question", self.index, self._table().late_grace)
        self.owed_until = None

    async def _ask(self, msg: Dict[str, Any], n: int) -> int:
        """Send the question, wait for its answer under the fault policy: the
        index answered, 0 (the default action), _END (the session ends),
        _BOT (the seat left and the bot plays it)."""
        host = self._table()
        loop = asyncio.get_running_loop()
        forfeit = host.faults.forfeits_on_time
        limit = self._limit() if forfeit else host.timeout
        self.range = n - 1
        self.waiting = fut = loop.create_future()
        await self.send(msg)
        t0 = loop.time()
        try:
            idx = await (within(asyncio.shield(fut), limit) if limit else fut)
        except asyncio.TimeoutError:
            if fut.done() and not fut.cancelled():
                idx = fut.result()          # answered (or left) as the timer fired
            elif forfeit:
                what = (f"no answer within {limit:.3g}s" if limit == host.timeout else
                        f"{host.faults.game_time:g}s of thinking in the game used up")
                host.abort(self.index, f"timeout: {what}")
                idx = _END
            else:
                idx = self._missed(n)
        finally:
            if not fut.done():
                fut.cancel()
            self.waiting = None
            if forfeit:
                self.think += loop.time() - t0
        return idx

    def _missed(self, n: int) -> int:
        """A question left without an answer in time: the default action, a
        late answer owed, or the seat dropped as hung."""
        host = self._table()
        log.warning("seat %d: no answer within %.3gs, default action 0", self.index, host.timeout)
        self.misses += 1
        mm = host.faults.max_misses
        if self.conn is not None and mm and self.misses >= mm:
            host.drop(self.conn, f"{self.misses} questions in a row without an answer "
                      "(not even late): treated as disconnected", close=1008)
        elif self.conn is not None and host.late_grace > 0:
            self.owed_until = asyncio.get_running_loop().time() + host.late_grace
            self.owed_range = n - 1
            self.late.clear()
        return 0

    async def _python_move(self, game: Game, policy: PythonPolicy) -> Optional[Move]:
        """A Python policy's move, computed in a daemon thread (one that never
        returns cannot block the table) under the same limits."""
        host = self._table()
        loop = asyncio.get_running_loop()
        obs, legal = game.observation(self.index), game.legal_moves()
        fut: asyncio.Future = loop.create_future()

        def settle(r: Any) -> None:
            if not fut.done():
                fut.set_result(r)

        def work() -> None:
            try:
                r: Any = ("ok", policy(obs, legal))
            except BaseException as e:          # reported as a forfeit below
                r = ("error", e)
            loop.call_soon_threadsafe(settle, r)

        t0 = time.monotonic()
        threading.Thread(target=work, daemon=True, name=f"guandan-seat-{self.index}").start()
        limit = self._limit()
        try:
            kind, val = await within(asyncio.shield(fut), limit)
        except asyncio.TimeoutError:
            self.think += time.monotonic() - t0
            host.abort(self.index, f"timeout: no answer within {limit:.3g}s")
            return None
        self.think += time.monotonic() - t0
        if kind == "error":
            host.abort(self.index, f"crash: {type(val).__name__}: {str(val)[:200]}")
            return None
        try:
            return policy_move(val, legal, game.level)
        except GuandanError as e:
            host.abort(self.index, f"illegal move: {str(e)[:200]}")
            return None

    # -- what the client sends --------------------------------------------------------
    def hear(self, raw: str) -> None:
        """A text frame from the client holding this seat: the answer to its
        question, a late answer owed after a timeout (discarded), or
        something ignored (or forfeited for)."""
        conn = self.conn
        if conn is None:
            return
        asked = self.asked
        if not asked and self.owed_until is None:
            conn.ignore("message while not asked", raw)
            return
        if len(raw) > MAX_ANSWER:
            conn.ignore(f"longer than any answer ({MAX_ANSWER} characters), not read", raw[:100])
            return
        idx = parse_answer(raw)
        if not asked:
            if idx is not None and 0 <= idx <= self.owed_range:
                self.owed_until = None
                self.misses = 0
                self.late.set()
                log.warning("%s: late answer %.100r to the question that timed out, discarded",
                            conn.who(), raw)
            else:
                conn.ignore("message while not asked", raw)
            return
        if idx is None or not 0 <= idx <= self.range:
            if self._table().faults.on_invalid == "forfeit":
                self._table().abort(self.index, f"invalid answer {raw!r:.80} (need "
                                    f"{{\"actIndex\": 0..{self.range}}})")
                return
            if idx is None and _not_json(raw):
                conn.ignore("not JSON", raw)
                return
            conn.ignore(f"invalid answer (need {{\"actIndex\": 0..{self.range}}}), still "
                        "waiting", raw)
            return
        self.misses = 0
        self.interrupt(idx)

    def lost(self, why: str = "") -> None:
        """The client holding this seat is gone: the fault policy's
        ``on_disconnect`` applies (once the session is over: nothing)."""
        host = self._table()
        conn, self.conn = self.conn, None
        self.late.set()
        if host.done:
            return
        log.warning("seat %d (%s) disconnected: %s", self.index, conn.label if conn else "?", why)
        if host.faults.on_disconnect == "forfeit":
            host.abort(self.index, f"disconnected: {why}")
            return
        if host.faults.on_disconnect == "abort":
            host.end_session()
            return
        self.policy = "greedy"
        log.warning("seat %d is played by the greedy bot from now on", self.index)
        self.interrupt(_BOT)                # the bot answers (see _client_move)


def _not_json(raw: str) -> bool:
    try:
        json.loads(raw)
    except (ValueError, TypeError, RecursionError):
        return True
    return False


def parse_answer(raw: Any) -> Optional[int]:
    """The index of an answer frame ``{"actIndex": N}`` (None when it is not
    one: not text, not JSON, no integer ``actIndex``). Range is the caller's."""
    if not isinstance(raw, str):
        return None
    try:
        msg = json.loads(raw)
    except (ValueError, TypeError, RecursionError):
        return None
    idx = msg.get("actIndex") if isinstance(msg, dict) else None
    return idx if type(idx) is int else None


def policy_move(answer: Any, legal: MoveList, level: str) -> Move:
    """A Python policy's answer (a :class:`Move`, a platform triple or an
    index into ``legal``) as one of ``legal``; GuandanError when it is none."""
    if isinstance(answer, bool):
        raise GuandanError("a bool is not a move")
    if isinstance(answer, int):
        if not 0 <= answer < len(legal):
            raise GuandanError(f"index {answer} outside 0..{len(legal) - 1}")
        return legal[answer]
    try:
        m = answer if isinstance(answer, Move) else Move.from_platform(answer, level)
    except (TypeError, ValueError, IndexError, KeyError) as e:
        raise GuandanError(str(e)) from None
    i = legal.index_of(m)
    if i < 0:
        raise GuandanError(f"{m} is not a legal move now")
    return legal[i]
