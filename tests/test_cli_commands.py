"""The commands as a user types them: ``--engine`` in the natural shell form,
output paths checked before the work starts, Ctrl-C keeping what was done
(one line, no traceback), start-up and result lines on stdout, help texts,
the file mode of written records."""

import os
import signal
import subprocess
import sys
import time

import pytest

import guandan
from guandan.cli import build_parser

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


def popen(*args, cwd=None, stdin=subprocess.DEVNULL):
    return subprocess.Popen([sys.executable, "-u", "-m", "guandan", *args], cwd=cwd or REPO,
                            env=_env(), stdin=stdin, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


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
