"""External participants: programs that speak the contest protocol.

The arena runs one multi-table server (:class:`guandan.server.MultiTableServer`)
on a free local port, in a background thread with its own event loop. Each
half of a duplicate deal is one table: a :class:`guandan.server.Table`
that plays exactly that start (``game_factory``), one round (deals) or one
game, with the arena's forfeit rules. For every seat of an external
participant the arena starts the program with the URL of that seat
(``ws://127.0.0.1:PORT/game/a{table}s{seat}-{token}``: a label the table
reserves for the seat, so processes that connect in any order get the right
seats, with 64 random bits so that no program can guess another seat's URL
and take it by connecting first; the bot itself sees only an ordinary
contest URL). Seats of built-in or
in-process participants are played by the table itself.

Forfeits (the side at fault loses the half): no connection within
``connect_time``; a disconnect or a process exit during the game; no
answer within ``move_time``; an invalid answer (not ``{"actIndex": N}`` with
N in range); thinking longer than ``game_time`` in all; a table that runs
past its wall-clock bound (the side that used more thinking time). After the
table ends (``gameResult`` sent, connections closed) the programs get 2 s to
exit, then their process groups are killed: always, also when the program
itself has exited (a wrapper's helpers would live on otherwise), and on every
path (end of a table, a forfeit, an error, :meth:`ExternalTables.close`).
Each program leads a session of its own (its own process group); on Linux it
also gets a parent-death signal, so it ends with the arena even when the
arena is killed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import itertools
import logging
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .._aio import within
from .participants import Participant
from .runner import (PR_SET_PDEATHSIG, SPAWN_LOCK, Limits, _prctl, _rules_for, half_result,
                     pair_result)
from .schedule import RANKS, DealSpec

__all__ = ["ExternalTables"]

log = logging.getLogger("guandan.arena")


class ExternalTables:
    """Runs pairings that involve external programs (``submit`` returns a
    ``concurrent.futures.Future`` of ``(pair results, records)``)."""

    def __init__(self, rules: Any, unit: str, limits: Limits, concurrency: int,
                 spectators: Any = None) -> None:
        self.spectators = spectators          # a guandan.feed.Spectators hub: tables are watchable
        self.rules = _rules_for(rules, unit, limits)
        self.unit = unit
        self.limits = limits
        self.concurrency = max(1, concurrency)
        self._ids = itertools.count()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run_loop, name="guandan-arena-tables",
                                        daemon=True)
        self._server: Any = None
        self._error: Optional[BaseException] = None
        self._tmp = tempfile.mkdtemp(prefix="guandan-arena-")
        self._procs: List[subprocess.Popen] = []
        slog = logging.getLogger("guandan.server")
        if not slog.handlers:
            # forfeits are reported by the arena; the server's warnings go to the
            # application's logging (guandan arena -v) instead of stderr
            slog.addHandler(logging.NullHandler())
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            raise self._error

    # -- the loop thread ------------------------------------------------------------
    def _run_loop(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            from ..server import MultiTableServer
            self._server = MultiTableServer("127.0.0.1", 0, tables=0)
            self._loop.run_until_complete(self._server.start())
            self._sem = asyncio.Semaphore(self.concurrency)
        except BaseException as e:       # reported to the constructor
            self._error = e
            self._ready.set()
            return
        self._ready.set()
        self._loop.run_forever()
        try:
            # tables still playing (an interrupted run): cancelled, so that
            # each one's cleanup (its programs' groups killed) runs
            self._cancel_all()
            self._loop.run_until_complete(self._server.stop())
            self._cancel_all()          # what the cleanups and the stop started (writers)
        finally:
            self._loop.close()

    def _cancel_all(self) -> None:
        """Cancel every task of the loop and wait for them (up to 10 s), again
        while cancelling starts new ones (at most three rounds)."""
        for _ in range(3):
            tasks = [t for t in asyncio.all_tasks(self._loop) if not t.done()]
            if not tasks:
                return
            for t in tasks:
                t.cancel()
            self._loop.run_until_complete(asyncio.wait(tasks, timeout=10))

    @property
    def port(self) -> int:
        return self._server.bound_port

    def submit(self, a: Participant, b: Participant, specs: Sequence[DealSpec],
               records: bool) -> cf.Future:
        return asyncio.run_coroutine_threadsafe(self._pairs(a, b, list(specs), records), self._loop)

    def close(self) -> None:
        """Kill every program still running (its whole process group), stop
        the table server, remove the programs' logs (their last lines are
        already in the forfeits that quote them). Safe to call at any time,
        from any thread."""
        for p in list(self._procs):
            _kill(p, reap=False)         # at once: an interrupted run waits for nobody
        if self._loop.is_running():
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        for p in list(self._procs):      # and those started meanwhile
            _kill(p)
        self._procs.clear()
        shutil.rmtree(self._tmp, ignore_errors=True)

    # -- tables -----------------------------------------------------------------------
    async def _pairs(self, a: Participant, b: Participant, specs: List[DealSpec],
                     records: bool) -> Tuple[List[Dict[str, Any]], List[Any]]:
        results, recs = [], []
        for spec in specs:
            # one half after the other: played at once, one participant's
            # programs would hold all four hands of the deal between them
            halves = [await self._half(spec, h, (a, b)) for h in (0, 1)]
            results.append(pair_result(spec, [h[0] for h in halves]))
            if records:
                recs.append([h[1] for h in halves])
        return results, recs

    async def _half(self, spec: DealSpec, half: int,
                    players: Tuple[Participant, Participant]) -> Tuple[Dict[str, Any], Any]:
        async with self._sem:
            return await self._play(spec, half, players)

    async def _play(self, spec: DealSpec, half: int,
                    players: Tuple[Participant, Participant]) -> Tuple[Dict[str, Any], Any]:
        from ..server import Table

        lim = self.limits
        tid = next(self._ids)
        seat_side = [0, 1, 0, 1] if half == 0 else [1, 0, 1, 0]
        names = [p.name for p in players]
        labels: Dict[int, str] = {}
        bots: Dict[int, Any] = {}
        ps = spec.half_policy_seed(half)
        for s in range(4):
            p = players[seat_side[s]]
            if p.kind == "external":
                # a seat's URL is its only key: unguessable, so that no
                # program can take another's seat by connecting first
                labels[s] = f"a{tid}s{s}-{secrets.token_hex(8)}"
            else:
                bots[s] = p.make(ps ^ (s + 1))
        unit, rules = self.unit, self.rules
        table = Table(
            games=1, rules=rules, bots=bots, seat_labels=labels, timeout=lim.move_time,
            on_timeout="forfeit", on_invalid="forfeit", on_disconnect="forfeit",
            game_time=lim.game_time, late_grace=0,
            game_factory=lambda gi: spec.game(rules, unit, half),
            until="round" if unit == "deal" else "game", seed=spec.seed)
        self._server.add_table(table)
        if self.spectators is not None:
            # the title never names the deal seed: from it anyone deals every hand
            table.publish_to(self.spectators, f"arena {names[0]} vs {names[1]}, deal "
                             f"{spec.index + 1}, half {half + 1}",
                             [names[seat_side[s]] for s in range(4)])
        procs: Dict[int, subprocess.Popen] = {}
        logs: Dict[int, str] = {}
        try:
            for s, label in labels.items():
                eng = players[seat_side[s]]
                url = f"ws://127.0.0.1:{self.port}/game/{label}"
                logs[s] = os.path.join(self._tmp, f"{label}.log")
                procs[s] = _spawn(eng, url, s, logs[s])
                self._procs.append(procs[s])
            task = asyncio.ensure_future(table.serve_table())
            forfeit = await self._supervise(table, task, procs, logs, seat_side, names)
        finally:
            self._server.remove_table(table)
            if self.spectators is not None:
                self.spectators.remove(table.watch_id)
            await asyncio.get_running_loop().run_in_executor(None, _reap, list(procs.values()))
            for proc in procs.values():
                if proc in self._procs:
                    self._procs.remove(proc)
        g = table.game
        if g is None:
            g = spec.game(rules, unit, half)
        if forfeit is None and table.forfeit is not None:
            forfeit = table.forfeit
        fo = None
        if forfeit is not None:
            s = forfeit["seat"]
            fo = {"side": seat_side[s], "name": names[seat_side[s]], "seat": s,
                  "reason": forfeit["reason"], "decision": len(g.moves_played)}
        order = (g.last_round_order if (g.round_index > 0 and fo is None) else None) or [0, 1, 2, 3]
        points = 0
        if fo is None and order:
            points = 4 - order.index((order[0] + 2) % 4)
        lv = [RANKS.index(x) for x in g.team_levels]
        res = half_result(spec, half, unit, order, g.winner if g.winner is not None else -1,
                          points, len(g.moves_played), g.round_index, lv, fo)
        return res, g.record()

    async def _supervise(self, table: Any, task: asyncio.Future, procs: Dict[int, subprocess.Popen],
                         logs: Dict[int, str], seat_side: List[int],
                         names: List[str]) -> Optional[Dict[str, Any]]:
        """Wait for the table; forfeit on no connection, exits, the wall bound."""
        lim = self.limits
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        bound = lim.connect_time + 2 * lim.game_time + 30
        while not task.done():
            await asyncio.wait([task], timeout=0.05)
            if task.done():
                break
            now = loop.time() - t0
            if not table.started:
                dead = [s for s, p in procs.items() if _exited(p) is not None
                        and not table.connected(s)]
                if dead:
                    s = dead[0]
                    why = (f"exited with code {_exited(procs[s])} before connecting"
                           f"{_tail(logs[s])}")
                    return await _abort(table, task, s, why)
                if now > lim.connect_time:
                    s = next(x for x in sorted(procs) if not table.connected(x))
                    return await _abort(table, task, s, f"did not connect within "
                                        f"{lim.connect_time:g} s{_tail(logs[s])}")
            elif now > bound:
                th = table.think
                side_t = [sum(th[s] for s in range(4) if seat_side[s] == k) for k in (0, 1)]
                side = 0 if side_t[0] >= side_t[1] else 1
                s = next(x for x in range(4) if seat_side[x] == side)
                return await _abort(table, task, s, f"the table ran past {bound:g} s")
        exc = task.exception()
        if exc is not None:
            raise exc
        f = table.forfeit
        if f is not None and f["seat"] in procs:
            p = procs[f["seat"]]
            code = await loop.run_in_executor(None, _wait_exit, p, 0.5)
            if code is not None and "disconnect" in f["reason"]:
                f["reason"] += f" (the program exited with code {code}){_tail(logs[f['seat']])}"
        return None


async def _abort(table: Any, task: asyncio.Future, seat: int, why: str) -> Dict[str, Any]:
    table.abort(seat, why)
    try:
        await within(asyncio.shield(task), 10)
    except (asyncio.TimeoutError, Exception):
        task.cancel()
    return {"seat": seat, "reason": why}


def _spawn(eng: Any, url: str, seat: int, log_path: str) -> subprocess.Popen:
    out = open(log_path, "wb")
    try:
        kw: Dict[str, Any] = {}
        if os.name == "posix":
            kw["start_new_session"] = True          # its own process group: killed as a whole
            death = _parent_death_hook()
            if death is not None:
                kw["preexec_fn"] = death
        with SPAWN_LOCK:            # no worker process forks meanwhile (it would keep Popen's pipe)
            p = subprocess.Popen(eng.argv(url, seat), cwd=eng.dir or None,
                                 env={**os.environ, **eng.env} if eng.env else None,
                                 stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                 **kw)
        # the group to kill, recorded now: it outlives the program itself when
        # the program leaves helpers behind
        p.pgid = p.pid if os.name == "posix" else None    # type: ignore[attr-defined]
        return p
    finally:
        out.close()


def _parent_death_hook() -> Optional[Any]:
    """On Linux, a ``preexec_fn`` that asks for SIGKILL when the arena's
    thread that started the program ends (the arena killed included); None
    elsewhere. The C function is looked up here, in the parent, so the child
    only calls it."""
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def hook() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:                  # the arena died before that
            os._exit(1)
    return hook


def _exited(p: subprocess.Popen) -> Optional[int]:
    """The exit code once the program has exited, else None, without reaping
    it where possible: the zombie keeps its pid, hence its process group id,
    from being reused until :func:`_kill` has signalled the group."""
    if p.returncode is not None:
        return p.returncode
    if os.name == "posix" and hasattr(os, "waitid"):
        try:
            r = os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:                   # reaped elsewhere
            return p.poll()
        except OSError:
            return p.poll()
        if r is None or r.si_pid == 0:
            return None
        return r.si_status if r.si_code == os.CLD_EXITED else -r.si_status
    return p.poll()


def _wait_exit(p: subprocess.Popen, timeout: float) -> Optional[int]:
    """Wait up to ``timeout`` s for the program to exit (without reaping it)."""
    end = time.monotonic() + timeout
    while True:
        code = _exited(p)
        if code is not None or time.monotonic() >= end:
            return code
        time.sleep(0.02)


def _kill(p: subprocess.Popen, reap: bool = True) -> None:
    """Kill the program's whole process group, always: also when the program
    itself has exited, so helpers it started (a wrapper's children) end with
    it. Then reap the program (``reap``)."""
    pgid = getattr(p, "pgid", None)
    if pgid is not None:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass                                    # the group is gone already
    elif p.poll() is None:
        try:
            p.kill()
        except OSError:
            pass
    if reap:
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            pass


def _reap(procs: List[subprocess.Popen]) -> None:
    """Give the programs 2 s to exit after the table closed, then kill their
    process groups (whether they exited or not)."""
    end = time.monotonic() + 2.0
    for p in procs:
        _wait_exit(p, max(0.0, end - time.monotonic()))
        _kill(p)


def _tail(path: str, n: int = 300) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - n))
            text = f.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
    if not text:
        return ""
    return f"; its output ends: {text.splitlines()[-1][:200]!r}"
