"""The split features of moves (guandan.policies.split_features, the last 14
columns of the "guandan" rows): each field on hand-made positions, the hand's
values against the expert's own decomposition (guandan._expert.decompose_hand),
and the same values from a Game, from an observation and natively from
VecGame.encode."""

import numpy as np
import pytest

from guandan import Game, VecGame
from guandan import _expert
from guandan.policies import SPLIT_FEATURES, SPLIT_FEATURES_DIM, split_features, split_features_of
from guandan.vec import ENCODING_DIMS, MOVE_FEATURES_DIM, OBS_DIM

COL = {name: i for i, name in enumerate(SPLIT_FEATURES)}


def _by_move(g):
    return {str(m): r for m, r in zip(g.legal_moves(), split_features(g))}


def test_layout():
    assert SPLIT_FEATURES_DIM == 14 == len(set(SPLIT_FEATURES))
    assert ENCODING_DIMS["guandan"] == OBS_DIM + MOVE_FEATURES_DIM + SPLIT_FEATURES_DIM == 309


def test_cards_after_goes_out_and_pass():
    g = Game.from_position([["S3", "H3", "DK"], ["HA"], ["D5"], ["C9"]], level="2")
    f = _by_move(g)
    assert f["Pair 3 S3 H3"][COL["cards_after"]] == 1 and f["Single K DK"][COL["cards_after"]] == 2
    assert not any(r[COL["goes_out"]] for r in f.values())
    g2 = Game.from_position([["S3", "H3"], ["HA"], ["D5"], ["C9"]], level="2")
    f2 = _by_move(g2)
    assert f2["Pair 3 S3 H3"][COL["goes_out"]] == 1 and f2["Single 3 S3"][COL["goes_out"]] == 0
    # following: the pass keeps the hand, so its values after are those before
    g3 = Game.from_position([["S3", "H3", "DK", "D4"], ["HA", "S5", "S6"], ["D5"], ["C9"]], level="2")
    g3.play([m for m in g3.legal_moves() if str(m) == "Single 4 D4"][0])
    f3 = split_features(g3)
    moves = g3.legal_moves()
    p = [k for k, m in enumerate(moves) if m.is_pass][0]
    r = f3[p]
    assert r[COL["gain"]] == 0 and r[COL["score"]] == r[COL["score_after"]]
    for a in ("groups", "control", "bombs"):
        assert r[COL[a]] == r[COL[a + "_after"]]
    assert r[COL["whole_group"]] == r[COL["beaters"]] == r[COL["is_control"]] == 0


def test_whole_group_bombs_and_control():
    # a bomb of four 7s, a pair of 9s, a lone 3; level 2, nothing played
    g = Game.from_position([["S7", "H7", "C7", "D7", "S9", "H9", "D3"], ["HA"], ["D5"], ["C9"]], level="2")
    f = _by_move(g)
    bomb = f["Bomb 7 S7 H7 C7 D7"]
    assert bomb[COL["whole_group"]] == 1 and bomb[COL["bombs"]] == 1 and bomb[COL["bombs_after"]] == 0
    assert bomb[COL["beaters"]] == 0 and bomb[COL["is_control"]] == 0      # bombs are not counted
    assert f["Pair 9 S9 H9"][COL["whole_group"]] == 1
    assert f["Single 3 D3"][COL["whole_group"]] == 1
    # one 9 of the pair, one 7 of the bomb: groups broken
    assert f["Single 9 S9"][COL["whole_group"]] == 0
    broken = f["Single 7 S7"]
    assert broken[COL["whole_group"]] == 0 and broken[COL["bombs_after"]] == 0 and broken[COL["gain"]] < 0
    # a low single has many stronger singles out; the red joker none
    assert f["Single 3 D3"][COL["beaters"]] > 0 and f["Single 3 D3"][COL["is_control"]] == 0
    gj = Game.from_position([["HR", "D3", "D4"], ["HA"], ["D5"], ["C9"]], level="2")
    fj = _by_move(gj)
    assert fj["Single R HR"][COL["is_control"]] == 1 and fj["Single R HR"][COL["beaters"]] == 0


def test_the_hands_values_are_the_experts_decomposition():
    checked = 0
    for seed in range(6):
        g = Game(seed=seed)
        for _ in range(80):
            if g.is_over:
                break
            if g.phase.value == "play":
                d = _expert.decompose_hand(g.hands[g.to_act], g.level_index, g.played_cards())
                f = split_features(g)
                assert (f[:, COL["groups"]] == d["groups"]).all()
                assert (f[:, COL["control"]] == d["control"]).all()
                assert (f[:, COL["bombs"]] == d["bombs"]).all()
                n = len(g.hands[g.to_act])
                sizes = np.array([0 if m.is_pass else len(m.hand()) for m in g.legal_moves()])
                assert (f[:, COL["cards_after"]] == n - sizes).all()
                assert (f[:, COL["goes_out"]] == (sizes == n)).all()
                assert (np.abs(f) <= 127).all() and (f == np.round(f)).all()     # int8 values
                checked += 1
            g.play(g.choose("expert"))
    assert checked > 100


@pytest.mark.parametrize("seed", [1, 2])
def test_native_rows_equal_the_game_path(seed):
    n = 8
    v = VecGame(n, seed=seed)
    rng = np.random.default_rng(seed)
    lo = OBS_DIM + MOVE_FEATURES_DIM
    for step in range(120):
        offs, x = v.encode("guandan")
        for i in range(n):
            g = v.game(i)
            if g.is_over or offs[i + 1] == offs[i]:
                continue
            np.testing.assert_array_equal(x[offs[i]:offs[i + 1], lo:], split_features(g))
        a = v.choose("expert")
        explore = rng.random(n) < 0.2
        counts = np.diff(offs)
        a[explore] = (rng.random(int(explore.sum())) * counts[explore]).astype(np.int64)
        v.step(a)


def test_observation_path_equals_the_game_path():
    # games played from the deal: the observation's history is the round's
    rng = np.random.default_rng(3)
    checked = 0
    for seed in range(3):
        g = Game(seed=seed)
        for _ in range(150):
            if g.is_over:
                break
            obs = g.observation(g.to_act)
            f = split_features(g)
            np.testing.assert_array_equal(split_features_of(obs, g.legal_moves()), f)
            np.testing.assert_array_equal(split_features_of(obs, list(g.legal_moves())), f)
            checked += 1
            moves = g.legal_moves()
            g.play(g.choose("expert") if rng.random() < 0.8 else moves[int(rng.integers(len(moves)))])
    assert checked > 200


GOLDEN_ROWS = {          # the first play decision of Game(seed=4) after the expert's tribute and return
    "Single 2 S2": [-16, -35, -43, 7, 8, 1, 0, 0, 0, 0, 2, 0, 26, 0],
    "Single 4 H4": [-4, -35, -37, 7, 8, 1, 1, 0, 0, 0, 13, 0, 26, 0],
    "Single 6 S6": [-15, -35, -43, 7, 8, 1, 1, 0, 0, 0, 11, 0, 26, 0],
    "Pair K HK CK": [-13, -35, -42, 7, 8, 1, 1, 0, 0, 0, 4, 0, 25, 0],
    "Straight T DT DJ DQ CK CA": [-36, -35, -53, 7, 9, 1, 1, 0, 0, 0, 0, 1, 22, 0],
}


def test_golden_rows_in_every_build():
    # negative scores are divided toward zero in every build (the debug build
    # compiles Python's floor division by default): the rows a network was
    # trained on are the rows it plays on
    g = Game(seed=4)
    while g.phase.value != "play":
        g.play(g.choose("expert"))
    f = _by_move(g)
    for move, row in GOLDEN_ROWS.items():
        assert f[move].astype(int).tolist() == row, move
