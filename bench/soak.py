"""Soak test of the contest server (``guandan serve``) with hostile clients.

    python bench/soak.py --games 200

Starts ``python -m guandan serve`` on a free loopback port (a subprocess, so
its memory is measured alone) and plays ``--games`` games back to back with
one random client per seat, some of them faulty, plus hostile extra clients:

* before the game: connect-and-close connections, a foreign web page
  (``Origin: http://evil.example``, must get HTTP 403), a client sending an
  oversized frame (must be closed with 1009) and one sending binary and other
  garbage frames; none of them may take a seat;
* seat 0: a plain random client; seat 1: random, with garbage frames (not
  JSON, binary, out-of-range and malformed answers) around its answers; seat
  2: random, answering about one question per game too late (after
  ``--timeout``); seat 3: random until half of the games, then it hangs: it
  stops reading and answering (the connection stays open) until the server
  drops it (``--max-misses`` unanswered questions, or a send stalled for
  ``--send-timeout``) and the bot takes over;
* during the session: connection attempts to the full table (must be refused
  with 1013) and foreign-Origin attempts (403), twice a second.

The clients check that every own play is the answer they gave (or the
default, index 0, when they did not answer in time): ``wrong_moves`` counts
the others. Reports games completed, messages per second (received by the
clients), act latency (an answer sent to the ``notify play`` of it, prompt
answers of seats 0 and 1) p50 / p99, and the server's RSS (VmRSS of its
process) at the start, after the warm-up (10% of the games, at least 1) and
at the end. The last line printed is a JSON object. Everything is bounded in
time (``--max-seconds``); exit status 0 iff every game completed with no
wrong move and every hostile client was refused as expected.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GARBAGE = ["this is not json {", b'{"actIndex": 0}', '{"actIndex": -1}', '{"actIndex": 99999}',
           '{"foo": 1}', "[0, 1]", "null", "", b"\x00\xff binary"]


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def _package_root():
    """The folder of the guandan package in use (installed, or src/ of a
    build in place): the server subprocess runs the same one."""
    try:
        import guandan
    except ImportError:
        return os.path.join(REPO, "src")
    return os.path.dirname(os.path.dirname(os.path.abspath(guandan.__file__)))


class Server:
    def __init__(self, args, record_dir):
        self.errf = tempfile.TemporaryFile(mode="w+b")
        cmd = [sys.executable, "-m", "guandan", "serve", "--host", "127.0.0.1", "--port", "0",
               "--games", str(args.games), "--seed", str(args.seed), "--timeout", str(args.timeout),
               "--send-timeout", str(args.send_timeout), "--max-misses", str(args.max_misses),
               "--record", record_dir]
        env = dict(os.environ)
        env["PYTHONPATH"] = _package_root() + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self.errf,
                                     stderr=self.errf, env=env)
        self.port = None

    def stderr(self):
        self.errf.seek(0)
        return self.errf.read().decode("utf-8", "replace")

    async def wait_listening(self, timeout=30):
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise SystemExit(f"server exited ({self.proc.returncode}):\n{self.stderr()[-2000:]}")
            m = re.search(r"serving on ws://127\.0\.0\.1:(\d+)/", self.stderr())   # stdout too
            if m:
                self.port = int(m.group(1))
                return
            await asyncio.sleep(0.05)
        raise SystemExit("server not listening within 30 s")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


class Seat:
    """A random client. ``garbage``: garbage frames around its answers;
    ``late_p``: probability of answering a play question ``late`` seconds
    after it; ``hang_from``: after this many games, stop reading and answering."""

    def __init__(self, name, seed, *, garbage=False, late_p=0.0, late=0.0, hang_from=None,
                 on_game_over=None):
        self.name = name
        self.rng = random.Random(seed)
        self.garbage = garbage
        self.late_p = late_p
        self.late = late
        self.hang_from = hang_from
        self.on_game_over = on_game_over
        self.my = None
        self.received = 0
        self.games = 0
        self.done = False
        self.hung = False
        self.asked = None           # (act, index, late, t_sent)
        self.wrong = []
        self.latencies = []
        self.late_sent = 0
        self.first_at = self.last_at = None

    async def run(self, ws):
        try:
            async for raw in ws:
                now = time.monotonic()
                self.first_at = self.first_at or now
                self.last_at = now
                self.received += 1
                m = json.loads(raw)
                st = m["stage"]
                if m["type"] == "notify":
                    if st == "beginning":
                        self.my = m["myPos"]
                    elif st == "play" and m["curPos"] == self.my and self.asked is not None:
                        self._check(m["curAction"], now)
                    elif st == "gameOver":
                        self.games += 1
                        if self.on_game_over:
                            self.on_game_over(m["curTimes"])
                        if self.hang_from is not None and self.games >= self.hang_from:
                            await self._hang(ws)
                            return self
                    elif st == "gameResult":
                        self.done = True
                    continue
                idx = self.rng.randint(0, m["indexRange"])
                late = st == "play" and self.rng.random() < self.late_p
                if self.garbage and self.rng.random() < 0.2:
                    for g in self.rng.sample(GARBAGE, 3):
                        await ws.send(g)
                if late:
                    self.late_sent += 1
                    asyncio.get_running_loop().call_later(self.late, self._send_later, ws, idx)
                    self.asked = (m, idx, True, None) if st == "play" else None
                    continue
                await ws.send(json.dumps({"actIndex": idx}))
                self.asked = (m, idx, False, time.monotonic()) if st == "play" else None
                if self.garbage and self.rng.random() < 0.1:
                    await ws.send(self.rng.choice(GARBAGE))
        except ConnectionClosed:
            pass
        return self

    def _check(self, applied, now):
        act, idx, late, t = self.asked
        self.asked = None
        al = act["actionList"]
        if late:
            ok = applied == al[0]
        else:
            ok = applied in (al[idx], al[0])      # the default if a loaded machine timed it out
            if applied == al[idx]:
                self.latencies.append(now - t)
        if not ok:
            self.wrong.append((applied, idx, late))

    @staticmethod
    def _send_later(ws, idx):
        async def send():
            try:
                await ws.send(json.dumps({"actIndex": idx}))
            except ConnectionClosed:
                pass
        asyncio.ensure_future(send())

    async def _hang(self, ws):
        """Read nothing more (websockets stops reading the socket once its
        small queue is full), answer nothing, until the server closes."""
        self.hung = True
        await ws.wait_closed()


async def open_ws(port, label, **kw):
    return await connect(f"ws://127.0.0.1:{port}/game/{label}", ping_interval=None,
                         open_timeout=10, close_timeout=2, max_size=2 ** 24, **kw)


async def expect_refused(port, label, origin=None):
    """'403', '1013' or what happened instead."""
    try:
        ws = await open_ws(port, label, origin=origin)
    except InvalidStatus as e:
        return str(e.response.status_code)
    except OSError as e:
        return f"error {e}"
    try:
        await asyncio.wait_for(ws.recv(), 5)
        return "got a message"
    except ConnectionClosed:
        return str(ws.close_code)
    except asyncio.TimeoutError:
        return "not closed"
    finally:
        ws.transport.abort()


async def pregame_hostiles(port, stats):
    async def ghost(i):
        ws = await open_ws(port, f"ghost{i}")
        await ws.close()

    await asyncio.gather(*(ghost(i) for i in range(20)))
    stats["pregame_origin"] = await expect_refused(port, "page", origin="http://evil.example")
    ws = await open_ws(port, "big")
    await ws.send("x" * 100_000)
    try:
        await asyncio.wait_for(ws.recv(), 5)
    except (ConnectionClosed, asyncio.TimeoutError):
        pass
    stats["pregame_oversized"] = str(ws.close_code)
    ws.transport.abort()
    ws = await open_ws(port, "junk")
    for g in GARBAGE:
        await ws.send(g)
    await ws.close()


async def knocker(port, stop, stats):
    i = 0
    while not stop.is_set():
        i += 1
        if i % 4 == 0:
            r = await expect_refused(port, f"page{i}", origin="http://evil.example")
            key = "knock_403" if r == "403" else "knock_other"
        else:
            r = await expect_refused(port, f"knock{i}")
            key = "knock_1013" if r == "1013" else "knock_other"
        stats[key] = stats.get(key, 0) + 1
        if key == "knock_other":
            stats.setdefault("knock_other_what", []).append(r)
        try:
            await asyncio.wait_for(stop.wait(), 0.5)
        except asyncio.TimeoutError:
            pass


def pct(xs, q):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def soak(args):
    record_dir = tempfile.mkdtemp(prefix="guandan-soak-")
    srv = Server(args, record_dir)
    stats = {}
    try:
        await srv.wait_listening()
        pid = srv.proc.pid
        rss = {"start": rss_mb(pid)}
        warm = max(1, args.games // 10)
        t_start = time.monotonic()

        def game_over(n):
            if n == warm:
                rss["warm"] = rss_mb(pid)
            rss["end"] = rss_mb(pid)
            if args.progress:
                print(f"{time.monotonic() - t_start:7.1f}s game {n}/{args.games}  rss "
                      f"{rss['end']:.1f} MB", file=sys.stderr)

        await pregame_hostiles(srv.port, stats)
        hang_from = args.games // 2 if args.games >= 4 else None
        seats = [Seat("plain", args.seed + 1, on_game_over=game_over),
                 Seat("garbage", args.seed + 2, garbage=True),
                 Seat("late", args.seed + 3, late_p=1 / 400, late=args.timeout + 0.15),
                 Seat("hangs", args.seed + 4, hang_from=hang_from)]
        t0 = time.monotonic()
        tasks = []
        wss = []
        for s in seats:
            kw = {}
            if s.hang_from is not None:
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
                sock.setblocking(False)
                await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", srv.port))
                kw = {"sock": sock, "max_queue": 4}
            ws = await open_ws(srv.port, s.name, **kw)
            wss.append(ws)
            tasks.append(asyncio.ensure_future(s.run(ws)))
        stop = asyncio.Event()
        knock = asyncio.ensure_future(knocker(srv.port, stop, stats))
        deadline = args.max_seconds - (time.monotonic() - t0)
        done, pending = await asyncio.wait(tasks[:3], timeout=deadline)
        stop.set()
        for t in pending:
            t.cancel()
        for ws in wss:
            ws.transport.abort()
        await asyncio.gather(knock, return_exceptions=True)
        try:
            await asyncio.wait_for(asyncio.gather(tasks[3], return_exceptions=True), 15)
        except asyncio.TimeoutError:
            tasks[3].cancel()
        wall = max(s.last_at or t0 for s in seats[:3]) - min(s.first_at or t0 for s in seats)
        try:
            await asyncio.get_running_loop().run_in_executor(None, srv.proc.wait, 20)
        except subprocess.TimeoutExpired:
            pass
        err = srv.stderr()
        files = [f for f in os.listdir(record_dir)]
        lat = [x * 1000 for s in seats[:2] for x in s.latencies]
        res = {
            "games": args.games,
            "games_completed": min(s.games for s in seats[:3]),
            "all_done": all(s.done for s in seats[:3]),
            "records_on_disk": sum(f.endswith(".json") and not f.startswith(".") for f in files),
            "temp_files_left": sum(f.startswith(".") for f in files),
            "wrong_moves": sum(len(s.wrong) for s in seats),
            "seconds": round(wall, 2),
            "messages": sum(s.received for s in seats),
            "messages_per_s": round(sum(s.received for s in seats) / wall) if wall > 0 else None,
            "act_latency_ms_p50": round(pct(lat, 0.50), 3) if lat else None,
            "act_latency_ms_p99": round(pct(lat, 0.99), 3) if lat else None,
            "answers_timed": len(lat),
            "late_answers_sent": seats[2].late_sent,
            "late_answers_discarded": err.count("late answer"),
            "server_timeouts": err.count("no answer within"),
            "hung_seat_dropped": ("questions in a row" in err or "could not be sent within" in err
                                  or "messages waiting" in err) if hang_from else None,
            "pregame_origin": stats.get("pregame_origin"),
            "pregame_oversized": stats.get("pregame_oversized"),
            "knock_1013": stats.get("knock_1013", 0),
            "knock_403": stats.get("knock_403", 0),
            "knock_other": stats.get("knock_other", 0),
            "server_exit": srv.proc.returncode,
            "traceback": "Traceback" in err,
            "rss_start_mb": round(rss["start"], 1) if rss.get("start") else None,
            "rss_warm_mb": round(rss["warm"], 1) if rss.get("warm") else None,
            "rss_end_mb": round(rss["end"], 1) if rss.get("end") else None,
        }
        if res["rss_warm_mb"] and res["rss_end_mb"]:
            res["rss_growth_mb"] = round(rss["end"] - rss["warm"], 1)
        if "knock_other_what" in stats:
            res["knock_other_what"] = stats["knock_other_what"][:5]
        if args.verbose:
            print(err[-4000:], file=sys.stderr)
        return res
    finally:
        srv.stop()
        shutil.rmtree(record_dir, ignore_errors=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=0.25, help="the server's --timeout")
    ap.add_argument("--send-timeout", type=float, default=1.0, help="the server's --send-timeout")
    ap.add_argument("--max-misses", type=int, default=5, help="the server's --max-misses")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="give up after this long (default 60 + 6 s per game)")
    ap.add_argument("--progress", action="store_true", help="a line per game on stderr")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the server's log tail")
    args = ap.parse_args(argv)
    if args.max_seconds is None:
        args.max_seconds = 60 + 6 * args.games
    res = asyncio.run(soak(args))
    ok = (res["games_completed"] == args.games and res["all_done"] and res["wrong_moves"] == 0
          and res["records_on_disk"] == args.games and res["temp_files_left"] == 0
          and res["pregame_origin"] == "403" and res["pregame_oversized"] == "1009"
          and res["knock_other"] == 0 and res["server_exit"] == 0 and not res["traceback"]
          and res["hung_seat_dropped"] is not False)
    print(f"{res['games_completed']}/{args.games} games in {res['seconds']} s, "
          f"{res['messages_per_s']} messages/s, act latency p50 {res['act_latency_ms_p50']} ms "
          f"p99 {res['act_latency_ms_p99']} ms, server RSS {res['rss_start_mb']} -> "
          f"{res['rss_warm_mb']} (warm) -> {res['rss_end_mb']} MB, wrong moves {res['wrong_moves']}"
          + ("" if ok else "  FAILED"))
    res["ok"] = ok
    print(json.dumps(res))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
