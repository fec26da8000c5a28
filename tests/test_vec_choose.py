"""VecGame.choose: a native policy's action in every game at once."""

import numpy as np
import pytest

from guandan import GuandanError, VecGame


def test_choose_is_legal_and_seeded():
    a, b = VecGame(16, seed=4), VecGame(16, seed=4)
    for _ in range(60):
        offs = a.observe()["legal_offsets"]
        x, y = a.choose("expert"), b.choose("expert")
        assert (x == y).all() and (x >= 0).all() and (x < np.diff(offs)).all()
        a.step(x)
        b.step(y)
    r1, r2 = VecGame(8, seed=1).choose("random"), VecGame(8, seed=1).choose("random")
    assert (r1 == r2).all()


def test_greedy_picks_a_legal_index_and_search_is_refused():
    v = VecGame(4, seed=2)
    assert v.choose("greedy").shape == (4,)
    with pytest.raises(GuandanError, match="rollout"):
        v.choose("search")
    with pytest.raises(GuandanError):
        v.choose("nosuch")


def test_expert_in_vecgame_wins_against_random_in_vecgame():
    # expert seats 0 and 2, random seats 1 and 3: the expert's team wins most deals
    v = VecGame(64, seed=9)
    won = lost = 0
    while won + lost < 64:
        seat = v.observe()["seat"]
        a = np.where(seat % 2 == 0, v.choose("expert"), v.choose("random"))
        r, d = v.step(a)
        for i in np.flatnonzero(d):
            won += r[i, 0] > 0
            lost += r[i, 0] < 0
    assert won > 0.8 * (won + lost)
