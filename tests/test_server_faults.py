"""Fault tolerance of ``guandan serve`` (``guandan.server.TableServer``)
against faulty clients: clients that stop reading, answer late, connect and
leave before the game, send binary or oversized frames, come from a foreign
web page (Origin), and long sessions (records kept in memory).

Every test runs the server in-process on 127.0.0.1 with an ephemeral port
(port 0) and drives it with raw ``websockets`` clients written here (no
client code of the project), bounded in time with ``asyncio.wait_for``.
"""

from __future__ import annotations

import asyncio
import glob
import json
import logging
import os
import random
import socket
import subprocess
import sys
import time

import pytest

import guandan
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from guandan.server import TableServer
from server_harness import finish, start, url

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --------------------------------------------------------------------------
# helpers


def run(coro, timeout):
    async def main():
        return await asyncio.wait_for(coro, timeout)
    return asyncio.run(main())



async def open_ws(srv, label="t", **kw):
    kw.setdefault("ping_interval", None)
    kw.setdefault("open_timeout", 10)
    kw.setdefault("close_timeout", 2)
    kw.setdefault("max_size", 2 ** 24)
    return await connect(url(srv, label), **kw)


class Player:
    """A plain client: reads every message, answers every ``act`` with
    ``choose(msg)`` (None: no answer) after ``delay(msg)`` seconds, and checks
    that each of its own plays is the one it chose (or the default, index 0,
    when it did not answer in time)."""

    def __init__(self, choose=None, delay=None, seed=0, stop_after=None):
        self.rng = random.Random(seed)
        self.choose = choose or (lambda m: self.rng.randint(0, m["indexRange"]))
        self.delay = delay or (lambda m: 0)
        self.stop_after = stop_after        # close after this many acts
        self.msgs = []
        self.acts = 0
        self.my = None
        self.asked = None                   # (act message, chosen index or None)
        self.own_plays = []                 # (act, index or None, applied action)
        self.close_code = None
        self.done = False

    async def run(self, ws):
        try:
            async for raw in ws:
                assert isinstance(raw, str), "binary frame from the server"
                m = json.loads(raw)
                self.msgs.append(m)
                if m["stage"] == "beginning":
                    self.my = m["myPos"]
                elif m["type"] == "notify" and m["stage"] == "play" and m["curPos"] == self.my:
                    if self.asked is not None:
                        act, idx = self.asked
                        self.own_plays.append((act, idx, m["curAction"]))
                        self.asked = None
                elif m["stage"] == "gameResult":
                    self.done = True
                if m["type"] == "act":
                    if self.stop_after is not None and self.acts >= self.stop_after:
                        await ws.close()
                        break
                    self.acts += 1
                    idx = self.choose(m)
                    self.asked = (m, idx) if m["stage"] == "play" else None
                    d = self.delay(m)
                    if idx is not None:
                        if d:
                            asyncio.get_running_loop().call_later(d, self._send_later, ws, idx)
                        else:
                            await ws.send(json.dumps({"actIndex": idx}))
        except ConnectionClosed:
            pass
        self.close_code = ws.close_code
        return self

    @staticmethod
    def _send_later(ws, idx):
        async def send():
            try:
                await ws.send(json.dumps({"actIndex": idx}))
            except ConnectionClosed:
                pass
        asyncio.ensure_future(send())

    def wrong_plays(self):
        """Own plays that are neither the chosen action nor (unanswered) the default."""
        bad = []
        for act, idx, applied in self.own_plays:
            al = act["actionList"]
            if applied != al[0] and (idx is None or applied != al[idx]):
                bad.append((applied, idx, al[0]))
        return bad


def logged(caplog, *words):
    text = "\n".join(r.getMessage() for r in caplog.records)
    return all(w.lower() in text.lower() for w in words)


# --------------------------------------------------------------------------
# 1. a client that stops reading


async def blind_client(srv, label="blind", stop=None):
    """Stops reading after the handshake (tiny receive buffer, websockets'
    read queue of one message) but keeps sending ``{"actIndex": 0}``, so it
    answers every question without reading any message."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", srv.bound_port))
    ws = await connect(url(srv, label), sock=sock, ping_interval=None, max_queue=1,
                       max_size=2 ** 24, open_timeout=10, close_timeout=1)
    try:
        while stop is None or not stop.is_set():
            await ws.send('{"actIndex": 0}')
            await asyncio.sleep(0.005)
    except ConnectionClosed:
        pass
    finally:
        ws.transport.abort()


async def slow_link(srv, seat):
    """Shrink the server-side send buffer of ``seat``'s socket (a slow link:
    the kernel would otherwise buffer megabytes before a send stalls)."""
    while srv.seats[seat].conn is None:
        await asyncio.sleep(0.01)
    sock = srv.seats[seat].conn.ws.transport.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)


def test_slow_reader_does_not_freeze_table(caplog):
    """A seat that stops reading is dropped once a send to it stalls for
    send_timeout (or its outgoing queue is full); the table goes on (the bot
    plays that seat) and the other client gets every game to gameResult."""
    caplog.set_level(logging.INFO, logger="guandan.server")

    async def main():
        srv, task = await start(games=4, bots={2: "greedy", 3: "greedy"}, timeout=0.5,
                                send_timeout=1.0, send_queue=10 ** 6)
        stop = asyncio.Event()
        blind = asyncio.ensure_future(blind_client(srv, stop=stop))
        await asyncio.sleep(0.1)
        p = Player(seed=3)
        ws = await open_ws(srv, "reader")
        await slow_link(srv, 0)
        try:
            await asyncio.wait_for(p.run(ws), 60)
        finally:
            stop.set()
            await asyncio.gather(blind, return_exceptions=True)
        assert p.done, "the reading client did not reach gameResult"
        assert p.my == 1
        records = await finish(task)
        assert srv.seats[0].policy == "greedy", "the stalled seat was not handed to the bot"
        return records

    records = run(main(), 90)
    assert len(records) >= 1
    assert logged(caplog, "seat 0", "could not be sent within 1s", "not reading")


def test_outgoing_queue_is_bounded(caplog):
    """The per-client outgoing queue holds at most send_queue messages: a
    seat whose writer is stuck is dropped when it overflows, at once (without
    waiting for send_timeout)."""
    caplog.set_level(logging.INFO, logger="guandan.server")

    async def main():
        srv, task = await start(games=4, bots={2: "greedy", 3: "greedy"}, timeout=0.5,
                                send_timeout=600, send_queue=50)
        stop = asyncio.Event()
        blind = asyncio.ensure_future(blind_client(srv, stop=stop))
        await asyncio.sleep(0.1)
        p = Player(seed=3)
        ws = await open_ws(srv, "reader")
        await slow_link(srv, 0)
        try:
            await asyncio.wait_for(p.run(ws), 60)
        finally:
            stop.set()
            await asyncio.gather(blind, return_exceptions=True)
        assert p.done
        await finish(task)
        assert srv.seats[0].policy == "greedy"

    run(main(), 90)
    assert logged(caplog, "seat 0", "50 messages waiting to be sent")


# --------------------------------------------------------------------------
# 2. late answers


def test_late_answers_are_not_applied_to_the_next_question(caplog):
    """--timeout 0.3, every answer 0.5 s late (well inside a 1 s grace, well
    past the timeout, so scheduling jitter cannot blur either edge): each
    question gets the default action; no late answer is taken as the answer
    to the seat's next question."""
    caplog.set_level(logging.INFO, logger="guandan.server")

    def choose(m):
        return 1 if m["indexRange"] >= 1 else 0

    async def main():
        srv, task = await start(games=1, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                                timeout=0.3, late_grace=1.0)
        p = Player(choose=choose, delay=lambda m: 0.5, stop_after=10)
        ws = await open_ws(srv)
        await asyncio.wait_for(p.run(ws), 30)
        records = await finish(task)
        return p, records

    p, records = run(main(), 60)
    assert len(p.own_plays) >= 9
    assert p.wrong_plays() == [], f"late answers applied to later questions: {p.wrong_plays()}"
    assert all(applied == act["actionList"][0] for act, _, applied in p.own_plays)
    assert len(records) == 1
    assert logged(caplog, "late")


def test_after_the_grace_period_answers_apply_again():
    """A seat that misses one question and never answers it late: its next
    question is held for at most late_grace, and its prompt answers from then
    on are applied (not discarded as the stale one)."""
    async def main():
        srv, task = await start(games=1, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                                timeout=0.3, late_grace=0.4)
        times = []
        first = [True]

        def choose(m):
            times.append(time.monotonic())
            if first[0]:
                first[0] = False
                return None
            return m["indexRange"]

        p = Player(choose=choose, stop_after=12)
        ws = await open_ws(srv)
        await asyncio.wait_for(p.run(ws), 30)
        await finish(task)
        return p, times

    p, times = run(main(), 60)
    assert p.own_plays[0][2] == p.own_plays[0][0]["actionList"][0]
    gap = times[1] - times[0]
    assert 0.6 <= gap <= 3.0, f"second question {gap:.2f}s after the first (timeout 0.3 + grace 0.4)"
    later = p.own_plays[1:]
    assert later and all(applied == act["actionList"][idx] for act, idx, applied in later), \
        "prompt answers after the grace period were not applied"


def test_late_answer_within_grace_releases_the_next_question():
    """The next question is sent as soon as the late answer has arrived (not
    after the whole grace period)."""
    async def main():
        srv, task = await start(games=1, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                                timeout=0.3, late_grace=5)
        times = []

        def choose(m):
            times.append(time.monotonic())
            return 0

        p = Player(choose=choose, delay=lambda m: 0.45 if len(times) == 1 else 0, stop_after=4)
        ws = await open_ws(srv)
        await asyncio.wait_for(p.run(ws), 30)
        await finish(task)
        return p, times

    p, times = run(main(), 60)
    assert p.wrong_plays() == []
    gap = times[1] - times[0]
    assert 0.4 <= gap <= 2.0, f"next question {gap:.2f}s after the first: held past the late answer?"


def test_garbage_after_a_timeout_is_not_the_stale_answer():
    """After a timeout only an answer valid for the timed-out question counts
    as the stale one: an out-of-range index sent first does not release the
    next question, so the real late answer is still discarded."""
    async def main():
        srv, task = await start(games=1, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                                timeout=0.3, late_grace=3)
        ws = await open_ws(srv)
        asked = []
        applied = []
        async for raw in ws:
            m = json.loads(raw)
            if m["type"] == "act" and m["stage"] == "play":
                asked.append((time.monotonic(), m))
                if len(asked) == 1:
                    await asyncio.sleep(0.35)
                    await ws.send(json.dumps({"actIndex": 99999}))
                    await asyncio.sleep(0.1)
                    await ws.send(json.dumps({"actIndex": 1}))
                elif len(asked) == 2:
                    await ws.send(json.dumps({"actIndex": m["indexRange"]}))
                else:
                    break
            elif m["stage"] == "play" and m["curPos"] == 0:
                applied.append(m["curAction"])
        await ws.close()
        await finish(task)
        return asked, applied

    asked, applied = run(main(), 60)
    assert len(asked) >= 2 and len(applied) >= 2
    assert asked[1][0] - asked[0][0] >= 0.44, "the out-of-range frame released the next question"
    assert applied[0] == asked[0][1]["actionList"][0]
    assert applied[1] == asked[1][1]["actionList"][-1], "the late answer was applied to question 2"


def test_hung_seat_is_disconnected_after_max_misses(caplog):
    """A client that reads but never answers (a hung bot) is closed (1008)
    after max_misses unanswered questions in a row; the bot plays its seat,
    so the table does not crawl at timeout + grace per move for the rest of
    the session."""
    caplog.set_level(logging.INFO, logger="guandan.server")

    async def main():
        srv, task = await start(games=1, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                                timeout=0.2, max_misses=3)
        p = Player(choose=lambda m: None)
        ws = await open_ws(srv)
        t0 = time.monotonic()
        await asyncio.wait_for(p.run(ws), 20)
        closed_after = time.monotonic() - t0
        records = await finish(task)
        return p, records, closed_after, srv

    p, records, closed_after, srv = run(main(), 60)
    assert p.close_code == 1008, p.close_code
    assert p.acts == 3 and closed_after < 5
    assert len(records) == 1 and srv.seats[0].policy == "greedy"
    assert logged(caplog, "seat 0", "3 questions in a row")


# --------------------------------------------------------------------------
# 3. default timeout


def _record_serve_options(monkeypatch):
    """'guandan serve' runs a recorder instead of a TableServer: the options
    it was given, in the returned dict."""
    from guandan import server
    seen = {}

    class Recorder:
        def __init__(self, host, port, **kw):
            seen.update(kw)
            self.games, self.games_played = kw["games"], 0

        async def run(self):
            return []

    monkeypatch.setattr(server, "TableServer", Recorder)
    return seen


def test_default_timeout(monkeypatch):
    """A per-move timeout applies by default (30 s); --timeout 0 waits forever."""
    from guandan import cli

    assert TableServer().timeout == 30.0
    seen = _record_serve_options(monkeypatch)
    assert cli.main(["serve", "--bots", "1=greedy"]) == 0
    assert seen["timeout"] == 30.0
    assert cli.main(["serve", "--bots", "1=greedy", "--timeout", "0"]) == 0
    assert not seen["timeout"]


def test_timeout_zero_waits_for_the_answer():
    async def main():
        srv, task = await start(games=1, bots={1: "greedy", 2: "greedy", 3: "greedy"}, timeout=0)
        p = Player(choose=lambda m: m["indexRange"], delay=lambda m: 0.4, stop_after=2)
        ws = await open_ws(srv)
        await asyncio.wait_for(p.run(ws), 30)
        await finish(task)
        return p

    p = run(main(), 60)
    assert len(p.own_plays) == 2
    assert all(applied == act["actionList"][idx] for act, idx, applied in p.own_plays)


# --------------------------------------------------------------------------
# 4. connections before the game


async def connect_and_close(srv, n, label="ghost"):
    async def one(i):
        ws = await open_ws(srv, f"{label}{i}")
        await ws.close()
    await asyncio.gather(*(one(i) for i in range(n)))


@pytest.mark.parametrize("on_disconnect", ["bot", "abort"])
def test_pregame_disconnect_frees_the_seat(on_disconnect):
    """Connections that close before the game starts keep no seat: the next
    live connection gets it, and with --on-disconnect abort they do not end
    the session."""
    async def main():
        srv, task = await start(games=1, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                                on_disconnect=on_disconnect)
        await connect_and_close(srv, 3)
        await asyncio.sleep(0.3)
        p = Player(seed=1)
        ws = await open_ws(srv, "player")
        await asyncio.wait_for(p.run(ws), 30)
        records = await finish(task)
        return p, records

    p, records = run(main(), 60)
    assert p.done, "the live client did not get the seat / reach gameResult"
    assert p.my == 0 and p.own_plays
    assert len(records) == 1


def test_seats_go_to_connections_alive_at_the_start():
    """bots on 2, 3: A connects, B connects and leaves, C connects: A is seat
    0 and C seat 1 (connection order among the live connections); a
    connection beyond the free seats is refused (1013 table full) when the
    game starts."""
    async def main():
        srv, task = await start(games=1, bots={2: "greedy", 3: "greedy"}, start_delay=0.5)
        a = await open_ws(srv, "A")
        b = await open_ws(srv, "B")
        await b.close()
        await asyncio.sleep(0.1)
        c = await open_ws(srv, "C")
        extra = await open_ws(srv, "D")
        try:
            await asyncio.wait_for(extra.recv(), 3)
        except ConnectionClosed:
            pass
        assert extra.close_code == 1013, f"extra connection: close code {extra.close_code}"
        pa, pc = Player(seed=1), Player(seed=2)
        await asyncio.wait_for(asyncio.gather(pa.run(a), pc.run(c)), 40)
        await finish(task)
        return pa, pc

    pa, pc = run(main(), 60)
    assert (pa.my, pc.my) == (0, 1)
    assert pa.done and pc.done


def test_waiting_connection_moves_up():
    """One free seat: A connects and stays idle, B connects (waits), A leaves
    before the start: B gets the seat. Connections beyond the free seats plus
    MAX_WAITING are refused at once (1013)."""
    from guandan.server import MAX_WAITING

    async def main():
        srv, task = await start(games=1, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                                start_delay=0.6)
        a = await open_ws(srv, "A")
        b = await open_ws(srv, "B")
        more = [await open_ws(srv, f"W{i}") for i in range(MAX_WAITING - 1)]
        over = await open_ws(srv, "over")
        try:
            await asyncio.wait_for(over.recv(), 0.3)
        except ConnectionClosed:
            pass
        assert over.close_code == 1013, "a connection over the waiting cap was not refused"
        await a.close()
        for w in more:
            await w.close()
        pb = Player(seed=1)
        await asyncio.wait_for(pb.run(b), 40)
        await finish(task)
        return pb

    pb = run(main(), 60)
    assert pb.my == 0 and pb.done


def test_many_dead_connections_do_not_block_the_start():
    """100 connect-and-close connections before the players: the table still
    starts with the players in the seats."""
    async def main():
        # a start delay the ghosts' closes fit in even on a loaded machine: the
        # 100 handshakes share this loop with the server, and with the default
        # 0.2 s the first two ghosts were once seated (and the game started)
        # before their closes were read
        srv, task = await start(games=1, bots={1: "greedy", 3: "greedy"}, start_delay=2.0)
        await connect_and_close(srv, 100)
        # the premise: the server has seen every ghost leave (a loaded machine
        # may take longer than a fixed pause to run their handlers' exits)
        t0 = time.monotonic()
        while srv._pending:
            assert time.monotonic() - t0 < 20, f"{len(srv._pending)} closed connections still waiting"
            await asyncio.sleep(0.01)
        pa, pb = Player(seed=1), Player(seed=2)
        a = await open_ws(srv, "p1")
        b = await open_ws(srv, "p2")
        await asyncio.wait_for(asyncio.gather(pa.run(a), pb.run(b)), 40)
        await finish(task)
        return pa, pb

    pa, pb = run(main(), 60)
    assert (pa.my, pb.my) == (0, 2)
    assert pa.done and pb.done


@pytest.mark.slow
def test_disconnect_during_start_delay():
    """A connection that leaves during the start delay frees its seat; the
    game starts once a live connection has taken it."""
    async def main():
        srv, task = await start(games=1, bots={1: "greedy", 2: "greedy"}, start_delay=0.5)
        a = await open_ws(srv, "A")
        b = await open_ws(srv, "B")
        await asyncio.sleep(0.1)
        await b.close()
        await asyncio.sleep(0.6)
        c = await open_ws(srv, "C")
        pa, pc = Player(seed=1), Player(seed=2)
        await asyncio.wait_for(asyncio.gather(pa.run(a), pc.run(c)), 40)
        await finish(task)
        return pa, pc

    pa, pc = run(main(), 60)
    assert (pa.my, pc.my) == (0, 3)
    assert pa.done and pc.done


# --------------------------------------------------------------------------
# 5. binary and oversized frames


def test_binary_frame_is_not_an_answer(caplog):
    """A binary frame is ignored (logged with the reason), even one holding a
    valid answer; the text answer that follows is the one applied."""
    caplog.set_level(logging.INFO, logger="guandan.server")

    async def main():
        srv, task = await start(games=1, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                                timeout=5)
        ws = await open_ws(srv)
        applied = None
        act = None
        async for raw in ws:
            m = json.loads(raw)
            if m["type"] == "act" and act is None and m["indexRange"] >= 1:
                act = m
                await ws.send(json.dumps({"actIndex": m["indexRange"]}).encode())
                await asyncio.sleep(0.2)
                await ws.send(json.dumps({"actIndex": 0}))
            elif m["type"] == "act":
                await ws.send(json.dumps({"actIndex": 0}))
            elif m["stage"] == "play" and act is not None and m["curPos"] == 0:
                applied = m["curAction"]
                break
        await ws.close()
        await finish(task)
        return act, applied

    act, applied = run(main(), 60)
    assert act is not None
    assert applied == act["actionList"][0], "the binary frame was taken as the answer"
    assert logged(caplog, "binary", "ignored")


def test_oversized_frame_closes_with_1009(caplog):
    """A frame over max_frame (64 KiB) closes the connection with 1009; the
    seat is treated as disconnected (bot), and the reason is logged."""
    caplog.set_level(logging.INFO, logger="guandan.server")

    async def main():
        srv, task = await start(games=1, bots={1: "greedy", 2: "greedy", 3: "greedy"})
        ws = await open_ws(srv)
        async for raw in ws:
            m = json.loads(raw)
            if m["type"] == "act":
                await ws.send(json.dumps({"actIndex": 0, "pad": "x" * 100_000}))
                break
        try:
            await asyncio.wait_for(ws.recv(), 5)
            await asyncio.wait_for(ws.wait_closed(), 5)
        except ConnectionClosed:
            pass
        code = ws.close_code
        records = await finish(task)
        return code, records, srv

    code, records, srv = run(main(), 60)
    assert code == 1009, f"close code {code}"
    assert len(records) == 1, "the game did not complete with the bot in the seat"
    assert srv.seats[0].policy == "greedy"
    assert logged(caplog, "seat 0", "1009")


# --------------------------------------------------------------------------
# 6. records


def test_records_bounded_in_memory_and_written_atomically(tmp_path, monkeypatch):
    """Only the last keep_records records stay in memory; every game's record
    is on disk, each written to a temporary file in the same folder and
    renamed into place (os.replace), so a file is complete or absent."""
    real_replace = os.replace
    renames = []

    def spy(src, dst, *a, **kw):
        src, dst = os.fspath(src), os.fspath(dst)
        assert os.path.dirname(os.path.abspath(src)) == os.path.dirname(os.path.abspath(dst))
        assert not os.path.exists(dst)
        with open(src) as f:
            json.load(f)                    # complete before it is renamed
        renames.append((src, dst))
        return real_replace(src, dst, *a, **kw)

    monkeypatch.setattr(os, "replace", spy)

    async def main():
        srv, task = await start(games=5, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                                record_dir=str(tmp_path), keep_records=2)
        p = Player(choose=lambda m: 0)
        ws = await open_ws(srv)
        await asyncio.wait_for(p.run(ws), 60)
        records = await finish(task)
        return srv, records

    srv, records = run(main(), 90)
    files = sorted(glob.glob(str(tmp_path / "*.json")))
    assert len(files) == 5
    assert len(renames) == 5 and sorted(d for _, d in renames) == files
    assert sorted(os.listdir(tmp_path)) == sorted(os.path.basename(f) for f in files), \
        "temporary files left behind"
    assert len(srv.records) == 2 and len(records) == 2
    with open(files[-1]) as f:
        assert json.load(f) == json.loads(json.dumps(records[-1]))


# --------------------------------------------------------------------------
# 7. Origin


def test_foreign_origin_is_refused(caplog):
    """A browser page on another site cannot drive a local table: Origin
    http://evil.example is refused with HTTP 403; no Origin (bots) and
    loopback origins are accepted; origins= adds allowed origins."""
    caplog.set_level(logging.INFO, logger="guandan.server")

    async def status(srv, origin):
        try:
            ws = await open_ws(srv, "o", origin=origin)
        except InvalidStatus as e:
            return e.response.status_code
        await ws.close()
        return 101

    async def main():
        srv, task = await start(games=1, bots={1: "greedy", 2: "greedy"})
        got = {o: await status(srv, o) for o in
               ("http://evil.example", "http://127.0.0.1.evil.example", "null",
                "http://localhost:8000", "http://127.0.0.1", "http://[::1]:9000", None,
                f"ws://127.0.0.1:{srv.bound_port}")}
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        srv2, task2 = await start(games=1, bots={1: "greedy", 2: "greedy"},
                                  origins=["https://trusted.example"])
        got2 = {o: await status(srv2, o) for o in
                ("https://trusted.example", "http://evil.example", None)}
        task2.cancel()
        await asyncio.gather(task2, return_exceptions=True)
        return got, got2, srv.bound_port

    got, got2, port = run(main(), 30)
    assert got == {"http://evil.example": 403, "http://127.0.0.1.evil.example": 403,
                   "null": 403, "http://localhost:8000": 101, "http://127.0.0.1": 101,
                   "http://[::1]:9000": 101, None: 101, f"ws://127.0.0.1:{port}": 101}, got
    assert got2 == {"https://trusted.example": 101, "http://evil.example": 403, None: 101}, got2
    assert logged(caplog, "origin", "evil.example")


def test_origin_rule():
    """The Origin rule on its own: bots' defaults pass (ws4py: the server's ws://
    URL; websocket-client: http://HOST:PORT of the server, Host equal), foreign
    pages do not, DNS names only when listed (DNS rebinding)."""
    from guandan.server import origin_allowed

    assert origin_allowed("ws://10.0.0.5:23456", "10.0.0.5:23456")              # ws4py
    assert origin_allowed("http://10.0.0.5:23456", "10.0.0.5:23456")            # websocket-client
    assert origin_allowed("http://[fe80::1]:23456", "[fe80::1]:23456")
    assert not origin_allowed("http://10.0.0.5:8080", "10.0.0.5:23456")         # another port
    assert not origin_allowed("http://game.lan:23456", "game.lan:23456")        # rebindable name
    assert origin_allowed("http://game.lan:23456", "game.lan:23456", ["http://game.lan:23456"])
    assert origin_allowed("HTTPS://Trusted.Example/", None, ["https://trusted.example"])
    assert not origin_allowed("http://evil.example", "127.0.0.1:23456")
    assert not origin_allowed("file://", "127.0.0.1:23456")
    assert not origin_allowed("http://user@127.0.0.1", "127.0.0.1:23456")
    assert not origin_allowed("http://127.0.0.1:99999", "127.0.0.1:23456")
    assert origin_allowed("http://anything.example", None, ["*"])


def test_cli_origin_option(monkeypatch):
    from guandan import cli

    seen = _record_serve_options(monkeypatch)
    assert cli.main(["serve", "--bots", "1=greedy", "--origin", "https://a.example,https://b.example",
                     "--origin", "http://c.example:8080"]) == 0
    assert seen["origins"] == ["https://a.example", "https://b.example", "http://c.example:8080"]
    assert (seen["late_grace"], seen["send_timeout"], seen["max_misses"], seen["keep_records"]) \
        == (None, 10.0, 5, 0)
    assert cli.main(["serve", "--bots", "1=greedy", "--late-grace", "2", "--send-timeout", "3",
                     "--max-misses", "0"]) == 0
    assert (seen["late_grace"], seen["send_timeout"], seen["max_misses"]) == (2.0, 3.0, 0)


# --------------------------------------------------------------------------
# 8. soak


# the guandan package in use (installed, or built in place): subprocesses run it too
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(guandan.__file__)))


@pytest.mark.slow
def test_soak_short():
    """bench/soak.py --games 20: every game completes with hostile clients
    around, no wrong move is applied, and the server's RSS stays flat."""
    out = subprocess.run([sys.executable, os.path.join(REPO, "bench", "soak.py"), "--games", "20"],
                         cwd=REPO, capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, PYTHONPATH=_PACKAGE_ROOT))
    assert out.returncode == 0, out.stderr[-3000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["games_completed"] == 20, res
    assert res["wrong_moves"] == 0, res
    assert res["rss_growth_mb"] < 5, res


def test_a_client_flooding_frames_is_closed_and_the_table_goes_on(caplog):
    """A connection that sends frame after frame nobody asked for (here before
    the game starts) is closed with 1008 once it passes the flood limit,
    and the seat it waited for goes to a well-behaved client."""
    from guandan.server import connections

    async def main():
        srv, task = await start(games=1, until="round", bots={1: "greedy", 2: "greedy", 3: "greedy"},
                                timeout=5, start_delay=1.0)
        try:
            async with connect(url(srv, "flood")) as bad:
                n = connections.FLOOD_BURST + 2000
                with pytest.raises(ConnectionClosed) as e:
                    for _ in range(n):
                        await bad.send("x")
                    await asyncio.wait_for(bad.recv(), 10)
                assert e.value.rcvd is not None and e.value.rcvd.code == 1008
            async with connect(url(srv, "good")) as good:
                async for raw in good:
                    m = json.loads(raw)
                    if m.get("type") == "act":
                        await good.send(json.dumps({"actIndex": 0}))
            await finish(task)
        finally:
            if not task.done():
                task.cancel()
    with caplog.at_level(logging.WARNING, logger="guandan.server"):
        asyncio.run(asyncio.wait_for(main(), 60))
    assert any("not asked for" in r.getMessage() and "disconnected" in r.getMessage()
               for r in caplog.records)


def test_a_client_that_pings_without_reading_is_cut():
    """websockets answers every ping at once, read or not: a client that
    pings and never reads is cut once the answers waiting for it pass
    WRITE_BUFFER_LIMIT, instead of growing the server without end."""
    from guandan.server import connections
    from server_harness import ping_without_reading

    async def main():
        srv, task = await start(games=1, bots={1: "greedy", 2: "greedy", 3: "greedy"}, timeout=5)
        try:
            how, sent = await asyncio.get_running_loop().run_in_executor(
                None, ping_without_reading, srv.bound_port, "/game/p")
            assert how == "cut", (how, sent)
            # what was sent before the cut: the limit's worth of answers
            # plus what the two sockets' buffers hold, far below the cap
            assert sent < 16 * connections.WRITE_BUFFER_LIMIT, sent
        finally:
            task.cancel()
    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_pong_flood_is_cut_and_a_long_answer_is_not_read(caplog):
    """Pings and pongs are handled by the library before the server sees
    anything: past CONTROL_BURST of them (CONTROL_RATE a second) the
    connection is cut. A frame longer than any answer is ignored unread,
    and counts for the flood limit by its length."""
    from guandan.server import connections, seats
    from server_harness import pong_flood

    async def main():
        srv, task = await start(games=1, bots={1: "greedy", 2: "greedy", 3: "greedy"}, timeout=5)
        try:
            how = await asyncio.get_running_loop().run_in_executor(None, pong_flood, srv.bound_port,
                                                                   "/game/p")
            assert how == "cut"
        finally:
            task.cancel()
    with caplog.at_level(logging.WARNING, logger="guandan.server"):
        asyncio.run(asyncio.wait_for(main(), 60))
    assert any("pings and pongs" in r.getMessage() for r in caplog.records)

    async def counted():
        c = connections.Conn(None, "x", 8)
        c.ignore("test", "x" * (64 * connections.FLOOD_BYTES))
        return c.flood.tokens
    left = asyncio.run(counted())
    assert connections.FLOOD_BURST - 66 < left <= connections.FLOOD_BURST - 65   # 65 frames' worth
    assert seats.MAX_ANSWER <= connections.FLOOD_BYTES
