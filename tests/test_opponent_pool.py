"""The opponent pool (guandan.policies.POOL): each bot differs from the
expert where its style says it must, and only in that direction, on the
positions of seeded expert games."""

from collections import Counter

import pytest

from guandan import Game, policies
from guandan.state import Phase


def _kind(m):
    return "pass" if m.is_pass else ("bomb" if m.is_bomb else "play")


@pytest.fixture(scope="module")
def differences():
    """(style, where, expert's kind, style's kind) -> count, over the
    play-phase decisions with a choice of 12 three-round expert games."""
    cnt = Counter()
    for seed in range(12):
        g = Game(seed=seed)
        while not g.is_over and g.round_index < 3:
            if g.phase is Phase.PLAY and len(g.legal_moves()) > 1:
                e = g.choose("expert")
                top = g.top
                where = "lead" if top is None else ("partner" if (top.seat & 1) == (g.to_act & 1) else "opp")
                for style in policies.POOL:
                    m = g.choose(style)
                    assert m in g.legal_moves()
                    if m.words != e.words:
                        cnt[(style, where, _kind(e), _kind(m))] += 1
                    cnt[(style, "total")] += 1
            g.play(g.choose("expert"))
    return cnt


def _n(cnt, style, where=None, e=None, m=None):
    return sum(v for k, v in cnt.items() if len(k) == 4 and k[0] == style
               and (where is None or k[1] == where) and (e is None or k[2] == e) and (m is None or k[3] == m))


def test_the_pool_is_registered_and_native():
    assert policies.POOL == ("bomber", "hoarder", "partner", "wobbly", "rusher")
    for name in policies.POOL:
        assert name in policies.policy_names()
        assert policies.native_code(name) > 3
        assert policies.native_policy_name(policies.native_code(name)) == name


def test_bomber_bombs_where_the_expert_passes_and_never_passes_where_it_plays(differences):
    assert _n(differences, "bomber", "opp", "pass", "bomb") >= differences[("bomber", "total")] // 100
    assert _n(differences, "bomber", "opp", None, "pass") == 0


def test_hoarder_keeps_its_bombs_and_never_follows_where_the_expert_passes(differences):
    assert _n(differences, "hoarder", "opp", "bomb", "pass") > 0
    assert _n(differences, "hoarder", "opp", "pass", None) == 0


def test_partner_never_plays_over_its_partner_where_the_expert_passes(differences):
    assert _n(differences, "partner", "partner", "pass", None) == 0
    assert _n(differences, "partner", "opp", "pass", "bomb") > 0      # guarding a partner close to out


def test_rusher_never_passes_on_an_opponent_where_the_expert_follows(differences):
    assert _n(differences, "rusher", "opp", None, "pass") == 0
    assert _n(differences, "rusher", "opp", "pass", "play") > 0
    assert _n(differences, "rusher", "lead") > 0                     # longest groups first


def test_wobbly_deviates_in_about_15_percent_of_decisions(differences):
    share = _n(differences, "wobbly") / differences[("wobbly", "total")]
    assert 0.05 < share < 0.2


def test_hoarder_follows_only_with_whole_groups_of_its_split():
    checked = 0
    for seed in range(6):
        g = Game(seed=seed)
        while not g.is_over and g.round_index < 2:
            top = g.top
            if g.phase is Phase.PLAY and top is not None and (top.seat & 1) != (g.to_act & 1):
                m = g.choose("hoarder")
                if not m.is_pass and not m.is_bomb and len(m.cards) < sum(1 for _ in g.hands[g.to_act]):
                    moves = g.legal_moves()
                    i = [x.words for x in moves].index(m.words)
                    whole = policies.split_features(g, moves)[i][policies.SPLIT_FEATURES.index("whole_group")]
                    assert whole == 1
                    checked += 1
            g.play(g.choose("expert"))
    assert checked > 20



def test_inference_bench_runs_against_a_pool_bot():
    """bench/inference.py (the placement table of docs/search.md) runs and
    prints one row and its JSON for each opponent."""
    import json
    import os
    import subprocess
    import sys
    root = os.path.join(os.path.dirname(__file__), "..")
    out = subprocess.run([sys.executable, os.path.join(root, "bench", "inference.py"), "--opponents",
                          "rusher", "--games", "2", "--worlds", "20", "--proposals", "8,p8"],
                         capture_output=True, text=True, timeout=300, check=True).stdout.splitlines()
    assert out[2].startswith("| rusher |")
    res = json.loads(out[-1])["rusher"]
    assert res["positions"] > 0 and 0 < res["share"]["1"] < 1 and len(res["gain"]["8"]) == 3
    assert len(res["gain"]["p8"]) == 3


def test_styles_bench_runs_against_a_pool_bot():
    """bench/styles.py (the family's fit and the reading tables of
    docs/search.md) runs and prints its rows and their JSON."""
    import json
    import os
    import subprocess
    import sys
    root = os.path.join(os.path.dirname(__file__), "..")
    out = subprocess.run([sys.executable, os.path.join(root, "bench", "styles.py"), "--opponents",
                          "hoarder", "--games", "2", "--read-games", "2"],
                         capture_output=True, text=True, timeout=300, check=True).stdout.splitlines()
    assert out[2].startswith("| `hoarder` |")
    res = json.loads(out[-1])["hoarder"]
    assert res["choices"] > 0 and res["fit"]["fam-keep"] > res["fit"]["expert"]
    assert set(res["read"]["share"]) == {"expert", "fam-bomb-early", "fam-keep", "fam-eager"}


def test_groups_bench_runs_and_fits():
    """bench/groups.py (the groups table and the fit of the keep tilt in
    docs/search.md) runs: real hands and both samplers, and the fit."""
    import os
    import subprocess
    import sys
    root = os.path.join(os.path.dirname(__file__), "..")
    script = os.path.join(root, "bench", "groups.py")
    out = subprocess.run([sys.executable, script, "--opponents", "expert", "--games", "2", "--worlds", "20"],
                         capture_output=True, text=True, timeout=300, check=True).stdout.splitlines()
    assert out[0].startswith("| opponent |") and out[2].startswith("| expert |")
    assert len(out[2].split("|")) == 7
    out = subprocess.run([sys.executable, script, "--fit", "--games", "2"],
                         capture_output=True, text=True, timeout=300, check=True).stdout.splitlines()
    assert out[0].startswith("| cards played |") and len(out) >= 4


def test_paired_bench_pools_runs_deal_by_deal(tmp_path):
    """bench/paired.py compares two arena runs deal by deal, pooling several
    pairs of runs (other seeds): the difference is the mean of the per-deal
    differences of the pair scores."""
    import json
    import os
    import subprocess
    import sys
    root = os.path.join(os.path.dirname(__file__), "..")

    def run(name, seed, scores):
        path = tmp_path / f"{name}{seed}.json"
        pairs = [{"deal": i, "pair": p, "pair_points": 2 * p} for i, p in enumerate(scores)]
        path.write_text(json.dumps({"pairings": [{"a": name, "b": "rusher", "pairs": pairs}]}))
        return str(path)

    files = [run("new", 1, [2, 1, 1]), run("old", 1, [1, 1, 0]), run("new", 2, [0, 2]), run("old", 2, [0, 1])]
    out = subprocess.run([sys.executable, os.path.join(root, "bench", "paired.py")] + files,
                         capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()
    row = out[-1]
    # per-deal differences 50, 0, 50, 0, 50 points: mean +30
    assert row.startswith("| rusher | 5 | 60.0% | 30.0% | +30.0 [")
    bad = subprocess.run([sys.executable, os.path.join(root, "bench", "paired.py"), files[0]],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "usage" in bad.stderr
    other = run("other", 3, [1, 1])
    bad = subprocess.run([sys.executable, os.path.join(root, "bench", "paired.py")] + files[:2] + [other, files[3]],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "not new against old" in bad.stderr
    bad = subprocess.run([sys.executable, os.path.join(root, "bench", "paired.py"), files[0],
                          str(tmp_path / "missing.json")], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "not a readable arena result" in bad.stderr
    assert "Traceback" not in bad.stderr
    # a baseline measured twice (comma-separated runs on the same deals) is
    # averaged deal by deal: old twice over seed 1 averages to 1.5, 1, 0.5
    # pair points on the deals both played
    again = run("old-dice1", 1, [2, 1, 1])
    out = subprocess.run([sys.executable, os.path.join(root, "bench", "paired.py"), files[0],
                          files[1] + "," + again], capture_output=True, text=True, timeout=60,
                         check=True).stdout.splitlines()
    assert "old + old-dice1" in out[0]
    assert out[-1].startswith("| rusher | 3 | 66.7% | 50.0% | +16.7 [")
    bad = subprocess.run([sys.executable, os.path.join(root, "bench", "paired.py"), files[0], ","],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "no arena result named" in bad.stderr and "Traceback" not in bad.stderr
