"""The public API's types, as an editor or a type checker sees them:
``mypy --strict`` passes on tests/typing/example_api.py (and CI runs it in
its typing stage), and a wrong use is caught."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
EXAMPLE = os.path.join(HERE, "typing", "example_api.py")


def _mypy(tmp_path, *files):
    pytest.importorskip("mypy")
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                           "--cache-dir", str(tmp_path / "cache"), *files],
                          capture_output=True, text=True, cwd=REPO, timeout=600)


def test_the_typed_example_runs(capsys):
    sys.path.insert(0, os.path.dirname(EXAMPLE))
    try:
        import example_api
    finally:
        sys.path.remove(os.path.dirname(EXAMPLE))
    example_api.main()
    assert "refused: unknown card" in capsys.readouterr().out


def test_mypy_strict_passes_on_the_typed_example(tmp_path):
    r = _mypy(tmp_path, EXAMPLE)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_sees_the_real_signatures(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from guandan import Game, simulate\n"
                   "x: str = simulate(10, seed=1)\n"            # a SimulationResult
                   "y: str = Game(seed=1).legal_moves()[0]\n")  # a Move
    r = _mypy(tmp_path, str(bad))
    assert r.returncode == 1, r.stdout
    assert 'SimulationResult", variable has type "str"' in r.stdout
    assert 'Move", variable has type "str"' in r.stdout
    assert "not callable" not in r.stdout
