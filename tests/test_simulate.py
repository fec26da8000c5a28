"""Bulk simulation: determinism across workers and executors (Dask included),
sane statistics, and native games equal to the Python engine's games."""

import concurrent.futures
import math

import numpy as np
import pytest

from guandan import GuandanError, Rules, simulate


def _same(a, b):
    assert a.rows.keys() == b.rows.keys()
    for k in a.rows:
        assert np.array_equal(a.rows[k], b.rows[k]), k


def test_workers_do_not_change_results():
    a = simulate(5000, seed=11, workers=1)
    b = simulate(5000, seed=11, workers=2)
    _same(a, b)
    assert len(a.rows["decisions"]) == 5000


def test_games_workers_and_process_pool():
    a = simulate(120, unit="game", policies=("random",) * 4, seed=5, workers=1)
    with concurrent.futures.ProcessPoolExecutor(2) as ex:
        b = simulate(120, unit="game", policies=("random",) * 4, seed=5, executor=ex)
    _same(a, b)


def test_dask_local_cluster_same_results():
    distributed = pytest.importorskip("distributed")
    local = simulate(6000, seed=3, workers=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = simulate(6000, seed=3, executor=client)
    _same(local, remote)


def test_different_seeds_differ():
    a = simulate(2000, seed=1, workers=1)
    b = simulate(2000, seed=2, workers=1)
    assert not np.array_equal(a.rows["order"], b.rows["order"])


@pytest.mark.parametrize("pol", ["random", "greedy"])
def test_identical_policies_win_about_half(pol):
    r = simulate(20000, policies=(pol,) * 4, seed=7, workers=2)
    s = r.summary()
    p = s["team_win_rate"][0]
    # 20,000 deals: a fair coin stays within 4.5 standard errors of 0.5
    assert abs(p - 0.5) < 4.5 * math.sqrt(0.25 / 20000)
    lo, hi = s["team_win_ci95"][0]
    assert lo < p < hi
    assert s["decisions_per_deal"] > 40


def test_greedy_beats_random():
    r = simulate(4000, policies=("greedy", "random", "greedy", "random"), seed=1)
    assert r.summary()["team_win_rate"][0] > 0.9


def test_deal_rows_are_consistent():
    r = simulate(3000, seed=9, workers=2).rows
    order = r["order"]
    assert np.all(np.sort(order, axis=1) == np.arange(4))
    assert np.array_equal(r["banker_team"], order[:, 0] & 1)
    # promotion: +3 / +2 / +1 by the partner's place (capped at A, 0 when the game is won)
    partner = (order[:, 0] + 2) % 4
    place = np.argmax(order == partner[:, None], axis=1)
    expect = 4 - place
    # (below that only when capped at A or the game was won)
    assert np.all((r["delta"] >= 0) & (r["delta"] <= expect))
    assert np.mean(r["delta"] == expect) > 0.5
    assert set(np.unique(r["tribute"])) <= {0, 1, 2}
    assert np.all(r["tribute"][r["round"] == 0] == 0)
    assert np.all((r["anti"] == 0) | (r["tribute"] == 0))


def test_python_policy_path_matches_native_rows_shape():
    def first(obs, legal):
        return legal[0]

    r = simulate(30, policies=(first, "greedy", "random", "greedy"), seed=2, workers=1)
    assert len(r.rows["decisions"]) == 30
    assert r.rows.keys() == simulate(30, seed=2).rows.keys()


def test_keep_rows_false_and_save(tmp_path):
    r = simulate(2500, seed=1, keep_rows=False)
    assert r.rows is None and r.summary()["n"] == 2500
    with pytest.raises(GuandanError):
        r.save(str(tmp_path / "x.npz"))
    r2 = simulate(100, seed=1)
    p = r2.save(str(tmp_path / "x.npz"))
    d = np.load(p)
    assert np.array_equal(d["order"], r2.rows["order"])


def test_rules_variant_runs():
    r = simulate(300, unit="game", policies=("random",) * 4, rules=Rules.contest(), seed=1)
    assert r.summary()["n"] == 300


def test_bad_arguments():
    for kw in ({"unit": "round"}, {"policies": ("random",) * 3}, {"policies": ("nope",) * 4}):
        with pytest.raises(GuandanError):
            simulate(10, **kw)
    with pytest.raises(GuandanError):
        simulate(-1)


def test_python_seats_give_the_native_rows():
    """A Python callable making the native rule's decisions gives exactly the
    rows of the native loop, random seats included (one random stream)."""
    from guandan import GreedyPolicy
    native = simulate(300, policies=("greedy", "random", "greedy", "random"), seed=3, workers=1)
    mixed = simulate(300, policies=(GreedyPolicy(), "random", "greedy", "random"), seed=3, workers=1)
    for k in native.rows:
        assert np.array_equal(native.rows[k], mixed.rows[k]), k
    games = simulate(4, unit="game", policies=("random", GreedyPolicy(), "random", "greedy"), seed=5)
    ref = simulate(4, unit="game", policies=("random", "greedy", "random", "greedy"), seed=5)
    for k in ref.rows:
        assert np.array_equal(games.rows[k], ref.rows[k]), k
