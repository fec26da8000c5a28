"""The arena: duplicate deals, paired statistics, SPRT, runners, forfeits, CLI."""

import json
import math
import os
import subprocess
import sys
import textwrap
import time

import pytest

from guandan import Game
from guandan.arena import (SPRT, Limits, arena, deal_spec, elo_to_score, fit_ratings, pairings,
                           score_stats)
from guandan.arena.participants import Builtin, parse_participants
from guandan.arena.runner import play_batch_native, play_batch_python
from guandan.arena.stats import pentanomial, points_stats
from guandan.cli import main

import guandan  # noqa: E402

# the folder holding the guandan package in use (installed or built in place)
SRC = os.path.dirname(os.path.dirname(os.path.abspath(guandan.__file__)))

BOTS = textwrap.dedent('''
    from guandan.bots import Bot

    class Lowest(Bot):
        """Pass when it may, else the last listed move."""
        def act(self, observation, legal_moves):
            return 0 if not observation["leading"] else len(legal_moves) - 1

    class Crash(Bot):
        def act(self, observation, legal_moves):
            if len(observation["history"]) > 6:
                raise RuntimeError("boom")
            return 0

    class Hang(Bot):
        def act(self, observation, legal_moves):
            if len(observation["history"]) > 6:
                while True:
                    pass
            return 0

    class Illegal(Bot):
        def act(self, observation, legal_moves):
            return ["Single", "3", ["S3", "S3"]]

    class Exit(Bot):
        """Kills its own process (no exception to catch)."""
        def act(self, observation, legal_moves):
            if len(observation["history"]) > 6:
                import os
                os._exit(7)
            return 0
''')


@pytest.fixture
def botmod(tmp_path, monkeypatch):
    (tmp_path / "arena_test_bots.py").write_text(BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "arena_test_bots"


# -- the duplicate scheme ---------------------------------------------------------

def test_both_halves_are_identical_deals():
    for i in range(40):
        d = deal_spec(11, i, tribute=i % 4 != 0)
        g0, g1 = d.game(half=0), d.game(half=1)
        assert [str(h) for h in g0.hands] == [str(h) for h in g1.hands]
        assert (g0.level, g0.team_levels, g0.phase, g0.to_act, g0.position) == \
               (g1.level, g1.team_levels, g1.phase, g1.to_act, g1.position)
        assert g0.record()["round_start"] == g1.record()["round_start"]
        if d.last_order is None:
            assert g0.phase == "play"
        else:
            assert d.last_order[0] & 1 == d.owner
            assert g0.level == "23456789TJQKA"[d.team_levels[d.owner]]


def test_arena_records_of_both_halves_share_the_deal(tmp_path):
    res = arena(["greedy", "random"], deals=6, seed=4, records=str(tmp_path), concurrency=1)
    sub = tmp_path / "greedy-vs-random"
    for i in range(6):
        r0 = json.loads((sub / f"deal{i:06d}-0.json").read_text())
        r1 = json.loads((sub / f"deal{i:06d}-1.json").read_text())
        assert r0["deals"][0] == r1["deals"][0] and r0["seed"] == r1["seed"]
        assert r0["round_start"] == r1["round_start"]
        assert r0["arena"]["seats"] == ["greedy", "random"] * 2
        assert r1["arena"]["seats"] == ["random", "greedy"] * 2
        g0 = Game.replay(r0)                     # replayable
        assert g0.last_round_order == res[0].pairs[i]["halves"][0]["order"]
    assert main(["replay", str(sub / "deal000000-1.json")]) == 0


def test_schedule_is_seeded_and_pairings():
    assert deal_spec(3, 7) == deal_spec(3, 7) != deal_spec(4, 7)
    assert deal_spec(3, 7, tribute=False).last_order is None
    assert deal_spec(3, 7, levels=(12, 0)).team_levels == (12, 0)
    owners = [deal_spec(1, i).owner for i in range(400)]
    assert 150 < sum(owners) < 250
    assert pairings(4, "round-robin") == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert pairings(4, "gauntlet") == [(0, 1), (0, 2), (0, 3)]
    with pytest.raises(ValueError):
        pairings(3, "head-to-head")


def test_from_deal_validates():
    from guandan import GuandanError
    with pytest.raises(GuandanError):
        Game.from_deal(1, ("2", "2"), 0, [1, 0, 2, 3])      # banker not in the owner team
    with pytest.raises(GuandanError):
        Game.from_deal(1, ("2", "2"), 0, [0, 0, 2, 3])
    with pytest.raises(GuandanError):
        Game.from_deal(1, ("2", "Z"), 0)
    g = Game.from_deal(1, ("5", "Q"), 1, [3, 2, 1, 0])       # double-down: two payers
    assert g.phase == "tribute" and g.level == "Q"


# -- statistics: hand-computed examples ---------------------------------------------

def test_score_elo_los_hand_computed():
    # 100 pairs: 5 x 0, 10 x 1/2, 40 x 1, 25 x 3/2, 20 x 2 (pair sums)
    # score = (0*5 + .25*10 + .5*40 + .75*25 + 1*20) / 100 = 0.6125
    # var per pair = sum p (x - .6125)^2 = .05*.37515625 + .1*.13140625 + .4*.01265625
    #              + .25*.01890625 + .2*.15015625 = 0.07171875
    # se = sqrt(.07171875 / 100) = 0.0267803566; CI .6125 -+ 1.95996 se = [.560011, .664989]
    # Elo = -400 log10(1/.6125 - 1) = 79.5338; Elo(.560011) = 41.902; Elo(.664989) = 119.102
    # LOS = Phi(.1125 / .0267804) = Phi(4.20083) = 0.9999867
    s = score_stats([5, 10, 40, 25, 20])
    assert s["score"] == pytest.approx(0.6125)
    assert s["var_pair"] == pytest.approx(0.07171875)
    assert s["se"] == pytest.approx(0.0267803566, rel=1e-8)
    assert s["score_ci"][0] == pytest.approx(0.5600115, abs=1e-6)
    assert s["score_ci"][1] == pytest.approx(0.6649885, abs=1e-6)
    assert s["elo"] == pytest.approx(79.5338, abs=1e-3)
    assert s["elo_ci"][0] == pytest.approx(41.902, abs=1e-3)
    assert s["elo_ci"][1] == pytest.approx(119.102, abs=1e-3)
    assert s["elo_err"] == pytest.approx((119.1018 - 41.9022) / 2, abs=1e-3)
    assert s["los"] == pytest.approx(0.9999867, abs=1e-7)
    # nElo = (.6125 - .5) / sqrt(2 * .07171875) * 800 / ln 10 = 103.204
    assert s["nelo"] == pytest.approx(103.204, abs=1e-3)
    assert pentanomial([0, 0.5, 1, 1, 2, 1.5]) == [1, 1, 2, 1, 1]


def test_paired_variance_is_not_the_independent_halves_variance():
    # every pair one win one loss: the halves alone look like coin flips
    # (variance .25 per half), but pairs carry no noise at all
    s = score_stats([0, 0, 50, 0, 0])
    assert s["score"] == 0.5 and s["se"] == 0.0 and s["los"] == 0.5
    # all pairs WW or LL: strongly correlated halves, larger variance than halves
    s2 = score_stats([25, 0, 0, 0, 25])
    assert s2["var_pair"] == pytest.approx(0.25)          # per pair; halves would give .125
    p = points_stats([6, -6, 0, 2])
    assert p["mean"] == pytest.approx(0.25)
    # pair sums mean 0.5, deviations 5.5, -6.5, -0.5, 1.5: sd = sqrt(75 / 4); se = sd / (2 sqrt 4)
    assert p["se"] == pytest.approx(math.sqrt(75 / 4) / 4)


def test_sprt_llr_hand_computed_and_decisions():
    sp = SPRT(0, 10, 0.05, 0.05)
    assert sp.lower == pytest.approx(math.log(0.05 / 0.95))
    assert sp.upper == pytest.approx(math.log(0.95 / 0.05))
    # the constrained MLE q_k = p_k / (1 + lam (x_k - s)) checked independently:
    # same LLR as maximising the likelihood numerically (see docs/arena.md)
    c = [5, 10, 40, 25, 20]
    assert sp.llr(c) == pytest.approx(1.77086, abs=1e-4)
    assert sp.status(c) == "continue"
    assert sp.status([50, 100, 400, 250, 200]) == "H1"         # 10 x the evidence
    assert sp.llr([50, 100, 400, 250, 200]) == pytest.approx(17.7086, abs=1e-3)
    # near the hypotheses the LLR is the normal approximation
    # N (s1 - s0)(2 mu - s0 - s1) / (2 var)
    c3 = [230, 0, 520, 0, 250]
    s = score_stats(c3)
    s0, s1 = elo_to_score(0), elo_to_score(10)
    approx = 1000 * (s1 - s0) * (2 * s["score"] - s0 - s1) / (2 * s["var_pair"])
    assert sp.llr(c3) == pytest.approx(approx, rel=0.01)
    assert sp.status([300, 0, 400, 0, 300]) == "continue"
    assert sp.status([3000, 0, 4000, 0, 3000]) == "H0"
    assert SPRT.parse("elo0=0 elo1=5 alpha=0.1 beta=0.2").to_dict()["beta"] == 0.2


def test_sprt_llr_against_numerical_mle():
    np = pytest.importorskip("numpy")
    opt = pytest.importorskip("scipy.optimize")
    x = np.array([0, .25, .5, .75, 1])
    for c in ([5, 10, 40, 25, 20], [30, 5, 20, 10, 35], [1, 2, 3, 4, 5]):
        p = np.array(c, float) / sum(c)

        def mle(s):
            cons = [{"type": "eq", "fun": lambda q: q.sum() - 1},
                    {"type": "eq", "fun": lambda q: q @ x - s}]
            return opt.minimize(lambda q: -(p * np.log(np.maximum(q, 1e-300))).sum(), p.copy(),
                                constraints=cons, bounds=[(1e-12, 1)] * 5, method="SLSQP",
                                options={"ftol": 1e-15, "maxiter": 1000}).x
        q0, q1 = mle(elo_to_score(-5)), mle(elo_to_score(15))
        assert SPRT(-5, 15).llr(c) == pytest.approx(sum(c) * (p * np.log(q1 / q0)).sum(), rel=1e-6)


def test_bradley_terry_two_players_is_the_head_to_head_elo():
    sums = [0] * 5 + [0.5] * 10 + [1] * 40 + [1.5] * 25 + [2] * 20
    fit = fit_ratings(2, [(0, 1, sums)], prior=0)
    s = score_stats(pentanomial(sums))
    assert fit["ratings"][0] - fit["ratings"][1] == pytest.approx(s["elo"], abs=1e-6)
    assert sum(fit["ratings"]) == pytest.approx(0, abs=1e-9)
    # the difference's sd by the delta method: se / (c mu (1 - mu)), c = ln 10 / 400
    c = math.log(10) / 400
    sd = s["se"] / (c * s["score"] * (1 - s["score"]))
    var_d = fit["cov"][0][0] + fit["cov"][1][1] - 2 * fit["cov"][0][1]
    assert math.sqrt(var_d) == pytest.approx(sd, rel=1e-6)


def test_bradley_terry_transitive_pool():
    # A beats B by 100 Elo worth of score, B beats C by 100: A - C about 200
    sa = elo_to_score(100)
    n = 4000
    k = int(round(sa * 2 * n))
    sums = [2] * (k - n) + [1] * (2 * n - k)          # mean score sa, n pairs
    fit = fit_ratings(3, [(0, 1, sums), (1, 2, sums)], prior=0)
    r = fit["ratings"]
    assert r[0] - r[1] == pytest.approx(100, abs=0.5)
    assert r[0] - r[2] == pytest.approx(200, abs=1)
    assert all(e > 0 for e in fit["err"])


# -- runners ------------------------------------------------------------------------

def test_native_loop_equals_game_path():
    specs = [deal_spec(9, i, tribute=i % 3 != 0) for i in range(12)]
    a, b = Builtin("greedy"), Builtin("random")
    for unit in ("deal", "game"):
        sp = specs if unit == "deal" else specs[:3]
        nat, nrec = play_batch_native("greedy", "random", sp, unit, None, Limits(), True)
        py, prec = play_batch_python(a, b, sp, unit, None, Limits(), True)
        assert nat == py
        assert nrec == prec


def test_same_seed_same_results_any_concurrency(botmod):
    r1 = arena(["greedy", "random"], deals=600, seed=5, concurrency=1)
    r2 = arena(["greedy", "random"], deals=600, seed=5, concurrency=2)
    assert r1[0].pairs == r2[0].pairs
    p1 = arena([f"{botmod}:Lowest", "random"], deals=6, seed=5, concurrency=1)
    p2 = arena([f"{botmod}:Lowest", "random"], deals=6, seed=5, concurrency=2)
    assert p1[0].pairs == p2[0].pairs


def test_executor_argument_thread_pool():
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(2) as ex:
        r = arena(["greedy", "random"], deals=300, seed=5, executor=ex)
    assert r[0].pairs == arena(["greedy", "random"], deals=300, seed=5, concurrency=1)[0].pairs


def test_sprt_stops_early_on_greedy_vs_random():
    r = arena(["greedy", "random"], deals=2000, seed=1, sprt="elo0=0 elo1=10")
    s = r[0].stats()
    assert s["sprt"]["decision"] == "H1"
    assert s["pairs"] < 300                         # decided long before the limit
    assert s["sprt"]["llr"] >= s["sprt"]["upper"]
    # it stops exactly where the in-order LLR first crosses a bound
    llr = r[0].llr_history
    assert all(r[0].sprt.lower < v < r[0].sprt.upper for v in llr[:-1])


def test_sprt_identical_participants_run_to_the_limit():
    for seed in (1, 2):
        r = arena(["random", "random"], deals=800, seed=seed, sprt="elo0=0 elo1=10")
        s = r[0].stats()
        assert s["pairs"] == 800 and s["sprt"]["decision"] == "continue"
        assert s["elo_ci"][0] < 0 < s["elo_ci"][1]
    # deterministic identical participants: every pair is one win and one loss
    r = arena(["greedy", "greedy"], deals=100, seed=1)
    assert r[0].counts == [0, 0, 100, 0, 0] and r[0].stats()["elo"] == 0


def test_round_robin_and_gauntlet_ratings():
    r = arena(["greedy", "random", "greedy"], deals=200, seed=2)
    assert [(p.a.name, p.b.name) for p in r.pairings] == \
        [("greedy", "random"), ("greedy", "greedy#2"), ("random", "greedy#2")]
    rt = r.ratings
    assert rt["ratings"][0] == pytest.approx(rt["ratings"][2], abs=1e-6)
    assert rt["ratings"][1] < rt["ratings"][0] - 300
    g = arena(["random", "greedy", "greedy"], deals=50, seed=2, tournament="gauntlet")
    assert len(g.pairings) == 2 and g.ratings is not None
    assert "rank" in g.format()


def test_whole_games_unit():
    r = arena(["greedy", "random"], deals=8, unit="game", seed=1)
    s = r[0].stats()
    assert s["pairs"] == 8 and s["score"] > 0.8
    h = r[0].pairs[0]["halves"]
    assert h[0]["rounds"] >= 3 and h[0]["winner"] in (0, 1)


def test_inprocess_bots_and_forfeits(botmod):
    res = arena([f"{botmod}:Crash", f"{botmod}:Hang", f"{botmod}:Illegal", "random"], deals=2,
                seed=1, limits=Limits(move_time=0.3), concurrency=2)
    by = {(p.a.name, p.b.name): p for p in res.pairings}
    crash_hang = by[("Crash", "Hang")]
    reasons = {f["name"]: f["reason"] for f in crash_hang.forfeits}
    assert reasons["Crash"].startswith("crash: RuntimeError: boom")
    assert reasons["Hang"].startswith("timeout")
    ill = by[("Illegal", "random")]
    assert len(ill.forfeits) == 4 and all(f["reason"].startswith("illegal move") for f in ill.forfeits)
    assert ill.stats()["score"] == 0.0 and ill.stats()["points"]["mean"] == -3
    # the match went on: every pairing has all its pairs
    assert all(len(p.pairs) == 2 for p in res.pairings)
    out = res.format()
    assert "forfeits" in out and "boom" in out


def test_inprocess_object_participant():
    from guandan.bots import Bot

    class First(Bot):
        def act(self, observation, legal_moves):
            return legal_moves[0]

    r = arena([First(), "greedy"], deals=4, seed=3, executor=None, concurrency=1)
    assert r[0].a.name == "First" and len(r[0].pairs) == 4


def test_participant_parsing(botmod):
    ps = parse_participants(["greedy", f"{botmod}:Lowest", "search:rollouts=1", "greedy"])
    assert [p.kind for p in ps] == ["builtin", "inprocess", "builtin", "builtin"]
    assert ps[2].native is None and ps[0].native == "greedy"
    assert ps[3].name == "greedy#2"
    from guandan import GuandanError
    with pytest.raises(GuandanError):
        parse_participants(["nosuchpolicy"])
    with pytest.raises(GuandanError):
        parse_participants(["nosuchmodule_xyz:Bot"])


# -- output and CLI ------------------------------------------------------------------

def test_cli_arena_json_and_progress(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["arena", "greedy", "random", "--deals", "300", "--seed", "2", "--out", str(out),
                 "--progress", "--sprt", "elo0=0", "elo1=10"]) == 0
    text = capsys.readouterr()
    assert "Elo difference" in text.out and "SPRT" in text.out
    d = json.loads(out.read_text())
    assert d["format"] == "guandan-arena/1"
    st = d["pairings"][0]["stats"]
    assert st["sprt"]["decision"] == "H1" and st["pairs"] == len(d["pairings"][0]["pairs"])


def test_cli_arena_speed_2000_deals():
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "guandan", "arena", "greedy", "random", "--deals",
                        "2000", "--quiet"], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": SRC})
    assert p.returncode == 0, p.stderr
    assert time.perf_counter() - t < 60
    assert "4000 deals" in p.stdout


def test_plot(tmp_path):
    pytest.importorskip("matplotlib")
    r = arena(["greedy", "random"], deals=50, seed=1)
    assert os.path.getsize(r.plot(str(tmp_path / "h2h.png"))) > 0
    r3 = arena(["greedy", "random", "greedy"], deals=30, seed=1)
    assert os.path.getsize(r3.plot(str(tmp_path / "rr.png"))) > 0


def test_dask_client_executor_same_results():
    distributed = pytest.importorskip("distributed")
    local = arena(["greedy", "random"], deals=600, seed=8, concurrency=1,
                  sprt="elo0=0 elo1=10")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = arena(["greedy", "random"], deals=600, seed=8, executor=client,
                       sprt="elo0=0 elo1=10")
    assert local[0].pairs == remote[0].pairs and local[0].decision == remote[0].decision == "H1"


def test_plain_progress_line_without_tqdm(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)           # import tqdm -> ImportError
    r = arena(["greedy", "random"], deals=300, seed=1, progress=True, sprt="elo0=0 elo1=10")
    err = capsys.readouterr().err
    assert "pairs" in err and "Elo" in err and "LLR" in err and "ETA" in err
    assert r[0].decision == "H1"


def test_json_result_is_strict_json(tmp_path):
    out = tmp_path / "r.json"
    arena(["greedy", "random"], deals=20, seed=1, output=str(out))   # score 1: Elo +inf

    def refuse(token):
        raise ValueError(f"non-standard JSON token {token}")
    d = json.loads(out.read_text(), parse_constant=refuse)
    assert d["pairings"][0]["stats"]["elo"] in ("inf", d["pairings"][0]["stats"]["elo"])


def test_interrupted_run_keeps_the_finished_pairs(tmp_path, capsys, monkeypatch):
    """A Ctrl-C in the middle: ArenaInterrupted carries the result of the
    pairs finished so far, the --out file says it was interrupted; the CLI
    prints the table with a note and exits 130."""
    from guandan.arena import ArenaInterrupted
    from guandan.arena import match

    def stop_after(n):
        seen = []

        def on_pair(r, pr):                  # called once per finished pair
            seen.append(pr)
            if len(seen) >= n:
                raise KeyboardInterrupt
        return on_pair
    out = tmp_path / "r.json"
    with pytest.raises(ArenaInterrupted) as ei:
        arena(["greedy", "random", "search:rollouts=1,k=1"], deals=50, seed=1, concurrency=2,
              output=str(out), on_pair=stop_after(7))
    res = ei.value.result
    assert isinstance(ei.value, KeyboardInterrupt) and ei.value.signal_name == "SIGINT"
    assert res.interrupted == {"signal": "SIGINT", "pairs": 7, "of": 150}
    assert sum(len(p.pairs) for p in res.pairings) == 7
    d = json.loads(out.read_text())
    assert d["interrupted"] == res.interrupted
    assert sum(len(p["pairs"]) for p in d["pairings"]) == 7
    assert "interrupted by SIGINT after 7 of 150 pairs" in res.format()
    # the CLI: the same through a KeyboardInterrupt from inside the run
    real_arena = match.arena
    monkeypatch.setattr("guandan.arena.arena",
                        lambda *a, **k: real_arena(*a, on_pair=stop_after(3), **k))
    out2 = tmp_path / "cli.json"
    assert main(["arena", "greedy", "random", "--deals", "300", "--quiet", "--out", str(out2)]) == 130
    text = capsys.readouterr().out
    assert "Score of greedy vs random" in text and "interrupted by SIGINT after" in text
    assert f"result saved to {out2}" in text
    assert json.loads(out2.read_text())["interrupted"]["signal"] == "SIGINT"
    # a finished run says it was not interrupted
    arena(["greedy", "random"], deals=3, output=str(out))
    assert json.loads(out.read_text())["interrupted"] is None


def test_cli_arena_games_gauntlet_and_errors(tmp_path, capsys):
    assert main(["arena", "random", "greedy", "random", "--games", "2", "--tournament",
                 "gauntlet", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "duplicate games" in out and "rank" in out
    assert main(["arena", "greedy", "nosuchpolicy", "--deals", "5", "--quiet"]) == 2
    assert "unknown policy" in capsys.readouterr().err
    assert main(["arena", "greedy", "random", "--sprt", "elo0=5", "elo1=1", "--quiet"]) == 2


def test_bot_that_kills_its_process_is_forfeited(botmod):
    res = arena([f"{botmod}:Exit", "greedy"], deals=3, seed=1, concurrency=2)
    r = res[0]
    assert len(r.pairs) == 3 and len(r.forfeits) == 6
    assert all(f["name"] == "Exit" and "exit code 7" in f["reason"] for f in r.forfeits)
    # the arena goes on afterwards with a fresh pool
    res2 = arena([f"{botmod}:Lowest", f"{botmod}:Exit", "random"], deals=2, seed=1, concurrency=2)
    assert all(len(p.pairs) == 2 for p in res2.pairings)
    low_rand = res2.pairings[1]
    assert (low_rand.a.name, low_rand.b.name) == ("Lowest", "random") and not low_rand.forfeits


def test_cli_loads_a_bot_module_from_the_current_folder(tmp_path):
    """`guandan arena mybots:First greedy` finds ./mybots.py, as `guandan bot
    mybots:First` does: one module:Class loading rule for every command."""
    (tmp_path / "mybots_here.py").write_text(textwrap.dedent("""
        class First:
            def act(self, observation, legal_moves):
                return 0
    """))
    env = {**os.environ, "PYTHONPATH": SRC}
    p = subprocess.run([sys.executable, "-m", "guandan", "arena", "mybots_here:First", "greedy", "--deals", "1",
                        "--quiet", "--concurrency", "1"], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "cannot load" not in p.stderr


def test_cli_dask_without_dask_installed_is_one_line(monkeypatch, capsys):
    """--dask without the dask extra: one line saying what to install,
    before anything is played (tests/test_arena_dask.py runs the cluster)."""
    for name in ("distributed", "cloudpickle"):
        monkeypatch.setitem(sys.modules, name, None)          # import -> ImportError
    assert main(["arena", "greedy", "random", "--deals", "5", "--quiet", "--dask", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--dask needs dask.distributed: pip install '.[dask]'" in err
