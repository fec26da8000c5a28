"""bench/search.py --budget: what one search decision gets, as the README quotes it."""

import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(*args):
    return subprocess.run([sys.executable, os.path.join(REPO, "bench", "search.py"), *args],
                          capture_output=True, text=True, timeout=300, cwd=REPO)


def test_budget_reports_the_rollouts_of_a_decision():
    p = _run("--budget", "search:rollouts=40", "--budget-positions", "4")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout.strip().splitlines()[-1])["budget"]
    assert r["spec"] == "search:rollouts=40" and r["decisions"] >= 1
    # a rollouts budget is rounded up to whole worlds of every candidate
    assert 40 <= r["rollouts"]["p10"] <= r["rollouts"]["median"] <= r["rollouts"]["p90"] < 60
    assert r["worlds"]["median"] >= 4


def test_budget_refuses_a_player_that_is_not_a_search():
    p = _run("--budget", "expert")
    assert p.returncode != 0
    assert "search player" in p.stderr and "Traceback" not in p.stderr


def test_budget_mistakes_are_one_line():
    for args in (("--budget", "search:foo=1"), ("--budget", "search:rollouts=40", "--budget-positions", "0")):
        p = _run(*args)
        assert p.returncode != 0 and "Traceback" not in p.stderr
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr
