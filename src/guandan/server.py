"""A table server for the official Guandan AI-contest protocol
(``../shared/PROTOCOL.md``): JSON over WebSocket, so bots written for the
contest platform (``guandan_offline_v1006``) play against this engine
unchanged.

    guandan serve --port 23456 --games 3 --bots 1=greedy,3=greedy

Seats are given in connection order to the seats not taken by built-in
bots; games start 0.2 s after the last seat connects. Every message is one
the protocol defines; anything a client sends out of turn, malformed or out
of range is logged and ignored (the server keeps waiting, as the reference
server does). A seat that does not answer within ``timeout`` seconds plays
the *default action*: index 0 of its ``actionList`` (the pass when
following; otherwise the first listed move, the lowest-suited lowest single
when leading, or the first allowed tribute/return card). A seat that
disconnects is played by the built-in greedy bot from then on
(``on_disconnect="bot"``), or the session ends: the other connections are
closed without further messages (``"abort"``). Each game's record (the
engine's record format) is written to ``record_dir``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
from typing import Any, Dict, List, Optional

from . import _core
from .errors import GuandanError
from .game import Game
from .moves import Move, MoveType
from .policies import policy_names
from .rules import Rules

__all__ = ["TableServer", "serve", "parse_bots"]

log = logging.getLogger("guandan.server")
_RANKS = "23456789TJQKA"
_NULL = [None, None, None]


def parse_bots(spec: Optional[str]) -> Dict[int, str]:
    """``"1=greedy,3=random"`` -> ``{1: "greedy", 3: "random"}``."""
    out: Dict[int, str] = {}
    if not spec:
        return out
    for part in spec.split(","):
        try:
            seat_s, pol = part.split("=")
            seat = int(seat_s)
        except ValueError:
            raise GuandanError(f"--bots takes SEAT=POLICY,... (e.g. 1=greedy,3=random), got {part!r}") from None
        if seat not in range(4) or pol not in policy_names():
            raise GuandanError(f"bad bot {part!r}: seat 0..3, policy {' or '.join(policy_names())}")
        out[seat] = pol
    if len(out) == 4:
        raise GuandanError("all four seats are bots: nothing to serve")
    return out


class _Seat:
    def __init__(self, index: int, policy: Optional[str]) -> None:
        self.index = index
        self.policy = policy            # built-in policy name, or None for a client
        self.ws: Any = None
        self.label = ""
        self.waiting: Optional[asyncio.Future] = None
        self.range = -1


class TableServer:
    """The server. ``await TableServer(...).run()`` serves the whole session."""

    def __init__(self, host: str = "127.0.0.1", port: int = 23456, *, games: int = 1,
                 rules: Optional[Rules] = None, bots: Optional[Dict[int, str]] = None,
                 timeout: Optional[float] = None, record_dir: Optional[str] = None,
                 on_disconnect: str = "bot", seed: Optional[int] = None,
                 start_delay: float = 0.2) -> None:
        if on_disconnect not in ("bot", "abort"):
            raise GuandanError("on_disconnect must be 'bot' or 'abort'")
        if games < 1:
            raise GuandanError("games must be at least 1")
        self.host = host
        self.port = port
        self.games = games
        self.rules = rules or Rules.contest()
        self.bots = dict(bots or {})
        self.timeout = timeout
        self.record_dir = record_dir
        self.on_disconnect = on_disconnect
        self.seed = seed if seed is not None else random.SystemRandom().getrandbits(62)
        self.start_delay = start_delay
        self.seats = [_Seat(i, self.bots.get(i)) for i in range(4)]
        self._free = [i for i in range(4) if i not in self.bots]
        self._ready = asyncio.Event()
        self._aborted = False
        self._done = False
        self.game: Optional[Game] = None
        self.records: List[Dict[str, Any]] = []
        self.bound_port: Optional[int] = None

    # -- connections --------------------------------------------------------------
    async def _handler(self, ws: Any) -> None:
        path = getattr(getattr(ws, "request", None), "path", "") or ""
        if not path.startswith("/game/"):
            log.warning("connection to %r refused: the path is /game/{label}", path)
            await ws.close(1008, "path must be /game/{label}")
            return
        if not self._free or self._done:
            log.warning("connection %r refused: the table is full", path)
            await ws.close(1013, "table full")
            return
        seat = self.seats[self._free.pop(0)]
        seat.ws = ws
        seat.label = path[len("/game/"):]
        log.info("seat %d: %s connected", seat.index, seat.label)
        if not self._free:
            self._ready.set()
        try:
            async for raw in ws:
                self._on_message(seat, raw)
        except Exception as e:          # connection errors end the reader
            log.info("seat %d: connection error %s", seat.index, e)
        finally:
            if seat.ws is ws:
                self._on_disconnect(seat)

    def _on_message(self, seat: _Seat, raw: Any) -> None:
        if seat.waiting is None or seat.waiting.done():
            log.warning("seat %d: message while not asked, ignored: %.100r", seat.index, raw)
            return
        try:
            msg = json.loads(raw)
        except (ValueError, TypeError, RecursionError):
            log.warning("seat %d: not JSON, ignored: %.100r", seat.index, raw)
            return
        idx = msg.get("actIndex") if isinstance(msg, dict) else None
        if type(idx) is not int or not 0 <= idx <= seat.range:
            log.warning("seat %d: invalid answer %.100r (need {\"actIndex\": 0..%d}), waiting",
                        seat.index, raw, seat.range)
            return
        seat.waiting.set_result(idx)

    def _on_disconnect(self, seat: _Seat) -> None:
        seat.ws = None
        if self._done:
            return
        log.warning("seat %d disconnected", seat.index)
        if self.on_disconnect == "abort":
            self._aborted = True
            if seat.waiting is not None and not seat.waiting.done():
                seat.waiting.set_result(-1)
            self._ready.set()
            return
        seat.policy = "greedy"
        log.warning("seat %d is played by the greedy bot from now on", seat.index)
        if seat.waiting is not None and not seat.waiting.done():
            seat.waiting.set_result(self._bot_index(seat))

    # -- sending ----------------------------------------------------------------------
    async def _send(self, seat: _Seat, msg: Dict[str, Any]) -> None:
        if seat.ws is None:
            return
        try:
            await seat.ws.send(json.dumps(msg))
        except Exception as e:
            log.info("seat %d: send failed (%s)", seat.index, e)

    async def _broadcast(self, msg: Dict[str, Any]) -> None:
        await asyncio.gather(*(self._send(s, msg) for s in self.seats))

    # -- decisions --------------------------------------------------------------------
    def _bot_index(self, seat: _Seat) -> int:
        g = self.game
        assert g is not None
        lo, hi = g._core.pick(seat.policy or "greedy")
        return g.legal_moves().find(lo, hi)

    async def _decide(self, seat: _Seat, msg: Dict[str, Any], n: int) -> int:
        if seat.policy is not None or seat.ws is None:
            if seat.policy is None:
                seat.policy = "greedy"
            return self._bot_index(seat)
        loop = asyncio.get_running_loop()
        seat.range = n - 1
        seat.waiting = loop.create_future()
        await self._send(seat, msg)
        try:
            if self.timeout:
                idx = await asyncio.wait_for(asyncio.shield(seat.waiting), self.timeout)
            else:
                idx = await seat.waiting
        except asyncio.TimeoutError:
            log.warning("seat %d: no answer within %.3gs, default action 0", seat.index, self.timeout)
            idx = 0
        finally:
            if not seat.waiting.done():
                seat.waiting.cancel()
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
        leading = stage != "play" or g._core.top[0] < 0
        if leading:
            cur_pos, cur_act, gr_pos, gr_act = -1, _NULL, -1, _NULL
        else:
            s, m = g.trick[-1]
            cur_pos, cur_act = s, m.to_platform()
            top_seat, lo, hi, _ = g._core.top
            gr_pos, gr_act = top_seat, Move(lo, hi, g._core.rlevel).to_platform()
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
            lv = [_RANKS.index(x) + 2 for x in g.team_levels]
            await self._send(s, {"type": "notify", "stage": "beginning",
                                 "handCards": g.hands[s.index].cards(g.level), "myPos": s.index,
                                 "selfRank": lv[team], "oppoRank": lv[1 - team],
                                 "curRank": _RANKS.index(g.level) + 2})
        npay, payers, _, _, _, anti = g._core.tribute
        if anti:
            pos = [p for p in payers if g.hands[p].count("HR") > 0]
            await self._broadcast({"type": "notify", "stage": "anti-tribute", "antiNums": len(pos),
                                   "antiNum": len(pos), "antiPos": pos})
        elif g.phase == "tribute":
            await self._exchange("tribute")
            await self._exchange("back")
        while not self._aborted and not g.is_over and g.round_index == rnd:
            seat = self.seats[g.to_act]
            legal = g.legal_moves()
            actions = legal.to_platform()
            top_before = g._core.top
            idx = await self._decide(seat, self._act(seat.index, "play", actions), len(actions))
            if self._aborted:
                return
            move = legal[idx]
            g.play(move)
            if move.is_pass:
                gs, lo, hi, _ = top_before
                gr_pos, gr_act = gs, Move(lo, hi, g._core.rlevel if g.round_index == rnd else 0).to_platform()
                if gs < 0:
                    gr_pos, gr_act = -1, _NULL
            else:
                gr_pos, gr_act = seat.index, move.to_platform()
            await self._broadcast({"type": "notify", "stage": "play", "curPos": seat.index,
                                   "curAction": move.to_platform(), "greaterPos": gr_pos,
                                   "greaterAction": gr_act})
        if self._aborted:
            return
        order = g.last_round_order
        rest = [[s, g._core.end_hand(s).cards(self._round_level + 2)] for s in order
                if len(g._core.end_hand(s))]
        await self._broadcast({"type": "notify", "stage": "episodeOver", "order": order,
                               "curRank": _RANKS[self._round_level], "restCards": rest})

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
        n, payers, paid, recv, returned, _ = g._core.tribute
        if stage == "tribute":
            result = [[payers[i], recv[i], _core.FACE_STR[paid[i]]] for i in range(n)]
        else:
            result = [[recv[i], payers[i], _core.FACE_STR[returned[i]]] for i in range(n)]
        await self._broadcast({"type": "notify", "stage": stage, "result": result})

    # -- session ------------------------------------------------------------------------
    async def _session(self) -> None:
        victory = [0, 0, 0, 0]
        draws = [0, 0, 0, 0]
        for gi in range(self.games):
            if self._aborted:
                break
            self.game = Game(rules=self.rules, seed=(self.seed + gi) % (1 << 63))
            while not self._aborted and not self.game.is_over:
                self._round_level = self.game._core.rlevel
                await self._round()
            if self._aborted:
                break
            w = self.game.winner
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
        self.records.append(rec)
        if self.record_dir:
            os.makedirs(self.record_dir, exist_ok=True)
            path = os.path.join(self.record_dir, f"game_{gi + 1:03d}_seed_{rec['seed']}.json")
            with open(path, "w") as f:
                json.dump(rec, f)
            log.info("record written to %s", path)

    async def run(self) -> List[Dict[str, Any]]:
        """Serve until the last game is over (or the session is aborted)."""
        try:
            from websockets.asyncio.server import serve as ws_serve
        except ImportError:
            raise GuandanError("the server needs websockets >= 13: pip install 'guandan[server]'") from None

        async with ws_serve(self._handler, self.host, self.port, ping_interval=None,
                            max_size=2 ** 20) as server:
            sock = next(iter(server.sockets))
            self.bound_port = sock.getsockname()[1]
            log.warning("listening on ws://%s:%d/game/{label} (%d seats for clients, %d games)",
                        self.host, self.bound_port, len(self._free), self.games)
            await self._ready.wait()
            if not self._aborted:
                await asyncio.sleep(self.start_delay)
                await self._session()
            self._done = True
            for s in self.seats:
                if s.ws is not None:
                    try:
                        await s.ws.close()
                    except Exception:
                        pass
        return self.records


def serve(host: str = "127.0.0.1", port: int = 23456, **kwargs: Any) -> List[Dict[str, Any]]:
    """Run a :class:`TableServer` to completion (blocking)."""
    return asyncio.run(TableServer(host, port, **kwargs).run())
