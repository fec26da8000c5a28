"""The command line: moves, simulate, play (scripted), replay."""

import io
import json
import subprocess
import sys

from guandan import Game
from guandan.play import play_terminal


def run(*args):
    return subprocess.run([sys.executable, "-m", "guandan", *args], capture_output=True, text=True,
                          timeout=120)


def test_moves_text_and_json():
    r = run("moves", "--level", "5", "SK", "DK", "H5", "S2", "D2")
    assert r.returncode == 0
    assert "ThreeWithTwo K SK DK H5 S2 D2" in r.stdout
    r = run("moves", "--level", "2", "--last", "Pair 5 S5 D5", "--json", "S6", "D6", "H2", "SB")
    assert json.loads(r.stdout)[0] == ["PASS", "PASS", "PASS"]
    assert ["Pair", "6", ["S6", "D6"]] in json.loads(r.stdout)


def test_moves_errors_are_clean():
    r = run("moves", "--level", "1", "S2")
    assert r.returncode == 2 and "level" in r.stderr and "Traceback" not in r.stderr
    r = run("moves", "S1")
    assert r.returncode == 2 and "unknown card 'S1'" in r.stderr
    r = run("moves", "--last", "Pair 6 S5 D5", "S6", "S6")
    assert r.returncode == 2 and "do not form" in r.stderr


def test_simulate_cli(tmp_path):
    out = tmp_path / "r.npz"
    r = run("simulate", "--deals", "3000", "--workers", "2", "--policy", "greedy,random",
            "--seed", "1", "--out", str(out), "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout.strip().splitlines()[-1])
    assert s["n"] == 3000 and s["team_win_rate"][0] > 0.8
    assert out.exists()


def test_play_scripted_and_replay(tmp_path):
    script = iter(["h", "m single", "nonsense", "S1", "99", "q"])
    buf = io.StringIO()
    g = play_terminal(0, seed=5, inp=lambda prompt: next(script), out=buf)
    text = buf.getvalue()
    assert "your hand (" in text and "not allowed" in text
    # a full game by bots, then printed from its record
    g = Game(seed=8)
    g.play_out(["greedy"] * 4)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(g.record()))
    r = run("replay", str(path))
    assert r.returncode == 0, r.stderr
    assert "winner: team" in r.stdout and "== round 1" in r.stdout


def test_play_until_a_round_ends_by_index_input():
    # always answer with the first listed move (or pass when nothing is listed)
    def answer(prompt, state={"n": 0}):
        state["n"] += 1
        if state["n"] > 400:
            return "q"
        return "0"

    buf = io.StringIO()
    g = play_terminal(1, seed=11, rounds=1, inp=answer, out=buf)
    assert g.round_index >= 1 or "not allowed" in buf.getvalue()
