"""VecGame: batched stepping agrees with the engine and restarts episodes."""

import numpy as np
import pytest

from guandan import Game, GuandanError, VecGame, move_features
from guandan.simulation import game_seed


def test_vecgame_matches_single_games():
    v = VecGame(4, seed=9, unit="game")
    games = [Game(seed=game_seed(9, k)) for k in range(4)]
    rng = np.random.default_rng(1)
    for _ in range(600):
        o = v.observe()
        offs, words = o["legal_offsets"], o["legal_words"]
        acts = np.zeros(4, dtype=np.int64)
        for i, g in enumerate(games):
            legal = g.legal_moves()
            assert len(legal) == offs[i + 1] - offs[i]
            assert np.array_equal(legal.to_numpy(), words[offs[i]:offs[i + 1]])
            assert o["seat"][i] == g.to_act
            hand = g.hands[g.to_act].counts()
            assert np.array_equal(o["obs"][i, :54], hand)
            acts[i] = rng.integers(len(legal))
        r, d = v.step(acts)
        for i, g in enumerate(games):
            g.play(g.legal_moves()[int(acts[i])])
            assert bool(d[i]) == g.is_over
        if d.any():
            break


def test_episodes_and_rewards_deal_unit():
    v = VecGame(16, seed=2, max_actions=64)
    rng = np.random.default_rng(0)
    total = 0
    for _ in range(2000):
        o = v.observe()
        assert o["action_mask"].shape == (16, 64)
        c = np.diff(o["legal_offsets"])
        assert np.all(c >= 1)
        r, d = v.step((rng.random(16) * c).astype(np.int64))
        # zero-sum between teams, partners share
        assert np.all(r[:, 0] == r[:, 2]) and np.all(r[:, 1] == r[:, 3])
        assert np.all(r[:, 0] == -r[:, 1])
        assert np.all((r[d == 0] == 0))
        assert np.all(np.abs(r[d == 1, 0]) <= 4)  # 0 when a team at A stays there
        total += d.sum()
    assert total > 0


def test_features_and_bad_actions():
    v = VecGame(2, seed=0)
    offs, feats = v.legal_features()
    assert feats.shape[1] == 68 and feats.shape[0] == offs[-1]
    with pytest.raises(GuandanError):
        v.step(np.array([10**6, 0]))
    with pytest.raises(GuandanError):
        v.step(np.array([0]))
    assert move_features(np.zeros((0, 2), dtype=np.uint64)).shape == (0, 68)
