"""The CLI as a new user meets it: one-line errors (exit code 2 for usage
errors), lower-case cards, the missing-extra message, bots from the current
folder, --version and help."""

import os
import socket
import subprocess
import sys

import pytest

import guandan
from guandan import Game, Hand, SimulationResult, classify, legal_moves, simulate

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.dirname(os.path.dirname(os.path.abspath(guandan.__file__)))


def cli(*args, cwd=None, env=None, timeout=120):
    e = dict(os.environ)
    e["PYTHONPATH"] = SRC + os.pathsep + e.get("PYTHONPATH", "")
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "guandan", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd or REPO, env=e, stdin=subprocess.DEVNULL)


def one_line_error(r, code=2, *needles):
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    err = r.stderr.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    for n in needles:
        assert n in err, err
    return err

# -- errors as one line ------------------------------------------------------------

def test_replay_missing_file(tmp_path):
    one_line_error(cli("replay", "missing.json", cwd=tmp_path), 2, "missing.json")


def test_serve_on_a_port_in_use():
    pytest.importorskip("websockets")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = cli("serve", "--port", str(port), "--games", "1", timeout=60)
    one_line_error(r, 2, f"127.0.0.1:{port}", "in use")


def test_bot_without_a_server_and_with_a_bad_url():
    pytest.importorskip("websockets")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]           # closed again: nobody listens there
    one_line_error(cli("bot", "guandan.bots:Bot", "--url", f"ws://127.0.0.1:{port}/game/x"), 2,
                   "cannot connect")
    one_line_error(cli("bot", "guandan.bots:Bot", "--url", "http://127.0.0.1:1/x"), 2, "ws://")


def test_simulate_checks_the_output_path_before_simulating(tmp_path):
    err = one_line_error(cli("simulate", "--deals", "100000000", "--out", "/nonexistent/x.npz"), 2,
                         "/nonexistent")
    assert "does not exist" in err
    one_line_error(cli("simulate", "--deals", "10", "--out", str(tmp_path / "x.txt")), 2, ".txt")


def test_simulate_counts_name_the_option():
    err = one_line_error(cli("simulate", "--deals", "-5"), 2, "--deals", "-5")
    assert "n must be" not in err
    one_line_error(cli("simulate", "--deals", "0"), 2, "argument --deals: must be at least 1")
    one_line_error(cli("simulate", "--games", "x"), 2, "--games")


def test_level_14_is_accepted_and_15_offers_the_range():
    r = cli("moves", "--level", "14", "S3", "HA")
    assert r.returncode == 0 and "Pair 3 S3 HA" in r.stdout        # HA is a wild at level A
    one_line_error(cli("moves", "--level", "15", "S3"), 2, "2..14")


def test_last_play_errors_have_no_python_list():
    err = one_line_error(cli("moves", "--last", "Pair 5 S5", "S6", "S6"), 2, "S5")
    assert "[" not in err and "'" not in err.split("error:")[1]


def test_unknown_bots_are_refused_before_the_banner():
    r = cli("play", "--bots", "smart")
    one_line_error(r, 2, "smart")
    assert r.stdout == ""


def test_out_csv_writes_csv_never_csv_npz(tmp_path):
    out = tmp_path / "x.csv"
    r = cli("simulate", "--deals", "50", "--workers", "1", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert out.exists() and not (tmp_path / "x.csv.npz").exists()
    head = out.read_text().splitlines()
    assert head[0].split(",")[:3] == ["game", "round", "level"] and len(head) == 51


def test_no_arguments_prints_the_help_and_version():
    r = cli()
    assert r.returncode == 0 and "usage: guandan" in r.stdout and "simulate" in r.stdout
    r = cli("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"guandan {guandan.__version__}"


def test_usage_errors_are_one_line_exit_2():
    one_line_error(cli("frobnicate"), 2, "invalid choice")
    one_line_error(cli("simulate", "--policy", "greedy,smart"), 2, "smart")


# -- cards in lower case, extras, bots from the current folder ----------------------

def test_cards_in_lower_case_everywhere():
    assert Hand("h8 sb") == Hand("H8 SB")
    assert [str(m) for m in legal_moves("s5 d5", "2")] == [str(m) for m in legal_moves("S5 D5", "2")]
    assert [str(m) for m in classify("sk dk h5 s2 d2", "5")][0] == "ThreeWithTwo K SK DK H5 S2 D2"
    assert "h8" in Hand("H8")
    r = cli("moves", "h8", "sb")
    assert r.returncode == 0 and "Single 8 H8" in r.stdout
    g = Game.from_position([["S3", "D3", "S9"], ["SA"], ["D9"], ["C9"]], level="2", to_act=0)
    g.play("pair 3 s3 d3")
    assert str(g.top.move) == "Pair 3 S3 D3"


def test_missing_extra_message_gives_both_pip_forms(tmp_path):
    # hide websockets from the bot client
    (tmp_path / "websockets.py").write_text("raise ImportError('hidden for the test')\n")
    r = cli("bot", "guandan.bots:Bot", "--url", "ws://127.0.0.1:1/game/x",
            env={"PYTHONPATH": str(tmp_path) + os.pathsep + SRC})
    err = one_line_error(r, 2)
    assert "pip install '.[server]'" in err and "guandan[" not in err


def test_bot_module_found_in_the_current_folder(tmp_path):
    (tmp_path / "my_module.py").write_text(
        "from guandan.bots import Bot\nclass MyBot(Bot):\n    pass\n")
    r = cli("bot", "my_module:MyBot", "--url", "ws://127.0.0.1:1/game/x", cwd=tmp_path)
    err = one_line_error(r, 2, "cannot connect")          # loaded, then no server
    assert "No module named" not in err


def test_guandan_simulate_is_the_function():
    import inspect
    import pydoc

    assert inspect.isfunction(guandan.simulate)
    params = inspect.signature(guandan.simulate).parameters
    assert list(params)[:2] == ["n", "unit"] and {"seed", "policies", "workers"} <= set(params)
    assert "simulate(n" in pydoc.render_doc(guandan, renderer=pydoc.plaintext)   # help(guandan)
    import guandan.simulation as mod
    assert mod.simulate is guandan.simulate and "Bulk simulation" in pydoc.render_doc(mod, renderer=pydoc.plaintext)
    from guandan.simulation import chunk_seeds, game_seed  # noqa: F401
    r = simulate(50, seed=1, workers=1)
    assert isinstance(r, SimulationResult) and len(r) == 50


def test_no_exported_name_is_also_a_module():
    # a package attribute that is both a submodule and a function or class
    # is the submodule for a type checker ("Module not callable")
    import pkgutil
    modules = {m.name for m in pkgutil.iter_modules(guandan.__path__)}
    assert not set(guandan.__all__) & modules


def test_simulate_refuses_absurd_counts_instead_of_running_forever():
    # the fuzz suite drew n = 2**64 now and then and simulated until killed
    with pytest.raises(ValueError, match="n must be an int 0.."):
        simulate(2 ** 64, workers=1)
    one_line_error(cli("simulate", "--deals", str(2 ** 64)), 2, "argument --deals: must be at most")
