"""The web table against hostile pages: what each viewer may know (no hand,
no deal seed, no other page's upload), bounded resources per page (queued
bytes, connections, frame rate: RSS stays flat under a soak of pages that
never read), and no page's work stalls the event loop that the contest
tables of ``serve --web`` share (a contest client's and a normal page's
latency beside an abusive page)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from types import SimpleNamespace

import pytest

websockets = pytest.importorskip("websockets")
from websockets.asyncio.client import connect  # noqa: E402

import guandan  # noqa: E402
from guandan import Game  # noqa: E402
from guandan.web import WebApp  # noqa: E402
from guandan.web import server as web_server  # noqa: E402
from guandan.web.session import PlaySession, Replay  # noqa: E402
from helpers import child_output  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(coro, timeout=90):
    return asyncio.run(asyncio.wait_for(coro, timeout))


async def started(**kw):
    kw.setdefault("bot_delay", 0)
    app = WebApp("127.0.0.1", 0, **kw)
    await app.start()
    return app


def url(port):
    return f"ws://127.0.0.1:{port}/ws"


async def ask(ws, msg, *types, until=None, timeout=20):
    await ws.send(json.dumps(msg))
    return await wait(ws, *types, until=until, timeout=timeout)


async def wait(ws, *types, until=None, timeout=20):
    while True:
        m = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if m["type"] in types and (until is None or until(m)):
            return m


async def errors_until_quiet(ws, quiet):
    """The messages of the ``error`` frames a page gets until none comes for
    ``quiet`` seconds."""
    got = []
    try:
        while True:
            m = json.loads(await asyncio.wait_for(ws.recv(), quiet))
            if m["type"] == "error":
                got.append(m["message"])
    except asyncio.TimeoutError:
        return got


def played_record(seed=11):
    g = Game(seed=seed, policy_seed=seed)
    while not g.is_over:
        g.play(g.choose("greedy"))
    return g.record()


# -- what each viewer may know ----------------------------------------------------------

def test_play_view_hides_a_random_seed_and_its_spectators_see_neither_seed_nor_hands():
    """A game the page started without a seed: its state never carries the
    seed (from it anyone deals every hand) nor other hands, to the player or
    to a spectator of its table; a seed the player chose is echoed to the
    player only."""
    async def main():
        app = await started(bot_delay=0.05)
        try:
            async with connect(url(app.bound_port)) as a, connect(url(app.bound_port)) as b:
                m = await ask(a, {"type": "new_game", "bots": "greedy", "seat": 1}, "play")
                st = m["state"]
                assert st["seed"] is None
                assert [s["hand"] is not None for s in st["seats"]] == [False, True, False, False]
                w = await ask(b, {"type": "hello"}, "welcome")
                tid = next(t["id"] for t in w["tables"] if t["kind"] == "people")
                assert not next(t for t in w["tables"] if t["id"] == tid)["open_hands"]
                v = await ask(b, {"type": "watch", "table": tid, "hands": True}, "table")
                assert v["hands"] is False and v["state"]["seed"] is None
                assert all(s["hand"] is None for s in v["state"]["seats"])
                # a chosen seed: back to its player, not to the spectator
                m = await ask(a, {"type": "new_game", "bots": "greedy", "seed": 1234}, "play")
                assert m["state"]["seed"] == 1234
                w = await ask(b, {"type": "list"}, "lists")
                tid = next(t["id"] for t in w["tables"] if t["kind"] == "people")
                v = await ask(b, {"type": "watch", "table": tid, "hands": True}, "table",
                              until=lambda x: x["state"] is not None)
                assert v["state"]["seed"] is None
                assert all(s["hand"] is None for s in v["state"]["seats"])
        finally:
            await app.stop()
    run(main())


def test_random_seeds_have_63_bits():
    """A seed of 32 bits could be found by dealing all 2**32 against the
    player's own 27 cards: the page's random seeds take 63."""
    seeds = [PlaySession(["greedy"]).seed for _ in range(16)]
    assert all(0 <= s < 1 << 63 for s in seeds)
    assert sum(s >= 1 << 40 for s in seeds) >= 14


def test_replays_show_the_seed_of_an_upload_only(tmp_path):
    """A record of the records folder is replayed without its seed (a table
    server deals game k + 1 from game k's seed plus one); a record the page
    brought itself shows it."""
    rec = played_record(5)
    (tmp_path / "game_001_seed_5.json").write_text(json.dumps(rec))
    assert Replay(rec).view()["seed"] is None
    assert Replay(rec, show_seed=True).view()["seed"] == 5

    async def main():
        app = await started(records=str(tmp_path))
        try:
            async with connect(url(app.bound_port)) as a:
                r = await ask(a, {"type": "replay_open", "name": "game_001_seed_5.json"}, "replay")
                assert r["state"]["seed"] is None and r["state"]["steps"] == len(rec["actions"])
                r = await ask(a, {"type": "replay_open", "record": rec}, "replay")
                assert r["state"]["seed"] == 5
        finally:
            await app.stop()
    run(main())


def test_an_upload_is_offered_to_its_own_page_only():
    rec = played_record(7)

    async def main():
        app = await started()
        try:
            async with connect(url(app.bound_port)) as a, connect(url(app.bound_port)) as b:
                r = await ask(a, {"type": "replay_open", "record": rec}, "replay")
                name = r["state"]["name"]
                assert name in (await ask(a, {"type": "list"}, "lists"))["records"]
                assert name not in (await ask(b, {"type": "hello"}, "welcome"))["records"]
                e = await ask(b, {"type": "replay_open", "name": name}, "error", "replay")
                assert e["type"] == "error" and "no record" in e["message"]
                # the page itself can open it again by name
                r = await ask(a, {"type": "replay_open", "name": name}, "replay")
                assert r["state"]["name"] == name
            # a page keeps a few uploads, not all it ever sent
            async with connect(url(app.bound_port)) as c:
                for s in range(web_server.MAX_UPLOADS + 3):
                    await ask(c, {"type": "replay_open", "record": dict(rec, format=rec["format"],
                                                                        seed=rec["seed"] + 0,
                                                                        result={"n": s})},
                              "replay", "error")
                lists = await ask(c, {"type": "list"}, "lists")
                assert sum(n.startswith("upload-") for n in lists["records"]) <= web_server.MAX_UPLOADS
        finally:
            await app.stop()
    run(main())


# -- bounded resources ------------------------------------------------------------------

def test_connections_are_bounded():
    async def main():
        app = await started(max_clients=3)
        try:
            pages = [await connect(url(app.bound_port)) for _ in range(3)]
            for p in pages:
                await ask(p, {"type": "hello"}, "welcome")
            with pytest.raises(websockets.exceptions.InvalidStatus) as e:
                await connect(url(app.bound_port))
            assert e.value.response.status_code == 503
            await pages[0].close()
            for _ in range(100):                  # its place is free again
                if len(app.clients) < 3:
                    break
                await asyncio.sleep(0.02)
            async with connect(url(app.bound_port)) as p:
                await ask(p, {"type": "hello"}, "welcome")
            for p in pages[1:]:
                await p.close()
        finally:
            await app.stop()
    run(main())


def test_frames_over_the_rate_are_refused_and_the_page_goes_on():
    async def main():
        app = await started()
        try:
            async with connect(url(app.bound_port)) as a:
                for _ in range(web_server.RATE_BURST + 40):
                    await a.send(json.dumps({"type": "unwatch"}))
                e = await wait(a, "error")
                assert "too many messages" in e["message"]
                await asyncio.sleep(0.5)          # the bucket refills
                await ask(a, {"type": "hello"}, "welcome")
        finally:
            await app.stop()
    run(main())


def test_a_page_that_does_not_read_is_dropped_and_its_queue_freed():
    async def main():
        app = await started()
        try:
            c = web_server._Client(None)
            big = "x" * (web_server.MAX_QUEUE_BYTES // 4)
            for _ in range(5):
                c.send({"type": "error", "message": big})
            assert c.gone and c.queued <= web_server.MAX_QUEUE_BYTES
            n = c.queue.qsize()
            c.send({"type": "hello"})
            assert c.queue.qsize() == n          # nothing more is queued for it
        finally:
            await app.stop()
    run(main())


class _RawPage:
    """A page on a plain socket: it sends text frames and never reads (the
    hostile page of the soak)."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("closed during the handshake")
            head += chunk
        self.status = int(head.split()[1])
        self.sock.setblocking(False)

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
        try:
            self.sock.send(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
            return True
        except (BlockingIOError, OSError):
            return False                    # the server stopped reading it, or dropped it

    def close(self):
        self.sock.close()


def _rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _long_named_records(folder, n=500):
    """``n`` records under names of about 300 characters (a large listing)."""
    rec = json.dumps(played_record(3))
    part = "r" * 95
    for i in range(n):
        d = os.path.join(folder, f"{part}{i // 100:02d}", f"{part}{i % 7}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"{part[:90]}{i:04d}.json"), "w") as f:
            f.write(rec)


def _wait_listening(port, timeout=30):
    t0 = time.monotonic()
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() - t0 > timeout:
                raise
            time.sleep(0.05)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Proc:
    """A ``guandan`` command in a subprocess (the package under test),
    killed on exit whatever happened."""

    def __init__(self, *args, ready):
        env = dict(os.environ)
        pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(guandan.__file__)))
        env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-m", "guandan", *args], cwd=REPO, env=env,
                                     stdin=subprocess.DEVNULL, stdout=self.err, stderr=self.err)
        t0 = time.monotonic()
        while ready not in self.output():
            if self.proc.poll() is not None or time.monotonic() - t0 > 60:
                self.close()
                raise AssertionError(f"not ready: {self.output()[-2000:]}")
            time.sleep(0.05)

    def output(self):
        return child_output(self.err)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def test_hostile_soak_keeps_rss_flat(tmp_path):
    """20 pages that never read ask for a large listing again and again (a
    records folder of 500 long names): the server drops them, its memory
    stays flat (it took 46 → 901 MiB before the outbox was bounded) and a
    normal page is still answered."""
    _long_named_records(str(tmp_path))
    port = _free_port()
    with _Proc("web", "--port", str(port), "--records", str(tmp_path), ready="web table:") as srv:
        async def page_ok():
            async with connect(url(port), max_size=None) as ws:
                t0 = time.monotonic()
                w = await ask(ws, {"type": "hello"}, "welcome")
                assert len(w["records"]) == 500
                return time.monotonic() - t0
        _wait_listening(port)                 # "web table: URL" is printed just before the bind
        run(page_ok())
        time.sleep(0.5)
        before = _rss_mib(srv.proc.pid)
        peak = before
        for wave in range(3):
            pages = [_RawPage(port) for _ in range(20)]
            assert all(p.status == 101 for p in pages)
            frame = json.dumps({"type": "list"})
            t0 = time.monotonic()
            while time.monotonic() - t0 < 2.5:
                for p in pages:
                    for _ in range(20):
                        p.send(frame)
                peak = max(peak, _rss_mib(srv.proc.pid))
                time.sleep(0.05)
            for p in pages:
                p.close()
        time.sleep(1.0)
        after = _rss_mib(srv.proc.pid)
        peak = max(peak, after)
        assert peak - before < 150, (before, peak, after)
        assert run(page_ok()) < 5.0
        assert srv.proc.poll() is None
        assert "Traceback" not in srv.output()


# -- nothing stalls the loop ------------------------------------------------------------

def test_an_abusive_page_stalls_neither_the_contest_table_nor_other_pages(tmp_path):
    """``serve --web``: a contest client at the table and a normal page
    beside a page that asks for the listing of a records folder of 30,000
    files and jumps a long replay back and forth. The contest client's
    questions and the normal page's answers keep coming (before, 20 list
    frames froze a contest table for 9.9 s; 200 jumps took a page from 5 ms
    to 3 s)."""
    rec_dir = tmp_path / "records"
    many = rec_dir / "many"
    many.mkdir(parents=True)
    for i in range(30_000):
        (many / f"g{i:05d}.json").touch()
    long = played_record(9)
    (rec_dir / "long.json").write_text(json.dumps(long))
    steps = len(long["actions"])
    port, web = _free_port(), _free_port()
    args = ["serve", "--port", str(port), "--web", str(web), "--record", str(rec_dir),
            "--bots", "1=greedy,2=greedy,3=greedy", "--games", "50", "--seed", "1",
            "--timeout", "30"]
    with _Proc(*args, ready="serving on ws://") as srv:
        _wait_listening(web)
        async def main():
            gaps, page_times = [], []
            stop = asyncio.Event()

            async def contest():
                async with connect(f"ws://127.0.0.1:{port}/game/me") as bot:
                    sent = None
                    while not stop.is_set():
                        try:
                            raw = await asyncio.wait_for(bot.recv(), 15)
                        except asyncio.TimeoutError:
                            gaps.append(15.0)
                            return
                        msg = json.loads(raw)
                        if msg.get("type") == "act":
                            if sent is not None:
                                gaps.append(time.monotonic() - sent)
                            await bot.send(json.dumps({"actIndex": 0}))
                            sent = time.monotonic()

            async def normal_page():
                async with connect(url(web), max_size=None) as ws:
                    while not stop.is_set():
                        t0 = time.monotonic()
                        await ask(ws, {"type": "watch", "table": "t1"}, "table")
                        page_times.append(time.monotonic() - t0)
                        await asyncio.sleep(0.1)

            async def abuser():
                async with connect(url(web), max_size=None) as ws:
                    await ask(ws, {"type": "replay_open", "name": "long.json"}, "replay", timeout=30)
                    for k in range(12):
                        for _ in range(15):
                            await ws.send(json.dumps({"type": "list"}))
                            await ws.send(json.dumps({"type": "replay_goto",
                                                      "step": 0 if k % 2 else steps}))
                        await asyncio.sleep(0.5)
                stop.set()

            tasks = [asyncio.ensure_future(f()) for f in (contest, normal_page)]
            await asyncio.sleep(1.0)               # the baseline
            base = len(gaps)
            await abuser()
            await asyncio.gather(*tasks, return_exceptions=True)
            return gaps, base, page_times
        gaps, base, page_times = run(main(), timeout=120)
        during = gaps[base:]
        assert len(during) >= 20, gaps
        assert max(during) < 1.0, sorted(during)[-5:]
        assert page_times and max(page_times) < 1.0, sorted(page_times)[-5:]
        assert "Traceback" not in srv.output()


def test_a_page_flooding_frames_is_closed_and_others_go_on():
    """Frames over the rate are ignored; a page that keeps sending them
    (past FLOOD_BURST of them) is closed with 1008, and another page is
    answered as before."""
    from websockets.exceptions import ConnectionClosed

    async def main():
        app = await started()
        try:
            async with connect(url(app.bound_port)) as b:
                async with connect(url(app.bound_port)) as a:
                    with pytest.raises(ConnectionClosed) as e:
                        for _ in range(web_server.RATE_BURST + web_server.FLOOD_BURST + 500):
                            await a.send(json.dumps({"type": "unwatch"}))
                        while True:
                            await asyncio.wait_for(a.recv(), 10)
                    assert e.value.rcvd is not None and e.value.rcvd.code == 1008
                await ask(b, {"type": "hello"}, "welcome")
        finally:
            await app.stop()
    run(main())


def test_large_frames_are_bounded_per_page_and_uploads_keep_only_their_record():
    """A page may send BYTE_RATE bytes a second (bursts of BYTE_BURST): more
    is refused before it is read. An upload is kept as the fields a replay
    reads, not whatever else the page sent with it."""
    async def main():
        app = await started()
        try:
            async with connect(url(app.bound_port)) as a:
                rec = played_record(3)
                rec["junk"] = [[] for _ in range(100_000)]
                r = await ask(a, {"type": "replay_open", "record": rec}, "replay")
                name = r["state"]["name"]
                kept = app.clients[0].uploads[name]
                assert "junk" not in kept and kept["actions"] == rec["actions"]
                assert "junk" not in app.clients[0].replay.record
                big = json.dumps({"type": "replay_open", "record": {"pad": "x" * (900 << 10)}})
                for _ in range(4):                 # 3.6 MiB at once: the bucket holds 2 MiB
                    await a.send(big)
                got = await errors_until_quiet(a, 3)
                assert "too much data" not in got[0] and any("too much data" in m for m in got), got
        finally:
            await app.stop()
    run(main())


def test_a_page_that_pings_without_reading_is_cut():
    """websockets answers every ping at once, read or not: a page that pings
    and never reads is cut once the answers waiting for it pass
    WRITE_BUFFER_LIMIT, and the server goes on."""
    from guandan.server import connections
    from server_harness import ping_without_reading

    async def main():
        app = await started()
        try:
            how, sent = await asyncio.get_running_loop().run_in_executor(
                None, ping_without_reading, app.bound_port, "/ws")
            assert how == "cut", (how, sent)
            assert sent < 16 * connections.WRITE_BUFFER_LIMIT, sent
            async with connect(url(app.bound_port)) as b:
                await ask(b, {"type": "hello"}, "welcome")
        finally:
            await app.stop()
    run(main())


def test_exchanged_cards_are_shown_once_their_stage_is_complete():
    """The payers of a double tribute pay at once, and the receivers return
    at once (the contest protocol tells the seats each stage's cards when
    it is complete): until then a viewer sees no card of another seat's
    tribute or return, nor it as the last action; its own seat's viewer
    sees its own."""
    from guandan.web.views import table_view
    seen = set()
    for seed in range(300):
        g = Game(seed=seed, policy_seed=seed)
        while not g.is_over and len(seen) < 2:
            t = g.tribute
            stage = ("tribute", t.payers, t.paid) if g.phase == "tribute" else ("back", t.receivers, t.returned)
            if g.phase in ("tribute", "back") and len(stage[1]) == 2 and any(stage[2]) and not all(stage[2]):
                key = "paid" if stage[0] == "tribute" else "returned"
                done = stage[1][[c is not None for c in stage[2]].index(True)]
                other = [s for s in range(4) if s != done]
                v = table_view(g, "abcd", visible=other)
                assert v["tribute"][key] == [None, None] and v["last_action"] is None
                own = table_view(g, "abcd", visible=[done])
                assert own["tribute"][key] == list(stage[2]) and own["last_action"]["seat"] == done
                seen.add(key)
            g.play(g.choose("greedy"))
            if g.phase == "play" and g.tribute.payers and seen:
                v = table_view(g, "abcd")
                assert v["tribute"]["paid"] == list(g.tribute.paid)
                assert v["tribute"]["returned"] == list(g.tribute.returned)
        if len(seen) == 2:
            break
    assert seen == {"paid", "returned"}


def test_every_pages_bytes_share_one_budget_and_pong_floods_are_cut(monkeypatch):
    """All pages' frames together may bring ALL_RATE bytes a second (their
    decoding holds the loop): more are refused unread, whichever page
    sends them. A page flooding pongs (handled by the library, unseen by
    the server) is cut."""
    from server_harness import pong_flood
    monkeypatch.setattr(web_server, "ALL_RATE", 1000)
    monkeypatch.setattr(web_server, "ALL_BURST", 8000)

    async def main():
        app = await started()
        try:
            async with connect(url(app.bound_port)) as a, connect(url(app.bound_port)) as b:
                pad = "x" * 3000
                for ws in (a, b, a, b):
                    await ws.send(json.dumps({"type": "unwatch", "pad": pad}))
                got = await errors_until_quiet(a, 1.5) + await errors_until_quiet(b, 1.5)
                assert any("busy reading other pages" in m for m in got), got
            how = await asyncio.get_running_loop().run_in_executor(None, pong_flood, app.bound_port, "/ws")
            assert how == "cut"
        finally:
            await app.stop()
    run(main())


def test_the_pages_heavy_work_takes_its_turn_and_its_share_of_the_time(monkeypatch):
    """Heavy jobs (replays opened, jumps, the listing) run one at a time, in
    the order asked, and after the lent burst at most ``WORK_SHARE`` of the
    time: they hold the interpreter lock the event loop needs."""
    monkeypatch.setattr(web_server, "WORK_SHARE", 0.25)
    monkeypatch.setattr(web_server, "WORK_BURST", 0.05)

    def burn(tag, log):
        log.append(("start", tag))
        t0 = time.thread_time()
        while time.thread_time() - t0 < 0.05:
            pass
        log.append(("end", tag))
        return tag

    def fail():
        raise web_server.WebMessageError("bad record")

    async def main():
        app = await started()
        try:
            log = []
            t0 = time.monotonic()
            got = await asyncio.gather(*[app._off_loop(burn, k, log) for k in range(6)])
            wall = time.monotonic() - t0
            assert got == list(range(6))
            assert log == [(e, k) for k in range(6) for e in ("start", "end")]   # one at a time, in turn
            # the sixth starts once the first five's 0.25 CPU seconds, less the
            # 0.05 lent, are within a quarter of the time: after 0.8 s at least
            assert wall >= (5 * 0.05 - 0.05) / 0.25 - 0.02, wall
            with pytest.raises(web_server.WebMessageError, match="bad record"):
                await app._off_loop(fail)
        finally:
            await app.stop()
    run(main(), timeout=60)


def test_a_long_replay_jump_is_made_in_steps_and_lands_where_one_jump_does(monkeypatch):
    monkeypatch.setattr(web_server, "JUMP_STEPS", 50)
    rec = played_record(4)
    direct = Replay(rec, "r", show_seed=True)        # a page is shown its own upload's seed
    direct.goto(len(direct) - 3)
    want = direct.view()

    async def main():
        app = await started()
        try:
            async with connect(url(app.bound_port), max_size=None) as ws:
                up = await ask(ws, {"type": "replay_open", "record": rec}, "replay")
                name = up["state"]["name"]
                jobs = []
                real = web_server._goto_view
                monkeypatch.setattr(web_server, "_goto_view",
                                    lambda *a: jobs.append(a[1:]) or real(*a))
                got = await ask(ws, {"type": "replay_goto", "step": len(rec["actions"]) - 3}, "replay")
                assert len(jobs) == -(-(len(rec["actions"]) - 3) // 50)
                assert got["state"] == json.loads(json.dumps(dict(want, name=name)))
                back = await ask(ws, {"type": "replay_goto", "step": 0}, "replay")
                assert back["state"]["step"] == 0
        finally:
            await app.stop()
    run(main())


def test_a_long_record_is_opened_in_steps_and_other_pages_go_first(monkeypatch):
    """Opening a record is several jobs of JUMP_STEPS actions: a page opening
    a long one does not hold the pages' work queue for the whole record (a
    record of 50,000 actions, the longest, takes about a second)."""
    monkeypatch.setattr(web_server, "JUMP_STEPS", 50)
    long_rec, short_rec = played_record(4), played_record(5)
    short_rec["actions"] = short_rec["actions"][:30]
    short_rec["deals"] = None
    want = Replay(long_rec, "r", show_seed=True).view()
    B = counted_builder(monkeypatch)
    jobs = B.jobs

    async def main():
        app = await started()
        try:
            async with connect(url(app.bound_port), max_size=None) as a, \
                    connect(url(app.bound_port), max_size=None) as b:
                done = []

                async def open_(ws, rec, tag):
                    m = await ask(ws, {"type": "replay_open", "record": rec}, "replay")
                    done.append(tag)
                    return m
                ta = asyncio.ensure_future(open_(a, long_rec, "long"))
                while len(jobs) < 2:                 # the long record's opening under way
                    await asyncio.sleep(0.001)
                got_b = await open_(b, short_rec, "short")
                got_a = await ta
                assert done == ["short", "long"]
                n = len(long_rec["actions"])
                long_jobs = [j for j in jobs if j[0] == got_a["state"]["name"]]
                assert len(long_jobs) == -(-(n + 1) // 50) and all(m == 50 for _, m in long_jobs)
                assert got_a["state"] == json.loads(json.dumps(dict(want, name=got_a["state"]["name"])))
                assert got_b["state"]["steps"] == 30
        finally:
            await app.stop()
    run(main())


class _CountedBuilder(web_server.ReplayBuilder):
    """A ReplayBuilder whose jobs last a while (another page asks meanwhile)
    and which counts its jobs and the builders alive."""
    jobs: list = []
    live = 0
    most_live = 0

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        cls = type(self)
        cls.live += 1
        cls.most_live = max(cls.most_live, cls.live)

    def advance(self, most):
        type(self).jobs.append((self.name, most))
        time.sleep(0.005)
        try:
            r = super().advance(most)
        except Exception:
            type(self).live -= 1
            raise
        if r is not None:
            type(self).live -= 1
        return r


def counted_builder(monkeypatch):
    cls = type("Counted", (_CountedBuilder,), {"jobs": [], "live": 0, "most_live": 0})
    monkeypatch.setattr(web_server, "ReplayBuilder", cls)
    return cls


def test_a_record_failing_late_gives_the_same_error_and_a_page_leaving_mid_open_stops_it(monkeypatch):
    monkeypatch.setattr(web_server, "JUMP_STEPS", 50)
    rec = played_record(4)
    bad = json.loads(json.dumps(rec))
    bad["actions"][300][0] = (bad["actions"][300][0] + 1) % 4       # the wrong seat acts
    with pytest.raises(guandan.GuandanError) as direct:
        Replay(bad)
    B = counted_builder(monkeypatch)

    async def main():
        app = await started()
        try:
            async with connect(url(app.bound_port), max_size=None) as ws:
                m = await ask(ws, {"type": "replay_open", "record": bad}, "error", "replay")
                assert m["type"] == "error" and m["message"] == str(direct.value)
                assert len(B.jobs) == 300 // 50 + 1               # failed in its seventh slice
                m = await ask(ws, {"type": "replay_open", "record": rec}, "error", "replay")
                assert m["type"] == "replay" and m["state"]["steps"] == len(rec["actions"])
            # a page that leaves while its record opens: at most the job under way runs
            B.jobs.clear()
            ws = await connect(url(app.bound_port), max_size=None)
            await ws.send(json.dumps({"type": "replay_open", "record": rec}))
            while len(B.jobs) < 3:
                await asyncio.sleep(0.001)
            await ws.close()
            n = len(B.jobs)
            await asyncio.sleep(0.5)
            assert len(B.jobs) <= n + 1 and len(app.clients) == 0
        finally:
            await app.stop()
    run(main())


def test_at_most_max_opening_records_are_opened_at_once(monkeypatch):
    monkeypatch.setattr(web_server, "JUMP_STEPS", 200)
    monkeypatch.setattr(web_server, "MAX_OPENING", 2)
    B = counted_builder(monkeypatch)
    recs = [played_record(s) for s in (4, 5, 6, 7)]

    async def main():
        app = await started()
        try:
            pages = [await connect(url(app.bound_port), max_size=None) for _ in recs]
            got = await asyncio.gather(*[ask(ws, {"type": "replay_open", "record": r}, "replay")
                                         for ws, r in zip(pages, recs)])
            assert [m["state"]["steps"] for m in got] == [len(r["actions"]) for r in recs]
            assert B.most_live == 2 and B.live == 0
            for ws in pages:
                await ws.close()
        finally:
            await app.stop()
    run(main())


def test_a_folder_records_errors_name_it_as_the_page_does(tmp_path):
    """A page is never told where the server's records folder is."""
    (tmp_path / "broken.json").write_text("{not json")

    async def main():
        app = await started(records=str(tmp_path))
        try:
            async with connect(url(app.bound_port)) as ws:
                m = await ask(ws, {"type": "replay_open", "name": "broken.json"}, "error")
                assert "broken.json is not JSON" in m["message"] and str(tmp_path) not in m["message"]
        finally:
            await app.stop()
    run(main())


def test_bucket_charges_work_measured_afterwards():
    from guandan.server.connections import Bucket
    b = Bucket(0.5, 1.0)
    assert b.wait_time(now=0.0) == 0.0
    b.charge(2.0, now=0.0)                      # 1 lent, 1 owed
    assert b.wait_time(now=0.0) == pytest.approx(2.0)
    assert b.wait_time(now=1.5) == pytest.approx(0.5)
    assert b.wait_time(now=2.0) == 0.0
    assert not b.take(1.0, now=2.0) and b.take(0.5, now=3.0)


def test_a_file_added_during_a_walk_of_the_folder_is_listed(tmp_path, monkeypatch):
    """A page that asks for the lists while a walk of the records folder
    is under way gets one more walk after it: the walk under way may have
    passed the file the page is looking for."""
    monkeypatch.setattr(web_server, "_LIST_TTL", 0.0)
    (tmp_path / "a.json").write_text(json.dumps(played_record(3)))
    scan = web_server._scan_records
    walking = threading.Event()

    def slow_scan(d):
        names = scan(d)
        if walking.is_set():
            time.sleep(0.5)               # the folder changes after this walk read it
        return names

    monkeypatch.setattr(web_server, "_scan_records", slow_scan)

    async def main():
        app = await started(records=str(tmp_path))
        try:
            async with connect(url(app.bound_port), max_size=None) as ws:
                walking.set()
                w = await ask(ws, {"type": "hello"}, "welcome")     # starts a walk
                assert w["records"] == ["a.json"]
                await asyncio.sleep(0.1)
                (tmp_path / "b.json").write_text(json.dumps(played_record(3)))
                await ws.send(json.dumps({"type": "list"}))       # during that walk
                got = await wait(ws, "lists", until=lambda m: "b.json" in m["records"], timeout=5)
                assert got["records"] == ["a.json", "b.json"]
        finally:
            await app.stop()
    run(main(), timeout=60)


def _burn(seconds):
    t0 = time.thread_time()
    while time.thread_time() - t0 < seconds:
        pass
    return seconds


def test_queued_work_is_dropped_when_the_server_stops_or_its_page_leaves(monkeypatch):
    """Jobs waiting for their turn or for the share give up when the server
    stops (stop() does not wait for them at 5% of the time) and when their
    page has closed; the one running ends."""
    monkeypatch.setattr(web_server, "WORK_SHARE", 0.01)
    monkeypatch.setattr(web_server, "WORK_BURST", 0.01)

    async def main():
        app = await started()
        ran = []

        def job(k):
            ran.append(k)
            return _burn(0.05)
        jobs = [asyncio.ensure_future(app._off_loop(job, k)) for k in range(8)]
        await asyncio.sleep(0.3)                 # the first ran; the rest wait for the share (5 s each)
        t0 = time.monotonic()
        await app.stop()
        assert time.monotonic() - t0 < 3.0
        done = await asyncio.gather(*jobs, return_exceptions=True)
        assert ran == [0] and done[0] == 0.05
        assert all(isinstance(d, web_server._Dropped) for d in done[1:])

        app = await started()
        try:
            closed = web_server._Client(SimpleNamespace(state=SimpleNamespace(name="CLOSED")))
            assert not closed.here()             # its socket closed, not yet noticed as gone
            with pytest.raises(web_server._Dropped):
                await app._off_loop(job, 9, page=closed)
            assert 9 not in ran
        finally:
            await app.stop()
    run(main(), timeout=60)


def test_hello_is_answered_while_the_pages_work_waits(tmp_path, monkeypatch):
    """A new page's ``hello`` (and the listing it brings) does not wait
    behind the pages' heavy work: the listing is refreshed in the
    background and sent when it changes."""
    monkeypatch.setattr(web_server, "WORK_SHARE", 0.01)
    monkeypatch.setattr(web_server, "WORK_BURST", 0.01)
    monkeypatch.setattr(web_server, "_LIST_TTL", 0.0)
    (tmp_path / "a.json").write_text(json.dumps(played_record(3)))

    async def main():
        app = await started(records=str(tmp_path))
        try:
            busy = [asyncio.ensure_future(app._off_loop(_burn, 0.05)) for _ in range(4)]
            await asyncio.sleep(0.2)
            async with connect(url(app.bound_port), max_size=None) as ws:
                t0 = time.monotonic()
                w = await ask(ws, {"type": "hello"}, "welcome")
                assert time.monotonic() - t0 < 1.0
                assert w["records"] == ["a.json"]
                (tmp_path / "b.json").write_text(json.dumps(played_record(3)))
                await ws.send(json.dumps({"type": "list"}))
                got = await wait(ws, "lists", until=lambda m: "b.json" in m["records"], timeout=5)
                assert got["records"] == ["a.json", "b.json"]
            for b in busy:
                b.cancel()
        finally:
            await app.stop()
    run(main(), timeout=60)


def test_connections_still_in_their_handshake_are_bounded(monkeypatch):
    """Peers that connect and never finish a handshake hold at most
    ``MAX_SOCKETS`` sockets of the process: past that, new connections are
    cut as they are accepted; once those peers leave, pages connect again."""
    from guandan.server import connections
    monkeypatch.setattr(connections, "MAX_SOCKETS", 3)

    async def main():
        app = await started()
        try:
            cls = connections.bounded_connection()
            base = cls.open_count
            loop = asyncio.get_running_loop()
            held = []
            for _ in range(3):
                r, w = await asyncio.open_connection("127.0.0.1", app.bound_port)
                held.append(w)
            for _ in range(100):
                if cls.open_count == base + 3:
                    break
                await asyncio.sleep(0.01)
            assert cls.open_count == base + 3
            with pytest.raises(Exception):
                await connect(url(app.bound_port), open_timeout=5)
            for w in held:
                w.close()
            t0 = loop.time()
            while cls.open_count > base and loop.time() - t0 < 5:
                await asyncio.sleep(0.02)
            async with connect(url(app.bound_port)) as ws:
                await ask(ws, {"type": "hello"}, "welcome")
        finally:
            await app.stop()
    run(main(), timeout=60)
