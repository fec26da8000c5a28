"""External contest-protocol bots through the arena (and the multi-table server).

The bot programs below are small contest-protocol clients written from
PROTOCOL.md with ``websockets`` only: they share no code with the project.
"""

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("websockets")

from guandan import Game  # noqa: E402
from guandan.arena import Engine, Limits, arena  # noqa: E402

# A contest client. argv: URL MODE [N] [SECONDS]
#   first      answer index 0 (the pass when following, else the first move)
#   last       answer the last index
#   crash N    exit(3) at its N-th act message
#   hang N     stop answering at its N-th act message (stays connected)
#   slow N S   at its N-th act, answer only after S seconds (then normally)
#   badindex N answer an out-of-range index at its N-th act
CLIENT = textwrap.dedent('''
    import json, sys, time
    from websockets.sync.client import connect

    url, mode = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    secs = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    acts = 0
    with connect(url, open_timeout=20, close_timeout=2) as ws:
        while True:
            try:
                raw = ws.recv()
            except Exception:
                break
            msg = json.loads(raw)
            if msg.get("type") != "act":
                if msg.get("stage") == "gameResult":
                    break
                continue
            acts += 1
            top = msg["indexRange"]
            idx = top if mode == "last" else 0
            if acts == n:
                if mode == "crash":
                    sys.exit(3)
                if mode == "hang":
                    time.sleep(3600)
                if mode == "slow":
                    time.sleep(secs)
                if mode == "badindex":
                    idx = top + 7
            ws.send(json.dumps({"actIndex": idx}))
''')


@pytest.fixture
def client(tmp_path):
    p = tmp_path / "contest_client.py"
    p.write_text(CLIENT)
    return str(p)


def engine(name, client, *args):
    return Engine(name, [sys.executable, client, "{url}", *map(str, args)])


def test_external_bots_play_and_records(client, tmp_path):
    rec = tmp_path / "recs"
    res = arena([engine("first", client, "first"), "greedy"], deals=2, seed=3,
                records=str(rec), concurrency=2, limits=Limits(move_time=5, connect_time=20))
    r = res[0]
    assert len(r.pairs) == 2 and not r.forfeits
    for p in r.pairs:
        for h in p["halves"]:
            assert h["forfeit"] is None and sorted(h["order"]) == [0, 1, 2, 3]
    files = sorted((rec / "first-vs-greedy").iterdir())
    assert len(files) == 4
    for f in files:
        d = json.loads(f.read_text())
        g = Game.replay(d)                              # a valid, replayable record
        assert g.round_index == 1
        half = d["arena"]["half"]
        assert d["arena"]["seats"][half] == "first"     # the engine in seats (half, half + 2)
        assert d["round_start"] is not None
    # both halves of a deal: the same cards
    d0 = json.loads(files[0].read_text())
    d1 = json.loads(files[1].read_text())
    assert d0["deals"][0] == d1["deals"][0]
    # the engine's results are those of the same policy in-process: index 0 always
    # is the "pass when following, else the first move" rule
    assert r.stats()["score"] < 0.5


def test_external_vs_external(client):
    res = arena([engine("first", client, "first"), engine("last", client, "last")], deals=1,
                seed=5, concurrency=2, limits=Limits(move_time=5, connect_time=20))
    assert len(res[0].pairs) == 1 and not res[0].forfeits


def test_programs_never_know_the_deals(client, monkeypatch):
    """Without a seed, an arena with external programs deals from a random
    seed (recorded in its settings; a given seed is kept): from the
    default schedule and its own hand a program could work out the others'.
    And a deal's two halves are played one after the other, even with
    tables to spare: at once, one participant's programs would hold all
    four hands of the deal between them."""
    from guandan.arena import external
    spans = []
    play = external.ExternalTables._play

    async def timed(self, spec, half, players):
        t0 = time.monotonic()
        try:
            return await play(self, spec, half, players)
        finally:
            spans.append((spec.index, half, t0, time.monotonic()))
    monkeypatch.setattr(external.ExternalTables, "_play", timed)
    lim = Limits(move_time=5, connect_time=20)
    r1 = arena([engine("first", client, "first"), "greedy"], deals=2, concurrency=4, limits=lim)
    r2 = arena([engine("first", client, "first"), "greedy"], deals=1, concurrency=4, limits=lim)
    assert r1.settings["seed"] != r2.settings["seed"] and r1.settings["seed"] != 0
    assert arena(["greedy", "random"], deals=1).settings["seed"] == 0
    assert len(spans) == 6
    for d in range(2):
        (h0, a0, b0), (h1, a1, b1) = sorted((h, t0, t1) for i, h, t0, t1 in spans[:4] if i == d)
        assert (h0, h1) == (0, 1) and b0 <= a1        # half 1 starts once half 0 has ended
    firsts = sorted(t0 for i, h, t0, t1 in spans[:4] if h == 0)
    assert firsts[1] < max(t1 for i, h, t0, t1 in spans[:4] if i == 0)   # the deals ran at once


@pytest.mark.slow
def test_crashing_and_hanging_external_bots_are_forfeited(client):
    t = time.monotonic()
    res = arena([engine("crasher", client, "crash", 3), engine("hanger", client, "hang", 2),
                 "random"], deals=1, seed=2, concurrency=2,
                limits=Limits(move_time=1.0, connect_time=20))
    assert time.monotonic() - t < 60                    # never hangs
    by = {(p.a.name, p.b.name): p for p in res.pairings}
    fo = by[("crasher", "random")].forfeits
    assert len(fo) == 2 and all(f["name"] == "crasher" for f in fo)
    assert all("disconnected" in f["reason"] or "exit" in f["reason"] for f in fo)
    fo = by[("hanger", "random")].forfeits
    assert len(fo) == 2 and all(f["name"] == "hanger" and "timeout" in f["reason"] for f in fo)
    assert by[("hanger", "random")].stats()["score"] == 0.0
    # crasher vs hanger: whoever fails first loses each half; the match went on
    assert len(by[("crasher", "hanger")].pairs) == 1
    assert "forfeits" in res.format()


@pytest.mark.slow
def test_invalid_answer_and_no_connection_are_forfeited(client, tmp_path):
    nobody = Engine("nobody", [sys.executable, "-c", "import time; time.sleep(60)"])
    res = arena([engine("bad", client, "badindex", 2), nobody, "greedy"], deals=1, seed=4,
                concurrency=2, limits=Limits(move_time=2, connect_time=3))
    by = {(p.a.name, p.b.name): p for p in res.pairings}
    fo = by[("bad", "greedy")].forfeits
    assert len(fo) == 2 and all("invalid answer" in f["reason"] for f in fo)
    fo = by[("nobody", "greedy")].forfeits
    assert len(fo) == 2 and all("connect" in f["reason"] for f in fo)


def test_external_against_python_policy_seats(client):
    # the opponent is a Python callable (a policy with options, a search
    # of one rollout per decision): the table
    # plays its seats in a thread under the same limits
    res = arena([engine("last", client, "last"), "search:rollouts=1,k=1"], deals=1, seed=6,
                concurrency=2, limits=Limits(move_time=5, connect_time=20))
    r = res[0]
    assert len(r.pairs) == 1 and not r.forfeits
    assert all(sorted(h["order"]) == [0, 1, 2, 3] for h in r.pairs[0]["halves"])


# -- no process outlives the arena ------------------------------------------------

linux_proc = pytest.mark.skipif(not os.path.isdir("/proc/self") or os.name != "posix",
                                reason="counts processes through /proc")


def _with_marker(marker):
    """Pids of the live processes whose command line holds ``marker``."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if marker.encode() in cmd:           # a zombie's command line is empty
            pids.append(int(d))
    return pids


def _left_over(marker, grace=3.0):
    end = time.monotonic() + grace
    while True:
        pids = _with_marker(marker)
        if not pids or time.monotonic() > end:
            return pids
        time.sleep(0.1)


def _kill_all(marker, proc=None):
    import signal
    if proc is not None and proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)          # the arena and its pool workers
        except OSError:
            pass
        proc.wait(10)
    for pid in _with_marker(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


@pytest.fixture
def wrapper(tmp_path):
    """An engine command whose program starts a long helper first, as a
    shell wrapper does (``sleep ... & exec bot``): every process it makes
    carries a marker in its command line."""
    import uuid
    marker = f"arena-leftover-{uuid.uuid4().hex[:12]}"
    client = tmp_path / f"client_{marker}.py"
    client.write_text(CLIENT)
    wrap = tmp_path / f"wrap_{marker}.sh"
    wrap.write_text(f"#!/bin/sh\n"
                    f"'{sys.executable}' -c 'import time; time.sleep(120)' {marker} &\n"
                    f"exec '{sys.executable}' '{client}' \"$@\"\n")
    try:
        yield marker, f'name=w cmd="sh {wrap} {{url}} first"'
    finally:
        _kill_all(marker)


def _arena_cli(tmp_path, marker, engine_spec, deals):
    from test_arena import SRC
    # a temporary directory of its own: what the arena leaves there is seen
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "TMPDIR": str(tmp_path / "tmp")}
    # three participants: two pairings on the table server (the wrapped
    # program), one in the process pool (a policy with options; the
    # command line, which forked workers share, carries the marker in the
    # engine's command)
    argv = [sys.executable, "-m", "guandan", "arena", "--engine", engine_spec, "greedy",
            "search:rollouts=1,k=1", "--deals", str(deals), "--concurrency", "2", "--quiet",
            "--move-time", "5", "--connect-time", "20", "--out", str(tmp_path / "out.json"),
            "--records", str(tmp_path / "recs")]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


@linux_proc
def test_program_helpers_end_with_its_group(wrapper, tmp_path):
    # the program exits first (and is waited for); its helper still dies with the group
    from guandan.arena.external import _kill, _spawn, _wait_exit
    marker, _ = wrapper
    up = tmp_path / "helper-up"
    helper = "import sys, time; open(sys.argv[1], 'w').close(); time.sleep(120)"
    eng = Engine("x", ["sh", "-c", f"'{sys.executable}' -c \"{helper}\" '{up}' {marker} & "
                       f"while [ ! -e '{up}' ]; do sleep 0.05; done; exit 0"])
    log = tmp_path / "x.log"
    p = _spawn(eng, "ws://127.0.0.1:9/game/x", 0, str(log))
    try:
        assert _wait_exit(p, 30) == 0, log.read_text()
        assert _with_marker(marker), log.read_text()        # the helper runs on
    finally:
        _kill(p)
    assert _left_over(marker) == []


@linux_proc
def test_no_process_outlives_a_normal_run(wrapper, tmp_path):
    marker, spec = wrapper
    proc = _arena_cli(tmp_path, marker, spec, deals=1)
    try:
        out, err = proc.communicate(timeout=90)
        assert proc.returncode == 0, err
        assert _left_over(marker) == []        # the wrapper's helpers included
        assert list((tmp_path / "tmp").glob("guandan-arena-*")) == []     # the programs' logs
        assert "Score of w vs greedy" in out
        assert json.loads((tmp_path / "out.json").read_text())["interrupted"] is None
    finally:
        _kill_all(marker, proc)


@linux_proc
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_a_signal_keeps_the_finished_pairs_and_ends_every_process(wrapper, tmp_path, signame):
    import signal
    marker, spec = wrapper
    deals = 40
    proc = _arena_cli(tmp_path, marker, spec, deals=deals)
    try:
        recs = tmp_path / "recs"
        deadline = time.monotonic() + 60
        # a finished pair of the table server's (its records) and programs running
        while time.monotonic() < deadline and proc.poll() is None:
            done = [f for d in recs.glob("w-vs-*") for f in d.iterdir()] if recs.is_dir() else []
            if done and len(_with_marker(marker)) > 3:
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()[1]
        sig = getattr(signal, signame)
        proc.send_signal(sig)                       # the arena alone, as kill(1) does
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 128 + sig, err
        assert "Traceback" not in err, err
        d = json.loads((tmp_path / "out.json").read_text())
        stop = d["interrupted"]
        finished = sum(len(p["pairs"]) for p in d["pairings"])
        assert stop == {"signal": signame, "pairs": finished, "of": 3 * deals}
        assert 1 <= finished < 3 * deals
        assert "Score of w vs greedy" in out
        assert f"interrupted by {signame} after {finished} of {3 * deals} pairs" in out
        assert "result saved to" in out
        assert _left_over(marker) == []
        assert list((tmp_path / "tmp").glob("guandan-arena-*")) == []
    finally:
        _kill_all(marker, proc)
