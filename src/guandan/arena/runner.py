"""Playing the duplicate pairs: native batches, Python batches, forfeits.

A *task* plays a batch of duplicate deals for one pairing (participant A
against B) and returns one pair result per deal; each result depends only
on (deal spec, participants, rules), never on which worker or batch played
it, so the same seed gives the same results for any concurrency.

* Built-in participants without options on both sides: the native loop
  (:func:`guandan.simulation.play_starts`), GIL released, run on threads.
* Otherwise (an in-process bot or a policy with options on either side):
  :class:`guandan.Game`, in worker processes. Each decision of a Python
  participant is timed; a participant that raises, returns something that is
  not a legal move, exceeds the per-move limit or its per-game thinking
  budget loses the half by forfeit (reason recorded). In a worker's main
  thread (process pools: the default) a SIGALRM timer interrupts a bot that
  hangs; elsewhere (threads, Dask) the limit is checked when it returns.
* External participants: :mod:`guandan.arena.external` (a table server).
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from ..errors import GuandanError
from .schedule import RANKS, DealSpec

__all__ = ["Limits", "play_batch_native", "play_batch_python", "play_batch_isolated",
           "half_result", "pair_result"]

_REPORT: Any = None        # in an isolated child: the pipe that names the side thinking


@dataclass(frozen=True)
class Limits:
    """Time limits (seconds) and the round cap of whole games.

    ``move_time``: one decision of an in-process or external participant
    (default 10 s). ``game_time``: a participant's total thinking time in one
    game, i.e. one half of a duplicate deal (default 120 s). ``connect_time``:
    an external program must connect to its table within this (default 30 s).
    ``max_rounds``: a whole game (``unit="game"``) stops after this many
    rounds (the higher team wins, equal levels draw) unless the rules set
    their own cap (default 100). A table that runs longer than
    ``game_time * 2 + connect_time + 30`` is abandoned (both external sides
    forfeit if neither is to blame)."""

    move_time: float = 10.0
    game_time: float = 120.0
    connect_time: float = 30.0
    max_rounds: int = 100

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


class MoveTimeout(BaseException):
    """Raised inside a bot that overran its time (BaseException so that a
    bot's own ``except Exception`` cannot swallow it)."""


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    """Interrupt the block with MoveTimeout after ``seconds`` (main thread of
    a POSIX process only; elsewhere a no-op)."""
    usable = (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread())
    if not usable or seconds <= 0 or math.isinf(seconds):
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise MoveTimeout()

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# Held around every fork the arena makes (process-pool workers, replayed
# halves, external programs). A worker forked while another thread is
# starting a program would inherit that Popen's pipe, which then never sees
# EOF: the start would wait forever.
SPAWN_LOCK = threading.Lock()

PR_SET_PDEATHSIG = 1
_PRCTL: List[Any] = []


def _prctl() -> Optional[Any]:
    """libc's ``prctl`` (Linux only), or None."""
    if not _PRCTL:
        fn = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes
                fn = ctypes.CDLL(None, use_errno=True).prctl
                fn.restype = ctypes.c_int
                fn.argtypes = [ctypes.c_int, ctypes.c_ulong]
            except (OSError, AttributeError, ImportError):
                fn = None
        _PRCTL.append(fn)
    return _PRCTL[0]


def worker_init(parent: Optional[int] = None) -> None:
    """The initializer of the arena's worker processes: Ctrl-C is the arena's
    to handle (it ends its workers itself), and on Linux the worker gets
    SIGKILL when the arena ends, however it ends (a no-op elsewhere)."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if hasattr(signal, "SIGTERM"):
            signal.signal(signal.SIGTERM, signal.SIG_DFL)   # not the arena's handler (fork)
    except (ValueError, OSError):
        pass
    prctl = _prctl()
    if prctl is None:
        return
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if parent is not None and os.getppid() != parent:      # the arena died before that
        os._exit(1)


def seats_of(half: int, side: int) -> Tuple[int, int]:
    """Seats of side 0 (participant A) or 1 (B) in ``half``: A holds team 0's
    seats (0, 2) in half 0 and team 1's (1, 3) in half 1."""
    team = side ^ half
    return (team, team + 2)


def half_result(spec: DealSpec, half: int, unit: str, order: Sequence[int], winner: int,
                points: int, decisions: int, rounds: int, levels: Sequence[int],
                forfeit: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """One half from A's point of view. ``score``: 1 won, 0 lost, 1/2 drawn
    (a whole game undecided at the round cap). ``points``: deals: the
    banker team's level points (1..3, before the cap at A) signed for A;
    games: +1 / -1 / 0. A forfeit scores 0 (deals: -3 points) for the side
    at fault."""
    a_team = half                  # A's team index in this half
    if forfeit is not None:
        s = 0.0 if forfeit["side"] == 0 else 1.0
        pts = (-3 if forfeit["side"] == 0 else 3) if unit == "deal" else (-1 if forfeit["side"] == 0 else 1)
    elif unit == "deal":
        banker_team = order[0] & 1
        s = 1.0 if banker_team == a_team else 0.0
        pts = points if banker_team == a_team else -points
    else:
        s = 0.5 if winner < 0 else (1.0 if winner == a_team else 0.0)
        pts = 0 if winner < 0 else (1 if winner == a_team else -1)
    return {"deal": spec.index, "half": half, "score": s, "points": int(pts),
            "order": [int(x) for x in order], "winner": int(winner), "decisions": int(decisions),
            "rounds": int(rounds), "levels": [RANKS[int(x)] for x in levels], "forfeit": forfeit}


def pair_result(spec: DealSpec, halves: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {"deal": spec.index, "spec": spec.to_dict(), "halves": halves,
            "pair": halves[0]["score"] + halves[1]["score"],
            "pair_points": halves[0]["points"] + halves[1]["points"]}


def _rules_for(rules: Any, unit: str, limits: Limits) -> Any:
    from ..rules import Rules
    r = rules if rules is not None else Rules.default()
    if unit == "game" and r.max_rounds is None and limits.max_rounds:
        r = r.replace(max_rounds=int(limits.max_rounds))
    return r


def play_batch_native(a: str, b: str, specs: Sequence[DealSpec], unit: str, rules: Any,
                      limits: Limits, records: bool) -> Tuple[List[Dict[str, Any]], List[Any]]:
    """Both halves of each deal in the native loop (``a``, ``b``: native
    policy names). Returns the pair results and (with ``records``) one
    ``[record_half0, record_half1]`` per deal."""
    from ..simulation import play_starts
    r = _rules_for(rules, unit, limits)
    seeds = [s.seed for s in specs]
    kw: Dict[str, Any] = {}
    if unit == "deal":
        kw = dict(levels=[s.team_levels for s in specs], owner=[s.owner for s in specs],
                  last_order=[s.last_order for s in specs])
    out = []
    for half in (0, 1):
        pols = [a, b, a, b] if half == 0 else [b, a, b, a]
        out.append(play_starts(seeds, pols, unit=unit, rules=r, records=records,
                               policy_seeds=[s.half_policy_seed(half) for s in specs], **kw))
    results = []
    for i, spec in enumerate(specs):
        halves = []
        for half in (0, 1):
            rows = out[half][0]
            halves.append(half_result(spec, half, unit, rows["order"][i], int(rows["winner"][i]),
                                      int(rows["points"][i]), int(rows["decisions"][i]),
                                      int(rows["rounds"][i]), rows["levels"][i]))
        results.append(pair_result(spec, halves))
    recs0, recs1 = out[0][1] or [], out[1][1] or []        # lists when records is set
    recs = [[recs0[i], recs1[i]] for i in range(len(specs))] if records else []
    return results, recs


def _as_move(choice: Any, legal: Any) -> Any:
    if isinstance(choice, bool):
        raise GuandanError("the bot returned a bool, not a move")
    if isinstance(choice, int):
        if not 0 <= choice < len(legal):
            raise GuandanError(f"index {choice} outside 0..{len(legal) - 1}")
        return legal[choice]
    if choice is None:
        raise GuandanError("the bot returned None")
    return choice


def play_half_python(spec: DealSpec, half: int, players: Sequence[Any], names: Sequence[str],
                     unit: str, rules: Any, limits: Limits) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """One half through :class:`guandan.Game` (players: the two
    :class:`Participant` objects A, B). Returns (half result, record)."""
    r = _rules_for(rules, unit, limits)
    g = spec.game(r, unit, half)
    seat_side = [0, 1, 0, 1] if half == 0 else [1, 0, 1, 0]
    ps = spec.half_policy_seed(half)
    pols = [players[seat_side[s]].make(ps ^ (s + 1)) for s in range(4)]
    used = [0.0, 0.0]
    forfeit: Optional[Dict[str, Any]] = None
    decisions = 0
    while not g.is_over and (unit == "game" or g.round_index == 0):
        seat = g.to_act
        side = seat_side[seat]
        p = pols[seat]
        if isinstance(p, str):
            g.play_policy(p)
            decisions += 1
            continue
        budget = min(limits.move_time, limits.game_time - used[side])
        obs = g.observation(seat)
        legal = g.legal_moves()
        t0 = time.monotonic()
        reason = None
        choice = None
        if _REPORT is not None:
            _REPORT.send(("side", side, seat))       # who is thinking, should the process die
        try:
            with _alarm(budget + 0.05):
                choice = p(obs, legal)
        except MoveTimeout:
            reason = "timeout"
        except Exception as e:  # a crashing bot forfeits, the match goes on
            reason = f"crash: {type(e).__name__}: {str(e)[:200]}"
        dt = time.monotonic() - t0
        used[side] += dt
        if reason is None and dt > limits.move_time:
            reason = "timeout"
        if reason is None and used[side] > limits.game_time:
            reason = "timeout"
        if reason == "timeout":
            reason = (f"timeout: {dt:.2f} s for one move (limit {limits.move_time:g} s)"
                      if dt >= budget else
                      f"timeout: {used[side]:.1f} s in the game (limit {limits.game_time:g} s)")
        if reason is None:
            try:
                g.play(_as_move(choice, legal))
            except GuandanError as e:
                reason = f"illegal move: {str(e)[:200]}"
        if reason is not None:
            forfeit = {"side": side, "name": names[side], "seat": seat, "reason": reason,
                       "decision": decisions}
            break
        decisions += 1
    order = g.last_round_order if (g.round_index > 0 and forfeit is None) else [0, 1, 2, 3]
    points = 0
    if forfeit is None and order:
        ppos = order.index((order[0] + 2) % 4)
        points = 4 - ppos
    lv = [RANKS.index(x) for x in g.team_levels]
    res = half_result(spec, half, unit, order, g.winner if g.winner is not None else -1, points,
                      decisions, g.round_index, lv, forfeit)
    rec = g.record()
    return res, rec


def play_batch_python(a: Any, b: Any, specs: Sequence[DealSpec], unit: str, rules: Any,
                      limits: Limits, records: bool) -> Tuple[List[Dict[str, Any]], List[Any]]:
    """Both halves of each deal through :class:`guandan.Game` (``a``, ``b``:
    :class:`Participant` objects)."""
    results, recs = [], []
    names = (a.name, b.name)
    for spec in specs:
        halves, hr = [], []
        for half in (0, 1):
            res, rec = play_half_python(spec, half, (a, b), names, unit, rules, limits)
            halves.append(res)
            hr.append(rec)
        results.append(pair_result(spec, halves))
        if records:
            recs.append(hr)
    return results, recs


def _isolated_child(conn: Any, spec: DealSpec, half: int, players: Any, names: Any, unit: str,
                    rules: Any, limits: Limits, parent: Optional[int] = None) -> None:
    global _REPORT
    _REPORT = conn
    worker_init(parent)
    try:
        res, rec = play_half_python(spec, half, players, names, unit, rules, limits)
        conn.send(("result", res, rec))
    finally:
        conn.close()


def _watch_isolated(proc: Any, parent: Any, limits: Limits) -> Tuple[Any, Any, Optional[str]]:
    """Wait for an isolated half: (result or None, the side thinking last, why)."""
    last: Optional[Tuple[int, int]] = None
    got = None
    why = None
    deadline = time.monotonic() + 2 * limits.game_time + 30
    while got is None:
        if parent.poll(0.05):
            try:
                msg = parent.recv()
            except (EOFError, OSError):
                break
            if msg[0] == "side":
                last = (msg[1], msg[2])
            else:
                got = (msg[1], msg[2])
        elif not proc.is_alive() and not parent.poll():
            break
        if time.monotonic() > deadline:
            why = f"timeout: the game ran past {2 * limits.game_time + 30:g} s"
            proc.kill()
            break
    return got, last, why


def play_batch_isolated(a: Any, b: Any, specs: Sequence[DealSpec], unit: str, rules: Any,
                        limits: Limits, records: bool) -> Tuple[List[Dict[str, Any]], List[Any]]:
    """As :func:`play_batch_python`, each half in a process of its own, for a
    batch whose worker process died (a bot that killed its process, crashed
    the interpreter, or hung where no timer reaches it): the half whose
    process dies, or outlives ``2 * game_time + 30`` s, is forfeited by the
    side that was thinking."""
    import multiprocessing as mp
    ctx = mp.get_context()
    names = (a.name, b.name)
    results, recs = [], []
    for spec in specs:
        halves, hr = [], []
        for half in (0, 1):
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_isolated_child, daemon=True,
                               args=(child, spec, half, (a, b), names, unit, rules, limits,
                                     os.getpid()))
            with SPAWN_LOCK:
                proc.start()
            child.close()
            try:
                got, last, why = _watch_isolated(proc, parent, limits)
                proc.join(5)
            finally:
                if proc.is_alive():                 # an interrupt, an error: no orphan
                    proc.kill()
                    proc.join(5)
                parent.close()
            if got is None:
                side, seat = last if last is not None else (0, half)
                why = why or f"crash: the bot's process died (exit code {proc.exitcode})"
                fo = {"side": side, "name": names[side], "seat": seat, "reason": why,
                      "decision": -1}
                g = spec.game(_rules_for(rules, unit, limits), unit, half)
                got = (half_result(spec, half, unit, [0, 1, 2, 3], -1, 0, 0, 0,
                                   [RANKS.index(x) for x in g.team_levels], fo), g.record())
            halves.append(got[0])
            hr.append(got[1])
        results.append(pair_result(spec, halves))
        if records:
            recs.append(hr)
    return results, recs
