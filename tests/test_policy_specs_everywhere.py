"""Every place that takes a policy takes every spec the README lists, options
included (one test per place: simulate, serve, web, play, arena)."""

import signal
import subprocess
import sys


from guandan.registry import split_specs
from helpers import default_sigint
from guandan.server import parse_bots

SPEC = "search:rollouts=4,solve=0"


def test_split_specs_keeps_a_specs_options_with_it():
    assert split_specs(f"{SPEC},greedy") == [SPEC, "greedy"]
    assert split_specs("greedy, expert,random") == ["greedy", "expert", "random"]
    assert split_specs(f"expert,{SPEC},expert,{SPEC}") == ["expert", SPEC, "expert", SPEC]
    assert split_specs("net:path=a.npz,greedy") == ["net:path=a.npz", "greedy"]


def _guandan(*args, **kw):
    return subprocess.run([sys.executable, "-m", "guandan", *args], capture_output=True, text=True,
                          timeout=120, **kw)


def test_simulate():
    r = _guandan("simulate", "--deals", "2", "--policy", f"{SPEC},greedy", "--seed", "1")
    assert r.returncode == 0, r.stderr
    assert "2 deals" in r.stdout and SPEC in r.stdout


def test_serve():
    assert parse_bots(f"1={SPEC},3=greedy") == {1: SPEC, 3: "greedy"}


def test_play():
    r = _guandan("play", "--bots", SPEC, "--seed", "1", "--rounds", "1", input="")
    assert "error" not in r.stderr, r.stderr
    assert f"against {SPEC} bots" in r.stdout


def test_web():
    p = subprocess.Popen([sys.executable, "-m", "guandan", "web", "--port", "0", "--bots", f"{SPEC},greedy",
                          "--watch", f"expert,{SPEC},expert,greedy"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    try:
        line = p.stdout.readline()
        assert "http://" in line, p.stderr.read() if p.poll() is not None else line
    finally:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    assert p.returncode == 130             # stopped by the SIGINT (Ctrl-C), not killed
    assert "error" not in p.stderr.read()


def test_arena():
    from guandan.arena import arena
    res = arena([SPEC, "greedy"], deals=1, seed=1, concurrency=1)
    assert res.pairings[0].stats()["pairs"] == 1
    r = _guandan("arena", SPEC, "greedy", "--deals", "1", "--quiet")
    assert r.returncode == 0, r.stderr
