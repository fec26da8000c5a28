"""Tests of the native simulation loop itself (private API: ``guandan._sim``).

The public behaviour is tested through ``simulate()`` in tests/test_simulate.py;
these check the native loop's recorded games and invariants directly."""

import concurrent.futures

import numpy as np
import pytest

from guandan import Game, Rules, _sim
from guandan.simulation import chunk_seeds


def test_native_games_equal_python_engine_games():
    """Replay a sample of native games, action by action, through Game."""
    gs, ps = chunk_seeds(4, 0)
    for codes in ([1, 1, 1, 1], [2, 1, 2, 1]):
        out, recs = _sim.run_chunk(gs, ps, 3, 1, np.array(codes, dtype=np.int16), Rules().native,
                                   record_games=3)
        assert len(recs) == 3
        for k, rec in enumerate(recs):
            g = Game(seed=_sim.game_seed(gs, k))
            for seat, lo, hi in rec.tolist():
                assert g.to_act == seat
                legal = g.legal_moves()
                i = legal.find(lo, hi)
                assert i >= 0
                g.play(legal[i])
            assert g.is_over
            assert g.winner == out["winner"][k]
            assert g.round_index == out["rounds"][k]
            assert list(g.team_level_indices) == out["levels"][k].tolist()
            assert Game.replay(g.record()).position == g.position


@pytest.mark.slow
@pytest.mark.parametrize("rules,codes,chunks", [
    (Rules(), (1, 1, 1, 1), range(0, 6)),
    (Rules.contest(), (1, 1, 1, 1), range(6, 8)),
    (Rules(equal_tribute_leader="banker_left", a_fail_limit=2), (2, 1, 2, 1), range(8, 10)),
])
def test_ten_thousand_native_games_keep_the_invariants(rules, codes, chunks):
    """10,000 seeded games in the native loop, every step checked: the seat to
    act holds cards, plays use cards in hand and beat the table, the leader
    never passes, 108 cards conserved, finishing orders are permutations,
    promotion follows the partner's place, games end."""
    def one(i):
        gs, ps = chunk_seeds(2024, i)
        out, _ = _sim.run_chunk(gs, ps, 1000, 1, np.array(codes, dtype=np.int16), rules.native,
                                check=True)
        return out

    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        outs = list(ex.map(one, chunks))
    for out in outs:
        assert len(out["winner"]) == 1000
        assert set(np.unique(out["winner"])) <= {0, 1}
        assert np.all(out["rounds"] >= 1)
        assert np.all((out["levels"] >= 0) & (out["levels"] <= 12))
