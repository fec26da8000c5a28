"""Several tables on one server (``guandan serve --tables N``), and late answers.

The clients are written here from PROTOCOL.md with ``websockets`` only.
"""

import asyncio
import json
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("websockets")

from guandan import Game  # noqa: E402
from guandan.server import MultiTableServer  # noqa: E402
import server_harness


async def _client(url, log, slow_at=None, slow=0.0):
    """Answer the last index of each act (so a stale answer is recognisable);
    at the ``slow_at``-th act sleep ``slow`` seconds first. ``log`` gets
    myPos, and per act (its number, the question's actionList, the index
    answered)."""
    from websockets.asyncio.client import connect
    acts = 0
    async with connect(url, ping_interval=None) as ws:
        async for raw in ws:
            msg = json.loads(raw)
            if msg["type"] == "notify":
                if msg["stage"] == "beginning":
                    log.setdefault("pos", msg["myPos"])
                if msg["stage"] == "gameResult":
                    log["result"] = msg
                continue
            acts += 1
            idx = msg["indexRange"]
            if acts == slow_at:
                await asyncio.sleep(slow)
            log.setdefault("acts", []).append((msg["actionList"], idx))
            await ws.send(json.dumps({"actIndex": idx}))


def test_tables_fill_in_connection_order():
    async def main():
        srv = MultiTableServer("127.0.0.1", 0, tables=2, games=1, seed=7,
                               bots={1: "greedy", 3: "greedy"}, timeout=10, start_delay=0.05)
        srv, run = await server_harness.start(srv)
        logs = [dict() for _ in range(4)]
        clients = []
        for i in range(4):                      # connect one after the other
            clients.append(asyncio.ensure_future(
                _client(server_harness.url(srv, f"client{i}"), logs[i])))
            while sum(len(t._pending) + sum(s.conn is not None for s in t.seats)
                      for t in srv.tables) < i + 1:
                await asyncio.sleep(0.01)
        records = await asyncio.wait_for(run, 120)
        await asyncio.wait_for(asyncio.gather(*clients), 30)
        return srv, logs, records

    srv, logs, records = asyncio.run(main())
    assert [lg["pos"] for lg in logs] == [0, 2, 0, 2]      # table 0 gets clients 0, 1
    assert all(lg["result"]["stage"] == "gameResult" for lg in logs)
    assert len(records) == 2 and all(len(r) == 1 for r in records)
    r0, r1 = records[0][0], records[1][0]
    assert r0["seed"] != r1["seed"]                         # two games, different deals
    for r in (r0, r1):
        assert Game.replay(r).is_over


def test_late_answer_is_never_taken_for_the_next_question():
    async def main():
        srv = MultiTableServer("127.0.0.1", 0, tables=1, games=1, seed=3,
                               bots={1: "greedy", 2: "greedy", 3: "greedy"}, timeout=0.4,
                               start_delay=0.05)
        srv, run = await server_harness.start(srv)
        log = {}
        c = asyncio.ensure_future(_client(server_harness.url(srv, "slow"), log,
                                          slow_at=2, slow=0.9))
        records = await asyncio.wait_for(run, 120)
        await asyncio.wait_for(c, 30)
        return log, records[0][0]

    log, rec = asyncio.run(main())
    mine = [m for s, m in rec["actions"] if s == 0]
    asked = log["acts"]
    assert len(mine) == len(asked) >= 3
    for k, ((actions, idx), played) in enumerate(zip(asked, mine)):
        if k == 1:
            # the slow answer came after the timeout: the default action (index 0)
            assert played == actions[0]
        else:
            # every other question got exactly the answer sent for it
            assert played == actions[idx], f"act {k + 1}"


def test_cli_serve_tables(tmp_path):
    # two tables, one client seat each; four clients in order: the first two
    # play at table 0 and 1 (one seat each), no two share a table
    script = tmp_path / "c.py"
    script.write_text(textwrap.dedent('''
        import json, sys, time
        from websockets.sync.client import connect
        for _ in range(200):                 # the server may still be starting
            try:
                ws = connect(sys.argv[1], open_timeout=20)
                break
            except OSError:
                time.sleep(0.1)
        with ws:
            for raw in ws:
                m = json.loads(raw)
                if m["type"] == "notify" and m["stage"] == "beginning":
                    print("pos", m["myPos"], flush=True)
                if m["type"] == "act":
                    ws.send(json.dumps({"actIndex": 0}))
                if m.get("stage") == "gameResult":
                    print("done", flush=True)
                    break
    '''))
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = subprocess.Popen([sys.executable, "-m", "guandan", "serve", "--port", str(port),
                            "--tables", "2", "--bots", "1=greedy,2=greedy,3=greedy",
                            "--record", str(tmp_path / "rec"), "--seed", "5"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        cs = [subprocess.Popen([sys.executable, str(script), f"ws://127.0.0.1:{port}/game/c{i}"],
                               stdout=subprocess.PIPE, text=True) for i in range(2)]
        outs = [c.communicate(timeout=120)[0] for c in cs]
        assert all("pos 0" in o and "done" in o for o in outs)
        srv.wait(60)
        assert srv.returncode == 0, srv.stderr.read()
    finally:
        for p in [srv]:
            if p.poll() is None:
                p.kill()
    files = sorted((tmp_path / "rec").iterdir())
    assert len(files) == 2
