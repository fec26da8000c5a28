"""The web table's server side (no browser): the page's WebSocket messages
(docs/web.md), seat ownership, hidden hands, replays, the watch feed of the
contest table server, and the static files as package data."""

from __future__ import annotations

import asyncio
import json
import os
import urllib.request
from collections import Counter

import pytest

websockets = pytest.importorskip("websockets")
from websockets.asyncio.client import connect  # noqa: E402

from guandan import Game  # noqa: E402
from guandan.feed import Spectators  # noqa: E402
from guandan.web import WebApp  # noqa: E402
from guandan.web.messages import KINDS, WebMessageError, parse_message  # noqa: E402
from guandan.web.session import PlaySession, Replay  # noqa: E402


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


class Page:
    """One page's socket: ``ask`` sends and waits for a reply of a type."""

    def __init__(self, ws):
        self.ws = ws

    async def send(self, msg):
        await self.ws.send(msg if isinstance(msg, str) else json.dumps(msg))

    async def wait(self, *types, until=None):
        while True:
            m = json.loads(await asyncio.wait_for(self.ws.recv(), 20))
            if m["type"] in types and (until is None or until(m)):
                return m

    async def ask(self, msg, *types, until=None):
        await self.send(msg)
        return await self.wait(*types, until=until)


async def started(**kw):
    kw.setdefault("bot_delay", 0)
    kw.setdefault("watch_delay", 0.01)
    app = WebApp("127.0.0.1", 0, **kw)
    await app.start()
    return app


def url(app):
    return f"ws://127.0.0.1:{app.bound_port}/ws"


async def my_turn(page, msg):
    """Start a game and wait until it is the page's turn."""
    m = await page.ask(msg, "play")
    while not m["state"]["your_turn"]:
        m = await page.wait("play")
    return m


def hand_of(m):
    return [c["c"] for c in m["state"]["seats"][m["state"]["you"]]["hand"]]


# -- the validator ---------------------------------------------------------------------

@pytest.mark.parametrize("raw, why", [
    (b"{}", "text frames"), ("nope", "not JSON"), ("[1]", "JSON object"), ("{}", "unknown"),
    ('{"type": "fly"}', "unknown"), ('{"type": "play"}', "needs 'cards'"),
    ('{"type": "play", "cards": "S3"}', "list"), ('{"type": "play", "cards": [3]}', "list"),
    ('{"type": "play", "cards": ["S3"], "choice": true}', "int"),
    ('{"type": "play", "cards": ["S3"], "choice": -1}', "int"),
    ('{"type": "new_game", "bots": ["a", "b"]}', "three"),
    ('{"type": "new_game", "bots": "greedy", "seat": 4}', "seat"),
    ('{"type": "new_game", "bots": "greedy", "seed": 1.5}', "seed"),
    ('{"type": "watch", "table": ""}', "string"), ('{"type": "replay_goto", "step": "1"}', "int"),
    ('{"type": "replay_open"}', "name or a record"),
    ('{"type": "replay_open", "name": "a", "record": {}}', "name or a record"),
    ("[" * 100000 + "]" * 100000, "not JSON"), ('"' + "x" * (1 << 20) + '"', "at most"),
])
def test_parse_message_refuses(raw, why):
    with pytest.raises(WebMessageError, match=why):
        parse_message(raw)


def test_parse_message_fields():
    m = parse_message('{"type": "play", "cards": ["S3"], "extra": 1, "game": "t1"}')
    assert m == {"type": "play", "cards": ["S3"], "choice": None, "game": "t1"}
    assert set(KINDS) >= {"hello", "watch", "new_game", "select", "play", "pass", "undo", "hint",
                          "replay_open", "replay_goto"}


# -- play --------------------------------------------------------------------------------

def test_play_by_cards_refusal_and_readings():
    async def main():
        app = await started()
        try:
            async with connect(url(app)) as ws:
                p = Page(ws)
                w = await p.ask({"type": "hello"}, "welcome")
                assert "expert" in w["bots"] and any(b.startswith("search") for b in w["bots"])
                m = await my_turn(p, {"type": "new_game", "bots": "greedy", "seed": 1, "seat": 0})
                st = m["state"]
                assert [s["hand"] is None for s in st["seats"]] == [False, True, True, True]
                hand = hand_of(m)
                session = app.clients[0].play
                assert hand == session.game.hands[0].cards(session.game.level)
                # an illegal selection: the engine's reason
                bad = [hand[0], hand[-3]]
                r = await p.ask({"type": "play", "cards": bad}, "refused")
                with pytest.raises(Exception) as e:
                    session.game.copy().play(" ".join(bad))
                assert r["message"] == str(e.value)
                # the matches of a selection are the legal moves of exactly those cards
                legal = [x for x in session.game.legal_moves() if not x.is_pass]
                pick = legal[0]
                sel = list(pick.cards)
                mm = await p.ask({"type": "select", "cards": sel}, "matches")
                want = [x.to_platform() for x in legal if Counter(x.cards) == Counter(sel)]
                assert [x["text"] for x in mm["moves"]] == [str(session.game.parse_action(w)) for w in want]
                before = st["seats"][0]["count"]
                n0 = st["actions"]
                m = await p.ask({"type": "play", "cards": sel, "choice": 0}, "play",
                                until=lambda m: m["state"]["actions"] == n0 + 1)
                assert m["played"]["cards"] == mm["moves"][0]["cards"]
                assert m["state"]["seats"][0]["count"] == before - len(sel)
                assert m["state"]["trick"][-1]["seat"] == 0
        finally:
            await app.stop()
    run(main())


def test_play_readings_of_a_wild_are_choices():
    g = Game.from_position([["H2", "S3"], ["S4"], ["S5"], ["S6"]], level="2", to_act=0)
    p = PlaySession(["greedy"], 0, 0)
    p.game = g
    ms = p.matches(["H2"])
    assert len(ms) >= 1 and all(m.cards == ("H2",) for m in ms)
    ms = p.matches(["H2", "S3"])
    assert len(ms) >= 1 and all(Counter(m.cards) == Counter(["H2", "S3"]) for m in ms)
    several = [c for c in (["H2", "S3"],) if len(p.matches(c)) > 1]
    for cards in several:
        with pytest.raises(Exception, match="choose one"):
            p.play(cards)


def test_other_page_cannot_act_and_bot_turns_refused():
    async def main():
        app = await started(bot_delay=0.3)
        try:
            async with connect(url(app)) as a, connect(url(app)) as b:
                pa, pb = Page(a), Page(b)
                m = await my_turn(pa, {"type": "new_game", "bots": "greedy", "seed": 3, "seat": 2})
                gid = m["game"]
                hand = hand_of(m)
                # page b names a's game: refused, a's game unchanged
                n = m["state"]["actions"]
                e = await pb.ask({"type": "pass", "game": gid}, "error")
                assert "not yours" in e["message"] or "no game" in e["message"]
                e = await pb.ask({"type": "play", "cards": hand[:1], "game": gid}, "error")
                assert "no game" in e["message"]
                await pb.ask({"type": "new_game", "bots": "random", "seed": 4}, "play")
                e = await pb.ask({"type": "play", "cards": hand[:1], "game": gid}, "error")
                assert "not yours" in e["message"]
                assert len(app.clients[0].play.game.moves_played) == n
                # spectators of a table with a person see no hand, even when they ask
                t = await pb.ask({"type": "watch", "table": gid, "hands": True}, "table")
                assert t["open_hands"] is False and t["hands"] is False
                assert all(s["hand"] is None for s in t["state"]["seats"])
                assert "HR" not in json.dumps(t["state"]["seats"])
                # acting when a bot is to act is refused with the reason
                if m["state"]["can_pass"]:
                    await pa.send({"type": "pass", "game": gid})
                else:
                    legal = [x for x in app.clients[0].play.game.legal_moves()]
                    await pa.send({"type": "play", "cards": list(legal[0].cards), "choice": 0})
                await pa.wait("play")
                r = await pa.ask({"type": "pass"}, "refused", "play",
                                 until=lambda m: m["type"] == "refused")
                assert "not your turn" in r["message"]
        finally:
            await app.stop()
    run(main())


def test_hint_undo_practice():
    async def main():
        app = await started()
        try:
            async with connect(url(app)) as ws:
                p = Page(ws)
                m = await my_turn(p, {"type": "new_game", "bots": ["expert", "greedy", "random"],
                                      "seed": 5, "practice": True})
                assert m["state"]["bots"] == [None, "expert", "greedy", "random"]
                h = await p.ask({"type": "hint", "bot": "expert"}, "hint")
                assert h["rule"] and h["move"]["text"]
                h = await p.ask({"type": "hint", "bot": "greedy"}, "hint")
                assert h["text"]
                h = await p.ask({"type": "hint", "bot": "search:rollouts=200"}, "hint")
                assert h["candidates"] and h["move"]["text"]
                e = await p.ask({"type": "hint", "bot": "search:ms=99999"}, "error")
                assert "not offered" in e["message"]
                hand = hand_of(m)
                n = m["state"]["actions"]
                mv = await p.ask({"type": "play", "cards": [h["move"]["cards"][0]["c"]] if
                                  h["move"]["type"] == "single" else [c["c"] for c in h["move"]["cards"]]
                                  if h["move"]["cards"] else hand[:1]}, "play", "refused")
                if mv["type"] == "refused":            # the hint was a pass
                    mv = await p.ask({"type": "pass"}, "play")
                while not mv["state"]["your_turn"] and not mv["state"]["over"]:
                    mv = await p.wait("play")
                u = await p.ask({"type": "undo"}, "play", until=lambda m: "undone" in m)
                assert u["state"]["actions"] == n and hand_of(u) == hand
        finally:
            await app.stop()
    run(main())


def test_undo_outside_practice_and_unknown_bot():
    async def main():
        app = await started()
        try:
            async with connect(url(app)) as ws:
                p = Page(ws)
                e = await p.ask({"type": "play", "cards": ["S3"]}, "error")
                assert "no game" in e["message"]
                e = await p.ask({"type": "new_game", "bots": "nobody"}, "error")
                assert "not offered" in e["message"]
                await my_turn(p, {"type": "new_game", "bots": "greedy", "seed": 9})
                r = await p.ask({"type": "undo"}, "refused")
                assert "practice" in r["message"]
        finally:
            await app.stop()
    run(main())


def test_malformed_frames_never_close():
    async def main():
        app = await started()
        try:
            async with connect(url(app), max_size=None) as ws:
                p = Page(ws)
                for raw in ("", "null", "{}", "[", '{"type": 5}', '{"type": "select", "cards": null}',
                            '{"type": "replay_goto", "step": 1}', '{"type": "watch", "table": "zz"}',
                            '{"type": "replay_open", "name": "../../etc/passwd"}',
                            '{"type": "replay_open", "record": {"format": "x"}}'):
                    e = await p.ask(raw, "error")
                    assert e["message"]
                await ws.send(b"\x00\x01")
                assert (await p.wait("error"))["message"]
                assert (await p.ask({"type": "hello"}, "welcome"))["bots"]
        finally:
            await app.stop()
    run(main())


def test_oversized_frame_closes_only_that_page():
    async def main():
        app = await started()
        try:
            async with connect(url(app), max_size=None) as a:
                big = json.dumps({"type": "hello", "pad": "x" * (2 << 20)})
                await a.send(big)
                with pytest.raises(websockets.exceptions.ConnectionClosed):
                    await asyncio.wait_for(a.recv(), 10)
            async with connect(url(app)) as b:
                assert (await Page(b).ask({"type": "hello"}, "welcome"))["type"] == "welcome"
        finally:
            await app.stop()
    run(main())


# -- replay ------------------------------------------------------------------------------

def _record(seed=11, rounds=1):
    g = Game(seed=seed)
    for _ in range(rounds):
        g.play_out(("greedy",) * 4, until="round")
    return g


def test_replay_steps_and_hands(tmp_path):
    g = _record(11, 2)
    rec = g.record()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "game_001.json").write_text(json.dumps(rec))
    (tmp_path / "secret.txt").write_text("no")

    async def main():
        app = await started(records=str(tmp_path))
        try:
            async with connect(url(app)) as ws:
                p = Page(ws)
                w = await p.ask({"type": "hello"}, "welcome")
                assert w["records"] == ["sub/game_001.json"]
                r = await p.ask({"type": "replay_open", "name": "sub/game_001.json"}, "replay")
                st = r["state"]
                n = len(rec["actions"])
                # opened at the first step; the two rounds the record plays are listed
                # (not the third one it ends at the deal of)
                assert st["steps"] == n and st["step"] == 0 and len(st["rounds"]) == 2
                assert st["round"] == 1 and st["result"]["rounds"] == 2
                assert st["tricks"][0] == 0 and st["rounds"][0] == 0
                for step in (0, 5, 4, st["rounds"][1], n):
                    r = await p.ask({"type": "replay_goto", "step": step}, "replay")
                    ref = Game.replay(dict(rec, actions=rec["actions"][:step], deals=None))
                    for s in range(4):
                        assert [c["c"] for c in r["state"]["seats"][s]["hand"]] == \
                            ref.hands[s].cards(ref.level)
                    assert r["state"]["step"] == step and r["state"]["round"] == ref.round_index + 1
                for bad in ("../secret.txt", "secret.txt", "/etc/passwd", "sub/../../x.json",
                            "sub/nothing.json"):
                    e = await p.ask({"type": "replay_open", "name": bad}, "error")
                    assert "no record" in e["message"] or "not JSON" in e["message"]
                # an uploaded record gets a name that opens it again (a shareable URL)
                r = await p.ask({"type": "replay_open", "record": _record(12).record()}, "replay")
                name = r["state"]["name"]
                assert name.startswith("upload-")
                r2 = await p.ask({"type": "replay_open", "name": name}, "replay")
                assert r2["state"]["steps"] == r["state"]["steps"]
                bad = dict(rec, actions=rec["actions"] + [[0, ["Single", "3", ["S3"]]]])
                e = await p.ask({"type": "replay_open", "record": bad}, "error")
                assert e["message"]
        finally:
            await app.stop()
    run(main())


def test_replay_object_marks():
    rec = _record(13).record()
    r = Replay(rec)
    assert r.rounds[0] == 0 and r.tricks == sorted(r.tricks)
    r.goto(0)
    assert r.view()["actions"] == 0
    r.goto(10 ** 9)
    assert r.pos == len(rec["actions"])


# -- watch -------------------------------------------------------------------------------

def test_watch_bot_table_advances_with_hands():
    async def main():
        app = await started(watch=[["expert", "greedy", "expert", "greedy"]])
        try:
            async with connect(url(app)) as ws:
                p = Page(ws)
                w = await p.ask({"type": "hello"}, "welcome")
                tid = w["tables"][0]["id"]
                assert w["tables"][0]["open_hands"] and w["tables"][0]["names"][0] == "expert"
                t = await p.ask({"type": "watch", "table": tid, "hands": True}, "table")
                a0 = t["state"]["actions"]
                t = await p.wait("table", until=lambda m: m["state"]["actions"] > a0 + 3)
                assert all(s["hand"] is not None for s in t["state"]["seats"])
                t = await p.ask({"type": "watch", "table": tid, "hands": False}, "table")
                assert all(s["hand"] is None for s in t["state"]["seats"])
        finally:
            await app.stop()
    run(main())


@pytest.mark.parametrize("program_hands", [False, True])
def test_serve_web_watches_contest_table(program_hands):
    """A contest table server with a web table: the tables are listed and
    their actions reach the watching page. The seats are programs that
    could watch the page: their hands (and the deal seed) are hidden from
    spectators unless the server is started with ``program_hands``
    (``serve --web-hands``)."""
    from guandan.server import TableServer
    from guandan.web.server import run_with_tables

    async def main():
        srv = TableServer("127.0.0.1", 0, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                          games=1, timeout=5)
        app = WebApp("127.0.0.1", 0, program_hands=program_hands)
        task = asyncio.ensure_future(run_with_tables(srv, app))
        while app.bound_port is None or srv.bound_port is None:
            await asyncio.sleep(0.05)
        async with connect(url(app)) as ws:
            p = Page(ws)
            w = await p.ask({"type": "hello"}, "welcome")
            tid = w["tables"][0]["id"]
            assert w["tables"][0]["kind"] == "contest"
            await p.send({"type": "watch", "table": tid, "hands": True})
            async with connect(f"ws://127.0.0.1:{srv.bound_port}/game/me") as bot:
                got = None
                for _ in range(400):
                    msg = json.loads(await asyncio.wait_for(bot.recv(), 10))
                    if msg.get("type") == "act":
                        await bot.send(json.dumps({"actIndex": 0}))
                        got = await p.wait("table", until=lambda m: m["state"] and m["state"]["actions"] > 2)
                        break
                assert got is not None and got["hands"] is program_hands
                assert w["tables"][0]["open_hands"] is program_hands
                assert all((x["hand"] is not None) is program_hands for x in got["state"]["seats"])
                assert got["state"]["seed"] is None
                assert got["state"]["seats"][0]["name"] == "me"
        task.cancel()
        try:
            await task
        except (asyncio.CancelledError, Exception):
            pass
    run(main())


# -- HTTP and package data ---------------------------------------------------------------

def test_static_files_and_origin():
    async def main():
        app = await started()
        try:
            base = f"http://127.0.0.1:{app.bound_port}"
            loop = asyncio.get_running_loop()

            def get(path):
                try:
                    with urllib.request.urlopen(base + path, timeout=10) as r:
                        return r.status, r.headers.get("Content-Type"), r.read()
                except urllib.error.HTTPError as e:
                    return e.code, None, b""
            st, ctype, body = await loop.run_in_executor(None, get, "/")
            assert st == 200 and ctype.startswith("text/html") and b"app.js" in body
            st, ctype, body = await loop.run_in_executor(None, get, "/app.js")
            assert st == 200 and "javascript" in ctype
            for bad in ("/../server.py", "/static/../server.py", "/x"):
                assert (await loop.run_in_executor(None, get, bad))[0] == 404
            with pytest.raises(Exception):
                async with connect(url(app), origin="http://evil.example"):
                    pass
            async with connect(url(app), origin=f"http://127.0.0.1:{app.bound_port}") as ws:
                assert (await Page(ws).ask({"type": "hello"}, "welcome"))["type"] == "welcome"
        finally:
            await app.stop()
    run(main())


def test_static_files_are_package_data():
    root = os.path.join(os.path.dirname(__file__), "..")
    with open(os.path.join(root, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    assert '"guandan.web" = ["static/*"]' in text
    here = os.path.join(root, "src", "guandan", "web", "static")
    assert {"app.js", "style.css"} <= set(os.listdir(here))
    # the HTML document is a module (every *.html under the package is a
    # cython -a annotation, ignored by git)
    from guandan.web.page import INDEX_HTML
    assert INDEX_HTML.startswith("<!doctype html>")
    assert 'src="app.js"' in INDEX_HTML and 'href="style.css"' in INDEX_HTML


def test_spectators_hub_threads():
    hub = Spectators()
    got = []

    async def main():
        loop = asyncio.get_running_loop()
        hub.listen(loop, got.append)
        t = hub.add("x", lambda: None, lambda: ["a"] * 4, open_hands=False)
        await loop.run_in_executor(None, hub.changed, t.id)
        await asyncio.sleep(0.05)
    run(main())
    assert got and all(x == "t1" for x in got)


def test_cli_web_errors(capsys):
    from guandan.cli import main
    assert main(["web", "--records", "/no/such/dir"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a folder" in err
    assert main(["web", "--bots", "nobody"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nobody" in err


def test_arena_external_tables_are_published(tmp_path, monkeypatch):
    """``guandan arena --web``: the external programs' tables are watchable
    while they play (named by participant), and gone once they end. Their
    titles never name the deal seed (it deals every hand), and each
    program's seat is reserved under a label no other program can guess."""
    import guandan.server
    from guandan.arena import Limits, arena
    from guandan.arena.schedule import deal_spec
    from test_arena_external import CLIENT, engine

    labels = []
    table_cls = guandan.server.Table

    def table(*a, **k):
        labels.append(dict(k.get("seat_labels") or {}))
        return table_cls(*a, **k)
    monkeypatch.setattr(guandan.server, "Table", table)

    client = tmp_path / "contest_client.py"
    client.write_text(CLIENT)
    hub = Spectators()
    seen = []
    add = hub.add

    def spy(*a, **k):
        t = add(*a, **k)
        seen.append((t, t.names(), t.kind))
        return t
    hub.add = spy
    arena([engine("first", str(client), "first"), "greedy"], deals=1, seed=3, concurrency=1,
          limits=Limits(move_time=5, connect_time=20), spectators=hub)
    assert len(seen) == 2
    assert sorted(tuple(n) for _, n, _ in seen) == [("first", "greedy", "first", "greedy"),
                                                   ("greedy", "first", "greedy", "first")]
    assert all(k == "contest" and t.open_hands and t.game() is not None for t, _, k in seen)
    assert hub.tables() == []
    seed = str(deal_spec(3, 0).seed)
    assert all(seed not in t.title and "deal 1, half" in t.title for t, _, _ in seen)
    assert [sorted(x) for x in labels] == [[0, 2], [1, 3]]
    tokens = [lab.rsplit("-", 1) for x in labels for lab in x.values()]
    assert all(len(tok) == 16 and int(tok, 16) >= 0 for _, tok in tokens)
    assert len({tok for _, tok in tokens}) == 4


def test_views_jiefeng_and_results():
    from guandan.web.views import table_view
    g = Game.from_position([["HR"], ["S4", "S5"], ["S6", "S7"], ["S8", "S9"]], level="2", to_act=0)
    g.play("HR")
    for _ in range(3):
        assert not table_view(g, "abcd")["jiefeng"]
        g.play("PASS")
    v = table_view(g, "abcd", visible=[2])
    assert v["jiefeng"] and v["to_act"] == 2 and v["seats"][0]["out"] == 1
    assert [s["hand"] is None for s in v["seats"]] == [True, True, False, True]
    assert v["trick"] == [] and v["last_action"]["type"] == "pass"


def test_serve_tables_web_lists_every_table():
    from guandan.server import MultiTableServer
    from guandan.web.server import run_with_tables

    async def main():
        srv = MultiTableServer("127.0.0.1", 0, tables=2, bots={1: "greedy", 2: "greedy", 3: "greedy"})
        app = WebApp("127.0.0.1", 0)
        task = asyncio.ensure_future(run_with_tables(srv, app))
        while app.bound_port is None:
            await asyncio.sleep(0.05)
        try:
            async with connect(url(app)) as ws:
                w = await Page(ws).ask({"type": "hello"}, "welcome")
                assert [t["title"] for t in w["tables"]] == ["contest table 1", "contest table 2"]
                assert all(t["kind"] == "contest" and not t["open_hands"] for t in w["tables"])
        finally:
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
    run(main())


# -- a whole game's flow: the round's end, tribute and return, replay, serve --web --------

def _session_at(g, seat=0):
    p = PlaySession(["greedy"], seat, 0)
    p.game = g
    return p


def _bots_until_person(p):
    while p.bot_spec() is not None:
        at, m = p.bot_choice()
        assert p.bot_play(at, m)


def test_round_end_holds_until_next_round():
    """The round's end is kept (last trick, finishing order, cards left,
    levels before and after) and holds the game: the person may not act and
    the bots do not, until next_round; undo (practice) drops it."""
    from guandan.errors import IllegalMoveError
    g = Game.from_position([["HR"], ["S4", "S7"], ["S5"], ["S6", "S8"]], level="2", to_act=0)
    p = _session_at(g)
    p.practice = True
    p.play(["HR"])
    _bots_until_person(p)             # three passes, then the partner's S5 ends the round
    assert g.round_index == 1 and p.held and not p.my_turn and p.bot_spec() is None
    end = p.round_end
    assert end["round"] == 1 and end["order"][:2] == [0, 2] and end["levels_before"] == ["2", "2"]
    assert end["levels_after"] == list(g.team_levels) and end["levels_up"] == g.last_round.levels_up
    assert [x["seat"] for x in end["trick"]][-1] == 2 and end["trick"][-1]["cards"][0]["c"] == "S5"
    assert {s: [c["c"] for c in v] for s, v in end["rest"].items()} == {"1": ["S4", "S7"], "3": ["S6", "S8"]}
    v = p.view()
    assert v["held"] and v["round_end"] == end and not v["your_turn"] and v["exchange"] is None
    with pytest.raises(IllegalMoveError, match="Next round"):
        p.pass_turn()
    n = p.undo()
    assert n >= 1 and p.round_end is None and g.round_index == 0
    p.play(["HR"])
    _bots_until_person(p)
    assert p.held
    p.next_round()
    assert not p.held and p.round_end is None and p.view()["round_end"] is None
    with pytest.raises(Exception, match="no round result"):
        p.next_round()


def test_exchange_prompt_says_the_rule_and_the_allowed_cards():
    from guandan.game import return_choices, tribute_choices
    # seat 0 is last: it pays the banker (seat 1) its highest card, never a wild
    g = Game.from_deal(5, team_levels=("2", "4"), owner=1, last_order=[1, 2, 3, 0])
    assert g.phase == "tribute" and g.to_act == 0
    p = _session_at(g)
    ex = p.view()["exchange"]
    hand = g.hands[0].cards(g.level)
    assert ex["stage"] == "tribute" and ex["rule"] == "tribute" and ex["to"] == 1
    assert [c["c"] for c in ex["allowed"]] == list(dict.fromkeys(tribute_choices(hand, g.level)))
    # seat 0 is the banker: seat 2 (last) pays it, then it returns a card to seat 2
    g = Game.from_deal(6, team_levels=("5", "2"), owner=0, last_order=[0, 1, 3, 2])
    p = _session_at(g)
    assert p.view()["exchange"] is None                    # seat 2 pays first
    _bots_until_person(p)
    assert g.phase == "back" and g.to_act == 0
    ex = p.view()["exchange"]
    hand = g.hands[0].cards(g.level)
    assert ex["stage"] == "back" and ex["rule"] == "back" and ex["to"] == 2
    assert ex["received"]["c"] == g.tribute.paid[0]
    assert sorted(c["c"] for c in ex["allowed"]) == sorted(set(return_choices(hand, g.level)))
    p.play([ex["allowed"][0]["c"]])
    assert p.view()["exchange"] is None and g.tribute.returned[0] == ex["allowed"][0]["c"]


def test_next_round_message_and_the_state_round_at_the_end():
    async def main():
        app = await started()
        try:
            async with connect(url(app)) as ws:
                p = Page(ws)
                e = await p.ask({"type": "next_round"}, "error")
                assert "no game" in e["message"]
                await my_turn(p, {"type": "new_game", "bots": "greedy", "seed": 3})
                r = await p.ask({"type": "next_round"}, "refused")
                assert "no round result" in r["message"]
                c = app.clients[0]
                c.play.game.play_out(("greedy",) * 4, until="round")   # (the bots are waiting for us)
                c.play.round_end = {"round": 1, "over": False}
                m = await p.ask({"type": "next_round"}, "play")
                assert m["state"]["round_end"] is None and not m["state"]["held"]
        finally:
            await app.stop()
    run(main())
    g = Game(seed=8, policy_seed=8)
    g.play_out(("greedy",) * 4)
    from guandan.web.views import table_view
    v = table_view(g, "abcd")
    assert g.round_index == 6 and v["round"] == 6 and v["round_start"] and v["over"]
    r = Replay(g.record())
    assert r.pos == 0 and r.view()["step"] == 0 and len(r.rounds) == 6
    assert r.result["rounds"] == 6
    r.goto(len(r))
    assert r.view()["round"] == 6


def test_round_start_flag():
    from guandan.web.views import table_view
    g = Game(seed=4, policy_seed=4)
    assert not table_view(g, "abcd")["round_start"]            # no round before
    g.play_out(("greedy",) * 4, until="round")
    assert table_view(g, "abcd")["round_start"]
    while g.phase != "play" or not len(g.played_cards()):
        g.play(g.choose("greedy"))
    assert not table_view(g, "abcd")["round_start"]


def test_favicon_is_served_and_nothing_else():
    async def main():
        app = await started()
        try:
            loop = asyncio.get_running_loop()

            def get(path):
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{app.bound_port}{path}", timeout=10) as r:
                        return r.status, r.headers.get("Content-Type"), r.read()
                except urllib.error.HTTPError as e:
                    return e.code, None, b""
            st, ctype, body = await loop.run_in_executor(None, get, "/favicon.svg")
            assert st == 200 and ctype == "image/svg+xml" and body.startswith(b"<svg")
            for bad in ("/favicon.ico", "/static/favicon.svg", "/favicon.svg/..", "/page.py"):
                assert (await loop.run_in_executor(None, get, bad))[0] == 404
        finally:
            await app.stop()
    run(main())


def test_serve_web_waits_then_stays_up_with_the_records(tmp_path):
    """``serve --web`` (run_with_tables with linger): before the program
    connects the table says what it waits for; once the session is over the
    web table stays up, the table still watchable (its status ``over``) and
    its game offered for replay without its seed - nor its seed in the name
    of its record file (``--record``: the records folder is offered too)."""
    from guandan.server import TableServer
    from guandan.web.server import run_with_tables
    seed = 1327729342824792898

    async def main():
        srv = TableServer("127.0.0.1", 0, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                          games=1, until="round", timeout=5, seed=seed, record_dir=str(tmp_path))
        app = WebApp("127.0.0.1", 0, records=str(tmp_path))
        said = []
        task = asyncio.ensure_future(run_with_tables(srv, app, linger=True, announce=said.append))
        while app.bound_port is None or srv.bound_port is None:
            await asyncio.sleep(0.05)
        try:
            async with connect(url(app)) as ws:
                p = Page(ws)
                w = await p.ask({"type": "hello"}, "welcome")
                tid = w["tables"][0]["id"]
                t = await p.ask({"type": "watch", "table": tid}, "table")
                assert t["state"] is None
                assert t["contest"] == {"status": "waiting", "seats": [0], "host": "127.0.0.1",
                                        "port": srv.bound_port, "games": 1, "played": 0}
                async with connect(f"ws://127.0.0.1:{srv.bound_port}/game/me") as bot:
                    async for raw in bot:
                        if json.loads(raw).get("type") == "act":
                            await bot.send(json.dumps({"actIndex": 0}))
                for _ in range(200):
                    if any("stays up" in line for line in said):
                        break
                    await asyncio.sleep(0.05)
                assert said[0].startswith("web table on http://")      # the start-up line, once listening
                assert any("stays up" in line for line in said) and not task.done()
                t = await p.wait("table", until=lambda m: m.get("contest", {}).get("status") == "over")
                assert t["state"] is not None and t["state"]["seed"] is None
                lists = await p.ask({"type": "list"}, "lists")
                assert f"{tid}-game1" in lists["records"]
                names = next(t["names"] for t in lists["tables"] if t["id"] == tid)
                assert names[0].endswith("(left)") and "(waiting)" not in names   # the program, gone
                r = await p.ask({"type": "replay_open", "name": f"{tid}-game1"}, "replay")
                assert r["state"]["step"] == 0 and r["state"]["steps"] > 0 and r["state"]["seed"] is None
                for _ in range(100):                # the folder's listing is renewed every 2 s
                    files = [n for n in lists["records"] if n.endswith(".json")]
                    if files:
                        break
                    await asyncio.sleep(0.05)
                    lists = await p.ask({"type": "list"}, "lists")
                assert files == [f.name for f in tmp_path.glob("*.json")] and len(files) == 1
                game_seed = json.loads((tmp_path / files[0]).read_text())["seed"]
                assert not any(str(game_seed) in n or str(seed) in n for n in lists["records"])
                r = await p.ask({"type": "replay_open", "name": files[0]}, "replay")
                assert r["state"]["seed"] is None
        finally:
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
    run(main())


def test_a_whole_game_through_the_session():
    """Every round's end holds once and is let go by next_round; the game's
    end is kept (``over``, the winner) with nothing left to hold."""
    p = PlaySession(["greedy"], 1, 8)
    g = p.game
    ends = 0
    while not g.is_over:
        if p.held:
            ends += 1
            assert p.round_end["round"] == ends and p.bot_spec() is None and not p.my_turn
            p.next_round()
        elif p.my_turn:
            m = g.copy().choose("greedy")
            if m.is_pass:
                p.pass_turn()
            else:
                p.play(list(m.cards), [str(x) for x in p.matches(list(m.cards))].index(str(m)))
        else:
            at, m = p.bot_choice()
            assert p.bot_play(at, m)
    v = p.view()
    assert v["round_end"]["over"] and v["round_end"]["winner"] == g.winner and not v["held"]
    assert v["round_end"]["round"] == g.round_index == ends + 1 == v["round"]
