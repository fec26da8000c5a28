"""The commands as a user types them: ``--engine`` in the natural shell form,
output paths checked before the work starts, Ctrl-C keeping what was done
(one line, no traceback), start-up and result lines on stdout, help texts,
the file mode of written records."""

import glob
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time

import pytest

import guandan
from guandan.cli import build_parser
from helpers import default_sigint

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.dirname(os.path.dirname(os.path.abspath(guandan.__file__)))


def _env(extra=None):
    e = dict(os.environ)
    e["PYTHONPATH"] = SRC + os.pathsep + e.get("PYTHONPATH", "")
    e.pop("COLUMNS", None)
    e.update(extra or {})
    return e


def cli(*args, cwd=None, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "guandan", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd or REPO, env=_env(env), stdin=subprocess.DEVNULL)


class Proc:
    """``python -m guandan ARGS`` in a subprocess, its stdout and stderr
    collected as they come (a prompt without a newline included)."""

    def __init__(self, *args, cwd=None, stdin=subprocess.DEVNULL, env=None):
        self.proc = subprocess.Popen([sys.executable, "-u", "-m", "guandan", *args], cwd=cwd or REPO,
                                     env=_env(env), stdin=stdin, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, preexec_fn=default_sigint)
        self.out, self.err = [], []
        self._threads = [threading.Thread(target=self._read, args=(f, buf), daemon=True)
                         for f, buf in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))]
        for t in self._threads:
            t.start()

    @staticmethod
    def _read(f, buf):
        while True:
            b = os.read(f.fileno(), 65536)
            if not b:
                return
            buf.append(b.decode("utf-8", "replace"))

    @property
    def stdout(self):
        return "".join(self.out)

    @property
    def stderr(self):
        return "".join(self.err)

    def wait_for(self, text, timeout=60, where="stdout"):
        t0 = time.monotonic()
        while text not in getattr(self, where):
            if self.proc.poll() is not None or time.monotonic() - t0 > timeout:
                self.kill()
                raise AssertionError(f"no {text!r}: {self.stdout[-2000:]} {self.stderr[-2000:]}")
            time.sleep(0.05)

    def interrupt(self, timeout=60):
        """Ctrl-C (SIGINT); the exit code once it ended."""
        self.proc.send_signal(signal.SIGINT)
        try:
            rc = self.proc.wait(timeout)
        finally:
            self.kill()
        for t in self._threads:
            t.join(5)
        return rc

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()


def interrupted_line(p, rc, *needles):
    """The run ended by Ctrl-C with exit code 130 and one line on stderr
    saying what was kept (no traceback)."""
    err = p.stderr
    assert rc == 130, (rc, p.stdout[-2000:], err[-2000:])
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    lines = [ln for ln in err.replace("\r", "\n").splitlines() if ln.startswith("interrupted:")]
    assert len(lines) == 1, err
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_line_error(r, code=2, *needles):
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    err = r.stderr.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    for n in needles:
        assert n in err, err
    return err


# -- --engine: the natural shell form and the quoted one ---------------------------

@pytest.mark.parametrize("words", [
    ["--engine", "name=mybot", "cmd=python /path/to/client.py {url}"],          # separate words
    ["--engine", 'name=mybot cmd="python /path/to/client.py {url}"'],           # one quoted word
    ["--engine=name=mybot", "cmd=python /path/to/client.py {url}"],
])
def test_engine_takes_the_key_value_words_that_follow(words):
    a = build_parser().parse_args(["arena", *words, "greedy", "search:ms=200", "--deals", "3"])
    [e] = a.engine
    assert (e.name, e.cmd, e.dir) == ("mybot", "python /path/to/client.py {url}", None)
    assert a.participants == ["greedy", "search:ms=200"] and a.deals == 3


def test_engine_words_end_at_an_option_or_a_participant():
    a = build_parser().parse_args(["arena", "--engine", "cmd=./a", "dir=/tmp", "--engine", "name=b",
                                   "cmd=./b x", "mybots:MyBot", "random"])
    assert [(e.name, e.cmd, e.dir) for e in a.engine] == [("./a", "./a", "/tmp"), ("b", "./b x", None)]
    assert a.participants == ["mybots:MyBot", "random"]


def test_engine_without_cmd_is_one_line():
    r = cli("arena", "--engine", "name=mybot", "greedy")
    one_line_error(r, 2, "--engine needs cmd=COMMAND")
    r = cli("arena", "--engine", "name=mybot", "bogus=1", "greedy")
    one_line_error(r, 2, "--engine takes name=NAME cmd=COMMAND")


def test_engine_natural_form_plays(tmp_path):
    pytest.importorskip("websockets")
    from test_arena_external import CLIENT
    client = tmp_path / "client.py"
    client.write_text(CLIENT)
    out = tmp_path / "out.json"
    r = cli("arena", "--engine", "name=mybot", f"cmd={sys.executable} {client} {{url}} first",
            "greedy", "--deals", "1", "--quiet", "--concurrency", "1", "--connect-time", "20",
            "--out", str(out), timeout=180)
    assert r.returncode == 0, r.stderr
    assert "mybot" in r.stdout and out.exists()


# -- output paths: checked before the work starts ---------------------------------

def _refused_at_once(*args, needles=(), env=None):
    t0 = time.monotonic()
    r = cli(*args, env=env, timeout=60)
    took = time.monotonic() - t0
    err = one_line_error(r, 2, *needles)
    assert r.stdout == "", r.stdout                 # nothing played, nothing printed
    assert took < 5, took                           # the check, not the match (about 0.3 s here)
    return err


@pytest.mark.parametrize("args", [
    ["play", "--record", "{missing}/g.json"],
    ["arena", "greedy", "random", "--deals", "100000000", "--out", "{missing}/r.json"],
    ["arena", "greedy", "random", "--deals", "100000000", "--plot", "{missing}/r.png"],
    ["simulate", "--deals", "100000000", "--out", "{missing}/r.npz"],
])
def test_a_missing_folder_is_refused_before_the_work(tmp_path, args):
    missing = str(tmp_path / "no" / "such")
    err = _refused_at_once(*[a.replace("{missing}", missing) for a in args], needles=("does not exist",))
    assert missing in err


@pytest.mark.parametrize("args", [
    ["play", "--record", "{file}/g.json"],
    ["arena", "greedy", "random", "--deals", "100000000", "--out", "{file}/r.json"],
    ["arena", "greedy", "random", "--deals", "100000000", "--records", "{file}/recs"],
    ["serve", "--port", "0", "--record", "{file}/recs"],
])
def test_a_folder_that_is_a_file_is_refused_before_the_work(tmp_path, args):
    f = tmp_path / "a-file"
    f.write_text("x")
    _refused_at_once(*[a.replace("{file}", str(f)) for a in args], needles=("is not a folder",))


def test_an_output_file_that_is_a_folder_is_refused(tmp_path):
    _refused_at_once("play", "--record", str(tmp_path), needles=("it is a folder",))
    _refused_at_once("arena", "greedy", "random", "--out", str(tmp_path), needles=("it is a folder",))


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_an_unwritable_folder_is_refused_before_the_work(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        _refused_at_once("play", "--record", str(ro / "g.json"), needles=("not writable",))
        _refused_at_once("arena", "greedy", "random", "--deals", "100000000", "--records",
                         str(ro / "recs"), needles=("not writable",))
    finally:
        ro.chmod(0o700)


def test_plot_without_matplotlib_is_refused_before_the_match(tmp_path):
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text("import sys\nsys.modules['matplotlib'] = None\n")
    err = _refused_at_once("arena", "greedy", "random", "--deals", "100000000", "--plot",
                           str(tmp_path / "p.png"), needles=("--plot needs matplotlib",),
                           env={"PYTHONPATH": str(hide) + os.pathsep + SRC})
    assert "pip install 'guandan" not in err         # the index's 'guandan' is another project


# -- Ctrl-C: one line of what was kept ------------------------------------------------

def test_ctrl_c_in_play_saves_the_record(tmp_path):
    rec = tmp_path / "game.json"
    with Proc("play", "--seed", "3", "--record", str(rec), "--color", "never",
              stdin=subprocess.PIPE) as p:
        p.wait_for("> ")
        line = interrupted_line(p, p.interrupt(), "record saved to", str(rec))
    assert "actions played" in line
    from guandan import Game
    g = Game.replay(json.loads(rec.read_text()))     # the game so far, replayable
    assert g.seed == 3 and not g.is_over


def test_ctrl_c_in_play_without_record_says_so():
    with Proc("play", "--seed", "3", "--color", "never", stdin=subprocess.PIPE) as p:
        p.wait_for("> ")
        interrupted_line(p, p.interrupt(), "no record kept")


def test_ctrl_c_in_simulate_keeps_the_finished_chunks(tmp_path):
    out = tmp_path / "rows.npz"
    with Proc("simulate", "--deals", "1000000000", "--workers", "1", "--progress",
              "--out", str(out)) as p:
        p.wait_for("deals", where="stderr")            # the progress bar: simulating
        time.sleep(1.0)
        line = interrupted_line(p, p.interrupt(), "of 1,000,000,000 deals simulated", str(out))
    import numpy as np
    n = int(line.split()[1].replace(",", ""))
    with np.load(str(out)) as rows:
        assert n > 0 and len(rows["order"]) == n
    assert "banker (wins the deal)" in p.stdout


def test_ctrl_c_in_arena_keeps_the_result(tmp_path):
    out = tmp_path / "r.json"
    with Proc("arena", "greedy", "random", "--deals", "1000000", "--progress", "--concurrency", "1",
              "--out", str(out)) as p:
        p.wait_for("greedy vs random", where="stderr")
        time.sleep(1.0)
        interrupted_line(p, p.interrupt(), "duplicate deal pairs played", f"result in {out}")
    assert json.loads(out.read_text())["interrupted"]["signal"] == "SIGINT"


def test_ctrl_c_in_serve_and_bot(tmp_path):
    pytest.importorskip("websockets")
    port = free_port()
    recs = tmp_path / "recs"
    with Proc("serve", "--port", str(port), "--bots", "1=greedy,2=greedy,3=greedy", "--games", "10000",
              "--seed", "1", "--record", str(recs)) as srv:
        srv.wait_for(f"serving on ws://127.0.0.1:{port}/game/")
        with Proc("bot", "guandan.bots:Bot", "--url", f"ws://127.0.0.1:{port}/game/me") as bot:
            bot.wait_for("game 1 of 10000 over after")       # the result of each game, on stdout
            interrupted_line(bot, bot.interrupt(), "played to the end")
        srv.wait_for("game 1 of 10000 over after")
        line = interrupted_line(srv, srv.interrupt(), "of 10000 games played", f"records in {recs}")
    assert int(line.split()[1]) == len(list(recs.iterdir())) >= 1


def test_ctrl_c_in_serve_before_a_game():
    with Proc("serve", "--port", str(free_port())) as p:
        p.wait_for("serving on ws://")
        interrupted_line(p, p.interrupt(), "0 of 1 games played", "nothing to keep")


def test_ctrl_c_in_web():
    pytest.importorskip("websockets")
    with Proc("web", "--port", str(free_port())) as p:
        p.wait_for("web table: http://")
        interrupted_line(p, p.interrupt(), "web table stopped")


# -- start-up and result lines -----------------------------------------------------

def test_serve_and_bot_print_start_up_and_each_result_on_stdout(tmp_path):
    pytest.importorskip("websockets")
    port = free_port()
    with Proc("serve", "--port", str(port), "--bots", "1=greedy,2=greedy,3=greedy", "--games", "2",
              "--seed", "1") as srv:
        srv.wait_for("serving on ws://127.0.0.1:")
        assert "waiting for 1 client, 2 games" in srv.stdout
        r = cli("bot", "guandan.bots:Bot", "--url", f"ws://127.0.0.1:{port}/game/me")
        assert r.returncode == 0, r.stderr
        srv.proc.wait(60)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("game ")]
    assert len(lines) == 2 and all("rounds: " in ln and "levels at its last round" in ln
                                   for ln in lines), r.stdout
    results = [ln for ln in srv.stdout.splitlines() if ln.startswith("game ")]
    assert len(results) == 2, srv.stdout
    assert all("wins, levels " in ln and " rounds: team " in ln for ln in results), results
    assert "WARNING" not in srv.stderr and "WARNING" not in r.stderr, srv.stderr + r.stderr


def test_web_prints_its_url_once_it_listens():
    pytest.importorskip("websockets")
    port = free_port()
    with Proc("web", "--port", str(port)) as p:
        p.wait_for("web table: http://")
        with socket.create_connection(("127.0.0.1", port), timeout=5):   # no retry: it listens
            pass
        assert "WARNING" not in p.stderr, p.stderr


# -- help texts -------------------------------------------------------------------------

def _parsers():
    import argparse
    todo = [("guandan", build_parser())]
    while todo:
        name, p = todo.pop()
        yield name, p
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                todo += [(f"guandan {n}", sp) for n, sp in a.choices.items()]


def test_every_option_has_help():
    import argparse
    missing = [(name, a.option_strings or a.dest) for name, p in _parsers() for a in p._actions
               if not a.help or a.help == argparse.SUPPRESS or not str(a.help).strip()]
    assert missing == []


def test_help_lists_every_policy_and_every_doc():
    from guandan.policies import policy_names, policy_usages
    text = build_parser().format_help()
    flat = " ".join(text.split())
    for u in policy_usages():
        assert u in flat, u
    assert {"random", "greedy", "expert", "search", "net"} <= set(policy_names())
    docs = {"README.md"} | {os.path.relpath(f, REPO).replace(os.sep, "/")
                            for f in glob.glob(os.path.join(REPO, "docs", "*.md"))}
    from guandan.cli import DOCS
    assert set(DOCS) == docs                         # a new doc goes into cli.DOCS
    for d in docs:
        assert d in flat, d


@pytest.mark.parametrize("command", ["simulate", "play", "serve", "web", "arena"])
def test_each_command_taking_a_policy_lists_them(command):
    from guandan.policies import policy_usages
    [p] = [p for name, p in _parsers() if name == f"guandan {command}"]
    flat = " ".join(p.format_help().split())
    want = policy_usages(native_only=True) if command == "simulate" else policy_usages()
    for u in want:
        assert u in flat, (command, u)


def test_a_registered_policy_shows_in_the_help():
    from guandan.policies import register, unregister
    register("cmdtestbot", lambda seed=None: None, usage="cmdtestbot")
    try:
        assert "cmdtestbot" in build_parser().format_help()
    finally:
        unregister("cmdtestbot")


# -- file modes -----------------------------------------------------------------------

def _with_umask(mask):
    return lambda: os.umask(mask)


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
@pytest.mark.parametrize("mask,mode", [(0o022, 0o644), (0o077, 0o600)])
def test_records_and_results_get_the_umask_mode(tmp_path, mask, mode):
    rec, out = tmp_path / "g.json", tmp_path / "r.json"
    r = subprocess.run([sys.executable, "-m", "guandan", "play", "--seed", "1", "--record", str(rec)],
                       input="q\n", capture_output=True, text=True, timeout=60, cwd=REPO, env=_env(),
                       preexec_fn=_with_umask(mask))
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "guandan", "arena", "greedy", "random", "--deals", "2",
                        "--quiet", "--out", str(out), "--records", str(tmp_path / "recs")],
                       capture_output=True, text=True, timeout=120, cwd=REPO, env=_env(),
                       preexec_fn=_with_umask(mask))
    assert r.returncode == 0, r.stderr
    for f in [rec, out, *(tmp_path / "recs").rglob("*.json")]:
        assert stat.S_IMODE(f.stat().st_mode) == mode, (f, oct(f.stat().st_mode))


def test_a_negative_arena_seed_is_refused_in_one_line():
    """``arena --seed -1`` (the schedule's seeds are non-negative) ends in one
    line, as ``arena(seed=-1)`` in a GuandanError, not a numpy traceback."""
    from guandan import GuandanError
    from guandan.arena import arena
    _refused_at_once("arena", "greedy", "random", "--seed", "-1", needles=("--seed",))
    with pytest.raises(GuandanError, match="seed"):
        arena(["greedy", "random"], deals=1, seed=-1)
